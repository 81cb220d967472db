// The row schedule: a block per row, reductions as cooperative folds.
//
// A loop nest whose body reduces along rows (softmax, RMSNorm, layer norm,
// row sums) runs one program instance per point of the nest. Its top-level
// loopir.reduce ops become tileir.fold ops — the monoid made explicit — that
// every thread of the block shares (an arg-reduction a tileir.composite_fold
// of value and position); its top-level loopir.parallel loops
// become tileir.distribute; everything else is uniform scalar code that
// every thread runs (and a top-level store is one store per row).

#include "TileKernelBuilder.h"
#include "strata/Dialect/TileIR/IR/CompositeMonoids.h"
#include "strata/Dialect/Utils/ElementStorage.h"
#include "strata/Dialect/Utils/LoopBox.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"

using namespace mlir;
using namespace strata;

namespace {

/// The arg-reduction (argmax: true, argmin: false) `reduce` is, if it is
/// one: a single arg combiner, folded as a composite (value, position).
std::optional<bool> argReduction(loopir::ReduceOp reduce) {
  SmallVector<loopir::Combiner> combiners = reduce.getCombinerList();
  if (combiners.size() != 1 || !loopir::ReduceOp::isArgCombiner(combiners[0]))
    return std::nullopt;
  return combiners[0] == loopir::Combiner::argmax;
}

/// The indices of the loops inside `reduce`'s body.
llvm::SmallDenseSet<Value> innerLoopIndices(loopir::ReduceOp reduce) {
  llvm::SmallDenseSet<Value> indices;
  reduce.getBody().walk([&](Operation *op) {
    if (isa<loopir::ReduceOp, loopir::ParallelOp>(op))
      for (Value iv : op->getRegion(0).front().getArguments())
        indices.insert(iv);
  });
  return indices;
}

/// The bytes between the elements `load` reads for consecutive values of
/// its `pos`th index (the others fixed), where each buffer index moves by a
/// constant when that index does; none otherwise (a floordiv of it).
std::optional<int64_t> strideBytes(loopir::LoadOp load, unsigned pos) {
  MemRefType type = load.getMemref().getType();
  AffineMap map = load.getIndexMap();
  SmallVector<int64_t> suffix = computeSuffixProduct(type.getShape());
  AffineExpr d = getAffineDimExpr(pos, load.getContext());
  int64_t stride = 0;
  for (auto [r, expr] : llvm::enumerate(map.getResults())) {
    auto step = dyn_cast<AffineConstantExpr>(
        simplifyAffineExpr(expr.replace(d, d + 1) - expr, map.getNumDims(),
                           map.getNumSymbols()));
    if (!step)
      return std::nullopt;
    stride += step.getValue() * suffix[r];
  }
  return stride * llvm::divideCeil(getStorageBits(type.getElementType()), 8);
}

/// Whether the threads sharing `reduce` read rows: every load that depends
/// on the reduction indices addresses its innermost buffer dimension with
/// the innermost one (consecutive threads read consecutive addresses, so
/// their loads coalesce), or with an index each thread walks on its own
/// (an inner loop's, or `ownIndices`: a row vector's), so that each thread
/// reads a contiguous run (the key of attention's q.k for its point), or
/// moves at most kMaxCoalescedStrideBytes with it; loads that do neither
/// may read at most one byte in kMinShareOfOrderedReads of a point's.
bool readsContiguously(loopir::ReduceOp reduce,
                       const llvm::SmallDenseSet<Value> &ownIndices = {}) {
  ValueRange ivs = reduce.getInductionVars();
  if (ivs.empty()) // A reduction over one point reads no row.
    return false;
  Value innermost = ivs.back();
  llvm::SmallDenseSet<Value> walked = innerLoopIndices(reduce);
  walked.insert(ownIndices.begin(), ownIndices.end());
  bool readsRow = false;
  // Bytes a point of the fold reads, and those read with a stride.
  double bytes = 0, stridedBytes = 0;
  reduce.getBody().walk([&](loopir::LoadOp load) {
    AffineMap map = load.getIndexMap();
    bool dependsOnFold = false, rowMajor = false;
    for (auto [pos, index] : llvm::enumerate(load.getIndices())) {
      if (!llvm::is_contained(ivs, index) || !map.isFunctionOfDim(pos))
        continue;
      dependsOnFold = true;
    }
    // The innermost buffer dimension, by the reduction's innermost index
    // or by an index a thread walks itself; or a short stride
    // (kMaxCoalescedStrideBytes: also a [1, C, 1, 1] buffer read along C,
    // a squeeze-excitation's scales).
    for (auto [pos, index] : llvm::enumerate(load.getIndices())) {
      if (index != innermost && !walked.contains(index))
        continue;
      std::optional<int64_t> stride = strideBytes(load, pos);
      if ((map.getNumResults() > 0 &&
           map.getResults().back().isFunctionOfDim(pos)) ||
          (stride && *stride != 0 &&
           std::abs(*stride) <= kMaxCoalescedStrideBytes))
        rowMajor = true;
    }
    // Once per point of every loop inside the fold around it.
    double reads = llvm::divideCeil(
        getStorageBits(load.getMemref().getType().getElementType()), 8);
    for (Operation *loop = load->getParentOp(); loop != reduce;
         loop = loop->getParentOp())
      if (std::optional<ArrayRef<int64_t>> box = loopir::getLoopBox(loop))
        reads *= static_cast<double>(computeProduct(*box));
    bytes += reads;
    if (dependsOnFold && !rowMajor)
      stridedBytes += reads;
    readsRow |= rowMajor;
  });
  // A strided side input (Swin's relative position bias, [49 * 49, heads]
  // beside keys of 32 elements) costs little of the row's traffic.
  return readsRow && stridedBytes * kMinShareOfOrderedReads <= bytes;
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
    if (auto loop = dyn_cast<loopir::ParallelOp>(op)) {
      // A row vector's threads share its reduction's row.
      std::optional<loopir::ReduceOp> vector = rowVectorReduction(loop);
      longest = std::max(longest, computeProduct(vector ? vector->getBounds()
                                                        : loop.getBounds()));
    }
  }
  return longest;
}

} // namespace

