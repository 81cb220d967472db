// tileir-raster: the order in which each contraction kernel's program
// instances take their tiles, the one decision of this pass (see
// Passes.td).

#include "strata/Dialect/TileIR/Transforms/Passes.h"
#include "strata/Dialect/Utils/GpuLimits.h"

namespace strata::tileir {
#define GEN_PASS_DEF_TILEIRRASTERPASS
#include "strata/Dialect/TileIR/Transforms/Passes.h.inc"
} // namespace strata::tileir

using namespace mlir;
using namespace strata;
using namespace strata::tileir;

namespace {
/// Rows of tiles per band where the pass chooses: Triton's and Inductor's
/// GROUP_M for their matmul templates. A wave of 132 instances then covers
/// 8 rows by about 16 columns of tiles.
constexpr int64_t kRasterGroupRows = 8;

/// Row by row, every row of tiles reads all of B (k x n of each product
/// in one matrix of the grid): from L2 while B stays there, which it does
/// not once it takes more than this share of L2 beside the A panels and
/// the results streaming through.
constexpr int64_t kMaxRowMajorSweptBytes = kL2Bytes / 2;

/// The bytes of the operands a row of tiles sweeps: every contraction's
/// k x n, in the type its chunks are staged in.
int64_t sweptBytes(KernelOp kernel) {
  int64_t bytes = 0, columns = kernel.getDomain().back();
  for (ContractOp contract : kernel.getBody().getOps<ContractOp>())
    bytes += contract.getK() * columns * contract.getStagedElementBytes();
  return bytes;
}

/// The band height of `kernel` (1: row-major): `forced` unless 0, else
/// kRasterGroupRows where the output's grid has more than `minPrograms`
/// tiles and more than one row and column of them, and the operands a
/// row of tiles sweeps outgrow their share of L2.
int64_t chooseGroup(KernelOp kernel, int64_t forced, int64_t minPrograms) {
  SmallVector<int64_t> grid = kernel.getGrid();
  if (kernel.getProgramKind() != ProgramKind::Contraction || grid.size() < 2)
    return 1;
  int64_t rows = grid[grid.size() - 2], columns = grid.back();
  // Bands taller than the grid order it as bands of all its rows do.
  if (forced != 0)
    return std::min(forced, rows);
  if (rows == 1 || columns == 1 || rows * columns <= minPrograms ||
      sweptBytes(kernel) <= kMaxRowMajorSweptBytes)
    return 1;
  return kRasterGroupRows;
}

struct TileIRRasterPass
    : strata::tileir::impl::TileIRRasterPassBase<TileIRRasterPass> {
  using TileIRRasterPassBase::TileIRRasterPassBase;

  void runOnOperation() override {
    if (group < 0 || minPrograms < 0) {
      emitError(getOperation()->getLoc())
          << getArgument() << ": group and min-programs must not be "
          << "negative, got group=" << static_cast<int64_t>(group)
          << " min-programs=" << static_cast<int64_t>(minPrograms);
      return signalPassFailure();
    }
    getOperation()->walk([&](KernelOp kernel) {
      int64_t rows = chooseGroup(kernel, group, minPrograms);
      if (rows == 1)
        kernel.removeRasterGroupAttr();
      else
        kernel.setRasterGroup(rows);
    });
  }
};
} // namespace
