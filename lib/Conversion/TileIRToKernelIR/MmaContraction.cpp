// A tileir.contract of f16 or bf16 operands (or f32 ones, as tf32 where
// asked for) on tensor cores: the warps of the block share its tile as a
// grid of 16x8 mma tiles; per step of k the operand chunks are staged in
// shared memory (halves before their widening to f32), then each warp loads
// its fragments (kernelir.getMmaFragmentMap) and accumulates with
// kernelir.mma.

#include "ContractionLowering.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace strata;
using namespace strata::detail;

using kernelir::kMmaM;
using kernelir::kMmaN;
using kernelir::MmaOperand;

namespace {
/// How the warps of a contraction kernel share its block tile on tensor
/// cores: a grid of warpRows x warpCols warps, each owning tilesM x tilesN
/// mma tiles (16 x 8 outputs each), multiplying operands of `operand`
/// (f16, bf16, or f32 as tf32).
struct MmaLayout {
  int64_t warpRows, warpCols, tilesM, tilesN;
  Type operand;
};

class MmaContraction : public ContractionLowering {
public:
  MmaContraction(KernelContext &ctx, MmaLayout layout)
      : ContractionLowering(ctx), layout(layout) {}

  /// Gives each thread the result elements of its lane in its warp's mma
  /// tiles (elementCoords, tile by tile in the accumulator's layout), and
  /// computes the fragment coordinates of its lane (mmaCoords).
  bool assignElements() override;

  /// Per step of k, both operand chunks are staged in shared memory (f16
  /// or bf16 before their widening, or f32), then each warp loads its A
  /// and B fragments and accumulates its tiles with kernelir.mma.
  LogicalResult lower(tileir::ContractOp contract) override;

  bool onTensorCores() const override { return true; }

private:
  /// Whether a tensor-core contraction of halves stores its B chunks
  /// n-major (ldmatrix), else k-major (ldmatrix .trans): n-major unless
  /// only the k-major chunk can be copied asynchronously, as a row-major B
  /// (a weight used as `x @ w`) is.
  bool storesRhsNMajor(tileir::ContractOp contract);

  MmaLayout layout;
  /// This lane's fragment coordinates, per value of the fragment: of the
  /// accumulator (row, column), and of a tf32 B (k, column), which loads
  /// element by element (the other fragments load with ldmatrix).
  struct MmaLaneCoords {
    SmallVector<std::pair<Value, Value>> accumulator, tf32Rhs;
    SmallVector<std::pair<Value, Value>> &of(MmaOperand operand) {
      return operand == MmaOperand::Acc ? accumulator : tf32Rhs;
    }
  } mmaCoords;
  /// The origin (row, column) of this warp's tiles in the block tile.
  Value warpRow0, warpCol0;
};
} // namespace

/// The tensor-core layout of a contraction kernel whose operands are f16
/// (or bf16) widened to f32, or f32 with `tf32`, whose block tile splits
/// into whole mma tiles among its warps and whose k step is a multiple of
/// the mma's k; none otherwise.
static std::optional<MmaLayout> chooseMmaLayout(tileir::KernelOp kernel,
                                                MultiplyOptions multiply) {
  auto contracts = kernel.getBody().getOps<tileir::ContractOp>();
  if (!multiply.tensorCores || contracts.empty())
    return std::nullopt;
  // Sibling contractions (one per accumulator) share the warps' layout:
  // they take the same instruction.
  Type operand = (*contracts.begin()).getTensorCoreOperandType(multiply.tf32);
  if (!operand || llvm::any_of(contracts, [&](tileir::ContractOp contract) {
        return contract.getTensorCoreOperandType(multiply.tf32) != operand ||
               contract.getStep() % kernelir::getMmaK(operand) != 0;
      }))
    return std::nullopt;
  ArrayRef<int64_t> tile = kernel.getTile();
  size_t rank = tile.size();
  int64_t rows = tile[rank - 2], cols = tile[rank - 1];
  int64_t threads = kernel.getThreads();
  if (rows % kMmaM != 0 || cols % kMmaN != 0 || threads % kWarpSize != 0 ||
      llvm::any_of(tile.drop_back(2), [](int64_t t) { return t != 1; }))
    return std::nullopt;
  int64_t warps = threads / kWarpSize;
  int64_t tilesM = rows / kMmaM, tilesN = cols / kMmaN;
  // The warp grid whose warps load the fewest fragments per step (A per
  // row of tiles, B per column): the squarest warp tile.
  std::optional<MmaLayout> best;
  for (int64_t warpRows = 1; warpRows <= warps; ++warpRows) {
    int64_t warpCols = warps / warpRows;
    if (warps % warpRows != 0 || tilesM % warpRows != 0 ||
        tilesN % warpCols != 0)
      continue;
    MmaLayout layout{warpRows, warpCols, tilesM / warpRows, tilesN / warpCols,
                     operand};
    if (!best || layout.tilesM + layout.tilesN < best->tilesM + best->tilesN)
      best = layout;
  }
  return best;
}

