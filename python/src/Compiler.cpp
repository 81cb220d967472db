#include "Compiler.h"
#include "Diagnostics.h"

#include "strata/Dialect/TensorIR/IR/TensorIR.h"
#include "strata/InitAll.h"
#include "strata/Support/ParserGuard.h"
#include "strata/Target/CUDA/CUDAEmitter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <optional>

using namespace mlir;

namespace strata::python {

namespace {
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

namespace {
/// The directory setReproducerDirectory gave; unset: STRATA_DUMP_DIR's.
std::optional<std::string> &explicitReproducerDirectory() {
  static std::optional<std::string> directory;
  return directory;
}

std::string reproducerDirectory() {
  if (explicitReproducerDirectory())
    return *explicitReproducerDirectory();
  const char *dump = std::getenv("STRATA_DUMP_DIR");
  return dump ? dump : "";
}

/// Writes `snapshot` (a module before `pipeline` ran on it) as an MLIR
/// reproducer in the reproducer directory; returns the line that names it
/// and the command that reruns it, or "" where none was written.
std::string writeReproducer(Operation *snapshot, llvm::StringRef pipeline) {
  std::string directory = reproducerDirectory();
  if (directory.empty() || !snapshot ||
      llvm::sys::fs::create_directories(directory))
    return "";
  static std::atomic<unsigned> count{0};
  llvm::SmallString<128> path(directory);
  llvm::sys::path::append(
      path, "strata-" + std::to_string(llvm::sys::Process::getProcessId()) +
                "-" + std::to_string(count++) + ".mlir");
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  if (error)
    return "";
  // With locations, so that the rerun's diagnostics name the same lines.
  snapshot->print(os, OpPrintingFlags().enableDebugInfo());
  // MLIR's reproducer format (what mlir-opt's crash reproducer writes).
  os << "\n{-#\n  external_resources: {\n    mlir_reproducer: {\n"
     << "      pipeline: \"builtin.module(";
  llvm::printEscapedString(pipeline, os);
  os << ")\",\n      disable_threading: true,\n      verify_each: true\n"
     << "    }\n  }\n#-}\n";
  return "reproducer: " + std::string(path) + " (rerun: strata-opt " +
         std::string(path) + " --run-reproducer)";
}
} // namespace

void setReproducerDirectory(const std::string &directory) {
  explicitReproducerDirectory() = directory;
}

Module::Module() {
  static std::once_flag passesRegistered;
  std::call_once(passesRegistered, [] { strata::registerAllPasses(); });
  DialectRegistry registry;
  strata::registerAllDialects(registry);
  ctx = std::make_shared<MLIRContext>(registry);
  // Pass pipelines run on one thread: the extension is called from Python,
  // and one core per compilation keeps timings honest.
  ctx->disableMultithreading();
  // A diagnostic names its op by location; the op's IR dump (mlir-opt's
  // "see current operation") is for compiler developers, not users.
  ctx->printOpOnDiagnostic(false);
}

Module::Module(std::shared_ptr<MLIRContext> context)
    : ctx(std::move(context)) {}

Module::~Module() = default;

std::unique_ptr<Module> Module::clone() const {
  std::unique_ptr<Module> result(new Module(ctx));
  result->module = std::make_unique<OwningOpRef<ModuleOp>>(op().clone());
  return result;
}

int64_t Module::count(const std::string &name) const {
  int64_t found = 0;
  op()->walk([&](Operation *inner) {
    if (inner->getName().getStringRef() == name)
      ++found;
  });
  return found;
}

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
  engines.clear(); // Compiled from the module as it was.
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
  // The module as the pipeline gets it, for a reproducer if it fails.
  OwningOpRef<ModuleOp> snapshot;
  if (!reproducerDirectory().empty())
    snapshot = (*module)->clone();
  if (failed(pm.run(**module)) || diagnostics.sawError())
    diagnostics.fail("pipeline '" + pipeline + "' failed",
                     writeReproducer(snapshot.get(), text));
  if (!verifyEach && failed(mlir::verify(**module)))
    diagnostics.fail("pipeline '" + pipeline + "' produced invalid IR",
                     writeReproducer(snapshot.get(), text));
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
