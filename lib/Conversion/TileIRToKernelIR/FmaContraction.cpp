// Contractions by fused multiply-adds: each thread accumulates a register
// tile of the block tile (rows x up to 4 columns, interleaved) from operand
// chunks staged through shared memory per step of k.

#include "ContractionLowering.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace strata;
using namespace strata::detail;

namespace {
class FmaContraction : public ContractionLowering {
public:
  explicit FmaContraction(KernelContext &ctx) : ContractionLowering(ctx) {}

  /// Gives each thread a register tile of the block tile (rows x up to 4
  /// columns, interleaved) instead of strided elements, so that each step
  /// of k loads rows + columns values for rows x columns fused
  /// multiply-adds; false where the tile does not split that way (the
  /// threads then multiply their strided elements).
  bool assignElements() override;

  /// Per step of `step` k, the threads copy the lhs chunk (tile rows x
  /// step) and the rhs chunk (step x tile columns) into shared buffers,
  /// computing each operand element once (zero outside the domain or past
  /// k), a barrier; each thread accumulates its own elements of the result
  /// tile from the shared chunks; a barrier before the next step
  /// overwrites them.
  LogicalResult lower(tileir::ContractOp contract) override;
};
} // namespace

std::unique_ptr<ContractionLowering>
strata::detail::createFmaContraction(KernelContext &ctx) {
  return std::make_unique<FmaContraction>(ctx);
}

bool FmaContraction::assignElements() {
  ArrayRef<int64_t> tile = kernel.getTile();
  size_t rank = tile.size();
  int64_t rows = tile[rank - 2], cols = tile[rank - 1];
  int64_t threads = kernel.getThreads();
  // Up to 4 columns per thread, the rest of its elements in rows; the
  // threads must cover the tile exactly.
  int64_t tileCols = 1;
  for (int64_t c : {4, 2})
    if (cols % c == 0 && ctx.elementsPerThread % c == 0) {
      tileCols = c;
      break;
    }
  int64_t tileRows = ctx.elementsPerThread / tileCols;
  int64_t threadCols = cols / tileCols;
  if (rows % tileRows != 0 || threadCols == 0 ||
      (rows / tileRows) * threadCols != threads)
    return false;
  int64_t threadRows = rows / tileRows;
  Location loc = kernel.getLoc();
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // Interleaved: row r of the thread's block is t_r + r * threadRows and
  // column c is t_c + c * threadCols, so neighbouring threads read
  // neighbouring shared columns and store neighbouring global columns.
  Value threadRow =
      arith::DivUIOp::create(b, loc, ctx.thread, index(threadCols));
  Value threadCol =
      arith::RemUIOp::create(b, loc, ctx.thread, index(threadCols));
  SmallVector<Value> rowOf, colOf;
  for (int64_t r = 0; r < tileRows; ++r)
    rowOf.push_back(r == 0 ? threadRow
                           : Value(arith::AddIOp::create(
                                 b, loc, threadRow, index(r * threadRows))));
  for (int64_t c = 0; c < tileCols; ++c)
    colOf.push_back(c == 0 ? threadCol
                           : Value(arith::AddIOp::create(
                                 b, loc, threadCol, index(c * threadCols))));
  Value zero = index(0);
  for (int64_t r = 0; r < tileRows; ++r)
    for (int64_t c = 0; c < tileCols; ++c) {
      SmallVector<Value> coords(rank - 2, zero);
      coords.push_back(rowOf[r]);
      coords.push_back(colOf[c]);
      ctx.elementCoords.push_back(coords);
    }
  return true;
}

LogicalResult FmaContraction::lower(tileir::ContractOp contract) {
  Location loc = contract.getLoc();
  ArrayRef<int64_t> tile = kernel.getTile();
  size_t rank = tile.size();
  for (size_t d = 0; d + 2 < rank; ++d)
    if (tile[d] != 1)
      return contract.emitError("a contraction's batch dimensions need "
                                "tile size 1");
  int64_t step = contract.getStep();
  Type element = contract.getResult().getType().getElementType();
  // Operands that both widen the same half type are staged as halves (half
  // the shared memory and copies; tileir-pipeline counts them so) and
  // widened as they are read.
  Type half = contract.getWidenedHalfType();
  bool narrow = static_cast<bool>(half);
  Type staged = narrow ? half : element;
  Value lhsChunk, rhsChunk;
  std::tie(lhsChunk, rhsChunk) = createChunks(contract, staged);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(staged));
  Value accZero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  auto read = [&](Value chunk, SmallVector<Value> indices) -> Value {
    Value x = kernelir::LoadOp::create(b, loc, chunk, indices);
    return narrow ? arith::ExtFOp::create(b, loc, element, x) : x;
  };
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // Per step of k: stage both chunks, then each thread multiplies into its
  // elements (elementCoords: its register tile) from the chunks' `slot`.
  auto multiply = [&](Value slot, Value kk, ValueRange partial) {
    SmallVector<Value> next;
    // One shared load per distinct row and column of the thread's elements.
    DenseMap<Value, Value> lhsLoads, rhsLoads;
    for (auto [m, coords] : llvm::enumerate(ctx.elementCoords)) {
      Value row = coords[rank - 2], col = coords[rank - 1];
      Value &a = lhsLoads[row];
      if (!a)
        a = read(lhsChunk, chunkIndices(slot, row, kk));
      Value &bv = rhsLoads[col];
      if (!bv)
        bv = read(rhsChunk, chunkIndices(slot, kk, col));
      next.push_back(math::FmaOp::create(b, loc, a, bv, partial[m]));
    }
    return next;
  };
  SmallVector<Value> init(ctx.elementsPerThread, accZero);
  auto kLoop = stagedLoop(
      contract, lhsChunk, rhsChunk, zero, narrow,
      /*rhsTransposed=*/false, init, [&](ValueRange acc, Value slot) {
        auto inner = ctx.buildLoop(loc, index(0), index(step), index(1), acc,
                                   [&](Value kk, ValueRange partial) {
                                     return multiply(slot, kk, partial);
                                   });
        return SmallVector<Value>(inner.getResults());
      });
  ctx.scalars[contract.getResult()] = SmallVector<Value>(kLoop.getResults());
  return success();
}
