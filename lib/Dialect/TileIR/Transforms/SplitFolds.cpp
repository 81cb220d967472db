// tileir-split-folds: into how many slices the folds of a row program with
// few program instances are split, the one decision of this pass (see
// Passes.td).
//
// A fold's partial results are elements of its own monoid: folding a slice
// of the points gives a state that the monoid's combination joins with the
// other slices' states, whatever the monoid (a sum, an argmax's
// (value, position), online softmax's rescaled (max, sums)). So a row
// program splits into a partial kernel, one program instance per (slice,
// row), that stores every fold's state to a workspace, and the original
// kernel with each fold now over the slices' states, loaded back. The
// epilogue after the folds is untouched.

#include "KernelSlices.h"
#include "strata/Dialect/LoopIR/IR/LoopIR.h"
#include "strata/Dialect/TileIR/Analysis/SharedChunks.h"
#include "strata/Dialect/TileIR/IR/CompositeMonoids.h"
#include "strata/Dialect/TileIR/Transforms/Passes.h"
#include "strata/Dialect/Utils/LoopBox.h"
#include "strata/Dialect/Utils/VerifyUtils.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

namespace strata::tileir {
#define GEN_PASS_DEF_TILEIRSPLITFOLDSPASS
#include "strata/Dialect/TileIR/Transforms/Passes.h.inc"
} // namespace strata::tileir

using namespace mlir;
using namespace strata;
using namespace strata::tileir;

namespace {
/// At most this many slices: each adds a state per row to write and read
/// back, and the combining fold runs over them.
constexpr int64_t kMaxFoldSplits = 128;
/// Each slice reads at least this many bytes, so the states' traffic and
/// the second launch (a few microseconds) stay small against the folds'
/// own: a block streams 64 KiB in about a microsecond, so shorter folds
/// gain less from the split than its launch costs.
constexpr int64_t kMinSliceBytes = 64 * 1024;

/// The top-level folds of `kernel` (tileir.fold and tileir.composite_fold),
/// in program order.
SmallVector<Operation *> getFolds(KernelOp kernel) {
  SmallVector<Operation *> folds;
  for (Operation &op : kernel.getBody().front())
    if (isa<FoldOp, CompositeFoldOp>(op))
      folds.push_back(&op);
  return folds;
}

ArrayRef<int64_t> getFoldBounds(Operation *fold) {
  return getCooperativeLoop(fold)->second;
}

ArrayAttr getFoldIdentities(Operation *fold) {
  if (auto plain = dyn_cast<FoldOp>(fold))
    return plain.getIdentities();
  return cast<CompositeFoldOp>(fold).getIdentities();
}

/// Whether the values `fold` reads from above are computed from the
/// kernel's inputs and domain point alone: not from another fold, a
/// distribute, or an output buffer. Only such a fold can run in a kernel
/// of its own.
bool readsOnlyInputs(KernelOp kernel, Operation *fold) {
  llvm::SetVector<Value> used;
  getUsedValuesDefinedAbove(fold->getRegions(), used);
  SmallVector<Value> work(used.begin(), used.end());
  llvm::SmallPtrSet<Operation *, 16> seen;
  size_t numInputs = kernel.getInputs().size();
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner()->getParentOp() == kernel.getOperation() &&
          arg.getArgNumber() >= numInputs)
        return false;
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (def->getParentOp() != kernel.getOperation() || !seen.insert(def).second)
      continue;
    if (isa<FoldOp, CompositeFoldOp, DistributeOp>(def))
      return false;
    llvm::append_range(work, def->getOperands());
    // Values a top-level op with regions reads from above count too.
    llvm::SetVector<Value> nested;
    getUsedValuesDefinedAbove(def->getRegions(), nested);
    llvm::append_range(work, nested);
  }
  return true;
}

/// The bytes one point of `fold` loads: each load of its body, times the
/// points of the loops around it inside the fold.
int64_t getBytesPerPoint(Operation *fold) {
  int64_t bytes = 0;
  fold->walk([&](loopir::LoadOp load) {
    Type element = getElementTypeOrSelf(load.getResult().getType());
    bytes += std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8) *
             elementsPerPoint(load, fold);
  });
  return bytes;
}

/// A group of a fold's results of one element type: one workspace of
/// [slices, domain..., components].
struct StateGroup {
  Operation *fold;
  Type element;
  SmallVector<unsigned> results;
};

