// Runs kernels on the CPU: a kernel becomes a function whose body sits in
// loops over the grid and, per barrier interval, the block (ThreadLoops.cpp);
// a launch becomes a call. Warp shuffles and tensor-core mma first become
// exchanges through shared memory between barriers, warpgroup mma each
// lane's sums from shared memory, asynchronous copies plain ones, mbarriers
// counters in their own memory (MBarrierEmulation.cpp).

#include "ThreadLoops.h"
#include "strata/Conversion/KernelIRCommon/GuardedAccess.h"
#include "strata/Conversion/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace strata {
#define GEN_PASS_DEF_CONVERTKERNELIRTOCPUPASS
#include "strata/Conversion/Passes.h.inc"
} // namespace strata

using namespace mlir;
using namespace strata;

namespace {
/// Checks that every access of `func` stays inside its buffer (where its
/// guard holds), and that vector accesses are aligned to their size: a
/// cf.assert naming the kernel and the buffer, before the access. Run before
/// the kernel's ops are lowered.
void insertBoundsChecks(RewriterBase &rewriter, kernelir::FuncOp func) {
  auto check = [&](auto op, StringRef what) {
    Location loc = op->getLoc();
    rewriter.setInsertionPoint(op);
    Value memref = op.getMemref();
    auto type = cast<MemRefType>(memref.getType());
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    // Only accesses that happen must be in bounds.
    Value skipped = arith::ConstantIntOp::create(rewriter, loc, 0, 1);
    if (Value pred = op.getPred())
      skipped = arith::XOrIOp::create(
          rewriter, loc, pred,
          arith::ConstantIntOp::create(rewriter, loc, 1, 1));
    // Kernel buffers are the function's arguments; anything else is a
    // buffer the kernel made itself.
    std::string buffer = "a local buffer";
    if (auto arg = dyn_cast<BlockArgument>(memref))
      buffer = "argument #" + std::to_string(arg.getArgNumber());
    auto assertOr = [&](Value ok, StringRef problem) {
      ok = arith::OrIOp::create(rewriter, loc, ok, skipped);
      cf::AssertOp::create(rewriter, loc, ok,
                           (problem + " " + what + " of " + buffer +
                            " in kernel " + func.getName())
                               .str());
    };
    int64_t width = op.getWidth();
    Value ok = arith::ConstantIntOp::create(rewriter, loc, 1, 1);
    for (auto [d, index] : llvm::enumerate(op.getIndices())) {
      // A vector covers `width` elements of the innermost dimension.
      int64_t end = type.getDimSize(d) -
                    ((int64_t)d == type.getRank() - 1 ? width - 1 : 0);
      Value inside = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ult, index, constant(end));
      ok = arith::AndIOp::create(rewriter, loc, ok, inside);
    }
    assertOr(ok, "out-of-bounds");
    if (width > 1) {
      Value offset = arith::RemUIOp::create(
          rewriter, loc, op.getIndices().back(), constant(width));
      assertOr(arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                     offset, constant(0)),
               "misaligned");
    }
  };
  func.walk([&](kernelir::LoadOp load) { check(load, "load"); });
  func.walk([&](kernelir::StoreOp store) { check(store, "store"); });
}

/// The CPU copies at once: an asynchronous copy becomes a (guarded) load
/// and a store, commits and waits vanish. That is one valid order of a
/// GPU's execution: the copy completes before anything after it reads the
/// destination. The bounds checks then cover the copies' reads and writes.
void expandAsyncCopies(RewriterBase &rewriter, kernelir::FuncOp func) {
  func.walk([&](Operation *op) {
    if (isa<kernelir::AsyncCommitOp, kernelir::AsyncWaitOp>(op)) {
      rewriter.eraseOp(op);
      return;
    }
    auto copy = dyn_cast<kernelir::AsyncCopyOp>(op);
    if (!copy)
      return;
    rewriter.setInsertionPoint(copy);
    Type element = copy.getSource().getType().getElementType();
    int64_t elements = copy.getElements();
    Type value = elements == 1 ? element : VectorType::get({elements}, element);
    Value loaded = kernelir::LoadOp::create(
        rewriter, copy.getLoc(), value, copy.getSource(),
        copy.getSourceIndices(), copy.getPred());
    kernelir::StoreOp::create(rewriter, copy.getLoc(), loaded, copy.getDest(),
                              copy.getDestIndices());
    rewriter.eraseOp(copy);
  });
}

struct FuncToLoops : OpConversionPattern<kernelir::FuncOp> {
  FuncToLoops(MLIRContext *ctx, ThreadOrder order, bool checkBounds)
      : OpConversionPattern(ctx), order(order), checkBounds(checkBounds) {}

  LogicalResult
  matchAndRewrite(kernelir::FuncOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (checkBounds) {
      OpBuilder::InsertionGuard guard(rewriter);
      insertBoundsChecks(rewriter, op);
    }
    if (failed(buildThreadLoops(rewriter, op, order)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }

  ThreadOrder order;
  bool checkBounds;
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
    if (reverseOrder && shuffledOrder) {
      getOperation().emitError("reverse-order and shuffled-order exclude "
                               "each other");
      return signalPassFailure();
    }
    if (waveBlocks < 0) {
      getOperation().emitError("wave-blocks must not be negative, got ")
          << static_cast<int64_t>(waveBlocks);
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    for (auto kernel : getOperation().getOps<kernelir::FuncOp>()) {
      // The CPU launches the kernel's grid: a wave kernel's estimate, or
      // the wave asked for.
      if (std::optional<int64_t> tiles = kernel.getWaveTiles();
          tiles && waveBlocks > 0)
        kernel.setGrid({std::min<int64_t>(waveBlocks, *tiles), 1, 1});
      kernel.walk([&](kernelir::GridDimOp op) {
        rewriter.setInsertionPoint(op);
        rewriter.replaceOpWithNewOp<arith::ConstantIndexOp>(
            op, kernel.getGrid()[(int)op.getDim()]);
      });
      expandAsyncCopies(rewriter, kernel);
      trackWgmmaGroups(rewriter, kernel); // Before the copies it checks go.
      expandMBarriers(rewriter, kernel);
      expandShuffles(rewriter, kernel);
      expandFragmentLoads(rewriter, kernel); // Reads kernelir.lane_id.
      expandMmas(rewriter, kernel);
      expandWgmmas(rewriter, kernel); // Reads thread ids, as expandMmas.
      expandWarpIndices(rewriter, kernel);
    }
    ConversionTarget target(getContext());
    target.addIllegalDialect<kernelir::KernelIRDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(&getContext());
    ThreadOrder order = reverseOrder    ? ThreadOrder::Reverse
                        : shuffledOrder ? ThreadOrder::Shuffled
                                        : ThreadOrder::Forward;
    populateKernelIRToCPUPatterns(patterns, order, checkBounds);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void strata::populateKernelIRToCPUPatterns(RewritePatternSet &patterns,
                                           ThreadOrder order,
                                           bool checkBounds) {
  patterns.add<FuncToLoops>(patterns.getContext(), order, checkBounds);
  patterns.add<LaunchToCall>(patterns.getContext());
  // The emulation's buffers (numpy's, malloc's) promise only their element
  // type's alignment, which is all the CPU needs.
  populateGuardedAccessPatterns(patterns, /*alignVectors=*/false);
}
