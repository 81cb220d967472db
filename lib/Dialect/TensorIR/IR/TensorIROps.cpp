#include "strata/Dialect/TensorIR/IR/TensorIR.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace strata::tensorir;

#define GET_OP_CLASSES
#include "strata/Dialect/TensorIR/IR/TensorIROps.cpp.inc"

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// Scalar bodies of the elementwise ops
//===----------------------------------------------------------------------===//

static bool isFloat(Value v) { return isa<FloatType>(v.getType()); }

/// A binary op whose scalar form depends on whether elements are floats.
template <typename FloatOp, typename IntOp>
static Value buildBinary(OpBuilder &b, Location loc, ValueRange x) {
  if (isFloat(x[0]))
    return FloatOp::create(b, loc, x[0], x[1]);
  return IntOp::create(b, loc, x[0], x[1]);
}

Value AddOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  return buildBinary<arith::AddFOp, arith::AddIOp>(b, loc, x);
}

Value SubOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  return buildBinary<arith::SubFOp, arith::SubIOp>(b, loc, x);
}

Value MulOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  return buildBinary<arith::MulFOp, arith::MulIOp>(b, loc, x);
}

Value DivOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  return buildBinary<arith::DivFOp, arith::DivSIOp>(b, loc, x);
}

// Floats propagate NaN, like torch.maximum / torch.minimum.
Value MaxOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  return buildBinary<arith::MaximumFOp, arith::MaxSIOp>(b, loc, x);
}

Value MinOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  return buildBinary<arith::MinimumFOp, arith::MinSIOp>(b, loc, x);
}

Value NegOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  if (isFloat(x[0]))
    return arith::NegFOp::create(b, loc, x[0]);
  Value zero = arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(x[0].getType(), 0));
  return arith::SubIOp::create(b, loc, zero, x[0]);
}

Value AbsOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  if (isFloat(x[0]))
    return math::AbsFOp::create(b, loc, x[0]);
  return math::AbsIOp::create(b, loc, x[0]);
}

/// Whether `v < 0` (signed for integers; false for NaN).
static Value isNegative(OpBuilder &b, Location loc, Value v) {
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(v.getType()));
  if (isFloat(v))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, v, zero);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v, zero);
}

Value SignOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  // (0 < x) - (x < 0), as PyTorch computes it: 0 for 0, -0 and NaN.
  Type t = x[0].getType();
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(t));
  Value one = isFloat(x[0]) ? Value(arith::ConstantOp::create(
                                  b, loc, b.getFloatAttr(t, 1.0)))
                            : Value(arith::ConstantOp::create(
                                  b, loc, b.getIntegerAttr(t, 1)));
  Value minusOne = buildBinary<arith::SubFOp, arith::SubIOp>(
      b, loc, ValueRange{zero, one});
  Value negativeOrZero = arith::SelectOp::create(
      b, loc, isNegative(b, loc, x[0]), minusOne, zero);
  Value positive = isFloat(x[0])
                       ? Value(arith::CmpFOp::create(
                             b, loc, arith::CmpFPredicate::OGT, x[0], zero))
                       : Value(arith::CmpIOp::create(
                             b, loc, arith::CmpIPredicate::sgt, x[0], zero));
  return arith::SelectOp::create(b, loc, positive, one, negativeOrZero);
}

Value ReciprocalOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  Value one = arith::ConstantOp::create(b, loc, b.getFloatAttr(x[0].getType(), 1.0));
  return arith::DivFOp::create(b, loc, one, x[0]);
}

Value SigmoidOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  Type t = x[0].getType();
  Value one = arith::ConstantOp::create(b, loc, b.getFloatAttr(t, 1.0));
  Value negated = arith::NegFOp::create(b, loc, x[0]);
  Value denominator = arith::AddFOp::create(
      b, loc, one, math::ExpOp::create(b, loc, negated));
  return arith::DivFOp::create(b, loc, one, denominator);
}

Value PowOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  return math::PowFOp::create(b, loc, x[0], x[1]);
}

