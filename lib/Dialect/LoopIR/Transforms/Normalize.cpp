// loopir-normalize: one canonical form for the same loop math. A reduction
// runs over one index; invariant computation is hoisted (out of reductions,
// and out of the inner dimensions of parallel nests), identical reductions
// are merged, and divisions by
// invariants become multiplications by reciprocals. pow by a constant
// becomes PyTorch's arithmetic for it (PowByConstant.cpp).

#include "Reindex.h"
#include "strata/Dialect/LoopIR/Analysis/AffineRange.h"
#include "strata/Dialect/LoopIR/Analysis/IndexDependence.h"
#include "strata/Dialect/LoopIR/Transforms/Passes.h"
#include "strata/Dialect/Utils/SameComputation.h"
#include "strata/Dialect/Utils/VerifyUtils.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

namespace strata::loopir {
#define GEN_PASS_DEF_LOOPIRNORMALIZEPASS
#include "strata/Dialect/LoopIR/Transforms/Passes.h.inc"
} // namespace strata::loopir

using namespace mlir;
using namespace strata;
using namespace strata::loopir;

namespace {

/// A load reads a buffer no store of its kernel writes: it can move.
bool isReadOnlyLoad(LoadOp load) {
  auto kernel = load->getParentOfType<KernelOp>();
  if (!kernel)
    return false;
  // The verifier forbids stores to input buffers: their loads need no look
  // at the users (a fused kernel's input buffer has thousands of loads, and
  // normalization asks this of each, again and again).
  if (auto arg = dyn_cast<BlockArgument>(load.getMemref());
      arg && arg.getOwner() == &kernel.getBody().front() &&
      arg.getArgNumber() < kernel.getInputs().size())
    return true;
  // The buffer's users, not a walk of the kernel: normalization asks this
  // of every load, and a fused kernel of a chain of activations holds
  // thousands (a walk each took 13 s of a 14 s compile).
  return llvm::none_of(load.getMemref().getUsers(), [&](Operation *user) {
    return isa<StoreOp>(user) && kernel->isAncestor(user);
  });
}

/// Ops that may move to another place in the same kernel: pure ops, loads of
/// read-only buffers, and reductions made of those.
bool isMovable(Operation *op) {
  if (isa<StoreOp, ParallelOp, YieldOp>(op))
    return false;
  if (auto load = dyn_cast<LoadOp>(op))
    return isReadOnlyLoad(load);
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    bool movable = true;
    reduce.getBody().walk([&](Operation *inner) {
      if (inner != reduce && !isa<YieldOp>(inner) && !isMovable(inner))
        movable = false;
    });
    return movable;
  }
  return op->getNumRegions() == 0 && isPure(op);
}

/// The values an op uses, including those its regions use from outside.
/// With `onlyComputedWith`, without the indices a load or store lists but
/// its map never reads (fusion leaves them until DropUnusedIndices drops
/// them): they decide no value, so they say nothing about which loops `op`
/// depends on, but they still tie it to where they are defined, so code
/// that moves ops asks for all.
SmallVector<Value> usedValues(Operation *op, bool onlyComputedWith = false) {
  // The walk visits `op` itself, so its own operands are included.
  SmallVector<Value> values;
  op->walk([&](Operation *inner) {
    auto readsIndex = [&](auto access, unsigned operand) {
      // The indices are the access's last operands (counted from the end:
      // the empty range of a rank-0 buffer's access has no first operand,
      // and asking it read past the op's operands).
      unsigned first = inner->getNumOperands() - access.getIndices().size();
      return operand < first || access.readsIndex(operand - first);
    };
    for (OpOperand &operand : inner->getOpOperands()) {
      Value v = operand.get();
      if (op->isAncestor(v.getParentBlock()->getParentOp()))
        continue;
      unsigned i = operand.getOperandNumber();
      if (onlyComputedWith) {
        if (auto load = dyn_cast<LoadOp>(inner); load && !readsIndex(load, i))
          continue;
        if (auto store = dyn_cast<StoreOp>(inner);
            store && !readsIndex(store, i))
          continue;
      }
      values.push_back(v);
    }
  });
  return values;
}

