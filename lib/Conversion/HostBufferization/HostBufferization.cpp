// Bufferizes the host program around the kernels: tensors become memrefs.
// Kernel results are allocated by the kernel lowering; this file handles the
// rest of the host program.

#include "strata/Conversion/HostBufferization/HostBufferization.h"
#include "strata/Dialect/Utils/VerifyUtils.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace strata;

HostBufferTypeConverter::HostBufferTypeConverter() {
  addConversion([](Type t) { return t; });
  addConversion([](RankedTensorType t) -> std::optional<Type> {
    if (!t.hasStaticShape())
      return std::nullopt;
    return getBufferType(t);
  });
}

namespace {
/// A constant tensor becomes a private read-only global; the host reads it
/// through memref.get_global and passes it to kernels like any buffer.
struct ConstantTensorToGlobal : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto tensorType = dyn_cast<RankedTensorType>(op.getType());
    if (!tensorType)
      return failure();
    auto bufferType =
        cast<MemRefType>(getTypeConverter()->convertType(tensorType));
    auto module = op->getParentOfType<ModuleOp>();
    // A name no symbol has yet (the globals made so far included).
    std::string name = "strata_constant";
    for (unsigned n = 0; SymbolTable::lookupSymbolIn(module, name); ++n)
      name = "strata_constant_" + std::to_string(n);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(module.getBody());
    auto global = memref::GlobalOp::create(
        rewriter, op.getLoc(), name, rewriter.getStringAttr("private"),
        bufferType, cast<ElementsAttr>(op.getValue()), /*constant=*/true,
        /*alignment=*/rewriter.getI64IntegerAttr(64));
    rewriter.setInsertionPoint(op);
    rewriter.replaceOpWithNewOp<memref::GetGlobalOp>(op, bufferType,
                                                     global.getSymName());
    return success();
  }
};

/// The casts a test harness uses to hand buffers to a tensor program (and
/// read its results) disappear once both sides are buffers.
template <typename CastOp>
struct ForwardBufferCast : OpConversionPattern<CastOp> {
  using OpConversionPattern<CastOp>::OpConversionPattern;
  using OpAdaptor = typename CastOp::Adaptor;

  LogicalResult
  matchAndRewrite(CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value buffer = adaptor.getOperands()[0];
    Type wanted = this->getTypeConverter()->convertType(op.getType());
    if (!wanted)
      return rewriter.notifyMatchFailure(op, "result type is not a buffer");
    if (buffer.getType() != wanted)
      buffer = memref::CastOp::create(rewriter, op.getLoc(), wanted, buffer);
    rewriter.replaceOp(op, buffer);
    return success();
  }
};
/// Reading one element of a host tensor reads its buffer.
struct ExtractToLoad : OpConversionPattern<tensor::ExtractOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tensor::ExtractOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<memref::LoadOp>(op, adaptor.getTensor(),
                                                adaptor.getIndices());
    return success();
  }
};
} // namespace

void strata::populateHostBufferizationPatterns(TypeConverter &converter,
                                               RewritePatternSet &patterns) {
  populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                 converter);
  populateCallOpTypeConversionPattern(patterns, converter);
  populateReturnOpTypeConversionPattern(patterns, converter);
  patterns.add<ConstantTensorToGlobal, ExtractToLoad,
               ForwardBufferCast<bufferization::ToTensorOp>,
               ForwardBufferCast<bufferization::ToBufferOp>>(
      converter, patterns.getContext());
}

void strata::addHostBufferizationLegality(ConversionTarget &target,
                                          TypeConverter &converter) {
  target.markUnknownOpDynamicallyLegal([&converter](Operation *op) {
    if (auto func = dyn_cast<FunctionOpInterface>(op))
      return converter.isSignatureLegal(
          cast<FunctionType>(func.getFunctionType()));
    return converter.isLegal(op);
  });
  target.addLegalOp<ModuleOp>();
}
