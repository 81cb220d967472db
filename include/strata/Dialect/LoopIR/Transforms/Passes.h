#ifndef STRATA_DIALECT_LOOPIR_TRANSFORMS_PASSES_H
#define STRATA_DIALECT_LOOPIR_TRANSFORMS_PASSES_H

#include "strata/Dialect/LoopIR/IR/LoopIR.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace strata::loopir {

#define GEN_PASS_DECL
#include "strata/Dialect/LoopIR/Transforms/Passes.h.inc"

/// Fuses producer kernels into consumers (see loopir-fuse).
void populateFusePatterns(mlir::RewritePatternSet &patterns,
                          double maxRecompute, double roundTripCost);

/// Hoists invariants, merges duplicates (see loopir-normalize).
void populateNormalizePatterns(mlir::RewritePatternSet &patterns);

/// pow by the constant exponents PyTorch computes without pow (0, 1, 2, 3,
/// 0.5, -0.5, -1, -2) becomes the same arithmetic (part of
/// populateNormalizePatterns).
void populatePowByConstantPatterns(mlir::RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "strata/Dialect/LoopIR/Transforms/Passes.h.inc"

} // namespace strata::loopir

#endif
