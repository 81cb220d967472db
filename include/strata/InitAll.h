#ifndef STRATA_INITALL_H
#define STRATA_INITALL_H

#include "mlir/IR/DialectRegistry.h"

/// Embedding Strata in a host MLIR tool takes two calls:
///
///   mlir::DialectRegistry registry;
///   strata::registerAllDialects(registry);
///   strata::registerAllPasses();
///
/// A host that already registers upstream MLIR calls
/// registerStrataDialects and registerStrataPasses instead.
namespace strata {

/// Registers Strata's four dialects.
void registerStrataDialects(mlir::DialectRegistry &registry);

/// Registers Strata's dialects plus every upstream dialect, interface and
/// LLVM IR translation that Strata's pipelines reach (gpu, nvvm, llvm, ...).
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers Strata's own passes and pipelines. Safe to call more than once.
void registerStrataPasses();

/// Registers Strata's passes and pipelines plus every upstream pass, so that
/// textual pipelines can mix them. Call it once per process (upstream
/// pipelines may be registered only once); a host tool that registers the
/// upstream passes itself calls registerStrataPasses instead.
void registerAllPasses();

} // namespace strata

#endif // STRATA_INITALL_H
