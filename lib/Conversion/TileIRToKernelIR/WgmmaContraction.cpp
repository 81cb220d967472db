// A tileir.contract of f16 or bf16 operands by warpgroups (sm_90a's wgmma):
// the warpgroups of the block share its tile as slabs of 64 rows; per step
// of k the operand chunks are staged in shared memory in wgmma's
// core-matrix layout (halves before their widening to f32; B n-major), and
// each warpgroup multiplies each of its slabs with one kernelir.wgmma that
// reads them there: no fragment loads through registers, one instruction
// per 64 x n x 16 instead of (64 / 16) (n / 8) mma.sync per warpgroup.
// With `tma`, where the operands allow it, TMA copies the chunks (swizzled)
// on a ring of mbarriers instead of the threads' cp.async.

#include "ContractionLowering.h"

using namespace mlir;
using namespace strata;
using namespace strata::detail;

using kernelir::kWgmmaM;

namespace {
/// How the warpgroups of a contraction kernel share its block tile with
/// kernelir.wgmma: a grid of groupRows x groupCols warpgroups, each owning
/// `slabs` slabs of 64 rows by n columns, multiplying operands of
/// `operand` (f16 or bf16).
struct WgmmaLayout {
  int64_t groupRows, groupCols, slabs, n;
  Type operand;
};

class WgmmaContraction : public ContractionLowering {
public:
  WgmmaContraction(KernelContext &ctx, WgmmaLayout layout)
      : ContractionLowering(ctx), layout(layout) {}

  /// Gives each thread the result elements of its lane in its warpgroup's
  /// slabs (elementCoords, slab by slab in wgmma's D layout).
  bool assignElements() override;

  /// Per step of k, both operand chunks are staged in shared memory in
  /// wgmma's core-matrix layout (B n-major), fenced for the async proxy,
  /// then each warpgroup multiplies its slabs with one kernelir.wgmma
  /// each, straight from the chunks.
  LogicalResult lower(tileir::ContractOp contract) override;

  bool onTensorCores() const override { return true; }

protected:
  /// Unswizzled core matrices (16-byte rows), or rows of the swizzle's
  /// bytes where TMA copies the chunks.
  int64_t coreMatrixWidth() const override {
    if (swizzle)
      return swizzle * 8 / layout.operand.getIntOrFloatBitWidth();
    return kernelir::getLdMatrixRowElements(layout.operand);
  }

private:
  WgmmaLayout layout;
  /// The chunks' swizzle where TMA copies them; 0 otherwise.
  int64_t swizzle = 0;
  /// The origin (row, column) of this warpgroup's slabs in the block tile.
  Value warpRow0, warpCol0;
};
} // namespace

/// The warpgroup layout of a contraction kernel whose operands are f16 or
/// bf16 widened to f32, where wgmma is allowed, the block tile splits into
/// whole 64-row slabs among whole warpgroups (n a multiple of 8 up to 256)
/// and the k step is a multiple of 16; none otherwise.
static std::optional<WgmmaLayout> chooseWgmmaLayout(tileir::KernelOp kernel,
                                                    MultiplyOptions multiply) {
  auto contracts = kernel.getBody().getOps<tileir::ContractOp>();
  if (!multiply.wgmma || !multiply.tensorCores || contracts.empty())
    return std::nullopt;
  // Sibling contractions (one per accumulator, as a gated MLP's pair)
  // share the warpgroups' layout: they take the same instruction, each
  // its own k loop.
  Type operand = (*contracts.begin()).getWidenedHalfType();
  if (!operand || llvm::any_of(contracts, [&](tileir::ContractOp contract) {
        return contract.getWidenedHalfType() != operand ||
               contract.getStep() % kernelir::kWgmmaK != 0;
      }))
    return std::nullopt;
  ArrayRef<int64_t> tile = kernel.getTile();
  size_t rank = tile.size();
  int64_t rows = tile[rank - 2], cols = tile[rank - 1];
  int64_t threads = kernel.getThreads();
  if (rows % kWgmmaM != 0 || threads % kernelir::kWarpgroupSize != 0 ||
      llvm::any_of(tile.drop_back(2), [](int64_t t) { return t != 1; }))
    return std::nullopt;
  int64_t groups = threads / kernelir::kWarpgroupSize, slabs = rows / kWgmmaM;
  // The most warpgroups along the rows (each then covers the widest n,
  // the fewest instructions), as long as their columns make a wgmma.
  for (int64_t groupRows = std::min(groups, slabs); groupRows >= 1;
       --groupRows) {
    int64_t groupCols = groups / groupRows;
    if (groups % groupRows != 0 || slabs % groupRows != 0 ||
        cols % (8 * groupCols) != 0 || cols / groupCols > kernelir::kWgmmaMaxN)
      continue;
    return WgmmaLayout{groupRows, groupCols, slabs / groupRows,
                       cols / groupCols, operand};
  }
  return std::nullopt;
}

std::unique_ptr<ContractionLowering>
strata::detail::createWgmmaContraction(KernelContext &ctx) {
  std::optional<WgmmaLayout> layout =
      chooseWgmmaLayout(ctx.kernel, ctx.multiply);
  if (!layout)
    return nullptr;
  return std::make_unique<WgmmaContraction>(ctx, *layout);
}

