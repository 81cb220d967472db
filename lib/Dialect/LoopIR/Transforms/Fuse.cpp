// loopir-fuse: inline producer kernels into the kernels that load their
// results, so that intermediates never make a round trip through memory.

#include "FusionCost.h"
#include "FusionMemo.h"
#include "strata/Dialect/LoopIR/Analysis/AffineRange.h"
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
using namespace strata::loopir::fusion;

namespace {

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
