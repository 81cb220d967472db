#ifndef STRATA_CONVERSION_LOOPIRTOCPU_H
#define STRATA_CONVERSION_LOOPIRTOCPU_H

#include "mlir/Transforms/DialectConversion.h"

namespace strata {
/// Patterns that run loop kernels on the CPU (scf loops over memrefs).
void populateLoopIRToCPUPatterns(mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);
} // namespace strata

#endif