/// Whether `v` is defined inside `region` (or is one of its arguments).
bool definedIn(Value v, Region &region) {
  return region.isAncestor(v.getParentRegion());
}

/// A movable op without regions equal to an earlier one in its block (same
/// operands) is that one. Sibling reductions, fusion's clones of one
/// producer, hoist the same invariants; merging the copies as they appear
/// keeps equal reductions equal so that they merge too (CSE after the pass
/// would come too late for that).
struct MergeEqualValues : RewritePattern {
  MergeEqualValues(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (op->getNumRegions() != 0 || op->getNumResults() == 0 ||
        !op->getParentOfType<KernelOp>() || !isMovable(op))
      return failure();
    for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode())
      if (prev->getNumRegions() == 0 &&
          OperationEquivalence::isEquivalentTo(
              op, prev, OperationEquivalence::IgnoreLocations)) {
        rewriter.replaceOp(op, prev->getResults());
        return success();
      }
    return failure();
  }
};

/// Moves invariant ops of a reduction's body in front of the reduction.
struct HoistOutOfReduce : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp reduce,
                                PatternRewriter &rewriter) const override {
    Region &body = reduce.getBody();
    for (Operation &op : body.front().without_terminator()) {
      if (!isMovable(&op))
        continue;
      bool invariant = llvm::none_of(usedValues(&op), [&](Value v) {
        return definedIn(v, body);
      });
      if (!invariant)
        continue;
      rewriter.modifyOpInPlace(reduce, [&] { op.moveBefore(reduce); });
      return success();
    }
    return failure();
  }
};

/// Whether access `op` (a load or store) computes with its index `index`:
/// its map reads it (or a load's guard does).
bool accessReadsIndex(Operation *op, unsigned index) {
  if (auto load = dyn_cast<LoadOp>(op))
    return load.readsIndex(index);
  return cast<StoreOp>(op).readsIndex(index);
}

/// A reduction over a box of several indices folds its points in row-major
/// order; over one index of the box's size it folds the same points in the
/// same order (an arg-reduction's position is the same row-major position).
/// The schedules take one index (a row, a contraction's k): the box's
/// indices become that index delinearized, composed into the maps (a group
/// norm's statistics over (channels of a group, pixels) are one row).
struct CollapseReductionBox : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp reduce,
                                PatternRewriter &rewriter) const override {
    ArrayRef<int64_t> bounds = reduce.getBounds();
    if (bounds.size() <= 1)
      return failure();
    MLIRContext *ctx = getContext();
    int64_t points = computeProduct(bounds);
    SmallVector<AffineExpr> old;
    AffineExpr k = getAffineDimExpr(0, ctx);
    int64_t stride = points;
    for (auto [i, bound] : llvm::enumerate(bounds)) {
      stride /= bound;
      AffineExpr q = k.floorDiv(stride);
      old.push_back(i == 0 ? q : q % bound);
    }
    rewriter.setInsertionPoint(reduce);
    auto collapsed = ReduceOp::create(
        rewriter, reduce.getLoc(), reduce.getResultTypes(),
        reduce.getCombiners().getValue(), ArrayRef<int64_t>{points});
    moveBodyReindexed(rewriter, reduce.getBody().front(),
                      collapsed.getBody().front(), old);
    rewriter.replaceOp(reduce, collapsed.getResults());
    return success();
  }
};

