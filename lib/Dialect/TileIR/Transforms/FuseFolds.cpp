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
#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>
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

/// A fold of components `components` of `fold` (their combiners and
/// contributions, the body cloned), before it.
FoldOp foldComponents(PatternRewriter &rewriter, FoldOp fold,
                      ArrayRef<unsigned> components) {
  SmallVector<Combiner> all = fold.getCombinerList();
  SmallVector<Combiner> combiners;
  SmallVector<Type> types;
  for (unsigned c : components) {
    combiners.push_back(all[c]);
    types.push_back(fold.getResult(c).getType());
  }
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(fold);
  auto part = FoldOp::create(rewriter, fold.getLoc(), combiners, types,
                             fold.getBounds());
  Block &body = fold.getBody().front();
  rewriter.setInsertionPointToStart(&part.getBody().front());
  IRMapping point =
      cloneLoopBody(rewriter, body, part.getInductionVars(), IRMapping());
  SmallVector<Value> yielded;
  for (unsigned c : components)
    yielded.push_back(
        point.lookupOrDefault(body.getTerminator()->getOperand(c)));
  YieldOp::create(rewriter, fold.getLoc(), yielded);
  return part;
}

/// Replaces `fold` (of several components) by a fold of its components
/// but `i`, whose uses take `replacement`.
void replaceComponent(PatternRewriter &rewriter, FoldOp fold, unsigned i,
                      Value replacement) {
  SmallVector<unsigned> others;
  for (unsigned k = 0; k < fold.getNumResults(); ++k)
    if (k != i)
      others.push_back(k);
  SmallVector<Value> results(
      foldComponents(rewriter, fold, others).getResults());
  results.insert(results.begin() + i, replacement);
  rewriter.replaceOp(fold, results);
}

/// `guarded` = select(|m| == inf, c, m) with c a constant (PyTorch's
/// logsumexp shifts by 0 where the max is infinite): m, else null.
Value getGuardedMax(Value guarded) {
  auto select = guarded.getDefiningOp<arith::SelectOp>();
  auto eq = select ? select.getCondition().getDefiningOp<arith::CmpFOp>()
                   : nullptr;
  auto abs = eq ? eq.getLhs().getDefiningOp<math::AbsFOp>() : nullptr;
  FloatAttr inf;
  if (!abs || eq.getPredicate() != arith::CmpFPredicate::OEQ ||
      !matchPattern(eq.getRhs(), m_Constant(&inf)) ||
      !inf.getValue().isPosInfinity() ||
      !matchPattern(select.getTrueValue(), m_Constant()) ||
      select.getFalseValue() != abs.getOperand())
    return Value();
  return abs.getOperand();
}

/// For `sum` = fold add { exp(x' - g) } with g the guarded max (above) of
/// an earlier max fold of the same x: that max fold; null otherwise.
FoldOp matchGuardedNormalizer(FoldOp sum) {
  if (!isSingleF32Fold(sum, Combiner::add))
    return nullptr;
  Block &sumBody = sum.getBody().front();
  auto exp = sumBody.getTerminator()->getOperand(0).getDefiningOp<math::ExpOp>();
  auto diff = exp ? exp.getOperand().getDefiningOp<arith::SubFOp>() : nullptr;
  Value m = diff ? getGuardedMax(diff.getRhs()) : Value();
  FoldOp max = m ? getEarlierFold(sum, m, Combiner::max) : nullptr;
  if (!max)
    return nullptr;
  Block &maxBody = max.getBody().front();
  if (!isSameComputation(maxBody.getTerminator()->getOperand(0), diff.getLhs(),
                         maxBody, sumBody))
    return nullptr;
  return max;
}