bool WgmmaContraction::assignElements() {
  Location loc = kernel.getLoc();
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto add = [&](Value x, int64_t c) -> Value {
    return arith::AddIOp::create(b, loc, x, index(c));
  };
  Value warp = kernelir::WarpIdOp::create(b, loc);
  Value lane = kernelir::LaneIdOp::create(b, loc);
  Value group = arith::DivUIOp::create(b, loc, warp, index(4));
  warpRow0 = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, group, index(layout.groupCols)),
      index(layout.slabs * kWgmmaM));
  warpCol0 = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, group, index(layout.groupCols)),
      index(layout.n));
  // wgmma's D layout: warp q of the warpgroup owns rows 16 q + g (+ 8),
  // lane 4 g + t columns 8 j + 2 t (+ 1).
  Value q = arith::RemUIOp::create(b, loc, warp, index(4));
  Value g = arith::DivUIOp::create(b, loc, lane, index(4));
  Value t = arith::RemUIOp::create(b, loc, lane, index(4));
  Value row = arith::AddIOp::create(
      b, loc, warpRow0,
      arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, q, index(16)),
                            g));
  Value col = arith::AddIOp::create(b, loc, warpCol0,
                                    arith::MulIOp::create(b, loc, t, index(2)));
  size_t rank = kernel.getTile().size();
  Value zero = index(0);
  for (int64_t s = 0; s < layout.slabs; ++s)
    for (int64_t j = 0; j < layout.n / 8; ++j)
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t i = 0; i < 2; ++i) {
          SmallVector<Value> coords(rank - 2, zero);
          coords.push_back(add(row, s * kWgmmaM + 8 * h));
          coords.push_back(add(col, 8 * j + i));
          ctx.elementCoords.push_back(coords);
        }
  ctx.vectorWidth = chooseAccumulatorPairWidth();
  return true;
}

LogicalResult WgmmaContraction::lower(tileir::ContractOp contract) {
  Location loc = contract.getLoc();
  Type operand = layout.operand;
  std::optional<TmaCopies> tma;
  if (ctx.multiply.tma)
    tma = planTmaCopies(contract, operand, layout.n);
  swizzle = tma ? tma->swizzle : 0;
  // B is stored n x k (K-major), or as TMA copies a row-major B, k x n in
  // blocks of whole swizzled rows of n (MN-major).
  bool rhsMnMajor = tma && tma->rhsMnMajor;
  Value lhsChunk, rhsChunk;
  std::tie(lhsChunk, rhsChunk) =
      createChunks(contract, operand, /*rhsTransposed=*/!rhsMnMajor);
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto accType = VectorType::get({layout.n / 8, 2, 2}, b.getF32Type());
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(operand));
  SmallVector<Value> init(
      layout.slabs, arith::ConstantOp::create(b, loc, b.getZeroAttr(accType)));
  // Each slab's rows of A and the warpgroup's columns of B, from k block 0
  // of the step's chunks.
  auto at = [&](Value slot, Value block, Value row) {
    SmallVector<Value> indices{block, row, index(0)};
    if (slot)
      indices.insert(indices.begin(), slot);
    return indices;
  };
  // An MN-major B starts at the warpgroup's block of columns, k row 0.
  SmallVector<Value> rhsStart{index(0), warpCol0};
  if (rhsMnMajor)
    rhsStart = {
        arith::DivUIOp::create(b, loc, warpCol0, index(coreMatrixWidth())),
        index(0)};
  // On the TMA ring, a step's wgmmas stay in flight (one group per slab)
  // until the next step's are issued: each step's wait retires the step
  // before's, whose slot the ring then refills. One stage has no slot to
  // refill while a step runs.
  bool inFlight = tma && ctx.multiply.overlapWgmma && contract.getStages() > 1;
  auto multiply = [&](ValueRange acc, Value slot) -> SmallVector<Value> {
    SmallVector<Value> next;
    for (int64_t s = 0; s < layout.slabs; ++s) {
      Value row = arith::AddIOp::create(b, loc, warpRow0, index(s * kWgmmaM));
      next.push_back(kernelir::WgmmaOp::create(
          b, loc, accType, lhsChunk, at(slot, index(0), row), rhsChunk,
          at(slot, rhsStart[0], rhsStart[1]), acc[s], contract.getStep(),
          swizzle, rhsMnMajor, inFlight));
    }
    if (inFlight)
      return kernelir::WgmmaWaitOp::create(b, loc, TypeRange(ValueRange(next)),
                                           next, layout.slabs)
          .getResults();
    return next;
  };
  scf::ForOp kLoop =
      tma ? tmaStagedLoop(contract, *tma, lhsChunk, rhsChunk, init, multiply,
                          inFlight)
          : stagedLoop(contract, lhsChunk, rhsChunk, zero, /*narrow=*/true,
                       /*rhsTransposed=*/true, init, multiply);
  SmallVector<Value> accs(kLoop.getResults());
  if (inFlight) // Every group retired before the epilogue reads them.
    accs = kernelir::WgmmaWaitOp::create(b, loc, TypeRange(ValueRange(accs)),
                                         accs, 0)
               .getResults();
  // The result elements in elementCoords' order: slab by slab, [j][h][i].
  SmallVector<Value> &elements = ctx.scalars[contract.getResult()];
  for (Value acc : accs)
    for (int64_t v = 0; v < accType.getNumElements(); ++v)
      elements.push_back(vector::ExtractOp::create(
          b, loc, acc, ArrayRef<int64_t>{v / 4, v / 2 % 2, v % 2}));
  return success();
}
