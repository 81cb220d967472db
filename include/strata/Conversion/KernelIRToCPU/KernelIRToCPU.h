#ifndef STRATA_CONVERSION_KERNELIRTOCPU_H
#define STRATA_CONVERSION_KERNELIRTOCPU_H

#include "mlir/IR/PatternMatch.h"

namespace strata {
/// Patterns that lower kernelir to loops and calls for the CPU.
void populateKernelIRToCPUPatterns(mlir::RewritePatternSet &patterns);
} // namespace strata

#endif
