// kernelir-check-target: the kernels use only what the target chip has.

#include "strata/Dialect/KernelIR/Transforms/Passes.h"

#include "llvm/Support/Regex.h"

namespace strata::kernelir {
#define GEN_PASS_DEF_KERNELIRCHECKTARGETPASS
#include "strata/Dialect/KernelIR/Transforms/Passes.h.inc"
} // namespace strata::kernelir

using namespace mlir;
using namespace strata::kernelir;

namespace {

/// The oldest compute capability CUDA 13's ptxas targets.
constexpr int64_t kOldestCapability = 75;

/// The most shared memory a block may opt in to, by compute capability
/// (CUDA's programming guide); capabilities not listed are not checked.
std::optional<int64_t> maxSharedBytesPerBlock(int64_t capability) {
  switch (capability) {
  case 75:
    return 64 * 1024;
  case 80:
  case 87:
    return 163 * 1024;
  case 86:
  case 89:
  case 120:
    return 99 * 1024;
  case 90:
  case 100:
  case 103:
    return 227 * 1024;
  default:
    return std::nullopt;
  }
}

struct CheckTargetPass
    : strata::kernelir::impl::KernelIRCheckTargetPassBase<CheckTargetPass> {
  using KernelIRCheckTargetPassBase::KernelIRCheckTargetPassBase;

  void runOnOperation() override {
    SmallVector<StringRef> parts;
    llvm::Regex form("^sm_([0-9]+)([af]?)$");
    if (!form.match(chip, &parts)) {
      emitError(getOperation().getLoc())
          << "chip '" << chip
          << "' is not a target of the form sm_<N> (sm_80, sm_90, sm_90a, "
             "...)";
      return signalPassFailure();
    }
    int64_t capability = 0;
    parts[1].getAsInteger(10, capability);
    bool archSpecific = parts[2] == "a";
    if (capability < kOldestCapability) {
      emitError(getOperation().getLoc())
          << "chip " << chip << " is older than sm_" << kOldestCapability
          << ", the oldest target of CUDA 13's ptxas";
      return signalPassFailure();
    }
    std::optional<int64_t> sharedLimit = maxSharedBytesPerBlock(capability);
    WalkResult walk = getOperation().walk([&](Operation *op) {
      if (auto kernel = dyn_cast<FuncOp>(op); kernel && sharedLimit) {
        int64_t bytes = kernel.getSharedLayout().second;
        if (bytes > *sharedLimit) {
          kernel.emitOpError("takes ")
              << bytes << " bytes of shared memory; " << chip
              << " gives a block at most " << *sharedLimit;
          return WalkResult::interrupt();
        }
      }
      auto instruction = dyn_cast<TargetInstructionOpInterface>(op);
      if (!instruction)
        return WalkResult::advance();
      int64_t needed = instruction.getMinComputeCapability();
      if (instruction.needsArchSpecificTarget()) {
        if (capability != needed || !archSpecific) {
          op->emitOpError("exists on sm_")
              << needed << "a alone; the target is " << chip;
          return WalkResult::interrupt();
        }
      } else if (capability < needed) {
        op->emitOpError("needs sm_")
            << needed << " or newer; the target is " << chip;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
