// Moving a loop body under new loop indices: what collapsing a nest
// (loopir-canonicalize-contractions) or a reduction's box
// (loopir-normalize) does to the ops inside.

#ifndef STRATA_LIB_DIALECT_LOOPIR_TRANSFORMS_REINDEX_H
#define STRATA_LIB_DIALECT_LOOPIR_TRANSFORMS_REINDEX_H

#include "strata/Dialect/LoopIR/IR/LoopIR.h"

#include "mlir/IR/PatternMatch.h"

namespace strata::loopir {

/// Moves the ops of `from` (a loop body) to the end of `to` (another loop's
/// body, without its terminator), where old index `d` of `from` is
/// `oldIndices[d]`, an expression over `to`'s indices: loads and stores
/// compose it into their maps (and guards), other users get it computed
/// at the start of `to`.
void moveBodyReindexed(mlir::RewriterBase &rewriter, mlir::Block &from,
                       mlir::Block &to,
                       llvm::ArrayRef<mlir::AffineExpr> oldIndices);

} // namespace strata::loopir

#endif
