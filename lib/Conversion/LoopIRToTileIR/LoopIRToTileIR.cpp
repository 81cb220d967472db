// Schedules loop kernels as tile programs. The elementwise schedule: the
// parallel loop nest becomes the kernel's domain, loads and stores become
// masked tile accesses, and the scalar computation between them becomes one
// tileir.map. The row schedule lives in RowSchedule.cpp; the generic one at
// the end of this file.

#include "TileKernelBuilder.h"
#include "strata/Conversion/Passes.h"
#include "strata/Dialect/Utils/VerifyUtils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/MapVector.h"

namespace strata {
#define GEN_PASS_DEF_CONVERTLOOPIRTOTILEIRPASS
#include "strata/Conversion/Passes.h.inc"
} // namespace strata

using namespace mlir;
using namespace strata;

namespace {

/// Rewrites an access map over `indices` as a map over the loop indices
/// (a domain of `domainRank` dimensions; one unit dimension for a 0-d
/// nest): each index must be one of the loop indices or a constant.
FailureOr<AffineMap> mapOverLoopIndices(Operation *access, AffineMap map,
                                        ValueRange indices, ValueRange ivs,
                                        unsigned domainRank) {
  MLIRContext *ctx = access->getContext();
  SmallVector<AffineExpr> select;
  for (Value index : indices) {
    if (std::optional<int64_t> c = getConstantIntValue(index)) {
      select.push_back(getAffineConstantExpr(*c, ctx));
      continue;
    }
    auto it = llvm::find(ivs, index);
    if (it == ivs.end())
      return failure(); // A computed address: the generic schedule's job.
    select.push_back(getAffineDimExpr(it - ivs.begin(), ctx));
  }
  auto selection = AffineMap::get(domainRank, 0, select, ctx);
  return map.compose(selection);
}

/// `load` (read point by point inside a tileir.map) with its indices kept
/// inside its buffer: a tile's elements past the domain's edge compute
/// addresses from coordinates past it, and read the padding (zero unless
/// the load has its own) instead of memory outside the buffer.
void guardInBuffer(OpBuilder &b, loopir::LoadOp load) {
  AffineMap map = load.getIndexMap();
  SmallVector<AffineExpr> constraints;
  SmallVector<bool> equalities;
  if (std::optional<IntegerSet> guard = load.getGuard()) {
    llvm::append_range(constraints, guard->getConstraints());
    llvm::append_range(equalities, guard->getEqFlags());
  }
  ArrayRef<int64_t> shape = load.getMemref().getType().getShape();
  for (auto [expr, size] : llvm::zip(map.getResults(), shape)) {
    constraints.push_back(expr);
    constraints.push_back(size - 1 - expr);
    equalities.append(2, false);
  }
  load.setGuardAttr(IntegerSetAttr::get(
      IntegerSet::get(map.getNumDims(), 0, constraints, equalities)));
  if (!load.getPaddingAttr())
    load.setPaddingAttr(cast<TypedAttr>(b.getZeroAttr(load.getType())));
}

/// The op classes a schedulable loop body may contain besides loads/stores.
bool isScalarComputation(Operation *op) {
  return op->getNumRegions() == 0 && isPure(op) &&
         llvm::all_of(op->getResultTypes(),
                      [](Type t) { return t.isIntOrIndexOrFloat(); });
}

struct KernelToTileProgram : OpConversionPattern<loopir::KernelOp> {
  KernelToTileProgram(MLIRContext *ctx, TileSchedule schedule)
      : OpConversionPattern(ctx), schedule(schedule) {}