std::unique_ptr<ContractionLowering>
strata::detail::createMmaContraction(KernelContext &ctx) {
  std::optional<MmaLayout> layout = chooseMmaLayout(ctx.kernel, ctx.multiply);
  if (!layout)
    return nullptr;
  return std::make_unique<MmaContraction>(ctx, *layout);
}

bool MmaContraction::assignElements() {
  Location loc = kernel.getLoc();
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value warp = kernelir::WarpIdOp::create(b, loc);
  Value lane = kernelir::LaneIdOp::create(b, loc);
  warpRow0 = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, warp, index(layout.warpCols)),
      index(layout.tilesM * kMmaM));
  warpCol0 = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, warp, index(layout.warpCols)),
      index(layout.tilesN * kMmaN));
  // The coordinates of the lane's accumulator elements, and of its tf32 B
  // elements (loaded one by one; everything else loads with ldmatrix).
  for (MmaOperand operand : {MmaOperand::Rhs, MmaOperand::Acc}) {
    if (operand == MmaOperand::Rhs && !layout.operand.isF32())
      continue;
    AffineMap map =
        kernelir::getMmaFragmentMap(b.getContext(), operand, layout.operand);
    int64_t size =
        kernelir::getMmaFragmentType(operand, layout.operand).getNumElements();
    for (int64_t v = 0; v < size; ++v) {
      SmallVector<Value> rc =
          *affine::expandAffineMap(b, loc, map, ValueRange{lane, index(v)});
      mmaCoords.of(operand).push_back({rc[0], rc[1]});
    }
  }
  // The result elements, tile by tile, in the accumulator's order.
  size_t rank = kernel.getTile().size();
  Value zero = index(0);
  for (int64_t m = 0; m < layout.tilesM; ++m)
    for (int64_t n = 0; n < layout.tilesN; ++n)
      for (auto [row, col] : mmaCoords.accumulator) {
        SmallVector<Value> coords(rank - 2, zero);
        coords.push_back(arith::AddIOp::create(
            b, loc, warpRow0,
            arith::AddIOp::create(b, loc, row, index(m * kMmaM))));
        coords.push_back(arith::AddIOp::create(
            b, loc, warpCol0,
            arith::AddIOp::create(b, loc, col, index(n * kMmaN))));
        ctx.elementCoords.push_back(coords);
      }
  ctx.vectorWidth = chooseAccumulatorPairWidth();
  return true;
}

bool MmaContraction::storesRhsNMajor(tileir::ContractOp contract) {
  Region &rhs = contract.getRhs();
  auto copied = [&](bool transposed) {
    return planAsyncCopy(rhs,
                         rhsChunkShape(contract, /*narrow=*/true, transposed))
        .has_value();
  };
  return copied(/*transposed=*/true) || !copied(/*transposed=*/false);
}

