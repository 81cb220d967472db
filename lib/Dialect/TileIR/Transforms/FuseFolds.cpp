// tileir-fuse-folds: dependent folds of one row in one pass, as a fold over
// a composite monoid (see Passes.td). Online softmax: the max m of x and
// the sum of exp(x - m) become one fold over (max, sum) whose combination
// rescales each partial sum to the combined maximum.

#include "strata/Dialect/TileIR/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <functional>

namespace strata::tileir {
#define GEN_PASS_DEF_TILEIRFUSEFOLDSPASS
#include "strata/Dialect/TileIR/Transforms/Passes.h.inc"
} // namespace strata::tileir

using namespace mlir;
using namespace strata;
using namespace strata::tileir;

namespace {

/// A single-monoid f32 fold with combiner `combiner`.
bool isSingle(FoldOp fold, Combiner combiner) {
  return fold.getCombinerList() == SmallVector<Combiner>{combiner} &&
         fold.getResult(0).getType().isF32();
}

/// Whether `a` (in `first`'s body) and `b` (in `second`'s) are computed the
/// same way from the same outside values, the bodies' indices matching.
bool sameComputation(Value a, Value b, Block &first, Block &second) {
  std::function<bool(Value, Value)> same = [&](Value x, Value y) {
    if (x == y)
      return x.getParentBlock() != &first; // Shared outside values.
    if (auto ax = dyn_cast<BlockArgument>(x)) {
      auto ay = dyn_cast<BlockArgument>(y);
      return ay && ax.getOwner() == &first && ay.getOwner() == &second &&
             ax.getArgNumber() == ay.getArgNumber();
    }
    Operation *dx = x.getDefiningOp(), *dy = y.getDefiningOp();
    if (!dx || !dy || dx->getBlock() != &first || dy->getBlock() != &second ||
        dx->getNumRegions() != 0 || dy->getNumRegions() != 0)
      return false;
    return OperationEquivalence::isEquivalentTo(
        dx, dy, [&](Value p, Value q) { return success(same(p, q)); },
        nullptr, OperationEquivalence::IgnoreLocations);
  };
  return same(a, b);
}

/// Builds online softmax's combination of (m1, s1) and (m2, s2):
/// m = max(m1, m2), s = s1 * scale(m1) + s2 * scale(m2), where scale(mi)
/// is exp(mi - m), or 1 where mi is m (so that -inf maxima give sums, not
/// NaN from -inf - -inf).
void buildOnlineSoftmaxCombine(OpBuilder &b, Location loc, Region &region) {
  Type f32 = b.getF32Type();
  Block *block = b.createBlock(&region, {}, {f32, f32, f32, f32},
                               SmallVector<Location>(4, loc));
  Value m1 = block->getArgument(0), s1 = block->getArgument(1),
        m2 = block->getArgument(2), s2 = block->getArgument(3);
  Value m = arith::MaximumFOp::create(b, loc, m1, m2);
  Value one = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0));
  auto scale = [&](Value mi) -> Value {
    Value same = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, mi, m);
    Value e = math::ExpOp::create(b, loc, arith::SubFOp::create(b, loc, mi, m));
    return arith::SelectOp::create(b, loc, same, one, e);
  };
  Value s = arith::AddFOp::create(
      b, loc, arith::MulFOp::create(b, loc, s1, scale(m1)),
      arith::MulFOp::create(b, loc, s2, scale(m2)));
  YieldOp::create(b, loc, ValueRange{m, s});
}

/// %s = fold add { exp(x' - %m) } after %m = fold max { x }, x' computed as
/// x is: one composite fold of (x, 1) over (max, sum).
struct OnlineSoftmax : OpRewritePattern<FoldOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FoldOp sum,
                                PatternRewriter &rewriter) const override {
    if (!isSingle(sum, Combiner::add))
      return rewriter.notifyMatchFailure(sum, "not an f32 sum");
    Block &sumBody = sum.getBody().front();
    auto exp = sumBody.getTerminator()->getOperand(0).getDefiningOp<math::ExpOp>();
    auto diff = exp ? exp.getOperand().getDefiningOp<arith::SubFOp>() : nullptr;
    auto max = diff ? diff.getRhs().getDefiningOp<FoldOp>() : nullptr;
    if (!max || !isSingle(max, Combiner::max) ||
        max.getBounds() != sum.getBounds() ||
        max->getBlock() != sum->getBlock())
      return rewriter.notifyMatchFailure(sum, "not a sum of exp(x - max)");
    Block &maxBody = max.getBody().front();
    Value x = maxBody.getTerminator()->getOperand(0);
    if (!sameComputation(x, diff.getLhs(), maxBody, sumBody))
      return rewriter.notifyMatchFailure(sum, "the sum's x is another value");

    Location loc = sum.getLoc();
    rewriter.setInsertionPoint(max);
    Type f32 = rewriter.getF32Type();
    OperationState state(loc, CompositeFoldOp::getOperationName());
    state.addAttribute("identities",
                       rewriter.getArrayAttr(
                           {max.getIdentities()[0], sum.getIdentities()[0]}));
    state.addAttribute("bounds", rewriter.getDenseI64ArrayAttr(max.getBounds()));
    state.addTypes({f32, f32});
    Region *body = state.addRegion();
    Region *combine = state.addRegion();
    {
      OpBuilder::InsertionGuard guard(rewriter);
      IRMapping mapping;
      Block *block = rewriter.createBlock(
          body, {}, maxBody.getArgumentTypes(),
          SmallVector<Location>(maxBody.getNumArguments(), loc));
      mapping.map(maxBody.getArguments(), block->getArguments());
      for (Operation &op : maxBody.without_terminator())
        rewriter.clone(op, mapping);
      Value one = arith::ConstantOp::create(rewriter, loc,
                                            rewriter.getF32FloatAttr(1.0));
      YieldOp::create(rewriter, loc,
                      ValueRange{mapping.lookupOrDefault(x), one});
      buildOnlineSoftmaxCombine(rewriter, loc, *combine);
    }
    Operation *fused = rewriter.create(state);
    rewriter.replaceOp(sum, fused->getResult(1));
    rewriter.replaceOp(max, fused->getResult(0));
    return success();
  }
};

struct TileIRFuseFoldsPass
    : strata::tileir::impl::TileIRFuseFoldsPassBase<TileIRFuseFoldsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFuseFoldsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void strata::tileir::populateFuseFoldsPatterns(RewritePatternSet &patterns) {
  patterns.add<OnlineSoftmax>(patterns.getContext());
}
