// Layout ops: verifiers, type inference and index maps.

#include "ShapeUtils.h"
#include "strata/Dialect/TensorIR/IR/TensorIR.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace strata::tensorir;

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  auto inType = getInput().getType();
  auto outType = getResult().getType();
  if (inType.getElementType() != outType.getElementType())
    return emitOpError("result element type ")
           << outType.getElementType() << " differs from input element type "
           << inType.getElementType();
  ArrayRef<int64_t> dims = getDims();
  if ((int64_t)dims.size() != inType.getRank())
    return emitOpError("expects one entry in 'dims' per input dimension (")
           << inType.getRank() << "), got " << dims.size();
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= outType.getRank())
      return emitOpError("dims[") << i << "] = " << d
                                  << " is not a result dimension";
    if (i > 0 && d <= dims[i - 1])
      return emitOpError("expects strictly increasing 'dims'");
  }
  for (auto [i, d] : llvm::enumerate(dims)) {
    int64_t in = inType.getDimSize(i), out = outType.getDimSize(d);
    if (in != out && in != 1)
      return emitOpError("input dimension ")
             << i << " of size " << in << " cannot broadcast to result "
             << "dimension " << d << " of size " << out;
  }
  return success();
}

AffineMap BroadcastOp::getIndexMap() {
  auto inType = getInput().getType();
  auto outType = getResult().getType();
  SmallVector<AffineExpr> exprs;
  for (auto [i, d] : llvm::enumerate(getDims())) {
    bool repeated = inType.getDimSize(i) == 1 && outType.getDimSize(d) != 1;
    exprs.push_back(repeated ? getAffineConstantExpr(0, getContext())
                             : getAffineDimExpr(d, getContext()));
  }
  return AffineMap::get(outType.getRank(), 0, exprs, getContext());
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  // Broadcasting a splat is a bigger splat.
  if (auto splat = dyn_cast_or_null<SplatElementsAttr>(adaptor.getInput()))
    return SplatElementsAttr::get(getResult().getType(),
                                  splat.getSplatValue<Attribute>());
  return {};
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> perm = getPerm();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return getInput();
  // transpose(transpose(x, inner), perm) = transpose(x, inner[perm[i]]).
  if (auto inner = getInput().getDefiningOp<TransposeOp>()) {
    SmallVector<int64_t> composed;
    for (int64_t p : perm)
      composed.push_back(inner.getPerm()[p]);
    getInputMutable().assign(inner.getInput());
    setPerm(composed);
    return getResult();
  }
  return {};
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> perm = adaptor.getPerm();
  if ((int64_t)perm.size() != input.getRank())
    return emitOptionalError(loc, "perm has ", perm.size(),
                             " entries for a tensor of rank ",
                             input.getRank());
  SmallVector<int64_t> shape;
  SmallVector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= input.getRank() || seen[p])
      return emitOptionalError(loc, "perm is not a permutation");
    seen[p] = true;
    shape.push_back(input.getDimSize(p));
  }
  types.push_back(input.clone(shape));
  return success();
}

