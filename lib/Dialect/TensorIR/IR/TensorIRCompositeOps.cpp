// Composite ops: verifiers, type inference and their decompositions into
// atomic ops (used by tensorir-decompose).

#include "ShapeUtils.h"
#include "strata/Dialect/TensorIR/IR/TensorIR.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace strata::tensorir;

namespace {
/// Emits the atomic ops that decompositions are written with.
struct Emitter {
  OpBuilder &b;
  Location loc;

  /// A splat constant of `type` (a float or an integer).
  Value splat(RankedTensorType type, double value) {
    Type element = type.getElementType();
    Attribute scalar = isa<FloatType>(element)
                           ? Attribute(b.getFloatAttr(element, value))
                           : Attribute(b.getIntegerAttr(element, (int64_t)value));
    return ConstantOp::create(b, loc, DenseElementsAttr::get(type, scalar));
  }
  Value splatLike(Value like, double value) {
    return splat(cast<RankedTensorType>(like.getType()), value);
  }
  /// Broadcasts `x` to `shape`; input dimension i becomes result dims[i].
  Value broadcast(Value x, ArrayRef<int64_t> shape, ArrayRef<int64_t> dims) {
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getShape() == shape)
      return x;
    return BroadcastOp::create(b, loc, type.clone(shape), x, dims);
  }
  /// Broadcasts a keepdim reduction of `full` back to its shape.
  Value expandLike(Value reduced, Value full) {
    auto shape = cast<RankedTensorType>(full.getType()).getShape();
    return broadcast(reduced, shape,
                     llvm::to_vector(llvm::seq<int64_t>(0, shape.size())));
  }
  Value reduce(ReduceKind kind, Value x, ArrayRef<int64_t> axes,
               bool keepdim) {
    auto type = cast<RankedTensorType>(x.getType());
    auto result = type.clone(reducedShape(type.getShape(), axes, keepdim));
    return ReduceOp::create(b, loc, result, kind, x, axes, keepdim);
  }
  /// sum(x, axes) / N.
  Value mean(Value x, ArrayRef<int64_t> axes, bool keepdim) {
    auto shape = cast<RankedTensorType>(x.getType()).getShape();
    int64_t n = 1;
    for (int64_t a : axes)
      n *= shape[a];
    Value sum = reduce(ReduceKind::sum, x, axes, keepdim);
    return DivOp::create(b, loc, sum, splatLike(sum, n));
  }
};

/// The trailing `count` dimensions of a tensor of rank `rank`.
SmallVector<int64_t> trailingAxes(int64_t rank, int64_t count) {
  return llvm::to_vector(llvm::seq<int64_t>(rank - count, rank));
}

