// tileir-fuse-folds: dependent folds of one row in one pass, as a fold over
// a composite monoid (see Passes.td). Online softmax: the max m of x and
// the sum of exp(x - m) become one fold over (max, sum) whose combination
// rescales each partial sum to the combined maximum. Welford: the mean a of
// x and the sum of (x - a)^2 become one fold over (count, mean, squares).

#include "RowFolds.h"
#include "strata/Dialect/TileIR/IR/CompositeMonoids.h"
#include "strata/Dialect/TileIR/Transforms/Passes.h"
#include "strata/Dialect/Utils/LoopBox.h"
#include "strata/Dialect/Utils/SameComputation.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/Matchers.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace strata::tileir {
#define GEN_PASS_DEF_TILEIRFUSEFOLDSPASS
#include "strata/Dialect/TileIR/Transforms/Passes.h.inc"
} // namespace strata::tileir

using namespace mlir;
using namespace strata;
using namespace strata::tileir;

namespace {

/// A composite fold at `first` over its box whose contribution is
/// `components` of `first`'s contribution x, combined by `combine`.
CompositeFoldOp
fuseInto(PatternRewriter &rewriter, FoldOp first, ArrayRef<TypedAttr> identity,
         function_ref<SmallVector<Value>(OpBuilder &, Value)> components,
         CombineBuilder combine) {
  Block &firstBody = first.getBody().front();
  Value x = firstBody.getTerminator()->getOperand(0);
  rewriter.setInsertionPoint(first);
  return buildCompositeFold(
      rewriter, first.getLoc(), identity, first.getBounds(),
      [&](OpBuilder &b, Location, ValueRange ivs) {
        IRMapping point = cloneLoopBody(b, firstBody, ivs, IRMapping());
        return components(b, point.lookupOrDefault(x));
      },
      combine);
}

/// %s = fold add { exp(x' - %m) } after %m = fold max { x }, x' computed as
/// x is: one composite fold of (x, 1) over (max, sum).
struct OnlineSoftmax : OpRewritePattern<FoldOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FoldOp sum,
                                PatternRewriter &rewriter) const override {
    FoldOp max = matchSoftmaxNormalizer(sum);
    if (!max)
      return rewriter.notifyMatchFailure(
          sum, "not a sum of exp(x - max) of the max's x");

    CompositeFoldOp fused = fuseInto(
        rewriter, max, onlineSoftmaxIdentity(rewriter),
        [](OpBuilder &b, Value x) -> SmallVector<Value> {
          Value one =
              arith::ConstantOp::create(b, x.getLoc(), b.getF32FloatAttr(1.0));
          return {x, one};
        },
        combineOnlineSoftmax);
    rewriter.setInsertionPointAfter(fused);
    rewriter.replaceOp(sum,
                       buildTwoPassSum(rewriter, sum.getLoc(),
                                       fused.getResult(0), fused.getResult(1)));
    rewriter.replaceOp(max, fused.getResult(0));
    return success();
  }
};

/// Whether `mean` is `sum` divided by `count`: sum / count, or sum times
/// the f32 nearest 1 / count.
bool isMeanOf(Value mean, Value sum, int64_t count) {
  FloatAttr c;
  if (auto div = mean.getDefiningOp<arith::DivFOp>())
    return div.getLhs() == sum && matchPattern(div.getRhs(), m_Constant(&c)) &&
           c.getValueAsDouble() == (double)count;
  auto mul = mean.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return false;
  Value other = mul.getLhs() == sum ? mul.getRhs() : mul.getLhs();
  return (mul.getLhs() == sum || mul.getRhs() == sum) &&
         matchPattern(other, m_Constant(&c)) &&
         (float)c.getValueAsDouble() == (float)(1.0 / (double)count);
}

/// %q = fold add { (x' - %a)^2 } after %a = (fold add { x }) / n, x'
/// computed as x is (variance's mean-then-squares): one composite fold of
/// (1, x, 0) over Welford's (count, mean, squared deviations), so the row
/// is read once for both.
struct Welford : OpRewritePattern<FoldOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FoldOp squares,
                                PatternRewriter &rewriter) const override {
    if (!isSingleF32Fold(squares, Combiner::add))
      return rewriter.notifyMatchFailure(squares, "not an f32 sum");
    Block &squaresBody = squares.getBody().front();
    auto square = squaresBody.getTerminator()
                      ->getOperand(0)
                      .getDefiningOp<arith::MulFOp>();
    auto diff = square && square.getLhs() == square.getRhs()
                    ? square.getLhs().getDefiningOp<arith::SubFOp>()
                    : nullptr;
    Value mean = diff ? diff.getRhs() : Value();
    Operation *meanOp = mean ? mean.getDefiningOp() : nullptr;
    FoldOp sum = nullptr;
    int64_t count = computeProduct(squares.getBounds());
    if (meanOp && meanOp->getBlock() == squares->getBlock())
      for (Value operand : meanOp->getOperands())
        if (FoldOp f = getEarlierFold(squares, operand, Combiner::add))
          if (isMeanOf(mean, f.getResult(0), count))
            sum = f;
    if (!sum)
      return rewriter.notifyMatchFailure(squares,
                                         "not a sum of (x - mean(x))^2");
    Block &sumBody = sum.getBody().front();
    Value x = sumBody.getTerminator()->getOperand(0);
    if (!isSameComputation(x, diff.getLhs(), sumBody, squaresBody))
      return rewriter.notifyMatchFailure(squares,
                                         "the squares' x is another value");

    CompositeFoldOp fused = fuseInto(
        rewriter, sum, welfordIdentity(rewriter),
        [](OpBuilder &b, Value x) -> SmallVector<Value> {
          Location loc = x.getLoc();
          return {arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0)), x,
                  arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0))};
        },
        combineWelford);
    Value welfordMean = fused.getResult(1);
    rewriter.replaceOp(squares, fused.getResult(2));
    rewriter.replaceAllUsesWith(mean, welfordMean);
    // Other uses of the sum get count * mean.
    if (!sum.getResult(0).use_empty()) {
      rewriter.setInsertionPointAfter(fused);
      Value total = arith::MulFOp::create(
          rewriter, sum.getLoc(), welfordMean,
          arith::ConstantOp::create(rewriter, sum.getLoc(),
                                    rewriter.getF32FloatAttr((float)count)));
      rewriter.replaceAllUsesWith(sum.getResult(0), total);
    }
    rewriter.eraseOp(sum);
    return success();
  }
};

struct TileIRFuseFoldsPass
    : strata::tileir::impl::TileIRFuseFoldsPassBase<TileIRFuseFoldsPass> {
  void runOnOperation() override {
    // Attention's three folds first: online softmax alone would take two.
    RewritePatternSet flash(&getContext());
    populateFlashAccumulatePatterns(flash);
    if (failed(applyPatternsGreedily(getOperation(), std::move(flash))))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateFuseFoldsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void strata::tileir::populateFuseFoldsPatterns(RewritePatternSet &patterns) {
  patterns.add<OnlineSoftmax, Welford>(patterns.getContext());
}