/// `reduce max/min : f16` as `truncf(reduce max/min : f32 { extf })`: the
/// same value (widening is exact, the extremum of the widened elements is
/// the widened extremum, and it truncates back exactly; NaN stays NaN),
/// one form for extrema of every float width, and one the row schedule
/// shares among a block's threads (its shuffles move 32 and 64 bits: a
/// softmax's max in halves took the generic schedule, a thread per row).
struct WidenHalfExtremum : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp reduce,
                                PatternRewriter &rewriter) const override {
    SmallVector<Combiner> combiners = reduce.getCombinerList();
    // One result per combiner (an arg-reduction gives two).
    if (combiners.size() != reduce.getNumResults())
      return failure();
    auto isHalf = [](Type t) { return t.isF16() || t.isBF16(); };
    Type f32 = rewriter.getF32Type();
    SmallVector<Type> wide;
    for (auto [c, t] : llvm::zip(combiners, reduce.getResultTypes()))
      wide.push_back(
          (c == Combiner::max || c == Combiner::min) && isHalf(t) ? f32 : t);
    if (TypeRange(wide) == reduce.getResultTypes())
      return failure();
    Location loc = reduce.getLoc();
    rewriter.setInsertionPoint(reduce);
    auto widened =
        ReduceOp::create(rewriter, loc, wide, reduce.getCombiners().getValue(),
                         reduce.getBounds());
    Block &body = widened.getBody().front();
    rewriter.mergeBlocks(&reduce.getBody().front(), &body, body.getArguments());
    Operation *yield = body.getTerminator();
    rewriter.setInsertionPoint(yield);
    for (auto [value, type] : llvm::zip(yield->getOpOperands(), wide))
      if (value.get().getType() != type) {
        Value extended =
            arith::ExtFOp::create(rewriter, loc, type, value.get());
        rewriter.modifyOpInPlace(yield, [&] { value.set(extended); });
      }
    rewriter.setInsertionPointAfter(widened);
    SmallVector<Value> results;
    for (auto [old, now] : llvm::zip(reduce.getResults(), widened.getResults()))
      results.push_back(
          old.getType() == now.getType()
              ? Value(now)
              : arith::TruncFOp::create(rewriter, loc, old.getType(), now));
    rewriter.replaceOp(reduce, results);
    return success();
  }
};

/// The points a loop visits, its nested loops' included: how much work a
/// reduction is (attention's max over keys of q . k: keys x (1 + head dim)).
double loopWork(Operation *loop) {
  double inner = 1;
  for (Operation &op : loop->getRegion(0).front())
    if (getLoopBox(&op))
      inner += loopWork(&op);
  return static_cast<double>(computeProduct(*getLoopBox(loop))) * inner;
}

