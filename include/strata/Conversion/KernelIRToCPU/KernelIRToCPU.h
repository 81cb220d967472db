#ifndef STRATA_CONVERSION_KERNELIRTOCPU_H
#define STRATA_CONVERSION_KERNELIRTOCPU_H

#include "mlir/IR/PatternMatch.h"

namespace strata {
/// Patterns that lower kernelir to loops and calls for the CPU; with
/// `reverseOrder`, blocks and threads run last to first (the race check);
/// with `checkBounds`, every access asserts it stays inside its buffer.
void populateKernelIRToCPUPatterns(mlir::RewritePatternSet &patterns,
                                   bool reverseOrder = false,
                                   bool checkBounds = false);
} // namespace strata

#endif