SmallVector<StateGroup> getStateGroups(ArrayRef<Operation *> folds) {
  SmallVector<StateGroup> groups;
  for (Operation *fold : folds) {
    size_t first = groups.size();
    for (auto [i, result] : llvm::enumerate(fold->getResults())) {
      Type type = result.getType();
      auto *group = llvm::find_if(
          MutableArrayRef<StateGroup>(groups).drop_front(first),
          [&](StateGroup &g) { return g.element == type; });
      if (group == groups.end()) {
        groups.push_back({fold, type, {}});
        group = &groups.back();
      }
      group->results.push_back(i);
    }
  }
  return groups;
}

RankedTensorType getWorkspaceType(KernelOp kernel, int64_t splits,
                                  const StateGroup &group) {
  SmallVector<int64_t> shape{splits};
  llvm::append_range(shape, kernel.getDomain());
  shape.push_back(group.results.size());
  return RankedTensorType::get(shape, group.element);
}

/// Clones the combination of the composite fold `fold` at `b`, joining
/// the states `x` and `y`; `outer` maps the values it reads from above.
SmallVector<Value> cloneCombine(CompositeFoldOp fold, OpBuilder &b,
                                ValueRange x, ValueRange y,
                                const IRMapping &outer) {
  Block &pair = fold.getCombine().front();
  SmallVector<Value> arguments(x);
  llvm::append_range(arguments, y);
  IRMapping mapping = cloneLoopBody(b, pair, arguments, outer);
  SmallVector<Value> combined;
  for (Value v : pair.getTerminator()->getOperands())
    combined.push_back(mapping.lookupOrDefault(v));
  return combined;
}

/// A fold of the same monoids as `fold` over `bounds`, its contributions
/// built by `contribution`, at `b`; `outer` maps the values a composite
/// fold's combination reads from above.
Operation *buildFoldLike(OpBuilder &b, Operation *fold,
                         ArrayRef<int64_t> bounds,
                         ContributionBuilder contribution,
                         const IRMapping &outer) {
  Location loc = fold->getLoc();
  if (auto composite = dyn_cast<CompositeFoldOp>(fold)) {
    SmallVector<TypedAttr> identities;
    for (Attribute identity : composite.getIdentities())
      identities.push_back(cast<TypedAttr>(identity));
    return buildCompositeFold(
        b, loc, identities, bounds, contribution,
        [&](OpBuilder &nested, Location, ValueRange x, ValueRange y) {
          return cloneCombine(composite, nested, x, y, outer);
        });
  }
  auto plain = cast<FoldOp>(fold);
  auto rebuilt =
      FoldOp::create(b, loc, plain.getCombinerList(),
                     plain.getResultTypes(), bounds);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&rebuilt.getBody().front());
  YieldOp::create(b, loc,
                  contribution(b, loc, rebuilt.getInductionVars()));
  return rebuilt;
}

/// The body of a loop over `bounds` (a fold's or a distribute's) cloned
/// at `b` for point `local` of slice `slice` (slices of `sliceLength`
/// points, in row-major order of the box). Where the slices do not divide
/// the box, a point past its end reads the last point instead (every read
/// stays in bounds) and `inRange` is set to whether it is inside; where
/// they do and the box has one dimension, loads take the slice into their
/// index maps (an affine address of the local point, as a shared chunk or
/// a vector run needs). Returns the mapping of the cloned body.
IRMapping cloneSlicePoint(OpBuilder &b, Location loc, Block &body,
                          ArrayRef<int64_t> bounds, Value slice, Value local,
                          int64_t sliceLength, int64_t splits,
                          const IRMapping &outer, Value &inRange) {
  int64_t points = computeProduct(bounds);
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value length = index(sliceLength);
  Value scaled = arith::MulIOp::create(b, loc, slice, length);
  Value point = arith::AddIOp::create(b, loc, scaled, local);
  bool ragged = sliceLength * splits != points;
  inRange = Value();
  if (ragged) {
    inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, point,
                                    index(points));
    point = arith::MinUIOp::create(b, loc, point, index(points - 1));
  }
  SmallVector<Value> ivs = bounds.size() == 1
                               ? SmallVector<Value>{point}
                               : delinearize(b, loc, point, bounds);
  IRMapping mapping = cloneLoopBody(b, body, ivs, outer);
  if (!ragged && bounds.size() == 1) {
    sliceAccessIndices(b.getInsertionBlock()->getParentOp(), point, local,
                     slice, sliceLength, /*start=*/0);
    // Where nothing else reads the point, its computation goes.
    if (point.use_empty()) {
      point.getDefiningOp()->erase();
      scaled.getDefiningOp()->erase();
      length.getDefiningOp()->erase();
    }
  }
  return mapping;
}