/// Splits `parallel (i..., j...)` into `parallel (i...) { parallel (j...) }`
/// when a reduction in its body depends only on some indices i, so that the
/// reduction (and everything else depending only on i) runs once per i.
/// Where the indices j are not the last ones, the split reorders the nest
/// (the schedules make rows of the outer nest and loops of the inner one),
/// so it is made only where the reductions it hoists cost more per point
/// than those that move into the inner nest: a row statistic too cheap to
/// matter (SDPA's `any` of a mask shared by the heads: keys, beside the
/// heads' max and sum of q . k: keys x head dim) stays computed per row
/// instead of turning the heads into a loop of one thread; recomputing it
/// at most doubles what each point costs anyway.
struct SplitParallelNest : OpRewritePattern<ParallelOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ParallelOp nest,
                                PatternRewriter &rewriter) const override {
    Block &body = nest.getBody().front();
    unsigned rank = nest.getBounds().size();
    IndexDependence dependence(body);
    std::optional<llvm::SmallDenseSet<unsigned>> outer;
    for (Operation &op : body.without_terminator()) {
      if (!isa<ReduceOp>(op) || !isMovable(&op))
        continue;
      auto deps = dependence.of(&op);
      if (deps.size() < rank && splitPays(nest, deps, dependence)) {
        outer = deps;
        break;
      }
    }
    if (!outer)
      return failure();
    SmallVector<unsigned> outerDims, innerDims;
    for (unsigned d = 0; d < rank; ++d)
      (outer->contains(d) ? outerDims : innerDims).push_back(d);
    auto boundsOf = [&](ArrayRef<unsigned> dims) {
      SmallVector<int64_t> bounds;
      for (unsigned d : dims)
        bounds.push_back(nest.getBounds()[d]);
      return bounds;
    };
    Location loc = nest.getLoc();
    rewriter.setInsertionPoint(nest);
    auto outerNest = ParallelOp::create(rewriter, loc, boundsOf(outerDims));
    rewriter.setInsertionPoint(outerNest.getBody().front().getTerminator());
    auto innerNest = ParallelOp::create(rewriter, loc, boundsOf(innerDims));
    IRMapping map;
    for (auto [i, d] : llvm::enumerate(outerDims))
      map.map(body.getArgument(d), outerNest.getInductionVars()[i]);
    for (auto [i, d] : llvm::enumerate(innerDims))
      map.map(body.getArgument(d), innerNest.getInductionVars()[i]);
    for (Operation &op : body.without_terminator()) {
      bool hoist = isMovable(&op) &&
                   llvm::all_of(dependence.of(&op),
                                [&](unsigned d) { return outer->contains(d); });
      rewriter.setInsertionPoint(hoist ? innerNest.getOperation()
                                       : innerNest.getBody().front().getTerminator());
      rewriter.clone(op, map);
    }
    rewriter.eraseOp(nest);
    return success();
  }

  /// Whether splitting `nest` with `outer` its outer indices pays: where
  /// they are its first indices the nest keeps its order, and the
  /// reductions that depend only on them run once per outer point instead
  /// of once per point; otherwise only where those reductions cost more
  /// per point than the ones (and the loops) that stay per point in the
  /// inner nest.
  static bool splitPays(ParallelOp nest,
                        const llvm::SmallDenseSet<unsigned> &outer,
                        IndexDependence &dependence) {
    if (llvm::all_of(outer, [&](unsigned d) { return d < outer.size(); }))
      return true;
    double hoisted = 0, nested = 0;
    for (Operation &op : nest.getBody().front()) {
      if (!getLoopBox(&op))
        continue;
      bool hoists = isMovable(&op) &&
                    llvm::all_of(dependence.of(&op),
                                 [&](unsigned d) { return outer.contains(d); });
      (hoists ? hoisted : nested) += loopWork(&op);
    }
    return hoisted > nested;
  }
};

/// A reduction identical to an earlier one in the same block is merged.
struct MergeEqualReductions : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp reduce,
                                PatternRewriter &rewriter) const override {
    if (!isMovable(reduce))
      return failure();
    for (Operation *prev = reduce->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      auto other = dyn_cast<ReduceOp>(prev);
      if (!other || !OperationEquivalence::isEquivalentTo(
                        reduce, other, OperationEquivalence::IgnoreLocations))
        continue;
      rewriter.replaceOp(reduce, other.getResults());
      return success();
    }
    return failure();
  }
};

