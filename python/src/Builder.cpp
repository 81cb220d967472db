#include "Builder.h"

#include "strata/Dialect/TensorIR/IR/TensorIR.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;

namespace strata::python {

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
    for (int64_t d : shape)
      if (d < 0)
        throw CompilerError("dynamic or negative dimension in a shape");
    return RankedTensorType::get(shape, elementType(dtype));
  }
  Attribute attribute(const AttrValue &v) {
    switch (v.kind) {
    case AttrValue::Kind::Int:
      return b.getI64IntegerAttr(v.i);
    case AttrValue::Kind::I32:
      return b.getI32IntegerAttr(v.i);
    case AttrValue::Kind::Float:
      return b.getF64FloatAttr(v.f);
    case AttrValue::Kind::Ints:
      return b.getDenseI64ArrayAttr(v.ints);
    case AttrValue::Kind::Str:
      return b.getStringAttr(v.s);
    case AttrValue::Kind::Flag:
      return v.i ? Attribute(b.getUnitAttr()) : Attribute();
    }
    return {};
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
  auto type = cast<RankedTensorType>(x.getType());
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

std::vector<int> ProgramBuilder::op(
    const std::string &name, const std::vector<std::vector<int>> &operands,
    const std::vector<std::pair<std::vector<int64_t>, std::string>>
        &resultTypes,
    const std::map<std::string, AttrValue> &attrs) {
  std::optional<RegisteredOperationName> opName =
      RegisteredOperationName::lookup(name, impl->ctx);
  if (!opName)
    throw CompilerError("unknown operation '" + name + "'");
  OperationState state(impl->loc, *opName);
  SmallVector<int32_t> segments;
  for (const std::vector<int> &group : operands) {
    for (int id : group)
      state.addOperands(impl->get(id));
    segments.push_back(group.size());
  }
  if (opName->hasTrait<OpTrait::AttrSizedOperandSegments>())
    state.addAttribute("operandSegmentSizes",
                       impl->b.getDenseI32ArrayAttr(segments));
  for (auto &[shape, dtype] : resultTypes)
    state.addTypes(impl->tensorType(shape, dtype));
  for (auto &[key, value] : attrs)
    if (Attribute a = impl->attribute(value))
      state.addAttribute(key, a);
  Operation *created = impl->b.create(state);
  std::vector<int> ids;
  for (Value r : created->getResults())
    ids.push_back(impl->add(r));
  return ids;
}

std::vector<int64_t> ProgramBuilder::shape(int value) const {
  auto t = cast<RankedTensorType>(impl->get(value).getType());
  return {t.getShape().begin(), t.getShape().end()};
}

std::string ProgramBuilder::dtype(int value) const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << cast<RankedTensorType>(impl->get(value).getType()).getElementType();
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