/// %s = fold add { exp(x' - %m) } after %m = fold max { x }, x' computed as
/// x is: one composite fold of (x, 1) over (max, sum). Also with the max
/// guarded, exp(x' - select(|m| == inf, c, m)) (logsumexp on torch 2.x):
/// where m is finite the same sum; where it is infinite the sum of
/// exp(x - c) over a row whose maximum is -inf (0) or +inf (inf).
struct OnlineSoftmax : OpRewritePattern<FoldOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FoldOp sum,
                                PatternRewriter &rewriter) const override {
    FoldOp max = matchSoftmaxNormalizer(sum);
    bool guarded = false;
    if (!max) {
      max = matchGuardedNormalizer(sum);
      guarded = max != nullptr;
    }
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
    Value m = fused.getResult(0), s = fused.getResult(1);
    Value total = guarded ? buildGuardedSum(rewriter, sum.getLoc(), m, s)
                          : buildTwoPassSum(rewriter, sum.getLoc(), m, s);
    rewriter.replaceOp(sum, total);
    rewriter.replaceOp(max, m);
    return success();
  }

  /// The sum of exp(x - select(|m| == inf, c, m)) from the online (m, s):
  /// s where m is finite, inf where it is +inf, 0 where it is -inf.
  static Value buildGuardedSum(OpBuilder &b, Location loc, Value m, Value s) {
    auto f32 = [&](float v) -> Value {
      return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
    };
    float inf = std::numeric_limits<float>::infinity();
    Value infinite = arith::CmpFOp::create(
        b, loc, arith::CmpFPredicate::OEQ, math::AbsFOp::create(b, loc, m),
        f32(inf));
    Value positive =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, m, f32(0));
    Value extreme = arith::SelectOp::create(b, loc, positive, f32(inf), f32(0));
    return arith::SelectOp::create(b, loc, infinite, extreme, s);
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

/// A component of a fold that an earlier fold of its block already folds
/// (the same combiner over the same box, its contribution computed the
/// same way): the earlier result serves, and the fold keeps its other
/// components. Fusion recomputes a row statistic where it is cheaper than
/// a round trip (logsumexp's max, once for exp(x - max) and once beside
/// the sum for the final + max), and the duplicate hides the pair the
/// patterns here fuse.
struct SharedFoldComponent : OpRewritePattern<FoldOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FoldOp fold,
                                PatternRewriter &rewriter) const override {
    Block &body = fold.getBody().front();
    SmallVector<Combiner> combiners = fold.getCombinerList();
    for (Operation *op = fold->getPrevNode(); op; op = op->getPrevNode()) {
      auto earlier = dyn_cast<FoldOp>(op);
      if (!earlier || earlier.getBounds() != fold.getBounds())
        continue;
      Block &earlierBody = earlier.getBody().front();
      SmallVector<Combiner> earlierCombiners = earlier.getCombinerList();
      for (auto [i, v] :
           llvm::enumerate(body.getTerminator()->getOperands()))
        for (auto [j, w] :
             llvm::enumerate(earlierBody.getTerminator()->getOperands()))
          if (combiners[i] == earlierCombiners[j] &&
              v.getType() == w.getType() &&
              isSameComputation(v, w, body, earlierBody)) {
            dropComponent(rewriter, fold, i, earlier.getResult(j));
            return success();
          }
    }
    return rewriter.notifyMatchFailure(fold, "no component folded before");
  }

  /// Replaces `fold` by a fold without component `i`, whose uses take
  /// `replacement`.
  static void dropComponent(PatternRewriter &rewriter, FoldOp fold, size_t i,
                            Value replacement) {
    if (fold.getNumResults() == 1) {
      rewriter.replaceOp(fold, replacement);
      return;
    }
    replaceComponent(rewriter, fold, i, replacement);
  }
};

/// Softmax's sum of exp(x - max) as one component of a fold with others
/// (loop fusion gives sibling reductions of a row one loop: SDPA's sum
/// beside the count of a boolean mask's kept keys) is folded alone, and
/// the others beside it: then it is the normalizer the flash and online
/// softmax patterns fuse with its max, instead of a second pass over the
/// row recomputing every x.
struct SplitSoftmaxNormalizer : OpRewritePattern<FoldOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FoldOp fold,
                                PatternRewriter &rewriter) const override {
    unsigned n = fold.getNumResults();
    for (unsigned i = 0; n > 1 && i < n; ++i) {
      if (!matchNormalizerComponent(fold, i))
        continue;
      FoldOp sum = foldComponents(rewriter, fold, {i});
      replaceComponent(rewriter, fold, i, sum.getResult(0));
      return success();
    }
    return rewriter.notifyMatchFailure(fold, "no normalizer among others");
  }
};

struct TileIRFuseFoldsPass
    : strata::tileir::impl::TileIRFuseFoldsPassBase<TileIRFuseFoldsPass> {
  void runOnOperation() override {
    // Components folded twice go, and a normalizer sharing a fold with
    // other sums leaves it, first: alone, it is the sum the patterns below
    // fuse with its max.
    RewritePatternSet split(&getContext());
    split.add<SharedFoldComponent, SplitSoftmaxNormalizer>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(split))))
      return signalPassFailure();
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
  patterns.add<SharedFoldComponent, OnlineSoftmax, Welford>(
      patterns.getContext());
}
