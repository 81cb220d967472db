#ifndef STRATA_CONVERSION_KERNELIRCOMMON_GUARDEDACCESS_H
#define STRATA_CONVERSION_KERNELIRCOMMON_GUARDEDACCESS_H

#include "mlir/IR/PatternMatch.h"

namespace strata {
/// Patterns that lower kernelir.load/store to memref accesses (vector.load
/// and vector.store for vector accesses), wrapped in scf.if where they carry
/// a guard. Both targets (GPU and CPU) use them. With `alignVectors`, a
/// vector access claims its own size as its alignment (the target's buffers
/// must guarantee it).
void populateGuardedAccessPatterns(mlir::RewritePatternSet &patterns,
                                   bool alignVectors);
} // namespace strata

#endif
