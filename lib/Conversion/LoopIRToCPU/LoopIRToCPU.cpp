// Runs loop kernels on the CPU: kernels are inlined on buffers, parallel
// nests and reductions become scf.for nests (ScalarLoops), accesses become
// memref ones.

#include "strata/Conversion/HostBufferization/HostBufferization.h"
#include "strata/Conversion/LoopIRCommon/ScalarLoops.h"
#include "strata/Conversion/Passes.h"
#include "strata/Dialect/KernelIR/IR/KernelIR.h"
#include "strata/Dialect/TileIR/IR/TileIR.h"
#include "strata/Dialect/Utils/VerifyUtils.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

namespace strata {
#define GEN_PASS_DEF_CONVERTLOOPIRTOCPUPASS
#include "strata/Conversion/Passes.h.inc"
} // namespace strata

using namespace mlir;
using namespace strata;

namespace {

struct KernelToBuffers : OpConversionPattern<loopir::KernelOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(loopir::KernelOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> buffers(adaptor.getInputs());
    SmallVector<Value> results;
    for (Type t : op.getResultTypes()) {
      results.push_back(memref::AllocOp::create(
          rewriter, op.getLoc(), getBufferType(t), /*alignment=*/nullptr));
      buffers.push_back(results.back());
    }
    Block &body = op.getBody().front();
    rewriter.eraseOp(body.getTerminator());
    rewriter.inlineBlockBefore(&body, op, buffers);
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct ConvertLoopIRToCPUPass
    : strata::impl::ConvertLoopIRToCPUPassBase<ConvertLoopIRToCPUPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // Scheduled kernels are not loop kernels: their own CPU lowering runs
    // them (the upstream LLVM lowering after this pass would break them).
    WalkResult scheduled =
        getOperation()->walk<WalkOrder::PreOrder>([](Operation *op) {
      if (!isa<tileir::TileIRDialect, kernelir::KernelIRDialect>(
              op->getDialect()))
        return WalkResult::advance();
      op->emitError("convert-loopir-to-cpu runs loop kernels; '")
          << op->getName()
          << "' is a scheduled kernel's (strata-lower-to-cpu runs those)";
      return WalkResult::interrupt();
    });
    if (scheduled.wasInterrupted())
      return signalPassFailure();
    HostBufferTypeConverter converter;
    ConversionTarget target(*ctx);
    target.addIllegalDialect<loopir::LoopIRDialect>();
    addHostBufferizationLegality(target, converter);
    RewritePatternSet patterns(ctx);
    populateLoopIRToCPUPatterns(converter, patterns);
    populateHostBufferizationPatterns(converter, patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void strata::populateLoopIRToCPUPatterns(TypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<KernelToBuffers, LowerLoopLoad<memref::LoadOp>,
               LowerLoopStore<memref::StoreOp>>(converter,
                                                patterns.getContext());
  populateLoopIRScalarLoopPatterns(converter, patterns);
}
