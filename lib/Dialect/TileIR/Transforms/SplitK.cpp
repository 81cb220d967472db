// tileir-split-k: into how many slices each contraction's k is split, the
// one decision of this pass (see Passes.td).
//
// A contraction kernel with few program instances and a long k leaves most
// of the GPU idle. Split into S slices of floor(k / S), it becomes a
// partial kernel whose domain gains a leading dimension of S (each program
// instance contracts one slice of k for one tile, a batch dimension to the
// contraction schedule) and stores its partial sums to a workspace, and an
// elementwise kernel that adds the S partials of each element and runs the
// original epilogue (bias, activation, stores) on the sum. Where S does not
// divide k, the k mod S < S left over are one more partial kernel of one
// slice (short: one launch more, little work), whose partials the sum adds
// too.

#include "KernelSlices.h"
#include "strata/Dialect/LoopIR/IR/LoopIR.h"
#include "strata/Dialect/TileIR/Transforms/Passes.h"
#include "strata/Dialect/Utils/VerifyUtils.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

namespace strata::tileir {
#define GEN_PASS_DEF_TILEIRSPLITKPASS
#include "strata/Dialect/TileIR/Transforms/Passes.h.inc"
} // namespace strata::tileir

using namespace mlir;
using namespace strata;
using namespace strata::tileir;

namespace {
/// At most this many slices: each adds a tile of partial sums to write and
/// read back.
constexpr int64_t kMaxSplits = 16;
/// Each slice keeps at least this many k, so the partial sums' traffic
/// stays small against the operands'.
constexpr int64_t kMinSliceK = 256;
/// Slices that do not divide k cost a kernel more (the remainder's): only
/// where they are at least this many.
constexpr int64_t kMinRaggedSplits = 4;

/// The kernel's one contraction, or null.
ContractOp getOnlyContraction(KernelOp kernel) {
  auto contracts = kernel.getBody().front().getOps<ContractOp>();
  if (std::distance(contracts.begin(), contracts.end()) != 1)
    return nullptr;
  return *contracts.begin();
}

/// Fills `region` with the slice of `from` that slice `slice` of `sliceK`
/// k from `kStart` on contracts: the arguments are the slice, the original
/// coordinates and k within the slice. Loads indexed by k take the slice
/// into their map (k = kStart + slice * sliceK + local k stays a row run
/// the staging can copy asynchronously); other users get it computed.
void fillSlice(OpBuilder &b, Region &region, Region &from, int64_t sliceK,
               int64_t kStart, const IRMapping &outer) {
  OpBuilder::InsertionGuard guard(b);
  Block &source = from.front();
  Location loc = from.getLoc();
  SmallVector<Type> types(source.getNumArguments() + 1, b.getIndexType());
  Block *body = b.createBlock(&region, {}, types,
                              SmallVector<Location>(types.size(), loc));
  Value slice = body->getArgument(0), local = body->getArguments().back();
  auto size = arith::ConstantIndexOp::create(b, loc, sliceK);
  auto first = arith::ConstantIndexOp::create(b, loc, kStart);
  auto start = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, slice, size), first);
  auto k = arith::AddIOp::create(b, loc, start, local);
  IRMapping mapping = outer;
  for (auto [i, arg] : llvm::enumerate(source.getArguments().drop_back()))
    mapping.map(arg, body->getArgument(i + 1));
  mapping.map(source.getArguments().back(), k.getResult());
  for (Operation &op : source)
    b.clone(op, mapping);
  sliceAccessIndices(body->getParentOp(), k, local, slice, sliceK, kStart);
  // Where only loads read k, its computation goes: the region stays nothing
  // but a load, which the staging copies asynchronously.
  if (k->use_empty()) {
    Operation *scaled = start.getLhs().getDefiningOp();
    k->erase();
    start->erase();
    scaled->erase();
    size->erase();
    first->erase();
  }
}

/// A partial kernel: `splits` slices of `sliceK` k from `kStart` on, slice
/// s of the contraction for every tile stored at [s, tile] of a workspace
/// it returns.
KernelOp buildPartials(OpBuilder &b, KernelOp kernel, ContractOp contract,
                       int64_t splits, int64_t sliceK, int64_t kStart) {
  Location loc = contract.getLoc();
  SmallVector<int64_t> domain{splits}, tile{1};
  llvm::append_range(domain, kernel.getDomain());
  llvm::append_range(tile, kernel.getTile());
  Type element = contract.getResult().getType().getElementType();
  auto workspace = RankedTensorType::get(domain, element);
  auto partials = KernelOp::create(
      b, loc, TypeRange{workspace}, kernel.getInputs(),
      b.getDenseI64ArrayAttr(domain), b.getDenseI64ArrayAttr(tile),
      b.getI64IntegerAttr(kernel.getThreads()));
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Type> buffers(ValueRange(kernel.getInputBuffers()).getTypes());
  buffers.push_back(getBufferType(workspace));
  Block *body = b.createBlock(&partials.getBody(), {}, buffers,
                              SmallVector<Location>(buffers.size(), loc));
  IRMapping mapping;
  mapping.map(kernel.getInputBuffers(), body->getArguments().drop_back());
  llvm::SetVector<Value> used(contract.getOrigin().begin(),
                              contract.getOrigin().end());
  getUsedValuesDefinedAbove(contract->getRegions(), used);
  cloneShifted(b, kernel, used.getArrayRef(), mapping);
  SmallVector<Value> origin{TileOffsetOp::create(b, loc, 0)};
  for (Value v : contract.getOrigin())
    origin.push_back(mapping.lookup(v));
  auto sliced =
      ContractOp::create(b, loc, partials.getTileType(element), origin, sliceK,
                         contract.getStep(), contract.getStages());
  fillSlice(b, sliced.getLhs(), contract.getLhs(), sliceK, kStart, mapping);
  fillSlice(b, sliced.getRhs(), contract.getRhs(), sliceK, kStart, mapping);
  StoreOp::create(b, loc, sliced.getResult(), body->getArguments().back(),
                  origin, AffineMapAttr());
  YieldOp::create(b, loc);
  return partials;
}