AffineMap TransposeOp::getIndexMap() {
  // Input dimension perm[i] is read at result coordinate i.
  ArrayRef<int64_t> perm = getPerm();
  SmallVector<AffineExpr> exprs(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    exprs[p] = getAffineDimExpr(i, getContext());
  return AffineMap::get(perm.size(), 0, exprs, getContext());
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  if (getInput().getType().getNumElements() !=
      getResult().getType().getNumElements())
    return emitOpError("changes the number of elements from ")
           << getInput().getType().getNumElements() << " to "
           << getResult().getType().getNumElements();
  if (getInput().getType().getElementType() !=
      getResult().getType().getElementType())
    return emitOpError("changes the element type");
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  // reshape(reshape(x)) = reshape(x).
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

AffineMap ReshapeOp::getIndexMap() {
  // Linearize the result coordinates row-major, then split the linear index
  // by the input shape: affine maps express both with mul, floordiv and mod.
  MLIRContext *ctx = getContext();
  ArrayRef<int64_t> out = getResult().getType().getShape();
  ArrayRef<int64_t> in = getInput().getType().getShape();
  AffineExpr linear = getAffineConstantExpr(0, ctx);
  for (auto [d, size] : llvm::enumerate(out))
    linear = linear * size + getAffineDimExpr(d, ctx);
  SmallVector<AffineExpr> exprs(in.size());
  int64_t stride = 1;
  for (int64_t d = in.size() - 1; d >= 0; --d) {
    exprs[d] = (linear.floorDiv(stride)) % in[d];
    stride *= in[d];
  }
  // The outermost coordinate needs no modulo.
  if (!in.empty())
    exprs[0] = linear.floorDiv(stride / in[0]);
  return simplifyAffineMap(AffineMap::get(out.size(), 0, exprs, ctx));
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::verify() {
  auto in = getInput().getType();
  auto out = getResult().getType();
  ArrayRef<int64_t> offsets = getOffsets(), strides = getStrides();
  if ((int64_t)offsets.size() != in.getRank() ||
      (int64_t)strides.size() != in.getRank())
    return emitOpError("expects one offset and one stride per dimension");
  if (out.getRank() != in.getRank())
    return emitOpError("result rank differs from input rank");
  if (out.getElementType() != in.getElementType())
    return emitOpError("changes the element type");
  for (int64_t d = 0; d < in.getRank(); ++d) {
    // A negative stride walks backwards from the offset (torch.flip).
    if (strides[d] == 0)
      return emitOpError("strides must be nonzero");
    if (offsets[d] < 0)
      return emitOpError("offsets must be non-negative, got ") << offsets[d];
    if (out.getDimSize(d) == 0)
      continue;
    int64_t last = offsets[d] + strides[d] * (out.getDimSize(d) - 1);
    for (int64_t read : {offsets[d], last})
      if (read < 0 || read >= in.getDimSize(d))
        return emitOpError("dimension ")
               << d << " reads index " << read << " of a dimension of size "
               << in.getDimSize(d);
  }
  return success();
}

AffineMap SliceOp::getIndexMap() {
  SmallVector<AffineExpr> exprs;
  for (auto [d, pair] : llvm::enumerate(llvm::zip(getOffsets(), getStrides())))
    exprs.push_back(getAffineDimExpr(d, getContext()) * std::get<1>(pair) +
                    std::get<0>(pair));
  return AffineMap::get(exprs.size(), 0, exprs, getContext());
}

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  if (adaptor.getInputs().empty())
    return emitOptionalError(loc, "expects at least one input");
  auto first = cast<RankedTensorType>(adaptor.getInputs()[0].getType());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= first.getRank())
    return emitOptionalError(loc, "axis ", axis,
                             " is outside a tensor of rank ", first.getRank());
  SmallVector<int64_t> shape(first.getShape());
  shape[axis] = 0;
  for (Value input : adaptor.getInputs()) {
    auto t = cast<RankedTensorType>(input.getType());
    if (t.getRank() != first.getRank() ||
        t.getElementType() != first.getElementType())
      return emitOptionalError(loc, "inputs differ in rank or element type");
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != axis && t.getDimSize(d) != first.getDimSize(d))
        return emitOptionalError(loc, "inputs differ in dimension ", d,
                                 ", which is not the concatenation axis");
    shape[axis] += t.getDimSize(axis);
  }
  types.push_back(first.clone(shape));
  return success();
}

//===----------------------------------------------------------------------===//
// GatherOp
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= input.getRank())
    return emitOptionalError(loc, "axis ", axis,
                             " is outside a tensor of rank ", input.getRank());
  if (!indices.hasStaticShape())
    return emitOptionalError(loc, "indices must have a static shape");
  if (input.getDimSize(axis) == 0 && indices.getNumElements() != 0)
    return emitOptionalError(loc, "gathers from the empty axis ", axis,
                             ": every index is out of bounds");
  SmallVector<int64_t> shape(input.getShape().take_front(axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, input.getShape().drop_front(axis + 1));
  types.push_back(input.clone(shape));
  return success();
}

//===----------------------------------------------------------------------===//
// PadOp
//===----------------------------------------------------------------------===//

