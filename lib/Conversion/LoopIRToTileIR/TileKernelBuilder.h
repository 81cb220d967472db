// Pieces shared by the tile schedules of convert-loopir-to-tileir.

#ifndef STRATA_LIB_CONVERSION_LOOPIRTOTILEIR_TILEKERNELBUILDER_H
#define STRATA_LIB_CONVERSION_LOOPIRTOTILEIR_TILEKERNELBUILDER_H

#include "strata/Conversion/LoopIRToTileIR/LoopIRToTileIR.h"
#include "strata/Dialect/LoopIR/Analysis/Contraction.h"
#include "strata/Dialect/LoopIR/Analysis/PrefixScan.h"
#include "strata/Dialect/LoopIR/IR/LoopIR.h"
#include "strata/Dialect/TileIR/IR/TileIR.h"
#include "strata/Dialect/Utils/Monoid.h"
#include "strata/Dialect/Utils/ScheduleModel.h"

#include "mlir/IR/IRMapping.h"

namespace strata {

/// The schedule convert-loopir-to-tileir writes: one point per program
/// instance, one thread (one warp for a row program, whose combine shuffles
/// across a warp), one k per contraction step. The scheduling passes
/// (tileir-tile, tileir-map-threads, tileir-k-tile, tileir-pipeline) choose
/// the real one.
constexpr int64_t kUnscheduledThreads = 1;
constexpr int64_t kUnscheduledRowThreads = kWarpSize;
constexpr int64_t kUnscheduledStep = 1;

/// Builds the tile kernel's skeleton in place of `op`, over `domain` with
/// one point per program instance and `threads` threads: its entry block
/// with the loop kernel's buffers (mapped in `mapping`), the `preamble`
/// (scalar values shared by all iterations) and `origin`: the origin of
/// this program's tile in domain coordinates (tileir.tile_offset), or for a
/// `cooperative` (row) program the point of this thread's group
/// (tileir.point); both follow the tile later passes choose. The builder
/// is left at the end of the body; the caller adds the terminator.
tileir::KernelOp buildTileKernel(mlir::OpBuilder &b, loopir::KernelOp op,
                                 mlir::ValueRange inputs,
                                 llvm::ArrayRef<int64_t> domain,
                                 int64_t threads, bool cooperative,
                                 llvm::ArrayRef<mlir::Operation *> preamble,
                                 mlir::IRMapping &mapping,
                                 llvm::SmallVectorImpl<mlir::Value> &origin);

/// The tileir.fold monoid of a loop combiner (none for arg-reductions,
/// which fold (value, position) pairs).
std::optional<tileir::Combiner> getFoldCombiner(loopir::Combiner c);

/// The type a row fold or scan carries a reduction's `type` in (narrow
/// integers as i32, which a warp shuffle moves).
mlir::Type getFoldedType(mlir::Type type);

/// Whether the threads of a block can share `reduce`: every combiner has a
/// fold monoid (or it is one arg-reduction) over a type a warp shuffle
/// moves once folded (getFoldedType).
bool isShareable(loopir::ReduceOp reduce);

/// `values` in the types `types`, integers extended (signed) or truncated.
llvm::SmallVector<mlir::Value> castIntegers(mlir::OpBuilder &b,
                                            mlir::Location loc,
                                            mlir::ValueRange values,
                                            mlir::TypeRange types);

/// The row program's fold of `reduce` (shareable) at `b`, its body cloned
/// with `mapping`: a tileir.fold, or for an arg-reduction a composite fold
/// of (value, row-major position). Returns the reduction's results.
llvm::SmallVector<mlir::Value> buildFold(mlir::OpBuilder &b,
                                         loopir::ReduceOp reduce,
                                         const mlir::IRMapping &mapping);

/// The prefix scan of `nest` (loopir::matchPrefixScan) that the scan
/// schedule takes: shareable reductions over at least kMinRowLength points.
std::optional<loopir::PrefixScan> matchScanSchedule(loopir::ParallelOp nest);

/// Writes the kernel `op`, made of `preamble` and `nest` (a prefix scan,
/// `match`), as a cooperative row program: one program instance per row
/// (the nest's other dimensions), its other reductions as folds, one scan
/// of the scanned reductions' contributions (buildScan) whose each region
/// is the rest of the nest's body at each point of the row.
tileir::KernelOp buildScanProgram(mlir::OpBuilder &b, loopir::KernelOp op,
                                  mlir::ValueRange inputs,
                                  llvm::ArrayRef<mlir::Operation *> preamble,
                                  loopir::ParallelOp nest,
                                  const loopir::PrefixScan &match);

/// Writes the prefix scan `nest` (`match`) at the builder, in a row
/// program whose values `mapping` maps (the nest's other indices
/// included): its uniform code (reductions as folds), then one tileir.scan
/// (a tileir.composite_scan where a sum is relative to a scanned maximum)
/// whose each region is the rest of its body.
void buildScan(mlir::OpBuilder &b, loopir::ParallelOp nest,
               const loopir::PrefixScan &match, mlir::IRMapping &mapping);

/// Whether the default schedule gives `nest` the row schedule: it folds
/// long, contiguous rows with monoids the threads can share.
bool prefersRowSchedule(loopir::ParallelOp nest);

/// Writes the kernel `op`, made of `preamble` and the single loop `nest`,
/// as a cooperative row program: one program instance per point of the
/// nest, its top-level reductions as tileir.fold and its top-level loops as
/// tileir.distribute. Reports why on `op` when the kernel does not fit.
mlir::FailureOr<tileir::KernelOp> buildRowProgram(
    mlir::OpBuilder &b, loopir::KernelOp op, mlir::ValueRange inputs,
    llvm::ArrayRef<mlir::Operation *> preamble, loopir::ParallelOp nest);

/// The reduction of a row vector: a loop of at most kMaxRowVectorLength
/// iterations, directly in a row, whose body folds the row once (one
/// loopir.reduce, with add, mul, max or min, over at least kMinRowLength
/// points) and writes back; none for other loops.
std::optional<loopir::ReduceOp> rowVectorReduction(loopir::ParallelOp loop);

/// Writes `loop` (with `reduce`, its rowVectorReduction) at the builder as
/// one tileir.fold over the reduction's box with the reduction's monoids
/// once per iteration, whose body computes the part of a contribution that
/// does not depend on the iteration once, and then each iteration's
/// write-back as uniform code with the iteration's indices constant.
void buildRowVectorFold(mlir::OpBuilder &b, loopir::ParallelOp loop,
                        loopir::ReduceOp reduce, mlir::IRMapping &mapping);

/// A loop nest whose body contracts (loopir::ContractionBody) with its
/// rows and columns the nest's last two indices: each product's lhs
/// depends on the rows but not the columns, its rhs the other way round.
struct ContractionMatch {
  loopir::ReduceOp reduce;
  llvm::SmallVector<loopir::ContractionFactors> products; // One per result.
  /// Ops of the nest's body before the reduction that only the factors use
  /// (a fused prologue's per-row scale); they move into the operands.
  llvm::SmallVector<mlir::Operation *> prologue;
};

/// Recognizes a contraction (matmul, linear, bmm, einsum, with prologue
/// math on each operand, several sharing one reduction) in `nest`; the
/// rest of its body is left for the elementwise epilogue.
std::optional<ContractionMatch> matchContraction(loopir::ParallelOp nest);

/// Whether the default schedule tiles `nest` as a contraction: both the
/// rows and the columns are many (a matrix-vector product is a row
/// reduction).
bool prefersContraction(loopir::ParallelOp nest);

/// Builds one tileir.contract per product of `match` at the builder, in a
/// kernel whose loop kernel values are mapped by `mapping` and whose
/// program tile starts at `origin`; returns them in the reduction's result
/// order.
llvm::SmallVector<mlir::Value>
buildContracts(mlir::OpBuilder &b, const ContractionMatch &match,
               loopir::ParallelOp nest, tileir::KernelOp kernel,
               const mlir::IRMapping &mapping, mlir::ValueRange origin);

} // namespace strata

#endif
