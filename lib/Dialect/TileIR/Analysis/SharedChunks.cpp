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

std::optional<SharedChunkLoad>
asSharedChunk(loopir::LoadOp load, Operation *fold, ArrayRef<bool> tiled) {
  auto kernel = fold->getParentOfType<KernelOp>();
  if (!llvm::is_contained(kernel.getInputBuffers(), load.getMemref()))
    return std::nullopt;
  // Only loops between the load and the fold (their bounds are constant),
  // outermost first: the order of the chunk's dimensions.
  SmallVector<Operation *> loops;
  for (Operation *p = load->getParentOp(); p != fold; p = p->getParentOp()) {
    if (!isa<loopir::ReduceOp, loopir::ParallelOp>(p))
      return std::nullopt;
    loops.insert(loops.begin(), p);
  }
  Block &body = fold->getRegion(0).front();
  bool onPoints = false;
  llvm::SmallDenseSet<Value> read;
  for (auto [d, index] : llvm::enumerate(load.getIndices())) {
    if (!load.readsIndex(d))
      continue; // Neither the address nor the guard.
    read.insert(index);
    auto arg = dyn_cast<BlockArgument>(index);
    if (arg && arg.getOwner() == &body)
      onPoints = true;
    else if (!(arg && fold->isProperAncestor(arg.getOwner()->getParentOp())) &&
             !index.getDefiningOp<arith::ConstantOp>() &&
             (fold->isAncestor(index.getParentRegion()->getParentOp()) ||
              !isGroupUniform(index, tiled)))
      return std::nullopt;
  }
  if (!onPoints)
    return std::nullopt;
  SharedChunkLoad chunk{load, {}, {}};
  for (Operation *loop : loops) {
    Block &loopBody = loop->getRegion(0).front();
    ArrayRef<int64_t> bounds = isa<loopir::ReduceOp>(loop)
                                   ? cast<loopir::ReduceOp>(loop).getBounds()
                                   : cast<loopir::ParallelOp>(loop).getBounds();
    for (auto [iv, bound] : llvm::zip(loopBody.getArguments(), bounds))
      if (read.contains(iv)) {
        chunk.inner.push_back(iv);
        chunk.innerBounds.push_back(bound);
      }
  }
  return chunk;
}

} // namespace

SmallVector<int64_t> tileir::getChunkShape(const SharedChunkLoad &load,
                                           int64_t points) {
  SmallVector<int64_t> shape = {points};
  llvm::append_range(shape, load.innerBounds);
  if (shape.size() > 1 && shape.back() % 2 == 0)
    ++shape.back();
  return shape;
}

std::optional<int64_t>
tileir::getChunkBytesPerPoint(ArrayRef<SharedChunkLoad> loads) {
  int64_t bytes = 0;
  for (const SharedChunkLoad &l : loads) {
    Type type = l.load->getResult(0).getType();
    if (!type.isIntOrFloat())
      return std::nullopt;
    bytes += computeProduct(getChunkShape(l, 1)) *
             llvm::divideCeil(type.getIntOrFloatBitWidth(), 8);
  }
  return bytes;
}

SmallVector<SharedChunkLoad>
tileir::findSharedChunkLoads(Operation *fold, ArrayRef<bool> tiled) {
  SmallVector<SharedChunkLoad> loads;
  fold->getRegion(0).walk([&](loopir::LoadOp load) {
    if (std::optional<SharedChunkLoad> chunk = asSharedChunk(load, fold, tiled))
      loads.push_back(*chunk);
  });
  return loads;
}

int64_t tileir::elementsPerPoint(loopir::LoadOp load, Operation *fold) {
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
    // The chunks of kMinChunkPoints points must fit.
    std::optional<int64_t> bytes = getChunkBytesPerPoint(shared);
    if (shared.empty() || !bytes ||
        *bytes * kMinChunkPoints > kMaxSharedChunkBytes)
      continue;
    int64_t sharedElements = 0, ownElements = 0;
    llvm::SmallPtrSet<Operation *, 8> isShared;
    for (const SharedChunkLoad &l : shared) {
      sharedElements += computeProduct(l.innerBounds);
      isShared.insert(l.load);
    }
    Block &body = op.getRegion(0).front();
    op.getRegion(0).walk([&](loopir::LoadOp load) {
      if (isShared.contains(load))
        return;
      for (auto [d, v] : llvm::enumerate(load.getIndices()))
        if (auto arg = dyn_cast<BlockArgument>(v);
            arg && arg.getOwner() == &body && load.readsIndex(d)) {
          ownElements += elementsPerPoint(load, &op);
          return;
        }
    });
    if (sharedElements > ownElements)
      return true;
  }
  return false;
}
