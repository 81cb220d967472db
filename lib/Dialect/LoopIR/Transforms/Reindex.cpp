#include "Reindex.h"

#include "mlir/Dialect/Affine/Utils.h"

using namespace mlir;
using namespace strata::loopir;

namespace {
/// `e`, an expression over the new loop's indices `ivs`, over `indices`
/// instead (appending the loop indices it reads that they lack).
AffineExpr overIndices(AffineExpr e, ValueRange ivs,
                       SmallVectorImpl<Value> &indices) {
  SmallVector<AffineExpr> dims;
  for (auto [d, iv] : llvm::enumerate(ivs)) {
    auto it = llvm::find(indices, iv);
    dims.push_back(getAffineDimExpr(it - indices.begin(), e.getContext()));
    if (it == indices.end() && e.isFunctionOfDim(d))
      indices.push_back(iv);
  }
  return e.replaceDims(dims);
}
} // namespace

void strata::loopir::moveBodyReindexed(RewriterBase &rewriter, Block &from,
                                       Block &to,
                                       ArrayRef<AffineExpr> oldIndices) {
  MLIRContext *ctx = rewriter.getContext();
  Location loc = from.getParentOp()->getLoc();
  ValueRange newIvs = to.getArguments();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(&to);
  SmallVector<Value> oldValues;
  for (AffineExpr e : oldIndices)
    oldValues.push_back(affine::expandAffineExpr(rewriter, loc, e, newIvs, {}));
  rewriter.mergeBlocks(&from, &to, oldValues);
  auto reindex = [&](auto access) {
    SmallVector<Value> indices;
    SmallVector<AffineExpr> substitution;
    // The other indices keep their place, first.
    for (Value index : access.getIndices())
      if (!llvm::is_contained(oldValues, index) &&
          !llvm::is_contained(indices, index))
        indices.push_back(index);
    for (Value index : access.getIndices()) {
      auto it = llvm::find(oldValues, index);
      if (it != oldValues.end()) {
        substitution.push_back(overIndices(
            oldIndices[it - oldValues.begin()], newIvs, indices));
        continue;
      }
      substitution.push_back(
          getAffineDimExpr(llvm::find(indices, index) - indices.begin(), ctx));
    }
    rewriter.modifyOpInPlace(access,
                             [&] { access.reindex(indices, substitution); });
  };
  to.walk([&](Operation *op) {
    bool readsOld = llvm::any_of(op->getOperands(), [&](Value v) {
      return llvm::is_contained(oldValues, v);
    });
    if (!readsOld)
      return;
    if (auto load = dyn_cast<LoadOp>(op))
      reindex(load);
    else if (auto store = dyn_cast<StoreOp>(op))
      reindex(store);
  });
  // The values only accesses used go.
  for (Value v : llvm::reverse(oldValues))
    if (v.use_empty())
      rewriter.eraseOp(v.getDefiningOp());
}
