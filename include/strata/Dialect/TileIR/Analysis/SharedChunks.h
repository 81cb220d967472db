// The loads of a row program's folds that every row of a program instance
// makes alike: what the Q-tile schedule stages once per block.

#ifndef STRATA_DIALECT_TILEIR_ANALYSIS_SHAREDCHUNKS_H
#define STRATA_DIALECT_TILEIR_ANALYSIS_SHAREDCHUNKS_H

#include "strata/Dialect/LoopIR/IR/LoopIR.h"
#include "strata/Dialect/TileIR/IR/TileIR.h"

namespace strata::tileir {

/// A load in a cooperative fold's body whose address depends only on the
/// fold's points, on loops nested in the body (`inner`, with constant
/// bounds) and on values every thread group of a program instance shares
/// (program ids, points of untiled dimensions, constants): the rows of a
/// program instance read the same elements, so the block can stage them in
/// shared memory once per chunk of the fold's points, for all of its rows.
struct SharedChunkLoad {
  loopir::LoadOp load;
  /// The loops of the body the address depends on, outermost first, and
  /// their bounds (a chunk holds the load's elements for each of their
  /// iterations).
  llvm::SmallVector<mlir::BlockArgument> inner;
  llvm::SmallVector<int64_t> innerBounds;
};

/// Whether `v`, defined outside a cooperative loop of its kernel, is the
/// same for every thread group of a program instance, where `tiled` says
/// which domain dimensions have more than one row per instance: kernel
/// arguments, program ids, tile offsets, points of untiled dimensions, and
/// pure arith on those.
bool isGroupUniform(mlir::Value v, llvm::ArrayRef<bool> tiled);

/// The shared-chunk loads of `fold` (tileir.fold or tileir.composite_fold)
/// in its kernel, where `tiled` says which domain dimensions have more than
/// one row per program instance (their tileir.point differs between thread
/// groups). Loads that do not depend on the fold's points are not listed
/// (they are loop-invariant, not chunks).
llvm::SmallVector<SharedChunkLoad>
findSharedChunkLoads(mlir::Operation *fold, llvm::ArrayRef<bool> tiled);

/// The chunk of `load` for `points` points as the block stores it in
/// shared memory: the points, then the inner loops' iterations, the last
/// dimension padded to an odd length where it is even (the lanes of a
/// row, which read neighbouring points, then hit different banks).
llvm::SmallVector<int64_t> getChunkShape(const SharedChunkLoad &load,
                                         int64_t points);

/// The shared-memory bytes the chunks of `loads` take per point (padding
/// included); none where some load is not of integers or floats.
std::optional<int64_t>
getChunkBytesPerPoint(llvm::ArrayRef<SharedChunkLoad> loads);

/// Whether a row program would gain from sharing chunks of its folds
/// between rows if several rows shared a program instance along its
/// innermost domain dimension: with that dimension tiled, some fold of
/// `kernel` reads more elements per point through shared-chunk loads than
/// through loads of its own row.
bool sharesFoldChunksAcrossRows(KernelOp kernel);

/// The elements `load` reads per point of `fold` (a loop it is inside):
/// one per iteration of the loops between them.
int64_t elementsPerPoint(loopir::LoadOp load, mlir::Operation *fold);

} // namespace strata::tileir

#endif