/// The type a row fold carries a reduction's `type` in: integers narrower
/// than 32 bits (`all`'s i8 minimum, an int8 tensor's maximum) widened to
/// i32, which a warp shuffle moves. Sign-extended: signed order is kept,
/// and sums and products wrap the same once truncated back. Extrema in f16
/// or bf16 arrive widened to f32 already (loopir-normalize's
/// WidenHalfExtremum: exact, and the same form for every schedule); a sum
/// in halves stays one, as widening it would change its rounding.
Type strata::getFoldedType(Type type) {
  if (type.isInteger() && type.getIntOrFloatBitWidth() < 32)
    return IntegerType::get(type.getContext(), 32);
  return type;
}

/// Whether the threads of a block can share `reduce`: every combiner has a
/// fold monoid (or it is one arg-reduction) over a type a warp shuffle
/// moves.
bool strata::isShareable(loopir::ReduceOp reduce) {
  if (!argReduction(reduce))
    for (loopir::Combiner c : reduce.getCombinerList())
      if (!getFoldCombiner(c))
        return false;
  return llvm::all_of(reduce.getResultTypes(),
                      [](Type t) { return isShuffledType(getFoldedType(t)); });
}

/// `values` in the types `types`, integers extended or truncated, at `b`.
SmallVector<Value> strata::castIntegers(OpBuilder &b, Location loc,
                                        ValueRange values, TypeRange types) {
  SmallVector<Value> cast;
  for (auto [v, type] : llvm::zip(values, types)) {
    auto from = dyn_cast<IntegerType>(v.getType());
    auto to = dyn_cast<IntegerType>(type);
    if (from && to && from.getWidth() < to.getWidth())
      v = arith::ExtSIOp::create(b, loc, type, v);
    else if (from && to && from.getWidth() > to.getWidth())
      v = arith::TruncIOp::create(b, loc, type, v);
    cast.push_back(v);
  }
  return cast;
}

