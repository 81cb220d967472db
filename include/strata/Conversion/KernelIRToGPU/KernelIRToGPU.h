#ifndef STRATA_CONVERSION_KERNELIRTOGPU_H
#define STRATA_CONVERSION_KERNELIRTOGPU_H

#include "mlir/IR/PatternMatch.h"

namespace strata {
/// The gpu.module that holds every kernel of a program.
inline constexpr llvm::StringLiteral kGpuModuleName = "strata_kernels";

/// Patterns that lower kernelir ops (already moved into the gpu.module) to
/// gpu, scf and memref ops.
void populateKernelIRToGPUPatterns(mlir::RewritePatternSet &patterns);
} // namespace strata

#endif