/// A contraction: every operand has one label per dimension; the result has
/// `outLabels`; labels in no output are summed. Each operand is transposed
/// into the order of the joint label list (output labels, then summed
/// ones), broadcast into the joint space, multiplied, and reduced. Half
/// precision (f16, bf16) operands are multiplied and summed in f32, as
/// cuBLAS and PyTorch do, and the result is rounded back once: an f16 sum
/// over thousands of products would keep few correct bits.
Value buildContraction(Emitter &e, ValueRange operands,
                       ArrayRef<SmallVector<int64_t>> labels,
                       ArrayRef<int64_t> outLabels) {
  Type element =
      cast<RankedTensorType>(operands.front().getType()).getElementType();
  Type accumulator =
      element.isF16() || element.isBF16() ? e.b.getF32Type() : element;
  auto castTo = [&](Value x, Type to) -> Value {
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getElementType() == to)
      return x;
    return CastOp::create(e.b, e.loc, type.clone(to), x);
  };
  SmallVector<int64_t> joint(outLabels);
  DenseMap<int64_t, int64_t> size;
  for (auto [operand, ls] : llvm::zip(operands, labels)) {
    auto shape = cast<RankedTensorType>(operand.getType()).getShape();
    for (auto [l, s] : llvm::zip(ls, shape)) {
      size[l] = s;
      if (!llvm::is_contained(joint, l))
        joint.push_back(l);
    }
  }
  SmallVector<int64_t> jointShape;
  for (int64_t l : joint)
    jointShape.push_back(size[l]);
  auto position = [&](int64_t l) {
    return (int64_t)(llvm::find(joint, l) - joint.begin());
  };
  Value product;
  for (auto [operand, operandLabels] : llvm::zip(operands, labels)) {
    const SmallVector<int64_t> &ls = operandLabels;
    // Order the operand's dimensions as in the joint space (labels are
    // distinct within an operand, so the order is strict).
    SmallVector<int64_t> perm =
        llvm::to_vector(llvm::seq<int64_t>(0, ls.size()));
    llvm::sort(perm, [&](int64_t a, int64_t b) {
      return position(ls[a]) < position(ls[b]);
    });
    Value x = castTo(operand, accumulator);
    if (!llvm::equal(perm, llvm::seq<int64_t>(0, ls.size()))) {
      auto type = cast<RankedTensorType>(x.getType());
      SmallVector<int64_t> shape;
      for (int64_t p : perm)
        shape.push_back(type.getDimSize(p));
      x = TransposeOp::create(e.b, e.loc, type.clone(shape), x, perm);
    }
    SmallVector<int64_t> dims;
    for (int64_t p : perm)
      dims.push_back(position(ls[p]));
    x = e.broadcast(x, jointShape, dims);
    product = product ? Value(MulOp::create(e.b, e.loc, product, x)) : x;
  }
  auto summed = llvm::to_vector(
      llvm::seq<int64_t>(outLabels.size(), joint.size()));
  if (summed.empty())
    return castTo(product, element);
  return castTo(e.reduce(ReduceKind::sum, product, summed, /*keepdim=*/false),
                element);
}
} // namespace

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto lhs = cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rhs = cast<RankedTensorType>(adaptor.getRhs().getType());
  if (lhs.getRank() < 2 || lhs.getRank() != rhs.getRank())
    return emitOptionalError(loc, "expects operands of equal rank >= 2, got ",
                             lhs.getRank(), " and ", rhs.getRank());
  if (lhs.getElementType() != rhs.getElementType())
    return emitOptionalError(loc, "operands differ in element type");
  int64_t r = lhs.getRank();
  if (lhs.getShape().drop_back(2) != rhs.getShape().drop_back(2))
    return emitOptionalError(loc, "batch dimensions differ");
  if (lhs.getDimSize(r - 1) != rhs.getDimSize(r - 2))
    return emitOptionalError(loc, "contracted sizes differ: ",
                             lhs.getDimSize(r - 1), " and ",
                             rhs.getDimSize(r - 2));
  SmallVector<int64_t> shape(lhs.getShape().drop_back());
  shape.push_back(rhs.getDimSize(r - 1));
  types.push_back(lhs.clone(shape));
  return success();
}

SmallVector<Value> MatmulOp::decompose(OpBuilder &b) {
  Emitter e{b, getLoc()};
  int64_t r = getLhs().getType().getRank();
  // Labels: batch dims 0..r-3, then M = r-2, K = r-1, N = r.
  SmallVector<int64_t> batch = llvm::to_vector(llvm::seq<int64_t>(0, r - 2));
  SmallVector<int64_t> lhs(batch), rhs(batch), out(batch);
  lhs.append({r - 2, r - 1});
  rhs.append({r - 1, r});
  out.append({r - 2, r});
  return {buildContraction(e, {getLhs(), getRhs()}, {lhs, rhs}, out)};
}

//===----------------------------------------------------------------------===//
// EinsumOp
//===----------------------------------------------------------------------===//

namespace {
struct ParsedEinsum {
  SmallVector<SmallVector<int64_t>> inputs;
  SmallVector<int64_t> output;
};

/// Parses "ij,jk->ik" into one label (a letter) list per operand.
FailureOr<ParsedEinsum> parseEinsum(std::optional<Location> loc,
                                    StringRef equation, size_t numInputs) {
  ParsedEinsum parsed;
  auto [lhs, rhs] = equation.split("->");
  if (!equation.contains("->"))
    return emitOptionalError(loc, "einsum equation '", equation,
                             "' needs an explicit '->' output");
  auto toLabels = [&](StringRef term,
                      SmallVector<int64_t> &labels) -> LogicalResult {
    for (char c : term.trim()) {
      if (!llvm::isAlpha(c))
        return emitOptionalError(loc, "einsum subscript '", StringRef(&c, 1),
                                 "' is not a letter (ellipses are not "
                                 "supported)");
      if (llvm::is_contained(labels, (int64_t)c))
        return emitOptionalError(loc, "einsum subscript '", StringRef(&c, 1),
                                 "' repeats within one operand");
      labels.push_back(c);
    }
    return success();
  };
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != numInputs)
    return emitOptionalError(loc, "einsum equation has ", terms.size(),
                             " operands but ", numInputs, " are given");
  for (StringRef term : terms)
    if (failed(toLabels(term, parsed.inputs.emplace_back())))
      return failure();
  if (failed(toLabels(rhs, parsed.output)))
    return failure();
  return parsed;
}
} // namespace

