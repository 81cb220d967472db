#ifndef STRATA_CONVERSION_KERNELIRTOGPU_H
#define STRATA_CONVERSION_KERNELIRTOGPU_H

#include "mlir/IR/PatternMatch.h"

namespace strata {
/// The gpu.module that holds every kernel of a program.
inline constexpr llvm::StringLiteral kGpuModuleName = "strata_kernels";

/// On a gpu.func and its gpu.launch_funcs: the kernel's parameters that
/// are TMA tensor maps, {param, box (outermost first), swizzle} each. The
/// launch plan encodes those maps (runtime::TensorMap).
inline constexpr llvm::StringLiteral kTensorMapsAttrName = "strata.tensor_maps";
/// On a gpu.launch_func of a kernelir.func with `wave_tiles`: the tiles its
/// blocks stride over, so the runtime launches one exact wave of at most
/// that many blocks (its grid the estimate used where that is not known).
inline constexpr llvm::StringLiteral kWaveTilesAttrName = "strata.wave_tiles";

/// Patterns that lower kernelir ops (already moved into the gpu.module) to
/// gpu, scf and memref ops.
void populateKernelIRToGPUPatterns(mlir::RewritePatternSet &patterns);

/// Patterns that lower kernelir.wgmma to nvvm's wgmma ops (fence, one
/// mma_async per 16 k, commit, wait) on shared-memory descriptors,
/// kernelir.proxy_fence to nvvm.fence.proxy and kernelir.set_max_registers
/// to nvvm.setmaxregister (part of populateKernelIRToGPUPatterns).
void populateWgmmaToNVVMPatterns(mlir::RewritePatternSet &patterns);

/// Patterns that lower kernelir's mbarrier ops to nvvm.mbarrier.*,
/// kernelir.bulk_copy to nvvm.cp.async.bulk and kernelir.tma_load to
/// nvvm.cp.async.bulk.tensor (part of populateKernelIRToGPUPatterns).
void populateMBarrierToNVVMPatterns(mlir::RewritePatternSet &patterns);

/// The address of `buffer[indices]` in bytes (i64): the buffer's aligned
/// pointer plus the element's row-major offset. What wgmma's descriptors
/// and the mbarrier ops' pointers are made from.
mlir::Value elementByteAddress(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value buffer, mlir::ValueRange indices);
} // namespace strata

#endif
