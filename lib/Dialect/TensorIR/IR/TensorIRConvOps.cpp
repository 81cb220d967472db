// Convolutions: type inference and their decompositions into views and one
// matrix product (an implicit GEMM).

#include "strata/Dialect/TensorIR/IR/TensorIR.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace strata::tensorir;

namespace {

int64_t product(ArrayRef<int64_t> sizes) {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return n;
}

/// Emits the views a convolution is written with.
struct Views {
  OpBuilder &b;
  Location loc;

  static RankedTensorType typeOf(Value x) {
    return cast<RankedTensorType>(x.getType());
  }
  Value reshape(Value x, ArrayRef<int64_t> shape) {
    if (typeOf(x).getShape() == shape)
      return x;
    return ReshapeOp::create(b, loc, typeOf(x).clone(shape), x);
  }
  Value transpose(Value x, ArrayRef<int64_t> perm) {
    if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
      return x;
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(typeOf(x).getDimSize(p));
    return TransposeOp::create(b, loc, typeOf(x).clone(shape), x, perm);
  }
  /// `x` with `low[d]` zeros before and `high[d]` after dimension d; a
  /// negative amount drops elements instead.
  Value padOrSlice(Value x, ArrayRef<int64_t> low, ArrayRef<int64_t> high) {
    RankedTensorType type = typeOf(x);
    int64_t rank = type.getRank();
    SmallVector<int64_t> offsets(rank, 0), sliced(type.getShape());
    SmallVector<int64_t> padLow(rank, 0), padHigh(rank, 0);
    bool slices = false, pads = false;
    for (int64_t d = 0; d < rank; ++d) {
      if (low[d] < 0) {
        offsets[d] = -low[d];
        sliced[d] += low[d];
      }
      if (high[d] < 0)
        sliced[d] += high[d];
      padLow[d] = std::max<int64_t>(low[d], 0);
      padHigh[d] = std::max<int64_t>(high[d], 0);
      slices |= low[d] < 0 || high[d] < 0;
      pads |= low[d] > 0 || high[d] > 0;
    }
    if (slices)
      x = SliceOp::create(b, loc, type.clone(sliced), x, offsets,
                          SmallVector<int64_t>(rank, 1));
    if (!pads)
      return x;
    SmallVector<int64_t> padded(sliced);
    for (int64_t d = 0; d < rank; ++d)
      padded[d] += padLow[d] + padHigh[d];
    Type element = type.getElementType();
    return PadOp::create(b, loc, type.clone(padded), x, padLow, padHigh,
                         b.getZeroAttr(element));
  }
};

/// The convolution of `x` (N, C, D...) with `w` (OC, C / groups, K...):
/// im2col as views, one batched matrix product over the groups, and views
/// back to (N, OC, O...). `low`/`high` pad (or, negative, crop) each
/// spatial dimension.
Value buildConvolution(OpBuilder &b, Location loc, Value x, Value w,
                       Value bias, ArrayRef<int64_t> strides,
                       ArrayRef<int64_t> low, ArrayRef<int64_t> high,
                       ArrayRef<int64_t> dilations, int64_t groups) {
  Views v{b, loc};
  ArrayRef<int64_t> xs = Views::typeOf(x).getShape();
  ArrayRef<int64_t> ws = Views::typeOf(w).getShape();
  int64_t n = xs.size() - 2, batch = xs[0], oc = ws[0], cg = ws[1];
  ArrayRef<int64_t> window = ws.drop_front(2);
  SmallVector<int64_t> padLow{0, 0}, padHigh{0, 0};
  llvm::append_range(padLow, low);
  llvm::append_range(padHigh, high);
  Value padded = v.padOrSlice(x, padLow, padHigh);
  Value windows =
      WindowOp::create(b, loc, padded, window, strides, dilations);
  ArrayRef<int64_t> out =
      Views::typeOf(windows).getShape().drop_front(2).take_front(n);
  // (N, g, C/g, O..., K...) -> (g, N, O..., C/g, K...) -> (g, M, C/g K...).
  SmallVector<int64_t> grouped{batch, groups, cg};
  llvm::append_range(grouped, out);
  llvm::append_range(grouped, window);
  SmallVector<int64_t> perm{1, 0};
  for (int64_t i = 0; i < n; ++i)
    perm.push_back(3 + i);
  perm.push_back(2);
  for (int64_t i = 0; i < n; ++i)
    perm.push_back(3 + n + i);
  int64_t m = batch * product(out), k = cg * product(window);
  Value im2col = v.reshape(
      v.transpose(v.reshape(windows, grouped), perm), {groups, m, k});
  // (OC, C/g, K...) -> (g, OC/g, C/g K...) -> (g, C/g K..., OC/g).
  Value weights =
      v.transpose(v.reshape(w, {groups, oc / groups, k}), {0, 2, 1});
  Value product = MatmulOp::create(b, loc, im2col, weights);
  // (g, M, OC/g) -> (g, N, O..., OC/g) -> (N, g, OC/g, O...) -> (N, OC, O...).
  SmallVector<int64_t> split{groups, batch};
  llvm::append_range(split, out);
  split.push_back(oc / groups);
  SmallVector<int64_t> back{1, 0, 2 + n};
  for (int64_t i = 0; i < n; ++i)
    back.push_back(2 + i);
  SmallVector<int64_t> result{batch, oc};
  llvm::append_range(result, out);
  Value y = v.reshape(v.transpose(v.reshape(product, split), back), result);
  if (!bias)
    return y;
  RankedTensorType type = Views::typeOf(y);
  Value row = BroadcastOp::create(b, loc, type, bias, ArrayRef<int64_t>{1});
  return AddOp::create(b, loc, y, row);
}

/// Checks what both convolutions share and returns the spatial rank.
FailureOr<int64_t> checkConvolution(std::optional<Location> loc,
                                    RankedTensorType input,
                                    RankedTensorType weight, Value bias,
                                    int64_t biasSize, int64_t groups,
                                    int64_t weightChannels,
                                    ArrayRef<ArrayRef<int64_t>> attrs) {
  int64_t n = input.getRank() - 2;
  if (n < 1 || weight.getRank() != input.getRank())
    return emitOptionalError(loc, "expects an input (N, C, spatial...) with "
                                  "at least one spatial dimension and a "
                                  "weight of the same rank, got ranks ",
                             input.getRank(), " and ", weight.getRank());
  if (input.getElementType() != weight.getElementType())
    return emitOptionalError(loc, "input and weight differ in element type");
  for (ArrayRef<int64_t> attr : attrs)
    if ((int64_t)attr.size() != n)
      return emitOptionalError(loc, "expects one stride, padding and "
                                    "dilation per spatial dimension (",
                               n, ")");
  if (groups < 1 || input.getDimSize(1) % groups != 0)
    return emitOptionalError(loc, "groups (", groups,
                             ") must divide the input channels (",
                             input.getDimSize(1), ")");
  if (weightChannels != input.getDimSize(1))
    return emitOptionalError(loc, "the weight takes ", weightChannels,
                             " input channels, the input has ",
                             input.getDimSize(1));
  if (bias) {
    auto b = cast<RankedTensorType>(bias.getType());
    if (b.getRank() != 1 || b.getDimSize(0) != biasSize ||
        b.getElementType() != input.getElementType())
      return emitOptionalError(loc, "expects a bias of ", biasSize,
                               " elements of the input's type");
  }
  return n;
}

} // namespace

