// The contraction schedule: block tiles of a matrix product.
//
// A loop nest (..., i, j) whose body reduces over k the product of a factor
// that does not depend on j (the lhs: A[i, k] with its prologue math) and
// one that does not depend on i (the rhs: B[k, j]) becomes one program
// instance per BM x BN tile of (i, j); the reduction becomes a
// tileir.contract whose operand regions hold the factors' scalar code, and
// the rest of the body (bias, activation, store) the elementwise epilogue.

#include "TileKernelBuilder.h"
#include "strata/Dialect/Utils/ScheduleModel.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace strata;

namespace {

/// The ops of `body` that compute `value`, in program order, if they are
/// scalar code (loads and pure ops) that uses from outside only kernel-level
/// values, the nest's indices and the reduction index.
std::optional<SmallVector<Operation *>> cone(Value value, Block &body,
                                             loopir::ParallelOp nest) {
  llvm::SetVector<Operation *> ops;
  SmallVector<Value> work{value};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def) {
      auto arg = cast<BlockArgument>(v);
      if (arg.getOwner() != &body &&
          arg.getOwner() != &nest.getBody().front() &&
          !isa<loopir::KernelOp>(arg.getOwner()->getParentOp()))
        return std::nullopt;
      continue;
    }
    if (def->getBlock() != &body) {
      // Values from outside the reduction must be kernel-level.
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
  for (Operation &op : body)
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

std::optional<ContractionMatch>
strata::matchContraction(loopir::ParallelOp nest) {
  ValueRange ivs = nest.getInductionVars();
  if (ivs.size() < 2)
    return std::nullopt;
  auto reductions = nest.getBody().front().getOps<loopir::ReduceOp>();
  if (!llvm::hasSingleElement(reductions))
    return std::nullopt;
  loopir::ReduceOp reduce = *reductions.begin();
  if (reduce.getCombinerList() !=
          SmallVector<loopir::Combiner>{loopir::Combiner::add} ||
      reduce.getBounds().size() != 1 || !reduce.getResult(0).getType().isF32())
    return std::nullopt;
  Block &body = reduce.getBody().front();
  auto product =
      body.getTerminator()->getOperand(0).getDefiningOp<arith::MulFOp>();
  if (!product || product->getBlock() != &body)
    return std::nullopt;
  // Only the product and the factors' computations may be in the body.
  ContractionMatch match{reduce, product.getLhs(), product.getRhs(), {}, {}};
  auto lhs = cone(match.lhs, body, nest), rhs = cone(match.rhs, body, nest);
  if (!lhs || !rhs)
    return std::nullopt;
  match.lhsOps = *lhs;
  match.rhsOps = *rhs;
  Value row = ivs[ivs.size() - 2], column = ivs.back();
  bool lhsRow = uses(match.lhsOps, row), lhsColumn = uses(match.lhsOps, column),
       rhsRow = uses(match.rhsOps, row), rhsColumn = uses(match.rhsOps, column);
  if (lhsColumn && !rhsColumn && !lhsRow) { // b[k, j] * a[i, k]
    std::swap(match.lhs, match.rhs);
    std::swap(match.lhsOps, match.rhsOps);
    std::swap(lhsRow, rhsRow);
    std::swap(lhsColumn, rhsColumn);
  }
  if (lhsColumn || rhsRow)
    return std::nullopt;
  // A computation both factors share would be cloned into both.
  for (Operation *op : match.lhsOps)
    if (llvm::is_contained(match.rhsOps, op))
      return std::nullopt;
  return match;
}

bool strata::prefersContraction(loopir::ParallelOp nest) {
  ArrayRef<int64_t> bounds = nest.getBounds();
  return bounds.size() >= 2 &&
         bounds[bounds.size() - 2] >= kMinContractionRowsAndColumns &&
         bounds.back() >= kMinContractionRowsAndColumns;
}

Value strata::buildContract(OpBuilder &b, const ContractionMatch &match,
                            loopir::ParallelOp nest, tileir::KernelOp kernel,
                            const IRMapping &mapping, ValueRange origin) {
  loopir::ReduceOp reduce = match.reduce;
  Location loc = reduce.getLoc();
  ValueRange ivs = nest.getInductionVars();
  size_t rank = ivs.size();
  auto contract = tileir::ContractOp::create(
      b, loc, kernel.getTileType(b.getF32Type()), origin, reduce.getBounds()[0],
      kUnscheduledStep);
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
  fill(contract.getLhs(), rank - 1, match.lhs, match.lhsOps);
  fill(contract.getRhs(), rank - 2, match.rhs, match.rhsOps);
  return contract;
}
