// Diagnostics of the MLIR calls the Python module makes, collected into
// one CompilerError.
#ifndef STRATA_PYTHON_DIAGNOSTICS_H
#define STRATA_PYTHON_DIAGNOSTICS_H

#include "Compiler.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace strata::python {

/// Collects every diagnostic emitted while it lives, as "loc: error: msg".
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(mlir::MLIRContext *ctx)
      : handler(ctx, [this](mlir::Diagnostic &diag) {
          append(diag);
          for (mlir::Diagnostic &note : diag.getNotes())
            append(note);
          return mlir::success();
        }) {}

  /// Throws the diagnostics (or `fallback` where there were none), and
  /// `reproducer`'s line where there is one.
  [[noreturn]] void fail(const std::string &fallback,
                         const std::string &reproducer = "") {
    std::string text = messages.empty() ? fallback : messages;
    if (!reproducer.empty())
      text += "\n" + reproducer;
    throw CompilerError(text);
  }

  /// The diagnostics so far, one per line.
  const std::string &text() const { return messages; }

  /// Whether an error was reported (some upstream passes report one and
  /// succeed: gpu-module-to-binary without libdevice leaves its calls
  /// undefined in the PTX).
  bool sawError() const { return errors; }

private:
  void append(mlir::Diagnostic &diag) {
    errors |= diag.getSeverity() == mlir::DiagnosticSeverity::Error;
    llvm::raw_string_ostream os(messages);
    if (!messages.empty())
      os << "\n";
    // file:line:col, like a C compiler, where the location has one. An
    // error without a location (a pass's option, say) is its message alone:
    // the caller says it is an error.
    if (auto file =
            diag.getLocation()->findInstanceOf<mlir::FileLineColLoc>()) {
      os << file.getFilename().getValue() << ":" << file.getLine() << ":"
         << file.getColumn() << ": ";
    } else if (llvm::isa<mlir::UnknownLoc>(diag.getLocation())) {
      if (diag.getSeverity() == mlir::DiagnosticSeverity::Error) {
        os << diag.str();
        return;
      }
    } else {
      os << diag.getLocation() << ": ";
    }
    switch (diag.getSeverity()) {
    case mlir::DiagnosticSeverity::Error:
      os << "error: ";
      break;
    case mlir::DiagnosticSeverity::Warning:
      os << "warning: ";
      break;
    case mlir::DiagnosticSeverity::Note:
      os << "note: ";
      break;
    case mlir::DiagnosticSeverity::Remark:
      os << "remark: ";
      break;
    }
    os << diag.str();
  }

  std::string messages;
  bool errors = false;
  mlir::ScopedDiagnosticHandler handler;
};

} // namespace strata::python

#endif