//===----------------------------------------------------------------------===//
// ConvOp
//===----------------------------------------------------------------------===//

LogicalResult ConvOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  auto weight = cast<RankedTensorType>(adaptor.getWeight().getType());
  int64_t groups = adaptor.getGroups();
  ArrayRef<int64_t> strides = adaptor.getStrides(),
                    padding = adaptor.getPadding(),
                    dilations = adaptor.getDilations();
  FailureOr<int64_t> n = checkConvolution(
      loc, input, weight, adaptor.getBias(), weight.getDimSize(0), groups,
      weight.getRank() < 2 ? -1 : weight.getDimSize(1) * groups,
      {strides, padding, dilations});
  if (failed(n))
    return failure();
  if (weight.getDimSize(0) % groups != 0)
    return emitOptionalError(loc, "groups (", groups,
                             ") must divide the output channels (",
                             weight.getDimSize(0), ")");
  SmallVector<int64_t> shape{input.getDimSize(0), weight.getDimSize(0)};
  for (int64_t i = 0; i < *n; ++i) {
    if (strides[i] < 1 || dilations[i] < 1 || padding[i] < 0)
      return emitOptionalError(loc, "strides and dilations must be positive "
                                    "and padding non-negative");
    int64_t span = dilations[i] * (weight.getDimSize(2 + i) - 1) + 1;
    int64_t padded = input.getDimSize(2 + i) + 2 * padding[i];
    if (span > padded)
      return emitOptionalError(loc, "a window spanning ", span,
                               " elements does not fit the padded input "
                               "dimension of ",
                               padded);
    shape.push_back((padded - span) / strides[i] + 1);
  }
  types.push_back(input.clone(shape));
  return success();
}

SmallVector<Value> ConvOp::decompose(OpBuilder &b) {
  return {buildConvolution(b, getLoc(), getInput(), getWeight(), getBias(),
                           getStrides(), getPadding(), getPadding(),
                           getDilations(), getGroups())};
}

