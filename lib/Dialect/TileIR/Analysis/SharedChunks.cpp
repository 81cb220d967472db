// The loads a row program's thread groups share (see SharedChunks.h).

#include "strata/Dialect/TileIR/Analysis/SharedChunks.h"
#include "strata/Dialect/Utils/ScheduleModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace strata;
using namespace strata::tileir;

bool tileir::isGroupUniform(Value v, ArrayRef<bool> tiled) {
  if (isa<BlockArgument>(v))
    return isa<KernelOp>(cast<BlockArgument>(v).getOwner()->getParentOp());
  Operation *def = v.getDefiningOp();
  if (auto point = dyn_cast<PointOp>(def))
    return !tiled[point.getDim()];
  if (isa<ProgramIdOp, TileOffsetOp>(def))
    return true;
  if (def->getNumRegions() != 0 || !isPure(def) ||
      !isa<arith::ArithDialect>(def->getDialect()))
    return false;
  return llvm::all_of(def->getOperands(),
                      [&](Value o) { return isGroupUniform(o, tiled); });
}

namespace {

/// The bounds of the loop that owns block argument `iv`, if it is one of a
/// loopir loop.
std::optional<int64_t> loopBound(BlockArgument iv) {
  Operation *owner = iv.getOwner()->getParentOp();
  ArrayRef<int64_t> bounds;
  if (auto reduce = dyn_cast<loopir::ReduceOp>(owner))
    bounds = reduce.getBounds();
  else if (auto parallel = dyn_cast<loopir::ParallelOp>(owner))
    bounds = parallel.getBounds();
  else
    return std::nullopt;
  return bounds[iv.getArgNumber()];
}

std::optional<SharedChunkLoad> asSharedChunk(loopir::LoadOp load,
                                             Operation *fold,
                                             ArrayRef<bool> tiled) {
  auto kernel = fold->getParentOfType<KernelOp>();
  if (!llvm::is_contained(kernel.getInputBuffers(), load.getMemref()))
    return std::nullopt;
  // Only loops between the load and the fold (their bounds are constant).
  for (Operation *p = load->getParentOp(); p != fold; p = p->getParentOp())
    if (!isa<loopir::ReduceOp, loopir::ParallelOp>(p))
      return std::nullopt;
  Block &body = fold->getRegion(0).front();
  SharedChunkLoad chunk{load, {}, {}};
  bool onPoints = false;
  AffineMap map = load.getIndexMap();
  for (auto [d, index] : llvm::enumerate(load.getIndices())) {
    if (!map.isFunctionOfDim(d))
      continue; // Not part of the address.
    auto arg = dyn_cast<BlockArgument>(index);
    if (arg && arg.getOwner() == &body) {
      onPoints = true;
      continue;
    }
    if (arg && fold->isProperAncestor(arg.getOwner()->getParentOp())) {
      std::optional<int64_t> bound = loopBound(arg);
      if (!bound)
        return std::nullopt;
      if (!llvm::is_contained(chunk.inner, arg)) {
        chunk.inner.push_back(arg);
        chunk.innerBounds.push_back(*bound);
      }
      continue;
    }
    if (index.getDefiningOp<arith::ConstantOp>())
      continue;
    if (fold->isAncestor(index.getParentRegion()->getParentOp()) ||
        !isGroupUniform(index, tiled))
      return std::nullopt;
  }
  if (!onPoints)
    return std::nullopt;
  // Outermost loop first: the order the chunk's dimensions take.
  SmallVector<std::pair<unsigned, unsigned>> depth;
  for (auto [i, arg] : llvm::enumerate(chunk.inner)) {
    unsigned d = 0;
    for (Operation *p = arg.getOwner()->getParentOp(); p != fold;
         p = p->getParentOp())
      ++d;
    depth.push_back({d, (unsigned)i});
  }
  llvm::sort(depth, [](auto a, auto b) { return a.first > b.first; });
  SharedChunkLoad ordered{load, {}, {}};
  for (auto [d, i] : depth) {
    ordered.inner.push_back(chunk.inner[i]);
    ordered.innerBounds.push_back(chunk.innerBounds[i]);
  }
  return ordered;
}

} // namespace

SmallVector<SharedChunkLoad>
tileir::findSharedChunkLoads(Operation *fold, ArrayRef<bool> tiled) {
  SmallVector<SharedChunkLoad> loads;
  fold->getRegion(0).walk([&](loopir::LoadOp load) {
    if (std::optional<SharedChunkLoad> chunk = asSharedChunk(load, fold, tiled))
      loads.push_back(*chunk);
  });
  return loads;
}

/// The elements a load reads per point of `fold`: one per iteration of
/// the loops between them.
static int64_t elementsPerPoint(loopir::LoadOp load, Operation *fold) {
  int64_t n = 1;
  for (Operation *p = load->getParentOp(); p != fold; p = p->getParentOp()) {
    if (auto reduce = dyn_cast<loopir::ReduceOp>(p))
      n *= computeProduct(reduce.getBounds());
    else if (auto parallel = dyn_cast<loopir::ParallelOp>(p))
      n *= computeProduct(parallel.getBounds());
  }
  return n;
}

bool tileir::sharesFoldChunksAcrossRows(KernelOp kernel) {
  SmallVector<bool> tiled(kernel.getDomain().size(), false);
  tiled.back() = true;
  for (Operation &op : kernel.getBody().front()) {
    if (!isa<FoldOp, CompositeFoldOp>(op))
      continue;
    SmallVector<SharedChunkLoad> shared = findSharedChunkLoads(&op, tiled);
    // Worth it where the shared elements are most of what a point reads
    // (attention: a key and a value row per point, against a mask element
    // of its own); a row that reads as much of its own (a matrix-vector
    // product's x[i, k] beside w[k]) keeps a warp per row and its vector
    // loads.
    int64_t sharedElements = 0, ownElements = 0, sharedBytes = 0;
    llvm::SmallPtrSet<Operation *, 8> isShared;
    for (const SharedChunkLoad &l : shared) {
      int64_t elements = computeProduct(l.innerBounds);
      sharedElements += elements;
      Type type = l.load->getResult(0).getType();
      if (!type.isIntOrFloat())
        return false;
      sharedBytes +=
          elements * llvm::divideCeil(type.getIntOrFloatBitWidth(), 8);
      isShared.insert(l.load);
    }
    // The chunks of kMinChunkPoints points must fit (with the lowering's
    // padding of a row, at most one element per load).
    if (shared.empty() || (sharedBytes + 8 * (int64_t)shared.size()) *
                                  kMinChunkPoints >
                              kMaxSharedChunkBytes)
      continue;
    Block &body = op.getRegion(0).front();
    op.getRegion(0).walk([&](loopir::LoadOp load) {
      if (isShared.contains(load))
        return;
      bool onPoints = llvm::any_of(load.getIndices(), [&](Value v) {
        auto arg = dyn_cast<BlockArgument>(v);
        return arg && arg.getOwner() == &body;
      });
      if (onPoints)
        ownElements += elementsPerPoint(load, &op);
    });
    if (sharedElements > ownElements)
      return true;
  }
  return false;
}
