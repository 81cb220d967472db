#ifndef STRATA_DIALECT_TENSORIR_TRANSFORMS_PASSES_H
#define STRATA_DIALECT_TENSORIR_TRANSFORMS_PASSES_H

#include "strata/Dialect/TensorIR/IR/TensorIR.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace strata::tensorir {

#define GEN_PASS_DECL
#include "strata/Dialect/TensorIR/Transforms/Passes.h.inc"

/// Rewrites every DecomposableOpInterface op into its decomposition.
void populateDecomposePatterns(mlir::RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "strata/Dialect/TensorIR/Transforms/Passes.h.inc"

} // namespace strata::tensorir

#endif
