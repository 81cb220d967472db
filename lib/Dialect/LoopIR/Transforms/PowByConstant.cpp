// Part of loopir-normalize: `pow` by a constant exponent becomes the
// arithmetic PyTorch itself uses for it. PyTorch's pow kernels (CPU and
// CUDA) compute x**2 as x*x, x**3 as x*x*x, x**0.5 as sqrt, x**-0.5 as
// rsqrt, x**-1 as 1/x and x**-2 as 1/(x*x); matching them keeps Strata's
// results those of the reference, and spares every GPU kernel a libdevice
// powf (about 700 LLVM instructions inlined per call, a third of the LLVM
// time of the decoder block's compile).

#include "strata/Dialect/LoopIR/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace {

struct PowByConstant : OpRewritePattern<math::PowFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::PowFOp pow,
                                PatternRewriter &rewriter) const override {
    FloatAttr exponent;
    if (!matchPattern(pow.getRhs(), m_Constant(&exponent)))
      return failure();
    const APFloat &e = exponent.getValue();
    Location loc = pow.getLoc();
    Value x = pow.getLhs();
    auto constant = [&](double v) -> Value {
      return arith::ConstantOp::create(rewriter, loc,
                                       rewriter.getFloatAttr(x.getType(), v));
    };
    auto square = [&] { return arith::MulFOp::create(rewriter, loc, x, x); };
    Value result;
    if (e.isExactlyValue(0.0)) // pow(x, 0) is 1 for every x, NaN included.
      result = constant(1.0);
    else if (e.isExactlyValue(1.0))
      result = x;
    else if (e.isExactlyValue(2.0))
      result = square();
    else if (e.isExactlyValue(3.0))
      result = arith::MulFOp::create(rewriter, loc, square(), x);
    else if (e.isExactlyValue(0.5))
      result = math::SqrtOp::create(rewriter, loc, x);
    else if (e.isExactlyValue(-0.5))
      result = math::RsqrtOp::create(rewriter, loc, x);
    else if (e.isExactlyValue(-1.0))
      result = arith::DivFOp::create(rewriter, loc, constant(1.0), x);
    else if (e.isExactlyValue(-2.0))
      result = arith::DivFOp::create(rewriter, loc, constant(1.0), square());
    else
      return failure();
    rewriter.replaceOp(pow, result);
    return success();
  }
};

} // namespace

void strata::loopir::populatePowByConstantPatterns(
    RewritePatternSet &patterns) {
  patterns.add<PowByConstant>(patterns.getContext());
}
