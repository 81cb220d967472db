// Attention's output row as one fold (part of tileir-fuse-folds).
//
// A row program that computes softmax(x) . V for its row folds three times
// over the row's points j: the max m of x_j, the sum l of exp(x_j - m),
// and, for each element e of the output row, the sum of
// exp(x_j - m) * c * w_e(j) (c a row constant such as 1 / l, w_e the value
// V[j, e]). The last needs the whole row's m before it starts. Online
// softmax folds all of them at once: the monoid is (m, l, a_1..a_n), each
// sum rescaled to the new maximum when two partial folds combine, and a
// point contributes (x_j, 1, w_1(j), ..., w_n(j)); the output is a_e * c.
// x_j (the q . k of the point, scale and mask) is computed once per point
// and the row of scores never exists anywhere: flash attention, as a fold.

#include "RowFolds.h"
#include "strata/Dialect/TileIR/IR/CompositeMonoids.h"
#include "strata/Dialect/TileIR/Transforms/Passes.h"
#include "strata/Dialect/Utils/SameComputation.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

#include <limits>

using namespace mlir;
using namespace strata;
using namespace strata::tileir;

namespace {

/// Whether `fold` folds only f32 sums.
bool isF32Sums(FoldOp fold) {
  return llvm::all_of(fold.getCombinerList(),
                      [](Combiner c) { return c == Combiner::add; }) &&
         llvm::all_of(fold.getResultTypes(), [](Type t) { return t.isF32(); });
}

/// `v` without a rounding to a narrower float and back (extf(truncf(u)),
/// u of v's type, in `body`): a weight that a softmax in halves rounds
/// before P . V (loopir-fuse makes such a row a flash row only where few
/// rows share the values). Online softmax cannot round a weight it has
/// not normalized yet; it sums it unrounded, as PyTorch's fused attention
/// kernels do, and the result rounds once where it is stored.
Value withoutRoundTrip(Value v, Block &body) {
  auto ext = v.getDefiningOp<arith::ExtFOp>();
  auto trunc =
      ext ? ext.getIn().getDefiningOp<arith::TruncFOp>() : arith::TruncFOp();
  if (!trunc || trunc->getBlock() != &body ||
      trunc.getIn().getType() != v.getType())
    return v;
  return trunc.getIn();
}

/// The factors of the product tree `v` (arith.mulf ops of `body`), through
/// roundings of a product to a half and back.
void collectFactors(Value v, Block &body, SmallVectorImpl<Value> &factors) {
  Value unrounded = withoutRoundTrip(v, body);
  auto mul = unrounded.getDefiningOp<arith::MulFOp>();
  if (mul && mul->getBlock() == &body) {
    collectFactors(mul.getLhs(), body, factors);
    collectFactors(mul.getRhs(), body, factors);
    return;
  }
  factors.push_back(unrounded.getDefiningOp<math::ExpOp>() ? unrounded : v);
}

struct FlashAccumulate : OpRewritePattern<FoldOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FoldOp weighted,
                                PatternRewriter &rewriter) const override {
    if (!isF32Sums(weighted))
      return rewriter.notifyMatchFailure(weighted, "not f32 sums");
    Block &body = weighted.getBody().front();
    Block *block = weighted->getBlock();
    auto inBody = [&](Value v) {
      return weighted.getBody().isAncestor(v.getParentRegion());
    };
    // Every contribution is exp(x - m) (one value) times other factors.
    Value exp;
    FoldOp max;
    Value x;
    SmallVector<SmallVector<Value>> inner, outer; // Per sum.
    for (Value contribution : body.getTerminator()->getOperands()) {
      SmallVector<Value> factors;
      collectFactors(contribution, body, factors);
      SmallVector<Value> in, out;
      bool found = false;
      for (Value f : factors) {
        if (!found && !exp)
          if (auto scaled = matchScaledExp(f, weighted)) {
            std::tie(max, x) = *scaled;
            exp = f;
          }
        if (!found && f == exp) {
          found = true;
          continue;
        }
        (inBody(f) ? in : out).push_back(f);
      }
      if (!found)
        return rewriter.notifyMatchFailure(
            weighted, "a sum is not weighted by exp(x - max)");
      inner.push_back(in);
      outer.push_back(out);
    }
    Block &maxBody = max.getBody().front();
    if (!isSameComputation(maxBody.getTerminator()->getOperand(0), x, maxBody,
                           body))
      return rewriter.notifyMatchFailure(weighted, "x is not the max's x");
    FoldOp sum = findNormalizer(max, weighted);

    // What moves into the composite fold: the weighted fold's body but
    // what depends on the folds it replaces, or on values defined after
    // the max (where the composite fold goes).
    llvm::SmallDenseSet<Value> tainted;
    for (FoldOp f : {max, sum})
      if (f)
        tainted.insert(f.getResults().begin(), f.getResults().end());
    auto usesTainted = [&](Operation *op) {
      WalkResult walk = op->walk([&](Operation *inside) {
        for (Value v : inside->getOperands()) {
          Operation *def = v.getDefiningOp();
          if (tainted.contains(v) ||
              (def && def->getBlock() == block && !def->isBeforeInBlock(max)))
            return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      return walk.wasInterrupted();
    };
    for (Operation &op : body.without_terminator())
      if (usesTainted(&op))
        tainted.insert(op.getResults().begin(), op.getResults().end());
    auto available = [&](Value v) { return !tainted.contains(v); };
    if (!available(x) || !llvm::all_of(inner, [&](auto &in) {
          return llvm::all_of(in, available);
        }))
      return rewriter.notifyMatchFailure(
          weighted, "the weights depend on the row's statistics");

    unsigned sums = weighted.getNumResults() + (sum ? 1 : 0);
    rewriter.setInsertionPoint(max);
    Location loc = weighted.getLoc();
    CompositeFoldOp fused = buildCompositeFold(
        rewriter, loc, onlineSoftmaxIdentity(rewriter, sums),
        weighted.getBounds(),
        [&](OpBuilder &b, Location loc, ValueRange ivs) {
          IRMapping point;
          point.map(body.getArguments(), ivs);
          for (Operation &op : body.without_terminator())
            if (llvm::none_of(op.getResults(),
                              [&](Value r) { return tainted.contains(r); }))
              b.clone(op, point);
          Value one = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0));
          SmallVector<Value> contribution = {point.lookupOrDefault(x)};
          if (sum)
            contribution.push_back(one);
          for (ArrayRef<Value> in : inner)
            contribution.push_back(product(b, loc, in, point, one));
          guardMaskedPoints(b, loc, contribution);
          return contribution;
        },
        combineOnlineSoftmax);

    rewriter.setInsertionPoint(weighted);
    SmallVector<Value> outputs;
    Value one =
        arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(1.0));
    Value m = fused.getResult(0);
    for (auto [i, out] : llvm::enumerate(outer)) {
      Value a = buildTwoPassSum(rewriter, loc, m,
                                fused.getResult(1 + (sum ? 1 : 0) + i));
      IRMapping none;
      Value c = product(rewriter, loc, out, none, one);
      outputs.push_back(
          out.empty() ? a
                      : arith::MulFOp::create(rewriter, loc, a, c).getResult());
    }
    rewriter.replaceOp(weighted, outputs);
    if (sum) {
      rewriter.setInsertionPointAfter(fused);
      rewriter.replaceOp(sum,
                         buildTwoPassSum(rewriter, loc, m, fused.getResult(1)));
    }
    rewriter.replaceOp(max, fused.getResult(0));
    return success();
  }

  /// Where the score is a mask's -inf (`select(masked, -inf, s)`, or the
  /// other way round, or an additive mask `s + select(masked, -inf, 0)`),
  /// the whole contribution becomes the monoid's identity (-inf, 0, ...,
  /// 0) instead of (-inf, 1, v...): the same fold (a -inf score's weight is
  /// 0 once any finite score is seen, and a row of only -inf is NaN by
  /// buildTwoPassSum either way) except that a masked key's NaN or
  /// infinite value, or a NaN or +inf q.k under an additive mask, no
  /// longer reaches the output (PyTorch's row would be NaN). It is what
  /// lets the schedule skip a chunk of keys masked for all the rows of a
  /// block (causal attention's future): a chunk of identities.
  static void guardMaskedPoints(OpBuilder &b, Location loc,
                                SmallVectorImpl<Value> &contribution) {
    auto isFloat = [](Value v, auto test) {
      FloatAttr c;
      return matchPattern(v, m_Constant(&c)) && test(c.getValue());
    };
    auto minusInf = [&](Value v) {
      return isFloat(
          v, [](const APFloat &f) { return f.isInfinity() && f.isNegative(); });
    };
    auto zero = [&](Value v) {
      return isFloat(v, [](const APFloat &f) { return f.isPosZero(); });
    };
    // The mask's condition, and whether it masks where it holds.
    auto maskOf = [&](Value v,
                      auto other) -> std::optional<std::pair<Value, bool>> {
      auto select = v.getDefiningOp<arith::SelectOp>();
      if (!select)
        return std::nullopt;
      if (minusInf(select.getTrueValue()) && other(select.getFalseValue()))
        return std::make_pair(select.getCondition(), true);
      if (minusInf(select.getFalseValue()) && other(select.getTrueValue()))
        return std::make_pair(select.getCondition(), false);
      return std::nullopt;
    };
    Value x = contribution[0];
    auto mask = maskOf(x, [](Value) { return true; });
    if (auto add = x.getDefiningOp<arith::AddFOp>(); !mask && add) {
      for (Value term : {add.getLhs(), add.getRhs()})
        if (!mask)
          mask = maskOf(term, zero);
      if (mask) {
        Value inf = arith::ConstantOp::create(
            b, loc, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
        contribution[0] =
            arith::SelectOp::create(b, loc, mask->first, mask->second ? inf : x,
                                    mask->second ? x : inf);
      }
    }
    if (!mask)
      return;
    auto [condition, whenTrue] = *mask;
    Value z = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
    for (Value &c : llvm::drop_begin(contribution))
      c = arith::SelectOp::create(b, loc, condition, whenTrue ? z : c,
                                  whenTrue ? c : z);
  }

  /// The product of `factors` (mapped) at the builder, or `one`.
  static Value product(OpBuilder &b, Location loc, ArrayRef<Value> factors,
                       IRMapping &mapping, Value one) {
    Value result;
    for (Value f : factors) {
      Value v = mapping.lookupOrDefault(f);
      result =
          result ? arith::MulFOp::create(b, loc, result, v).getResult() : v;
    }
    return result ? result : one;
  }

  /// Softmax's normalizer of `max` between it and `weighted`, which joins
  /// the composite fold; null if there is none.
  static FoldOp findNormalizer(FoldOp max, FoldOp weighted) {
    for (Operation *op = max->getNextNode(); op && op != weighted;
         op = op->getNextNode())
      if (auto sum = dyn_cast<FoldOp>(op);
          sum && matchSoftmaxNormalizer(sum) == max)
        return sum;
    return nullptr;
  }
};

} // namespace

void strata::tileir::populateFlashAccumulatePatterns(
    RewritePatternSet &patterns) {
  patterns.add<FlashAccumulate>(patterns.getContext());
}
