// tensorir-decompose: composite ops become atomic ops. Each op knows its own
// decomposition (DecomposableOpInterface); this pass only applies them.

#include "strata/Dialect/TensorIR/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace strata::tensorir {
#define GEN_PASS_DEF_TENSORIRDECOMPOSEPASS
#include "strata/Dialect/TensorIR/Transforms/Passes.h.inc"
} // namespace strata::tensorir

using namespace mlir;
using namespace strata::tensorir;

namespace {
struct Decompose : OpInterfaceRewritePattern<DecomposableOpInterface> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(DecomposableOpInterface op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, op.decompose(rewriter));
    return success();
  }
};

struct TensorIRDecomposePass
    : strata::tensorir::impl::TensorIRDecomposePassBase<
          TensorIRDecomposePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateDecomposePatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void strata::tensorir::populateDecomposePatterns(RewritePatternSet &patterns) {
  patterns.add<Decompose>(patterns.getContext());
}
