// The row programs' translation: a thread group per row of a cooperative
// kernel, sharing the row's folds (tileir.fold, tileir.composite_fold) and
// loops (tileir.distribute); scans (CooperativeScan.cpp), shared chunks
// (SharedChunkFold.cpp), folds split by components (ComponentSplitFold.cpp)
// and runs and row caches (VectorRuns.cpp) are its other rooms.

#include "RowProgramTranslator.h"
#include "BlockCombine.h"
#include "strata/Conversion/LoopIRCommon/ScalarLoops.h"
#include "strata/Dialect/Utils/LoopBox.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace strata;
using namespace strata::detail;

void RowProgramTranslator::prepare() {
  assignThreadGroups();
  planSharedChunks();
  planRowCaches();
}

void RowProgramTranslator::beforeTopLevelOp(Operation &op) {
  gatherBeforeUse(op);
}

LogicalResult RowProgramTranslator::translateProgramOp(Operation &op) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case([&](tileir::FoldOp fold) { return translateFold(fold); })
      .Case([&](tileir::CompositeFoldOp fold) {
        return translateCompositeFold(fold);
      })
      .Case(
          [&](tileir::DistributeOp loop) { return translateDistribute(loop); })
      .Case([&](tileir::ScanOp scan) { return translateScan(scan); })
      .Case([&](tileir::CompositeScanOp scan) {
        return translateCompositeScan(scan);
      })
      .Default([&](Operation *other) {
        return other->emitError("cannot lower this op to kernelir yet");
      });
}

void RowProgramTranslator::assignThreadGroups() {
  Location loc = kernel.getLoc();
  ArrayRef<int64_t> tile = kernel.getTile();
  groups = computeProduct(tile);
  groupThreads = kernel.getThreads() / groups;
  if (groups == 1) {
    groupPoint = programIds;
    return;
  }
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  group = arith::DivUIOp::create(b, loc, thread, index(groupThreads));
  groupThread = arith::RemUIOp::create(b, loc, thread, index(groupThreads));
  SmallVector<Value> inTile = delinearize(b, loc, group, tile);
  for (auto [d, size] : llvm::enumerate(tile)) {
    Value point = programIds[d];
    if (size > 1)
      point = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, point, index(size)), inTile[d]);
    int64_t extent = kernel.getDomain()[d];
    if (extent % size != 0) {
      // The last program instance has groups past the domain: they run the
      // domain's last row (every read stays in bounds, and they take part
      // in the block's barriers and staging) and write nothing.
      Value last = index(extent - 1);
      Value inside =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, point, last);
      rowInDomain = rowInDomain
                        ? arith::AndIOp::create(b, loc, rowInDomain, inside)
                        : inside;
      point = arith::MinUIOp::create(b, loc, point, last);
    }
    groupPoint.push_back(point);
  }
}

scf::ForOp RowProgramTranslator::groupStridedLoop(
    Location loc, ArrayRef<int64_t> bounds, ValueRange init,
    function_ref<SmallVector<Value>(ValueRange, ValueRange)> body,
    int64_t width) {
  Value end =
      arith::ConstantIndexOp::create(b, loc, computeProduct(bounds) / width);
  Value step = arith::ConstantIndexOp::create(b, loc, groupThreads);
  return buildLoop(
      loc, groupThread, end, step, init, [&](Value run, ValueRange carried) {
        Value first = run;
        if (width > 1)
          first = arith::MulIOp::create(
              b, loc, run, arith::ConstantIndexOp::create(b, loc, width));
        return body(delinearize(b, loc, first, bounds), carried);
      });
}

SmallVector<IRMapping> RowProgramTranslator::clonePoints(Block &body,
                                                         ValueRange first,
                                                         int64_t width) {
  if (width > 1)
    return cloneRun(body, first, width);
  return {cloneLoopBody(b, body, first, mapping)};
}

KernelMonoid
RowProgramTranslator::combinerMonoid(ArrayRef<tileir::Combiner> combiners,
                                     TypeRange types) {
  SmallVector<MonoidKind> kinds;
  for (tileir::Combiner c : combiners)
    kinds.push_back(tileir::FoldOp::getMonoidKind(c));
  return KernelMonoid::primitive(kinds, types);
}

