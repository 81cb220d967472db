#ifndef STRATA_CONVERSION_KERNELIRCOMMON_GUARDEDACCESS_H
#define STRATA_CONVERSION_KERNELIRCOMMON_GUARDEDACCESS_H

#include "mlir/IR/PatternMatch.h"

namespace strata {
/// Patterns that lower kernelir.load/store to memref accesses, wrapped in
/// scf.if where they carry a guard. Both targets (GPU and CPU) use them.
void populateGuardedAccessPatterns(mlir::RewritePatternSet &patterns);
} // namespace strata

#endif
