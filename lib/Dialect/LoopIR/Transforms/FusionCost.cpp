// What loopir-fuse weighs: a producer kernel's shape and arithmetic, how
// often each element a consumer loads would be computed once fused and
// hoisted, and which reductions the schedules take as contractions, row
// vectors or attention's flash rows (which decide where fusing pays).
// Private to the pass: it reads the pass's FusionMemo.

#include "FusionCost.h"
#include "strata/Dialect/LoopIR/Analysis/IndexDependence.h"
#include "strata/Dialect/LoopIR/Analysis/PrefixScan.h"
#include "strata/Dialect/LoopIR/Transforms/Passes.h"
#include "strata/Dialect/Utils/ScheduleModel.h"

using namespace mlir;

namespace strata::loopir::fusion {

int64_t product(ArrayRef<int64_t> sizes) {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return n;
}

static bool isPreambleOp(Operation &op) {
  return op.getNumRegions() == 0 && isPure(&op) &&
         llvm::all_of(op.getOperands(),
                      [&](Value v) { return !isa<BlockArgument>(v); });
}

/// Whether `op` only moves data: loads, stores, constants, and widening
/// casts (exact, and free where they feed a contraction's operands, which
/// tensor cores read narrow).
static bool movesData(Operation &op) {
  return isa<LoadOp, StoreOp, arith::ConstantOp, arith::ExtFOp, arith::ExtSIOp,
             arith::ExtUIOp>(op);
}

/// Arithmetic of one execution of `block` (moving data is free; a
/// reduction costs its trip count times its body plus a combine).
static double blockCost(Block &block) {
  double cost = 0;
  for (Operation &op : block.without_terminator()) {
    if (movesData(op))
      continue;
    if (auto reduce = dyn_cast<ReduceOp>(op)) {
      cost += product(reduce.getBounds()) *
              (blockCost(reduce.getBody().front()) + 1);
      continue;
    }
    if (auto nest = dyn_cast<ParallelOp>(op)) {
      cost += product(nest.getBounds()) * blockCost(nest.getBody().front());
      continue;
    }
    cost += 1;
  }
  return cost;
}

static double hoistedWork(ParallelOp nest, FusionMemo &memo);

FailureOr<Producer> analyzeProducer(KernelOp kernel, FusionMemo &memo) {
  Producer p;
  p.kernel = kernel;
  if (kernel->getNumResults() != 1)
    return failure();
  Block &body = kernel.getBody().front();
  for (Operation &op : body.without_terminator()) {
    if (!p.nest && isPreambleOp(op)) {
      p.preamble.push_back(&op);
      continue;
    }
    if (p.nest || !isa<ParallelOp>(op))
      return failure();
    p.nest = cast<ParallelOp>(op);
  }
  if (!p.nest)
    return failure();
  Value output = kernel.getOutputBuffers().front();
  auto shape = cast<MemRefType>(output.getType()).getShape();
  if (p.nest.getBounds() != shape)
    return failure();
  // Exactly one store, at the top of the nest, of element `ivs`.
  Block &nestBody = p.nest.getBody().front();
  for (Operation &op : nestBody) {
    auto store = dyn_cast<StoreOp>(op);
    if (!store)
      continue;
    if (p.store)
      return failure();
    p.store = store;
  }
  if (!p.store || p.store.getMemref() != output ||
      !p.store.getIndexMap().isIdentity() ||
      !llvm::equal(p.store.getIndices(), p.nest.getInductionVars()))
    return failure();
  p.elements = product(shape);
  // One walk of the nest, remembered: a consumer of many inputs asks this
  // of each again after every fusion near it.
  FusionMemo::ProducerCost cost = memo.cost(kernel, [&] {
    bool reduces = false, nestedStore = false;
    unsigned ops = 0;
    double loads = 0;
    p.nest.walk([&](Operation *op) {
      reduces |= isa<ReduceOp>(op);
      nestedStore |= isa<StoreOp>(op) && op != p.store;
      ++ops;
      if (!isa<LoadOp>(op))
        return;
      double n = 1;
      for (Operation *loop = op->getParentOp(); loop != kernel;
           loop = loop->getParentOp())
        if (auto bounds = loop->getAttrOfType<DenseI64ArrayAttr>("bounds"))
          n *= product(bounds.asArrayRef());
      loads += n;
    });
    return FusionMemo::ProducerCost{nestedStore ? 0 : hoistedWork(p.nest, memo),
                                    reduces, ops, nestedStore, loads};
  });
  if (cost.nestedStore)
    return failure();
  p.work = cost.work;
  p.loads = cost.loads;
  p.reduces = cost.reduces;
  p.ops = cost.ops;
  return p;
}

/// The indices a load's map reads.
SmallVector<Value> readIndices(LoadOp load, FusionMemo &memo) {
  const llvm::SmallBitVector &used = memo.readDims(load.getIndexMap());
  SmallVector<Value> read;
  for (auto [d, index] : llvm::enumerate(load.getIndices()))
    if (used.test(d))
      read.push_back(index);
  return read;
}

/// The loop indices a load's address depends on; a computed (data-dependent)
/// index counts as depending on every index in `all`.
static void addressIndices(LoadOp load, ArrayRef<BlockArgument> all,
                           llvm::SmallDenseSet<Value> &used, FusionMemo &memo) {
  for (Value index : readIndices(load, memo)) {
    if (isa<BlockArgument>(index) &&
        isa<ParallelOp, ReduceOp>(
            cast<BlockArgument>(index).getOwner()->getParentOp()))
      used.insert(index);
    else
      used.insert(all.begin(), all.end());
  }
}

/// Whether `region` holds a max-reduction over `box`.
static bool hasMaxOver(Region &region, ArrayRef<int64_t> box) {
  WalkResult found = region.walk([&](ReduceOp r) {
    if (r.getBounds() == box &&
        llvm::is_contained(r.getCombinerList(), Combiner::max))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return found.wasInterrupted();
}

/// How many rows of `nest` read each value that `reduce` (a reduction over
/// keys, directly inside it, whose innermost index is a row vector's)
/// weights, at least: the extent of the nest's indices, but the vector's,
/// that no load reading both the key and the vector's element depends on
/// (an attention's queries per key/value head: 1 in a decode step, the
/// group's heads too in a grouped-query one). While P . V still sums a
/// product tensor that every index reads, its values are out of sight:
/// the rows are then at least the extent of the index before the vector's
/// (a product's rows, the queries of P . V).
static int64_t rowsSharingValues(ReduceOp reduce, ParallelOp nest) {
  SmallVector<BlockArgument> ivs(nest.getInductionVars());
  ArrayRef<BlockArgument> keys = reduce.getBody().getArguments();
  llvm::SmallDenseSet<Value> read;
  bool found = false;
  reduce.getBody().walk([&](LoadOp load) {
    ValueRange indices = load.getIndices();
    bool readsKey = llvm::any_of(
        keys, [&](BlockArgument k) { return llvm::is_contained(indices, k); });
    if (!readsKey || !llvm::is_contained(indices, ivs.back()))
      return;
    found = true;
    for (auto [d, index] : llvm::enumerate(indices))
      if (load.readsIndex(d))
        read.insert(index);
  });
  int64_t rows = 1;
  for (auto [iv, bound] :
       llvm::zip(ArrayRef(ivs).drop_back(), nest.getBounds().drop_back()))
    if (!found || !read.contains(iv))
      rows *= bound;
  ArrayRef<int64_t> bounds = nest.getBounds();
  return std::max(rows, bounds[bounds.size() - 2]);
}

/// Whether `reduce`, directly inside `nest`, is attention's output row: a
/// sum over a box of f32 weights normalized by a maximum over that same box
/// (softmax's, computed in the sum's body or by the kernel producing a
/// buffer it loads) times values, in a nest whose innermost loop is a row
/// vector (at most kMaxRowVectorLength long, or kMaxFlashRowVectorLength
/// with enough query rows). Its row program folds the
/// statistics and the vector's sums in one pass (tileir-fuse-folds' flash
/// fold), and several rows of a program instance share each chunk of the
/// values through shared memory (the Q-tile schedule): so it is no staged
/// contraction, and softmax fuses into it rather than writing the
/// probabilities for a contraction to read. Weights rounded to a half (a
/// softmax in f16 or bf16 rounds its result before P . V, a half Q . Kᵀ
/// its scores) make a flash row where fewer than kMinQTileRows rows share
/// the values (a decode step), or the output row is one the Q tile
/// multiplies on tensor cores (kTensorCoreFlashRowMultiple,
/// kMaxTensorCoreFlashRowLength): online softmax cannot round a weight it
/// has not normalized yet, so the fold sums them unrounded (as PyTorch's
/// fused attention kernels do); for other output rows the contraction that
/// reads the rounded weights multiplies halves on tensor cores where the
/// flash fold would take FMAs (docs/tile-schedules.md).
static bool isFlashRow(ReduceOp reduce, ParallelOp nest) {
  ArrayRef<int64_t> bounds = nest.getBounds();
  ArrayRef<int64_t> box = reduce.getBounds();
  if (bounds.size() < 2 || bounds.back() > kMaxFlashRowVectorLength ||
      box.size() != 1)
    return false;
  // A vector longer than a thread holds splits among the lanes of a row:
  // the Q-tile schedule's 4 for many queries, up to a warp's for fewer
  // (kMaxFlashRowVectorLength).
  if (bounds.back() > kMaxRowVectorLength &&
      bounds.back() % kQTileThreadsPerRow != 0)
    return false;
  // Halves take the flash fold where few rows share the values (or the Q
  // tile's tensor cores take many) and the exponentials are f32 (the fold's
  // monoid computes in f32: an exp of halves is no online softmax it finds).
  bool foldsHalves = isTensorCoreFlashRow(bounds.back()) ||
                     rowsSharingValues(reduce, nest) < kMinQTileRows;
  auto expsInF32 = [](Region &region) {
    return !region
                .walk([](math::ExpOp exp) {
                  return exp.getType().isF32() ? WalkResult::advance()
                                               : WalkResult::interrupt();
                })
                .wasInterrupted();
  };
  auto takesHalves = [&](Region &region) {
    return foldsHalves && expsInF32(region) && expsInF32(reduce.getBody());
  };
  WalkResult rounds = reduce.getBody().walk(
      [](arith::TruncFOp) { return WalkResult::interrupt(); });
  if (rounds.wasInterrupted() && !takesHalves(reduce.getBody()))
    return false;
  if (hasMaxOver(reduce.getBody(), box))
    return true;
  auto kernel = nest->getParentOfType<KernelOp>();
  WalkResult found = reduce.getBody().walk([&](LoadOp load) {
    auto buffers = kernel.getInputBuffers();
    auto it = llvm::find(buffers, load.getMemref());
    if (it == buffers.end())
      return WalkResult::advance();
    auto producer =
        kernel.getInputs()[it - buffers.begin()].getDefiningOp<KernelOp>();
    Type weight = load.getType();
    bool half = weight.isF16() || weight.isBF16();
    if (!producer || !(weight.isF32() || half) ||
        (half && !takesHalves(producer.getBody())))
      return WalkResult::advance();
    if (hasMaxOver(producer.getBody(), box))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return found.wasInterrupted();
}

/// Whether `unit`, directly inside `nest`, is the sum of products that the
/// contraction schedule stages: an add-reduction over one index of a
/// product, in a nest of at least kMinContractionRowsAndColumns rows and
/// columns (its last two indices, or the groups of indices
/// loopir-canonicalize-contractions will make rows and columns: an NCHW
/// convolution's output channels and pixels). With `orSumOfLoads`, also a
/// sum over one index of loads in a nest whose last two indices are that
/// many: a contraction to be once its product (a kernel of its own until
/// fused) joins it.
bool isStagedContraction(Operation *unit, ParallelOp nest, FusionMemo &memo,
                         bool orSumOfLoads) {
  auto reduce = dyn_cast<ReduceOp>(unit);
  if (!reduce ||
      reduce.getCombinerList() != SmallVector<Combiner>{Combiner::add} ||
      reduce.getBounds().size() != 1)
    return false;
  Operation *yielded =
      reduce.getBody().front().getTerminator()->getOperand(0).getDefiningOp();
  if (isFlashRow(reduce, nest))
    return false;
  ArrayRef<int64_t> bounds = nest.getBounds();
  bool lastTwoMany =
      bounds.size() >= 2 &&
      bounds[bounds.size() - 2] >= kMinContractionRowsAndColumns &&
      bounds.back() >= kMinContractionRowsAndColumns;
  if (yielded && isa<LoadOp>(yielded))
    return orSumOfLoads && lastTwoMany;
  if (!yielded || !isa<arith::MulFOp>(yielded))
    return false;
  return lastTwoMany || memo.isManyRowContraction(nest, [&] {
    std::optional<std::pair<int64_t, int64_t>> extents =
        contractionExtents(nest);
    return extents && extents->first >= kMinContractionRowsAndColumns &&
           extents->second >= kMinContractionRowsAndColumns;
  });
}

/// The box (k) of a staged contraction directly in `nest`, if there is one:
/// with `orSumOfLoads`, also of a sum over one index of loads, a
/// contraction to be once its product (a kernel of its own until fused)
/// joins it.
std::optional<ArrayRef<int64_t>>
stagedContractionBox(ParallelOp nest, FusionMemo &memo, bool orSumOfLoads) {
  return memo.stagedBox(
      nest, orSumOfLoads, [&]() -> std::optional<ArrayRef<int64_t>> {
        for (Operation &op : nest.getBody().front())
          if (isStagedContraction(&op, nest, memo, orSumOfLoads))
            return cast<ReduceOp>(op).getBounds();
        return std::nullopt;
      });
}

/// The boxes of the staged contractions whose results `kernel` computes
/// with, directly or through kernels without reductions (views and
/// elementwise math not fused yet).
void contractionsFeeding(KernelOp kernel,
                         SmallVectorImpl<ArrayRef<int64_t>> &boxes,
                         FusionMemo &memo,
                         llvm::SmallPtrSetImpl<Operation *> &visited,
                         int depth) {
  constexpr int kMaxDepth = 8; // Chains of views and math are short.
  for (Value input : kernel.getInputs()) {
    auto producer = input.getDefiningOp<KernelOp>();
    // Each producer once: a DAG of formulas (an LSTM's steps) reaches one
    // producer along many paths, 2^depth walks of it otherwise.
    if (!producer || !visited.insert(producer).second)
      continue;
    bool reduces = false;
    for (auto nest : producer.getBody().front().getOps<ParallelOp>()) {
      if (std::optional<ArrayRef<int64_t>> k =
              stagedContractionBox(nest, memo, /*orSumOfLoads=*/true))
        boxes.push_back(*k);
      nest.walk([&](ReduceOp) { reduces = true; });
    }
    if (!reduces && depth < kMaxDepth)
      contractionsFeeding(producer, boxes, memo, visited, depth + 1);
  }
}

/// Whether the row schedule folds `unit`, directly inside `nest`, as a
/// row vector: a reduction that is no staged contraction, in a nest whose
/// innermost loop is at most kMaxRowVectorLength long (longer for
/// attention's output row, isFlashRow). Normalization hoists
/// the rest of the nest into the row, and the row program accumulates all
/// of the innermost loop's sums in one pass over the reduced row.
bool isRowVectorFold(Operation *unit, ParallelOp nest, FusionMemo &memo) {
  auto reduce = dyn_cast<ReduceOp>(unit);
  return reduce && !isStagedContraction(unit, nest, memo) &&
         nest.getBounds().size() >= 2 &&
         (nest.getBounds().back() <= kMaxRowVectorLength ||
          isFlashRow(reduce, nest));
}

/// The outermost parallel nest of `load`'s kernel around it, and the op
/// directly in that nest that holds the load (the unit normalization
/// hoists as a whole); no nest for a load outside every nest.
std::pair<Operation *, ParallelOp> outerUnit(LoadOp load) {
  ParallelOp nest;
  for (Operation *p = load->getParentOp(); p && !isa<KernelOp>(p);
       p = p->getParentOp())
    if (auto outer = dyn_cast<ParallelOp>(p))
      nest = outer;
  Operation *unit = load;
  if (nest)
    while (unit->getParentOp() != nest)
      unit = unit->getParentOp();
  return {unit, nest};
}

/// Fusion's reading of a loop body's accesses (IndexDependence): a load
/// reads the indices its map reads, a store every index.
struct FusionReading {
  FusionMemo &memo;
  bool operator()(Operation *op, unsigned index) const {
    auto load = dyn_cast<LoadOp>(op);
    return !load || memo.readDims(load.getIndexMap()).test(index);
  }
};

/// How often the element a load reads gets computed once fused and hoisted
/// by loopir-normalize, within one iteration of the kernel's outer parallel
/// nest, and the op that normalization runs once per value of the nest
/// indices it depends on (the unit). From the load outwards, each loop
/// around it repeats the unit (at first the load, then the loop holding
/// it) for every iteration, unless the unit uses nothing of the loop's
/// body: then normalization moves it in front of the loop. The load itself
/// counts the iterations of the indices its address reads (equal elements
/// fused at one address are one computation).
static std::pair<double, Operation *> innerWork(LoadOp load, ParallelOp nest,
                                                FusionMemo &memo) {
  double work = 1;
  Operation *unit = load;
  FusionReading reads{memo};
  for (Operation *loop = load->getParentOp(); loop != nest;
       loop = loop->getParentOp()) {
    Block &body = loop->getRegion(0).front();
    // Whether the unit depends on an iteration of the loop: what does not,
    // normalization moves in front of it (HoistOutOfReduce, one invariant
    // at a time).
    IndexDependence dependence(body, {reads});
    ArrayRef<int64_t> bounds = isa<ReduceOp>(loop)
                                   ? cast<ReduceOp>(loop).getBounds()
                                   : cast<ParallelOp>(loop).getBounds();
    if (unit == load.getOperation()) {
      SmallVector<BlockArgument> ivs(body.getArguments());
      llvm::SmallDenseSet<Value> deps;
      addressIndices(load, ivs, deps, memo);
      for (auto [iv, bound] : llvm::zip(ivs, bounds))
        if (deps.contains(iv))
          work *= bound;
      if (!deps.empty() || dependence.varies(load))
        unit = loop;
      continue;
    }
    if (!dependence.varies(unit))
      continue; // Hoisted in front of the loop.
    work *= product(bounds);
    unit = loop;
  }
  return {work, unit};
}

/// The dimension of `nest` along which `unit` (a top-level op of its body)
/// folds prefixes, if it is a reduction of a prefix scan (PrefixScan.h)
/// that the scan schedule takes, reading each element of the row once: a
/// row of at least kMinRowLength points, folded in a type a warp shuffles
/// (no sum in halves; integers narrower than 32 bits are widened).
static std::optional<unsigned> scannedDim(Operation *unit, ParallelOp nest) {
  auto reduce = dyn_cast<ReduceOp>(unit);
  if (!reduce || reduce.getBounds().size() != 1 ||
      !llvm::all_of(reduce.getBody().front().getTerminator()->getOperands(),
                    [](Value v) { return v.getDefiningOp<arith::SelectOp>(); }))
    return std::nullopt;
  std::optional<PrefixScan> scan = matchPrefixScan(nest);
  if (!scan || !llvm::is_contained(scan->reductions, reduce) ||
      nest.getBounds()[scan->dim] < kMinRowLength)
    return std::nullopt;
  for (ReduceOp scanned : scan->reductions)
    for (Type type : scanned.getResultTypes())
      if (isa<FloatType>(type) && type.getIntOrFloatBitWidth() < 32)
        return std::nullopt;
  return scan->dim;
}

/// How often the element a load reads gets computed once fused and hoisted
/// by loopir-normalize: normalization runs the load's unit (innerWork)
/// once per value of the nest indices it depends on, and inside it the
/// element is computed innerWork times. In a staged contraction, an operand
/// element of scalar code (`scalar`: no reduction, so the contraction
/// schedule can stage it) is computed once per block tile, not once per
/// row (or column) of the output that reads it.
double loadWork(LoadOp load, bool scalar, UnitDependences &unitDependences,
                FusionMemo &memo) {
  auto [outer, nest] = outerUnit(load);
  if (!nest)
    return 1;
  auto [inner, unit] = innerWork(load, nest, memo);
  SmallVector<BlockArgument> nestIvs(nest.getInductionVars());
  auto [it, inserted] = unitDependences.try_emplace(unit);
  llvm::SmallDenseSet<Value> &unitDeps = it->second;
  if (inserted)
    unit->walk([&](Operation *op) {
      if (auto l = dyn_cast<LoadOp>(op))
        return addressIndices(l, nestIvs, unitDeps, memo);
      for (Value v : op->getOperands())
        if (llvm::is_contained(nestIvs, v))
          unitDeps.insert(v);
    });
  llvm::SmallDenseSet<Value> loadNestDeps;
  addressIndices(load, nestIvs, loadNestDeps, memo);
  bool staged = scalar && isStagedContraction(outer, nest, memo);
  // In a row-vector fold, an element that does not depend on the vector's
  // index is computed once for the whole vector.
  bool sharedByVector = isRowVectorFold(outer, nest, memo) &&
                        !loadNestDeps.contains(nestIvs.back());
  // In a prefix scan, so is an element for the whole row it scans.
  std::optional<unsigned> scanned = scannedDim(outer, nest);
  double work = 1;
  for (auto [d, iv, bound] : llvm::enumerate(nestIvs, nest.getBounds())) {
    if (!unitDeps.contains(iv) || (sharedByVector && d + 1 == nestIvs.size()) ||
        (scanned == d && !loadNestDeps.contains(iv)))
      continue;
    bool rowOrColumn = d + 2 >= nestIvs.size();
    if (staged && rowOrColumn && !loadNestDeps.contains(iv))
      work *= llvm::divideCeil(bound, kContractionBlockTile);
    else
      work *= bound;
  }
  return work * inner;
}

/// The arithmetic of a parallel nest once loop-invariant work is hoisted:
/// each top-level op costs its arithmetic once per value of the indices it
/// depends on.
static double hoistedWork(ParallelOp nest, FusionMemo &memo) {
  // A data-dependent address counts as reading every index.
  FusionReading reads{memo};
  IndexDependence dependence(nest.getBody().front(),
                             {reads, /*computedAddressReadsAll=*/true});
  double work = 0;
  for (Operation &op : nest.getBody().front().without_terminator()) {
    double cost = 0;
    if (auto reduce = dyn_cast<ReduceOp>(op))
      cost = product(reduce.getBounds()) *
             (blockCost(reduce.getBody().front()) + 1);
    else if (!movesData(op))
      cost = op.getNumRegions() ? blockCost(op.getRegion(0).front()) : 1;
    if (cost == 0)
      continue;
    double iterations = 1;
    llvm::SmallDenseSet<unsigned> deps = dependence.of(&op);
    for (auto [d, bound] : llvm::enumerate(nest.getBounds()))
      if (deps.contains(d))
        iterations *= bound;
    work += cost * iterations;
  }
  return work;
}

} // namespace strata::loopir::fusion
