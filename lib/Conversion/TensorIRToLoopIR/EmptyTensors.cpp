// Tensors without elements need no kernel. PyTorch computes with them: an
// op whose results are empty gives empty results, and a reduction over an
// empty axis gives its combiner's identity (the sum of nothing is 0, the
// product 1; max and min, which PyTorch rejects there, their identities
// -inf and +inf). Loop IR's loops have positive bounds, so these patterns
// run before any kernel is built: an empty result becomes an empty
// constant of the host program, an empty reduction a splat of its
// identity, which becomes a fill kernel (or a scalar its consumers inline).

#include "LoopKernelBuilder.h"
#include "strata/Dialect/TensorIR/IR/TensorIR.h"
#include "strata/Dialect/Utils/Monoid.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace strata;

namespace {

bool isEmptyTensor(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor && tensor.hasStaticShape() && tensor.getNumElements() == 0;
}

/// Whether this conversion lowers `op` (as the pass's target says).
bool isLowered(Operation *op) {
  return isa<tensorir::TensorIRDialect>(op->getDialect()) ||
         isa<tensorir::ScalarizableOpInterface, tensorir::LayoutOpInterface>(
             op);
}

/// An op whose every result is empty: each result an empty constant.
struct EmptyResultsToConstants : ConversionPattern {
  EmptyResultsToConstants(MLIRContext *ctx)
      : ConversionPattern(MatchAnyOpTypeTag(), /*benefit=*/2, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value>,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isLowered(op) || op->getNumResults() == 0 ||
        !llvm::all_of(op->getResultTypes(), isEmptyTensor))
      return rewriter.notifyMatchFailure(op, "a result has elements");
    SmallVector<Value> empties;
    for (Type t : op->getResultTypes())
      empties.push_back(arith::ConstantOp::create(
          rewriter, op->getLoc(),
          DenseElementsAttr::get(cast<ShapedType>(t), ArrayRef<Attribute>())));
    rewriter.replaceOp(op, empties);
    return success();
  }
};

MonoidKind monoidOf(tensorir::ReduceKind kind) {
  switch (kind) {
  case tensorir::ReduceKind::sum:
    return MonoidKind::Add;
  case tensorir::ReduceKind::prod:
    return MonoidKind::Mul;
  case tensorir::ReduceKind::max:
    return MonoidKind::Max;
  case tensorir::ReduceKind::min:
    return MonoidKind::Min;
  }
  llvm_unreachable("unknown reduce kind");
}

/// A reduction with elements over an empty axis: the identity everywhere.
struct EmptyReductionToIdentity
    : OpConversionPattern<tensorir::ReduceOp> {
  EmptyReductionToIdentity(MLIRContext *ctx)
      : OpConversionPattern(ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(tensorir::ReduceOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto input = cast<RankedTensorType>(op.getInput().getType());
    if (!llvm::any_of(op.getAxes(),
                      [&](int64_t a) { return input.getDimSize(a) == 0; }))
      return rewriter.notifyMatchFailure(op, "no empty axis");
    auto type = cast<RankedTensorType>(op.getType());
    TypedAttr identity =
        getMonoidIdentity(monoidOf(op.getKind()), type.getElementType());
    rewriter.replaceOpWithNewOp<tensorir::ConstantOp>(
        op, DenseElementsAttr::get(type, identity));
    return success();
  }
};

} // namespace

void strata::populateEmptyTensorToLoopPatterns(RewritePatternSet &patterns) {
  patterns.add<EmptyResultsToConstants, EmptyReductionToIdentity>(
      patterns.getContext());
}
