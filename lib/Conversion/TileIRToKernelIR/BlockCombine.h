// The cross-thread combine of a cooperative fold.

#ifndef STRATA_LIB_CONVERSION_TILEIRTOKERNELIR_BLOCKCOMBINE_H
#define STRATA_LIB_CONVERSION_TILEIRTOKERNELIR_BLOCKCOMBINE_H

#include "strata/Dialect/Utils/Monoid.h"

#include "mlir/IR/Builders.h"

#include <functional>

namespace strata {

/// A monoid as the kernel lowering combines it: the identity of each
/// component and how two elements combine, emitted at a builder. Primitive
/// monoids combine component by component; a tileir.composite_fold's
/// combines whole tuples with its region.
struct KernelMonoid {
  llvm::SmallVector<mlir::TypedAttr> identity;
  std::function<llvm::SmallVector<mlir::Value>(
      mlir::OpBuilder &, mlir::Location, mlir::ValueRange, mlir::ValueRange)>
      combine;

  /// Independent primitive monoids, one per component.
  static KernelMonoid primitive(llvm::ArrayRef<MonoidKind> kinds,
                                mlir::TypeRange types);
};

/// Combines `partials` (one element of `monoid` per thread of a block of
/// `threads` threads: a multiple of the warp size, or a power of two below
/// it for an aligned group of lanes) into the block's result, which every
/// thread receives: a butterfly of xor shuffles within each warp (group);
/// then, with several warps, lane 0 of each posts its warp's result to a
/// shared buffer (declared at the start of `kernelEntry`), a barrier, and
/// every warp folds all posts with a second butterfly.
llvm::SmallVector<mlir::Value>
combineAcrossBlock(mlir::OpBuilder &b, mlir::Location loc,
                   mlir::Block &kernelEntry, mlir::Value thread,
                   int64_t threads, const KernelMonoid &monoid,
                   mlir::ValueRange partials);

/// One thread's inclusive prefix and the whole group's fold, from
/// scanAcrossBlock.
struct BlockScan {
  llvm::SmallVector<mlir::Value> prefix, total;
};

/// The inclusive scan of `values` (one element of `monoid` per thread of a
/// group of `threads` threads: a multiple of the warp size, or a power of
/// two below it for an aligned group of lanes; `thread` is the thread's
/// position in its group, `blockThread` in the block) in thread order:
/// thread t receives the fold of the elements of threads 0..t, and every
/// thread the fold of all. Within each warp (group) a ladder of up-shuffles (1,
/// 2, 4,
/// ... lanes back); with several warps, the last lane of each posts its
/// warp's fold to a shared buffer (declared at the start of `kernelEntry`),
/// and after a barrier each thread folds the posts of the warps before its
/// own into its prefix, and all of them into the total; a second barrier
/// lets the next scan post again.
BlockScan scanAcrossBlock(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Block &kernelEntry, mlir::Value blockThread,
                          mlir::Value thread, int64_t threads,
                          const KernelMonoid &monoid, mlir::ValueRange values);

} // namespace strata

#endif
