// tileir-k-tile: how many k each contraction stages per step, the one
// decision of this pass (see Passes.td).

#include "strata/Dialect/TileIR/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace strata::tileir {
#define GEN_PASS_DEF_TILEIRKTILEPASS
#include "strata/Dialect/TileIR/Transforms/Passes.h.inc"
} // namespace strata::tileir

using namespace mlir;
using namespace strata;
using namespace strata::tileir;

bool strata::tileir::isLargeTensorCoreTile(ContractOp contract,
                                           bool tensorCores, bool tf32) {
  ArrayRef<int64_t> tile = contract->getParentOfType<KernelOp>().getTile();
  return tensorCores && contract.getTensorCoreOperandType(tf32) &&
         tile[tile.size() - 2] >= kLargeContractionBlockTile &&
         tile[tile.size() - 1] >= kLargeContractionBlockTile;
}

int64_t strata::tileir::chooseKTile(ContractOp contract, int64_t forced,
                                    bool tensorCores, bool tf32) {
  if (forced > 0)
    return forced;
  if (!isLargeTensorCoreTile(contract, tensorCores, tf32))
    return kContractionStep;
  return contract.getWidenedHalfType() ? kLargeTileHalfStep
                                       : kLargeTileTensorCoreStep;
}

namespace {
struct SetContractionStep : OpRewritePattern<ContractOp> {
  SetContractionStep(MLIRContext *ctx, int64_t forced, bool tensorCores,
                     bool tf32)
      : OpRewritePattern(ctx), forced(forced), tensorCores(tensorCores),
        tf32(tf32) {}

  LogicalResult matchAndRewrite(ContractOp contract,
                                PatternRewriter &rewriter) const override {
    int64_t step = chooseKTile(contract, forced, tensorCores, tf32);
    if ((int64_t)contract.getStep() == step)
      return failure();
    rewriter.modifyOpInPlace(contract, [&] { contract.setStep(step); });
    return success();
  }

  int64_t forced;
  bool tensorCores, tf32;
};

struct TileIRKTilePass
    : strata::tileir::impl::TileIRKTilePassBase<TileIRKTilePass> {
  using TileIRKTilePassBase::TileIRKTilePassBase;

  void runOnOperation() override {
    if (kTile < 0) {
      mlir::emitError(getOperation()->getLoc(),
                      "tileir-k-tile: k-tile must be positive (or 0: "
                      "chosen per contraction), got ")
          << kTile.getValue();
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    populateKTilePatterns(patterns, kTile, tensorCores, tf32);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void strata::tileir::populateKTilePatterns(RewritePatternSet &patterns,
                                           int64_t kTile, bool tensorCores,
                                           bool tf32) {
  patterns.add<SetContractionStep>(patterns.getContext(), kTile, tensorCores,
                                   tf32);
}
