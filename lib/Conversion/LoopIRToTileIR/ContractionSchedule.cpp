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
#include "strata/Dialect/LoopIR/Analysis/Contraction.h"
#include "strata/Dialect/Utils/ScheduleModel.h"

using namespace mlir;
using namespace strata;

namespace {
/// The ops of the nest's body that only the factors use: they move into
/// the contraction's operand regions.
SmallVector<Operation *> findPrologue(const ContractionMatch &match,
                                      loopir::ParallelOp nest) {
  llvm::SmallPtrSet<Operation *, 16> factorOps, prologue;
  for (const loopir::ContractionFactors &factors : match.products) {
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
  std::optional<loopir::ContractionBody> body =
      loopir::matchMatrixContraction(nest);
  if (!body)
    return std::nullopt;
  ContractionMatch match{body->reduce, std::move(body->products), {}};
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
  for (const loopir::ContractionFactors &factors : match.products) {
    auto contract = tileir::ContractOp::create(
        b, loc, kernel.getTileType(b.getF32Type()), origin,
        reduce.getBounds()[0], kUnscheduledStep);
    fill(contract.getLhs(), rank - 1, factors.lhs, factors.lhsOps);
    fill(contract.getRhs(), rank - 2, factors.rhs, factors.rhsOps);
    results.push_back(contract);
  }
  return results;
}
