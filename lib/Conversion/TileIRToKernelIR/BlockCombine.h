// The cross-thread combine of a cooperative fold.

#ifndef STRATA_LIB_CONVERSION_TILEIRTOKERNELIR_BLOCKCOMBINE_H
#define STRATA_LIB_CONVERSION_TILEIRTOKERNELIR_BLOCKCOMBINE_H

#include "strata/Dialect/Utils/Monoid.h"

#include "mlir/IR/Builders.h"

namespace strata {

/// Combines `partials` (one value per monoid of `kinds`, per thread of a block of
/// `threads` threads, a multiple of the warp size) into the block's results,
/// which every thread receives: a butterfly of xor shuffles within each
/// warp; then, with several warps, lane 0 of each posts its warp's result to
/// a shared buffer (declared at the start of `kernelEntry`), a barrier, and
/// every warp folds all posts with a second butterfly.
llvm::SmallVector<mlir::Value>
combineAcrossBlock(mlir::OpBuilder &b, mlir::Location loc,
                   mlir::Block &kernelEntry, mlir::Value thread,
                   int64_t threads, llvm::ArrayRef<MonoidKind> kinds,
                   mlir::ValueRange partials);

} // namespace strata

#endif
