#include "strata/Dialect/LoopIR/Analysis/IndexDependence.h"

using namespace mlir;

namespace strata::loopir {

/// The position of `operand` among the indices of its access (a load or a
/// store), if it is one of them. The indices are the access's last
/// operands, counted from the end: a rank-0 buffer's access has none.
static std::optional<unsigned> indexPosition(OpOperand &operand) {
  Operation *op = operand.getOwner();
  unsigned indices;
  if (auto load = dyn_cast<LoadOp>(op))
    indices = load.getIndices().size();
  else if (auto store = dyn_cast<StoreOp>(op))
    indices = store.getIndices().size();
  else
    return std::nullopt;
  unsigned first = op->getNumOperands() - indices;
  if (operand.getOperandNumber() < first)
    return std::nullopt;
  return operand.getOperandNumber() - first;
}

/// Whether `v` is the index of a loop (a parallel nest's or a reduction's).
static bool isLoopIndex(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  return arg && isa<ParallelOp, ReduceOp>(arg.getOwner()->getParentOp());
}

llvm::SmallDenseSet<unsigned> IndexDependence::of(Operation *op) {
  if (auto it = memo.find(op); it != memo.end())
    return it->second;
  llvm::SmallDenseSet<unsigned> deps;
  op->walk([&](Operation *inner) {
    for (OpOperand &operand : inner->getOpOperands()) {
      Value v = operand.get();
      if (std::optional<unsigned> index = indexPosition(operand)) {
        if (reading.readsIndex && !reading.readsIndex(inner, *index))
          continue;
        if (reading.computedAddressReadsAll && isa<LoadOp>(inner) &&
            !isLoopIndex(v)) {
          for (unsigned d = 0; d < body.getNumArguments(); ++d)
            deps.insert(d);
          continue;
        }
      }
      if (op->isAncestor(v.getParentBlock()->getParentOp()))
        continue;
      if (auto arg = dyn_cast<BlockArgument>(v);
          arg && arg.getOwner() == &body) {
        deps.insert(arg.getArgNumber());
        continue;
      }
      Operation *def = v.getDefiningOp();
      if (def && def->getBlock() == &body && def != op)
        for (unsigned d : of(def))
          deps.insert(d);
    }
  });
  memo[op] = deps;
  return deps;
}

} // namespace strata::loopir
