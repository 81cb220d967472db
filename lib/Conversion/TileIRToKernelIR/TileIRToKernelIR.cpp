// Materializes tile programs as kernels: one block per tile, each thread
// handling tile/threads elements of it, every access guarded by the domain.
// In a cooperative kernel (one point per tile) the threads share the point's
// folds and loops instead.

#include "BlockCombine.h"
#include "strata/Conversion/LoopIRCommon/ScalarLoops.h"
#include "strata/Conversion/Passes.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Transforms/DialectConversion.h"

namespace strata {
#define GEN_PASS_DEF_CONVERTTILEIRTOKERNELIRPASS
#include "strata/Conversion/Passes.h.inc"
} // namespace strata

using namespace mlir;
using namespace strata;

namespace {

/// Splits `linear` into coordinates of a row-major box of `sizes`; a size of
/// one gives the constant 0.
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<int64_t> sizes) {
  SmallVector<Value> coords(sizes.size());
  Value rest = linear;
  for (int64_t d = sizes.size() - 1; d >= 0; --d) {
    if (sizes[d] == 1) {
      coords[d] = arith::ConstantIndexOp::create(b, loc, 0);
      continue;
    }
    Value size = arith::ConstantIndexOp::create(b, loc, sizes[d]);
    coords[d] = d == 0 ? rest : arith::RemUIOp::create(b, loc, rest, size);
    if (d > 0)
      rest = arith::DivUIOp::create(b, loc, rest, size);
  }
  return coords;
}

/// Translates the body of one tileir.kernel into the body of its
/// kernelir.func. A tile value becomes `elementsPerThread` scalars per thread:
/// thread t owns tile elements t, t + threads, t + 2 * threads, ...
class TileBodyTranslator {
public:
  TileBodyTranslator(OpBuilder &b, tileir::KernelOp kernel)
      : b(b), kernel(kernel),
        elementsPerThread(kernel.getTileType(b.getF32Type()).getNumElements() /
                          kernel.getThreads()) {}

  LogicalResult translate(kernelir::FuncOp func) {
    Block &source = kernel.getBody().front();
    Location loc = kernel.getLoc();
    mapping.map(source.getArguments(), func.getArguments());
    Value block = kernelir::BlockIdOp::create(b, loc, kernelir::Dim::x);
    entry = &func.getBody().front();
    thread = kernelir::ThreadIdOp::create(b, loc, kernelir::Dim::x);
    programIds = delinearize(b, loc, block, kernel.getGrid());
    for (int64_t k = 0; k < elementsPerThread; ++k) {
      Value element = thread;
      if (k > 0)
        element = arith::AddIOp::create(
            b, loc, thread,
            arith::ConstantIndexOp::create(b, loc, k * kernel.getThreads()));
      elementCoords.push_back(delinearize(b, loc, element, kernel.getTile()));
    }
    for (Operation &op : source.without_terminator())
      if (failed(translateOp(op)))
        return failure();
    return success();
  }

private:
  LogicalResult translateOp(Operation &op) {
    if (auto pid = dyn_cast<tileir::ProgramIdOp>(op)) {
      mapping.map(pid.getResult(), programIds[pid.getDim()]);
      return success();
    }
    if (auto load = dyn_cast<tileir::LoadOp>(op)) {
      auto &elements = scalars[load.getResult()];
      for (int64_t k = 0; k < elementsPerThread; ++k) {
        auto [indices, inside] = access(load.getLoc(), load.getOrigin(),
                                        load.getIndexMap(), k);
        elements.push_back(kernelir::LoadOp::create(
            b, load.getLoc(), mapping.lookup(load.getMemref()), indices,
            inside));
      }
      return success();
    }
    if (auto store = dyn_cast<tileir::StoreOp>(op)) {
      for (int64_t k = 0; k < elementsPerThread; ++k) {
        auto [indices, inside] = access(store.getLoc(), store.getOrigin(),
                                        store.getIndexMap(), k);
        kernelir::StoreOp::create(b, store.getLoc(),
                                  scalars[store.getValue()][k],
                                  mapping.lookup(store.getMemref()), indices,
                                  inside);
      }
      return success();
    }
    if (auto map = dyn_cast<tileir::MapOp>(op))
      return translateMap(map);
    if (auto points = dyn_cast<tileir::ForEachPointOp>(op))
      return translatePoints(points);
    if (auto fold = dyn_cast<tileir::FoldOp>(op))
      return translateFold(fold);
    if (auto loop = dyn_cast<tileir::DistributeOp>(op))
      return translateDistribute(loop);
    bool touchesTiles =
        llvm::any_of(op.getOperandTypes(), llvm::IsaPred<tileir::TileType>) ||
        llvm::any_of(op.getResultTypes(), llvm::IsaPred<tileir::TileType>);
    // Scalar Loop IR (a reduction one thread runs) is lowered by the
    // conversion's patterns after the translation.
    bool scalarLoops = isa<loopir::ReduceOp, loopir::ParallelOp>(op);
    if (touchesTiles || (op.getNumRegions() != 0 && !scalarLoops))
      return op.emitError("cannot lower this op to kernelir yet");
    if (isa<loopir::StoreOp>(op)) {
      // Uniform code of a cooperative kernel: one thread writes the row's
      // value, the others would write the same one.
      OpBuilder::InsertionGuard guard(b);
      Value zero = arith::ConstantIndexOp::create(b, op.getLoc(), 0);
      Value first = arith::CmpIOp::create(
          b, op.getLoc(), arith::CmpIPredicate::eq, thread, zero);
      auto ifOp = scf::IfOp::create(b, op.getLoc(), TypeRange{}, first,
                                    /*withElseRegion=*/false);
      b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      b.clone(op, mapping);
      return success();
    }
    b.clone(op, mapping); // Scalar work shared by all elements or threads.
    return success();
  }

