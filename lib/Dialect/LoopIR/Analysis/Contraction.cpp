// Recognizes the sum of products a contraction nest computes.

#include "strata/Dialect/LoopIR/Analysis/Contraction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace strata;
using namespace strata::loopir;

namespace {

/// The ops that compute `value` in a reduction `body` directly inside
/// `nest`, in program order, if they are scalar code (loads and pure ops)
/// that uses from outside only kernel-level values, the nest's indices and
/// the reduction index. Ops of the nest's body before the reduction (a
/// prologue's row statistic: a load of the row's scale) are part of it,
/// first.
std::optional<SmallVector<Operation *>> cone(Value value, Block &body,
                                             ParallelOp nest) {
  Block &nestBody = nest.getBody().front();
  llvm::SetVector<Operation *> ops;
  SmallVector<Value> work{value};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def) {
      auto arg = cast<BlockArgument>(v);
      if (arg.getOwner() != &body && arg.getOwner() != &nestBody &&
          !isa<KernelOp>(arg.getOwner()->getParentOp()))
        return std::nullopt;
      continue;
    }
    if (def->getBlock() != &body && def->getBlock() != &nestBody) {
      // Values from outside the nest must be kernel-level.
      if (nest->isAncestor(def))
        return std::nullopt;
      continue;
    }
    if (def->getNumRegions() != 0 || !(isa<LoadOp>(def) || isPure(def)))
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

/// The factors of `product`, yielded by the reduction `body` of `nest`.
std::optional<ContractionFactors> matchProduct(Value product, Block &body,
                                               ParallelOp nest) {
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
  // A computation both factors share would be cloned into both.
  for (Operation *op : factors.lhsOps)
    if (llvm::is_contained(factors.rhsOps, op))
      return std::nullopt;
  return factors;
}

} // namespace

bool strata::loopir::usesIndex(ArrayRef<Operation *> ops, Value index) {
  return llvm::any_of(ops, [&](Operation *op) {
    return llvm::is_contained(op->getOperands(), index);
  });
}

std::optional<ContractionBody>
strata::loopir::matchContractionBody(ParallelOp nest) {
  auto reductions = nest.getBody().front().getOps<ReduceOp>();
  if (!llvm::hasSingleElement(reductions))
    return std::nullopt;
  ReduceOp reduce = *reductions.begin();
  if (reduce.getBounds().size() != 1 ||
      llvm::any_of(reduce.getCombinerList(),
                   [](auto c) { return c != Combiner::add; }) ||
      llvm::any_of(reduce.getResultTypes(),
                   [](Type t) { return !t.isF32(); }))
    return std::nullopt;
  Block &body = reduce.getBody().front();
  ContractionBody match{reduce, {}};
  for (Value product : body.getTerminator()->getOperands()) {
    std::optional<ContractionFactors> factors =
        matchProduct(product, body, nest);
    if (!factors)
      return std::nullopt;
    match.products.push_back(std::move(*factors));
  }
  return match;
}

std::optional<ContractionBody>
strata::loopir::matchMatrixContraction(ParallelOp nest) {
  ValueRange ivs = nest.getInductionVars();
  if (ivs.size() < 2)
    return std::nullopt;
  std::optional<ContractionBody> body = matchContractionBody(nest);
  if (!body)
    return std::nullopt;
  Value row = ivs[ivs.size() - 2], column = ivs.back();
  for (ContractionFactors &factors : body->products) {
    // b[k, j] * a[i, k]: the column factor first.
    if (usesIndex(factors.lhsOps, column) && !usesIndex(factors.lhsOps, row) &&
        !usesIndex(factors.rhsOps, column))
      factors.swap();
    if (usesIndex(factors.lhsOps, column) || usesIndex(factors.rhsOps, row))
      return std::nullopt;
  }
  return body;
}
