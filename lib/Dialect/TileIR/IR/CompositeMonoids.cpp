// The composite monoids of Tile IR folds (see CompositeMonoids.h).

#include "strata/Dialect/TileIR/IR/CompositeMonoids.h"

#include <limits>

using namespace mlir;
using namespace strata;
using namespace strata::tileir;

CompositeFoldOp tileir::buildCompositeFold(OpBuilder &b, Location loc,
                                           ArrayRef<TypedAttr> identities,
                                           ArrayRef<int64_t> bounds,
                                           ContributionBuilder contribution,
                                           CombineBuilder combine) {
  auto fold = CompositeFoldOp::create(b, loc, identities, bounds);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&fold.getBody().front());
  YieldOp::create(b, loc, contribution(b, loc, fold.getInductionVars()));
  Block &pair = fold.getCombine().front();
  b.setInsertionPointToStart(&pair);
  size_t n = identities.size();
  YieldOp::create(b, loc,
                  combine(b, loc, pair.getArguments().take_front(n),
                          pair.getArguments().drop_front(n)));
  return fold;
}

static Value f32Constant(OpBuilder &b, Location loc, float value) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}

SmallVector<TypedAttr> tileir::onlineSoftmaxIdentity(Builder &b,
                                                     unsigned sums) {
  SmallVector<TypedAttr> identity = {
      b.getF32FloatAttr(-std::numeric_limits<float>::infinity())};
  identity.append(sums, b.getF32FloatAttr(0.0f));
  return identity;
}

SmallVector<Value> tileir::combineOnlineSoftmax(OpBuilder &b, Location loc,
                                                ValueRange x, ValueRange y) {
  Value m = arith::MaximumFOp::create(b, loc, x[0], y[0]);
  Value one = f32Constant(b, loc, 1.0f);
  auto scale = [&](Value mi) -> Value {
    Value same =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, mi, m);
    Value e = math::ExpOp::create(b, loc, arith::SubFOp::create(b, loc, mi, m));
    return arith::SelectOp::create(b, loc, same, one, e);
  };
  Value scaleX = scale(x[0]), scaleY = scale(y[0]);
  SmallVector<Value> combined = {m};
  for (auto [sx, sy] : llvm::zip(x.drop_front(), y.drop_front()))
    combined.push_back(
        arith::AddFOp::create(b, loc, arith::MulFOp::create(b, loc, sx, scaleX),
                              arith::MulFOp::create(b, loc, sy, scaleY)));
  return combined;
}

Value tileir::buildTwoPassSum(OpBuilder &b, Location loc, Value m, Value s) {
  Value inf = f32Constant(b, loc, std::numeric_limits<float>::infinity());
  Value infinite = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                         math::AbsFOp::create(b, loc, m), inf);
  Value nan = f32Constant(b, loc, std::numeric_limits<float>::quiet_NaN());
  return arith::SelectOp::create(b, loc, infinite, nan, s);
}

SmallVector<TypedAttr> tileir::welfordIdentity(Builder &b) {
  return {b.getF32FloatAttr(0.0f), b.getF32FloatAttr(0.0f),
          b.getF32FloatAttr(0.0f)};
}

SmallVector<Value> tileir::combineWelford(OpBuilder &b, Location loc,
                                          ValueRange x, ValueRange y) {
  Value n1 = x[0], a1 = x[1], q1 = x[2], n2 = y[0], a2 = y[1], q2 = y[2];
  Value zero = f32Constant(b, loc, 0.0f);
  Value n = arith::AddFOp::create(b, loc, n1, n2);
  Value empty =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, n, zero);
  // The second part's weight n2 / n (0 for two empty parts, not 0 / 0).
  Value w = arith::SelectOp::create(b, loc, empty, zero,
                                    arith::DivFOp::create(b, loc, n2, n));
  Value d = arith::SubFOp::create(b, loc, a2, a1);
  Value a =
      arith::AddFOp::create(b, loc, a1, arith::MulFOp::create(b, loc, d, w));
  Value dd = arith::MulFOp::create(b, loc, d, d);
  Value shift =
      arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, dd, n1), w);
  Value q = arith::AddFOp::create(b, loc, arith::AddFOp::create(b, loc, q1, q2),
                                  shift);
  return {n, a, q};
}

SmallVector<TypedAttr> tileir::argExtremeIdentity(Builder &b, Type valueType,
                                                  bool max) {
  TypedAttr value =
      getMonoidIdentity(max ? MonoidKind::Max : MonoidKind::Min, valueType);
  return {value, b.getI64IntegerAttr(std::numeric_limits<int64_t>::max())};
}

SmallVector<Value> tileir::combineArgExtreme(OpBuilder &b, Location loc,
                                             bool max, ValueRange x,
                                             ValueRange y) {
  Value v1 = x[0], i1 = x[1], v2 = y[0], i2 = y[1];
  Value lower =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i2, i1);
  Value takeSecond;
  if (isa<FloatType>(v1.getType())) {
    using P = arith::CmpFPredicate;
    Value beats = arith::CmpFOp::create(b, loc, max ? P::OGT : P::OLT, v2, v1);
    Value tie = arith::CmpFOp::create(b, loc, P::OEQ, v2, v1);
    Value nan1 = arith::CmpFOp::create(b, loc, P::UNO, v1, v1);
    Value nan2 = arith::CmpFOp::create(b, loc, P::UNO, v2, v2);
    Value number1 = arith::XOrIOp::create(
        b, loc, nan1, arith::ConstantIntOp::create(b, loc, 1, 1));
    // A NaN second wins over a number, or over a later NaN; a number
    // second wins over a number it beats, or ties from a lower position.
    Value nanWins = arith::OrIOp::create(b, loc, number1, lower);
    Value numberWins = arith::AndIOp::create(
        b, loc, number1,
        arith::OrIOp::create(b, loc, beats,
                             arith::AndIOp::create(b, loc, tie, lower)));
    takeSecond = arith::SelectOp::create(b, loc, nan2, nanWins, numberWins);
  } else {
    using P = arith::CmpIPredicate;
    Value beats = arith::CmpIOp::create(b, loc, max ? P::sgt : P::slt, v2, v1);
    Value tie = arith::CmpIOp::create(b, loc, P::eq, v2, v1);
    takeSecond = arith::OrIOp::create(
        b, loc, beats, arith::AndIOp::create(b, loc, tie, lower));
  }
  return {arith::SelectOp::create(b, loc, takeSecond, v2, v1),
          arith::SelectOp::create(b, loc, takeSecond, i2, i1)};
}
