#include "Compiler.h"

#include "strata/Dialect/TensorIR/IR/TensorIR.h"
#include "strata/InitAll.h"
#include "strata/Support/ParserGuard.h"
#include "strata/Target/CUDA/CUDAEmitter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;

namespace strata::python {

namespace {
/// Collects every diagnostic emitted while it lives, as "loc: error: msg".
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *ctx)
      : handler(ctx, [this](Diagnostic &diag) {
          append(diag);
          for (Diagnostic &note : diag.getNotes())
            append(note);
          return success();
        }) {}

  [[noreturn]] void fail(const std::string &fallback) {
    throw CompilerError(messages.empty() ? fallback : messages);
  }

  /// Whether an error was reported (some upstream passes report one and
  /// succeed: gpu-module-to-binary without libdevice leaves its calls
  /// undefined in the PTX).
  bool sawError() const { return errors; }

private:
  void append(Diagnostic &diag) {
    errors |= diag.getSeverity() == DiagnosticSeverity::Error;
    llvm::raw_string_ostream os(messages);
    if (!messages.empty())
      os << "\n";
    // file:line:col, like a C compiler, where the location has one. An
    // error without a location (a pass's option, say) is its message alone:
    // the caller says it is an error.
    if (auto file = diag.getLocation()->findInstanceOf<FileLineColLoc>()) {
      os << file.getFilename().getValue() << ":" << file.getLine() << ":"
         << file.getColumn() << ": ";
    } else if (isa<UnknownLoc>(diag.getLocation())) {
      if (diag.getSeverity() == DiagnosticSeverity::Error) {
        os << diag.str();
        return;
      }
    } else {
      os << diag.getLocation() << ": ";
    }
    switch (diag.getSeverity()) {
    case DiagnosticSeverity::Error:
      os << "error: ";
      break;
    case DiagnosticSeverity::Warning:
      os << "warning: ";
      break;
    case DiagnosticSeverity::Note:
      os << "note: ";
      break;
    case DiagnosticSeverity::Remark:
      os << "remark: ";
      break;
    }
    os << diag.str();
  }

  std::string messages;
  bool errors = false;
  ScopedDiagnosticHandler handler;
};

const char *formatName(gpu::CompilationTarget format) {
  switch (format) {
  case gpu::CompilationTarget::Offload:
    return "offload";
  case gpu::CompilationTarget::Assembly:
    return "isa";
  case gpu::CompilationTarget::Binary:
    return "bin";
  case gpu::CompilationTarget::Fatbin:
    return "fatbin";
  }
  return "unknown";
}
} // namespace

Module::Module() {
  static std::once_flag passesRegistered;
  std::call_once(passesRegistered, [] { strata::registerAllPasses(); });
  DialectRegistry registry;
  strata::registerAllDialects(registry);
  ctx = std::make_unique<MLIRContext>(registry);
  // Pass pipelines run on one thread: the extension is called from Python,
  // and one core per compilation keeps timings honest.
  ctx->disableMultithreading();
  // A diagnostic names its op by location; the op's IR dump (mlir-opt's
  // "see current operation") is for compiler developers, not users.
  ctx->printOpOnDiagnostic(false);
}

Module::~Module() = default;

std::unique_ptr<Module> Module::parse(const std::string &text,
                                      const std::string &filename) {
  std::unique_ptr<Module> result(new Module());
  DiagnosticCollector diagnostics(result->ctx.get());
  if (failed(strata::rejectKnownParserCrashes(text, filename,
                                              result->ctx.get())))
    diagnostics.fail("could not parse " + filename);
  ParserConfig config(result->ctx.get());
  OwningOpRef<ModuleOp> parsed =
      parseSourceString<ModuleOp>(text, config, filename);
  if (!parsed)
    diagnostics.fail("could not parse " + filename);
  result->module = std::make_unique<OwningOpRef<ModuleOp>>(std::move(parsed));
  return result;
}