  LogicalResult
  matchAndRewrite(loopir::KernelOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // The body is a preamble of scalar values shared by all iterations
    // (constants hoisted by canonicalization) and parallel loop nests.
    Block &kernelBody = op.getBody().front();
    SmallVector<Operation *> preamble;
    SmallVector<loopir::ParallelOp> nests;
    for (Operation &inner : kernelBody.without_terminator()) {
      if (nests.empty() && isScalarComputation(&inner)) {
        preamble.push_back(&inner);
        continue;
      }
      auto nest = dyn_cast<loopir::ParallelOp>(inner);
      if (!nest)
        return inner.emitError("can only schedule a kernel made of scalar "
                               "values and loopir.parallel nests");
      nests.push_back(nest);
    }
    if (nests.empty())
      return op.emitError("kernel has no loopir.parallel nest to schedule");
    TileSchedule forced = schedule;
    bool isAuto = forced == TileSchedule::Auto;
    if (nests.size() > 1 && !isAuto && forced != TileSchedule::Generic)
      return op.emitError("the ")
             << stringifyTileSchedule(forced)
             << " schedule needs a kernel of one loop nest, this one has "
             << nests.size();
    if (nests.size() > 1 || forced == TileSchedule::Generic)
      return buildGeneric(op, adaptor, rewriter, preamble, nests);
    loopir::ParallelOp loop = nests.front();
    // A prefix scan is a row program of its own (the row schedule's, or
    // the default's).
    if (forced == TileSchedule::Row || isAuto)
      if (std::optional<loopir::PrefixScan> scan = matchScanSchedule(loop)) {
        rewriter.replaceOp(op,
                           buildScanProgram(rewriter, op, adaptor.getInputs(),
                                            preamble, loop, *scan)
                               ->getResults());
        return success();
      }
    std::optional<ContractionMatch> contraction = matchContraction(loop);
    if (forced == TileSchedule::Contraction && !contraction)
      return op.emitError("the contraction schedule needs a loop nest of "
                          "rows and columns whose body sums over one index "
                          "f32 products of a factor free of the columns and "
                          "one free of the rows");
    bool contract = forced == TileSchedule::Contraction ||
                    (isAuto && contraction && prefersContraction(loop));
    if (!contract)
      contraction.reset();
    if (forced == TileSchedule::Row ||
        (isAuto && !contract && prefersRowSchedule(loop))) {
      FailureOr<tileir::KernelOp> rows =
          buildRowProgram(rewriter, op, adaptor.getInputs(), preamble, loop);
      if (failed(rows))
        return failure();
      rewriter.replaceOp(op, rows->getResults());
      return success();
    }
    // Kernels the elementwise schedule (or a contraction's elementwise
    // epilogue) cannot take get the generic one.
    auto fallBack = [&]() -> LogicalResult {
      if (forced == TileSchedule::Elementwise)
        return op.emitError("the elementwise schedule needs one loop nest of "
                            "loads, scalar math and stores addressed by its "
                            "indices");
      if (forced == TileSchedule::Contraction)
        return op.emitError("the contraction schedule needs an epilogue of "
                            "loads, scalar math and stores addressed by the "
                            "loop indices");
      return buildGeneric(op, adaptor, rewriter, preamble, nests);
    };
    // The reduction of a contraction becomes a tileir.contract; the rest of
    // the body is its epilogue.
    llvm::SmallPtrSet<Operation *, 8> contracted;
    if (contraction) {
      contracted.insert(contraction->reduce);
      contracted.insert(contraction->prologue.begin(),
                        contraction->prologue.end());
    }
    // A 0-d loop nest runs once: give it a one-element domain.
    SmallVector<int64_t> domain(loop.getBounds());
    unsigned rank = std::max<size_t>(domain.size(), 1);
    if (domain.empty())
      domain.push_back(1);

    // The elementwise schedule needs a body of loads, scalar math and
    // stores addressed by the loop indices. Index arithmetic takes the
    // indices as tiles of coordinates, and loads it cannot address as
    // tiles (computed addresses, guards) read point by point inside the
    // map; anything else (reductions, nested loops, stores to computed
    // addresses) gets the generic schedule.
    ValueRange ivs = loop.getInductionVars();
    auto accessMap = [&](auto access) -> FailureOr<AffineMap> {
      return mapOverLoopIndices(access, access.getIndexMap(),
                                access.getIndices(), ivs, rank);
    };
    auto definedInBody = [&](Value v) {
      return v.getParentRegion() == &loop.getBody() ||
             llvm::is_contained(ivs, v) ||
             llvm::is_contained(preamble, v.getDefiningOp());
    };
    DenseMap<Operation *, AffineMap> domainMaps;
    llvm::SmallPtrSet<Operation *, 4> pointLoads;
    for (Operation &inner : loop.getBody().front().without_terminator()) {
      if (contracted.contains(&inner))
        continue;
      if (auto load = dyn_cast<loopir::LoadOp>(inner)) {
        // Tile loads have no guard of their own.
        FailureOr<AffineMap> map = accessMap(load);
        if (succeeded(map) && !load.getGuard()) {
          domainMaps[&inner] = *map;
          continue;
        }
        if (!llvm::all_of(load.getIndices(), definedInBody))
          return fallBack();
        pointLoads.insert(&inner);
        continue;
      }
      if (auto store = dyn_cast<loopir::StoreOp>(inner)) {
        FailureOr<AffineMap> map = accessMap(store);
        if (failed(map))
          return fallBack();
        domainMaps[&inner] = *map;
        continue;
      }
      if (!isScalarComputation(&inner) ||
          !llvm::all_of(inner.getOperands(), definedInBody))
        return fallBack();
    }
    Location loc = op.getLoc();
    IRMapping buffers;
    SmallVector<Value> origin;
    auto tileKernel = buildTileKernel(
        rewriter, op, adaptor.getInputs(), domain, kUnscheduledThreads,
        /*cooperative=*/false, preamble, buffers, origin);
    auto mapAttr = [&](Operation *access) {
      AffineMap map = domainMaps.lookup(access);
      return getIndexMapAttr(map);
    };

    // Loads become tile loads; the scalar ops between loads and stores
    // become one tileir.map over the loaded tiles.
    llvm::MapVector<Value, Value> loadedTiles; // loaded scalar -> its tile
    if (contraction)
      for (auto [result, tile] : llvm::zip(
               contraction->reduce.getResults(),
               buildContracts(rewriter, *contraction, loop, tileKernel,
                              buffers, origin)))
        loadedTiles[result] = tile;
    // The indices the map computes with: tiles of coordinates.
    for (Operation &inner : loop.getBody().front().without_terminator()) {
      if (contracted.contains(&inner) || domainMaps.count(&inner))
        continue;
      for (Value operand : inner.getOperands()) {
        auto iv = llvm::find(ivs, operand);
        if (iv == ivs.end() || loadedTiles.count(operand))
          continue;
        int64_t dim = iv - ivs.begin();
        loadedTiles[operand] = tileir::CoordinateOp::create(
            rewriter, loc, tileKernel.getTileType(rewriter.getIndexType()),
            origin[dim], dim);
      }
    }
    SmallVector<Operation *> computation;
    SmallVector<loopir::StoreOp> stores;
    for (Operation &inner : loop.getBody().front().without_terminator()) {
      if (contracted.contains(&inner))
        continue;
      if (pointLoads.contains(&inner)) {
        computation.push_back(&inner);
        continue;
      }
      if (auto load = dyn_cast<loopir::LoadOp>(inner)) {
        auto type = tileKernel.getTileType(load.getType());
        Value tile = tileir::LoadOp::create(rewriter, load.getLoc(), type,
                                            buffers.lookup(load.getMemref()),
                                            origin, mapAttr(load));
        loadedTiles[load.getResult()] = tile;
      } else if (auto store = dyn_cast<loopir::StoreOp>(inner)) {
        stores.push_back(store);
      } else {
        computation.push_back(&inner);
      }
    }

    // Stored values computed in the loop are the map's results.
    llvm::MapVector<Value, Value> storedTiles; // stored scalar -> its tile
    for (loopir::StoreOp store : stores)
      if (!loadedTiles.count(store.getValue()))
        storedTiles[store.getValue()] = Value();
    if (!storedTiles.empty()) {
      SmallVector<Value> inputs;
      SmallVector<Type> argTypes, resultTypes;
      for (auto [scalar, tile] : loadedTiles) {
        inputs.push_back(tile);
        argTypes.push_back(scalar.getType());
      }
      for (auto &entry : storedTiles)
        resultTypes.push_back(
            tileKernel.getTileType(entry.first.getType()));
      auto map = tileir::MapOp::create(rewriter, loc, resultTypes, inputs);
      OpBuilder::InsertionGuard guard(rewriter);
      Block *mapBody = rewriter.createBlock(
          &map.getBody(), {}, argTypes,
          SmallVector<Location>(argTypes.size(), loc));
      IRMapping scalars = buffers;
      for (auto [i, entry] : llvm::enumerate(loadedTiles))
        scalars.map(entry.first, mapBody->getArgument(i));
      for (Operation *scalarOp : computation) {
        Operation *clone = rewriter.clone(*scalarOp, scalars);
        if (auto load = dyn_cast<loopir::LoadOp>(clone))
          guardInBuffer(rewriter, load);
      }
      SmallVector<Value> yielded;
      for (auto &entry : storedTiles)
        yielded.push_back(scalars.lookup(entry.first));
      tileir::YieldOp::create(rewriter, loc, yielded);
      for (auto [i, entry] : llvm::enumerate(storedTiles))
        entry.second = map.getResult(i);
    }

    for (loopir::StoreOp store : stores) {
      Value tile = loadedTiles.count(store.getValue())
                       ? loadedTiles[store.getValue()]
                       : storedTiles[store.getValue()];
      tileir::StoreOp::create(
          rewriter, store.getLoc(), tile, buffers.lookup(store.getMemref()),
          origin, mapAttr(store));
    }
    tileir::YieldOp::create(rewriter, loc);
    rewriter.replaceOp(op, tileKernel.getResults());
    return success();
  }

