// Inputs that upstream MLIR 22's parser crashes on (not Strata's code;
// found by fuzzing Strata's tools, docs/reliability.md). Strata's own parse
// entry points (strata-opt, strata.parse, the fuzz target) reject them with
// a diagnostic before parsing; nothing Strata prints takes these forms.

#ifndef STRATA_SUPPORT_PARSERGUARD_H
#define STRATA_SUPPORT_PARSERGUARD_H

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

namespace strata {

/// Emits an error at its `filename`:line:column and fails where `text`
/// holds a form MLIR 22's parser crashes on: a dense array of `index`
/// (`array<index: ...>`: the parser asks the index type for a bit width).
mlir::LogicalResult rejectKnownParserCrashes(llvm::StringRef text,
                                             llvm::StringRef filename,
                                             mlir::MLIRContext *ctx);

} // namespace strata

#endif // STRATA_SUPPORT_PARSERGUARD_H
