#ifndef STRATA_INITALL_H
#define STRATA_INITALL_H

#include "mlir/IR/DialectRegistry.h"

namespace strata {

/// Registers Strata's four dialects.
void registerStrataDialects(mlir::DialectRegistry &registry);

/// Registers Strata's dialects plus every upstream dialect, interface and
/// LLVM IR translation that Strata's pipelines reach (gpu, nvvm, llvm, ...).
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers Strata's passes and pipelines (and the upstream passes, so that
/// textual pipelines can mix them).
void registerAllPasses();

} // namespace strata

#endif // STRATA_INITALL_H