LogicalResult EinsumOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  FailureOr<ParsedEinsum> parsed = parseEinsum(
      loc, adaptor.getEquation(), adaptor.getInputs().size());
  if (failed(parsed))
    return failure();
  DenseMap<int64_t, int64_t> size;
  Type element;
  for (auto [input, labels] : llvm::zip(adaptor.getInputs(), parsed->inputs)) {
    auto type = cast<RankedTensorType>(input.getType());
    if (element && type.getElementType() != element)
      return emitOptionalError(loc, "operands differ in element type");
    element = type.getElementType();
    if ((int64_t)labels.size() != type.getRank())
      return emitOptionalError(loc, "einsum operand of rank ", type.getRank(),
                               " has ", labels.size(), " subscripts");
    for (auto [l, s] : llvm::zip(labels, type.getShape())) {
      auto [it, inserted] = size.try_emplace(l, s);
      if (!inserted && it->second != s)
        return emitOptionalError(loc, "einsum subscript '", StringRef((char *)&l, 1),
                                 "' has sizes ", it->second, " and ", s);
    }
  }
  SmallVector<int64_t> shape;
  for (int64_t l : parsed->output) {
    if (!size.count(l))
      return emitOptionalError(loc, "einsum output subscript '",
                               StringRef((char *)&l, 1),
                               "' appears in no operand");
    shape.push_back(size[l]);
  }
  types.push_back(RankedTensorType::get(shape, element));
  return success();
}

SmallVector<Value> EinsumOp::decompose(OpBuilder &b) {
  Emitter e{b, getLoc()};
  ParsedEinsum parsed =
      *parseEinsum(getLoc(), getEquation(), getInputs().size());
  return {buildContraction(e, getInputs(), parsed.inputs, parsed.output)};
}

//===----------------------------------------------------------------------===//
// LinearOp
//===----------------------------------------------------------------------===//

LogicalResult LinearOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto x = cast<RankedTensorType>(adaptor.getInput().getType());
  auto w = cast<RankedTensorType>(adaptor.getWeight().getType());
  if (x.getRank() < 1 || w.getRank() != 2)
    return emitOptionalError(loc, "expects an input of rank >= 1 and a 2-D "
                                  "weight");
  if (x.getDimSize(x.getRank() - 1) != w.getDimSize(1))
    return emitOptionalError(loc, "input features ",
                             x.getDimSize(x.getRank() - 1),
                             " differ from the weight's ", w.getDimSize(1));
  if (x.getElementType() != w.getElementType())
    return emitOptionalError(loc, "operands differ in element type");
  if (Value bias = adaptor.getBias()) {
    auto t = cast<RankedTensorType>(bias.getType());
    if (t.getRank() != 1 || t.getDimSize(0) != w.getDimSize(0) ||
        t.getElementType() != x.getElementType())
      return emitOptionalError(loc, "bias must be a vector of ",
                               w.getDimSize(0), " output features");
  }
  SmallVector<int64_t> shape(x.getShape().drop_back());
  shape.push_back(w.getDimSize(0));
  types.push_back(x.clone(shape));
  return success();
}

SmallVector<Value> LinearOp::decompose(OpBuilder &b) {
  Emitter e{b, getLoc()};
  // y[m, n] = sum_k x[m, k] * w[n, k]: a contraction with labels, over the
  // input's leading dimensions flattened into one (M), as PyTorch's own
  // decomposition does. A product over several leading dimensions against
  // one weight is a matrix product (M x K times K x N); kept apart, the
  // leading dimensions would read as batches the weight broadcasts over,
  // which fusion and the contraction schedule do not take as one.
  auto input = cast<RankedTensorType>(getInput().getType());
  int64_t r = input.getRank();
  int64_t k = input.getDimSize(r - 1);
  int64_t n = cast<RankedTensorType>(getWeight().getType()).getDimSize(0);
  Value x = getInput();
  if (r != 2) {
    int64_t m = 1;
    for (int64_t d : input.getShape().drop_back())
      m *= d;
    x = ReshapeOp::create(b, getLoc(), input.clone({m, k}), x);
  }
  Value y = buildContraction(e, {x, getWeight()}, {{0, 1}, {2, 1}}, {0, 2});
  if (Value bias = getBias()) {
    auto shape = cast<RankedTensorType>(y.getType()).getShape();
    y = AddOp::create(b, getLoc(), y, e.broadcast(bias, shape, {1}));
  }
  if (r != 2) {
    SmallVector<int64_t> shape(input.getShape().drop_back());
    shape.push_back(n);
    y = ReshapeOp::create(b, getLoc(), input.clone(shape), y);
  }
  return {y};
}

