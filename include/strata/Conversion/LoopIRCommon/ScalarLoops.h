#ifndef STRATA_CONVERSION_LOOPIRCOMMON_SCALARLOOPS_H
#define STRATA_CONVERSION_LOOPIRCOMMON_SCALARLOOPS_H

#include "strata/Dialect/LoopIR/IR/LoopIR.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/Transforms/DialectConversion.h"

namespace strata {
/// Patterns that run loopir.parallel nests and loopir.reduce ops
/// sequentially as scf.for nests (a reduction carries its accumulators).
/// Both the CPU path of Loop IR and the generic GPU schedule use them.
void populateLoopIRScalarLoopPatterns(mlir::TypeConverter &converter,
                                      mlir::RewritePatternSet &patterns);

/// `acc` combined with `x` by `kind` (float max/min propagate NaN).
mlir::Value combineScalars(mlir::OpBuilder &b, mlir::Location loc,
                           MonoidKind kind, mlir::Value acc, mlir::Value x);

/// The buffer indices of an access: its map applied to its index operands.
llvm::SmallVector<mlir::Value> expandAccessIndices(mlir::OpBuilder &b,
                                                   mlir::Location loc,
                                                   mlir::AffineMap map,
                                                   mlir::ValueRange indices);

/// Whether `guard` holds at `indices` (an i1).
mlir::Value evaluateGuard(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::IntegerSet guard, mlir::ValueRange indices);

/// `load()` where `inside` holds, `padding` elsewhere: an scf.if, so that
/// the load happens only inside.
mlir::Value loadInside(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value inside, mlir::TypedAttr padding,
                       llvm::function_ref<mlir::Value(mlir::OpBuilder &)> load);

/// loopir.load / loopir.store become `LoadT` / `StoreT` (memref accesses on
/// the CPU, unguarded kernelir accesses in a kernel) at the buffer indices
/// their maps give; a guarded load reads only where its guard holds.
template <typename LoadT>
struct LowerLoopLoad : mlir::OpConversionPattern<loopir::LoadOp> {
  using mlir::OpConversionPattern<loopir::LoadOp>::OpConversionPattern;
  mlir::LogicalResult
  matchAndRewrite(loopir::LoadOp op, OpAdaptor adaptor,
                  mlir::ConversionPatternRewriter &rewriter) const override {
    mlir::Location loc = op.getLoc();
    auto indices = expandAccessIndices(rewriter, loc, op.getIndexMap(),
                                       adaptor.getIndices());
    auto load = [&](mlir::OpBuilder &b) -> mlir::Value {
      return LoadT::create(b, loc, adaptor.getMemref(), indices);
    };
    if (std::optional<mlir::IntegerSet> guard = op.getGuard()) {
      mlir::Value inside =
          evaluateGuard(rewriter, loc, *guard, adaptor.getIndices());
      rewriter.replaceOp(
          op, loadInside(rewriter, loc, inside, op.getPaddingAttr(), load));
      return mlir::success();
    }
    rewriter.replaceOp(op, load(rewriter));
    return mlir::success();
  }
};

template <typename StoreT>
struct LowerLoopStore : mlir::OpConversionPattern<loopir::StoreOp> {
  using mlir::OpConversionPattern<loopir::StoreOp>::OpConversionPattern;
  mlir::LogicalResult
  matchAndRewrite(loopir::StoreOp op, OpAdaptor adaptor,
                  mlir::ConversionPatternRewriter &rewriter) const override {
    auto indices = expandAccessIndices(rewriter, op.getLoc(),
                                       op.getIndexMap(), adaptor.getIndices());
    rewriter.replaceOpWithNewOp<StoreT>(op, adaptor.getValue(),
                                        adaptor.getMemref(), indices);
    return mlir::success();
  }
};
} // namespace strata

#endif
