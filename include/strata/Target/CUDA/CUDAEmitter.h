#ifndef STRATA_TARGET_CUDA_CUDAEMITTER_H
#define STRATA_TARGET_CUDA_CUDAEMITTER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace strata {
/// Renders every kernelir.func of `module` as a readable CUDA C++
/// `__global__` function (buffers become restrict pointers, indices are
/// linearized with the buffers' static strides). Emits a diagnostic and
/// fails on an op it cannot render.
mlir::LogicalResult renderKernelsAsCUDA(mlir::ModuleOp module,
                                        llvm::raw_ostream &os);

/// Registers renderKernelsAsCUDA as the translation `kernelir-to-cuda`
/// (`strata-translate --kernelir-to-cuda`, or any mlir-translate-style
/// tool that calls this): it parses the input (rejecting, with a
/// diagnostic, the forms upstream's parser crashes on), verifies it and
/// renders its kernels.
void registerKernelIRToCUDATranslation();
} // namespace strata

#endif