/// The contributions of `fold`'s point `local` of slice `slice`
/// (cloneSlicePoint); past the fold's last point, the monoid's identity.
SmallVector<Value> buildSliceContribution(OpBuilder &b, Location loc,
                                          Operation *fold, Value slice,
                                          Value local, int64_t sliceLength,
                                          int64_t splits,
                                          const IRMapping &outer) {
  Block &body = fold->getRegion(0).front();
  Value inRange;
  IRMapping mapping =
      cloneSlicePoint(b, loc, body, getFoldBounds(fold), slice, local,
                      sliceLength, splits, outer, inRange);
  SmallVector<Value> contributions;
  for (auto [v, identity] : llvm::zip(body.getTerminator()->getOperands(),
                                      getFoldIdentities(fold))) {
    Value c = mapping.lookupOrDefault(v);
    if (inRange)
      c = arith::SelectOp::create(
          b, loc, inRange, c,
          arith::ConstantOp::create(b, loc, cast<TypedAttr>(identity)));
    contributions.push_back(c);
  }
  return contributions;
}

/// `distribute`'s slice `slice` of `splits`, at `b`: a distribute over
/// ceil(points / splits) points. A point past the end writes what the
/// last point writes (the same values to the same places).
void buildSlicedDistribute(OpBuilder &b, DistributeOp distribute, Value slice,
                           int64_t splits, const IRMapping &outer) {
  Location loc = distribute.getLoc();
  ArrayRef<int64_t> bounds = distribute.getBounds();
  int64_t sliceLength = llvm::divideCeilSigned(computeProduct(bounds), splits);
  auto sliced = DistributeOp::create(b, loc, {sliceLength});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(sliced.getBody().front().getTerminator());
  Value inRange;
  cloneSlicePoint(b, loc, distribute.getBody().front(), bounds, slice,
                  sliced.getInductionVars()[0], sliceLength, splits, outer,
                  inRange);
}

/// The partial kernel: program instance (s, point) folds slice s of every
/// fold of `kernel` at `point` and stores the states to the workspaces of
/// `groups`, at [s, point, component].
KernelOp buildPartials(OpBuilder &b, KernelOp kernel,
                       ArrayRef<Operation *> folds,
                       ArrayRef<StateGroup> groups, int64_t splits) {
  Location loc = kernel.getLoc();
  SmallVector<int64_t> domain{splits}, tile{1};
  llvm::append_range(domain, kernel.getDomain());
  llvm::append_range(tile, kernel.getTile());
  SmallVector<Type> workspaces;
  for (const StateGroup &group : groups)
    workspaces.push_back(getWorkspaceType(kernel, splits, group));
  auto partials = KernelOp::create(
      b, loc, workspaces, kernel.getInputs(), b.getDenseI64ArrayAttr(domain),
      b.getDenseI64ArrayAttr(tile), b.getI64IntegerAttr(kernel.getThreads()));
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Type> buffers(ValueRange(kernel.getInputBuffers()).getTypes());
  for (Type workspace : workspaces)
    buffers.push_back(getBufferType(cast<RankedTensorType>(workspace)));
  Block *body = b.createBlock(&partials.getBody(), {}, buffers,
                              SmallVector<Location>(buffers.size(), loc));
  IRMapping mapping;
  size_t numInputs = kernel.getInputs().size();
  mapping.map(kernel.getInputBuffers(),
              body->getArguments().take_front(numInputs));
  llvm::SetVector<Value> used;
  for (Operation *fold : folds)
    getUsedValuesDefinedAbove(fold->getRegions(), used);
  cloneShifted(b, kernel, used.getArrayRef(), mapping);
  SmallVector<Value> position;
  for (size_t d = 0; d <= kernel.getDomain().size(); ++d)
    position.push_back(getOrCreatePoint(b, loc, d));
  Value slice = position.front();
  for (Operation *fold : folds) {
    int64_t sliceLength =
        llvm::divideCeilSigned(computeProduct(getFoldBounds(fold)), splits);
    Operation *partial = buildFoldLike(
        b, fold, {sliceLength},
        [&](OpBuilder &nested, Location at, ValueRange ivs) {
          return buildSliceContribution(nested, at, fold, slice, ivs[0],
                                        sliceLength, splits, mapping);
        },
        mapping);
    for (auto [group, workspace] :
         llvm::zip(groups, body->getArguments().drop_front(numInputs))) {
      if (group.fold != fold)
        continue;
      for (auto [component, result] : llvm::enumerate(group.results)) {
        SmallVector<Value> at(position);
        at.push_back(arith::ConstantIndexOp::create(b, loc, component));
        loopir::StoreOp::create(b, loc, partial->getResult(result), workspace,
                                at, AffineMapAttr());
      }
    }
  }
  YieldOp::create(b, loc);
  return partials;
}

