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

namespace {
struct SetContractionStep : OpRewritePattern<ContractOp> {
  SetContractionStep(MLIRContext *ctx, int64_t step)
      : OpRewritePattern(ctx), step(step) {}

  LogicalResult matchAndRewrite(ContractOp contract,
                                PatternRewriter &rewriter) const override {
    if ((int64_t)contract.getStep() == step)
      return failure();
    rewriter.modifyOpInPlace(contract, [&] { contract.setStep(step); });
    return success();
  }

  int64_t step;
};

struct TileIRKTilePass
    : strata::tileir::impl::TileIRKTilePassBase<TileIRKTilePass> {
  using TileIRKTilePassBase::TileIRKTilePassBase;

  void runOnOperation() override {
    if (kTile < 1) {
      mlir::emitError(getOperation()->getLoc(),
                      "tileir-k-tile: k-tile must be positive, got ")
          << kTile.getValue();
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    populateKTilePatterns(patterns, kTile);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void strata::tileir::populateKTilePatterns(RewritePatternSet &patterns,
                                           int64_t kTile) {
  patterns.add<SetContractionStep>(patterns.getContext(), kTile);
}