//===----------------------------------------------------------------------===//
// Softmax and log-softmax
//===----------------------------------------------------------------------===//

static LogicalResult verifyAxis(Operation *op, int64_t axis, int64_t rank) {
  if (axis < 0 || axis >= rank)
    return op->emitOpError("axis ")
           << axis << " is outside a tensor of rank " << rank;
  return success();
}

LogicalResult SoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getInput().getType().getRank());
}

LogicalResult LogSoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getInput().getType().getRank());
}

namespace {
/// The stable pieces of (log-)softmax along `axis`: x - max(x), its exp, and
/// the sum of the exps kept as a size-1 dimension.
struct ShiftedExps {
  Value shifted, exps, sum;
};
ShiftedExps shiftedExps(Emitter &e, Value x, int64_t axis) {
  Value max = e.reduce(ReduceKind::max, x, {axis}, /*keepdim=*/true);
  Value shifted = SubOp::create(e.b, e.loc, x, e.expandLike(max, x));
  Value exps = ExpOp::create(e.b, e.loc, shifted);
  Value sum = e.reduce(ReduceKind::sum, exps, {axis}, /*keepdim=*/true);
  return {shifted, exps, sum};
}
} // namespace

/// `x` as f32 where it holds halves (f16, bf16), and the type to round the
/// result back to: PyTorch's kernels for softmax, log-softmax, layer norm,
/// mean and var (and its decompositions' computation dtype) compute in f32
/// for halves and round once. In the halves themselves every step rounded
/// (a softmax's x - max, its exp, the quotient; a layer norm's centered
/// values and their squares: 0.09 off PyTorch's bf16 layer norm where it
/// is now exact), and attention's online-softmax fold, which computes in
/// f32, did not recognize the softmax.
static std::pair<Value, Type> inF32(Emitter &e, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  if (!type.getElementType().isF16() && !type.getElementType().isBF16())
    return {x, Type()};
  return {CastOp::create(e.b, e.loc, type.clone(e.b.getF32Type()), x),
          type.getElementType()};
}

/// `y` rounded to `element` where inF32 widened its input.
static Value roundedBack(Emitter &e, Value y, Type element) {
  if (!element)
    return y;
  auto type = cast<RankedTensorType>(y.getType());
  return CastOp::create(e.b, e.loc, type.clone(element), y);
}

SmallVector<Value> SoftmaxOp::decompose(OpBuilder &b) {
  Emitter e{b, getLoc()};
  auto [x, half] = inF32(e, getInput());
  ShiftedExps s = shiftedExps(e, x, getAxis());
  Value y = DivOp::create(b, getLoc(), s.exps, e.expandLike(s.sum, x));
  return {roundedBack(e, y, half)};
}

SmallVector<Value> LogSoftmaxOp::decompose(OpBuilder &b) {
  Emitter e{b, getLoc()};
  auto [x, half] = inF32(e, getInput());
  ShiftedExps s = shiftedExps(e, x, getAxis());
  Value logSum = LogOp::create(b, getLoc(), s.sum);
  Value y = SubOp::create(b, getLoc(), s.shifted, e.expandLike(logSum, x));
  return {roundedBack(e, y, half)};
}

//===----------------------------------------------------------------------===//
// LayerNormOp
//===----------------------------------------------------------------------===//

LogicalResult LayerNormOp::verify() {
  auto x = getInput().getType();
  int64_t n = getNormalizedRank();
  if (n < 1 || n > x.getRank())
    return emitOpError("normalized_rank must be in [1, ")
           << x.getRank() << "], got " << n;
  ArrayRef<int64_t> normalized = x.getShape().take_back(n);
  for (Value param : {getWeight(), getBias()}) {
    if (!param)
      continue;
    auto t = cast<RankedTensorType>(param.getType());
    if (t.getShape() != normalized || t.getElementType() != x.getElementType())
      return emitOpError("weight and bias must have the normalized shape "
                         "and the input's element type");
  }
  return success();
}

SmallVector<Value> LayerNormOp::decompose(OpBuilder &b) {
  Emitter e{b, getLoc()};
  // Halves normalize in f32 and round once, as PyTorch's kernels do.
  auto [x, half] = inF32(e, getInput());
  int64_t rank = getInput().getType().getRank();
  SmallVector<int64_t> axes = trailingAxes(rank, getNormalizedRank());
  Value mean = e.mean(x, axes, /*keepdim=*/true);
  Value centered = SubOp::create(b, getLoc(), x, e.expandLike(mean, x));
  Value squares = MulOp::create(b, getLoc(), centered, centered);
  Value var = e.mean(squares, axes, /*keepdim=*/true);
  Value stable = AddOp::create(b, getLoc(), var, e.splatLike(var, getEps().convertToDouble()));
  Value rstd = RsqrtOp::create(b, getLoc(), stable);
  Value y = MulOp::create(b, getLoc(), centered, e.expandLike(rstd, x));
  auto shape = getInput().getType().getShape();
  if (Value w = getWeight())
    y = MulOp::create(b, getLoc(), y,
                      e.broadcast(inF32(e, w).first, shape, axes));
  if (Value bias = getBias())
    y = AddOp::create(b, getLoc(), y,
                      e.broadcast(inF32(e, bias).first, shape, axes));
  return {roundedBack(e, y, half)};
}

