// Guarded kernelir accesses become plain memref (or vector) accesses, inside
// scf.if when they carry a guard. A guarded load yields zero where the guard
// is false.
//
// Bool buffers hold a byte per element (PyTorch's layout, and LLVM's for a
// scalar i1 in memory), but LLVM packs a vector of i1 into bits: a
// vector<4xi1> store writes one byte. So a vector access of bools becomes
// one byte access per element (the first claims the vector's alignment, so
// LLVM's load/store vectorizer may merge them again).

#include "strata/Conversion/KernelIRCommon/GuardedAccess.h"
#include "strata/Dialect/KernelIR/IR/KernelIR.h"
#include "strata/Dialect/Utils/ElementStorage.h"

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
  return llvm::Align(width * getStorageBits(element) / 8);
}

/// Whether a vector of `type` is bit-packed by LLVM, unlike its buffer.
bool isPackedInLLVM(VectorType type) {
  return type.getElementType().isInteger(1);
}

/// The indices of element `j` of a vector access at `indices` (a run along
/// the innermost dimension).
SmallVector<Value> elementIndices(OpBuilder &b, Location loc,
                                  ValueRange indices, int64_t j) {
  SmallVector<Value> at(indices);
  if (j != 0)
    at.back() = arith::AddIOp::create(
        b, loc, at.back(), arith::ConstantIndexOp::create(b, loc, j));
  return at;
}

/// The alignment element `j` of a `width`-element vector access claims: the
/// vector's for the first, the element's for the others.
llvm::MaybeAlign elementAlignment(bool alignVectors, int64_t width, int64_t j,
                                  Type element) {
  return j == 0 ? vectorAlignment(alignVectors, width, element)
                : llvm::MaybeAlign();
}

struct LowerLoad : OpRewritePattern<kernelir::LoadOp> {
  LowerLoad(MLIRContext *ctx, bool alignVectors)
      : OpRewritePattern(ctx), alignVectors(alignVectors) {}

  Value load(PatternRewriter &rewriter, kernelir::LoadOp op) const {
    Location loc = op.getLoc();
    auto vector = dyn_cast<VectorType>(op.getType());
    if (vector && isPackedInLLVM(vector)) {
      SmallVector<Value> elements;
      for (int64_t j = 0; j < op.getWidth(); ++j)
        elements.push_back(memref::LoadOp::create(
            rewriter, loc, op.getMemref(),
            elementIndices(rewriter, loc, op.getIndices(), j),
            /*nontemporal=*/false,
            elementAlignment(alignVectors, op.getWidth(), j,
                             vector.getElementType())));
      return vector::FromElementsOp::create(rewriter, loc, vector, elements);
    }
    if (vector)
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
    auto vector = dyn_cast<VectorType>(op.getValue().getType());
    if (vector && isPackedInLLVM(vector)) {
      for (int64_t j = 0; j < op.getWidth(); ++j)
        memref::StoreOp::create(
            rewriter, loc,
            vector::ExtractOp::create(rewriter, loc, op.getValue(), j),
            op.getMemref(), elementIndices(rewriter, loc, op.getIndices(), j),
            /*nontemporal=*/false,
            elementAlignment(alignVectors, op.getWidth(), j,
                             vector.getElementType()));
    } else if (vector)
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
