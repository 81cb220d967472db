# strata_add_python_module(NAME SOURCES...): a pybind11 extension in
# build/python for the interpreter STRATA_PYTHON names.
#
# pybind11 shares one registry ("internals") among all extensions whose
# pybind11 ABI id matches, and mismatched pybind11 versions sharing it are a
# known source of crashes. Our modules exchange no C++ types with any other
# extension (tensors cross as data pointers), so a compiler type of our own
# gives them a private registry, whatever pybind11 PyTorch was built with.
# (On the GPU host, PyTorch 2.11 next to pip's pybind11 3.1, the crash seen
# was in iostreams, not here: see lib/Runtime/Artifact.cpp.)
find_package(Python3 COMPONENTS Interpreter Development.Module REQUIRED)
find_package(pybind11 CONFIG REQUIRED)

function(strata_add_python_module name)
  pybind11_add_module(${name} MODULE ${ARGN})
  target_compile_definitions(${name} PRIVATE [[PYBIND11_COMPILER_TYPE="_strata"]])
  set_target_properties(${name} PROPERTIES
    LIBRARY_OUTPUT_DIRECTORY ${STRATA_BINARY_DIR}/python)
endfunction()
