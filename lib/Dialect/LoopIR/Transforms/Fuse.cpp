// loopir-fuse: inline producer kernels into the kernels that load their
// results, so that intermediates never make a round trip through memory.

#include "FusionMemo.h"
#include "strata/Dialect/LoopIR/Analysis/AffineRange.h"
#include "strata/Dialect/LoopIR/Analysis/IndexDependence.h"
#include "strata/Dialect/LoopIR/Analysis/PrefixScan.h"
#include "strata/Dialect/LoopIR/Transforms/Passes.h"
#include "strata/Dialect/Utils/ScheduleModel.h"
#include "strata/Dialect/Utils/VerifyUtils.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <map>
#include <set>

namespace strata::loopir {
#define GEN_PASS_DEF_LOOPIRFUSEPASS
#include "strata/Dialect/LoopIR/Transforms/Passes.h.inc"
} // namespace strata::loopir

using namespace mlir;
using namespace strata;
using namespace strata::loopir;

namespace {

/// A kernel that computes each element of its one result in one parallel
/// nest, with one store at the nest's indices.
struct Producer {
  KernelOp kernel;
  SmallVector<Operation *> preamble; // Scalars shared by all elements.
  ParallelOp nest;
  StoreOp store;
  double work = 0; // Arithmetic of the whole kernel, invariants hoisted.
  double loads = 0; // Elements the whole kernel loads.
  bool reduces = false;
  unsigned ops = 0; // In the nest, each fused site's clone.
  int64_t elements = 1;
};

int64_t product(ArrayRef<int64_t> sizes) {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return n;
}

bool isPreambleOp(Operation &op) {
  return op.getNumRegions() == 0 && isPure(&op) &&
         llvm::all_of(op.getOperands(), [&](Value v) {
           return !isa<BlockArgument>(v);
         });
}

/// Whether `op` only moves data: loads, stores, constants, and widening
/// casts (exact, and free where they feed a contraction's operands, which
/// tensor cores read narrow).
bool movesData(Operation &op) {
  return isa<LoadOp, StoreOp, arith::ConstantOp, arith::ExtFOp,
             arith::ExtSIOp, arith::ExtUIOp>(op);
}

/// Arithmetic of one execution of `block` (moving data is free; a
/// reduction costs its trip count times its body plus a combine).
double blockCost(Block &block) {
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

double hoistedWork(ParallelOp nest, FusionMemo &memo);

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
    return FusionMemo::ProducerCost{
        nestedStore ? 0 : hoistedWork(p.nest, memo), reduces, ops,
        nestedStore, loads};
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
void addressIndices(LoadOp load, ArrayRef<BlockArgument> all,
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
bool hasMaxOver(Region &region, ArrayRef<int64_t> box) {
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
int64_t rowsSharingValues(ReduceOp reduce, ParallelOp nest) {
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
/// its scores) make a flash row only where fewer than kMinQTileRows rows
/// share the values (a decode step): online softmax cannot round a weight
/// it has not normalized yet, so the fold sums them unrounded (as
/// PyTorch's fused attention kernels do), and with many rows the
/// contraction that reads the rounded weights multiplies halves on tensor
/// cores, which the flash fold does not yet (docs/tile-schedules.md).
bool isFlashRow(ReduceOp reduce, ParallelOp nest) {
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
  // Halves take the flash fold where few rows share the values and the
  // exponentials are f32 (the fold's monoid computes in f32: an exp of
  // halves is no online softmax it finds).
  bool fewRows = rowsSharingValues(reduce, nest) < kMinQTileRows;
  auto expsInF32 = [](Region &region) {
    return !region
                .walk([](math::ExpOp exp) {
                  return exp.getType().isF32() ? WalkResult::advance()
                                               : WalkResult::interrupt();
                })
                .wasInterrupted();
  };
  auto takesHalves = [&](Region &region) {
    return fewRows && expsInF32(region) && expsInF32(reduce.getBody());
  };
  WalkResult rounds =
      reduce.getBody().walk([](arith::TruncFOp) { return WalkResult::interrupt(); });
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
                         bool orSumOfLoads = false) {
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
  bool lastTwoMany = bounds.size() >= 2 &&
                     bounds[bounds.size() - 2] >= kMinContractionRowsAndColumns &&
                     bounds.back() >= kMinContractionRowsAndColumns;
  if (yielded && isa<LoadOp>(yielded))
    return orSumOfLoads && lastTwoMany;
  if (!yielded || !isa<arith::MulFOp>(yielded))
    return false;
  return lastTwoMany || memo.isManyRowContraction(nest, [&] {
           std::optional<std::pair<int64_t, int64_t>> extents =
               contractionExtents(nest);
           return extents &&
                  extents->first >= kMinContractionRowsAndColumns &&
                  extents->second >= kMinContractionRowsAndColumns;
         });
}

/// The box (k) of a staged contraction directly in `nest`, if there is one:
/// with `orSumOfLoads`, also of a sum over one index of loads, a
/// contraction to be once its product (a kernel of its own until fused)
/// joins it.
std::optional<ArrayRef<int64_t>>
stagedContractionBox(ParallelOp nest, FusionMemo &memo,
                     bool orSumOfLoads = false) {
  return memo.stagedBox(nest, orSumOfLoads,
                        [&]() -> std::optional<ArrayRef<int64_t>> {
                          for (Operation &op : nest.getBody().front())
                            if (isStagedContraction(&op, nest, memo,
                                                    orSumOfLoads))
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
                         int depth = 0) {
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

/// The nest indices each unit's loads and operands depend on, found once
/// per unit while one producer is weighed (several loads of a consumer
/// often sit in one unit).
using UnitDependences = DenseMap<Operation *, llvm::SmallDenseSet<Value>>;

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
std::pair<double, Operation *> innerWork(LoadOp load, ParallelOp nest,
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
std::optional<unsigned> scannedDim(Operation *unit, ParallelOp nest) {
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
double hoistedWork(ParallelOp nest, FusionMemo &memo) {
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

/// The loads of `result` inside consumer kernels, and whether something
/// else (a host use) keeps the producer alive.
struct Uses {
  SmallVector<std::pair<KernelOp, unsigned>> consumers; // kernel, input #
  bool producerStays = false;
};

Uses usesOf(Value result) {
  Uses uses;
  for (OpOperand &use : result.getUses()) {
    auto consumer = dyn_cast<KernelOp>(use.getOwner());
    if (consumer)
      uses.consumers.push_back({consumer, use.getOperandNumber()});
    else
      uses.producerStays = true;
  }
  return uses;
}

SmallVector<LoadOp> loadsOf(Value buffer) {
  SmallVector<LoadOp> loads;
  for (Operation *user : buffer.getUsers())
    if (auto load = dyn_cast<LoadOp>(user))
      loads.push_back(load);
  return loads;
}

/// Rewrites `load` (a producer load cloned at a consumer's load site) so that
/// it addresses through `siteMap` applied to `siteIndices` wherever it used
/// one of the producer's loop indices.
void composeAccess(RewriterBase &b, LoadOp load, ValueRange producerIvs,
                   ValueRange siteIndices, AffineMap siteMap) {
  if (llvm::none_of(load.getIndices(), [&](Value v) {
        return llvm::is_contained(producerIvs, v);
      }))
    return;
  MLIRContext *ctx = load.getContext();
  SmallVector<Value> indices(siteIndices);
  SmallVector<AffineExpr> substitution;
  for (Value index : load.getIndices()) {
    auto it = llvm::find(producerIvs, index);
    if (it != producerIvs.end()) {
      substitution.push_back(siteMap.getResult(it - producerIvs.begin()));
    } else {
      substitution.push_back(getAffineDimExpr(indices.size(), ctx));
      indices.push_back(index);
    }
  }
  // In place: the cloned load's result may be what the site reads.
  b.modifyOpInPlace(load, [&] {
    load.reindex(indices, substitution);
    // Simplified with the loops' bounds, so that the cost of the next
    // fusion sees the indices the access really reads.
    load.setMapAttr(getIndexMapAttr(
        simplifyWithLoopBounds(simplifyAffineMap(load.getIndexMap()), indices)));
  });
}

/// Whether `body` (a nest's) loads one element and stores it: a copy
/// through the load's map.
bool copiesOneLoad(Block &body) {
  if (llvm::range_size(body) != 3) // load, store, yield
    return false;
  auto load = dyn_cast<LoadOp>(body.front());
  auto store = dyn_cast<StoreOp>(*std::next(body.begin()));
  return load && store && store.getValue() == load.getResult();
}

/// Whether `p` is a copy through a map (a layout op): its one load is what
/// it stores.
bool isCopy(Producer p) { return copiesOneLoad(p.nest.getBody().front()); }

/// Whether `kernel` copies its one input through a map in one nest.
bool isCopyKernel(KernelOp kernel) {
  auto nests = kernel.getBody().front().getOps<ParallelOp>();
  return kernel.getInputs().size() == 1 && llvm::hasSingleElement(nests) &&
         copiesOneLoad((*nests.begin()).getBody().front());
}

/// Whether `p` may be inlined at every load of its result, where some of
/// those loads are guarded (a padded view, a part of a concatenation). A
/// copy's load takes the site's guard and padding (where it has a guard of
/// its own, only with the same padding). Any other producer is computed
/// where the site's guard holds, its loads guarded by it too (so nothing
/// out of bounds is read), and the site's padding is selected where it
/// does not (selectSitePadding): a producer without reductions, at sites
/// outside reductions of kernels that compute (rotary embeddings' negated
/// half read through a concatenation's guard). A padded copy takes no such
/// producer: it fuses into its consumer as a copy, the guard with it,
/// while a copy that computed would pull its producer into a convolution's
/// window. Allowed there, ResNet-18's residual sums fused into the next
/// convolution's padded copy, and the convolutions lost their epilogues
/// (444.7 to 459.0 us modeled, four more kernels).
bool fusesIntoGuardedSites(Producer p, const Uses &uses) {
  bool copy = isCopy(p);
  auto load = p.store.getValue().getDefiningOp<LoadOp>();
  for (auto [consumer, pos] : uses.consumers)
    for (LoadOp site : loadsOf(consumer.getInputBuffers()[pos])) {
      if (!site.getGuard())
        continue;
      if (copy && load.getGuard() &&
          load.getPaddingAttr() != site.getPaddingAttr())
        return false;
      if (!copy && (p.reduces || site->getParentOfType<ReduceOp>() ||
                    isCopyKernel(consumer)))
        return false;
    }
  return true;
}

/// `load` (a producer's load cloned at the guarded `site`) reads only where
/// the site's guard holds too. With `sitePadding`, it is the site's padding
/// elsewhere (a copy's load, whose value the site reads); otherwise the
/// producer's value is selected away where the site's guard fails
/// (selectSitePadding), so the load keeps its own padding, or reads a zero
/// where it had no guard.
void takeGuard(RewriterBase &b, LoadOp load, LoadOp site, bool sitePadding) {
  MLIRContext *ctx = load.getContext();
  SmallVector<Value> indices(load.getIndices());
  // The site's guard over the load's indices, adding the site's indices it
  // lacks.
  SmallVector<AffineExpr> siteDims;
  for (Value index : site.getIndices()) {
    auto it = llvm::find(indices, index);
    siteDims.push_back(getAffineDimExpr(it - indices.begin(), ctx));
    if (it == indices.end())
      indices.push_back(index);
  }
  unsigned numDims = indices.size();
  IntegerSet siteGuard = site.getGuard()->replaceDimsAndSymbols(
      siteDims, {}, numDims, 0);
  SmallVector<AffineExpr> constraints(siteGuard.getConstraints());
  SmallVector<bool> eqFlags(siteGuard.getEqFlags());
  TypedAttr padding = site.getPaddingAttr();
  if (!sitePadding)
    padding = load.getGuard() ? load.getPaddingAttr()
                              : cast<TypedAttr>(b.getZeroAttr(load.getType()));
  b.modifyOpInPlace(load, [&] {
    SmallVector<AffineExpr> same;
    for (unsigned d = 0; d < load.getIndices().size(); ++d)
      same.push_back(getAffineDimExpr(d, ctx));
    load.reindex(indices, same);
    if (std::optional<IntegerSet> own = load.getGuard()) {
      llvm::append_range(constraints, own->getConstraints());
      llvm::append_range(eqFlags, own->getEqFlags());
    }
    load.setGuardAttr(IntegerSetAttr::get(
        IntegerSet::get(numDims, 0, constraints, eqFlags)));
    load.setPaddingAttr(padding);
  });
}

/// `value` (a producer computed at the guarded `site`) where the site's
/// guard holds, and the site's padding where it does not, at the builder.
Value selectSitePadding(RewriterBase &b, LoadOp site, Value value) {
  Location loc = site.getLoc();
  IntegerSet guard = *site.getGuard();
  Value holds;
  for (auto [constraint, eq] :
       llvm::zip(guard.getConstraints(), guard.getEqFlags())) {
    Value v =
        affine::expandAffineExpr(b, loc, constraint, site.getIndices(), {});
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value ok = arith::CmpIOp::create(
        b, loc, eq ? arith::CmpIPredicate::eq : arith::CmpIPredicate::sge, v,
        zero);
    holds = holds ? arith::AndIOp::create(b, loc, holds, ok) : ok;
  }
  Value padding = arith::ConstantOp::create(b, loc, site.getPaddingAttr());
  return arith::SelectOp::create(b, loc, holds, value, padding);
}

/// Whether `p` stores fewer bits per element than a load of its own that
/// reads a different element for each of its elements (a wide tensor of
/// the result's shape, not a broadcast row statistic): the softmax weights
/// rounded to a half from their f32 exponentials.
bool narrowsAWideTensor(Producer p, FusionMemo &memo) {
  Type result = p.store.getValue().getType();
  if (!result.isIntOrFloat())
    return false;
  unsigned bits = result.getIntOrFloatBitWidth();
  unsigned rank = p.nest.getBounds().size();
  bool narrows = false;
  p.nest.walk([&](LoadOp load) {
    Type t = load.getType();
    if (t.isIntOrFloat() && t.getIntOrFloatBitWidth() > bits &&
        memo.readDims(load.getIndexMap()).count() >= rank)
      narrows = true;
  });
  return narrows;
}

/// Whether a load of `buffer` is an operand of a staged contraction.
bool readsInStagedContraction(Value buffer, FusionMemo &memo) {
  for (LoadOp load : loadsOf(buffer)) {
    auto [unit, nest] = outerUnit(load);
    if (nest && isStagedContraction(unit, nest, memo))
      return true;
  }
  return false;
}

/// Whether a load of `buffer` sits in a reduction of its kernel's nest
/// other than a row-vector fold.
bool recomputesInReduction(Value buffer, FusionMemo &memo) {
  for (LoadOp load : loadsOf(buffer)) {
    auto [unit, nest] = outerUnit(load);
    if (nest && isa<ReduceOp>(unit) && !isRowVectorFold(unit, nest, memo))
      return true;
  }
  return false;
}

/// The staged contraction directly in `nest` that multiplies two distinct
/// factors, if there is one (a row's sum of squares, a variance, is none).
/// Its factors may still be views not fused yet (broadcasts of every
/// index), so the orientation of a matrix product is not asked.
Operation *productOfTwoFactors(ParallelOp nest, FusionMemo &memo) {
  for (Operation &op : nest.getBody().front()) {
    if (!isStagedContraction(&op, nest, memo))
      continue;
    Operation *yield = cast<ReduceOp>(op).getBody().front().getTerminator();
    auto product = yield->getOperand(0).getDefiningOp<arith::MulFOp>();
    if (product && product.getLhs() != product.getRhs())
      return &op;
  }
  return nullptr;
}

/// Whether a reduction directly in `nest` sums loads (a contraction whose
/// product kernel has not fused into it yet); a maximum of loads is none.
bool sumsLoads(ParallelOp nest) {
  for (ReduceOp r : nest.getBody().front().getOps<ReduceOp>()) {
    Value yielded = r.getBody().front().getTerminator()->getOperand(0);
    if (r.getCombinerList() == SmallVector<Combiner>{Combiner::add} &&
        yielded.getDefiningOp<LoadOp>())
      return true;
  }
  return false;
}

/// Whether a load of `buffer` feeds the epilogue of a contraction the
/// contraction schedule would take (rows and columns both many): it sits
/// in a nest with one, outside its reduction, and its value reaches an op
/// outside the reduction (a prologue value loaded beside the reduction,
/// RMSNorm's scale, is used only inside it).
bool readsInContractionEpilogue(Value buffer, FusionMemo &memo) {
  for (LoadOp load : loadsOf(buffer)) {
    auto [unit, nest] = outerUnit(load);
    if (!nest)
      continue;
    ArrayRef<int64_t> bounds = nest.getBounds();
    if (bounds.size() < 2 ||
        bounds[bounds.size() - 2] < kMinContractionRowsAndColumns ||
        bounds.back() < kMinContractionRowsAndColumns)
      continue;
    Operation *contraction = productOfTwoFactors(nest, memo);
    if (!contraction || contraction->isAncestor(load))
      continue;
    SmallVector<Operation *> work{load};
    llvm::SmallPtrSet<Operation *, 8> seen;
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      for (Operation *user : op->getUsers()) {
        if (contraction->isAncestor(user) || !seen.insert(user).second)
          continue;
        if (user->getNumResults() == 0)
          return true; // A store (or other effect) of the epilogue.
        work.push_back(user);
      }
    }
  }
  return false;
}

/// Whether a top-level reduction of `kernel`'s nest is a row-vector fold.
bool endsInRowVector(KernelOp kernel, FusionMemo &memo) {
  for (auto nest : kernel.getBody().front().getOps<ParallelOp>())
    for (auto reduce : nest.getBody().front().getOps<ReduceOp>())
      if (isRowVectorFold(reduce, nest, memo))
        return true;
  return false;
}

/// How a load's read index identifies the element it reads: itself, or
/// for the index of a reduction in a kernel's outer nest (inside other
/// reductions only), the reduction's box and the index's position in it,
/// the same for every reduction over that box. Normalization hoists a
/// reduction that does not depend on the reductions around it into the
/// row and merges equal ones, and tileir-fuse-folds folds the dependent
/// reductions of a row in one pass (max, then the sum of exp(x - max),
/// then the sums weighted by exp(x - max)): counting one computation per
/// element of the box is exact for those, and low by the number of passes
/// for reductions of a row that stay apart. Used only in rows that end in
/// a row vector.
SmallVector<const void *, 2> siblingFoldKey(Value index) {
  auto arg = dyn_cast<BlockArgument>(index);
  auto reduce = arg ? dyn_cast<ReduceOp>(arg.getOwner()->getParentOp())
                    : nullptr;
  if (!reduce)
    return {index.getAsOpaquePointer()};
  Operation *parent = reduce->getParentOp();
  while (isa<ReduceOp>(parent))
    parent = parent->getParentOp();
  if (!isa<ParallelOp>(parent) || !isa<KernelOp>(parent->getParentOp()))
    return {index.getAsOpaquePointer()};
  return {reduce.getBoundsAttr().getAsOpaquePointer(),
          reinterpret_cast<const void *>(
              static_cast<uintptr_t>(arg.getArgNumber()))};
}

/// The elements of its input `pos` that `consumer` computes again with the
/// producer fused (`scalar`: the producer has no reduction).
double consumerDemand(KernelOp consumer, unsigned pos, bool scalar,
                      FusionMemo &memo) {
  double demand = 0;
  UnitDependences unitDependences;
  // Loads of one element in one consumer (same address once unused indices
  // are dropped) become one computation after normalization, and in a
  // row that ends in a row vector (attention's output row) so do loads of
  // one element per point of reductions over the same box (siblingFoldKey:
  // tileir-fuse-folds folds them with the vector's sums in one pass).
  std::set<SmallVector<const void *>> seen; // map, then read indices
  bool vectorRow = endsInRowVector(consumer, memo);
  for (LoadOp load : loadsOf(consumer.getInputBuffers()[pos])) {
    SmallVector<const void *> key = {
        memo.compressed(load.getIndexMap()).getAsOpaquePointer()};
    for (Value index : readIndices(load, memo)) {
      if (!vectorRow) {
        key.push_back(index.getAsOpaquePointer());
        continue;
      }
      for (const void *part : siblingFoldKey(index))
        key.push_back(part);
    }
    if (!seen.insert(key).second)
      continue;
    demand += loadWork(load, scalar, unitDependences, memo);
  }
  return demand;
}

/// The conversion (a widening or narrowing cast) that `kernel` is nothing
/// but, applied to its one input (a load, the cast, a store), or null.
Operation *copyConversion(KernelOp kernel) {
  if (kernel.getInputs().size() != 1 || kernel->getNumResults() != 1)
    return nullptr;
  auto nests = kernel.getBody().front().getOps<ParallelOp>();
  if (!llvm::hasSingleElement(nests))
    return nullptr;
  Block &body = (*nests.begin()).getBody().front();
  if (llvm::range_size(body) != 4) // load, convert, store, yield
    return nullptr;
  auto store = dyn_cast<StoreOp>(*std::next(body.begin(), 2));
  Operation *conversion = store ? store.getValue().getDefiningOp() : nullptr;
  if (!conversion || conversion->getNumOperands() != 1 ||
      !conversion->getOperand(0).getDefiningOp<LoadOp>() ||
      !isa<arith::ExtFOp, arith::ExtSIOp, arith::ExtUIOp, arith::TruncFOp,
           arith::TruncIOp>(conversion))
    return nullptr;
  return conversion;
}

/// Whether `kernel` only widens its one input (arith.extf, extsi, extui),
/// element by element, for other kernels to read: fused into the kernels
/// that read the wide values, the narrow values stay what is stored (half
/// the bytes of bf16 or f16 in memory), and a contraction that widens its
/// operands itself reads them narrow, as tensor cores do. So it takes no
/// producer; its consumers take it.
bool isWideningCopy(KernelOp kernel) {
  Operation *conversion = copyConversion(kernel);
  return conversion &&
         isa<arith::ExtFOp, arith::ExtSIOp, arith::ExtUIOp>(conversion) &&
         llvm::all_of(kernel->getUsers(),
                      [](Operation *user) { return isa<KernelOp>(user); });
}

/// Whether `kernel` only rounds the result of the one kernel that feeds it
/// and feeds nothing else (a matrix product in halves decomposes into an
/// f32 contraction and `truncf`): that producer takes it as its epilogue
/// and writes the narrow values. Recomputed in its consumers instead (a
/// cast has no arithmetic to weigh), it left the contraction to write f32
/// for all of them: a Llama-2-7B layer's bf16 attention scores, 537 MB
/// written and read twice where 268 MB is the rounded tensor.
bool roundsForItsProducer(KernelOp kernel) {
  Operation *conversion = copyConversion(kernel);
  if (!conversion || !isa<arith::TruncFOp, arith::TruncIOp>(conversion))
    return false;
  Value input = kernel.getInputs()[0];
  return input.getDefiningOp<KernelOp>() && input.hasOneUse();
}

struct FuseProducer : OpRewritePattern<KernelOp> {
  FuseProducer(MLIRContext *ctx, double maxRecompute, double roundTripCost,
               unsigned maxKernelOps, FusionMemo *memo)
      : OpRewritePattern(ctx), maxRecompute(maxRecompute),
        roundTripCost(roundTripCost), maxKernelOps(maxKernelOps), memo(memo) {}

  LogicalResult matchAndRewrite(KernelOp consumer,
                                PatternRewriter &rewriter) const override {
    FusionMemo local; // Without the driver's memo: for this match only.
    FusionMemo &m = memo ? *memo : local;
    if (isWideningCopy(consumer))
      return rewriter.notifyMatchFailure(consumer, "widens for its readers");
    for (auto [pos, input] : llvm::enumerate(consumer.getInputs())) {
      auto kernel = input.getDefiningOp<KernelOp>();
      if (!kernel || m.isRejected(kernel) || roundsForItsProducer(kernel))
        continue;
      FailureOr<Producer> producer = analyzeProducer(kernel, m);
      if (failed(producer) ||
          !fusesIntoGuardedSites(*producer, usesOf(kernel.getResult(0))) ||
          !worthFusing(*producer, m)) {
        m.reject(kernel);
        continue;
      }
      fuse(rewriter, consumer, pos, *producer);
      return success();
    }
    return rewriter.notifyMatchFailure(consumer, "no producer to fuse");
  }

  /// The guard. Each op of the producer costs its arithmetic once per value
  /// of the producer indices it depends on (loopir-normalize hoists the
  /// rest). Fused, the producer runs again wherever a consumer needs an
  /// element: `demand` counts the elements needed over all consumers, per
  /// element of the result. Fusion must cost at most maxRecompute times the
  /// producer as a kernel: its work plus a round trip of every element.
  bool worthFusing(Producer p, FusionMemo &m) const {
    Uses uses = usesOf(p.kernel.getResult(0));
    // A producer that reduces fits every consumer or fuses into none: one
    // kept for one consumer and cloned into the others leaves copies of
    // its own producers in both (an unrolled recurrence multiplies them
    // step by step). Elementwise producers are not bounded: cutting a long
    // formula (int64 gcd, Euclid unrolled) into kernels of 4096 ops made
    // the program hang in the CPU emulation, not yet understood.
    if (p.reduces && !llvm::all_of(uses.consumers, [&](auto use) {
          return fitsIn(use.first, use.second, p, m);
        }))
      return false;
    // A statistic (a reduction) in a contraction's epilogue makes its nest
    // two reductions, which no contraction schedule takes: the product
    // would be computed point by point. (A sum of loads is no statistic
    // but a contraction whose product has not joined it yet: a depthwise
    // convolution's window.) A statistic of no contraction's
    // results stays a kernel (the `any` of SDPA's mask over a row of keys,
    // selecting the P . V rows that see no key); one of the product's own
    // rows (softmax's max and sum) joins it, for the row or flash schedule.
    SmallVector<ArrayRef<int64_t>> feeding;
    llvm::SmallPtrSet<Operation *, 16> visited;
    contractionsFeeding(p.kernel, feeding, m, visited);
    if (p.reduces && feeding.empty() && !sumsLoads(p.nest) &&
        !stagedContractionBox(p.nest, m) &&
        llvm::any_of(uses.consumers, [&](auto use) {
          return readsInContractionEpilogue(
              use.first.getInputBuffers()[use.second], m);
        }))
      return false;
    // A rounding to a half stays where it rounds: fused into a contraction's
    // operand, the contraction would stage the wide values (twice the
    // bytes per element, computed rather than copied asynchronously) where
    // the rounded tensor is what it multiplies. (The softmax of f32 scores
    // rounded to bf16 before P . V in transformers' eager attention: fused,
    // the exponentials were written and read back in f32, 2.3 times the
    // weights' bytes.)
    if (narrowsAWideTensor(p, m) && llvm::any_of(uses.consumers, [&](auto use) {
          return readsInStagedContraction(
              use.first.getInputBuffers()[use.second], m);
        }))
      return false;
    if (p.work == 0)
      return true; // Moving data is free to repeat.
    // A contraction in another contraction's epilogue makes a kernel of
    // two reductions over different k, which no contraction schedule takes
    // (over the same k they are siblings: one reduction, two products).
    auto intoOtherContraction = [&](ArrayRef<int64_t> k) {
      for (auto use : uses.consumers)
        for (auto nest : use.first.getBody().front().getOps<ParallelOp>())
          if (std::optional<ArrayRef<int64_t>> other =
                  stagedContractionBox(nest, m);
              other && *other != k)
            return true;
      return false;
    };
    if (std::optional<ArrayRef<int64_t>> k =
            stagedContractionBox(p.nest, m, /*orSumOfLoads=*/true)) {
      if (intoOtherContraction(*k))
        return false;
      // A kernel of several nests (a concatenation) gets the generic
      // schedule, which computes a fused contraction element by element.
      for (auto [consumer, pos] : uses.consumers)
        if (!llvm::hasSingleElement(
                consumer.getBody().front().getOps<ParallelOp>()))
          return false;
      // Staged, a contraction reads each operand element once per block
      // tile; recomputed in a consumer's reduction, once per element it
      // makes (a row of scores per query reads all the keys), which the
      // arithmetic above does not see. Only a row vector (attention's
      // output row for a short query) computes each element once.
      for (auto [consumer, pos] : uses.consumers)
        if (recomputesInReduction(consumer.getInputBuffers()[pos], m))
          return false;
    }

    // Likewise, an epilogue of contractions (silu(gate) * up) stays where
    // they can join it: in another contraction's prologue it would leave
    // them to write their results (two tensors instead of one).
    if (llvm::any_of(feeding, intoOtherContraction))
      return false;
    double demand = uses.producerStays ? p.elements : 0;
    for (std::pair<KernelOp, unsigned> use : uses.consumers)
      demand += m.demand(use.first, use.second, p.reduces, [&] {
        return consumerDemand(use.first, use.second, !p.reduces, m);
      });
    // Memory traffic counts too, a read as half a round trip: fused, an
    // elementwise producer's loads repeat wherever it is recomputed;
    // unfused, it loads once, writes its result, and its consumers read
    // that. (Arithmetic alone made a residual add fuse into both of its
    // consumers, and the next add into both of its, each layer's kernels
    // re-reading every earlier layer's outputs: GPT-2's residual stream,
    // 85 MB before the LM head; BERT-base's twelve layers took 288 s to
    // fuse.) A producer that reduces is weighed by its arithmetic alone,
    // as before: recomputing it is what costs. One that loads nothing (a
    // mask computed from indices) is credited its consumers' reads once
    // per consumer: a consumer that reads an element many times (a mask
    // per head) reads it from cache after the first, and crediting every
    // read fused transformers' GPT-2 mask into an attention kernel that
    // then lost its flash schedule.
    double read = p.reduces ? 0 : roundTripCost / 2;
    double perConsumer = std::min<double>(
        demand, p.elements * (uses.consumers.size() + uses.producerStays));
    double reads = p.loads ? demand : perConsumer;
    double fused = demand / p.elements * (p.work + read * p.loads);
    double unfused = p.work + read * p.loads + p.elements * roundTripCost +
                     read * std::max(0.0, reads - p.elements);
    return fused <= maxRecompute * unfused;
  }

  /// Whether `consumer`'s body stays within maxKernelOps with a clone of
  /// the producer at each site that loads its input `pos`.
  bool fitsIn(KernelOp consumer, unsigned pos, const Producer &p,
              FusionMemo &m) const {
    unsigned own = m.ops(consumer, [&] {
      unsigned ops = 0;
      consumer.getBody().walk([&](Operation *) { ++ops; });
      return ops;
    });
    size_t sites = loadsOf(consumer.getInputBuffers()[pos]).size();
    return own + sites * p.ops <= maxKernelOps;
  }

  /// Inlines the producer into `consumer` in place: its inputs the
  /// consumer lacks become new inputs, and each load of the fused buffer
  /// becomes a copy of the producer's element computation. In place, so a
  /// fusion costs the producer's size times its sites, not the consumer's
  /// size (a chain of N elementwise kernels fuses in O(N), not O(N^2)).
  void fuse(PatternRewriter &rewriter, KernelOp consumer, unsigned pos,
            Producer p) const {
    Location loc = consumer.getLoc();
    Block *body = &consumer.getBody().front();
    Value fusedBuffer = consumer.getInputBuffers()[pos];
    SmallVector<Value> inputs(consumer.getInputs());
    SmallVector<Operation *> producers;
    for (Value input : inputs)
      if (Operation *def = input.getDefiningOp<KernelOp>())
        producers.push_back(def);
    rewriter.modifyOpInPlace(consumer, [&] {
      for (Value v : p.kernel.getInputs()) {
        if (llvm::is_contained(inputs, v))
          continue;
        auto type = cast<RankedTensorType>(v.getType());
        body->insertArgument(inputs.size(),
                             MemRefType::get(type.getShape(),
                                             type.getElementType()),
                             loc);
        inputs.push_back(v);
      }
    });
    auto argFor = [&](Value tensor) {
      return body->getArgument(llvm::find(inputs, tensor) - inputs.begin());
    };

    // Inline the producer at every load of the fused buffer, in program
    // order (not by the blocks' addresses: the order of the clones is the
    // order the greedy driver visits them in, so fusion's decisions would
    // change from run to run). Not loadsOf's use-list order either: taking
    // the sites from it changed which kernels fuse (the cumsum of a
    // softmax over 50257 columns became 3 kernels, test_scan.py).
    SmallVector<LoadOp> sites;
    body->walk([&](LoadOp load) {
      if (load.getMemref() == fusedBuffer)
        sites.push_back(load);
    });
    IRMapping producerArgs;
    for (auto [arg, tensor] :
         llvm::zip(p.kernel.getInputBuffers(), p.kernel.getInputs()))
      producerArgs.map(arg, argFor(tensor));
    ValueRange producerIvs = p.nest.getInductionVars();
    // Loads of one element in one block read one computation of it: the
    // first (which dominates the rest) computes it, the rest reuse it.
    // Without this, a formula that reads each value twice (x * x, or a
    // select of x) doubles with every producer fused into it.
    std::map<SmallVector<const void *>, Value> computed;
    for (LoadOp site : sites) {
      SmallVector<const void *> key = {
          site->getBlock(), site.getMapAttr().getAsOpaquePointer(),
          site.getGuardAttr().getAsOpaquePointer(),
          site.getPaddingAttr().getAsOpaquePointer()};
      for (Value index : site.getIndices())
        key.push_back(index.getAsOpaquePointer());
      if (auto known = computed.find(key); known != computed.end()) {
        rewriter.replaceOp(site, known->second);
        continue;
      }
      rewriter.setInsertionPoint(site);
      // The producer's loop indices at this site, for the producer's ops
      // that compute with them (iota, masks); loads compose maps instead.
      SmallVector<Value> coords = *affine::expandAffineMap(
          rewriter, site.getLoc(), site.getIndexMap(), site.getIndices());
      IRMapping element = producerArgs;
      for (Operation *op : p.preamble)
        rewriter.clone(*op, element);
      SmallVector<Operation *> cloned;
      for (Operation &op : p.nest.getBody().front().without_terminator())
        if (&op != p.store.getOperation())
          cloned.push_back(rewriter.clone(op, element));
      SmallVector<LoadOp> producerLoads;
      for (Operation *op : cloned)
        op->walk([&](LoadOp l) { producerLoads.push_back(l); });
      bool copy = isCopy(p);
      for (LoadOp l : producerLoads) {
        composeAccess(rewriter, l, producerIvs, site.getIndices(),
                      site.getIndexMap());
        if (site.getGuard())
          takeGuard(rewriter, l, site, /*sitePadding=*/copy);
      }
      for (auto [iv, coord] : llvm::zip(producerIvs, coords))
        rewriter.replaceUsesWithIf(iv, coord, [&](OpOperand &use) {
          return llvm::any_of(cloned, [&](Operation *op) {
            return op->isAncestor(use.getOwner());
          });
        });
      Value value = element.lookupOrDefault(p.store.getValue());
      if (site.getGuard() && !copy)
        value = selectSitePadding(rewriter, site, value);
      computed[std::move(key)] = value;
      rewriter.replaceOp(site, value);
    }
    rewriter.modifyOpInPlace(consumer, [&] {
      body->eraseArgument(pos);
      inputs.erase(inputs.begin() + pos);
      consumer->setOperands(inputs);
    });
    // The driver revisits a modified op, but not its neighbours: the
    // consumer's own consumers weigh it again, now that it computes more,
    // and before them its producers (the fused one, dead now, to be
    // erased), in the order the driver would visit them had the consumer
    // been replaced by a new kernel (which fusion decisions depend on).
    for (Operation *user : consumer->getUsers())
      rewriter.modifyOpInPlace(user, [] {});
    for (Operation *producer : producers)
      rewriter.modifyOpInPlace(producer, [] {});
  }

  double maxRecompute, roundTripCost;
  unsigned maxKernelOps;
  FusionMemo *memo;
};

struct LoopIRFusePass
    : strata::loopir::impl::LoopIRFusePassBase<LoopIRFusePass> {
  using LoopIRFusePassBase::LoopIRFusePassBase;
  void runOnOperation() override {
    // Access maps as the loops' bounds simplify them (a reshape through a
    // unit dimension reads no index), so that the cost model sees which
    // indices each load really depends on.
    RewritePatternSet access(&getContext());
    populateSimplifyAccessPatterns(access);
    if (failed(applyPatternsGreedily(getOperation(), std::move(access))))
      return signalPassFailure();
    FusionMemo memo;
    RewritePatternSet patterns(&getContext());
    populateFusePatterns(patterns, maxRecompute, roundTripCost, maxKernelOps,
                         &memo);
    GreedyRewriteConfig config;
    config.setListener(&memo);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

/// `map[key]`, computed the first time. `compute` may fill `map` itself
/// (the entry is made after it returns).
template <typename Map, typename Key, typename Compute>
typename Map::mapped_type lookupOrCompute(Map &map, const Key &key,
                                          Compute compute) {
  auto it = map.find(key);
  if (it == map.end())
    it = map.try_emplace(key, compute()).first;
  return it->second;
}
} // namespace

const llvm::SmallBitVector &FusionMemo::readDims(AffineMap map) {
  auto [it, inserted] = dimsRead.try_emplace(map, map.getNumDims());
  llvm::SmallBitVector &read = it->second;
  if (inserted) // One walk, not one per dim as isFunctionOfDim would.
    for (AffineExpr e : map.getResults())
      e.walk([&](AffineExpr x) {
        if (auto d = dyn_cast<AffineDimExpr>(x))
          read.set(d.getPosition());
      });
  return read;
}

AffineMap FusionMemo::compressed(AffineMap map) {
  return lookupOrCompute(compressedMaps, map,
                         [&] { return compressDims(map, ~readDims(map)); });
}

bool FusionMemo::isManyRowContraction(ParallelOp nest,
                                      llvm::function_ref<bool()> compute) {
  return lookupOrCompute(contractions, nest.getOperation(), compute);
}

std::optional<ArrayRef<int64_t>> FusionMemo::stagedBox(
    ParallelOp nest, bool orSumOfLoads,
    llvm::function_ref<std::optional<ArrayRef<int64_t>>()> compute) {
  return lookupOrCompute(
      stagedBoxes, std::make_pair(nest.getOperation(), unsigned(orSumOfLoads)),
      compute);
}

FusionMemo::ProducerCost
FusionMemo::cost(KernelOp producer,
                 llvm::function_ref<ProducerCost()> compute) {
  return lookupOrCompute(costs, producer.getOperation(), compute);
}

unsigned FusionMemo::ops(KernelOp kernel,
                         llvm::function_ref<unsigned()> compute) {
  return lookupOrCompute(opCounts, kernel.getOperation(), compute);
}

double FusionMemo::demand(KernelOp consumer, unsigned input, bool reduces,
                          llvm::function_ref<double()> compute) {
  return lookupOrCompute(demands[consumer], 2 * input + unsigned(reduces),
                         compute);
}

void FusionMemo::forget(Operation *op) {
  auto kernel = dyn_cast<KernelOp>(op);
  if (!kernel)
    kernel = op->getParentOfType<KernelOp>();
  if (!kernel)
    return;
  rejected.erase(kernel);
  costs.erase(kernel);
  opCounts.erase(kernel);
  demands.erase(kernel);
  auto forgetNest = [&](Operation *nest) {
    contractions.erase(nest);
    stagedBoxes.erase({nest, 0});
    stagedBoxes.erase({nest, 1});
  };
  if (isa<ParallelOp>(op))
    forgetNest(op);
  if (!kernel.getBody().empty()) // Not while it is being built.
    for (auto nest : kernel.getBody().front().getOps<ParallelOp>())
      forgetNest(nest);
  for (Value input : kernel.getInputs())
    if (auto producer = input.getDefiningOp<KernelOp>())
      rejected.erase(producer);
}

void strata::loopir::populateFusePatterns(RewritePatternSet &patterns,
                                          double maxRecompute,
                                          double roundTripCost,
                                          unsigned maxKernelOps,
                                          FusionMemo *memo) {
  patterns.add<FuseProducer>(patterns.getContext(), maxRecompute, roundTripCost,
                             maxKernelOps, memo);
}
