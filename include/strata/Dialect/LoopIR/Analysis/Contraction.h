// What makes a loop nest a contraction: the sum over one index of products
// of two factors. The contraction schedule (convert-loopir-to-tileir) and
// loopir-canonicalize-contractions both ask.

#ifndef STRATA_DIALECT_LOOPIR_ANALYSIS_CONTRACTION_H
#define STRATA_DIALECT_LOOPIR_ANALYSIS_CONTRACTION_H

#include "strata/Dialect/LoopIR/IR/LoopIR.h"

namespace strata::loopir {

/// The two factors of one product a contraction sums, with the scalar code
/// that computes each (loads and pure ops of the reduction's body, and of
/// the nest's body before it: a fused prologue's per-row scale).
struct ContractionFactors {
  mlir::Value lhs, rhs; // In the reduction's body.
  llvm::SmallVector<mlir::Operation *> lhsOps, rhsOps; // Their computation.

  /// The same product with its factors exchanged.
  void swap() {
    std::swap(lhs, rhs);
    std::swap(lhsOps, rhsOps);
  }
};

/// A nest whose body contracts: one top-level `loopir.reduce` over one
/// index whose every result is an f32 sum of products (siblings fused into
/// one reduction, as gate and up projections, are one product each). The
/// factors are in the order the products name them.
struct ContractionBody {
  ReduceOp reduce;
  llvm::SmallVector<ContractionFactors> products; // One per result.
};

/// The contraction in `nest`'s body, if it has one.
std::optional<ContractionBody> matchContractionBody(ParallelOp nest);

/// The contraction in `nest`'s body as a matrix product over its last two
/// indices (rows, columns), if it is one: each product oriented with the
/// lhs free of the columns and the rhs free of the rows (what the
/// contraction schedule stages). A row's sum of squares is none.
std::optional<ContractionBody> matchMatrixContraction(ParallelOp nest);

/// Whether any op of `ops` uses `index`.
bool usesIndex(llvm::ArrayRef<mlir::Operation *> ops, mlir::Value index);

} // namespace strata::loopir

#endif
