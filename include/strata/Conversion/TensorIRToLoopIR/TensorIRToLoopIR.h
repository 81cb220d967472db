#ifndef STRATA_CONVERSION_TENSORIRTOLOOPIR_H
#define STRATA_CONVERSION_TENSORIRTOLOOPIR_H

#include "mlir/IR/PatternMatch.h"

namespace strata {
/// Patterns that lower atomic tensorir ops to one loopir.kernel each.
void populateTensorIRToLoopIRPatterns(mlir::RewritePatternSet &patterns);
} // namespace strata

#endif
