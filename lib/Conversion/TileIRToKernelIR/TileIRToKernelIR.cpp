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
    if (auto contract = dyn_cast<tileir::ContractOp>(op))
      return translateContract(contract);
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

  /// A contraction, staged through shared memory: per step of `step` k,
  /// the threads copy the lhs chunk (tile rows x step) and the rhs chunk
  /// (step x tile columns) into shared buffers, computing each operand
  /// element once (zero outside the domain or past k), a barrier; each
  /// thread accumulates its own elements of the result tile from the
  /// shared chunks; a barrier before the next step overwrites them.
  LogicalResult translateContract(tileir::ContractOp contract) {
    Location loc = contract.getLoc();
    ArrayRef<int64_t> tile = kernel.getTile(), domain = kernel.getDomain();
    size_t rank = tile.size();
    for (size_t d = 0; d + 2 < rank; ++d)
      if (tile[d] != 1)
        return contract.emitError("a contraction's batch dimensions need "
                                  "tile size 1");
    int64_t rows = tile[rank - 2], cols = tile[rank - 1];
    int64_t step = contract.getStep(), threads = kernel.getThreads();
    Type element = contract.getResult().getType().getElementType();
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    auto shared = [&](int64_t r, int64_t c) -> Value {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(entry);
      return kernelir::SharedOp::create(
          b, loc,
          MemRefType::get({r, c}, element, MemRefLayoutAttrInterface(),
                          workgroup));
    };
    Value lhsChunk = shared(rows, step), rhsChunk = shared(step, cols);
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    // This thread's result elements (row, column in the tile); with whole
    // rows of threads, one column per thread.
    SmallVector<std::pair<Value, Value>> owned;
    for (int64_t m = 0; m < elementsPerThread; ++m) {
      if (threads % cols == 0) {
        Value row = arith::AddIOp::create(
            b, loc, arith::DivUIOp::create(b, loc, thread, index(cols)),
            index(m * (threads / cols)));
        owned.push_back(
            {row, arith::RemUIOp::create(b, loc, thread, index(cols))});
      } else {
        owned.push_back(
            {elementCoords[m][rank - 2], elementCoords[m][rank - 1]});
      }
    }
    SmallVector<Value> init(elementsPerThread, zero);
    int64_t steps = llvm::divideCeil(contract.getK(), step);
    auto kLoop = scf::ForOp::create(
        b, loc, index(0), index(steps), index(1), init,
        [&](OpBuilder &nested, Location loc, Value kt, ValueRange acc) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nested.getInsertionBlock(),
                              nested.getInsertionPoint());
          Value k0 = arith::MulIOp::create(b, loc, kt, index(step));
          stage(contract.getLhs(), contract.getOrigin(), lhsChunk, rows, step,
                /*chunkRowIsK=*/false, rank - 1, k0, zero);
          stage(contract.getRhs(), contract.getOrigin(), rhsChunk, step, cols,
                /*chunkRowIsK=*/true, rank - 2, k0, zero);
          kernelir::BarrierOp::create(b, loc);
          auto inner = scf::ForOp::create(
              b, loc, index(0), index(step), index(1), acc,
              [&](OpBuilder &nested, Location loc, Value kk,
                  ValueRange partial) {
                OpBuilder::InsertionGuard guard(b);
                b.setInsertionPoint(nested.getInsertionBlock(),
                                    nested.getInsertionPoint());
                SmallVector<Value> next;
                DenseMap<Value, Value> rhsLoads;
                for (auto [m, coords] : llvm::enumerate(owned)) {
                  Value a = kernelir::LoadOp::create(
                      b, loc, lhsChunk, ValueRange{coords.first, kk});
                  Value &bv = rhsLoads[coords.second];
                  if (!bv)
                    bv = kernelir::LoadOp::create(
                        b, loc, rhsChunk, ValueRange{kk, coords.second});
                  next.push_back(
                      math::FmaOp::create(b, loc, a, bv, partial[m]));
                }
                scf::YieldOp::create(b, loc, next);
              });
          kernelir::BarrierOp::create(b, loc);
          scf::YieldOp::create(b, loc, inner.getResults());
        });
    scalars[contract.getResult()] = SmallVector<Value>(kLoop.getResults());
    return success();
  }

  /// Copies one operand chunk into shared memory: `chunkRows` x `chunkCols`
  /// elements, thread t taking elements t, t + threads, ... (row-major, so
  /// neighbouring threads read neighbouring addresses of a row-major
  /// operand). The operand region takes the point's coordinates without
  /// dimension `dropped`, then k; the tile dimension it varies is the
  /// chunk's column (lhs: rows x k) or row (rhs: k x columns).
  void stage(Region &operand, ValueRange origin, Value chunk, int64_t chunkRows,
             int64_t chunkCols, bool chunkRowIsK, size_t dropped, Value k0,
             Value zero) {
    Location loc = operand.getLoc();
    ArrayRef<int64_t> domain = kernel.getDomain();
    size_t rank = domain.size();
    int64_t threads = kernel.getThreads(), total = chunkRows * chunkCols;
    int64_t k = cast<tileir::ContractOp>(operand.getParentOp()).getK();
    size_t varied = dropped == rank - 1 ? rank - 2 : rank - 1;
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    for (int64_t first = 0; first < total; first += threads) {
      OpBuilder::InsertionGuard guard(b);
      Value e = arith::AddIOp::create(b, loc, thread, index(first));
      if (first + threads > total) { // The last round: some threads idle.
        Value active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                             e, index(total));
        auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, active, false);
        b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      }
      Value r = arith::DivUIOp::create(b, loc, e, index(chunkCols));
      Value c = arith::RemUIOp::create(b, loc, e, index(chunkCols));
      Value kk = chunkRowIsK ? r : c, along = chunkRowIsK ? c : r;
      Value kg = arith::AddIOp::create(b, loc, k0, kk);
      Value point =
          arith::AddIOp::create(b, loc, mapping.lookup(origin[varied]), along);
      // Outside the domain or past k the operand is zero.
      Value inside;
      auto require = [&](Value v, int64_t bound) {
        Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, v,
                                         index(bound));
        inside = inside ? arith::AndIOp::create(b, loc, inside, ok) : ok;
      };
      if (domain[varied] % kernel.getTile()[varied] != 0)
        require(point, domain[varied]);
      if (k % (chunkRowIsK ? chunkRows : chunkCols) != 0)
        require(kg, k);
      SmallVector<Value> coords;
      for (size_t d = 0; d < rank; ++d)
        if (d != dropped)
          coords.push_back(d == varied ? point : mapping.lookup(origin[d]));
      coords.push_back(kg);
      auto evaluate = [&]() -> Value {
        IRMapping args = mapping;
        Block &body = operand.front();
        args.map(body.getArguments(), coords);
        for (Operation &op : body.without_terminator())
          b.clone(op, args);
        return args.lookupOrDefault(body.getTerminator()->getOperand(0));
      };
      Value value;
      if (!inside) {
        value = evaluate();
      } else {
        auto ifOp = scf::IfOp::create(b, loc, zero.getType(), inside, true);
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        scf::YieldOp::create(b, loc, evaluate());
        b.setInsertionPointToStart(ifOp.elseBlock());
        scf::YieldOp::create(b, loc, zero);
        value = ifOp.getResult(0);
      }
      kernelir::StoreOp::create(b, loc, value, chunk, ValueRange{r, c});
    }
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
