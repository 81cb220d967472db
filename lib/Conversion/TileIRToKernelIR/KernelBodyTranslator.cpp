// The part of a kernel body's translation every kind of tile program
// shares, and the choice of the translator for a program's kind.

#include "KernelBodyTranslator.h"
#include "RowProgramTranslator.h"
#include "TileProgramTranslator.h"
#include "strata/Dialect/Utils/LoopBox.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace strata;
using namespace strata::detail;

/// The tile coordinates of program instance `block` (a linear block id)
/// in a grid of `grid` instances whose last two dimensions go in bands of
/// `group` rows, each band column by column (tileir.kernel's raster_group):
/// within one matrix of the grid, band = block / (group * columns), and
/// with i = block mod (group * columns) and h the band's rows (`group`, or
/// fewer in the last band), row = band * group + i mod h, column = i / h.
static SmallVector<Value> rasterProgramIds(OpBuilder &b, Location loc,
                                           Value block, ArrayRef<int64_t> grid,
                                           int64_t group) {
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  int64_t rank = grid.size(), rows = grid[rank - 2], columns = grid[rank - 1];
  group = std::min(group, rows); // Taller bands are the same order.
  // Leading dimensions (batch, split-k slices) vary slowest, row-major.
  SmallVector<Value> ids;
  Value inMatrix = block;
  if (computeProduct(grid.drop_back(2)) > 1) {
    Value matrix = index(rows * columns);
    ids = delinearize(b, loc, arith::DivUIOp::create(b, loc, block, matrix),
                      grid.drop_back(2));
    inMatrix = arith::RemUIOp::create(b, loc, block, matrix);
  } else {
    ids.assign(rank - 2, index(0));
  }
  Value bandSize = index(group * columns);
  Value band = arith::DivUIOp::create(b, loc, inMatrix, bandSize);
  Value inBand = arith::RemUIOp::create(b, loc, inMatrix, bandSize);
  // Every divisor a constant (a division by a computed band height costs
  // registers: 28 bytes of spills in GPT-2's QKV projection at 128):
  // full bands divide by `group`, a shorter last band by its own height.
  auto rowAndColumn = [&](int64_t height) -> std::pair<Value, Value> {
    return {arith::RemUIOp::create(b, loc, inBand, index(height)),
            arith::DivUIOp::create(b, loc, inBand, index(height))};
  };
  auto [rowInBand, column] = rowAndColumn(group);
  if (int64_t lastHeight = rows % group) {
    Value inLast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                         band, index(rows / group));
    auto [lastRow, lastColumn] = rowAndColumn(lastHeight);
    rowInBand = arith::SelectOp::create(b, loc, inLast, lastRow, rowInBand);
    column = arith::SelectOp::create(b, loc, inLast, lastColumn, column);
  }
  ids.push_back(arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, band, index(group)), rowInBand));
  ids.push_back(column);
  return ids;
}

LogicalResult KernelBodyTranslator::translate(kernelir::FuncOp func) {
  Block &source = kernel.getBody().front();
  Location loc = kernel.getLoc();
  mapping.map(source.getArguments(), func.getArguments());
  Value block = kernelir::BlockIdOp::create(b, loc, kernelir::Dim::x);
  entry = &func.getBody().front();
  thread = kernelir::ThreadIdOp::create(b, loc, kernelir::Dim::x);
  groupThread = thread; // One group unless the program is a row program.
  auto tileIds = [&](Value tile) {
    std::optional<uint64_t> group = kernel.getRasterGroup();
    programIds = group
                     ? rasterProgramIds(b, loc, tile, kernel.getGrid(), *group)
                     : delinearize(b, loc, tile, kernel.getGrid());
  };
  int64_t tiles = kernel.getNumTiles(), instances = kernel.getNumInstances();
  if (instances == tiles) {
    tileIds(block);
    prepare();
    return translateOps(source);
  }
  // A persistent kernel (a tile program: how threads share a tile does
  // not depend on which tile it is): block b takes tiles b, b + instances,
  // ... (a wave kernel: b + the blocks launched, which the runtime
  // chooses). The loop carries the tile alone; how many tiles came before
  // it (a TMA ring counts its steps across tiles) folds away where unused.
  prepare();
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value stride =
      kernel.getWave()
          ? kernelir::GridDimOp::create(b, loc, kernelir::Dim::x).getResult()
          : index(instances);
  auto loop = scf::ForOp::create(b, loc, block, index(tiles), stride);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  tileLoop = loop;
  Value tile = loop.getInductionVar();
  tilesBefore = arith::DivUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, tile, block), stride);
  tileIds(tile);
  if (failed(translateOps(source)))
    return failure();
  // The next tile's staging overwrites what slower threads may still read.
  kernelir::BarrierOp::create(b, loc);
  return success();
}

LogicalResult KernelBodyTranslator::translateOps(Block &source) {
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

LogicalResult KernelBodyTranslator::translateOp(Operation &op) {
  if (op.getBlock() == &kernel.getBody().front())
    beforeTopLevelOp(op);
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
    return translateProgramOp(op);
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

std::unique_ptr<KernelBodyTranslator>
strata::detail::createKernelBodyTranslator(OpBuilder &b,
                                           tileir::KernelOp kernel,
                                           MultiplyOptions multiply) {
  if (kernel.isCooperative())
    return std::make_unique<RowProgramTranslator>(b, kernel, multiply);
  return std::make_unique<TileProgramTranslator>(b, kernel, multiply);
}
