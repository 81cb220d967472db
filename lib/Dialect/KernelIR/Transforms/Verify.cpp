// kernelir-verify: the kernel stage's ops verify, whatever the pass
// manager's verification.

#include "strata/Dialect/KernelIR/Transforms/Passes.h"

#include "mlir/IR/Verifier.h"

namespace strata::kernelir {
#define GEN_PASS_DEF_KERNELIRVERIFYPASS
#include "strata/Dialect/KernelIR/Transforms/Passes.h.inc"
} // namespace strata::kernelir

using namespace mlir;

namespace {
struct KernelIRVerifyPass
    : strata::kernelir::impl::KernelIRVerifyPassBase<KernelIRVerifyPass> {
  void runOnOperation() override {
    if (failed(verify(getOperation())))
      signalPassFailure();
  }
};
} // namespace
