// strata-opt: mlir-opt with Strata's dialects, passes and pipelines. It
// reads the input itself to reject, with a diagnostic, the forms upstream
// MLIR's parser crashes on (strata/Support/ParserGuard.h), then runs
// mlir-opt's driver on it.

#include "strata/InitAll.h"
#include "strata/Support/ParserGuard.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  DialectRegistry registry;
  strata::registerAllDialects(registry);
  strata::registerAllPasses();
  auto [input, output] = registerAndParseCLIOptions(
      argc, argv, "Strata optimizer driver\n", registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  // Listings read no input: mlir-opt's driver prints them.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return asMainReturnCode(MlirOptMain(argc, argv, input, output, registry));

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> buffer = openInputFile(input, &error);
  if (!buffer) {
    llvm::errs() << error << "\n";
    return 1;
  }
  {
    MLIRContext ctx;
    llvm::SourceMgr sources;
    SourceMgrDiagnosticHandler handler(sources, &ctx);
    if (failed(strata::rejectKnownParserCrashes(
            buffer->getBuffer(), buffer->getBufferIdentifier(), &ctx)))
      return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> out = openOutputFile(output, &error);
  if (!out) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (failed(MlirOptMain(out->os(), std::move(buffer), registry, config)))
    return 1;
  out->keep();
  return 0;
}