  /// Threads take the points thread, thread + threads, ... of `bounds`
  /// (row-major, so neighbouring threads touch neighbouring addresses);
  /// `body` gets each point's coordinates and the loop's carried values.
  scf::ForOp
  sharedLoop(Location loc, ArrayRef<int64_t> bounds, ValueRange init,
             function_ref<SmallVector<Value>(ValueRange, ValueRange)> body) {
    int64_t points = 1;
    for (int64_t bound : bounds)
      points *= bound;
    Value end = arith::ConstantIndexOp::create(b, loc, points);
    Value step = arith::ConstantIndexOp::create(b, loc, kernel.getThreads());
    return scf::ForOp::create(
        b, loc, thread, end, step, init,
        [&](OpBuilder &nested, Location loc, Value linear, ValueRange carried) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nested.getInsertionBlock(),
                              nested.getInsertionPoint());
          SmallVector<Value> coords = delinearize(b, loc, linear, bounds);
          SmallVector<Value> yielded = body(coords, carried);
          scf::YieldOp::create(b, loc, yielded);
        });
  }

  /// Clones `body` (without its terminator) at the builder with its
  /// arguments bound to `coords`; returns the mapping.
  IRMapping cloneBody(Block &body, ValueRange coords) {
    IRMapping point = mapping;
    point.map(body.getArguments(), coords);
    for (Operation &inner : body.without_terminator())
      b.clone(inner, point);
    return point;
  }

  /// A cooperative fold: each thread folds its share of the points in
  /// registers, then the block combines the partial results.
  LogicalResult translateFold(tileir::FoldOp fold) {
    Location loc = fold.getLoc();
    if (kernel.getThreads() % kWarpSize != 0)
      return fold.emitError("a cooperative fold needs a whole number of "
                            "warps, but the kernel has ")
             << kernel.getThreads() << " threads";
    SmallVector<loopir::Combiner> combiners;
    SmallVector<TypedAttr> identities;
    SmallVector<Value> init;
    for (auto [c, identity] :
         llvm::zip(fold.getCombinerList(), fold.getIdentities())) {
      // The fold monoids are the associative loop combiners.
      combiners.push_back(
          *loopir::symbolizeCombiner(tileir::stringifyCombiner(c)));
      identities.push_back(cast<TypedAttr>(identity));
      init.push_back(arith::ConstantOp::create(b, loc, identities.back()));
    }
    Block &body = fold.getBody().front();
    auto loop = sharedLoop(
        loc, fold.getBounds(), init, [&](ValueRange coords, ValueRange acc) {
          IRMapping point = cloneBody(body, coords);
          SmallVector<Value> next;
          for (auto [c, a, x] :
               llvm::zip(combiners, acc, body.getTerminator()->getOperands()))
            next.push_back(
                combineScalars(b, loc, c, a, point.lookupOrDefault(x)));
          return next;
        });
    mapping.map(fold.getResults(),
                combineAcrossBlock(b, loc, *entry, thread, kernel.getThreads(),
                                   combiners, identities, loop.getResults()));
    return success();
  }

  LogicalResult translateDistribute(tileir::DistributeOp loop) {
    sharedLoop(loop.getLoc(), loop.getBounds(), {},
               [&](ValueRange coords, ValueRange) {
                 cloneBody(loop.getBody().front(), coords);
                 return SmallVector<Value>();
               });
    return success();
  }

  LogicalResult translateMap(tileir::MapOp map) {
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

  /// The generic schedule: each owned element is a point that runs the
  /// Loop IR body (lowered to scalar loops by the same conversion) when it
  /// lies inside the domain.
  LogicalResult translatePoints(tileir::ForEachPointOp points) {
    Block &body = points.getBody().front();
    Location loc = points.getLoc();
    for (int64_t k = 0; k < elementsPerThread; ++k) {
      auto [coords, inside] =
          access(loc, points.getOrigin(),
                 AffineMap::getMultiDimIdentityMap(body.getNumArguments(),
                                                   b.getContext()),
                 k);
      OpBuilder::InsertionGuard guard(b);
      if (inside) {
        auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, inside,
                                      /*withElseRegion=*/false);
        b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      }
      IRMapping point = mapping;
      point.map(body.getArguments(), coords);
      for (Operation &inner : body.without_terminator())
        b.clone(inner, point);
    }
    return success();
  }

  /// The buffer indices of element k of a tile at `origin`, and whether the
  /// element lies inside the kernel's domain.
  std::pair<SmallVector<Value>, Value> access(Location loc, ValueRange origin,
                                              AffineMap map, int64_t k) {
    SmallVector<Value> coords;
    Value inside;
    for (auto [d, o] : llvm::enumerate(origin)) {
      Value c = arith::AddIOp::create(b, loc, mapping.lookup(o),
                                      elementCoords[k][d]);
      coords.push_back(c);
      // Only dimensions the tile can overhang need a bound check.
      int64_t extent = kernel.getDomain()[d];
      if (extent % kernel.getTile()[d] == 0)
        continue;
      Value bound = arith::ConstantIndexOp::create(b, loc, extent);
      Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, c,
                                       bound);
      inside = inside ? arith::AndIOp::create(b, loc, inside, ok) : ok;
    }
    SmallVector<Value> indices =
        *affine::expandAffineMap(b, loc, map, coords);
    return {indices, inside};
  }

  OpBuilder &b;
  tileir::KernelOp kernel;
  int64_t elementsPerThread;
  IRMapping mapping; // Non-tile values of the tile program -> kernel values.
  DenseMap<Value, SmallVector<Value>> scalars; // Tile -> this thread's scalars.
  SmallVector<Value> programIds;
  Block *entry = nullptr; // The kernel's entry block (shared buffers).
  Value thread;           // This thread's index in its block.
  SmallVector<SmallVector<Value>> elementCoords; // Per owned element.
};

