#ifndef STRATA_DIALECT_LOOPIR_TRANSFORMS_PASSES_H
#define STRATA_DIALECT_LOOPIR_TRANSFORMS_PASSES_H

#include "strata/Dialect/LoopIR/IR/LoopIR.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace strata::loopir {

#define GEN_PASS_DECL
#include "strata/Dialect/LoopIR/Transforms/Passes.h.inc"

/// What loopir-fuse's pattern learns within one run (private to the pass:
/// lib/Dialect/LoopIR/Transforms/FusionMemo.h).
class FusionMemo;

/// Fuses producer kernels into consumers (see loopir-fuse). With `memo`
/// (the driver's listener), rejected producers are not weighed again until
/// something they take part in changes.
void populateFusePatterns(mlir::RewritePatternSet &patterns,
                          double maxRecompute, double roundTripCost,
                          unsigned maxKernelOps, FusionMemo *memo = nullptr);

/// The extents of the rows and the columns of `nest`'s contraction, as
/// loopir-canonicalize-contractions groups them, whatever the order of its
/// indices; none where `nest` does not contract.
std::optional<std::pair<int64_t, int64_t>> contractionExtents(ParallelOp nest);

/// Orders and collapses contraction nests into (batch..., rows, columns)
/// (see loopir-canonicalize-contractions).
void populateCanonicalizeContractionsPatterns(
    mlir::RewritePatternSet &patterns);

/// Hoists invariants, merges duplicates (see loopir-normalize).
void populateNormalizePatterns(mlir::RewritePatternSet &patterns);

/// Accesses list only the indices their maps read, and maps are simplified
/// with the loops' bounds (part of populateNormalizePatterns; loopir-fuse
/// applies them first).
void populateSimplifyAccessPatterns(mlir::RewritePatternSet &patterns);

/// pow by the constant exponents PyTorch computes without pow (0, 1, 2, 3,
/// 0.5, -0.5, -1, -2) becomes the same arithmetic (part of
/// populateNormalizePatterns).
void populatePowByConstantPatterns(mlir::RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "strata/Dialect/LoopIR/Transforms/Passes.h.inc"

} // namespace strata::loopir

#endif