/// The row program's fold of `reduce` (shareable) at `b`, its body cloned
/// from the reduction's with `mapping`: a tileir.fold, or for an
/// arg-reduction a composite fold of (value, row-major position). Returns
/// the reduction's results (narrow integers folded as i32, truncated
/// back).
SmallVector<Value> strata::buildFold(OpBuilder &b, loopir::ReduceOp reduce,
                                     const IRMapping &mapping) {
  Block &source = reduce.getBody().front();
  Location loc = reduce.getLoc();
  SmallVector<Type> folded;
  for (Type type : reduce.getResultTypes())
    folded.push_back(getFoldedType(type));
  auto contributions = [&](OpBuilder &b, ValueRange ivs) {
    IRMapping point = cloneLoopBody(b, source, ivs, mapping);
    SmallVector<Value> values;
    for (Value v : source.getTerminator()->getOperands())
      values.push_back(point.lookupOrDefault(v));
    return castIntegers(b, loc, values, folded);
  };
  auto results = [&](Operation *fold) {
    return castIntegers(b, loc, fold->getResults().take_front(folded.size()),
                        reduce.getResultTypes());
  };
  if (std::optional<bool> max = argReduction(reduce)) {
    Type valueType = folded[0];
    ArrayRef<int64_t> bounds = reduce.getBounds();
    return results(tileir::buildCompositeFold(
        b, loc, tileir::argExtremeIdentity(b, valueType, *max), bounds,
        [&](OpBuilder &b, Location loc, ValueRange ivs) {
          SmallVector<Value> values = contributions(b, ivs);
          values.push_back(buildBoxPosition(b, loc, ivs, bounds));
          return values;
        },
        [&](OpBuilder &b, Location loc, ValueRange x, ValueRange y) {
          return tileir::combineArgExtreme(b, loc, *max, x, y);
        }));
  }
  SmallVector<tileir::Combiner> combiners;
  for (loopir::Combiner c : reduce.getCombinerList())
    combiners.push_back(*getFoldCombiner(c));
  auto fold =
      tileir::FoldOp::create(b, loc, combiners, folded, reduce.getBounds());
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&fold.getBody().front());
    tileir::YieldOp::create(b, loc, contributions(b, fold.getInductionVars()));
  }
  return results(fold);
}

std::optional<tileir::Combiner> strata::getFoldCombiner(loopir::Combiner c) {
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

bool strata::prefersRowSchedule(loopir::ParallelOp nest) {
  SmallVector<loopir::ReduceOp> reductions = topLevelReductions(nest);
  // Strided rows take the row schedule only where the generic one would
  // leave the GPU idle (kMaxRowsForStridedRowSchedule).
  bool fewRows = computeProduct(nest.getBounds()) <
                 kMaxRowsForStridedRowSchedule;
  for (loopir::ReduceOp reduce : reductions)
    if (!isShareable(reduce) || (!fewRows && !readsContiguously(reduce)))
      return false;
  // A row vector's reduction reads the row, each thread its own elements
  // of the vector.
  bool vectors = false;
  for (auto loop : nest.getBody().front().getOps<loopir::ParallelOp>()) {
    std::optional<loopir::ReduceOp> reduce = rowVectorReduction(loop);
    if (!reduce)
      continue;
    llvm::SmallDenseSet<Value> own(loop.getInductionVars().begin(),
                                   loop.getInductionVars().end());
    if (!fewRows && !readsContiguously(*reduce, own))
      return false;
    vectors = true;
  }
  if (reductions.empty() && !vectors)
    return false;
  return rowLength(nest) >= kMinRowLength;
}

FailureOr<tileir::KernelOp>
strata::buildRowProgram(OpBuilder &b, loopir::KernelOp op, ValueRange inputs,
                        ArrayRef<Operation *> preamble,
                        loopir::ParallelOp nest) {
  bool vectors = llvm::any_of(
      nest.getBody().front().getOps<loopir::ParallelOp>(),
      [](loopir::ParallelOp loop) {
        return rowVectorReduction(loop).has_value();
      });
  if (!vectors && !llvm::any_of(topLevelReductions(nest), isShareable))
    return op.emitError("the row schedule needs a loop nest whose body "
                        "folds with add, mul, max or min (or one argmax or "
                        "argmin) over i32, i64, f32 or f64");
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
      mapping.map(reduce.getResults(), buildFold(b, reduce, mapping));
      continue;
    }
    if (auto loop = dyn_cast<loopir::ParallelOp>(inner)) {
      if (std::optional<loopir::ReduceOp> reduce = rowVectorReduction(loop)) {
        buildRowVectorFold(b, loop, *reduce, mapping);
        continue;
      }
      // A write-back of prefixes (a softmax's cumsum): one scan of the row.
      if (std::optional<loopir::PrefixScan> scan = matchScanSchedule(loop)) {
        buildScan(b, loop, *scan, mapping);
        continue;
      }
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
