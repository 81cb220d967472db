// Staging one operand chunk of a contraction into shared memory: computed
// and stored by the threads, or, where the operand is a plain load of a
// kernel buffer, copied asynchronously (global to shared, no registers).

#include "ContractionLowering.h"
#include "strata/Conversion/LoopIRCommon/ScalarLoops.h"
#include "strata/Dialect/Utils/ElementStorage.h"
#include "strata/Dialect/Utils/LoopBox.h"

using namespace mlir;
using namespace strata;
using namespace strata::detail;

SmallVector<Value> ContractionLowering::storedChunkIndices(Value slot, Value r,
                                                           Value c) {
  if (!coreMatrixWidth())
    return chunkIndices(slot, r, c);
  Location loc = kernel.getLoc();
  Value w = arith::ConstantIndexOp::create(b, loc, coreMatrixWidth());
  SmallVector<Value> indices{arith::DivUIOp::create(b, loc, c, w), r,
                             arith::RemUIOp::create(b, loc, c, w)};
  if (slot)
    indices.insert(indices.begin(), slot);
  return indices;
}

/// The value an operand region stages: what it yields, or with `narrow`
/// the input of the arith.extf it yields; null where it yields no widening.
static Value stagedValue(Region &operand, bool narrow) {
  Value result = operand.front().getTerminator()->getOperand(0);
  if (!narrow)
    return result;
  auto widen = result.getDefiningOp<arith::ExtFOp>();
  return widen ? widen.getIn() : Value();
}

size_t strata::detail::variedDim(size_t dropped, size_t rank) {
  return dropped == rank - 1 ? rank - 2 : rank - 1;
}

std::pair<SmallVector<Value>, Value>
ContractionLowering::chunkPoint(Region &operand, ValueRange origin,
                                const ChunkShape &shape, Value k0, Value r,
                                Value c) {
  Location loc = operand.getLoc();
  ArrayRef<int64_t> domain = kernel.getDomain();
  size_t rank = domain.size();
  size_t varied = variedDim(shape.dropped, rank);
  int64_t k = cast<tileir::ContractOp>(operand.getParentOp()).getK();
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value kk = shape.rowIsK ? r : c, along = shape.rowIsK ? c : r;
  Value kg = arith::AddIOp::create(b, loc, k0, kk);
  Value point =
      arith::AddIOp::create(b, loc, ctx.mapping.lookup(origin[varied]), along);
  // Outside the domain or past k the operand is zero.
  Value inside;
  auto require = [&](Value v, int64_t bound) {
    Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, v,
                                     index(bound));
    inside = inside ? arith::AndIOp::create(b, loc, inside, ok) : ok;
  };
  if (domain[varied] % kernel.getTile()[varied] != 0)
    require(point, domain[varied]);
  if (k % (shape.rowIsK ? shape.rows : shape.cols) != 0)
    require(kg, k);
  SmallVector<Value> coords;
  for (size_t d = 0; d < rank; ++d)
    if (d != shape.dropped)
      coords.push_back(d == varied ? point : ctx.mapping.lookup(origin[d]));
  coords.push_back(kg);
  return {coords, inside};
}

/// Calls `body` with the index e of each of `total` work items of this
/// thread (e = thread, thread + threads, ...), guarding the last round
/// where some threads have none.
static void forEachShare(OpBuilder &b, Location loc, Value thread,
                         int64_t threads, int64_t total,
                         function_ref<void(Value)> body) {
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  for (int64_t first = 0; first < total; first += threads) {
    OpBuilder::InsertionGuard guard(b);
    Value e = arith::AddIOp::create(b, loc, thread, index(first));
    if (first + threads > total) { // The last round: some threads idle.
      Value active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, e,
                                           index(total));
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, active, false);
      b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    }
    body(e);
  }
}

