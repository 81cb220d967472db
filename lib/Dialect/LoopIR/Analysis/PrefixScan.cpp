// Recognizing prefix scans in loop nests (see PrefixScan.h).

#include "strata/Dialect/LoopIR/Analysis/PrefixScan.h"
#include "strata/Dialect/Utils/Monoid.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace strata;
using namespace strata::loopir;

namespace {

/// `v` without the index casts around it.
Value stripIndexCasts(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<arith::IndexCastOp, arith::IndexCastUIOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// The nest dimension d for which `condition` is `k <= i_d` (`keepWhen`
/// true) or `k > i_d` (false), k the reduction index `k`, i the nest's
/// indices `ivs` (each possibly cast to an integer).
std::optional<unsigned> prefixDim(Value condition, Value k, ValueRange ivs,
                                  bool keepWhen) {
  auto cmp = condition.getDefiningOp<arith::CmpIOp>();
  if (!cmp)
    return std::nullopt;
  Value lhs = stripIndexCasts(cmp.getLhs()),
        rhs = stripIndexCasts(cmp.getRhs());
  using P = arith::CmpIPredicate;
  P pred = cmp.getPredicate();
  // k <= i, or k > i; or the same written i >= k, i < k.
  bool kFirst = lhs == k;
  if (!kFirst && rhs != k)
    return std::nullopt;
  Value i = kFirst ? rhs : lhs;
  auto iv = llvm::find(ivs, i);
  if (iv == ivs.end())
    return std::nullopt;
  bool inclusive = kFirst ? (pred == P::sle || pred == P::ule)
                          : (pred == P::sge || pred == P::uge);
  bool past = kFirst ? (pred == P::sgt || pred == P::ugt)
                     : (pred == P::slt || pred == P::ult);
  if (keepWhen ? !inclusive : !past)
    return std::nullopt;
  return static_cast<unsigned>(iv - ivs.begin());
}

/// Whether `v` is the constant `identity`.
bool isConstant(Value v, TypedAttr identity) {
  Attribute a;
  return matchPattern(v, m_Constant(&a)) && a == identity;
}

/// Whether `op` reads a value of `varying` (an operand, or a value its
/// regions use from above).
bool readsAny(Operation *op, const llvm::SmallPtrSetImpl<Operation *> &varying,
              Value index) {
  auto varies = [&](Value v) {
    Operation *def = v.getDefiningOp();
    return v == index || (def && varying.contains(def));
  };
  // A load's indices that neither its map nor its guard reads (a
  // broadcast's) do not count.
  if (auto load = dyn_cast<LoadOp>(op)) {
    AffineMap map = load.getIndexMap();
    for (auto [pos, index] : llvm::enumerate(load.getIndices()))
      if ((map.isFunctionOfDim(pos) || load.getGuard()) && varies(index))
        return true;
    return false;
  }
  if (llvm::any_of(op->getOperands(), varies))
    return true;
  bool inner = false;
  op->walk([&](Operation *nested) {
    if (nested != op && llvm::any_of(nested->getOperands(), varies))
      inner = true;
  });
  return inner;
}

/// Whether `a`, computed in a reduction of index `ka`, is the same
/// computation as `b` in one of index `kb`: the same value from outside,
/// the indices, or equal pure ops (loads included) of equal operands.
bool sameComputation(Value a, Value b, Value ka, Value kb) {
  if (a == ka || b == kb)
    return a == ka && b == kb;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (a == b)
    return true;
  if (!x || !y || x->getName() != y->getName() ||
      x->getAttrDictionary() != y->getAttrDictionary() ||
      x->getResultTypes() != y->getResultTypes() ||
      x->getNumOperands() != y->getNumOperands() || x->getNumRegions() != 0 ||
      !(isPure(x) || isa<LoadOp>(x)))
    return false;
  for (auto [p, q] : llvm::zip(x->getOperands(), y->getOperands()))
    if (!sameComputation(p, q, ka, kb))
      return false;
  return true;
}

/// The scanned f32 maximum among `scanned` that `contribution` (of the
/// sum `sum`) rescales to, if it is `exp(x - m)`: m that maximum's prefix,
/// x the maximum's own contribution.
ReduceOp rescalingMaximum(Value contribution, ReduceOp sum,
                          ArrayRef<ReduceOp> scanned,
                          const DenseMap<Operation *, Value> &masks) {
  auto exp = contribution.getDefiningOp<math::ExpOp>();
  auto sub = exp ? exp.getOperand().getDefiningOp<arith::SubFOp>() : nullptr;
  if (!sub || sum.getNumResults() != 1 ||
      sum.getCombinerList()[0] != Combiner::add ||
      !contribution.getType().isF32())
    return {};
  auto max = sub.getRhs().getDefiningOp<ReduceOp>();
  if (!max || !llvm::is_contained(scanned, max) || max.getNumResults() != 1 ||
      max.getCombinerList()[0] != Combiner::max)
    return {};
  Value x = masks.lookup(
      max.getBody().front().getTerminator()->getOperand(0).getDefiningOp());
  if (!sameComputation(sub.getLhs(), x, sum.getInductionVars()[0],
                       max.getInductionVars()[0]))
    return {};
  return max;
}
} // namespace

/// The masking selects of `reduce` (each with its contribution) if every
/// contribution is masked to a prefix along one dimension of `ivs`, and
/// that dimension; none otherwise.
static std::optional<unsigned>
matchPrefixMasks(ReduceOp reduce, ValueRange ivs,
                 DenseMap<Operation *, Value> &masks) {
  if (reduce.getBounds().size() != 1)
    return std::nullopt;
  Value k = reduce.getInductionVars()[0];
  std::optional<unsigned> dim;
  DenseMap<Operation *, Value> found;
  for (auto [v, c] :
       llvm::zip(reduce.getBody().front().getTerminator()->getOperands(),
                 reduce.getCombinerList())) {
    auto select = v.getDefiningOp<arith::SelectOp>();
    if (ReduceOp::isArgCombiner(c) || !select ||
        select->getParentOp() != reduce)
      return std::nullopt;
    TypedAttr identity =
        getMonoidIdentity(ReduceOp::getMonoidKind(c), v.getType());
    bool keepWhen = isConstant(select.getFalseValue(), identity);
    if (!keepWhen && !isConstant(select.getTrueValue(), identity))
      return std::nullopt;
    std::optional<unsigned> d =
        prefixDim(select.getCondition(), k, ivs, keepWhen);
    if (!d || (dim && *d != *dim))
      return std::nullopt;
    dim = d;
    found[select] = keepWhen ? select.getTrueValue() : select.getFalseValue();
  }
  masks.insert(found.begin(), found.end());
  return dim;
}

std::optional<PrefixScan> loopir::matchPrefixScan(ParallelOp nest) {
  Block &body = nest.getBody().front();
  ValueRange ivs = nest.getInductionVars();
  PrefixScan match;
  std::optional<unsigned> dim;
  for (Operation &op : body.without_terminator()) {
    if (isa<ParallelOp>(op))
      return std::nullopt;
    auto reduce = dyn_cast<ReduceOp>(op);
    if (!reduce)
      continue;
    bool loops = false;
    reduce.getBody().walk([&](Operation *inner) {
      loops |= inner != reduce && isa<ReduceOp, ParallelOp>(inner);
    });
    if (loops)
      return std::nullopt;
    // Other reductions (a softmax's statistics before its cumsum) must
    // fold the same for the whole row: checked below.
    std::optional<unsigned> d = matchPrefixMasks(reduce, ivs, match.masks);
    if (!d)
      continue;
    if ((dim && *d != *dim) || nest.getBounds()[*d] != reduce.getBounds()[0])
      return std::nullopt;
    dim = d;
    match.reductions.push_back(reduce);
  }
  if (!dim)
    return std::nullopt;
  match.dim = *dim;
  // What varies along the row: the index, what is computed from it, the
  // prefixes and what is computed from them. Inside a scanned reduction
  // only the masks' conditions may vary (the contributions are the row's);
  // another reduction may not vary at all.
  Value index = ivs[*dim];
  for (Operation &op : body.without_terminator()) {
    auto reduce = dyn_cast<ReduceOp>(op);
    if (!reduce || !llvm::is_contained(match.reductions, reduce)) {
      if (readsAny(&op, match.varying, index)) {
        if (reduce)
          return std::nullopt;
        match.varying.insert(&op);
      } else if (isa<StoreOp>(op)) {
        return std::nullopt; // A store once per row: not a scan's.
      }
      continue;
    }
    for (Operation &inner : reduce.getBody().front().without_terminator()) {
      auto mask = match.masks.find(&inner);
      if (mask != match.masks.end()) {
        Operation *def = mask->second.getDefiningOp();
        if (mask->second == index)
          return std::nullopt;
        if (!def || !match.varying.contains(def))
          continue;
        // Varying along the row: only a sum relative to a maximum's
        // prefix, whose other varying ops are its exp and subtraction.
        ReduceOp max = rescalingMaximum(mask->second, reduce, match.reductions,
                                        match.masks);
        if (!max || llvm::any_of(match.rescaledSums, [&](auto &pair) {
              return pair.second == max;
            }))
          return std::nullopt;
        match.rescaledSums[reduce] = max;
        continue;
      }
      if (readsAny(&inner, match.varying, index))
        match.varying.insert(&inner);
    }
    match.varying.insert(reduce);
  }
  return match;
}
