// The group-strided loops of cooperative kernels (tileir.fold,
// tileir.distribute) over runs of neighbouring points: where the body reads or
// writes a row of a buffer along the loop's innermost index, each thread takes
// runs of up to 128 bits and accesses a run as one vector (ld.global.v4 for f32
// rows); a row that several loops read comes from global memory once
// (RowCache).

#include "RowProgramTranslator.h"
#include "strata/Conversion/LoopIRCommon/ScalarLoops.h"
#include "strata/Dialect/Utils/LoopBox.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"

using namespace mlir;
using namespace strata;
using namespace strata::detail;

/// Whether a guard leaves `access` elementwise (a guarded load's points
/// need not agree along a run).
static bool isGuarded(loopir::LoadOp load) { return load.getGuard().has_value(); }
static bool isGuarded(loopir::StoreOp) { return false; }

/// Whether `access` (a loopir.load or store at the top of `body`) reads or
/// writes a run of `width` neighbouring elements of a row of its buffer for
/// neighbouring values of the body's innermost index (see isRowRun).
template <typename AccessOp>
static bool isRunAccess(AccessOp access, Block &body, int64_t width) {
  Value inner = body.getArguments().back();
  ValueRange indices = access.getIndices();
  return access->getBlock() == &body && !isGuarded(access) &&
         isRowRun(
             access.getIndexMap(),
             [&](unsigned d) { return indices[d] == inner; },
             cast<MemRefType>(access.getMemref().getType()), width);
}

/// Where each index of `load` (in `body`) comes from: ~n for argument n
/// of `body`, the value itself for one defined outside the loop; none
/// where an index is computed inside it.
static std::optional<SmallVector<intptr_t>> indexPlaces(loopir::LoadOp load,
                                                        Block &body) {
  SmallVector<intptr_t> places;
  for (Value v : load.getIndices()) {
    auto arg = dyn_cast<BlockArgument>(v);
    if (arg && arg.getOwner() == &body) {
      places.push_back(~(intptr_t)arg.getArgNumber());
      continue;
    }
    if (body.getParent()->isAncestor(v.getParentRegion()))
      return std::nullopt;
    places.push_back((intptr_t)v.getAsOpaquePointer());
  }
  return places;
}

/// The shared memory that row caches may take: a row of 8192 f32, leaving
/// room for the block combines within what a block declares statically.
static constexpr int64_t kMaxRowCacheBytes = 32 * 1024;
/// Left of static shared memory for the posts of the block combines (one
/// word per warp and component: a composite fold of 66 components over 8
/// warps takes 2 KiB).
static constexpr int64_t kCombinePostsBytes = 8 * 1024;

void RowProgramTranslator::planRowCaches() {
  // A buffer the kernel writes may change between two reads.
  DenseSet<Value> written;
  kernel.walk([&](loopir::StoreOp s) { written.insert(s.getMemref()); });
  kernel.walk([&](tileir::StoreOp s) { written.insert(s.getMemref()); });
  // What makes two run loads of two loops read the same elements into the
  // same threads; the loads that share it, and how many loops they span.
  struct Key {
    Value memref;
    AffineMap map;
    SmallVector<intptr_t> places;
    ArrayRef<int64_t> bounds;
    int64_t width;
    bool operator==(const Key &o) const {
      return memref == o.memref && map == o.map && places == o.places &&
             bounds == o.bounds && width == o.width;
    }
  };
  struct Reads {
    Key key;
    SmallVector<Operation *> loads;
    int loops = 0;
  };
  SmallVector<Reads> reads;
  for (Operation &op : kernel.getBody().front()) {
    auto loop = tileir::getCooperativeLoop(&op);
    // Chunked folds read no runs; a scan reads its row point by point.
    if (!loop || sharedChunks.contains(&op) ||
        isa<tileir::ScanOp, tileir::CompositeScanOp>(op))
      continue;
    auto [body, bounds] = *loop;
    int64_t width = chooseRunWidth(*body, bounds);
    if (width == 1)
      continue;
    DenseSet<unsigned> counted; // Each loop counts once per key.
    for (Operation &inner : *body) {
      auto load = dyn_cast<loopir::LoadOp>(inner);
      if (!load || written.contains(load.getMemref()) ||
          !isRunAccess(load, *body, width))
        continue;
      std::optional<SmallVector<intptr_t>> places = indexPlaces(load, *body);
      if (!places)
        continue;
      Key key{load.getMemref(), load.getIndexMap(), *places, bounds, width};
      auto *it = llvm::find_if(reads, [&](Reads &r) { return r.key == key; });
      if (it == reads.end()) {
        reads.push_back({key, {}, 0});
        it = std::prev(reads.end());
      }
      it->loads.push_back(load);
      if (counted.insert(it - reads.begin()).second)
        ++it->loops;
    }
  }
  // What the chunks of chunked folds leave of static shared memory, less
  // what the block combines' posts may take.
  int64_t budget =
      std::min(kMaxRowCacheBytes, kStaticSharedMemoryBytes -
                                      kCombinePostsBytes - sharedChunkBytes);
  int64_t bytes = 0;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(entry);
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  for (Reads &r : reads) {
    Type element = cast<MemRefType>(r.key.memref.getType()).getElementType();
    int64_t size = computeProduct(r.key.bounds) * groups *
                   llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
    if (r.loops < 2 || bytes + size > budget)
      continue;
    bytes += size;
    // With several rows per program instance, one cache per thread group.
    SmallVector<int64_t> shape(r.key.bounds);
    if (groups > 1)
      shape.insert(shape.begin(), groups);
    Value buffer = kernelir::SharedOp::create(
        b, kernel.getLoc(),
        MemRefType::get(shape, element, MemRefLayoutAttrInterface(),
                        workgroup));
    for (Operation *load : r.loads)
      rowCacheOf[load] = rowCaches.size();
    rowCaches.push_back({buffer});
  }
}

int64_t RowProgramTranslator::chooseRunWidth(Block &body,
                                             ArrayRef<int64_t> bounds) {
  if (bounds.empty()) // A box of one point has no innermost index to run.
    return 1;
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
RowProgramTranslator::cloneRun(Block &body, ValueRange first, int64_t width) {
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
        auto planned = rowCacheOf.find(load);
        RowCache *cache =
            planned == rowCacheOf.end() ? nullptr : &rowCaches[planned->second];
        Value run;
        SmallVector<Value> cached(first);
        if (group)
          cached.insert(cached.begin(), group);
        if (cache && cache->filled) { // This thread stored it there.
          run = kernelir::LoadOp::create(b, loc, vectorType(buffer),
                                         cache->buffer, cached, Value());
        } else {
          run = kernelir::LoadOp::create(
              b, loc, vectorType(buffer), buffer,
              indicesAt(load.getIndexMap(), load.getIndices()), Value());
          if (cache) {
            kernelir::StoreOp::create(b, loc, run, cache->buffer, cached);
            cache->filled = true;
          }
        }
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
