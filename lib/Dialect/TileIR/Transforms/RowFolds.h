// Matchers for the folds of a row that tileir-fuse-folds' patterns fuse
// (FuseFolds.cpp, FlashAccumulate.cpp): one definition of "the max", "the
// sum of exp(x - max)" and "the same x".

#ifndef STRATA_LIB_DIALECT_TILEIR_TRANSFORMS_ROWFOLDS_H
#define STRATA_LIB_DIALECT_TILEIR_TRANSFORMS_ROWFOLDS_H

#include "strata/Dialect/TileIR/IR/TileIR.h"

namespace strata::tileir {

/// A single-monoid f32 fold with combiner `combiner`.
bool isSingleF32Fold(FoldOp fold, Combiner combiner);

/// The single f32 fold with `combiner` over `fold`'s box, in its block,
/// that `value` (used in `fold`'s body) is the result of: the first fold
/// of a two-pass row statistic; null otherwise.
FoldOp getEarlierFold(FoldOp fold, mlir::Value value, Combiner combiner);

/// For `factor` = exp(x' - m) in `fold`'s body, m the result of an earlier
/// max fold over the same box (getEarlierFold): that max fold and x'.
std::optional<std::pair<FoldOp, mlir::Value>> matchScaledExp(mlir::Value factor,
                                                             FoldOp fold);

/// For `sum` = fold add { exp(x' - m) } with m an earlier max fold of the
/// same x (x' computed as the max's x is): softmax's normalizer, the max
/// fold; null otherwise.
FoldOp matchSoftmaxNormalizer(FoldOp sum);

/// The same for component `component` of `fold` (an f32 add among other
/// components: a sum a sibling reduction shares its loop with).
FoldOp matchNormalizerComponent(FoldOp fold, unsigned component);

} // namespace strata::tileir

#endif // STRATA_LIB_DIALECT_TILEIR_TRANSFORMS_ROWFOLDS_H
