// Guarded kernelir accesses become plain memref (or vector) accesses, inside
// scf.if when they carry a guard. A guarded load yields zero where the guard
// is false.

#include "strata/Conversion/KernelIRCommon/GuardedAccess.h"
#include "strata/Dialect/KernelIR/IR/KernelIR.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace strata;

namespace {
/// The alignment a vector access of `width` elements of `type` claims.
llvm::MaybeAlign vectorAlignment(bool alignVectors, int64_t width,
                                 Type element) {
  if (!alignVectors)
    return llvm::MaybeAlign();
  return llvm::Align(width * element.getIntOrFloatBitWidth() / 8);
}

struct LowerLoad : OpRewritePattern<kernelir::LoadOp> {
  LowerLoad(MLIRContext *ctx, bool alignVectors)
      : OpRewritePattern(ctx), alignVectors(alignVectors) {}

  Value load(PatternRewriter &rewriter, kernelir::LoadOp op) const {
    Location loc = op.getLoc();
    if (auto vector = dyn_cast<VectorType>(op.getType()))
      return vector::LoadOp::create(rewriter, loc, vector, op.getMemref(),
                                    op.getIndices(),
                                    /*nontemporal=*/false,
                                    vectorAlignment(alignVectors, op.getWidth(),
                                                    vector.getElementType()));
    return memref::LoadOp::create(rewriter, loc, op.getMemref(),
                                  op.getIndices());
  }

  LogicalResult matchAndRewrite(kernelir::LoadOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (!op.getPred()) {
      rewriter.replaceOp(op, load(rewriter, op));
      return success();
    }
    auto ifOp = scf::IfOp::create(rewriter, loc, op.getType(), op.getPred(),
                                  /*withElseRegion=*/true);
    rewriter.setInsertionPointToStart(ifOp.thenBlock());
    Value loaded = load(rewriter, op);
    scf::YieldOp::create(rewriter, loc, loaded);
    rewriter.setInsertionPointToStart(ifOp.elseBlock());
    Value zero = arith::ConstantOp::create(rewriter, loc,
                                           rewriter.getZeroAttr(op.getType()));
    scf::YieldOp::create(rewriter, loc, zero);
    rewriter.replaceOp(op, ifOp.getResults());
    return success();
  }

  bool alignVectors;
};

struct LowerStore : OpRewritePattern<kernelir::StoreOp> {
  LowerStore(MLIRContext *ctx, bool alignVectors)
      : OpRewritePattern(ctx), alignVectors(alignVectors) {}

  LogicalResult matchAndRewrite(kernelir::StoreOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (op.getPred()) {
      auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{}, op.getPred(),
                                    /*withElseRegion=*/false);
      rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    }
    if (auto vector = dyn_cast<VectorType>(op.getValue().getType()))
      vector::StoreOp::create(rewriter, loc, op.getValue(), op.getMemref(),
                              op.getIndices(), /*nontemporal=*/false,
                              vectorAlignment(alignVectors, op.getWidth(),
                                              vector.getElementType()));
    else
      memref::StoreOp::create(rewriter, loc, op.getValue(), op.getMemref(),
                              op.getIndices());
    rewriter.eraseOp(op);
    return success();
  }

  bool alignVectors;
};
} // namespace

void strata::populateGuardedAccessPatterns(RewritePatternSet &patterns,
                                           bool alignVectors) {
  patterns.add<LowerLoad, LowerStore>(patterns.getContext(), alignVectors);
}