/// The kernel that replaces `kernel`: its body, with every fold of `folds`
/// folding the slices' states in `workspaces` instead of its points. Where
/// `sliced`, its domain too gains the slices as a leading dimension: each
/// program instance folds the (few) states of its rows and runs slice s of
/// every distribute (a write-back as long as the folds, now shared by the
/// slices' blocks); the epilogue's other stores write the same values from
/// every slice.
KernelOp buildCombination(OpBuilder &b, KernelOp kernel,
                          ArrayRef<Operation *> folds,
                          ArrayRef<StateGroup> groups, ValueRange workspaces,
                          bool sliced) {
  Location loc = kernel.getLoc();
  OpBuilder::InsertionGuard guard(b);
  IRMapping mapping;
  ValueRange states;
  KernelOp combination =
      createJoinKernel(b, kernel, workspaces, mapping, states);
  Block *body = &combination.getBody().front();
  int64_t splits = cast<RankedTensorType>(workspaces[0].getType()).getDimSize(0);
  unsigned shift = sliced ? 1 : 0;
  if (sliced) {
    SmallVector<int64_t> domain{splits}, tile{1};
    llvm::append_range(domain, kernel.getDomain());
    llvm::append_range(tile, kernel.getTile());
    combination.setDomainAttr(b.getDenseI64ArrayAttr(domain));
    combination.setTileAttr(b.getDenseI64ArrayAttr(tile));
  }
  Block &source = kernel.getBody().front();
  for (Operation &op : source.without_terminator()) {
    if (auto point = dyn_cast<PointOp>(op)) {
      mapping.map(point.getResult(),
                  getOrCreatePoint(b, loc, point.getDim() + shift));
      continue;
    }
    if (auto offset = dyn_cast<TileOffsetOp>(op)) {
      mapping.map(offset.getResult(),
                  TileOffsetOp::create(b, loc, offset.getDim() + shift));
      continue;
    }
    if (auto pid = dyn_cast<ProgramIdOp>(op)) {
      mapping.map(pid.getResult(),
                  ProgramIdOp::create(b, loc, pid.getDim() + shift));
      continue;
    }
    if (auto distribute = dyn_cast<DistributeOp>(op); distribute && sliced) {
      buildSlicedDistribute(b, distribute, getOrCreatePoint(b, loc, 0), splits,
                            mapping);
      continue;
    }
    if (!llvm::is_contained(folds, &op)) {
      b.clone(op, mapping);
      continue;
    }
    SmallVector<Value> position;
    for (size_t d = 0; d < kernel.getDomain().size(); ++d)
      position.push_back(getOrCreatePoint(b, loc, d + shift));
    auto contribution = [&](OpBuilder &nested, Location at, ValueRange ivs) {
      SmallVector<Value> state(op.getNumResults());
      for (auto [group, workspace] : llvm::zip(groups, states)) {
        if (group.fold != &op)
          continue;
        for (auto [component, result] : llvm::enumerate(group.results)) {
          SmallVector<Value> indices{ivs[0]};
          llvm::append_range(indices, position);
          indices.push_back(
              arith::ConstantIndexOp::create(nested, at, component));
          state[result] = loopir::LoadOp::create(nested, at, workspace,
                                                 indices, AffineMapAttr());
        }
      }
      return state;
    };
    Operation *combined = buildFoldLike(b, &op, {splits}, contribution, mapping);
    mapping.map(op.getResults(), combined->getResults());
  }
  YieldOp::create(b, loc);
  // The values only the original folds read go.
  SmallVector<Operation *> ops;
  for (Operation &op : body->without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (isOpTriviallyDead(op))
      op->erase();
  return combination;
}
} // namespace

