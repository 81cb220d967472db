# Reference pages generated from TableGen. Every build generates them in the
# build tree (next to the .inc files); the source tree's docs/generated is
# only written by the `strata-docs` target, run on purpose
# (`ninja -C build strata-docs`) after changing a .td file. The test suite
# fails while docs/generated differs from what the build generated
# (test/python/test_generated_docs.py).
add_custom_target(strata-reference-docs ALL)
add_custom_target(strata-docs)

function(strata_add_doc td_file output_name tblgen_flag)
  set(LLVM_TARGET_DEFINITIONS ${td_file})
  mlir_tablegen(${output_name}.md ${tblgen_flag} ${ARGN})
  set(generated ${CMAKE_CURRENT_BINARY_DIR}/${output_name}.md)
  add_custom_target(${output_name}DocGen DEPENDS ${generated})
  add_dependencies(strata-reference-docs ${output_name}DocGen)
  add_custom_target(${output_name}DocCopy
    COMMAND ${CMAKE_COMMAND} -E copy ${generated}
            ${STRATA_SOURCE_DIR}/docs/generated/${output_name}.md
    DEPENDS ${generated})
  add_dependencies(strata-docs ${output_name}DocCopy)
endfunction()
