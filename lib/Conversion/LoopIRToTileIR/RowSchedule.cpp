// The row schedule: a block per row, reductions as cooperative folds.
//
// A loop nest whose body reduces along rows (softmax, RMSNorm, layer norm,
// row sums) runs one program instance per point of the nest. Its top-level
// loopir.reduce ops become tileir.fold ops — the monoid made explicit — that
// every thread of the block shares; its top-level loopir.parallel loops
// become tileir.distribute; everything else is uniform scalar code that
// every thread runs (and a top-level store is one store per row).

#include "TileKernelBuilder.h"
#include "strata/Dialect/Utils/LoopBox.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"

using namespace mlir;
using namespace strata;

namespace {

/// Rows shorter than this keep a thread each (the generic schedule): a
/// block per row would leave most of a warp idle.
constexpr int64_t kMinRowLength = 32;

/// The fold monoid of a loop combiner, if the scheduler can share it among
/// threads (arg-reductions fold pairs and are left to one thread).
std::optional<tileir::Combiner> foldCombiner(loopir::Combiner c) {
  switch (c) {
  case loopir::Combiner::add:
    return tileir::Combiner::add;
  case loopir::Combiner::mul:
    return tileir::Combiner::mul;
  case loopir::Combiner::max:
    return tileir::Combiner::max;
  case loopir::Combiner::min:
    return tileir::Combiner::min;
  default:
    return std::nullopt;
  }
}

/// Whether the threads of a block can share `reduce`: every combiner has a
/// fold monoid over a type a warp shuffle moves.
bool isShareable(loopir::ReduceOp reduce) {
  for (loopir::Combiner c : reduce.getCombinerList())
    if (!foldCombiner(c))
      return false;
  return llvm::all_of(reduce.getResultTypes(), [](Type t) {
    return t.isF32() || t.isF64() || t.isInteger(32) || t.isInteger(64);
  });
}

/// Whether consecutive iterations of `reduce` read consecutive addresses:
/// every load that depends on the reduction indices addresses its innermost
/// buffer dimension with the innermost one (so the threads' loads coalesce).
bool readsContiguously(loopir::ReduceOp reduce) {
  ValueRange ivs = reduce.getInductionVars();
  if (ivs.empty()) // A reduction over one point reads no row.
    return false;
  Value innermost = ivs.back();
  bool readsRow = false;
  WalkResult walk = reduce.getBody().walk([&](loopir::LoadOp load) {
    AffineMap map = load.getIndexMap();
    bool dependsOnFold = false, rowMajor = false;
    for (auto [pos, index] : llvm::enumerate(load.getIndices())) {
      if (!llvm::is_contained(ivs, index) || !map.isFunctionOfDim(pos))
        continue;
      dependsOnFold = true;
      if (index == innermost && map.getNumResults() > 0 &&
          map.getResults().back().isFunctionOfDim(pos))
        rowMajor = true;
    }
    if (dependsOnFold && !rowMajor)
      return WalkResult::interrupt();
    readsRow |= rowMajor;
    return WalkResult::advance();
  });
  return readsRow && !walk.wasInterrupted();
}

SmallVector<loopir::ReduceOp> topLevelReductions(loopir::ParallelOp nest) {
  return llvm::to_vector(nest.getBody().front().getOps<loopir::ReduceOp>());
}

/// The longest row the block walks: the largest fold or inner loop.
int64_t rowLength(loopir::ParallelOp nest) {
  int64_t longest = 1;
  for (Operation &op : nest.getBody().front()) {
    if (auto reduce = dyn_cast<loopir::ReduceOp>(op))
      longest = std::max(longest, computeProduct(reduce.getBounds()));
    if (auto loop = dyn_cast<loopir::ParallelOp>(op))
      longest = std::max(longest, computeProduct(loop.getBounds()));
  }
  return longest;
}

} // namespace

bool strata::prefersRowSchedule(loopir::ParallelOp nest) {
  SmallVector<loopir::ReduceOp> reductions = topLevelReductions(nest);
  if (reductions.empty())
    return false;
  for (loopir::ReduceOp reduce : reductions)
    if (!isShareable(reduce) || !readsContiguously(reduce))
      return false;
  return rowLength(nest) >= kMinRowLength;
}

FailureOr<tileir::KernelOp>
strata::buildRowProgram(OpBuilder &b, loopir::KernelOp op, ValueRange inputs,
                        ArrayRef<Operation *> preamble,
                        loopir::ParallelOp nest) {
  if (!llvm::any_of(topLevelReductions(nest), isShareable))
    return op.emitError("the row schedule needs a loop nest whose body "
                        "folds with add, mul, max or min over i32, i64, f32 "
                        "or f64");
  SmallVector<int64_t> domain(nest.getBounds());
  if (domain.empty())
    domain.push_back(1); // A full reduction: one row.
  Location loc = op.getLoc();
  IRMapping mapping;
  SmallVector<Value> origin;
  tileir::KernelOp kernel =
      buildTileKernel(b, op, inputs, domain, kUnscheduledRowThreads,
                      /*cooperative=*/true, preamble, mapping, origin);
  // This thread group's row.
  mapping.map(nest.getInductionVars(),
              ValueRange(origin).take_front(nest.getBounds().size()));
  for (Operation &inner : nest.getBody().front().without_terminator()) {
    auto reduce = dyn_cast<loopir::ReduceOp>(inner);
    if (reduce && isShareable(reduce)) {
      SmallVector<tileir::Combiner> combiners;
      for (loopir::Combiner c : reduce.getCombinerList())
        combiners.push_back(*foldCombiner(c));
      auto fold =
          tileir::FoldOp::create(b, reduce.getLoc(), combiners,
                                 reduce.getResultTypes(), reduce.getBounds());
      OpBuilder::InsertionGuard guard(b);
      Block &source = reduce.getBody().front();
      b.setInsertionPointToStart(&fold.getBody().front());
      IRMapping point =
          cloneLoopBody(b, source, fold.getInductionVars(), mapping);
      SmallVector<Value> contributions;
      for (Value v : source.getTerminator()->getOperands())
        contributions.push_back(point.lookupOrDefault(v));
      tileir::YieldOp::create(b, reduce.getLoc(), contributions);
      mapping.map(reduce.getResults(), fold.getResults());
      continue;
    }
    if (auto loop = dyn_cast<loopir::ParallelOp>(inner)) {
      auto distribute =
          tileir::DistributeOp::create(b, loop.getLoc(), loop.getBounds());
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(distribute.getBody().front().getTerminator());
      cloneLoopBody(b, loop.getBody().front(), distribute.getInductionVars(),
                    mapping);
      continue;
    }
    b.clone(inner, mapping);
  }
  tileir::YieldOp::create(b, loc);
  return kernel;
}