/// tileir.kernel -> kernelir.func + result allocations + kernelir.launch.
struct KernelToLaunch : OpConversionPattern<tileir::KernelOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tileir::KernelOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto module = op->getParentOfType<ModuleOp>();
    auto host = op->getParentOfType<FunctionOpInterface>();
    Location loc = op.getLoc();
    int64_t blocks = 1;
    for (int64_t g : op.getGrid())
      blocks *= g;

    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToEnd(module.getBody());
    std::string name =
        (host ? host.getName().str() : std::string("strata")) + "_kernel";
    auto func = kernelir::FuncOp::create(
        rewriter, loc, name, op.getBody().getArgumentTypes(),
        {blocks, 1, 1}, {(int64_t)op.getThreads(), 1, 1});
    SymbolTable(module).insert(func); // Makes the name unique.
    rewriter.setInsertionPointToStart(&func.getBody().front());
    if (failed(TileBodyTranslator(rewriter, op).translate(func)))
      return failure();
    kernelir::ReturnOp::create(rewriter, loc);

    rewriter.setInsertionPoint(op);
    SmallVector<Value> args(adaptor.getInputs());
    SmallVector<Value> results;
    for (Type t : op.getResultTypes()) {
      results.push_back(memref::AllocOp::create(
          rewriter, loc, cast<MemRefType>(getTypeConverter()->convertType(t))));
      args.push_back(results.back());
    }
    kernelir::LaunchOp::create(rewriter, loc, func.getSymName(), args);
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct ConvertTileIRToKernelIRPass
    : strata::impl::ConvertTileIRToKernelIRPassBase<
          ConvertTileIRToKernelIRPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    HostBufferTypeConverter converter;
    ConversionTarget target(*ctx);
    target.addIllegalDialect<tileir::TileIRDialect, loopir::LoopIRDialect>();
    addHostBufferizationLegality(target, converter);
    target.addLegalOp<kernelir::FuncOp>();
    RewritePatternSet patterns(ctx);
    populateTileIRToKernelIRPatterns(converter, patterns);
    populateHostBufferizationPatterns(converter, patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void strata::populateTileIRToKernelIRPatterns(TypeConverter &converter,
                                              RewritePatternSet &patterns) {
  // Loop IR of generic schedules: unguarded kernel accesses, in bounds by
  // construction.
  patterns.add<KernelToLaunch, LowerLoopLoad<kernelir::LoadOp>,
               LowerLoopStore<kernelir::StoreOp>>(converter,
                                                  patterns.getContext());
  populateLoopIRScalarLoopPatterns(converter, patterns);
}