FailureOr<int64_t> strata::tileir::chooseFoldSplits(KernelOp kernel,
                                                    int64_t forced,
                                                    int64_t minPrograms) {
  if (kernel.getProgramKind() != ProgramKind::Row)
    return 1;
  SmallVector<Operation *> folds = getFolds(kernel);
  if (folds.empty())
    return 1;
  // A scan's prefixes need every point before them: its row stays whole.
  if (llvm::any_of(kernel.getBody().front(),
                   llvm::IsaPred<ScanOp, CompositeScanOp>)) {
    if (forced > 1)
      return kernel.emitError("a kernel with a tileir.scan keeps its rows "
                              "whole: it does not split into ")
             << forced << " slices";
    return 1;
  }
  int64_t longest = 0, bytes = 0;
  for (Operation *fold : folds) {
    int64_t points = computeProduct(getFoldBounds(fold));
    longest = std::max(longest, points);
    bytes += points * getBytesPerPoint(fold);
  }
  bool independent = llvm::all_of(
      folds, [&](Operation *fold) { return readsOnlyInputs(kernel, fold); });
  // A Q tile's rows share each chunk of keys only while a key's address is
  // an affine function of the fold's point: slices that divide every
  // (one-dimensional) fold (splitFolds keeps such loads affine).
  bool qTiled = isQTiled(kernel);
  int64_t common = 0;
  for (Operation *fold : folds)
    common = getFoldBounds(fold).size() == 1
                 ? std::gcd(common, computeProduct(getFoldBounds(fold)))
                 : 1;
  if (forced) {
    if (forced == 1)
      return 1;
    if (!independent)
      return kernel.emitError("the folds of this kernel read another "
                              "fold's or a distribute's results: they "
                              "cannot be split into ")
             << forced << " slices";
    if (forced > longest)
      return kernel.emitError("the longest fold has ")
             << longest << " points: it does not split into " << forced
             << " slices";
    if (qTiled && common % forced != 0)
      return kernel.emitError("a Q-tiled row program's folds split only "
                              "into slices that divide their points (")
             << common << "), not into " << forced;
    return forced;
  }
  int64_t programs = computeProduct(kernel.getGrid());
  if (!independent || programs >= minPrograms)
    return 1;
  int64_t most = std::min<int64_t>(
      {llvm::divideCeilSigned(minPrograms, programs), kMaxFoldSplits,
       bytes / kMinSliceBytes, longest});
  if (most < 2)
    return 1;
  if (qTiled) {
    for (int64_t splits = most; splits >= 2; --splits)
      if (common % splits == 0)
        return splits;
    return 1;
  }
  // Slices that divide the longest fold keep its points' addresses affine
  // (no clamped last slice), where they keep at least half the slices.
  for (int64_t splits = most; 2 * splits >= most && splits >= 2; --splits)
    if (longest % splits == 0)
      return splits;
  return most;
}

void strata::tileir::splitFolds(OpBuilder &b, KernelOp kernel,
                                int64_t splits) {
  SmallVector<Operation *> folds = getFolds(kernel);
  assert(!folds.empty() && splits > 1 &&
         "chooseFoldSplits decides what can be split");
  b.setInsertionPoint(kernel);
  SmallVector<StateGroup> groups = getStateGroups(folds);
  KernelOp partials = buildPartials(b, kernel, folds, groups, splits);
  bool distributes = llvm::any_of(kernel.getBody().front(),
                                  llvm::IsaPred<DistributeOp>);
  KernelOp combination = buildCombination(b, kernel, folds, groups,
                                          partials.getResults(), distributes);
  dropUnusedInputs(partials);
  dropUnusedInputs(combination);
  // The combination's folds read S states of each row's own, no longer a
  // chunk its rows share: its tile is tileir-tile's for what it now is
  // (several short rows per block, not a Q tile), from the trivial
  // schedule's one row and one warp.
  retileJoinKernel(combination, kWarpSize);
  kernel.replaceAllUsesWith(combination.getResults());
  kernel.erase();
}

namespace {
struct TileIRSplitFoldsPass
    : strata::tileir::impl::TileIRSplitFoldsPassBase<TileIRSplitFoldsPass> {
  using TileIRSplitFoldsPassBase::TileIRSplitFoldsPassBase;

  void runOnOperation() override {
    auto choose = [&](KernelOp kernel) {
      return chooseFoldSplits(kernel, splits, minPrograms);
    };
    if (failed(splitKernels(getOperation(), getArgument(), splits, minPrograms,
                            choose, splitFolds)))
      signalPassFailure();
  }
};
} // namespace