void ContractionLowering::stage(Region &operand, ValueRange origin, Value chunk,
                                Value slot, const ChunkShape &shape, Value k0,
                                Value zero) {
  Location loc = operand.getLoc();
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  forEachShare(b, loc, ctx.thread, kernel.getThreads(), shape.rows * shape.cols,
               [&](Value e) {
                 Value r = arith::DivUIOp::create(b, loc, e, index(shape.cols));
                 Value c = arith::RemUIOp::create(b, loc, e, index(shape.cols));
                 auto [coords, inside] =
                     chunkPoint(operand, origin, shape, k0, r, c);
                 auto evaluate = [&, &coords = coords]() -> Value {
                   return cloneLoopBody(b, operand.front(), coords, ctx.mapping)
                       .lookupOrDefault(stagedValue(operand, shape.narrow));
                 };
                 Value value;
                 if (!inside) {
                   value = evaluate();
                 } else {
                   auto ifOp =
                       scf::IfOp::create(b, loc, zero.getType(), inside, true);
                   OpBuilder::InsertionGuard inner(b);
                   b.setInsertionPointToStart(ifOp.thenBlock());
                   scf::YieldOp::create(b, loc, evaluate());
                   b.setInsertionPointToStart(ifOp.elseBlock());
                   scf::YieldOp::create(b, loc, zero);
                   value = ifOp.getResult(0);
                 }
                 kernelir::StoreOp::create(
                     b, loc, value, chunk,
                     shape.transposed ? storedChunkIndices(slot, c, r)
                                      : storedChunkIndices(slot, r, c));
               });
}

loopir::LoadOp strata::detail::plainOperandLoad(tileir::KernelOp kernel,
                                                Region &operand, bool narrow) {
  Value staged = stagedValue(operand, narrow);
  auto load = staged ? staged.getDefiningOp<loopir::LoadOp>() : nullptr;
  if (load && load.getGuard()) // Its points need not agree along a run.
    return {};
  auto buffer = load ? dyn_cast<BlockArgument>(load.getMemref()) : nullptr;
  if (!buffer || buffer.getOwner() != &kernel.getBody().front() ||
      llvm::range_size(operand.front().without_terminator()) !=
          (narrow ? 2u : 1u))
    return {};
  return load;
}

std::optional<ContractionLowering::AsyncCopy>
ContractionLowering::planAsyncCopy(Region &operand, const ChunkShape &shape) {
  loopir::LoadOp load = plainOperandLoad(kernel, operand, shape.narrow);
  if (!load)
    return std::nullopt;
  auto buffer = cast<MemRefType>(load.getMemref().getType());
  if (!buffer.getElementType().isIntOrFloat())
    return std::nullopt;
  size_t rank = kernel.getDomain().size();
  size_t varied = variedDim(shape.dropped, rank);
  bool alongK = shape.storedRowsRunAlongK();
  // The region argument a stored row varies and its bound (the runs must
  // not straddle it).
  Block &body = operand.front();
  Value inner =
      alongK ? body.getArguments().back()
             : body.getArgument(varied < shape.dropped ? varied : varied - 1);
  int64_t bound = alongK
                      ? cast<tileir::ContractOp>(operand.getParentOp()).getK()
                      : kernel.getDomain()[varied];
  ValueRange indices = load.getIndices();
  int64_t bits = getStorageBits(buffer.getElementType());
  // cp.async moves 4, 8 or 16 bytes.
  for (int64_t width = kMaxVectorBits / bits; width * bits >= 32; width /= 2)
    if (shape.storedCols() % width == 0 && bound % width == 0 &&
        isRowRun(
            load.getIndexMap(), [&](unsigned d) { return indices[d] == inner; },
            buffer, width))
      return AsyncCopy{load, width};
  return std::nullopt;
}

void ContractionLowering::stageAsync(Region &operand, ValueRange origin,
                                     Value chunk, Value slot,
                                     const ChunkShape &shape, Value k0,
                                     AsyncCopy copy) {
  Location loc = operand.getLoc();
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  int64_t runsPerRow = shape.storedCols() / copy.width;
  forEachShare(
      b, loc, ctx.thread, kernel.getThreads(), shape.storedRows() * runsPerRow,
      [&](Value e) {
        // The run's first element, as stored and in the chunk.
        Value sr = arith::DivUIOp::create(b, loc, e, index(runsPerRow));
        Value sc = arith::MulIOp::create(
            b, loc, arith::RemUIOp::create(b, loc, e, index(runsPerRow)),
            index(copy.width));
        Value r = shape.transposed ? sc : sr, c = shape.transposed ? sr : sc;
        auto [coords, inside] = chunkPoint(operand, origin, shape, k0, r, c);
        IRMapping at = ctx.mapping;
        at.map(operand.front().getArguments(), coords);
        SmallVector<Value> indices;
        for (Value v : copy.load.getIndices())
          indices.push_back(at.lookupOrDefault(v));
        kernelir::AsyncCopyOp::create(
            b, loc, ctx.mapping.lookup(copy.load.getMemref()),
            expandAccessIndices(b, loc, copy.load.getIndexMap(), indices),
            chunk, storedChunkIndices(slot, sr, sc),
            b.getI64IntegerAttr(copy.width), inside);
      });
}
