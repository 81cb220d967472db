// A contraction kernel's result tile out through shared memory by TMA
// (sm_90, `tma-store=true`): the threads store their elements into a
// swizzled staging buffer where their fragments hold them, and one thread
// copies it out as boxes of whole swizzled rows, which TMA clips at the
// tensor's edges, so no thread computes a global address or a guard.

#include "TileProgramTranslator.h"
#include "strata/Conversion/KernelIRCommon/Swizzle.h"
#include "strata/Dialect/Utils/GpuLimits.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"

using namespace mlir;
using namespace strata;
using namespace strata::detail;

namespace {
/// How a result buffer is seen by its tensor map: each dimension one of
/// the tile's, outermost first, and the swizzle of its boxes.
struct StoreView {
  SmallVector<int64_t> shape;
  SmallVector<unsigned> dims;
  int64_t swizzle;
};
} // namespace

/// The view in which `store`'s tile is one box per block of columns: the
/// buffer's offset is linear in the tile coordinates (a batch folded into
/// the rows included), row-major in some order with the columns innermost
/// and the rows next, each dimension exactly the domain's (TMA writes what
/// lies inside the view, so it must be what lies inside the domain), the
/// tile's other dimensions 1, the view's rows whole 16-byte units (a
/// tensor map's strides) and a row of the tile a whole number of swizzled
/// box rows. None otherwise.
static std::optional<StoreView> storeView(tileir::KernelOp kernel,
                                          tileir::StoreOp store) {
  ArrayRef<int64_t> tile = kernel.getTile(), domain = kernel.getDomain();
  size_t rank = tile.size();
  auto type = cast<MemRefType>(store.getMemref().getType());
  if (rank < 2 || !type.hasStaticShape() || !type.getLayout().isIdentity() ||
      type.getElementTypeBitWidth() % 8 != 0 ||
      tile[rank - 2] > kernelir::kTmaMaxBoxExtent)
    return std::nullopt;
  MLIRContext *context = store.getContext();
  AffineMap map = store.getIndexMap();
  AffineExpr offset = rowMajorOffset(map, type);
  // Each dimension's stride: the offset of its unit point.
  SmallVector<std::pair<int64_t, unsigned>> strides;
  AffineExpr linear = getAffineConstantExpr(0, context);
  for (unsigned d = 0; d < rank; ++d) {
    SmallVector<AffineExpr> point(rank, getAffineConstantExpr(0, context));
    point[d] = getAffineConstantExpr(1, context);
    auto stride = dyn_cast<AffineConstantExpr>(
        simplifyAffineExpr(offset.replaceDims(point), 0, 0));
    if (!stride || stride.getValue() < 1)
      return std::nullopt;
    strides.push_back({stride.getValue(), d});
    linear = linear + getAffineDimExpr(d, context) * stride.getValue();
  }
  if (simplifyAffineExpr(offset - linear, rank, 0) !=
      getAffineConstantExpr(0, context))
    return std::nullopt;
  llvm::sort(strides, [](auto x, auto y) { return x.first > y.first; });
  std::optional<SmallVector<int64_t>> extents = rowMajorExtents(
      llvm::to_vector(llvm::make_first_range(strides)), type.getNumElements());
  if (!extents)
    return std::nullopt;
  StoreView view;
  for (auto [stride, extent] : llvm::zip_equal(strides, *extents)) {
    unsigned d = stride.second;
    if (extent != domain[d] || (d + 2 < rank && tile[d] != 1))
      return std::nullopt;
    view.shape.push_back(domain[d]);
    view.dims.push_back(d);
  }
  if (view.dims.back() != rank - 1 || view.dims[rank - 2] != rank - 2 ||
      (int64_t)rank > kernelir::kTmaMaxRank ||
      !kernelir::hasTensorMapStrides(
          MemRefType::get(view.shape, type.getElementType())))
    return std::nullopt;
  int64_t rowBytes = tile[rank - 1] * type.getElementTypeBitWidth() / 8;
  for (int64_t swizzle : {128, 64, 32})
    if (rowBytes % swizzle == 0) {
      view.swizzle = swizzle;
      return view;
    }
  return std::nullopt;
}