/// Independent reductions over the same box in one block share one pass:
/// `reduce add (k) {x}` and `reduce add (k) {x * x}` become
/// `reduce add, add (k) {x, x * x}`. The later one must not use the earlier
/// one's results; the merged reduction takes the later one's place, or the
/// earlier one's when something in between uses the earlier results.
struct MergeSiblingReductions : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp later,
                                PatternRewriter &rewriter) const override {
    if (!isMovable(later) || hasDuplicate(later))
      return failure();
    for (Operation *prev = later->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      auto earlier = dyn_cast<ReduceOp>(prev);
      if (!earlier || earlier.getBounds() != later.getBounds() ||
          !isMovable(earlier) || hasDuplicate(earlier))
        continue;
      Block *block = later->getBlock();
      // The merged reduction goes where the later one is, if nothing
      // between uses the earlier one's results ...
      bool usedBefore = llvm::any_of(earlier->getUsers(), [&](Operation *u) {
        Operation *top = block->findAncestorOpInBlock(*u);
        return !top || top == later.getOperation() ||
               top->isBeforeInBlock(later);
      });
      // ... or where the earlier one is, if the later one only uses values
      // defined before that.
      bool needsBetween = llvm::any_of(usedValues(later), [&](Value v) {
        Operation *def = v.getDefiningOp();
        Operation *top = def ? block->findAncestorOpInBlock(*def) : nullptr;
        return top && !top->isBeforeInBlock(earlier) &&
               !later->isAncestor(def);
      });
      bool usesEarlier = llvm::any_of(earlier->getUsers(), [&](Operation *u) {
        return later->isAncestor(u);
      });
      if (usesEarlier || (usedBefore && needsBetween) ||
          !sameLoopDependence(earlier, later))
        continue;
      merge(rewriter, earlier, later, usedBefore ? earlier : later);
      return success();
    }
    return failure();
  }

  /// Whether `a` and `b` (in one block) depend on the same loops around
  /// them: merged, a reduction that hoisting would move out of a loop (the
  /// statistics of a row, beside a product that depends on the loop's
  /// index) would run once per iteration of it. By the values they compute
  /// with: an index a load lists but does not read (before
  /// DropUnusedIndices) is no dependence (SDPA's row mask `any`, merged
  /// with P . V's sum through the vector index it ignores, was folded once
  /// per element of the output row).
  static bool sameLoopDependence(Operation *a, Operation *b) {
    for (Operation *loop = a->getParentOp(); isa<ReduceOp, ParallelOp>(loop);
         loop = loop->getParentOp()) {
      if (auto nest = dyn_cast<ParallelOp>(loop)) {
        IndexDependence dependence(nest.getBody().front(), {accessReadsIndex});
        if (dependence.of(a) != dependence.of(b))
          return false;
        continue;
      }
      Region &body = loop->getRegion(0);
      auto varies = [&](Operation *op) {
        return llvm::any_of(usedValues(op, /*onlyComputedWith=*/true),
                            [&](Value v) { return definedIn(v, body); });
      };
      if (varies(a) != varies(b))
        return false;
    }
    return true;
  }

  /// Identical reductions are merged first (MergeEqualReductions), so that
  /// a duplicate is never folded into an unrelated sibling.
  static bool hasDuplicate(ReduceOp op) {
    for (Operation &other : *op->getBlock())
      if (&other != op.getOperation() && isa<ReduceOp>(other) &&
          OperationEquivalence::isEquivalentTo(
              op, &other, OperationEquivalence::IgnoreLocations))
        return true;
    return false;
  }

  void merge(PatternRewriter &rewriter, ReduceOp earlier, ReduceOp later,
             ReduceOp at) const {
    Location loc = later.getLoc();
    SmallVector<Attribute> combiners(earlier.getCombiners().getValue());
    llvm::append_range(combiners, later.getCombiners().getValue());
    SmallVector<Type> types(earlier.getResultTypes());
    llvm::append_range(types, later.getResultTypes());
    rewriter.setInsertionPoint(at);
    auto merged =
        ReduceOp::create(rewriter, loc, types, combiners, later.getBounds());
    Block *body = &merged.getBody().front();
    rewriter.setInsertionPointToStart(body);
    SmallVector<Value> yielded;
    for (ReduceOp part : {earlier, later}) {
      IRMapping map;
      map.map(part.getInductionVars(), body->getArguments());
      Block &old = part.getBody().front();
      for (Operation &op : old.without_terminator())
        rewriter.clone(op, map);
      for (Value v : cast<YieldOp>(old.getTerminator()).getValues())
        yielded.push_back(map.lookupOrDefault(v));
    }
    YieldOp::create(rewriter, loc, yielded);
    unsigned n = earlier.getNumResults();
    rewriter.replaceOp(earlier, merged.getResults().take_front(n));
    rewriter.replaceOp(later, merged.getResults().drop_front(n));
  }
};

