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