LogicalResult MmaContraction::lower(tileir::ContractOp contract) {
  Location loc = contract.getLoc();
  int64_t step = contract.getStep();
  // f16 or bf16 (the operands before their widening), or f32 (tf32).
  Type operand = layout.operand;
  bool narrow = !operand.isF32();
  int64_t kStep = kernelir::getMmaK(operand);
  // Halves: B is staged n x k or k x n, whichever its buffer's rows allow
  // to copy asynchronously (storesRhsNMajor), and loads with ldmatrix
  // either way (.trans from k x n); tf32's B is staged k x n.
  bool rhsTransposed = narrow && storesRhsNMajor(contract);
  Value lhsChunk, rhsChunk;
  std::tie(lhsChunk, rhsChunk) =
      createChunks(contract, operand, rhsTransposed, /*fragments=*/true);
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  auto accType = kernelir::getMmaFragmentType(MmaOperand::Acc, operand);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(operand));
  // The fragment of `which` whose tile starts at row (A) or column (B)
  // `base` of the block tile, at k0 of the chunk. The warp loads A's 16
  // rows with one ldmatrix, and halves' B too (8 columns stored as rows,
  // or 16 k rows of 8 columns with .trans). tf32's B (staged k x n;
  // ldmatrix cannot transpose 32-bit elements): a register is one
  // element, one shared load each at (k, column).
  auto fragment = [&](MmaOperand which, Value slot, Value base,
                      Value k0) -> Value {
    bool isLhs = which == MmaOperand::Lhs;
    auto type = kernelir::getMmaFragmentType(which, operand);
    Value chunk = isLhs ? lhsChunk : rhsChunk;
    if (isLhs || (narrow && rhsTransposed))
      return kernelir::LdMatrixOp::create(b, loc, type, chunk,
                                          chunkIndices(slot, base, k0));
    if (narrow)
      return kernelir::LdMatrixOp::create(b, loc, type, chunk,
                                          chunkIndices(slot, k0, base),
                                          /*transpose=*/true);
    Value result = arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
    for (int64_t r = 0; r < type.getDimSize(0); ++r) {
      auto [k, column] = mmaCoords.tf32Rhs[r];
      Value x = kernelir::LoadOp::create(
          b, loc, chunk, chunkIndices(slot, add(k0, k), add(base, column)));
      result =
          vector::InsertOp::create(b, loc, x, result, ArrayRef<int64_t>{r, 0});
    }
    return result;
  };
  int64_t tilesM = layout.tilesM, tilesN = layout.tilesN;
  SmallVector<Value> init(tilesM * tilesN, arith::ConstantOp::create(
                                               b, loc, b.getZeroAttr(accType)));
  auto kLoop = stagedLoop(
      contract, lhsChunk, rhsChunk, zero, narrow, rhsTransposed, init,
      [&](ValueRange acc, Value slot) {
        SmallVector<Value> next(acc);
        for (int64_t kk = 0; kk < step; kk += kStep) {
          Value k = index(kk);
          SmallVector<Value> lhs, rhs;
          for (int64_t m = 0; m < tilesM; ++m)
            lhs.push_back(fragment(MmaOperand::Lhs, slot,
                                   add(warpRow0, index(m * kMmaM)), k));
          for (int64_t n = 0; n < tilesN; ++n)
            rhs.push_back(fragment(MmaOperand::Rhs, slot,
                                   add(warpCol0, index(n * kMmaN)), k));
          for (int64_t m = 0; m < tilesM; ++m)
            for (int64_t n = 0; n < tilesN; ++n) {
              Value &tileAcc = next[m * tilesN + n];
              tileAcc = kernelir::MmaOp::create(b, loc, accType, lhs[m], rhs[n],
                                                tileAcc);
            }
        }
        return next;
      });
  // The result elements in elementCoords' order: tile by tile, value v of
  // a tile at [v / 2][v % 2] of its accumulator.
  SmallVector<Value> &elements = ctx.scalars[contract.getResult()];
  for (Value acc : kLoop.getResults())
    for (int64_t v = 0; v < 4; ++v)
      elements.push_back(vector::ExtractOp::create(
          b, loc, acc, ArrayRef<int64_t>{v / 2, v % 2}));
  return success();
}