LogicalResult RowProgramTranslator::translateFold(tileir::FoldOp fold) {
  return translateCooperativeFold(
      fold, combinerMonoid(fold.getCombinerList(), fold.getResultTypes()),
      fold.getBody().front(), fold.getBounds());
}

KernelMonoid RowProgramTranslator::regionMonoid(ArrayAttr identities,
                                                Block *combine) {
  KernelMonoid monoid;
  for (Attribute identity : identities)
    monoid.identity.push_back(cast<TypedAttr>(identity));
  // The region may use kernel-level values (constants hoisted out of it).
  monoid.combine = [this, combine](OpBuilder &b, Location loc, ValueRange x,
                                   ValueRange y) {
    IRMapping args = mapping;
    args.map(combine->getArguments().take_front(x.size()), x);
    args.map(combine->getArguments().drop_front(x.size()), y);
    for (Operation &op : combine->without_terminator())
      b.clone(op, args);
    SmallVector<Value> result;
    for (Value v : combine->getTerminator()->getOperands())
      result.push_back(args.lookupOrDefault(v));
    return result;
  };
  return monoid;
}

LogicalResult
RowProgramTranslator::translateCompositeFold(tileir::CompositeFoldOp fold) {
  return translateCooperativeFold(
      fold, regionMonoid(fold.getIdentities(), &fold.getCombine().front()),
      fold.getBody().front(), fold.getBounds());
}

LogicalResult RowProgramTranslator::translateCooperativeFold(
    Operation *fold, const KernelMonoid &monoid, Block &body,
    ArrayRef<int64_t> bounds) {
  Location loc = fold->getLoc();
  if (failed(verifyCooperativeGroup(fold, "fold")))
    return failure();
  auto chunks = sharedChunks.find(fold);
  if (chunks != sharedChunks.end())
    return translateChunkedFold(fold, monoid, body, bounds, chunks->second);
  if (translateSplitFold(fold, body, bounds))
    return success();
  SmallVector<Value> init;
  for (TypedAttr identity : monoid.identity)
    init.push_back(arith::ConstantOp::create(b, loc, identity));
  int64_t width = chooseRunWidth(body, bounds);
  auto loop = groupStridedLoop(
      loc, bounds, init,
      [&](ValueRange first, ValueRange acc) {
        SmallVector<Value> next(acc);
        for (IRMapping &point : clonePoints(body, first, width)) {
          SmallVector<Value> contribution;
          for (Value x : body.getTerminator()->getOperands())
            contribution.push_back(point.lookupOrDefault(x));
          next = monoid.combine(b, loc, next, contribution);
        }
        return next;
      },
      width);
  mapping.map(fold->getResults(),
              combineAcrossBlock(b, loc, *entry, groupThread, groupThreads,
                                 monoid, loop.getResults()));
  return success();
}

LogicalResult RowProgramTranslator::verifyCooperativeGroup(Operation *op,
                                                           StringRef what) {
  bool subWarp = groupThreads < kWarpSize && llvm::isPowerOf2_64(groupThreads);
  if (groupThreads % kWarpSize != 0 && !subWarp)
    return op->emitError("a cooperative ")
           << what << " needs a power of two below " << kWarpSize
           << " or a whole number of warps per row, but the kernel has "
           << groupThreads << " threads per row";
  if (groupThreads > kWarpSize && groupThreads != (int64_t)kernel.getThreads())
    return op->emitError("with several rows per program instance each "
                         "row takes at most one warp, but the kernel "
                         "gives each ")
           << groupThreads << " threads";
  return success();
}

LogicalResult
RowProgramTranslator::translateDistribute(tileir::DistributeOp loop) {
  Block &body = loop.getBody().front();
  int64_t width = chooseRunWidth(body, loop.getBounds());
  // A group past the domain writes nothing (a distribute has no barrier).
  OpBuilder::InsertionGuard guard(b);
  if (rowInDomain) {
    auto inside = scf::IfOp::create(b, loop.getLoc(), TypeRange{}, rowInDomain,
                                    /*withElseRegion=*/false);
    b.setInsertionPoint(inside.thenBlock()->getTerminator());
  }
  groupStridedLoop(
      loop.getLoc(), loop.getBounds(), {},
      [&](ValueRange first, ValueRange) {
        clonePoints(body, first, width);
        return SmallVector<Value>();
      },
      width);
  return success();
}
