include(GNUInstallDirs)

# strata_add_library(<name> <sources>... [DEPENDS <tablegen targets>...]
#                    [LINK <libraries>...])
# A static (position-independent) Strata library that links the MLIR and
# LLVM dylibs, is usable from the build tree and from an installed package
# (as Strata::<name>), and joins the exported target set.
function(strata_add_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${STRATA_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${STRATA_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_include_directories(${name} SYSTEM PUBLIC
    ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
  target_link_libraries(${name} PUBLIC ${ARG_LINK} ${STRATA_MLIR_LIBS})
  # A sanitized Strata needs its sanitizers' runtimes wherever it links.
  if(STRATA_SANITIZER_LINK_OPTIONS)
    target_link_options(${name} INTERFACE ${STRATA_SANITIZER_LINK_OPTIONS})
  endif()
  install(TARGETS ${name} EXPORT StrataTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
endfunction()