LogicalResult PadOp::verify() {
  auto in = getInput().getType();
  auto out = getResult().getType();
  ArrayRef<int64_t> low = getLow(), high = getHigh();
  if ((int64_t)low.size() != in.getRank() ||
      (int64_t)high.size() != in.getRank())
    return emitOpError("expects one low and one high padding per dimension "
                       "(")
           << in.getRank() << "), got " << low.size() << " and "
           << high.size();
  if (out.getRank() != in.getRank())
    return emitOpError("result rank differs from input rank");
  if (out.getElementType() != in.getElementType())
    return emitOpError("changes the element type");
  if (getValue().getType() != in.getElementType())
    return emitOpError("pads with a value of type ")
           << getValue().getType() << " a tensor of "
           << in.getElementType();
  for (int64_t d = 0; d < in.getRank(); ++d) {
    if (low[d] < 0 || high[d] < 0)
      return emitOpError("padding must be non-negative (a negative one is "
                         "a slice), got ")
             << low[d] << " and " << high[d] << " in dimension " << d;
    if (out.getDimSize(d) != in.getDimSize(d) + low[d] + high[d])
      return emitOpError("result dimension ")
             << d << " has size " << out.getDimSize(d) << ", expected "
             << in.getDimSize(d) + low[d] + high[d];
  }
  return success();
}

OpFoldResult PadOp::fold(FoldAdaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  return {};
}

AffineMap PadOp::getIndexMap() {
  SmallVector<AffineExpr> exprs;
  for (auto [d, low] : llvm::enumerate(getLow()))
    exprs.push_back(getAffineDimExpr(d, getContext()) - low);
  return AffineMap::get(exprs.size(), 0, exprs, getContext());
}

IntegerSet PadOp::getGuard() {
  // low <= d < low + size, for the padded dimensions only.
  SmallVector<AffineExpr> constraints;
  ArrayRef<int64_t> in = getInput().getType().getShape();
  for (auto [d, bounds] : llvm::enumerate(llvm::zip(getLow(), getHigh()))) {
    auto [low, high] = bounds;
    AffineExpr x = getAffineDimExpr(d, getContext());
    if (low > 0)
      constraints.push_back(x - low);
    if (high > 0)
      constraints.push_back(low + in[d] - 1 - x);
  }
  if (constraints.empty())
    return {};
  return IntegerSet::get(in.size(), 0, constraints,
                         SmallVector<bool>(constraints.size(), false));
}

TypedAttr PadOp::getPaddingValue() { return getValue(); }

//===----------------------------------------------------------------------===//
// WindowOp
//===----------------------------------------------------------------------===//

LogicalResult WindowOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> sizes = adaptor.getSizes(), strides = adaptor.getStrides(),
                    dilations = adaptor.getDilations();
  int64_t n = sizes.size();
  if (n == 0 || (int64_t)strides.size() != n ||
      (int64_t)dilations.size() != n)
    return emitOptionalError(loc, "expects as many strides and dilations as "
                                  "window sizes, at least one");
  if (n > input.getRank())
    return emitOptionalError(loc, "windows over ", n,
                             " dimensions of a tensor of rank ",
                             input.getRank());
  SmallVector<int64_t> shape(input.getShape().drop_back(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t d = input.getDimSize(input.getRank() - n + i);
    if (sizes[i] < 1 || strides[i] < 1 || dilations[i] < 1)
      return emitOptionalError(loc, "window sizes, strides and dilations "
                                    "must be positive");
    int64_t span = (sizes[i] - 1) * dilations[i] + 1;
    if (span > d)
      return emitOptionalError(loc, "a window spanning ", span,
                               " elements does not fit a dimension of ", d);
    shape.push_back((d - span) / strides[i] + 1);
  }
  llvm::append_range(shape, sizes);
  types.push_back(input.clone(shape));
  return success();
}

AffineMap WindowOp::getIndexMap() {
  MLIRContext *ctx = getContext();
  int64_t n = getSizes().size();
  int64_t lead = getInput().getType().getRank() - n;
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < lead; ++d)
    exprs.push_back(getAffineDimExpr(d, ctx));
  for (int64_t i = 0; i < n; ++i)
    exprs.push_back(getAffineDimExpr(lead + i, ctx) * getStrides()[i] +
                    getAffineDimExpr(lead + n + i, ctx) * getDilations()[i]);
  return AffineMap::get(lead + 2 * n, 0, exprs, ctx);
}
