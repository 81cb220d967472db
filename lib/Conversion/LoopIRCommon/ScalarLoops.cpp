// Runs loop nests and reductions sequentially: loopir.parallel and
// loopir.reduce become scf.for nests; a reduction carries one accumulator per
// combiner (and a position for arg-reductions).

#include "strata/Conversion/LoopIRCommon/ScalarLoops.h"
#include "strata/Dialect/Utils/LoopBox.h"
#include "strata/Dialect/LoopIR/IR/LoopIR.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace strata;

SmallVector<Value> strata::expandAccessIndices(OpBuilder &b, Location loc,
                                               AffineMap map,
                                               ValueRange indices) {
  return *affine::expandAffineMap(b, loc, map, indices);
}

Value strata::evaluateGuard(OpBuilder &b, Location loc, IntegerSet guard,
                           ValueRange indices) {
  Value inside;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  for (auto [e, isEq] : llvm::zip(guard.getConstraints(), guard.getEqFlags())) {
    Value v = affine::expandAffineExpr(b, loc, e, indices, {});
    Value ok = arith::CmpIOp::create(
        b, loc, isEq ? arith::CmpIPredicate::eq : arith::CmpIPredicate::sge, v,
        zero);
    inside = inside ? arith::AndIOp::create(b, loc, inside, ok) : ok;
  }
  if (!inside) // An empty set of constraints holds everywhere.
    inside = arith::ConstantIntOp::create(b, loc, 1, 1);
  return inside;
}

Value strata::loadInside(OpBuilder &b, Location loc, Value inside,
                         TypedAttr padding,
                         function_ref<Value(OpBuilder &)> load) {
  auto ifOp = scf::IfOp::create(b, loc, padding.getType(), inside,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  scf::YieldOp::create(b, loc, load(b));
  b.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(b, loc,
                       Value(arith::ConstantOp::create(b, loc, padding)));
  return ifOp.getResult(0);
}

Value strata::combineScalars(OpBuilder &b, Location loc, MonoidKind kind,
                             Value acc, Value x) {
  bool f = isa<FloatType>(x.getType());
  switch (kind) {
  case MonoidKind::Add:
    return f ? Value(arith::AddFOp::create(b, loc, acc, x))
             : Value(arith::AddIOp::create(b, loc, acc, x));
  case MonoidKind::Mul:
    return f ? Value(arith::MulFOp::create(b, loc, acc, x))
             : Value(arith::MulIOp::create(b, loc, acc, x));
  case MonoidKind::Max:
    return f ? Value(arith::MaximumFOp::create(b, loc, acc, x))
             : Value(arith::MaxSIOp::create(b, loc, acc, x));
  case MonoidKind::Min:
    return f ? Value(arith::MinimumFOp::create(b, loc, acc, x))
             : Value(arith::MinSIOp::create(b, loc, acc, x));
  }
  llvm_unreachable("unknown monoid");
}

namespace {

/// Builds a scf.for nest over [0, bounds) carrying `iterArgs`.
scf::LoopNest buildNest(OpBuilder &b, Location loc, ArrayRef<int64_t> bounds,
                        ValueRange iterArgs,
                        function_ref<scf::ValueVector(OpBuilder &, Location,
                                                      ValueRange, ValueRange)>
                            body) {
  SmallVector<Value> lbs, ubs, steps;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t bound : bounds) {
    lbs.push_back(zero);
    ubs.push_back(arith::ConstantIndexOp::create(b, loc, bound));
    steps.push_back(one);
  }
  return scf::buildLoopNest(b, loc, lbs, ubs, steps, iterArgs, body);
}

struct ParallelToLoops : OpConversionPattern<loopir::ParallelOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(loopir::ParallelOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Block &body = op.getBody().front();
    rewriter.eraseOp(body.getTerminator());
    buildNest(rewriter, op.getLoc(), op.getBounds(), {},
              [&](OpBuilder &b, Location, ValueRange ivs, ValueRange) {
                // The innermost loop's terminator comes after this callback.
                rewriter.inlineBlockBefore(&body, b.getInsertionBlock(),
                                           b.getInsertionPoint(), ivs);
                return scf::ValueVector();
              });
    rewriter.eraseOp(op);
    return success();
  }
};

/// Whether `x` replaces the current extreme `acc` of an arg-reduction: it is
/// strictly better, or the first NaN.
Value argTakes(OpBuilder &b, Location loc, bool isMax, Value acc, Value x) {
  if (!isa<FloatType>(x.getType()))
    return arith::CmpIOp::create(b, loc,
                                 isMax ? arith::CmpIPredicate::sgt
                                       : arith::CmpIPredicate::slt,
                                 x, acc);
  Value better = arith::CmpFOp::create(
      b, loc, isMax ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, x,
      acc);
  Value xNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  Value accNumber =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ORD, acc, acc);
  Value firstNaN = arith::AndIOp::create(b, loc, xNaN, accNumber);
  return arith::OrIOp::create(b, loc, better, firstNaN);
}

struct ReduceToLoops : OpConversionPattern<loopir::ReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(loopir::ReduceOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<loopir::Combiner> combiners = op.getCombinerList();
    Block &body = op.getBody().front();
    auto yield = cast<loopir::YieldOp>(body.getTerminator());
    // One accumulator per combiner, and a position for arg-reductions.
    SmallVector<Value> init;
    for (auto [c, value] : llvm::zip(combiners, yield.getValues())) {
      init.push_back(arith::ConstantOp::create(
          rewriter, loc,
          getMonoidIdentity(loopir::ReduceOp::getMonoidKind(c),
                            value.getType())));
      if (loopir::ReduceOp::isArgCombiner(c))
        init.push_back(arith::ConstantOp::create(
            rewriter, loc, rewriter.getI64IntegerAttr(0)));
    }
    ArrayRef<int64_t> bounds = op.getBounds();
    scf::LoopNest nest = buildNest(
        rewriter, loc, bounds, init,
        [&](OpBuilder &b, Location loc, ValueRange ivs, ValueRange acc) {
          // Move (not clone) the body: values it uses from outside may be
          // awaiting replacement by the conversion.
          SmallVector<Value> contributions;
          for (Value x : yield.getValues()) {
            if (auto arg = dyn_cast<BlockArgument>(x);
                arg && arg.getOwner() == &body)
              x = ivs[arg.getArgNumber()]; // The body yields an index.
            contributions.push_back(x);
          }
          rewriter.eraseOp(yield);
          rewriter.inlineBlockBefore(&body, b.getInsertionBlock(),
                                     b.getInsertionPoint(), ivs);
          scf::ValueVector next;
          unsigned a = 0;
          for (auto [c, x] : llvm::zip(combiners, contributions)) {
            if (!loopir::ReduceOp::isArgCombiner(c)) {
              next.push_back(combineScalars(
                  b, loc, loopir::ReduceOp::getMonoidKind(c), acc[a++], x));
              continue;
            }
            Value pos64 = buildBoxPosition(b, loc, ivs, bounds);
            Value takes = argTakes(b, loc, c == loopir::Combiner::argmax,
                                   acc[a], x);
            next.push_back(arith::SelectOp::create(b, loc, takes, x, acc[a]));
            next.push_back(
                arith::SelectOp::create(b, loc, takes, pos64, acc[a + 1]));
            a += 2;
          }
          return next;
        });
    rewriter.replaceOp(op, nest.results);
    return success();
  }
};

} // namespace

void strata::populateLoopIRScalarLoopPatterns(TypeConverter &converter,
                                              RewritePatternSet &patterns) {
  patterns.add<ParallelToLoops, ReduceToLoops>(converter,
                                               patterns.getContext());
}