Value Atan2Op::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  return math::Atan2Op::create(b, loc, x[0], x[1]);
}

Value RemOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  return buildBinary<arith::RemFOp, arith::RemSIOp>(b, loc, x);
}

/// Whether a truncating division's remainder `rem` of a divisor `divisor`
/// is nonzero with the other sign: where flooring division differs.
static Value floorDiffers(OpBuilder &b, Location loc, Value rem,
                          Value divisor) {
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(rem.getType()));
  Value nonzero =
      isFloat(rem)
          ? Value(arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE,
                                        rem, zero))
          : Value(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, rem,
                                        zero));
  Value signsDiffer = arith::XOrIOp::create(
      b, loc, isNegative(b, loc, rem), isNegative(b, loc, divisor));
  return arith::AndIOp::create(b, loc, nonzero, signsDiffer);
}

// PyTorch's remainder: fmod, moved by the divisor where the signs differ.
Value ModOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  Value rem = buildBinary<arith::RemFOp, arith::RemSIOp>(b, loc, x);
  Value moved = buildBinary<arith::AddFOp, arith::AddIOp>(
      b, loc, ValueRange{rem, x[1]});
  return arith::SelectOp::create(b, loc, floorDiffers(b, loc, rem, x[1]),
                                 moved, rem);
}

Value FloorDivOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  Value a = x[0], d = x[1];
  Type t = a.getType();
  if (!isFloat(a)) { // Truncating division, one less where floor differs.
    Value quotient = arith::DivSIOp::create(b, loc, a, d);
    Value rem = arith::RemSIOp::create(b, loc, a, d);
    Value one = arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, 1));
    Value lower = arith::SubIOp::create(b, loc, quotient, one);
    return arith::SelectOp::create(b, loc, floorDiffers(b, loc, rem, d),
                                   lower, quotient);
  }
  // c10::div_floor_floating: exact where floor(a / b) would round wrongly
  // (a / b rounds before the floor).
  auto constant = [&](double v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(t, v));
  };
  Value mod = arith::RemFOp::create(b, loc, a, d);
  Value div = arith::DivFOp::create(
      b, loc, arith::SubFOp::create(b, loc, a, mod), d);
  div = arith::SelectOp::create(
      b, loc, floorDiffers(b, loc, mod, d),
      arith::SubFOp::create(b, loc, div, constant(1.0)), div);
  Value floored = math::FloorOp::create(b, loc, div);
  Value roundUp = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OGT,
      arith::SubFOp::create(b, loc, div, floored), constant(0.5));
  floored = arith::SelectOp::create(
      b, loc, roundUp, arith::AddFOp::create(b, loc, floored, constant(1.0)),
      floored);
  // A zero quotient takes the sign of a / b (q * 0 keeps it, q finite).
  Value quotient = arith::DivFOp::create(b, loc, a, d);
  Value signedZero = arith::MulFOp::create(b, loc, quotient, constant(0.0));
  Value isZero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, div,
                                       constant(0.0));
  Value result = arith::SelectOp::create(b, loc, isZero, signedZero, floored);
  // Division by zero: the IEEE quotient (inf or NaN).
  Value byZero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, d,
                                       constant(0.0));
  return arith::SelectOp::create(b, loc, byZero, quotient, result);
}

Value AndOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  return arith::AndIOp::create(b, loc, x[0], x[1]);
}

Value OrOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  return arith::OrIOp::create(b, loc, x[0], x[1]);
}

Value XorOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  return arith::XOrIOp::create(b, loc, x[0], x[1]);
}

Value ShlOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  return arith::ShLIOp::create(b, loc, x[0], x[1]);
}

Value ShrOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  return arith::ShRSIOp::create(b, loc, x[0], x[1]);
}

