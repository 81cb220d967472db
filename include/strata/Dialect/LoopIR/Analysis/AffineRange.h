// Affine expressions over loop indices of known ranges: their closed
// ranges, and the floordiv and mod terms that the ranges decide simplified
// away. What makes reshapes through a unit or whole dimension vanish from
// access maps (loopir-normalize, loopir-fuse, loopir-canonicalize-
// contractions) and what decides a load's guard.

#ifndef STRATA_DIALECT_LOOPIR_ANALYSIS_AFFINERANGE_H
#define STRATA_DIALECT_LOOPIR_ANALYSIS_AFFINERANGE_H

#include "strata/Dialect/LoopIR/IR/LoopIR.h"

#include "mlir/IR/AffineMap.h"

namespace strata::loopir {

/// The closed range [lo, hi] of an affine expression over dims of known
/// ranges, after simplifying floordiv and mod whose operand stays within one
/// period: with 0 <= d < 65, `d floordiv 65` is 0 and `d mod 65` is d.
struct AffineRange {
  mlir::AffineExpr expr;
  int64_t lo, hi;
};

/// `e` over dims d in [0, bounds[d]), simplified, with its range.
AffineRange simplifyInRange(mlir::AffineExpr e, llvm::ArrayRef<int64_t> bounds);

/// `map` simplified for dims d in [0, bounds[d]).
mlir::AffineMap simplifyWithBounds(mlir::AffineMap map,
                                   llvm::ArrayRef<int64_t> bounds);

/// `map`, an access map over `indices`, simplified with the bounds of the
/// loops those indices belong to (with 0 <= d < 64, `d floordiv 64` is 0):
/// a reshape through a unit or whole dimension reads no index it does not
/// need. `map` itself where an index is no loop index.
mlir::AffineMap simplifyWithLoopBounds(mlir::AffineMap map,
                                       mlir::ValueRange indices);

/// The bounds of the loops `indices` belong to; none where an index is no
/// loop index.
std::optional<llvm::SmallVector<int64_t>> loopBounds(mlir::ValueRange indices);

} // namespace strata::loopir

#endif
