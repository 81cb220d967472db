// tileir-persist: how many program instances a contraction kernel
// launches, the one decision of this pass (see Passes.td).

#include "strata/Dialect/TileIR/Transforms/Passes.h"
#include "strata/Dialect/Utils/GpuLimits.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"

namespace strata::tileir {
#define GEN_PASS_DEF_TILEIRPERSISTPASS
#include "strata/Dialect/TileIR/Transforms/Passes.h.inc"
} // namespace strata::tileir

using namespace mlir;
using namespace strata;
using namespace strata::tileir;

namespace {
/// The blocks of `kernel` one SM holds at once: the fewest its threads,
/// its operand chunks' shared memory and its registers allow. Registers
/// are ptxas's choice, made later: estimated as twice the accumulators a
/// thread holds, at least 32 (operand fragments and addresses beside
/// them; a 128 x 128 tile of 256 threads then takes 128, as the
/// tensor-core kernels are bounded to). Too many costs little: the
/// instances that do not fit wait for a free SM, as a grid of one block
/// per tile would; too few would leave each SM a block short.
int64_t blocksPerSM(KernelOp kernel) {
  ArrayRef<int64_t> tile = kernel.getTile();
  int64_t rows = tile[tile.size() - 2], cols = tile.back();
  int64_t threads = kernel.getThreads();
  int64_t shared = kSharedBytesReservedPerBlock;
  for (ContractOp contract : kernel.getBody().getOps<ContractOp>())
    shared += contract.getStages() *
              getStagedChunkBytes(contract, rows, cols, contract.getStep());
  int64_t registers = std::max<int64_t>(32, 2 * computeProduct(tile) / threads);
  return std::max<int64_t>(
      1, std::min({kMaxBlocksPerSM, kMaxThreadsPerSM / threads,
                   kSharedBytesPerSM / shared,
                   kRegistersPerSM / (threads * registers)}));
}

/// The instances `kernel` launches (0: one per tile): `forced` unless 0,
/// else one wave of `sms` multiprocessors where `sms` is given; only
/// contraction kernels with more tiles than that are persistent.
int64_t chooseInstances(KernelOp kernel, int64_t forced, int64_t sms) {
  if (kernel.getProgramKind() != ProgramKind::Contraction ||
      (forced == 0 && sms == 0))
    return 0;
  int64_t instances = forced != 0 ? forced : sms * blocksPerSM(kernel);
  return kernel.getNumTiles() > instances ? instances : 0;
}

struct TileIRPersistPass
    : strata::tileir::impl::TileIRPersistPassBase<TileIRPersistPass> {
  using TileIRPersistPassBase::TileIRPersistPassBase;

  void runOnOperation() override {
    if (sms < 0 || instances < 0) {
      emitError(getOperation()->getLoc())
          << getArgument() << ": sms and instances must not be negative, "
          << "got sms=" << static_cast<int64_t>(sms)
          << " instances=" << static_cast<int64_t>(instances);
      return signalPassFailure();
    }
    getOperation()->walk([&](KernelOp kernel) {
      int64_t n = chooseInstances(kernel, instances, sms);
      if (n)
        kernel.setInstances(n);
      else
        kernel.removeInstancesAttr();
      // A wave of `sms` is an estimate (of the registers above all): the
      // launch takes the exact one. Forced instances are what was asked.
      kernel.setWave(n && instances == 0);
    });
  }
};
} // namespace
