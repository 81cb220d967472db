#ifndef STRATA_CONVERSION_KERNELIRCOMMON_THREADINDEX_H
#define STRATA_CONVERSION_KERNELIRCOMMON_THREADINDEX_H

#include "mlir/IR/Builders.h"

namespace strata {
/// The row-major index in its block of the thread at `ids` (x, y, z), for
/// blocks of `block` threads: x + X * (y + Y * z). Warps are 32 consecutive
/// such indices; both targets (GPU and CPU) derive lanes and warps from it.
mlir::Value linearThreadIndex(mlir::OpBuilder &b, mlir::Location loc,
                              llvm::ArrayRef<mlir::Value> ids,
                              llvm::ArrayRef<int64_t> block);
} // namespace strata

#endif