Value CmpOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  if (isFloat(x[0])) {
    arith::CmpFPredicate p;
    switch (getPredicate()) {
    case CmpPredicate::eq: p = arith::CmpFPredicate::OEQ; break;
    case CmpPredicate::ne: p = arith::CmpFPredicate::UNE; break;
    case CmpPredicate::lt: p = arith::CmpFPredicate::OLT; break;
    case CmpPredicate::le: p = arith::CmpFPredicate::OLE; break;
    case CmpPredicate::gt: p = arith::CmpFPredicate::OGT; break;
    case CmpPredicate::ge: p = arith::CmpFPredicate::OGE; break;
    }
    return arith::CmpFOp::create(b, loc, p, x[0], x[1]);
  }
  arith::CmpIPredicate p;
  switch (getPredicate()) {
  case CmpPredicate::eq: p = arith::CmpIPredicate::eq; break;
  case CmpPredicate::ne: p = arith::CmpIPredicate::ne; break;
  case CmpPredicate::lt: p = arith::CmpIPredicate::slt; break;
  case CmpPredicate::le: p = arith::CmpIPredicate::sle; break;
  case CmpPredicate::gt: p = arith::CmpIPredicate::sgt; break;
  case CmpPredicate::ge: p = arith::CmpIPredicate::sge; break;
  }
  return arith::CmpIOp::create(b, loc, p, x[0], x[1]);
}

Value SelectOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  return arith::SelectOp::create(b, loc, x[0], x[1], x[2]);
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  if (getInput().getType().getShape() != getResult().getType().getShape())
    return emitOpError("changes the shape; only the element type may change");
  return success();
}

Value CastOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  Value v = x[0];
  Type from = v.getType();
  Type to = getResult().getType().getElementType();
  if (from == to)
    return v;
  if (to.isInteger(1)) { // value != 0
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(from));
    if (isa<FloatType>(from))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
  }
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (fromFloat && toFloat) {
    if (fromFloat.getWidth() < toFloat.getWidth())
      return arith::ExtFOp::create(b, loc, to, v);
    if (fromFloat.getWidth() > toFloat.getWidth())
      return arith::TruncFOp::create(b, loc, to, v);
    // Same width (f16 <-> bf16): through f32.
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
    return arith::TruncFOp::create(b, loc, to, wide);
  }
  if (toFloat) // Booleans are unsigned, other integers signed.
    return from.isInteger(1) ? Value(arith::UIToFPOp::create(b, loc, to, v))
                             : Value(arith::SIToFPOp::create(b, loc, to, v));
  if (fromFloat)
    return arith::FPToSIOp::create(b, loc, to, v);
  unsigned fromWidth = from.getIntOrFloatBitWidth();
  unsigned toWidth = to.getIntOrFloatBitWidth();
  if (fromWidth < toWidth)
    return from.isInteger(1) ? Value(arith::ExtUIOp::create(b, loc, to, v))
                             : Value(arith::ExtSIOp::create(b, loc, to, v));
  return arith::TruncIOp::create(b, loc, to, v);
}

//===----------------------------------------------------------------------===//
// BitcastOp
//===----------------------------------------------------------------------===//

LogicalResult BitcastOp::verify() {
  auto in = getInput().getType(), out = getResult().getType();
  if (in.getShape() != out.getShape())
    return emitOpError("changes the shape");
  Type from = in.getElementType(), to = out.getElementType();
  if (from.getIntOrFloatBitWidth() != to.getIntOrFloatBitWidth() ||
      from.isInteger(1) || to.isInteger(1))
    return emitOpError("reinterprets ")
           << from << " as " << to
           << "; both must be one width, wider than a bool";
  return success();
}

Value BitcastOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  return arith::BitcastOp::create(b, loc,
                                  getResult().getType().getElementType(), x[0]);
}

//===----------------------------------------------------------------------===//
// IotaOp
//===----------------------------------------------------------------------===//

LogicalResult IotaOp::verify() {
  int64_t rank = getResult().getType().getRank();
  if ((int64_t)getDim() >= rank)
    return emitOpError("dimension ")
           << getDim() << " is outside a result of rank " << rank;
  return success();
}