//===----------------------------------------------------------------------===//
// Activations and clamp
//===----------------------------------------------------------------------===//

SmallVector<Value> GeluOp::decompose(OpBuilder &b) {
  Emitter e{b, getLoc()};
  Value x = getInput();
  Location loc = getLoc();
  Value inner;
  if (getTanh()) {
    // tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))
    Value cube = MulOp::create(b, loc, MulOp::create(b, loc, x, x), x);
    Value poly = AddOp::create(
        b, loc, x, MulOp::create(b, loc, e.splatLike(x, 0.044715), cube));
    inner = TanhOp::create(
        b, loc,
        MulOp::create(b, loc, e.splatLike(x, std::sqrt(2.0 / M_PI)), poly));
  } else {
    // erf(x / sqrt(2))
    inner = ErfOp::create(
        b, loc, MulOp::create(b, loc, x, e.splatLike(x, M_SQRT1_2)));
  }
  Value onePlus = AddOp::create(b, loc, e.splatLike(x, 1.0), inner);
  Value half = MulOp::create(b, loc, e.splatLike(x, 0.5), x);
  return {MulOp::create(b, loc, half, onePlus)};
}

SmallVector<Value> ReluOp::decompose(OpBuilder &b) {
  Emitter e{b, getLoc()};
  return {MaxOp::create(b, getLoc(), getInput(), e.splatLike(getInput(), 0))};
}

SmallVector<Value> SiluOp::decompose(OpBuilder &b) {
  Value s = SigmoidOp::create(b, getLoc(), getInput());
  return {MulOp::create(b, getLoc(), getInput(), s)};
}

SmallVector<Value> ClampOp::decompose(OpBuilder &b) {
  Emitter e{b, getLoc()};
  Value y = getInput();
  if (getMin())
    y = MaxOp::create(b, getLoc(), y, e.splatLike(y, getMin()->convertToDouble()));
  if (getMax())
    y = MinOp::create(b, getLoc(), y, e.splatLike(y, getMax()->convertToDouble()));
  return {y};
}

//===----------------------------------------------------------------------===//
// Mean and variance
//===----------------------------------------------------------------------===//

LogicalResult MeanOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  return inferReducedType(loc, adaptor.getInput().getType(), adaptor.getAxes(),
                          adaptor.getKeepdim(), types);
}

SmallVector<Value> MeanOp::decompose(OpBuilder &b) {
  Emitter e{b, getLoc()};
  // Halves sum and divide in f32 and round once, as PyTorch's kernels do.
  auto [x, half] = inF32(e, getInput());
  return {roundedBack(e, e.mean(x, getAxes(), getKeepdim()), half)};
}

LogicalResult VarOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  if ((int64_t)adaptor.getCorrection() < 0)
    return emitOptionalError(loc, "correction must be non-negative");
  return inferReducedType(loc, adaptor.getInput().getType(), adaptor.getAxes(),
                          adaptor.getKeepdim(), types);
}

SmallVector<Value> VarOp::decompose(OpBuilder &b) {
  Emitter e{b, getLoc()};
  // Halves compute in f32 and round once, as PyTorch's kernels do.
  auto [x, half] = inF32(e, getInput());
  Value mean = e.mean(x, getAxes(), /*keepdim=*/true);
  Value centered = SubOp::create(b, getLoc(), x, e.expandLike(mean, x));
  Value squares = MulOp::create(b, getLoc(), centered, centered);
  Value sum = e.reduce(ReduceKind::sum, squares, getAxes(), getKeepdim());
  int64_t n = 1;
  for (int64_t a : getAxes())
    n *= getInput().getType().getDimSize(a);
  // The degrees of freedom, N - correction, count from 0, as in PyTorch:
  // where there are none the division gives inf (NaN for no elements).
  int64_t freedom = std::max<int64_t>(n - (int64_t)getCorrection(), 0);
  return {roundedBack(
      e, DivOp::create(b, getLoc(), sum, e.splatLike(sum, freedom)), half)};
}
