// tileir-pipeline: the pipeline depth of each contraction, the one decision
// of this pass (see Passes.td).

#include "strata/Dialect/TileIR/Transforms/Passes.h"
#include "strata/Dialect/Utils/ScheduleModel.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/MathExtras.h"

namespace strata::tileir {
#define GEN_PASS_DEF_TILEIRPIPELINEPASS
#include "strata/Dialect/TileIR/Transforms/Passes.h.inc"
} // namespace strata::tileir

using namespace mlir;
using namespace strata;
using namespace strata::tileir;

int64_t strata::tileir::getStagedChunkBytes(ContractOp contract, int64_t rows,
                                            int64_t cols, int64_t step) {
  int64_t bytes = contract.getStagedElementBytes();
  // Counted as the tensor-core path stores them, padded against bank
  // conflicts (B either n x k or k x n): at least what any path takes.
  int64_t lhs = rows * conflictFreeRowLength(step, bytes, true);
  int64_t rhs = std::max(cols * conflictFreeRowLength(step, bytes, true),
                         step * conflictFreeRowLength(cols, bytes, false));
  return (lhs + rhs) * bytes;
}

namespace {
/// The depth of one contraction: `wanted` (0: kContractionStages, or for
/// halves in a large tensor-core tile kLargeTileHalfStages), but at most
/// its steps of k and what fits in its share of `budget` bytes of shared
/// memory (the program's contractions split it evenly); a
/// large tensor-core tile (isLargeTensorCoreTile) may take its default
/// depth whatever the budget.
int64_t chooseStages(ContractOp contract, int64_t wanted, int64_t budget,
                     bool tensorCores, bool tf32) {
  auto kernel = contract->getParentOfType<KernelOp>();
  ArrayRef<int64_t> tile = kernel.getTile();
  int64_t rows = tile[tile.size() - 2], cols = tile[tile.size() - 1];
  int64_t step = contract.getStep();
  int64_t perStage = getStagedChunkBytes(contract, rows, cols, step);
  bool large = isLargeTensorCoreTile(contract, tensorCores, tf32);
  int64_t depth = large && contract.getWidenedHalfType() ? kLargeTileHalfStages
                                                         : kContractionStages;
  if (wanted == 0)
    wanted = depth;
  if (large)
    budget = std::max(
        budget, std::min<int64_t>(depth * perStage, kMaxSharedMemoryBytes));
  // Sibling contractions of one program share the shared memory.
  auto contracts = kernel.getBody().getOps<ContractOp>();
  budget /= std::max<int64_t>(1, std::distance(contracts.begin(),
                                               contracts.end()));
  int64_t steps = llvm::divideCeil(contract.getK(), step);
  int64_t fit = std::max<int64_t>(1, budget / perStage);
  return std::max<int64_t>(1, std::min({wanted, steps, fit}));
}

struct PipelineContraction : OpRewritePattern<ContractOp> {
  PipelineContraction(MLIRContext *ctx, int64_t stages, int64_t budget,
                      bool tensorCores, bool tf32)
      : OpRewritePattern(ctx), stages(stages), budget(budget),
        tensorCores(tensorCores), tf32(tf32) {}

  LogicalResult matchAndRewrite(ContractOp contract,
                                PatternRewriter &rewriter) const override {
    int64_t depth = chooseStages(contract, stages, budget, tensorCores, tf32);
    if (depth == (int64_t)contract.getStages())
      return failure();
    rewriter.modifyOpInPlace(contract, [&] { contract.setStages(depth); });
    return success();
  }

  int64_t stages, budget;
  bool tensorCores, tf32;
};

struct TileIRPipelinePass
    : strata::tileir::impl::TileIRPipelinePassBase<TileIRPipelinePass> {
  using TileIRPipelinePassBase::TileIRPipelinePassBase;

  void runOnOperation() override {
    if (stages < 0) {
      mlir::emitError(getOperation()->getLoc(),
                      "tileir-pipeline: stages must be positive (or 0: "
                      "chosen per contraction), got ")
          << stages.getValue();
      return signalPassFailure();
    }
    if (sharedMemory < 1 || sharedMemory > kMaxSharedMemoryBytes) {
      mlir::emitError(getOperation()->getLoc(),
                      "tileir-pipeline: shared-memory must be between 1 and ")
          << kMaxSharedMemoryBytes << " bytes, got " << sharedMemory.getValue();
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    populatePipelinePatterns(patterns, stages, sharedMemory, tensorCores, tf32);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void strata::tileir::populatePipelinePatterns(RewritePatternSet &patterns,
                                              int64_t stages,
                                              int64_t sharedMemory,
                                              bool tensorCores, bool tf32) {
  patterns.add<PipelineContraction>(patterns.getContext(), stages, sharedMemory,
                                    tensorCores, tf32);
}