  /// The generic schedule: the domain covers every nest, and each point
  /// runs each nest's body whose bounds contain it. Nests of lower rank
  /// (an LSTM step's cell state beside its stacked outputs) take the
  /// domain's trailing dimensions, and run where the leading ones are 0.
  LogicalResult buildGeneric(loopir::KernelOp op, OpAdaptor adaptor,
                             ConversionPatternRewriter &rewriter,
                             ArrayRef<Operation *> preamble,
                             SmallVector<loopir::ParallelOp> nests) const {
    size_t rank = 1;
    for (loopir::ParallelOp nest : nests)
      rank = std::max(rank, nest.getBounds().size());
    SmallVector<int64_t> domain(rank, 1);
    for (loopir::ParallelOp nest : nests) {
      size_t offset = rank - nest.getBounds().size();
      for (auto [d, b] : llvm::enumerate(nest.getBounds()))
        domain[offset + d] = std::max(domain[offset + d], b);
    }
    Location loc = op.getLoc();
    IRMapping mapping;
    SmallVector<Value> origin;
    auto tileKernel = buildTileKernel(
        rewriter, op, adaptor.getInputs(), domain, kUnscheduledThreads,
        /*cooperative=*/false, preamble, mapping, origin);
    auto forEach = tileir::ForEachPointOp::create(rewriter, loc, origin);
    SmallVector<Type> coordinates(domain.size(), rewriter.getIndexType());
    Block *pointBody = rewriter.createBlock(
        &forEach.getBody(), {}, coordinates,
        SmallVector<Location>(domain.size(), loc));
    for (loopir::ParallelOp nest : nests) {
      OpBuilder::InsertionGuard guard(rewriter);
      size_t offset = rank - nest.getBounds().size();
      SmallVector<int64_t> box(offset, 1);
      llvm::append_range(box, nest.getBounds());
      // Points outside this nest's box skip it.
      Value inside;
      for (auto [d, b] : llvm::enumerate(box)) {
        if (b == domain[d])
          continue;
        Value bound = arith::ConstantIndexOp::create(rewriter, loc, b);
        Value ok = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                         pointBody->getArgument(d), bound);
        inside = inside ? arith::AndIOp::create(rewriter, loc, inside, ok) : ok;
      }
      if (inside) {
        auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{}, inside,
                                      /*withElseRegion=*/false);
        rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      }
      IRMapping point = mapping;
      point.map(nest.getInductionVars(),
                pointBody->getArguments().drop_front(offset));
      for (Operation &inner : nest.getBody().front().without_terminator())
        rewriter.clone(inner, point);
    }
    rewriter.setInsertionPointToEnd(pointBody);
    tileir::YieldOp::create(rewriter, loc);
    rewriter.setInsertionPointToEnd(&tileKernel.getBody().front());
    tileir::YieldOp::create(rewriter, loc);
    rewriter.replaceOp(op, tileKernel.getResults());
    return success();
  }

  TileSchedule schedule;
};

