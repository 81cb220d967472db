// Lowers atomic tensorir ops to loop kernels: one loopir.kernel per op, with
// one parallel loop nest over the op's result.

#include "strata/Conversion/Passes.h"
#include "strata/Dialect/TensorIR/IR/TensorIR.h"
#include "strata/Dialect/Utils/VerifyUtils.h"
#include "LoopKernelBuilder.h"

#include "mlir/Transforms/DialectConversion.h"

namespace strata {
#define GEN_PASS_DEF_CONVERTTENSORIRTOLOOPIRPASS
#include "strata/Conversion/Passes.h.inc"
} // namespace strata

using namespace mlir;
using namespace strata;

/// The splat value of a tensor defined by a splat tensorir.constant.
static std::optional<TypedAttr> getSplatConstant(Value tensor) {
  auto cst = tensor.getDefiningOp<tensorir::ConstantOp>();
  if (!cst)
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
  if (!dense || !dense.isSplat())
    return std::nullopt;
  return dense.getSplatValue<TypedAttr>();
}

namespace {
/// Every elementwise op: load one element per operand, compute the op's
/// scalar body, store. Splat-constant operands are materialized as scalars.
struct ElementwiseToKernel
    : OpInterfaceConversionPattern<tensorir::ScalarizableOpInterface> {
  using OpInterfaceConversionPattern::OpInterfaceConversionPattern;

  LogicalResult
  matchAndRewrite(tensorir::ScalarizableOpInterface op,
                  ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    // Each operand is either a kernel input or an inlined scalar constant.
    SmallVector<Value> inputs;
    SmallVector<std::optional<TypedAttr>> splats;
    for (auto [original, converted] : llvm::zip(op->getOperands(), operands)) {
      splats.push_back(getSplatConstant(original));
      if (!splats.back())
        inputs.push_back(converted);
    }
    auto kernel = buildLoopKernel(
        rewriter, loc, TypeRange{resultType}, inputs,
        [&](OpBuilder &b, Location loc, ValueRange buffers, ValueRange outputs,
            ValueRange ivs) {
          SmallVector<Value> scalars;
          unsigned nextBuffer = 0;
          for (auto &splat : splats) {
            if (splat)
              scalars.push_back(arith::ConstantOp::create(b, loc, *splat));
            else
              scalars.push_back(loopir::LoadOp::create(
                  b, loc, buffers[nextBuffer++], ivs, AffineMapAttr()));
          }
          Value result = op.buildScalarOp(b, loc, scalars);
          loopir::StoreOp::create(b, loc, result, outputs[0], ivs,
                                  AffineMapAttr());
        });
    rewriter.replaceOp(op, kernel.getResults());
    return success();
  }
};

/// Every layout op: a copy whose load reads through the op's index map
/// (guarded where the op pads its input).
struct LayoutToKernel
    : OpInterfaceConversionPattern<tensorir::LayoutOpInterface> {
  using OpInterfaceConversionPattern::OpInterfaceConversionPattern;

  LogicalResult
  matchAndRewrite(tensorir::LayoutOpInterface op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    AffineMap map = op.getIndexMap();
    IntegerSet guard = op.getGuard();
    auto kernel = buildLoopKernel(
        rewriter, op.getLoc(), TypeRange{resultType}, operands,
        [&](OpBuilder &b, Location loc, ValueRange buffers, ValueRange outputs,
            ValueRange ivs) {
          Value x = loopir::LoadOp::create(
              b, loc, buffers[0], ivs, AffineMapAttr::get(map),
              guard ? IntegerSetAttr::get(guard) : IntegerSetAttr(),
              guard ? op.getPaddingValue() : TypedAttr());
          loopir::StoreOp::create(b, loc, x, outputs[0], ivs, AffineMapAttr());
        });
    rewriter.replaceOp(op, kernel.getResults());
    return success();
  }
};

/// A splat constant becomes a fill kernel (erased again if every use inlined
/// the scalar); any other constant stays a tensor of the host program, which
/// kernels read like a weight.
struct ConstantToKernel : OpConversionPattern<tensorir::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tensorir::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<TypedAttr> splat = getSplatConstant(op.getResult());
    if (!splat) {
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, op.getValue());
      return success();
    }
    auto kernel = buildLoopKernel(
        rewriter, op.getLoc(), TypeRange{op.getType()}, {},
        [&](OpBuilder &b, Location loc, ValueRange, ValueRange outputs,
            ValueRange ivs) {
          Value x = arith::ConstantOp::create(b, loc, *splat);
          loopir::StoreOp::create(b, loc, x, outputs[0], ivs, AffineMapAttr());
        });
    rewriter.replaceOp(op, kernel.getResults());
    return success();
  }
};

struct ConvertTensorIRToLoopIRPass
    : strata::impl::ConvertTensorIRToLoopIRPassBase<
          ConvertTensorIRToLoopIRPass> {
  void runOnOperation() override {
    ConversionTarget target(getContext());
    target.addIllegalDialect<tensorir::TensorIRDialect>();
    // Ops of other dialects that implement tensorir's interfaces are
    // lowered too: that is how a downstream dialect plugs its elementwise
    // and layout ops into Strata.
    target.markUnknownOpDynamicallyLegal([](Operation *op) {
      return !isa<tensorir::ScalarizableOpInterface,
                  tensorir::LayoutOpInterface>(op);
    });
    RewritePatternSet patterns(&getContext());
    populateTensorIRToLoopIRPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
    // Fill kernels whose every use inlined the constant are dead now.
    getOperation().walk([](loopir::KernelOp kernel) {
      if (kernel->use_empty())
        kernel->erase();
    });
  }
};
} // namespace

void strata::populateTensorIRToLoopIRPatterns(RewritePatternSet &patterns) {
  patterns.add<ElementwiseToKernel, LayoutToKernel>(patterns.getContext());
  patterns.add<ConstantToKernel>(patterns.getContext());
  populateStructuredOpToLoopPatterns(patterns);
  populateEmptyTensorToLoopPatterns(patterns);
}
