// The kernel context's loops, and the facts about a kernel's accesses its
// lowerings ask.

#include "KernelContext.h"
#include "strata/Dialect/Utils/ElementStorage.h"

using namespace mlir;
using namespace strata;
using namespace strata::detail;

SmallVector<Value> strata::detail::chunkIndices(Value slot, Value r, Value c) {
  if (slot)
    return {slot, r, c};
  return {r, c};
}

scf::ForOp KernelContext::buildLoop(
    Location loc, Value lb, Value ub, Value step, ValueRange init,
    function_ref<SmallVector<Value>(Value, ValueRange)> body) {
  return scf::ForOp::create(
      b, loc, lb, ub, step, init,
      [&](OpBuilder &nested, Location loc, Value iv, ValueRange carried) {
        // The translation builds with `b`: move it into the loop.
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nested.getInsertionBlock(),
                            nested.getInsertionPoint());
        SmallVector<Value> yielded = body(iv, carried);
        scf::YieldOp::create(b, loc, yielded);
      });
}

bool strata::detail::isRowRun(AffineMap map,
                              function_ref<bool(unsigned)> isInnermost,
                              MemRefType buffer, int64_t width) {
  if (buffer.getRank() == 0 || !buffer.getLayout().isIdentity() ||
      buffer.getShape().back() % width != 0)
    return false;
  // The innermost buffer index is an innermost dimension plus an offset
  // that is the same for the whole run and keeps it aligned (a multiple of
  // the run: a split-K slice's start, say).
  AffineExpr last = map.getResults().back();
  auto dependsOnInnermost = [&](AffineExpr e) {
    for (unsigned d = 0; d < map.getNumDims(); ++d)
      if (isInnermost(d) && e.isFunctionOfDim(d))
        return true;
    return false;
  };
  std::optional<unsigned> inner;
  for (unsigned d = 0; d < map.getNumDims(); ++d)
    if (isInnermost(d) && last.isFunctionOfDim(d))
      inner = d;
  if (!inner)
    return false;
  AffineExpr offset =
      simplifyAffineExpr(last - getAffineDimExpr(*inner, map.getContext()),
                         map.getNumDims(), map.getNumSymbols());
  if (dependsOnInnermost(offset) || !offset.isMultipleOf(width))
    return false;
  return llvm::none_of(map.getResults().drop_back(), dependsOnInnermost);
}

int64_t strata::detail::maxVectorWidth(ArrayRef<MemRefType> buffers) {
  int64_t width = kMaxVectorBits;
  for (MemRefType buffer : buffers) {
    if (!buffer.getElementType().isIntOrFloat())
      return 1;
    width = std::min<int64_t>(
        width, kMaxVectorBits / getStorageBits(buffer.getElementType()));
  }
  return width;
}

SmallVector<std::pair<AffineMap, MemRefType>>
strata::detail::tileAccesses(tileir::KernelOp kernel) {
  SmallVector<std::pair<AffineMap, MemRefType>> accesses;
  for (Operation &op : kernel.getBody().front()) {
    if (auto load = dyn_cast<tileir::LoadOp>(op))
      accesses.push_back({load.getIndexMap(), load.getMemref().getType()});
    else if (auto store = dyn_cast<tileir::StoreOp>(op))
      accesses.push_back({store.getIndexMap(), store.getMemref().getType()});
  }
  return accesses;
}
