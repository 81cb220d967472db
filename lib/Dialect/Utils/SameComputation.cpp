// Structural equality of two values computed in loop bodies: what fusing
// two folds of one row (tileir-fuse-folds) and merging a reduction's equal
// contributions (loopir-normalize) both need.

#include "strata/Dialect/Utils/SameComputation.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/OperationSupport.h"

#include <functional>

using namespace mlir;

bool strata::isSameComputation(Value a, Value b, Block &first, Block &second) {
  // Values of nested regions, paired as their ops are compared.
  DenseMap<Value, Value> paired;
  std::function<bool(Value, Value)> same = [&](Value x, Value y) {
    if (x == y)
      return true; // One value from outside (or one of a shared body).
    if (auto it = paired.find(x); it != paired.end())
      return it->second == y;
    if (auto ax = dyn_cast<BlockArgument>(x)) {
      auto ay = dyn_cast<BlockArgument>(y);
      return ay && ax.getOwner() == &first && ay.getOwner() == &second &&
             ax.getArgNumber() == ay.getArgNumber();
    }
    Operation *dx = x.getDefiningOp(), *dy = y.getDefiningOp();
    if (!dx || !dy || dx->getBlock() != &first || dy->getBlock() != &second ||
        cast<OpResult>(x).getResultNumber() !=
            cast<OpResult>(y).getResultNumber())
      return false;
    return OperationEquivalence::isEquivalentTo(
        dx, dy, [&](Value p, Value q) { return success(same(p, q)); },
        [&](Value p, Value q) { paired[p] = q; },
        OperationEquivalence::IgnoreLocations);
  };
  return same(a, b);
}
