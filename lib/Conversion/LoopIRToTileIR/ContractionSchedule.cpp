// The contraction schedule: block tiles of a matrix product.
//
// A loop nest (..., i, j) whose body reduces over k the product of a factor
// that does not depend on j (the lhs: A[i, k] with its prologue math) and
// one that does not depend on i (the rhs: B[k, j]) becomes one program
// instance per BM x BN tile of (i, j); the reduction becomes a
// tileir.contract whose operand regions hold the factors' scalar code, and
// the rest of the body (bias, activation, store) the elementwise epilogue.
// Sibling products fused into one reduction (gate and up projections of one
// input) become one tileir.contract each, in the same program; a fused
// prologue's per-row values (RMSNorm's scale, loaded beside the reduction)
// move into the operand that uses them.

#include "TileKernelBuilder.h"
#include "strata/Dialect/Utils/ScheduleModel.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace strata;

namespace {

/// The ops that compute `value` in a reduction `body` directly inside
/// `nest`, in program order, if they are scalar code (loads and pure ops)
/// that uses from outside only kernel-level values, the nest's indices and
/// the reduction index. Ops of the nest's body before the reduction (a
/// prologue's row statistic: a load of the row's scale) are part of it,
/// first.
std::optional<SmallVector<Operation *>> cone(Value value, Block &body,
                                             loopir::ParallelOp nest) {
  Block &nestBody = nest.getBody().front();
  llvm::SetVector<Operation *> ops;
  SmallVector<Value> work{value};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def) {
      auto arg = cast<BlockArgument>(v);
      if (arg.getOwner() != &body && arg.getOwner() != &nestBody &&
          !isa<loopir::KernelOp>(arg.getOwner()->getParentOp()))
        return std::nullopt;
      continue;
    }
    if (def->getBlock() != &body && def->getBlock() != &nestBody) {
      // Values from outside the nest must be kernel-level.
      if (nest->isAncestor(def))
        return std::nullopt;
      continue;
    }
    if (def->getNumRegions() != 0 || !(isa<loopir::LoadOp>(def) || isPure(def)))
      return std::nullopt;
    if (ops.insert(def))
      llvm::append_range(work, def->getOperands());
  }
  SmallVector<Operation *> ordered;
  for (Block *block : {&nestBody, &body})
    for (Operation &op : *block)
      if (ops.contains(&op))
        ordered.push_back(&op);
  return ordered;
}

/// Whether any op of `ops` uses `index`.
bool uses(ArrayRef<Operation *> ops, Value index) {
  return llvm::any_of(ops, [&](Operation *op) {
    return llvm::is_contained(op->getOperands(), index);
  });
}

} // namespace

namespace {
/// The factors of `product`, yielded by the reduction `body` of `nest`,
/// oriented lhs (free of the columns) and rhs (free of the rows).
std::optional<ContractionFactors> matchProduct(Value product, Block &body,
                                               loopir::ParallelOp nest) {
  auto mul = product.getDefiningOp<arith::MulFOp>();
  if (!mul || mul->getBlock() != &body)
    return std::nullopt;
  // Only the product and the factors' computations may be in the body.
  ContractionFactors factors{mul.getLhs(), mul.getRhs(), {}, {}};
  auto lhs = cone(factors.lhs, body, nest), rhs = cone(factors.rhs, body, nest);
  if (!lhs || !rhs)
    return std::nullopt;
  factors.lhsOps = *lhs;
  factors.rhsOps = *rhs;
  ValueRange ivs = nest.getInductionVars();
  Value row = ivs[ivs.size() - 2], column = ivs.back();
  // b[k, j] * a[i, k]: the column factor first.
  if (uses(factors.lhsOps, column) && !uses(factors.lhsOps, row) &&
      !uses(factors.rhsOps, column)) {
    std::swap(factors.lhs, factors.rhs);
    std::swap(factors.lhsOps, factors.rhsOps);
  }
  if (uses(factors.lhsOps, column) || uses(factors.rhsOps, row))
    return std::nullopt;
  // A computation both factors share would be cloned into both.
  for (Operation *op : factors.lhsOps)
    if (llvm::is_contained(factors.rhsOps, op))
      return std::nullopt;
  return factors;
}

/// The ops of the nest's body that only the factors use: they move into
/// the contraction's operand regions.
SmallVector<Operation *> findPrologue(const ContractionMatch &match,
                                      loopir::ParallelOp nest) {
  llvm::SmallPtrSet<Operation *, 16> factorOps, prologue;
  for (const ContractionFactors &factors : match.products) {
    factorOps.insert(factors.lhsOps.begin(), factors.lhsOps.end());
    factorOps.insert(factors.rhsOps.begin(), factors.rhsOps.end());
  }
  Block &nestBody = nest.getBody().front();
  SmallVector<Operation *> ordered;
  for (Operation &op : llvm::reverse(nestBody)) {
    if (!factorOps.contains(&op))
      continue;
    bool onlyFactors = llvm::all_of(op.getUsers(), [&](Operation *user) {
      return match.reduce->isAncestor(user) || prologue.contains(user);
    });
    if (onlyFactors) {
      prologue.insert(&op);
      ordered.push_back(&op);
    }
  }
  std::reverse(ordered.begin(), ordered.end());
  return ordered;
}
} // namespace