/// A reduction that folds the same contribution with the same combiner
/// twice (fusion feeding one reduction to two consumers, then a sibling
/// merge) keeps one: `reduce add, add (k) {x, x}` becomes `reduce add (k)
/// {x}`, whose result serves both uses.
struct DropDuplicateContributions : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp reduce,
                                PatternRewriter &rewriter) const override {
    SmallVector<Combiner> combiners = reduce.getCombinerList();
    if (llvm::any_of(combiners, ReduceOp::isArgCombiner))
      return failure(); // Results are one per combiner only without these.
    if (!reduce.getBody().getOps<StoreOp>().empty())
      return failure();
    Block &body = reduce.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    auto same = [&](Value a, Value b) {
      return isSameComputation(a, b, body, body);
    };
    // The first combiner folding the same contribution, per combiner.
    SmallVector<unsigned> first;
    bool duplicate = false;
    for (unsigned i = 0; i < combiners.size(); ++i) {
      first.push_back(i);
      for (unsigned j = 0; j < i; ++j)
        if (first[j] == j && combiners[j] == combiners[i] &&
            same(yield.getValues()[j], yield.getValues()[i])) {
          first[i] = j;
          duplicate = true;
          break;
        }
    }
    if (!duplicate)
      return failure();
    SmallVector<Attribute> kept;
    SmallVector<Type> types;
    SmallVector<Value> contributions;
    SmallVector<unsigned> position(combiners.size());
    for (unsigned i = 0; i < combiners.size(); ++i) {
      if (first[i] != i)
        continue;
      position[i] = kept.size();
      kept.push_back(reduce.getCombiners()[i]);
      types.push_back(reduce.getResult(i).getType());
      contributions.push_back(yield.getValues()[i]);
    }
    rewriter.setInsertionPoint(reduce);
    auto merged = ReduceOp::create(rewriter, reduce.getLoc(), types, kept,
                                   reduce.getBounds());
    Block *mergedBody = &merged.getBody().front();
    rewriter.setInsertionPointToStart(mergedBody);
    IRMapping map;
    map.map(reduce.getInductionVars(), mergedBody->getArguments());
    for (Operation &op : body.without_terminator())
      rewriter.clone(op, map);
    SmallVector<Value> yielded;
    for (Value v : contributions)
      yielded.push_back(map.lookupOrDefault(v));
    YieldOp::create(rewriter, reduce.getLoc(), yielded);
    SmallVector<Value> results;
    for (unsigned i = 0; i < combiners.size(); ++i)
      results.push_back(merged.getResult(position[first[i]]));
    rewriter.replaceOp(reduce, results);
    return success();
  }
};

/// The innermost loop (parallel or reduction) around `op`, if any.
Operation *enclosingLoop(Operation *op) {
  for (Operation *p = op->getParentOp(); p && !isa<KernelOp>(p);
       p = p->getParentOp())
    if (isa<ParallelOp, ReduceOp>(p))
      return p;
  return nullptr;
}

/// x / y with y invariant in the innermost loop around the division becomes
/// x * (1 / y), the reciprocal computed once where y is.
struct DivisionByInvariant : OpRewritePattern<arith::DivFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::DivFOp div,
                                PatternRewriter &rewriter) const override {
    Operation *loop = enclosingLoop(div);
    Value y = div.getRhs();
    if (!loop || definedIn(y, loop->getRegion(0)))
      return failure();
    if (auto c = y.getDefiningOp<arith::ConstantOp>()) // 1 / 1.0 and such
      if (c == div.getLhs().getDefiningOp())
        return failure();
    rewriter.setInsertionPointAfterValue(y);
    Value one = arith::ConstantOp::create(rewriter, div.getLoc(),
                                          rewriter.getFloatAttr(y.getType(), 1.0));
    Value reciprocal = arith::DivFOp::create(rewriter, div.getLoc(), one, y);
    rewriter.setInsertionPoint(div);
    rewriter.replaceOpWithNewOp<arith::MulFOp>(div, div.getLhs(), reciprocal);
    return success();
  }
};

