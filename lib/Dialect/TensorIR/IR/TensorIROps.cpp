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

Value ExpOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  return math::ExpOp::create(b, loc, x[0]);
}

Value LogOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  return math::LogOp::create(b, loc, x[0]);
}

Value SqrtOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  return math::SqrtOp::create(b, loc, x[0]);
}

Value RsqrtOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  return math::RsqrtOp::create(b, loc, x[0]);
}

Value TanhOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  return math::TanhOp::create(b, loc, x[0]);
}

Value ErfOp::buildScalarOp(OpBuilder &b, Location loc, ValueRange x) {
  return math::ErfOp::create(b, loc, x[0]);
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
// IotaOp
//===----------------------------------------------------------------------===//

LogicalResult IotaOp::verify() {
  int64_t rank = getResult().getType().getRank();
  if ((int64_t)getDim() >= rank)
    return emitOpError("dimension ")
           << getDim() << " is outside a result of rank " << rank;
  return success();
}