std::optional<ContractionMatch>
strata::matchContraction(loopir::ParallelOp nest) {
  if (nest.getInductionVars().size() < 2)
    return std::nullopt;
  auto reductions = nest.getBody().front().getOps<loopir::ReduceOp>();
  if (!llvm::hasSingleElement(reductions))
    return std::nullopt;
  loopir::ReduceOp reduce = *reductions.begin();
  if (reduce.getBounds().size() != 1 ||
      llvm::any_of(reduce.getCombinerList(),
                   [](auto c) { return c != loopir::Combiner::add; }) ||
      llvm::any_of(reduce.getResultTypes(),
                   [](Type t) { return !t.isF32(); }))
    return std::nullopt;
  Block &body = reduce.getBody().front();
  ContractionMatch match{reduce, {}, {}};
  for (Value product : body.getTerminator()->getOperands()) {
    std::optional<ContractionFactors> factors =
        matchProduct(product, body, nest);
    if (!factors)
      return std::nullopt;
    match.products.push_back(std::move(*factors));
  }
  match.prologue = findPrologue(match, nest);
  return match;
}

bool strata::prefersContraction(loopir::ParallelOp nest) {
  ArrayRef<int64_t> bounds = nest.getBounds();
  return bounds.size() >= 2 &&
         bounds[bounds.size() - 2] >= kMinContractionRowsAndColumns &&
         bounds.back() >= kMinContractionRowsAndColumns;
}

SmallVector<Value> strata::buildContracts(OpBuilder &b,
                                          const ContractionMatch &match,
                                          loopir::ParallelOp nest,
                                          tileir::KernelOp kernel,
                                          const IRMapping &mapping,
                                          ValueRange origin) {
  loopir::ReduceOp reduce = match.reduce;
  Location loc = reduce.getLoc();
  ValueRange ivs = nest.getInductionVars();
  size_t rank = ivs.size();
  Value k = reduce.getInductionVars()[0];
  // lhs: the point without its column, then k; rhs: without its row.
  auto fill = [&](Region &region, size_t dropped, Value factor,
                  ArrayRef<Operation *> ops) {
    OpBuilder::InsertionGuard guard(b);
    Block *block =
        b.createBlock(&region, {}, SmallVector<Type>(rank, b.getIndexType()),
                      SmallVector<Location>(rank, loc));
    IRMapping scalars = mapping;
    unsigned arg = 0;
    for (size_t d = 0; d < rank; ++d)
      if (d != dropped)
        scalars.map(ivs[d], block->getArgument(arg++));
    scalars.map(k, block->getArgument(rank - 1));
    for (Operation *op : ops)
      b.clone(*op, scalars);
    tileir::YieldOp::create(b, loc, scalars.lookupOrDefault(factor));
  };
  SmallVector<Value> results;
  for (const ContractionFactors &factors : match.products) {
    auto contract = tileir::ContractOp::create(
        b, loc, kernel.getTileType(b.getF32Type()), origin,
        reduce.getBounds()[0], kUnscheduledStep);
    fill(contract.getLhs(), rank - 1, factors.lhs, factors.lhsOps);
    fill(contract.getRhs(), rank - 2, factors.rhs, factors.rhsOps);
    results.push_back(contract);
  }
  return results;
}