/// An access lists only the indices its map reads: fusion leaves indices the
/// composed map ignores, and they would hide which loops it depends on.
template <typename AccessOp>
struct DropUnusedIndices : OpRewritePattern<AccessOp> {
  using OpRewritePattern<AccessOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(AccessOp op,
                                PatternRewriter &rewriter) const override {
    MLIRContext *ctx = op.getContext();
    SmallVector<Value> kept;
    SmallVector<AffineExpr> substitution;
    for (auto [d, index] : llvm::enumerate(op.getIndices())) {
      if (!op.readsIndex(d)) { // Never read: any expression will do.
        substitution.push_back(getAffineConstantExpr(0, ctx));
        continue;
      }
      substitution.push_back(getAffineDimExpr(kept.size(), ctx));
      kept.push_back(index);
    }
    if (kept.size() == op.getIndices().size())
      return failure();
    rewriter.modifyOpInPlace(op, [&] { op.reindex(kept, substitution); });
    return success();
  }
};

/// Simplifies an access map using the bounds of the loops whose indices it
/// reads, when all its indices are loop indices.
template <typename AccessOp>
struct SimplifyWithLoopBounds : OpRewritePattern<AccessOp> {
  using OpRewritePattern<AccessOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(AccessOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getMap())
      return failure();
    AffineMap map = op.getIndexMap();
    AffineMap simplified = simplifyWithLoopBounds(map, op.getIndices());
    if (simplified == map)
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      op.setMapAttr(getIndexMapAttr(simplified));
    });
    return success();
  }
};


/// A guard's constraints that hold at every point of the loops go (a pad
/// whose padding the loops never reach guards nothing); a load whose guard
/// fails everywhere is its padding.
struct SimplifyGuard : OpRewritePattern<LoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LoadOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<IntegerSet> guard = op.getGuard();
    if (!guard)
      return failure();
    std::optional<SmallVector<int64_t>> bounds = loopBounds(op.getIndices());
    if (!bounds)
      return failure();
    SmallVector<AffineExpr> kept;
    SmallVector<bool> keptEq;
    for (auto [e, isEq] :
         llvm::zip(guard->getConstraints(), guard->getEqFlags())) {
      AffineRange r = simplifyInRange(e, *bounds);
      bool always = isEq ? (r.lo == 0 && r.hi == 0) : r.lo >= 0;
      bool never = isEq ? (r.lo > 0 || r.hi < 0) : r.hi < 0;
      if (never) {
        rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, op.getPaddingAttr());
        return success();
      }
      if (!always) {
        kept.push_back(e);
        keptEq.push_back(isEq);
      }
    }
    if (kept.size() == guard->getNumConstraints())
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      if (kept.empty()) {
        op.removeGuardAttr();
        op.removePaddingAttr();
        return;
      }
      op.setGuardAttr(IntegerSetAttr::get(
          IntegerSet::get(guard->getNumDims(), 0, kept, keptEq)));
    });
    return success();
  }
};

struct LoopIRNormalizePass
    : strata::loopir::impl::LoopIRNormalizePassBase<LoopIRNormalizePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateNormalizePatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void strata::loopir::populateSimplifyAccessPatterns(
    RewritePatternSet &patterns) {
  patterns.add<DropUnusedIndices<LoadOp>, DropUnusedIndices<StoreOp>,
               SimplifyWithLoopBounds<LoadOp>, SimplifyWithLoopBounds<StoreOp>,
               SimplifyGuard>(patterns.getContext());
}

void strata::loopir::populateNormalizePatterns(RewritePatternSet &patterns) {
  patterns.add<CollapseReductionBox, WidenHalfExtremum, HoistOutOfReduce,
               SplitParallelNest, MergeEqualValues, MergeEqualReductions,
               MergeSiblingReductions, DropDuplicateContributions,
               DivisionByInvariant>(patterns.getContext());
  populateSimplifyAccessPatterns(patterns);
  populatePowByConstantPatterns(patterns);
  // One buffer per distinct input, so that loads of it compare equal.
  KernelOp::getCanonicalizationPatterns(patterns, patterns.getContext());
  // A nest of one point (what splitting a nest leaves of a row) is its
  // body, so that the reductions in it are siblings of the row's others.
  ParallelOp::getCanonicalizationPatterns(patterns, patterns.getContext());
}