/// Whether the kernel's accesses of shared buffer `chunk` so far leave it
/// free for a staging buffer once its contraction's loop is done: copies
/// alone write it, whose last land within the loop (the TMA ring's last
/// mbarrier wait; cp.async's wait at the last step, the later groups
/// empty), the rest read it (wgmma, ldmatrix, loads), and no staging
/// overlays it yet (a second result's staging takes another chunk).
static bool isFreeOperandChunk(kernelir::SharedOp chunk) {
  Value buffer = chunk.getBuffer();
  if (chunk.getBase() || !kernelir::getOverlays(chunk).empty())
    return false;
  bool copied = false;
  for (Operation *user : buffer.getUsers()) {
    auto tma = dyn_cast<kernelir::TmaLoadOp>(user);
    auto async = dyn_cast<kernelir::AsyncCopyOp>(user);
    if ((tma && tma.getDest() == buffer) ||
        (async && async.getDest() == buffer))
      copied = true;
    else if (!kernelir::onlyReads(user, buffer))
      return false;
  }
  return copied;
}

Value TileProgramTranslator::createStaging(Location loc, MemRefType type,
                                           int64_t alignment) {
  // Over the smallest free operand chunk that holds it, else a buffer of
  // its own (null: neither), where the kernel's shared memory stays within
  // a block's. Decided before the buffer exists (an op a conversion saw
  // created is its to erase): the staging's own bytes, if any, and the
  // alignment its copies need where it exceeds what the buffer starts at
  // (at most that much padding before it and as much more of the total's
  // slack).
  auto func = cast<kernelir::FuncOp>(entry->getParentOp());
  int64_t staged = type.getNumElements() * type.getElementTypeBitWidth() / 8;
  int64_t total = func.getSharedLayout().second;
  SmallVector<kernelir::SharedOp> chunks;
  for (auto buffer : entry->getOps<kernelir::SharedOp>())
    if (isFreeOperandChunk(buffer) && buffer.getBytes() >= staged)
      chunks.push_back(buffer);
  llvm::sort(chunks, [](kernelir::SharedOp x, kernelir::SharedOp y) {
    return x.getBytes() < y.getBytes();
  });
  chunks.push_back(nullptr);
  for (kernelir::SharedOp chunk : chunks) {
    int64_t start = chunk ? chunk.getAlignment() : kernelir::kSharedAlignment;
    int64_t slack = alignment > start ? 2 * alignment : 0;
    if (total + (chunk ? 0 : staged) + slack > kMaxSharedMemoryBytes)
      continue;
    // With the epilogue's other shared buffers at the entry's start.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(chunk ? chunk->getNextNode() : &entry->front());
    return kernelir::SharedOp::create(b, loc, type,
                                      chunk ? chunk.getBuffer() : Value());
  }
  return Value();
}

void TileProgramTranslator::awaitLastReads(Location loc, Value chunk) {
  // The last op here that uses the chunk (its contraction's loop), and
  // the waits that retire the loop's wgmmas after it.
  Block *here = b.getInsertionBlock();
  Operation *last = nullptr;
  for (Operation *user : chunk.getUsers())
    if (Operation *op = here->findAncestorOpInBlock(*user);
        op && (!last || last->isBeforeInBlock(op)))
      last = op;
  OpBuilder::InsertionGuard guard(b);
  if (last) {
    while (isa_and_nonnull<kernelir::WgmmaWaitOp>(last->getNextNode()))
      last = last->getNextNode();
    // One there already (another staging's, over the other chunk).
    if (isa_and_nonnull<kernelir::BarrierOp>(last->getNextNode()))
      return;
    b.setInsertionPointAfter(last);
  }
  // Every warpgroup past them: no thread still reads the chunk, no group
  // in flight does, before any thread stores over it. Right after them,
  // so the epilogue's maps and stores follow as they do without an
  // overlay.
  kernelir::BarrierOp::create(b, loc);
}

