// Matchers for the folds of a row (see RowFolds.h).

#include "RowFolds.h"
#include "strata/Dialect/Utils/SameComputation.h"

using namespace mlir;
using namespace strata;
using namespace strata::tileir;

bool tileir::isSingleF32Fold(FoldOp fold, Combiner combiner) {
  return fold.getCombinerList() == SmallVector<Combiner>{combiner} &&
         fold.getResult(0).getType().isF32();
}

FoldOp tileir::getEarlierFold(FoldOp fold, Value value, Combiner combiner) {
  auto earlier = value.getDefiningOp<FoldOp>();
  if (!earlier || !isSingleF32Fold(earlier, combiner) ||
      earlier.getBounds() != fold.getBounds() ||
      earlier->getBlock() != fold->getBlock())
    return nullptr;
  return earlier;
}

std::optional<std::pair<FoldOp, Value>> tileir::matchScaledExp(Value factor,
                                                               FoldOp fold) {
  auto exp = factor.getDefiningOp<math::ExpOp>();
  auto diff = exp ? exp.getOperand().getDefiningOp<arith::SubFOp>() : nullptr;
  FoldOp max =
      diff ? getEarlierFold(fold, diff.getRhs(), Combiner::max) : nullptr;
  if (!max)
    return std::nullopt;
  return std::make_pair(max, diff.getLhs());
}

FoldOp tileir::matchSoftmaxNormalizer(FoldOp sum) {
  if (!isSingleF32Fold(sum, Combiner::add))
    return nullptr;
  return matchNormalizerComponent(sum, 0);
}

FoldOp tileir::matchNormalizerComponent(FoldOp fold, unsigned component) {
  Block &sumBody = fold.getBody().front();
  if (fold.getCombinerList()[component] != Combiner::add ||
      !fold.getResult(component).getType().isF32())
    return nullptr;
  auto scaled =
      matchScaledExp(sumBody.getTerminator()->getOperand(component), fold);
  if (!scaled)
    return nullptr;
  Block &maxBody = scaled->first.getBody().front();
  if (!isSameComputation(maxBody.getTerminator()->getOperand(0), scaled->second,
                         maxBody, sumBody))
    return nullptr;
  return scaled->first;
}
