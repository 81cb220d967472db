// strata-fuzz: a libFuzzer target for Strata's passes (tools/fuzz.sh builds
// and runs it). Each input is MLIR text; what parses and verifies runs
// through every Strata pipeline, each on a fresh copy, the way the
// production entry points run them (verified once, at the end). Besides
// crashes and sanitizer reports, two outcomes are bugs and abort:
//   - a pipeline that fails without an error diagnostic (every pass that
//     meets IR it cannot handle must say so), and
//   - a pipeline that succeeds with IR that does not verify.
// An input may start with a line `//! OPTIONS` (schedule options such as
// `tile-sizes=3,16 threads=16`) for the pipelines that take them.

#include "strata/InitAll.h"
#include "strata/Support/ParserGuard.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mlir;

namespace {

/// The pipelines every input runs through, and whether each takes the
/// schedule options.
struct Pipeline {
  const char *name;
  bool scheduled;
  const char *fixed;
};
constexpr Pipeline kPipelines[] = {
    {"strata-lower-to-loop", false, ""},
    {"strata-lower-loop-to-cpu", false, ""},
    {"strata-lower-to-tile", true, ""},
    {"strata-lower-to-kernel", true, ""},
    {"strata-lower-to-gpu", true, ""},
    {"strata-lower-to-nvvm", true, "format=isa"},
    {"strata-lower-to-cpu", true, ""},
    {"strata-lower-to-cpu", true, "reverse-order=true check-bounds=true"},
};

DialectRegistry &registry() {
  static DialectRegistry *r = [] {
    auto *registry = new DialectRegistry();
    strata::registerAllDialects(*registry);
    strata::registerAllPasses();
    return registry;
  }();
  return *r;
}

/// Records whether an error was reported, and prints nothing (unless
/// STRATA_FUZZ_VERBOSE is set, to see why an input is rejected).
class ErrorRecorder {
public:
  explicit ErrorRecorder(MLIRContext *ctx)
      : verbose(std::getenv("STRATA_FUZZ_VERBOSE")),
        handler(ctx, [this](Diagnostic &d) {
          if (d.getSeverity() == DiagnosticSeverity::Error)
            sawError = true;
          if (verbose)
            llvm::errs() << d.getLocation() << ": " << d.str() << "\n";
          return success();
        }) {}
  bool verbose;
  bool sawError = false;
  ScopedDiagnosticHandler handler;
};

[[noreturn]] void bug(const std::string &pipeline, const char *what) {
  llvm::errs() << "strata-fuzz: " << pipeline << " " << what << "\n";
  std::abort();
}

std::string pipelineText(const Pipeline &p, llvm::StringRef options) {
  std::string joined = p.fixed;
  if (p.scheduled && !options.empty())
    joined += (joined.empty() ? "" : " ") + options.str();
  std::string text = p.name;
  if (!joined.empty())
    text += "{" + joined + "}";
  return text;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // MLIR's lexer stops at the NUL a source buffer ends with (files and
  // std::string have one; libFuzzer's bytes do not).
  std::string source(reinterpret_cast<const char *>(data), size);
  llvm::StringRef text(source);
  llvm::StringRef options;
  if (text.starts_with("//!")) {
    options = text.drop_front(3).take_until([](char c) { return c == '\n'; });
    options = options.trim();
    // Braces would close the pipeline's option list.
    if (options.contains('{') || options.contains('}'))
      return 0;
  }
  MLIRContext ctx(registry(), MLIRContext::Threading::DISABLED);
  ctx.printOpOnDiagnostic(false);
  OwningOpRef<ModuleOp> module;
  {
    ErrorRecorder errors(&ctx);
    if (failed(strata::rejectKnownParserCrashes(text, "<fuzz>", &ctx)))
      return 0;
    module = parseSourceString<ModuleOp>(text, ParserConfig(&ctx), "<fuzz>");
    if (!module)
      return 0;
  }
  for (const Pipeline &p : kPipelines) {
    std::string pipeline = pipelineText(p, options);
    OwningOpRef<ModuleOp> copy = module->clone();
    ErrorRecorder errors(&ctx);
    auto pm = PassManager::on<ModuleOp>(&ctx);
    std::string error;
    llvm::raw_string_ostream errorStream(error);
    if (failed(parsePassPipeline(pipeline, pm, errorStream)))
      continue; // Options that do not parse: the pipeline's own message.
    pm.enableVerifier(false);
    if (failed(pm.run(*copy))) {
      if (!errors.sawError)
        bug(pipeline, "failed without an error diagnostic");
      continue;
    }
    if (failed(verify(*copy)))
      bug(pipeline, "succeeded with IR that does not verify");
  }
  return 0;
}
