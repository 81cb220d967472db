// Runs kernels on the CPU: a kernel becomes a function whose body sits in
// loops over the grid and the block, and a launch becomes a call. Kernels
// have no barriers yet, so running each thread to completion in turn is
// exactly the GPU semantics.

#include "strata/Conversion/KernelIRCommon/GuardedAccess.h"
#include "strata/Conversion/Passes.h"

#include "mlir/Transforms/DialectConversion.h"

namespace strata {
#define GEN_PASS_DEF_CONVERTKERNELIRTOCPUPASS
#include "strata/Conversion/Passes.h.inc"
} // namespace strata

using namespace mlir;
using namespace strata;

namespace {
struct FuncToLoops : OpConversionPattern<kernelir::FuncOp> {
  FuncToLoops(MLIRContext *ctx, bool reverse)
      : OpConversionPattern(ctx), reverse(reverse) {}

  LogicalResult
  matchAndRewrite(kernelir::FuncOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto func = func::FuncOp::create(rewriter, loc, op.getName(),
                                     op.getFunctionType());
    func.setPrivate();
    Block *entry = func.addEntryBlock();
    rewriter.setInsertionPointToStart(entry);
    // Loops over blocks (z, y, x) then threads (z, y, x).
    SmallVector<Value> blockIds(3), threadIds(3);
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    // In reverse order, iteration i runs block or thread count - 1 - i: a
    // kernel whose result depends on that order has a race.
    auto loopOver = [&](int64_t count) -> Value {
      Value ub = arith::ConstantIndexOp::create(rewriter, loc, count);
      auto loop = scf::ForOp::create(rewriter, loc, zero, ub, one);
      rewriter.setInsertionPointToStart(loop.getBody());
      if (!reverse)
        return loop.getInductionVar();
      Value last = arith::ConstantIndexOp::create(rewriter, loc, count - 1);
      return arith::SubIOp::create(rewriter, loc, last,
                                   loop.getInductionVar());
    };
    for (int d = 2; d >= 0; --d)
      blockIds[d] = loopOver(op.getGrid()[d]);
    for (int d = 2; d >= 0; --d)
      threadIds[d] = loopOver(op.getBlock()[d]);
    Operation *innermostYield = rewriter.getInsertionBlock()->getTerminator();

    Block &body = op.getBody().front();
    SmallVector<kernelir::BlockIdOp> bids(body.getOps<kernelir::BlockIdOp>());
    SmallVector<kernelir::ThreadIdOp> tids(body.getOps<kernelir::ThreadIdOp>());
    Operation *ret = body.getTerminator();
    rewriter.inlineBlockBefore(&body, innermostYield, entry->getArguments());
    rewriter.eraseOp(ret);
    for (auto id : bids)
      rewriter.replaceOp(id, blockIds[(int)id.getDim()]);
    for (auto id : tids)
      rewriter.replaceOp(id, threadIds[(int)id.getDim()]);
    rewriter.setInsertionPointToEnd(entry);
    func::ReturnOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }

  bool reverse;
};

struct LaunchToCall : OpConversionPattern<kernelir::LaunchOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kernelir::LaunchOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<func::CallOp>(op, op.getKernel(), TypeRange{},
                                              adaptor.getArgs());
    return success();
  }
};

struct ConvertKernelIRToCPUPass
    : strata::impl::ConvertKernelIRToCPUPassBase<ConvertKernelIRToCPUPass> {
  using ConvertKernelIRToCPUPassBase::ConvertKernelIRToCPUPassBase;
  void runOnOperation() override {
    ConversionTarget target(getContext());
    target.addIllegalDialect<kernelir::KernelIRDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(&getContext());
    populateKernelIRToCPUPatterns(patterns, reverseOrder);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void strata::populateKernelIRToCPUPatterns(RewritePatternSet &patterns,
                                           bool reverseOrder) {
  patterns.add<FuncToLoops>(patterns.getContext(), reverseOrder);
  patterns.add<LaunchToCall>(patterns.getContext());
  populateGuardedAccessPatterns(patterns);
}
