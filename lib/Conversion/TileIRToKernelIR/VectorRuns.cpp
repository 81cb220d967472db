// The shared loops of cooperative kernels (tileir.fold, tileir.distribute)
// over runs of neighbouring points: where the body reads or writes a row of
// a buffer along the loop's innermost index, each thread takes runs of up to
// 128 bits and accesses a run as one vector (ld.global.v4 for f32 rows).

#include "TileBodyTranslator.h"
#include "strata/Conversion/LoopIRCommon/ScalarLoops.h"
#include "strata/Dialect/Utils/LoopBox.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"

using namespace mlir;
using namespace strata;
using namespace strata::detail;

/// Whether `access` (a loopir.load or store in `body`) touches neighbouring
/// elements of `buffer`'s rows for neighbouring values of the body's
/// innermost index, runs of `width` starting at multiples of `width`: its
/// innermost buffer index is exactly that index, which no other index uses.
static bool isRunAccess(Operation *access, Block &body, MemRefType buffer,
                        int64_t width) {
  auto [map, indices] =
      isa<loopir::LoadOp>(access)
          ? std::make_pair(
                cast<loopir::LoadOp>(access).getIndexMap(),
                ValueRange(cast<loopir::LoadOp>(access).getIndices()))
          : std::make_pair(
                cast<loopir::StoreOp>(access).getIndexMap(),
                ValueRange(cast<loopir::StoreOp>(access).getIndices()));
  if (access->getBlock() != &body || buffer.getRank() == 0 ||
      !buffer.getLayout().isIdentity() || buffer.getShape().back() % width != 0)
    return false;
  Value inner = body.getArguments().back();
  auto innermost = dyn_cast<AffineDimExpr>(map.getResults().back());
  if (!innermost || indices[innermost.getPosition()] != inner)
    return false;
  for (auto [d, index] : llvm::enumerate(indices))
    if (index == inner)
      for (AffineExpr e : map.getResults().drop_back())
        if (e.isFunctionOfDim(d))
          return false;
  return true;
}

int64_t TileBodyTranslator::chooseRunWidth(Block &body,
                                           ArrayRef<int64_t> bounds) {
  SmallVector<std::pair<Operation *, MemRefType>> accesses;
  for (Operation &op : body) {
    if (auto load = dyn_cast<loopir::LoadOp>(op))
      accesses.push_back(
          {&op, cast<MemRefType>(mapping.lookup(load.getMemref()).getType())});
    else if (auto store = dyn_cast<loopir::StoreOp>(op))
      accesses.push_back(
          {&op, cast<MemRefType>(mapping.lookup(store.getMemref()).getType())});
  }
  int64_t width =
      maxVectorWidth(llvm::to_vector(llvm::make_second_range(accesses)));
  for (; width > 1; width /= 2)
    if (bounds.back() % width == 0 && llvm::any_of(accesses, [&](auto access) {
          return isRunAccess(access.first, body, access.second, width);
        }))
      return width;
  return 1;
}

SmallVector<IRMapping>
TileBodyTranslator::cloneRun(Block &body, ValueRange first, int64_t width) {
  Location loc = body.getParentOp()->getLoc();
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  SmallVector<IRMapping> lanes;
  for (int64_t lane = 0; lane < width; ++lane) {
    SmallVector<Value> coords(first);
    if (lane > 0)
      coords.back() = arith::AddIOp::create(b, loc, first.back(), index(lane));
    IRMapping m = mapping;
    m.map(body.getArguments(), coords);
    lanes.push_back(m);
  }
  auto bufferOf = [&](Value memref) { return mapping.lookup(memref); };
  auto vectorType = [&](Value buffer) {
    return VectorType::get({width},
                           cast<MemRefType>(buffer.getType()).getElementType());
  };
  auto indicesAt = [&](AffineMap map, ValueRange indices) {
    SmallVector<Value> mapped;
    for (Value v : indices)
      mapped.push_back(lanes[0].lookupOrDefault(v));
    return expandAccessIndices(b, loc, map, mapped);
  };
  // A store is written as a vector after every lane has computed its value,
  // unless the body also reads the buffer it writes.
  DenseSet<Value> loaded;
  body.walk([&](loopir::LoadOp load) { loaded.insert(load.getMemref()); });
  SmallVector<loopir::StoreOp> runStores;
  for (Operation &op : body.without_terminator()) {
    if (auto load = dyn_cast<loopir::LoadOp>(op)) {
      Value buffer = bufferOf(load.getMemref());
      if (isRunAccess(&op, body, cast<MemRefType>(buffer.getType()), width)) {
        Value run = kernelir::LoadOp::create(
            b, loc, vectorType(buffer), buffer,
            indicesAt(load.getIndexMap(), load.getIndices()), Value());
        for (int64_t lane = 0; lane < width; ++lane)
          lanes[lane].map(load.getResult(),
                          vector::ExtractOp::create(b, loc, run, lane));
        continue;
      }
    }
    if (auto store = dyn_cast<loopir::StoreOp>(op)) {
      Value buffer = bufferOf(store.getMemref());
      if (!loaded.contains(store.getMemref()) &&
          isRunAccess(&op, body, cast<MemRefType>(buffer.getType()), width)) {
        runStores.push_back(store);
        continue;
      }
    }
    for (IRMapping &lane : lanes)
      b.clone(op, lane);
  }
  for (loopir::StoreOp store : runStores) {
    Value buffer = bufferOf(store.getMemref());
    SmallVector<Value> values;
    for (IRMapping &lane : lanes)
      values.push_back(lane.lookupOrDefault(store.getValue()));
    Value run =
        vector::FromElementsOp::create(b, loc, vectorType(buffer), values);
    kernelir::StoreOp::create(
        b, loc, run, buffer, indicesAt(store.getIndexMap(), store.getIndices()),
        Value());
  }
  return lanes;
}
