// The partial kernels of tileir-split-k and tileir-split-folds.

#include "KernelSlices.h"
#include "strata/Dialect/LoopIR/IR/LoopIR.h"
#include "strata/Dialect/TileIR/Transforms/Passes.h"
#include "strata/Dialect/Utils/VerifyUtils.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace strata;
using namespace strata::tileir;

void strata::tileir::cloneShifted(OpBuilder &b, KernelOp kernel,
                                  ArrayRef<Value> used, IRMapping &mapping) {
  llvm::SetVector<Operation *> needed;
  SmallVector<Value> work(used);
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || def->getParentOp() != kernel || !needed.insert(def))
      continue;
    llvm::append_range(work, def->getOperands());
  }
  for (Operation &op : kernel.getBody().front()) {
    if (!needed.contains(&op))
      continue;
    Location loc = op.getLoc();
    if (auto offset = dyn_cast<TileOffsetOp>(op))
      mapping.map(offset.getResult(),
                  TileOffsetOp::create(b, loc, offset.getDim() + 1));
    else if (auto pid = dyn_cast<ProgramIdOp>(op))
      mapping.map(pid.getResult(),
                  ProgramIdOp::create(b, loc, pid.getDim() + 1));
    else if (auto point = dyn_cast<PointOp>(op))
      mapping.map(point.getResult(),
                  getOrCreatePoint(b, loc, point.getDim() + 1));
    else
      b.clone(op, mapping);
  }
}

Value strata::tileir::getOrCreatePoint(OpBuilder &b, Location loc,
                                       int64_t dim) {
  Block *block = b.getInsertionBlock();
  for (Operation &op : llvm::make_range(block->begin(), b.getInsertionPoint()))
    if (auto point = dyn_cast<PointOp>(op); point && static_cast<int64_t>(point.getDim()) == dim)
      return point;
  return PointOp::create(b, loc, dim);
}

/// Makes `access` (a loopir.load or loopir.store) index `local` and
/// `slice` where it indexed `point` (see sliceAccessIndices).
template <typename AccessOp>
static void sliceAccess(AccessOp access, Value point, Value local,
                        Value slice, int64_t length, int64_t start) {
  MLIRContext *ctx = access->getContext();
  SmallVector<Value> indices(access.getIndices());
  unsigned extra = indices.size();
  SmallVector<AffineExpr> dims;
  for (auto [pos, index] : llvm::enumerate(indices)) {
    AffineExpr d = getAffineDimExpr(pos, ctx);
    if (index == point) {
      index = local;
      d = d + getAffineDimExpr(extra, ctx) * length + start;
    }
    dims.push_back(d);
  }
  indices.push_back(slice);
  access.reindex(indices, dims);
}

void strata::tileir::sliceAccessIndices(Operation *root, Value point,
                                        Value local, Value slice,
                                        int64_t length, int64_t start) {
  SmallVector<loopir::LoadOp> loads;
  SmallVector<loopir::StoreOp> stores;
  root->walk([&](loopir::LoadOp load) {
    if (llvm::is_contained(load.getIndices(), point))
      loads.push_back(load);
  });
  root->walk([&](loopir::StoreOp store) {
    if (llvm::is_contained(store.getIndices(), point))
      stores.push_back(store);
  });
  for (loopir::LoadOp load : loads)
    sliceAccess(load, point, local, slice, length, start);
  for (loopir::StoreOp store : stores)
    sliceAccess(store, point, local, slice, length, start);
}

KernelOp strata::tileir::createJoinKernel(OpBuilder &b, KernelOp kernel,
                                          ValueRange workspaces,
                                          IRMapping &mapping,
                                          ValueRange &states) {
  Location loc = kernel.getLoc();
  SmallVector<Value> inputs(kernel.getInputs());
  llvm::append_range(inputs, workspaces);
  auto join = KernelOp::create(b, loc, kernel.getResultTypes(), inputs,
                               kernel.getDomainAttr(), kernel.getTileAttr(),
                               kernel.getThreadsAttr());
  SmallVector<Type> buffers(ValueRange(kernel.getInputBuffers()).getTypes());
  for (Value workspace : workspaces)
    buffers.push_back(
        getBufferType(cast<RankedTensorType>(workspace.getType())));
  llvm::append_range(buffers, ValueRange(kernel.getOutputBuffers()).getTypes());
  Block *body = b.createBlock(&join.getBody(), {}, buffers,
                              SmallVector<Location>(buffers.size(), loc));
  size_t numInputs = kernel.getInputs().size();
  mapping.map(kernel.getInputBuffers(),
              body->getArguments().take_front(numInputs));
  mapping.map(kernel.getOutputBuffers(),
              body->getArguments().drop_front(numInputs + workspaces.size()));
  states = body->getArguments().slice(numInputs, workspaces.size());
  return join;
}

void strata::tileir::retileJoinKernel(KernelOp kernel, int64_t threads) {
  kernel.setThreads(threads);
  FailureOr<SmallVector<int64_t>> tile =
      chooseTile(kernel, {}, kDefaultTileElements,
                 /*tensorCores=*/false, /*tf32=*/false);
  assert(succeeded(tile) && "a default tile exists for every join kernel");
  (void)setTile(kernel, *tile);
}

LogicalResult strata::tileir::splitKernels(
    Operation *root, StringRef pass, int64_t splits, int64_t minPrograms,
    function_ref<FailureOr<int64_t>(KernelOp)> choose,
    function_ref<void(OpBuilder &, KernelOp, int64_t)> split) {
  if (splits < 0 || minPrograms < 1)
    return emitError(root->getLoc())
           << pass << ": splits must be at least 0 and min-programs at least 1";
  SmallVector<KernelOp> kernels;
  root->walk([&](KernelOp kernel) { kernels.push_back(kernel); });
  OpBuilder b(root->getContext());
  for (KernelOp kernel : kernels) {
    FailureOr<int64_t> chosen = choose(kernel);
    if (failed(chosen))
      return failure();
    if (*chosen > 1)
      split(b, kernel, *chosen);
  }
  return success();
}

void strata::tileir::dropUnusedInputs(KernelOp kernel) {
  Block &body = kernel.getBody().front();
  for (int64_t i = kernel.getInputs().size() - 1; i >= 0; --i)
    if (body.getArgument(i).use_empty()) {
      kernel.getInputsMutable().erase(i);
      body.eraseArgument(i);
    }
}
