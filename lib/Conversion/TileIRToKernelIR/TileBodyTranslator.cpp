// The tile body translation: program ids, tile loads, maps and stores,
// generic points, and the cooperative folds and loops of row programs.

#include "TileBodyTranslator.h"
#include "strata/Dialect/Utils/LoopBox.h"
#include "BlockCombine.h"
#include "strata/Conversion/LoopIRCommon/ScalarLoops.h"
#include "strata/Dialect/Utils/ElementStorage.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace strata;
using namespace strata::detail;

LogicalResult TileBodyTranslator::translate(kernelir::FuncOp func) {
  Block &source = kernel.getBody().front();
  Location loc = kernel.getLoc();
  mapping.map(source.getArguments(), func.getArguments());
  Value block = kernelir::BlockIdOp::create(b, loc, kernelir::Dim::x);
  entry = &func.getBody().front();
  thread = kernelir::ThreadIdOp::create(b, loc, kernelir::Dim::x);
  programIds = delinearize(b, loc, block, kernel.getGrid());
  groupThread = thread; // One group unless the kernel is cooperative.
  if (kernel.isCooperative())
    assignThreadGroups();
  contraction = chooseContractionLowering(*this);
  if (contraction && contraction->assignElements())
    return translateOps(source);
  // Thread t owns runs of `vectorWidth` neighbouring elements: run r is
  // elements (r * threads + t) * vectorWidth + 0, 1, ..., so neighbouring
  // threads still touch neighbouring addresses.
  vectorWidth = chooseVectorWidth();
  int64_t threads = kernel.getThreads();
  Value first = thread;
  if (vectorWidth > 1)
    first = arith::MulIOp::create(
        b, loc, thread, arith::ConstantIndexOp::create(b, loc, vectorWidth));
  for (int64_t k = 0; k < elementsPerThread; ++k) {
    int64_t offset =
        (k / vectorWidth) * threads * vectorWidth + k % vectorWidth;
    Value element = first;
    if (offset > 0)
      element = arith::AddIOp::create(
          b, loc, first, arith::ConstantIndexOp::create(b, loc, offset));
    elementCoords.push_back(delinearize(b, loc, element, kernel.getTile()));
  }
  planSharedChunks();
  planRowCaches();
  return translateOps(source);
}

void TileBodyTranslator::assignThreadGroups() {
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
      Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                           point, last);
      rowInDomain = rowInDomain
                        ? arith::AndIOp::create(b, loc, rowInDomain, inside)
                        : inside;
      point = arith::MinUIOp::create(b, loc, point, last);
    }
    groupPoint.push_back(point);
  }
}

/// Whether the tile access through `map` to `buffer` reads a row run for
/// runs of `width` points along the tile's innermost dimension.
static bool isVectorAccess(AffineMap map, MemRefType buffer, int64_t width) {
  unsigned inner = map.getNumDims() - 1;
  return isRowRun(
      map, [&](unsigned d) { return d == inner; }, buffer, width);
}

int64_t TileBodyTranslator::chooseVectorWidth() {
  SmallVector<std::pair<AffineMap, MemRefType>> accesses = tileAccesses(kernel);
  // The widest vector whose accesses stay within kMaxVectorBits for every
  // buffer, and whose runs neither straddle the tile nor the domain's edge
  // (so one guard covers a whole run).
  int64_t width =
      maxVectorWidth(llvm::to_vector(llvm::make_second_range(accesses)));
  for (; width > 1; width /= 2) {
    if (kernel.getTile().back() % width != 0 ||
        kernel.getDomain().back() % width != 0 ||
        elementsPerThread % width != 0)
      continue;
    if (llvm::any_of(accesses, [&](auto access) {
          return isVectorAccess(access.first, access.second, width);
        }))
      return width;
  }
  return 1;
}