/// The kernel that replaces `kernel`: its body, with the contraction's
/// tile the sum of the partial tiles in `workspaces` (all their slices).
KernelOp buildSum(OpBuilder &b, KernelOp kernel, ContractOp contract,
                  ValueRange workspaces) {
  Location loc = kernel.getLoc();
  OpBuilder::InsertionGuard guard(b);
  IRMapping mapping;
  ValueRange partials;
  KernelOp sum = createJoinKernel(b, kernel, workspaces, mapping, partials);
  Block &source = kernel.getBody().front();
  MLIRContext *ctx = b.getContext();
  size_t rank = kernel.getDomain().size();
  for (Operation &op : source.without_terminator()) {
    if (&op != contract.getOperation()) {
      b.clone(op, mapping);
      continue;
    }
    // Partial s of element e: workspace[s, origin + e].
    TileType tile = contract.getResult().getType();
    SmallVector<Value> origin;
    for (Value v : contract.getOrigin())
      origin.push_back(mapping.lookup(v));
    SmallVector<Value> loaded;
    for (Value workspace : partials)
      for (int64_t s = 0;
           s < cast<MemRefType>(workspace.getType()).getDimSize(0); ++s) {
        SmallVector<AffineExpr> results{getAffineConstantExpr(s, ctx)};
        for (size_t d = 0; d < rank; ++d)
          results.push_back(getAffineDimExpr(d, ctx));
        auto map = AffineMap::get(rank, 0, results, ctx);
        loaded.push_back(LoadOp::create(b, loc, tile, workspace, origin,
                                        AffineMapAttr::get(map)));
      }
    auto add = MapOp::create(b, loc, TypeRange{tile}, loaded);
    OpBuilder::InsertionGuard inMap(b);
    Type element = tile.getElementType();
    Block *scalars = b.createBlock(&add.getBody(), {},
                                   SmallVector<Type>(loaded.size(), element),
                                   SmallVector<Location>(loaded.size(), loc));
    Value total = scalars->getArgument(0);
    for (Value partial : scalars->getArguments().drop_front())
      total = arith::AddFOp::create(b, loc, total, partial);
    YieldOp::create(b, loc, total);
    mapping.map(contract.getResult(), add.getResult(0));
  }
  YieldOp::create(b, loc);
  return sum;
}
} // namespace

FailureOr<int64_t> strata::tileir::chooseSplits(KernelOp kernel, int64_t forced,
                                                int64_t minPrograms) {
  ContractOp contract = getOnlyContraction(kernel);
  if (!contract) {
    if (forced > 1)
      return kernel.emitError("split-K splits a kernel with one "
                              "tileir.contract");
    return 1;
  }
  int64_t k = contract.getK();
  if (forced) {
    if (forced > k)
      return kernel.emitError("k = ")
             << k << " does not split into " << forced << " slices";
    return forced;
  }
  int64_t programs = computeProduct(kernel.getGrid());
  if (programs >= minPrograms)
    return 1;
  int64_t most =
      std::min<int64_t>({llvm::divideCeilSigned(minPrograms, programs),
                         kMaxSplits, k / kMinSliceK});
  // Slices that divide k spare the remainder's kernel, where they keep at
  // least half the slices.
  for (int64_t splits = most; 2 * splits >= most && splits >= 2; --splits)
    if (k % splits == 0)
      return splits;
  return most >= kMinRaggedSplits ? most : 1;
}

void strata::tileir::splitK(OpBuilder &b, KernelOp kernel, int64_t splits) {
  ContractOp contract = getOnlyContraction(kernel);
  assert(contract && splits > 1 && splits <= (int64_t)contract.getK() &&
         "chooseSplits decides what can be split");
  b.setInsertionPoint(kernel);
  int64_t k = contract.getK(), sliceK = k / splits;
  SmallVector<KernelOp> partials{
      buildPartials(b, kernel, contract, splits, sliceK, /*kStart=*/0)};
  if (int64_t rest = k - splits * sliceK)
    partials.push_back(
        buildPartials(b, kernel, contract, 1, rest, splits * sliceK));
  SmallVector<Value> workspaces;
  for (KernelOp partial : partials)
    workspaces.push_back(partial.getResult(0));
  KernelOp sum = buildSum(b, kernel, contract, workspaces);
  for (KernelOp partial : partials)
    dropUnusedInputs(partial);
  dropUnusedInputs(sum);
  // The sum is an elementwise kernel: its tile is an elementwise one (the
  // contraction's would hold `splits` register tiles at once), its threads
  // are tileir-map-threads' to choose.
  retileJoinKernel(sum, /*threads=*/1);
  kernel.replaceAllUsesWith(sum.getResults());
  kernel.erase();
}

namespace {
struct TileIRSplitKPass
    : strata::tileir::impl::TileIRSplitKPassBase<TileIRSplitKPass> {
  using TileIRSplitKPassBase::TileIRSplitKPassBase;

  void runOnOperation() override {
    auto choose = [&](KernelOp kernel) -> FailureOr<int64_t> {
      if (kernel.getProgramKind() != ProgramKind::Contraction)
        return 1;
      return chooseSplits(kernel, splits, minPrograms);
    };
    if (failed(splitKernels(getOperation(), getArgument(), splits, minPrograms,
                            choose, splitK)))
      signalPassFailure();
  }
};
} // namespace
