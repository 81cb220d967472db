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

/// Whether `access` (a loopir.load or store at the top of `body`) reads or
/// writes a run of `width` neighbouring elements of a row of its buffer for
/// neighbouring values of the body's innermost index (see isRowRun).
template <typename AccessOp>
static bool isRunAccess(AccessOp access, Block &body, int64_t width) {
  Value inner = body.getArguments().back();
  ValueRange indices = access.getIndices();
  return access->getBlock() == &body &&
         isRowRun(
             access.getIndexMap(),
             [&](unsigned d) { return indices[d] == inner; },
             cast<MemRefType>(access.getMemref().getType()), width);
}

int64_t TileBodyTranslator::chooseRunWidth(Block &body,
                                           ArrayRef<int64_t> bounds) {
  SmallVector<MemRefType> buffers;
  auto isRun = [&](Operation &op, int64_t width) {
    if (auto load = dyn_cast<loopir::LoadOp>(op))
      return isRunAccess(load, body, width);
    if (auto store = dyn_cast<loopir::StoreOp>(op))
      return isRunAccess(store, body, width);
    return false;
  };
  for (Operation &op : body) {
    if (auto load = dyn_cast<loopir::LoadOp>(op))
      buffers.push_back(cast<MemRefType>(load.getMemref().getType()));
    else if (auto store = dyn_cast<loopir::StoreOp>(op))
      buffers.push_back(cast<MemRefType>(store.getMemref().getType()));
  }
  for (int64_t width = maxVectorWidth(buffers); width > 1; width /= 2)
    if (bounds.back() % width == 0 &&
        llvm::any_of(body, [&](Operation &op) { return isRun(op, width); }))
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
      if (isRunAccess(load, body, width)) {
        Value buffer = mapping.lookup(load.getMemref());
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
      if (!loaded.contains(store.getMemref()) &&
          isRunAccess(store, body, width)) {
        runStores.push_back(store);
        continue;
      }
    }
    for (IRMapping &lane : lanes)
      b.clone(op, lane);
  }
  for (loopir::StoreOp store : runStores) {
    Value buffer = mapping.lookup(store.getMemref());
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