struct ConvertLoopIRToTileIRPass
    : strata::impl::ConvertLoopIRToTileIRPassBase<ConvertLoopIRToTileIRPass> {
  using ConvertLoopIRToTileIRPassBase::ConvertLoopIRToTileIRPassBase;

  void runOnOperation() override {
    std::optional<TileSchedule> requested = parseTileSchedule(schedule);
    if (!requested) {
      getOperation().emitError("unknown schedule '")
          << schedule
          << "' (expected auto, elementwise, row, contraction or generic)";
      return signalPassFailure();
    }
    ConversionTarget target(getContext());
    // Loop IR stays only as scalar code inside a scheduled kernel.
    target.addDynamicallyLegalDialect<loopir::LoopIRDialect>([](Operation *op) {
      return op->getParentOfType<tileir::KernelOp>() != nullptr;
    });
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(&getContext());
    populateLoopIRToTileIRPatterns(patterns, *requested);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

tileir::KernelOp
strata::buildTileKernel(OpBuilder &b, loopir::KernelOp op, ValueRange inputs,
                        ArrayRef<int64_t> domain, int64_t threads,
                        bool cooperative, ArrayRef<Operation *> preamble,
                        IRMapping &mapping, SmallVectorImpl<Value> &origin) {
  Location loc = op.getLoc();
  Block &kernelBody = op.getBody().front();
  auto tileKernel = tileir::KernelOp::create(
      b, loc, op.getResultTypes(), inputs, b.getDenseI64ArrayAttr(domain),
      b.getDenseI64ArrayAttr(SmallVector<int64_t>(domain.size(), 1)),
      b.getI64IntegerAttr(threads));
  Block *body =
      b.createBlock(&tileKernel.getBody(), {}, kernelBody.getArgumentTypes(),
                    SmallVector<Location>(kernelBody.getNumArguments(), loc));
  mapping.map(kernelBody.getArguments(), body->getArguments());
  for (Operation *scalarOp : preamble)
    b.clone(*scalarOp, mapping);
  for (size_t d = 0; d < domain.size(); ++d)
    origin.push_back(
        cooperative ? tileir::PointOp::create(b, loc, (int64_t)d).getResult()
                    : tileir::TileOffsetOp::create(b, loc, (int64_t)d));
  return tileKernel;
}

static constexpr std::pair<TileSchedule, llvm::StringLiteral>
    kScheduleNames[] = {{TileSchedule::Auto, "auto"},
                        {TileSchedule::Elementwise, "elementwise"},
                        {TileSchedule::Row, "row"},
                        {TileSchedule::Contraction, "contraction"},
                        {TileSchedule::Generic, "generic"}};

std::optional<TileSchedule> strata::parseTileSchedule(StringRef name) {
  for (auto [schedule, spelling] : kScheduleNames)
    if (name == spelling)
      return schedule;
  return std::nullopt;
}

StringRef strata::stringifyTileSchedule(TileSchedule schedule) {
  for (auto [candidate, spelling] : kScheduleNames)
    if (candidate == schedule)
      return spelling;
  llvm_unreachable("unknown tile schedule");
}

void strata::populateLoopIRToTileIRPatterns(RewritePatternSet &patterns,
                                            TileSchedule schedule) {
  patterns.add<KernelToTileProgram>(patterns.getContext(), schedule);
}
