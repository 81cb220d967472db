#include "strata/InitAll.h"
#include "strata/Conversion/Passes.h"
#include "strata/Dialect/KernelIR/IR/KernelIR.h"
#include "strata/Dialect/KernelIR/Transforms/Passes.h"
#include "strata/Dialect/LoopIR/IR/LoopIR.h"
#include "strata/Dialect/LoopIR/Transforms/Passes.h"
#include "strata/Dialect/TensorIR/IR/TensorIR.h"
#include "strata/Dialect/TensorIR/Transforms/Passes.h"
#include "strata/Dialect/TileIR/IR/TileIR.h"
#include "strata/Dialect/TileIR/Transforms/Passes.h"
#include "strata/Pipelines/Pipelines.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

namespace strata {

void registerStrataDialects(mlir::DialectRegistry &registry) {
  registry.insert<tensorir::TensorIRDialect, loopir::LoopIRDialect,
                  tileir::TileIRDialect, kernelir::KernelIRDialect>();
}

void registerAllDialects(mlir::DialectRegistry &registry) {
  registerStrataDialects(registry);
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
}

void registerStrataPasses() {
  static bool registered = [] {
    tensorir::registerTensorIRTransformsPasses();
    loopir::registerLoopIRTransformsPasses();
    tileir::registerTileIRTransformsPasses();
    kernelir::registerKernelIRTransformsPasses();
    registerStrataConversionPasses();
    registerPipelines();
    return true;
  }();
  (void)registered;
}

void registerAllPasses() {
  mlir::registerAllPasses();
  registerStrataPasses();
}

} // namespace strata
