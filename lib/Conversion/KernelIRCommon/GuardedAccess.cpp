// Guarded kernelir accesses become plain memref accesses, inside scf.if when
// they carry a guard. A guarded load yields zero where the guard is false.

#include "strata/Conversion/KernelIRCommon/GuardedAccess.h"
#include "strata/Dialect/KernelIR/IR/KernelIR.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace strata;

namespace {
struct LowerLoad : OpRewritePattern<kernelir::LoadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(kernelir::LoadOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (!op.getPred()) {
      rewriter.replaceOpWithNewOp<memref::LoadOp>(op, op.getMemref(),
                                                  op.getIndices());
      return success();
    }
    auto ifOp = scf::IfOp::create(rewriter, loc, op.getType(), op.getPred(),
                                  /*withElseRegion=*/true);
    rewriter.setInsertionPointToStart(ifOp.thenBlock());
    Value loaded =
        memref::LoadOp::create(rewriter, loc, op.getMemref(), op.getIndices());
    scf::YieldOp::create(rewriter, loc, loaded);
    rewriter.setInsertionPointToStart(ifOp.elseBlock());
    Value zero = arith::ConstantOp::create(rewriter, loc,
                                           rewriter.getZeroAttr(op.getType()));
    scf::YieldOp::create(rewriter, loc, zero);
    rewriter.replaceOp(op, ifOp.getResults());
    return success();
  }
};

struct LowerStore : OpRewritePattern<kernelir::StoreOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(kernelir::StoreOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (op.getPred()) {
      auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{}, op.getPred(),
                                    /*withElseRegion=*/false);
      rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    }
    memref::StoreOp::create(rewriter, loc, op.getValue(), op.getMemref(),
                            op.getIndices());
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void strata::populateGuardedAccessPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerLoad, LowerStore>(patterns.getContext());
}