//===----------------------------------------------------------------------===//
// ConvTransposeOp
//===----------------------------------------------------------------------===//

LogicalResult ConvTransposeOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  auto weight = cast<RankedTensorType>(adaptor.getWeight().getType());
  int64_t groups = adaptor.getGroups();
  ArrayRef<int64_t> strides = adaptor.getStrides(),
                    padding = adaptor.getPadding(),
                    outputPadding = adaptor.getOutputPadding(),
                    dilations = adaptor.getDilations();
  int64_t outChannels =
      weight.getRank() < 2 ? -1 : weight.getDimSize(1) * groups;
  FailureOr<int64_t> n = checkConvolution(
      loc, input, weight, adaptor.getBias(), outChannels, groups,
      weight.getDimSize(0), {strides, padding, outputPadding, dilations});
  if (failed(n))
    return failure();
  SmallVector<int64_t> shape{input.getDimSize(0), outChannels};
  for (int64_t i = 0; i < *n; ++i) {
    if (strides[i] < 1 || dilations[i] < 1 || padding[i] < 0 ||
        outputPadding[i] < 0)
      return emitOptionalError(loc, "strides and dilations must be positive "
                                    "and paddings non-negative");
    if (outputPadding[i] >= std::max(strides[i], dilations[i]))
      return emitOptionalError(loc, "output padding ", outputPadding[i],
                               " must be smaller than the stride or the "
                               "dilation");
    int64_t size = (input.getDimSize(2 + i) - 1) * strides[i] -
                   2 * padding[i] +
                   dilations[i] * (weight.getDimSize(2 + i) - 1) +
                   outputPadding[i] + 1;
    if (size < 1)
      return emitOptionalError(loc, "the output would have ", size,
                               " elements in spatial dimension ", i);
    shape.push_back(size);
  }
  types.push_back(input.clone(shape));
  return success();
}

SmallVector<Value> ConvTransposeOp::decompose(OpBuilder &b) {
  Location loc = getLoc();
  Views v{b, loc};
  Value x = getInput(), w = getWeight();
  ArrayRef<int64_t> xs = getInput().getType().getShape();
  ArrayRef<int64_t> ws = getWeight().getType().getShape();
  int64_t n = xs.size() - 2, groups = getGroups();
  ArrayRef<int64_t> strides = getStrides(), window = ws.drop_front(2);
  // strides - 1 zeros after every element: (N, C, D_1, 1, D_2, 1, ...)
  // padded to (N, C, D_1, s_1, ...), read as (N, C, D_1 s_1, ...).
  if (llvm::any_of(strides, [](int64_t s) { return s > 1; })) {
    SmallVector<int64_t> spread(xs.take_front(2)), low(2 + 2 * n, 0);
    SmallVector<int64_t> high(2 + 2 * n, 0), merged(xs.take_front(2));
    for (int64_t i = 0; i < n; ++i) {
      spread.append({xs[2 + i], 1});
      high[3 + 2 * i] = strides[i] - 1;
      merged.push_back(xs[2 + i] * strides[i]);
    }
    x = v.reshape(v.padOrSlice(v.reshape(x, spread), low, high), merged);
  }
  // Around it, d (K - 1) - p, and on the high side output_padding more
  // (less the zeros after the last element).
  SmallVector<int64_t> low, high;
  for (int64_t i = 0; i < n; ++i) {
    int64_t around = getDilations()[i] * (window[i] - 1) - getPadding()[i];
    low.push_back(around);
    high.push_back(around + getOutputPadding()[i] - (strides[i] - 1));
  }
  // (C, OC/g, K...) -> (g, C/g, OC/g, K...) -> (g, OC/g, C/g, K...) ->
  // (OC, C/g, K...), flipped in K.
  int64_t cg = ws[0] / groups, ocg = ws[1];
  SmallVector<int64_t> grouped{groups, cg, ocg}, swapped{groups * ocg, cg};
  llvm::append_range(grouped, window);
  llvm::append_range(swapped, window);
  SmallVector<int64_t> perm{0, 2, 1};
  for (int64_t i = 0; i < n; ++i)
    perm.push_back(3 + i);
  Value kernel = v.reshape(v.transpose(v.reshape(w, grouped), perm), swapped);
  SmallVector<int64_t> offsets{0, 0}, steps{1, 1};
  for (int64_t k : window) {
    offsets.push_back(k - 1);
    steps.push_back(-1);
  }
  kernel = SliceOp::create(b, loc, Views::typeOf(kernel), kernel, offsets,
                           steps);
  return {buildConvolution(b, loc, x, kernel, getBias(),
                           SmallVector<int64_t>(n, 1), low, high,
                           getDilations(), groups)};
}
