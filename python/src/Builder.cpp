#include "Builder.h"
#include "Diagnostics.h"

#include "strata/Dialect/TensorIR/IR/TensorIR.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

using namespace mlir;

namespace strata::python {

/// The diagnostics of an op's inference as MLIR words an op's error
/// ("loc: error: 'tensorir.matmul' op contracted sizes differ: 5 and 4").
static std::string opError(StringRef name, const DiagnosticCollector &d) {
  std::string what = "'" + name.str() + "' op ";
  std::string text = d.text();
  if (text.empty())
    return what + "cannot type its result with these operands";
  size_t error = text.find("error: ");
  if (error == std::string::npos)
    return what + text;
  return text.insert(error + 7, what);
}

struct ProgramBuilder::Impl {
  std::unique_ptr<Module> module = Module::create();
  MLIRContext *ctx = module->context();
  OpBuilder b{ctx};
  func::FuncOp func;
  Block *body = nullptr;
  Location loc = UnknownLoc::get(ctx);
  std::vector<Value> values;

  int add(Value v) {
    values.push_back(v);
    return values.size() - 1;
  }
  /// A constant of type `t`, every element `scalar`.
  int splat(RankedTensorType t, Attribute scalar) {
    return add(
        tensorir::ConstantOp::create(b, loc, DenseElementsAttr::get(t, scalar))
            .getResult());
  }
  Value get(int id) const {
    if (id < 0 || id >= (int)values.size())
      throw CompilerError("no value with id " + std::to_string(id));
    return values[id];
  }
  /// The element type MLIR spells `dtype` (f32, bf16, i64, i1, ...), as
  /// the front end names PyTorch's dtypes (importer.DTYPES): the floats
  /// and signless integers Strata's stages take.
  Type elementType(const std::string &dtype) {
    // (A name that is no type is this error, not the parser's.)
    ScopedDiagnosticHandler quiet(b.getContext(),
                                  [](Diagnostic &) { return success(); });
    Type type = parseType(dtype, b.getContext());
    bool supported =
        type && (type.isF64() || type.isF32() || type.isF16() ||
                 type.isBF16() || type.isSignlessInteger(1) ||
                 type.isSignlessInteger(8) || type.isSignlessInteger(16) ||
                 type.isSignlessInteger(32) || type.isSignlessInteger(64));
    if (!supported)
      throw CompilerError("unsupported element type '" + dtype + "'");
    return type;
  }
  RankedTensorType tensorType(const std::vector<int64_t> &shape,
                              const std::string &dtype) {
    return tensorType(shape, elementType(dtype));
  }
  RankedTensorType tensorType(ArrayRef<int64_t> shape, Type element) {
    for (int64_t d : shape)
      if (d < 0)
        throw CompilerError("dynamic or negative dimension in a shape");
    return RankedTensorType::get(shape, element);
  }
  /// Creates `OpTy` from `operands` (in the op's operand groups: none for
  /// an absent optional operand) and `attrs`, its results typed
  /// `resultTypes` where given, else as the op infers them.
  template <typename OpTy>
  std::vector<int> create(ArrayRef<SmallVector<Value>> operands,
                          ArrayRef<NamedAttribute> attrs,
                          TypeRange resultTypes = {}, unsigned numResults = 1) {
    OperationState state(loc, OpTy::getOperationName());
    SmallVector<int32_t> segments;
    for (const SmallVector<Value> &group : operands) {
      state.addOperands(group);
      segments.push_back(group.size());
    }
    if constexpr (OpTy::template hasTrait<OpTrait::AttrSizedOperandSegments>())
      state.addAttribute("operandSegmentSizes",
                         b.getDenseI32ArrayAttr(segments));
    state.addAttributes(attrs);
    if (resultTypes.empty())
      state.addTypes(SmallVector<Type>(numResults, b.getNoneType()));
    else
      state.addTypes(resultTypes);
    Operation *op = b.create(state);
    if (resultTypes.empty()) {
      // The op's own inference, on the op as created (its properties
      // set): what it rejects is this call's error.
      DiagnosticCollector diagnostics(ctx);
      SmallVector<Type> inferred;
      if (failed(llvm::cast<InferTypeOpInterface>(op).inferReturnTypes(
              ctx, op->getLoc(), op->getOperands(), op->getRawDictionaryAttrs(),
              op->getPropertiesStorage(), op->getRegions(), inferred)) ||
          inferred.size() != numResults) {
        op->erase();
        throw CompilerError(opError(OpTy::getOperationName(), diagnostics));
      }
      for (auto [result, type] : llvm::zip(op->getResults(), inferred))
        result.setType(type);
    }
    std::vector<int> ids;
    for (Value r : op->getResults())
      ids.push_back(add(r));
    return ids;
  }
  template <typename OpTy>
  int create1(ArrayRef<Value> operands, ArrayRef<NamedAttribute> attrs = {},
              TypeRange resultTypes = {}) {
    SmallVector<SmallVector<Value>> groups;
    for (Value v : operands)
      groups.push_back({v});
    return create<OpTy>(groups, attrs, resultTypes)[0];
  }
  SmallVector<Value> optional(std::optional<int> id) const {
    if (!id)
      return {};
    return {get(*id)};
  }
  RankedTensorType typeOf(int id) const {
    return llvm::cast<RankedTensorType>(get(id).getType());
  }
  NamedAttribute attr(StringRef name, Attribute value) {
    return b.getNamedAttr(name, value);
  }
  NamedAttribute ints(StringRef name, ArrayRef<int64_t> values) {
    return attr(name, b.getDenseI64ArrayAttr(values));
  }
  NamedAttribute i64(StringRef name, int64_t value) {
    return attr(name, b.getI64IntegerAttr(value));
  }
};

ProgramBuilder::ProgramBuilder(const std::string &name)
    : impl(std::make_unique<Impl>()) {
  OpBuilder &b = impl->b;
  b.setInsertionPointToEnd(impl->module->op().getBody());
  impl->func = func::FuncOp::create(b, impl->loc, name,
                                    b.getFunctionType({}, {}));
  impl->body = impl->func.addEntryBlock();
  b.setInsertionPointToEnd(impl->body);
}

ProgramBuilder::~ProgramBuilder() = default;

int ProgramBuilder::input(const std::vector<int64_t> &shape,
                          const std::string &dtype) {
  Type t = impl->tensorType(shape, dtype);
  return impl->add(impl->body->addArgument(t, impl->loc));
}

void ProgramBuilder::setLocation(const std::string &file, int line,
                                 const std::string &what) {
  MLIRContext *ctx = impl->ctx;
  Location l = file.empty() ? Location(UnknownLoc::get(ctx))
                            : Location(FileLineColLoc::get(ctx, file, line, 0));
  impl->loc = what.empty() ? l : Location(NameLoc::get(StringAttr::get(ctx, what), l));
}

int ProgramBuilder::constant(const std::string &bytes,
                             const std::vector<int64_t> &shape,
                             const std::string &dtype) {
  RankedTensorType t = impl->tensorType(shape, dtype);
  int64_t bits = t.getElementTypeBitWidth();
  int64_t bytesPerElement = bits == 1 ? 1 : bits / 8;
  if ((int64_t)bytes.size() != t.getNumElements() * bytesPerElement)
    throw CompilerError("constant data has " + std::to_string(bytes.size()) +
                        " bytes for " + std::to_string(t.getNumElements()) +
                        " elements of " + dtype);
  DenseElementsAttr value;
  if (bits == 1) { // Booleans arrive one byte each.
    SmallVector<bool> flags(bytes.begin(), bytes.end());
    value = DenseElementsAttr::get(t, ArrayRef<bool>(flags));
  } else {
    value = DenseElementsAttr::getFromRawBuffer(
        t, ArrayRef<char>(bytes.data(), bytes.size()));
  }
  return impl->add(
      tensorir::ConstantOp::create(impl->b, impl->loc, value).getResult());
}

/// `value` as a scalar attribute of `type` (a float or an integer).
static TypedAttr scalarAttr(OpBuilder &b, Type type, double value) {
  if (isa<FloatType>(type))
    return b.getFloatAttr(type, value);
  return b.getIntegerAttr(type, (int64_t)value);
}

int ProgramBuilder::splat(int64_t value, const std::vector<int64_t> &shape,
                          const std::string &dtype) {
  RankedTensorType t = impl->tensorType(shape, dtype);
  Type element = t.getElementType();
  return impl->splat(t, isa<FloatType>(element)
                            ? scalarAttr(impl->b, element, (double)value)
                            : impl->b.getIntegerAttr(element, value));
}

int ProgramBuilder::splat(double value, const std::vector<int64_t> &shape,
                          const std::string &dtype) {
  RankedTensorType t = impl->tensorType(shape, dtype);
  return impl->splat(t, scalarAttr(impl->b, t.getElementType(), value));
}

int ProgramBuilder::pad(int input, const std::vector<int64_t> &low,
                        const std::vector<int64_t> &high, double value) {
  Value x = impl->get(input);
  auto type = llvm::cast<RankedTensorType>(x.getType());
  if (low.size() != (size_t)type.getRank() ||
      high.size() != (size_t)type.getRank())
    throw CompilerError("pad takes one low and one high amount per dimension");
  SmallVector<int64_t> shape(type.getShape());
  for (size_t d = 0; d < shape.size(); ++d)
    shape[d] += low[d] + high[d];
  return impl->add(tensorir::PadOp::create(
      impl->b, impl->loc, type.clone(shape), x, low, high,
      scalarAttr(impl->b, type.getElementType(), value)));
}

template <typename OpTy> int ProgramBuilder::unary(int x) {
  return impl->create1<OpTy>({impl->get(x)});
}

template <typename OpTy> int ProgramBuilder::binary(int lhs, int rhs) {
  return impl->create1<OpTy>({impl->get(lhs), impl->get(rhs)});
}

#define STRATA_UNARY(name, Op)                                                 \
  template int ProgramBuilder::unary<tensorir::Op>(int);
#define STRATA_BINARY(name, Op)                                                \
  template int ProgramBuilder::binary<tensorir::Op>(int, int);
#include "ElementwiseOps.def"

int ProgramBuilder::cmp(tensorir::CmpPredicate predicate, int lhs, int rhs) {
  return impl->create1<tensorir::CmpOp>(
      {impl->get(lhs), impl->get(rhs)},
      {impl->attr("predicate",
                  tensorir::CmpPredicateAttr::get(impl->ctx, predicate))});
}

int ProgramBuilder::select(int condition, int trueValue, int falseValue) {
  return impl->create1<tensorir::SelectOp>(
      {impl->get(condition), impl->get(trueValue), impl->get(falseValue)});
}

int ProgramBuilder::cast(int x, const std::string &dtype) {
  RankedTensorType t = impl->typeOf(x);
  return impl->create1<tensorir::CastOp>({impl->get(x)}, {},
                                         t.clone(impl->elementType(dtype)));
}

int ProgramBuilder::bitcast(int x, const std::string &dtype) {
  RankedTensorType t = impl->typeOf(x);
  return impl->create1<tensorir::BitcastOp>({impl->get(x)}, {},
                                            t.clone(impl->elementType(dtype)));
}

int ProgramBuilder::iota(const std::vector<int64_t> &shape, int64_t dim,
                         const std::string &dtype) {
  return impl->create1<tensorir::IotaOp>({}, {impl->i64("dim", dim)},
                                         impl->tensorType(shape, dtype));
}

int ProgramBuilder::clamp(int x, std::optional<double> min,
                          std::optional<double> max) {
  SmallVector<NamedAttribute> attrs;
  if (min)
    attrs.push_back(impl->attr("min", impl->b.getF64FloatAttr(*min)));
  if (max)
    attrs.push_back(impl->attr("max", impl->b.getF64FloatAttr(*max)));
  return impl->create1<tensorir::ClampOp>({impl->get(x)}, attrs);
}

int ProgramBuilder::gelu(int x, bool tanh) {
  SmallVector<NamedAttribute> attrs;
  if (tanh)
    attrs.push_back(impl->attr("tanh", impl->b.getUnitAttr()));
  return impl->create1<tensorir::GeluOp>({impl->get(x)}, attrs);
}

int ProgramBuilder::reshape(int x, const std::vector<int64_t> &shape) {
  RankedTensorType t = impl->typeOf(x);
  return impl->create1<tensorir::ReshapeOp>(
      {impl->get(x)}, {}, impl->tensorType(shape, t.getElementType()));
}

int ProgramBuilder::broadcast(int x, const std::vector<int64_t> &shape,
                              const std::vector<int64_t> &dims) {
  RankedTensorType t = impl->typeOf(x);
  return impl->create1<tensorir::BroadcastOp>(
      {impl->get(x)}, {impl->ints("dims", dims)},
      impl->tensorType(shape, t.getElementType()));
}

int ProgramBuilder::transpose(int x, const std::vector<int64_t> &perm) {
  return impl->create1<tensorir::TransposeOp>({impl->get(x)},
                                              {impl->ints("perm", perm)});
}

int ProgramBuilder::slice(int x, const std::vector<int64_t> &offsets,
                          const std::vector<int64_t> &shape,
                          const std::vector<int64_t> &strides) {
  RankedTensorType t = impl->typeOf(x);
  return impl->create1<tensorir::SliceOp>(
      {impl->get(x)},
      {impl->ints("offsets", offsets), impl->ints("strides", strides)},
      impl->tensorType(shape, t.getElementType()));
}

int ProgramBuilder::window(int x, const std::vector<int64_t> &sizes,
                           const std::vector<int64_t> &strides,
                           const std::vector<int64_t> &dilations) {
  return impl->create1<tensorir::WindowOp>(
      {impl->get(x)},
      {impl->ints("sizes", sizes), impl->ints("strides", strides),
       impl->ints("dilations", dilations)});
}

int ProgramBuilder::concat(const std::vector<int> &inputs, int64_t axis) {
  SmallVector<Value> values;
  for (int id : inputs)
    values.push_back(impl->get(id));
  return impl->create<tensorir::ConcatOp>({values},
                                          {impl->i64("axis", axis)})[0];
}

int ProgramBuilder::gather(int x, int indices, int64_t axis) {
  return impl->create1<tensorir::GatherOp>({impl->get(x), impl->get(indices)},
                                           {impl->i64("axis", axis)});
}

static NamedAttribute reduceKind(OpBuilder &b, tensorir::ReduceKind kind) {
  return b.getNamedAttr("kind",
                        tensorir::ReduceKindAttr::get(b.getContext(), kind));
}

/// A unit attribute named `name` where `flag` holds.
static SmallVector<NamedAttribute> flag(OpBuilder &b, StringRef name,
                                        bool flag) {
  if (!flag)
    return {};
  return {b.getNamedAttr(name, b.getUnitAttr())};
}

int ProgramBuilder::reduce(tensorir::ReduceKind kind, int x,
                           const std::vector<int64_t> &axes, bool keepdim) {
  SmallVector<NamedAttribute> attrs = flag(impl->b, "keepdim", keepdim);
  attrs.append({reduceKind(impl->b, kind), impl->ints("axes", axes)});
  return impl->create1<tensorir::ReduceOp>({impl->get(x)}, attrs);
}

std::pair<int, int> ProgramBuilder::argReduce(tensorir::ReduceKind kind, int x,
                                              int64_t axis, bool keepdim) {
  SmallVector<NamedAttribute> attrs = flag(impl->b, "keepdim", keepdim);
  attrs.append({reduceKind(impl->b, kind), impl->i64("axis", axis)});
  std::vector<int> ids = impl->create<tensorir::ArgReduceOp>(
      {{impl->get(x)}}, attrs, {}, /*numResults=*/2);
  return {ids[0], ids[1]};
}

int ProgramBuilder::mean(int x, const std::vector<int64_t> &axes,
                         bool keepdim) {
  SmallVector<NamedAttribute> attrs = flag(impl->b, "keepdim", keepdim);
  attrs.push_back(impl->ints("axes", axes));
  return impl->create1<tensorir::MeanOp>({impl->get(x)}, attrs);
}

int ProgramBuilder::var(int x, const std::vector<int64_t> &axes,
                        int64_t correction, bool keepdim) {
  SmallVector<NamedAttribute> attrs = flag(impl->b, "keepdim", keepdim);
  attrs.append({impl->ints("axes", axes), impl->i64("correction", correction)});
  return impl->create1<tensorir::VarOp>({impl->get(x)}, attrs);
}

int ProgramBuilder::matmul(int lhs, int rhs) {
  return impl->create1<tensorir::MatmulOp>({impl->get(lhs), impl->get(rhs)});
}

int ProgramBuilder::einsum(const std::string &equation,
                           const std::vector<int> &inputs) {
  SmallVector<Value> values;
  for (int id : inputs)
    values.push_back(impl->get(id));
  return impl->create<tensorir::EinsumOp>(
      {values}, {impl->attr("equation", impl->b.getStringAttr(equation))})[0];
}

int ProgramBuilder::linear(int x, int weight, std::optional<int> bias) {
  return impl->create<tensorir::LinearOp>(
      {{impl->get(x)}, {impl->get(weight)}, impl->optional(bias)}, {})[0];
}

int ProgramBuilder::softmax(int x, int64_t axis) {
  return impl->create1<tensorir::SoftmaxOp>({impl->get(x)},
                                            {impl->i64("axis", axis)});
}

int ProgramBuilder::logSoftmax(int x, int64_t axis) {
  return impl->create1<tensorir::LogSoftmaxOp>({impl->get(x)},
                                               {impl->i64("axis", axis)});
}

int ProgramBuilder::layerNorm(int x, std::optional<int> weight,
                              std::optional<int> bias, int64_t normalizedRank,
                              double eps) {
  return impl->create<tensorir::LayerNormOp>(
      {{impl->get(x)}, impl->optional(weight), impl->optional(bias)},
      {impl->i64("normalized_rank", normalizedRank),
       impl->attr("eps", impl->b.getF64FloatAttr(eps))})[0];
}

int ProgramBuilder::conv(int x, int weight, std::optional<int> bias,
                         const std::vector<int64_t> &strides,
                         const std::vector<int64_t> &padding,
                         const std::vector<int64_t> &dilations, int64_t groups,
                         std::optional<std::vector<int64_t>> outputPadding) {
  SmallVector<SmallVector<Value>> operands = {
      {impl->get(x)}, {impl->get(weight)}, impl->optional(bias)};
  SmallVector<NamedAttribute> attrs = {
      impl->ints("strides", strides), impl->ints("padding", padding),
      impl->ints("dilations", dilations), impl->i64("groups", groups)};
  if (!outputPadding)
    return impl->create<tensorir::ConvOp>(operands, attrs)[0];
  attrs.push_back(impl->ints("output_padding", *outputPadding));
  return impl->create<tensorir::ConvTransposeOp>(operands, attrs)[0];
}

std::vector<int64_t> ProgramBuilder::shape(int value) const {
  auto t = llvm::cast<RankedTensorType>(impl->get(value).getType());
  return {t.getShape().begin(), t.getShape().end()};
}

std::string ProgramBuilder::dtype(int value) const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::cast<RankedTensorType>(impl->get(value).getType())
            .getElementType();
  return s;
}

std::unique_ptr<Module> ProgramBuilder::finish(const std::vector<int> &outputs) {
  SmallVector<Value> results;
  for (int id : outputs)
    results.push_back(impl->get(id));
  func::ReturnOp::create(impl->b, impl->loc, results);
  impl->func.setFunctionType(impl->b.getFunctionType(
      impl->body->getArgumentTypes(), ValueRange(results).getTypes()));
  std::unique_ptr<Module> module = std::move(impl->module);
  module->verify();
  return module;
}

} // namespace strata::python
