#ifndef STRATA_DIALECT_TILEIR_TRANSFORMS_PASSES_H
#define STRATA_DIALECT_TILEIR_TRANSFORMS_PASSES_H

#include "strata/Dialect/TileIR/IR/TileIR.h"
#include "strata/Dialect/Utils/ScheduleModel.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace strata::tileir {

#define GEN_PASS_DECL
#include "strata/Dialect/TileIR/Transforms/Passes.h.inc"

/// The tile tileir-tile gives `kernel`: `forced` (checked against the
/// kernel's kind) unless empty, else chosen by its kind; elementwise
/// kernels aim for `tileElements` elements, contractions that will multiply
/// on tensor cores (`tensorCores`, f32 ones as tf32 where `tf32`) may take
/// larger tiles. Reports why on the kernel.
mlir::FailureOr<llvm::SmallVector<int64_t>>
chooseTile(KernelOp kernel, llvm::ArrayRef<int64_t> forced,
           int64_t tileElements, bool tensorCores, bool tf32);

/// Gives `kernel` the tile `tile` and retypes its tiles; fails (reported on
/// the kernel) if its threads cannot share the tile evenly.
mlir::LogicalResult setTile(KernelOp kernel, llvm::ArrayRef<int64_t> tile);

/// The longest row a row program's thread group walks: its largest fold or
/// distributed loop (1 for other kernels).
int64_t getLongestRow(KernelOp kernel);

/// Whether the row program `kernel` takes the Q-tile schedule: its rows
/// share chunks of their folds (sharesFoldChunksAcrossRows) and there are
/// at least kMinQTileRows of them along its innermost domain dimension.
bool isQTiled(KernelOp kernel);

/// The threads tileir-map-threads gives `kernel`: `forced` unless 0, else
/// chosen by its kind and tile. Reports why on the kernel when the count
/// cannot run its program.
mlir::FailureOr<int64_t> chooseThreads(KernelOp kernel, int64_t forced);

/// Into how many slices of floor(k / S) tileir-split-k splits the k of
/// `kernel`'s contraction: `forced` unless 0 (an error where it exceeds
/// k), else enough to give about `minPrograms` program instances, keeping
/// at least 256 k per slice, a divisor of k where one keeps at least half
/// of them, else that many if at least 4 (1: no split).
mlir::FailureOr<int64_t> chooseSplits(KernelOp kernel, int64_t forced,
                                      int64_t minPrograms);

/// Replaces the contraction kernel `kernel` by a kernel of `splits` partial
/// contractions (chosen by chooseSplits), one more of one slice for the k
/// left where `splits` does not divide k, and one that sums them and runs
/// the original epilogue.
void splitK(mlir::OpBuilder &b, KernelOp kernel, int64_t splits);

/// Into how many slices tileir-split-folds splits the folds of the row
/// program `kernel`: `forced` unless 0 (an error where it exceeds the
/// longest fold's points, or where the folds cannot be split), else enough
/// to give about `minPrograms` program instances, each slice reading at
/// least 64 KiB, a divisor of the longest fold's points where one keeps at
/// least half of them (1: no split; always for kernels that are no row
/// program with folds).
mlir::FailureOr<int64_t> chooseFoldSplits(KernelOp kernel, int64_t forced,
                                          int64_t minPrograms);

/// Replaces the row program `kernel` by a kernel of `splits` partial folds
/// of each of its folds (chosen by chooseFoldSplits), storing the monoids'
/// states, and the original kernel folding those states instead.
void splitFolds(mlir::OpBuilder &b, KernelOp kernel, int64_t splits);

/// Whether `contract` will multiply on tensor cores (`tensorCores`, f32 as
/// tf32 where `tf32`) in a block tile of at least kLargeContractionBlockTile
/// rows and columns: the contractions tileir-k-tile and tileir-pipeline
/// give larger steps and deeper pipelines (see kLargeTileHalfStep).
bool isLargeTensorCoreTile(ContractOp contract, bool tensorCores, bool tf32);

/// The k step tileir-k-tile gives `contract`: `forced` unless 0, else
/// chosen by its tile and how it multiplies (see kLargeTileHalfStep).
int64_t chooseKTile(ContractOp contract, int64_t forced, bool tensorCores,
                    bool tf32);

/// Sets the step of each contraction (chooseKTile with `kTile` forced
/// unless 0; tileir-k-tile).
void populateKTilePatterns(mlir::RewritePatternSet &patterns, int64_t kTile,
                           bool tensorCores, bool tf32);

/// The shared memory one step of `contract`'s operand chunks takes in a
/// `rows` x `cols` tile with `step` k: elements as staged (halves where the
/// operands widen halves, else the result's type), rows padded as the
/// tensor-core path pads them (at least what any path takes).
int64_t getStagedChunkBytes(ContractOp contract, int64_t rows, int64_t cols,
                            int64_t step);

/// Dependent folds over one row as one composite fold (tileir-fuse-folds
/// applies these after populateFlashAccumulatePatterns): the max and the
/// sum of exp(x - max) as online softmax's (max, sum), the mean and the
/// squared deviations from it as Welford's (count, mean, squares).
void populateFuseFoldsPatterns(mlir::RewritePatternSet &patterns);

/// A row's sums weighted by exp(x - max), its max and its sum of
/// exp(x - max) as one online-softmax fold with a sum per weighted sum
/// (tileir-fuse-folds, first): attention's output row in one pass.
void populateFlashAccumulatePatterns(mlir::RewritePatternSet &patterns);

/// Sets each contraction's pipeline depth (see tileir-pipeline): `stages`
/// (0: chosen per contraction) where its chunks fit in `sharedMemory`
/// bytes, or in its default depth's bytes for a large tensor-core tile
/// (isLargeTensorCoreTile).

void populatePipelinePatterns(mlir::RewritePatternSet &patterns, int64_t stages,
                              int64_t sharedMemory, bool tensorCores,
                              bool tf32);

#define GEN_PASS_REGISTRATION
#include "strata/Dialect/TileIR/Transforms/Passes.h.inc"

} // namespace strata::tileir

#endif