LogicalResult TileBodyTranslator::translateOps(Block &source) {
  // Scalar arithmetic is translated where it is first used, not where it
  // stands: an epilogue written as all its values, then all its stores,
  // keeps one value live per store otherwise (attention's output row: 128
  // values of every thread at once).
  llvm::SmallPtrSet<Operation *, 32> deferred;
  for (Operation &op : source.without_terminator())
    if (isa<arith::ArithDialect, math::MathDialect>(op.getDialect()) &&
        !op.hasTrait<OpTrait::ConstantLike>() && op.getNumRegions() == 0 &&
        isMemoryEffectFree(&op) &&
        llvm::none_of(op.getResultTypes(), llvm::IsaPred<tileir::TileType>))
      deferred.insert(&op);
  std::function<LogicalResult(Operation &)> emit = [&](Operation &op) {
    SmallVector<Operation *> producers;
    op.walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if (Operation *def = v.getDefiningOp(); def && deferred.contains(def))
          producers.push_back(def);
    });
    // Each producer once, and before this op (one producer may already be
    // another's: it is taken off the list when emitted, not when listed).
    for (Operation *def : producers)
      if (deferred.erase(def) && failed(emit(*def)))
        return failure();
    return translateOp(op);
  };
  for (Operation &op : source.without_terminator())
    if (!deferred.contains(&op) && failed(emit(op)))
      return failure();
  // What no op of the block used (the terminator may, or nothing).
  for (Operation &op : source.without_terminator())
    if (deferred.erase(&op) && failed(emit(op)))
      return failure();
  return success();
}

LogicalResult TileBodyTranslator::translateOp(Operation &op) {
  if (op.getBlock() == &kernel.getBody().front())
    gatherBeforeUse(op);
  if (auto pid = dyn_cast<tileir::ProgramIdOp>(op)) {
    mapping.map(pid.getResult(), programIds[pid.getDim()]);
    return success();
  }
  if (auto point = dyn_cast<tileir::PointOp>(op)) {
    mapping.map(point.getResult(), groupPoint[point.getDim()]);
    return success();
  }
  if (auto offset = dyn_cast<tileir::TileOffsetOp>(op)) {
    int64_t size = kernel.getTile()[offset.getDim()];
    Value id = programIds[offset.getDim()];
    mapping.map(offset.getResult(),
                size == 1
                    ? id
                    : arith::MulIOp::create(b, op.getLoc(), id,
                                            arith::ConstantIndexOp::create(
                                                b, op.getLoc(), size)));
    return success();
  }
  if (isa<tileir::TileIRDialect>(op.getDialect()))
    return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
        .Case([&](tileir::LoadOp load) { return translateLoad(load); })
        .Case([&](tileir::CoordinateOp coordinate) {
          return translateCoordinate(coordinate);
        })
        .Case([&](tileir::StoreOp store) { return translateStore(store); })
        .Case([&](tileir::MapOp map) { return translateMap(map); })
        .Case([&](tileir::ForEachPointOp points) {
          return translatePoints(points);
        })
        .Case([&](tileir::FoldOp fold) { return translateFold(fold); })
        .Case([&](tileir::CompositeFoldOp fold) {
          return translateCompositeFold(fold);
        })
        .Case([&](tileir::DistributeOp loop) {
          return translateDistribute(loop);
        })
        .Case([&](tileir::ScanOp scan) { return translateScan(scan); })
        .Case([&](tileir::CompositeScanOp scan) {
          return translateCompositeScan(scan);
        })
        .Case([&](tileir::ContractOp contract) {
          return contraction->lower(contract);
        })
        .Default([&](Operation *other) {
          return other->emitError("cannot lower this op to kernelir yet");
        });
  bool touchesTiles =
      llvm::any_of(op.getOperandTypes(), llvm::IsaPred<tileir::TileType>) ||
      llvm::any_of(op.getResultTypes(), llvm::IsaPred<tileir::TileType>);
  // Scalar Loop IR (a reduction one thread runs) is lowered by the
  // conversion's patterns after the translation.
  bool scalarLoops = isa<loopir::ReduceOp, loopir::ParallelOp>(op);
  if (touchesTiles || (op.getNumRegions() != 0 && !scalarLoops))
    return op.emitError("cannot lower this op to kernelir yet");
  if (isa<loopir::StoreOp>(op)) {
    // Uniform code of a cooperative kernel: one thread of the group writes
    // the row's value, the others would write the same one.
    OpBuilder::InsertionGuard guard(b);
    Value zero = arith::ConstantIndexOp::create(b, op.getLoc(), 0);
    Value first = arith::CmpIOp::create(
        b, op.getLoc(), arith::CmpIPredicate::eq, groupThread, zero);
    if (rowInDomain)
      first = arith::AndIOp::create(b, op.getLoc(), first, rowInDomain);
    auto ifOp = scf::IfOp::create(b, op.getLoc(), TypeRange{}, first,
                                  /*withElseRegion=*/false);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    b.clone(op, mapping);
    return success();
  }
  b.clone(op, mapping); // Scalar work shared by all elements or threads.
  return success();
}