bool TileProgramTranslator::storeTileByTma(tileir::StoreOp store) {
  // The buffer becomes the map: this store is all the kernel does with it.
  auto result = dyn_cast<BlockArgument>(store.getMemref());
  if (!result || !llvm::hasSingleElement(result.getUsers()))
    return false;
  std::optional<StoreView> view = storeView(kernel, store);
  if (!view)
    return false;
  Location loc = store.getLoc();
  auto func = cast<kernelir::FuncOp>(entry->getParentOp());
  auto map = cast<BlockArgument>(mapping.lookup(result));
  auto type = cast<MemRefType>(map.getType());
  Type element = type.getElementType();
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  size_t rank = kernel.getTile().size();
  int64_t rows = kernel.getTile()[rank - 2],
          columns = kernel.getTile()[rank - 1];
  int64_t width = view->swizzle / bytes, blocks = columns / width;
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value staging = createStaging(
      loc,
      MemRefType::get({blocks, rows, width}, element,
                      MemRefLayoutAttrInterface(),
                      gpu::AddressSpaceAttr::get(b.getContext(),
                                                 gpu::AddressSpace::Workgroup)),
      8 * view->swizzle);
  if (!staging)
    return false;
  Value chunk = cast<kernelir::SharedOp>(staging.getDefiningOp()).getBase();
  // Whether every thread may copy into the chunk as soon as it passes
  // here (a later contraction's or a next tile's cp.async), where TMA
  // copies are issued by the one thread that waits for the copy-out.
  bool threadsRefill = false;
  if (chunk) {
    threadsRefill = llvm::any_of(chunk.getUsers(), [](Operation *user) {
      return isa<kernelir::AsyncCopyOp>(user);
    });
    awaitLastReads(loc, chunk);
  }
  func.setArgAttr(map.getArgNumber(), kernelir::kTensorMapAttrName,
                  b.getDenseI64ArrayAttr(view->shape));

  // Each run of the thread's elements (neighbouring columns, within a
  // 16-byte unit, which the swizzle moves whole) where the box's swizzle
  // puts it: column block c / width, byte r S + (c mod width) bytes.
  int64_t run = runWidth(store.getIndexMap(), store.getMemref());
  ArrayRef<Value> elements = scalars[store.getValue()];
  for (int64_t k = 0; k < elementsPerThread; k += run) {
    Value row = elementCoords[k][rank - 2], column = elementCoords[k][rank - 1];
    Value block = arith::DivUIOp::create(b, loc, column, index(width));
    Value byte = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, row, index(view->swizzle)),
        arith::MulIOp::create(
            b, loc, arith::RemUIOp::create(b, loc, column, index(width)),
            index(bytes)));
    Value swizzled = buildSwizzledOffset(b, loc, byte, view->swizzle);
    Value at = arith::DivUIOp::create(b, loc, swizzled, index(bytes));
    Value value = elements[k];
    if (run > 1)
      value = vector::FromElementsOp::create(
          b, loc, VectorType::get({run}, element), elements.slice(k, run));
    kernelir::StoreOp::create(
        b, loc, value, staging,
        {block, arith::DivUIOp::create(b, loc, at, index(width)),
         arith::RemUIOp::create(b, loc, at, index(width))},
        Value());
  }
  // The threads' stores, seen by the copy engine; one thread copies each
  // block of columns and waits until they are read (the block may end, or
  // a persistent kernel's next tile overwrite them).
  kernelir::ProxyFenceOp::create(b, loc);
  kernelir::BarrierOp::create(b, loc);
  Value leader =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, thread, index(0));
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, leader, false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    SmallVector<int64_t> box(rank, 1);
    box[rank - 2] = rows;
    box[rank - 1] = width;
    for (int64_t j = 0; j < blocks; ++j) {
      SmallVector<Value> coordinates;
      for (unsigned d : view->dims) {
        Value origin = mapping.lookup(store.getOrigin()[d]);
        if (d == rank - 1 && j)
          origin = arith::AddIOp::create(b, loc, origin, index(j * width));
        coordinates.push_back(origin);
      }
      kernelir::TmaStoreOp::create(
          b, loc, staging, ValueRange{index(j), index(0), index(0)}, map,
          coordinates, view->swizzle, b.getDenseI64ArrayAttr(box));
    }
    kernelir::BulkCommitOp::create(b, loc);
    kernelir::BulkWaitOp::create(b, loc, 0, /*read=*/true);
  }
  // Every thread waits for the copy-out where it may refill the staging's
  // bytes next: a persistent kernel's next tile, or threads' copies into
  // the chunk under it.
  if (tileLoop || threadsRefill)
    kernelir::BarrierOp::create(b, loc);
  return true;
}
