// Reductions: type inference.

#include "ShapeUtils.h"
#include "strata/Dialect/TensorIR/IR/TensorIR.h"

using namespace mlir;
using namespace strata::tensorir;

LogicalResult ReduceOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  return inferReducedType(loc, adaptor.getInput().getType(), adaptor.getAxes(),
                          adaptor.getKeepdim(), types);
}

LogicalResult ArgReduceOp::inferReturnTypes(MLIRContext *ctx,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  ReduceKind kind = adaptor.getKind();
  if (kind != ReduceKind::max && kind != ReduceKind::min)
    return emitOptionalError(loc, "arg_reduce takes max or min, not ",
                             stringifyReduceKind(kind));
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxes(loc, {axis}, input.getRank())))
    return failure();
  auto shape = reducedShape(input.getShape(), {axis}, adaptor.getKeepdim());
  if (input.getDimSize(axis) == 0 &&
      llvm::none_of(shape, [](int64_t d) { return d == 0; }))
    return emitOptionalError(loc, "arg_reduce over the empty axis ", axis,
                             " has no position to give");
  types.push_back(input.clone(shape));
  types.push_back(input.clone(shape, IntegerType::get(ctx, 64)));
  return success();
}