scf::ForOp TileBodyTranslator::groupStridedLoop(
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

SmallVector<IRMapping>
TileBodyTranslator::clonePoints(Block &body, ValueRange first, int64_t width) {
  if (width > 1)
    return cloneRun(body, first, width);
  return {cloneLoopBody(b, body, first, mapping)};
}

KernelMonoid
TileBodyTranslator::combinerMonoid(ArrayRef<tileir::Combiner> combiners,
                                   TypeRange types) {
  SmallVector<MonoidKind> kinds;
  for (tileir::Combiner c : combiners)
    kinds.push_back(tileir::FoldOp::getMonoidKind(c));
  return KernelMonoid::primitive(kinds, types);
}

LogicalResult TileBodyTranslator::translateFold(tileir::FoldOp fold) {
  return translateCooperativeFold(
      fold, combinerMonoid(fold.getCombinerList(), fold.getResultTypes()),
      fold.getBody().front(), fold.getBounds());
}

KernelMonoid TileBodyTranslator::regionMonoid(ArrayAttr identities,
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
TileBodyTranslator::translateCompositeFold(tileir::CompositeFoldOp fold) {
  return translateCooperativeFold(
      fold, regionMonoid(fold.getIdentities(), &fold.getCombine().front()),
      fold.getBody().front(), fold.getBounds());
}

LogicalResult TileBodyTranslator::translateCooperativeFold(
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

LogicalResult TileBodyTranslator::verifyCooperativeGroup(Operation *op,
                                                         StringRef what) {
  bool subWarp = groupThreads < kWarpSize && llvm::isPowerOf2_64(groupThreads);
  if (groupThreads % kWarpSize != 0 && !subWarp)
    return op->emitError("a cooperative ")
           << what
           << " needs a power of two below 32 or a whole number of warps "
              "per row, but the kernel has "
           << groupThreads << " threads per row";
  if (groupThreads > kWarpSize && groupThreads != (int64_t)kernel.getThreads())
    return op->emitError("with several rows per program instance each "
                         "row takes at most one warp, but the kernel "
                         "gives each ")
           << groupThreads << " threads";
  return success();
}

LogicalResult
TileBodyTranslator::translateDistribute(tileir::DistributeOp loop) {
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

int64_t TileBodyTranslator::runWidth(AffineMap map, Value buffer) {
  if (vectorWidth > 1 &&
      isVectorAccess(map, cast<MemRefType>(buffer.getType()), vectorWidth))
    return vectorWidth;
  return 1;
}

LogicalResult TileBodyTranslator::translateLoad(tileir::LoadOp load) {
  Location loc = load.getLoc();
  Value buffer = mapping.lookup(load.getMemref());
  int64_t width = runWidth(load.getIndexMap(), buffer);
  auto &elements = scalars[load.getResult()];
  for (int64_t k = 0; k < elementsPerThread; k += width) {
    auto [indices, inside] =
        access(loc, load.getOrigin(), load.getIndexMap(), k);
    if (width == 1) {
      elements.push_back(
          kernelir::LoadOp::create(b, loc, buffer, indices, inside));
      continue;
    }
    auto type = VectorType::get(
        {width}, cast<MemRefType>(buffer.getType()).getElementType());
    Value run = kernelir::LoadOp::create(b, loc, type, buffer, indices, inside);
    for (int64_t lane = 0; lane < width; ++lane)
      elements.push_back(vector::ExtractOp::create(b, loc, run, lane));
  }
  return success();
}

LogicalResult
TileBodyTranslator::translateCoordinate(tileir::CoordinateOp coordinate) {
  if ((int64_t)elementCoords.size() != elementsPerThread)
    return coordinate.emitError("tile coordinates need a kernel whose threads "
                                "own elements of the tile");
  Value offset = mapping.lookup(coordinate.getOffset());
  auto &elements = scalars[coordinate.getResult()];
  for (int64_t k = 0; k < elementsPerThread; ++k)
    elements.push_back(arith::AddIOp::create(
        b, coordinate.getLoc(), offset, elementCoords[k][coordinate.getDim()]));
  return success();
}

LogicalResult TileBodyTranslator::translateStore(tileir::StoreOp store) {
  Location loc = store.getLoc();
  Value buffer = mapping.lookup(store.getMemref());
  int64_t width = runWidth(store.getIndexMap(), buffer);
  ArrayRef<Value> elements = scalars[store.getValue()];
  for (int64_t k = 0; k < elementsPerThread; k += width) {
    auto [indices, inside] =
        access(loc, store.getOrigin(), store.getIndexMap(), k);
    Value value = elements[k];
    if (width > 1)
      value = vector::FromElementsOp::create(
          b, loc,
          VectorType::get({width},
                          cast<MemRefType>(buffer.getType()).getElementType()),
          elements.slice(k, width));
    kernelir::StoreOp::create(b, loc, value, buffer, indices, inside);
  }
  return success();
}

LogicalResult TileBodyTranslator::translateMap(tileir::MapOp map) {
  Block &body = map.getBody().front();
  auto yield = cast<tileir::YieldOp>(body.getTerminator());
  for (int64_t k = 0; k < elementsPerThread; ++k) {
    IRMapping element = mapping;
    for (auto [arg, input] : llvm::zip(body.getArguments(), map.getInputs()))
      element.map(arg, scalars[input][k]);
    for (Operation &inner : body.without_terminator()) {
      if (inner.getNumRegions() != 0)
        return inner.emitError("cannot lower ops with regions in a "
                               "tileir.map yet");
      b.clone(inner, element);
    }
    for (auto [result, value] : llvm::zip(map.getResults(), yield.getValues()))
      scalars[result].push_back(element.lookupOrDefault(value));
  }
  return success();
}

LogicalResult
TileBodyTranslator::translatePoints(tileir::ForEachPointOp points) {
  Block &body = points.getBody().front();
  Location loc = points.getLoc();
  for (int64_t k = 0; k < elementsPerThread; ++k) {
    auto [coords, inside] = access(loc, points.getOrigin(),
                                   AffineMap::getMultiDimIdentityMap(
                                       body.getNumArguments(), b.getContext()),
                                   k);
    OpBuilder::InsertionGuard guard(b);
    if (inside) {
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, inside,
                                    /*withElseRegion=*/false);
      b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    }
    cloneLoopBody(b, body, coords, mapping);
  }
  return success();
}

std::pair<SmallVector<Value>, Value>
TileBodyTranslator::access(Location loc, ValueRange origin, AffineMap map,
                           int64_t k) {
  SmallVector<Value> coords;
  Value inside;
  for (auto [d, o] : llvm::enumerate(origin)) {
    Value c =
        arith::AddIOp::create(b, loc, mapping.lookup(o), elementCoords[k][d]);
    coords.push_back(c);
    // Only dimensions the tile can overhang need a bound check.
    int64_t extent = kernel.getDomain()[d];
    if (extent % kernel.getTile()[d] == 0)
      continue;
    Value bound = arith::ConstantIndexOp::create(b, loc, extent);
    Value ok =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, c, bound);
    inside = inside ? arith::AndIOp::create(b, loc, inside, ok) : ok;
  }
  SmallVector<Value> indices = *affine::expandAffineMap(b, loc, map, coords);
  return {indices, inside};
}