std::unique_ptr<Module> Module::create() {
  std::unique_ptr<Module> result(new Module());
  result->ctx->loadDialect<func::FuncDialect, tensorir::TensorIRDialect>();
  result->module = std::make_unique<OwningOpRef<ModuleOp>>(
      ModuleOp::create(UnknownLoc::get(result->ctx.get())));
  return result;
}

ModuleOp Module::op() const { return **module; }

std::string Module::run(const std::string &pipeline, bool timing,
                        bool verifyEach) {
  DiagnosticCollector diagnostics(ctx.get());
  // The pass manager is anchored on the module; the text lists what runs in
  // it, so an explicit builtin.module(...) wrapper is unwrapped.
  llvm::StringRef text = llvm::StringRef(pipeline).trim();
  if (text.consume_front("builtin.module(") && !text.consume_back(")"))
    throw CompilerError("invalid pass pipeline '" + pipeline +
                        "': unbalanced parentheses");
  auto pm = PassManager::on<ModuleOp>(ctx.get());
  std::string error;
  llvm::raw_string_ostream errorStream(error);
  if (failed(parsePassPipeline(text, pm, errorStream)))
    throw CompilerError("invalid pass pipeline '" + pipeline + "': " + error);
  std::string report;
  llvm::raw_string_ostream reportStream(report);
  DefaultTimingManager timer;
  std::optional<TimingScope> root;
  if (timing) {
    timer.setEnabled(true);
    timer.setDisplayMode(DefaultTimingManager::DisplayMode::Tree);
    timer.setOutput(createOutputStrategy(
        DefaultTimingManager::OutputFormat::Text, reportStream));
    root = timer.getRootScope();
    pm.enableTiming(*root);
  }
  pm.enableVerifier(verifyEach);
  if (failed(pm.run(**module)) || diagnostics.sawError())
    diagnostics.fail("pipeline '" + pipeline + "' failed");
  if (!verifyEach && failed(mlir::verify(**module)))
    diagnostics.fail("pipeline '" + pipeline + "' produced invalid IR");
  if (timing) {
    root->stop();
    timer.print();
    timer.setEnabled(false); // The report is printed once, above.
  }
  return report;
}

void Module::verify() {
  DiagnosticCollector diagnostics(ctx.get());
  if (failed(mlir::verify(**module)))
    diagnostics.fail("the module does not verify");
}

std::string Module::str(bool generic) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  if (generic)
    flags.printGenericOpForm();
  (*module)->print(os, flags);
  return text;
}

std::string Module::cuda() const {
  DiagnosticCollector diagnostics(ctx.get());
  std::string text;
  llvm::raw_string_ostream os(text);
  if (failed(strata::renderKernelsAsCUDA(**module, os)))
    diagnostics.fail("cannot render the kernels as CUDA");
  return text;
}

std::vector<std::pair<std::vector<int64_t>, std::string>>
Module::resultTypes(const std::string &entry) const {
  auto func = (*module)->lookupSymbol<func::FuncOp>(entry);
  if (!func)
    throw CompilerError("no function @" + entry + " in the module");
  std::vector<std::pair<std::vector<int64_t>, std::string>> types;
  for (Type t : func.getResultTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !tensor.hasStaticShape())
      throw CompilerError("@" + entry +
                          " returns a value that is not a "
                          "statically shaped tensor");
    std::string element;
    llvm::raw_string_ostream os(element);
    tensor.getElementType().print(os);
    types.push_back({std::vector<int64_t>(tensor.getShape().begin(),
                                          tensor.getShape().end()),
                     element});
  }
  return types;
}

std::vector<GpuObject> Module::gpuObjects() const {
  std::vector<GpuObject> objects;
  (*module)->walk([&](gpu::BinaryOp binary) {
    for (Attribute attr : binary.getObjects()) {
      auto object = cast<gpu::ObjectAttr>(attr);
      GpuObject result;
      result.module = binary.getSymName().str();
      if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget()))
        result.chip = nvvm.getChip().str();
      result.format = formatName(object.getFormat());
      result.data = object.getObject().getValue().str();
      objects.push_back(std::move(result));
    }
  });
  return objects;
}

} // namespace strata::python
