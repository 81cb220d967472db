# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "Strata"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.strata_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py",
                   "python", "Inputs", "downstream"]

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.strata_tools_dir, append_path=True)

config.substitutions.append(
    ("%mlir_c_runner_utils",
     os.path.join(config.mlir_lib_dir, "libmlir_c_runner_utils.so")))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%strata_obj_root", config.strata_obj_root))
config.substitutions.append(
    ("%strata_plugin",
     os.path.join(config.strata_obj_root, "lib", "StrataPlugin.so")))
mlir_opt = os.path.join(config.llvm_tools_dir, "mlir-opt")
if config.strata_asan_runtime:  # The plugin is instrumented, mlir-opt not.
    mlir_opt = "env LD_PRELOAD=%s ASAN_OPTIONS=detect_leaks=0:allow_user_poisoning=0 %s" % (
        config.strata_asan_runtime, mlir_opt)
config.substitutions.append(("%mlir_opt", mlir_opt))
# How the downstream test project is configured: same compiler and MLIR.
config.substitutions.append(("%strata_cmake_flags", config.strata_cmake_flags))

tools = ["strata-opt", "strata", "mlir-runner", "FileCheck", "not"]
llvm_config.add_tool_substitutions(
    tools, [config.strata_tools_dir, config.llvm_tools_dir])

# ptxas is optional: tests that need it say `REQUIRES: ptxas`, and lit
# reports them as UNSUPPORTED (with that reason) where it is missing.
ptxas = os.path.join(config.cuda_root, "bin", "ptxas")
if os.access(ptxas, os.X_OK):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
else:
    lit_config.note("ptxas not found under %s: PTX assembly tests are "
                    "skipped" % config.cuda_root)

# nvcc likewise (`REQUIRES: nvcc`, or `%if nvcc`): the CUDA rendering
# compiles. Run without the AddressSanitizer runtime the sanitized build
# preloads, which crashes it.
nvcc = os.path.join(config.cuda_root, "bin", "nvcc")
if os.access(nvcc, os.X_OK):
    config.available_features.add("nvcc")
    config.substitutions.append(("%nvcc", "env -u LD_PRELOAD " + nvcc))
