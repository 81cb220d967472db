// loopir-expose-kernel-results: every kernel's results become results of
// its function, so each kernel can be checked on its own.

#include "strata/Dialect/LoopIR/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace strata::loopir {
#define GEN_PASS_DEF_LOOPIREXPOSEKERNELRESULTSPASS
#include "strata/Dialect/LoopIR/Transforms/Passes.h.inc"
} // namespace strata::loopir

using namespace mlir;
using namespace strata;

namespace {
struct LoopIRExposeKernelResultsPass
    : loopir::impl::LoopIRExposeKernelResultsPassBase<
          LoopIRExposeKernelResultsPass> {
  void runOnOperation() override {
    WalkResult result = getOperation().walk([](func::FuncOp func) {
      if (func.isExternal())
        return WalkResult::advance();
      SmallVector<Value> kernelResults;
      func.walk([&](loopir::KernelOp kernel) {
        llvm::append_range(kernelResults, kernel.getResults());
      });
      if (kernelResults.empty())
        return WalkResult::advance();
      if (!func.getBody().hasOneBlock())
        return func.emitError("cannot expose kernel results of a function "
                              "with several blocks"),
               WalkResult::interrupt();
      auto ret = dyn_cast<func::ReturnOp>(func.getBody().front().back());
      if (!ret)
        return func.emitError("cannot expose kernel results: the function "
                              "does not end with func.return"),
               WalkResult::interrupt();
      SmallVector<Value> returned(ret.getOperands());
      llvm::append_range(returned, kernelResults);
      OpBuilder b(ret);
      func::ReturnOp::create(b, ret.getLoc(), returned);
      ret.erase();
      func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                     ValueRange(returned).getTypes()));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
