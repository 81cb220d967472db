#include "ShapeUtils.h"

using namespace mlir;

namespace strata::tensorir {

LogicalResult checkAxes(std::optional<Location> loc, ArrayRef<int64_t> axes,
                        int64_t rank) {
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (axis < 0 || axis >= rank)
      return emitOptionalError(loc, "axis ", axis,
                               " is outside a tensor of rank ", rank);
    if (i > 0 && axis <= axes[i - 1])
      return emitOptionalError(loc, "axes must be distinct and increasing");
  }
  return success();
}

SmallVector<int64_t> reducedShape(ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> axes, bool keepdim) {
  SmallVector<int64_t> result;
  for (auto [d, size] : llvm::enumerate(shape)) {
    if (!llvm::is_contained(axes, (int64_t)d))
      result.push_back(size);
    else if (keepdim)
      result.push_back(1);
  }
  return result;
}

LogicalResult inferReducedType(std::optional<Location> loc, Type input,
                               ArrayRef<int64_t> axes, bool keepdim,
                               SmallVectorImpl<Type> &types) {
  auto tensor = cast<RankedTensorType>(input);
  if (failed(checkAxes(loc, axes, tensor.getRank())))
    return failure();
  types.push_back(tensor.clone(reducedShape(tensor.getShape(), axes, keepdim)));
  return success();
}

} // namespace strata::tensorir
