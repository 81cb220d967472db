// Row vectors in the row schedule: an inner parallel loop of a row whose
// iterations each reduce the same row (an attention head's output, a
// matrix-vector product's columns) folds all of its sums in one pass.
//
// As a tileir.distribute, each thread would take some iterations and fold
// the whole row for each, computing the part of a contribution that does
// not depend on the iteration (the attention weight exp(q.k - m) / l) once
// per iteration. As one tileir.fold with a monoid per iteration, the
// threads share the row and each computes that part once per point.

#include "TileKernelBuilder.h"
#include "strata/Dialect/Utils/LoopBox.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"

using namespace mlir;
using namespace strata;

namespace {

/// Whether `op` uses (in its operands or regions) a value in `values`.
bool usesAny(Operation *op, const llvm::SmallDenseSet<Value> &values) {
  WalkResult walk = op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      if (values.contains(v))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return walk.wasInterrupted();
}

/// Whether `reduce` (in the row vector `loop`) uses a maximum over its own
/// points that the row folds before the vector: online softmax's weights,
/// attention's output row.
bool normalizesByRowMaximum(loopir::ParallelOp loop, loopir::ReduceOp reduce) {
  WalkResult found = reduce.getBody().walk([&](Operation *op) {
    for (Value v : op->getOperands()) {
      auto max = v.getDefiningOp<loopir::ReduceOp>();
      if (max && max->getBlock() == loop->getBlock() &&
          max.getBounds() == reduce.getBounds() &&
          llvm::is_contained(max.getCombinerList(), loopir::Combiner::max))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found.wasInterrupted();
}

} // namespace

std::optional<loopir::ReduceOp>
strata::rowVectorReduction(loopir::ParallelOp loop) {
  if (computeProduct(loop.getBounds()) > kMaxFlashRowVectorLength)
    return std::nullopt;
  loopir::ReduceOp reduce;
  for (Operation &op : loop.getBody().front().without_terminator()) {
    if (isa<loopir::ParallelOp>(op))
      return std::nullopt;
    auto r = dyn_cast<loopir::ReduceOp>(op);
    if (!r)
      continue;
    if (reduce)
      return std::nullopt; // One pass over the row per vector.
    reduce = r;
  }
  // Longer vectors than a thread holds: only attention's output row, whose
  // lanes split the vector (kMaxFlashRowVectorLength).
  if (reduce && computeProduct(loop.getBounds()) > kMaxRowVectorLength &&
      !normalizesByRowMaximum(loop, reduce))
    return std::nullopt;
  // A short fold (a depthwise convolution's 25 taps per pixel) leaves the
  // block's threads idle: each thread takes iterations of the loop instead.
  if (reduce && computeProduct(reduce.getBounds()) < kMinRowLength)
    return std::nullopt;
  // Arg-reductions fold pairs, not one monoid per iteration.
  if (!reduce || !llvm::all_of(reduce.getCombinerList(), [](auto c) {
        return getFoldCombiner(c).has_value();
      }))
    return std::nullopt;
  if (!llvm::all_of(reduce.getResultTypes(), isShuffledType))
    return std::nullopt;
  // What the reduction uses of the loop's body before it must not depend
  // on the vector's index (it is computed once, before the fold).
  llvm::SmallDenseSet<Value> varying(loop.getInductionVars().begin(),
                                     loop.getInductionVars().end());
  llvm::SmallDenseSet<Value> varyingBefore;
  for (Operation &op : loop.getBody().front()) {
    if (&op == reduce.getOperation())
      break;
    if (usesAny(&op, varying)) {
      varying.insert(op.getResults().begin(), op.getResults().end());
      varyingBefore.insert(op.getResults().begin(), op.getResults().end());
    }
  }
  if (usesAny(reduce, varyingBefore))
    return std::nullopt;
  return reduce;
}

void strata::buildRowVectorFold(OpBuilder &b, loopir::ParallelOp loop,
                                loopir::ReduceOp reduce, IRMapping &mapping) {
  Location loc = loop.getLoc();
  ArrayRef<int64_t> bounds = loop.getBounds();
  int64_t length = computeProduct(bounds);
  SmallVector<tileir::Combiner> combiners;
  SmallVector<Type> types;
  for (int64_t e = 0; e < length; ++e)
    for (auto [c, t] :
         llvm::zip(reduce.getCombinerList(), reduce.getResultTypes())) {
      combiners.push_back(*getFoldCombiner(c));
      types.push_back(t);
    }
  // The vector's indices of iteration `e`, as constants at the builder.
  auto indicesOf = [&](int64_t e) {
    SmallVector<Value> indices;
    for (int64_t i : mlir::delinearize(e, computeSuffixProduct(bounds)))
      indices.push_back(arith::ConstantIndexOp::create(b, loc, i));
    return indices;
  };
  llvm::SmallDenseSet<Value> vectorIndices(loop.getInductionVars().begin(),
                                           loop.getInductionVars().end());
  // The loop's body before the reduction, where it does not depend on the
  // vector's index (rowVectorReduction checked that the reduction uses no
  // more), once before the fold.
  llvm::SmallPtrSet<Operation *, 8> before;
  {
    llvm::SmallDenseSet<Value> varying(vectorIndices);
    for (Operation &op : loop.getBody().front()) {
      if (&op == reduce.getOperation())
        break;
      if (usesAny(&op, varying)) {
        varying.insert(op.getResults().begin(), op.getResults().end());
        continue;
      }
      b.clone(op, mapping);
      before.insert(&op);
    }
  }

  auto fold =
      tileir::FoldOp::create(b, loc, combiners, types, reduce.getBounds());
  {
    OpBuilder::InsertionGuard guard(b);
    Block &source = reduce.getBody().front();
    b.setInsertionPointToStart(&fold.getBody().front());
    // What does not depend on the vector's index is computed once per
    // point; the rest once per iteration.
    IRMapping shared = mapping;
    shared.map(source.getArguments(), fold.getInductionVars());
    llvm::SmallDenseSet<Value> varying(vectorIndices);
    SmallVector<Operation *> perIteration;
    for (Operation &op : source.without_terminator()) {
      if (usesAny(&op, varying)) {
        perIteration.push_back(&op);
        varying.insert(op.getResults().begin(), op.getResults().end());
        continue;
      }
      b.clone(op, shared);
    }
    SmallVector<Value> contributions;
    for (int64_t e = 0; e < length; ++e) {
      IRMapping point = shared;
      point.map(loop.getInductionVars(), indicesOf(e));
      for (Operation *op : perIteration)
        b.clone(*op, point);
      for (Value v : source.getTerminator()->getOperands())
        contributions.push_back(point.lookupOrDefault(v));
    }
    tileir::YieldOp::create(b, loc, contributions);
  }
  // The rest of the loop's body (the write-back), once per iteration, as
  // uniform code of the row.
  size_t results = reduce.getNumResults();
  for (int64_t e = 0; e < length; ++e) {
    IRMapping point = mapping;
    point.map(loop.getInductionVars(), indicesOf(e));
    point.map(reduce.getResults(),
              fold.getResults().slice(e * results, results));
    for (Operation &op : loop.getBody().front().without_terminator())
      if (&op != reduce.getOperation() && !before.contains(&op))
        b.clone(op, point);
  }
}
