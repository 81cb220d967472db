#include "strata/Support/ParserGuard.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

/// Where `text` has `array<index` (blanks allowed inside, not followed by
/// more of an identifier) outside comments and string literals.
static std::optional<size_t> findIndexDenseArray(llvm::StringRef text) {
  for (size_t at = 0; at < text.size(); ++at) {
    char c = text[at];
    if (c == '/' && text.substr(at, 2) == "//") { // A comment: skip the line.
      at = text.find('\n', at);
      if (at == llvm::StringRef::npos)
        return std::nullopt;
      continue;
    }
    if (c == '"') { // A string literal: skip to its closing quote.
      for (++at; at < text.size() && text[at] != '"'; ++at)
        if (text[at] == '\\')
          ++at;
      continue;
    }
    if (!text.substr(at).starts_with("array<"))
      continue;
    llvm::StringRef rest = text.drop_front(at + 6).ltrim(" \t\r\n");
    if (rest.consume_front("index") &&
        (rest.empty() || !(llvm::isAlnum(rest.front()) ||
                           rest.front() == '_' || rest.front() == '$' ||
                           rest.front() == '.')))
      return at;
  }
  return std::nullopt;
}

LogicalResult strata::rejectKnownParserCrashes(llvm::StringRef text,
                                               llvm::StringRef filename,
                                               MLIRContext *ctx) {
  std::optional<size_t> at = findIndexDenseArray(text);
  if (!at)
    return success();
  llvm::StringRef before = text.take_front(*at);
  unsigned line = before.count('\n') + 1;
  size_t lineStart = before.rfind('\n');
  unsigned column =
      *at - (lineStart == llvm::StringRef::npos ? 0 : lineStart + 1) + 1;
  return emitError(FileLineColLoc::get(ctx, filename, line, column))
         << "a dense array of index (array<index: ...>) is not accepted: "
            "MLIR 22's parser crashes on it (an upstream bug); use "
            "array<i64: ...>";
}
