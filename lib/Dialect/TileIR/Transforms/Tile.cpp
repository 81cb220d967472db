// tileir-tile: the tile each program instance of a kernel owns, the one
// decision of this pass (see Passes.td).

#include "strata/Dialect/TileIR/Transforms/Passes.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "llvm/Support/MathExtras.h"

namespace strata::tileir {
#define GEN_PASS_DEF_TILEIRTILEPASS
#include "strata/Dialect/TileIR/Transforms/Passes.h.inc"
} // namespace strata::tileir

using namespace mlir;
using namespace strata;
using namespace strata::tileir;

namespace {
/// Points per generic tile: one per thread, and a point may run whole
/// loops, so fewer than an elementwise tile's elements.
constexpr int64_t kGenericTilePoints = 128;
/// A row this short takes one warp (tileir-map-threads), and a program
/// instance takes up to 8 of them: fewer, fuller blocks than one warp
/// each (a GPU runs a bounded number of blocks per multiprocessor).
constexpr int64_t kWarpRowLength = kWarpSize * kRowElementsPerThread;
constexpr int64_t kMaxRowsPerProgram = 8;

/// The rows per program instance of a row program: for the Q-tile
/// schedule, kQTileRows; else up to kMaxRowsPerProgram short rows along the
/// innermost domain dimension, a power of two that divides it (so every
/// thread group has a row).
SmallVector<int64_t> rowTile(KernelOp kernel) {
  ArrayRef<int64_t> domain = kernel.getDomain();
  SmallVector<int64_t> tile(domain.size(), 1);
  if (isQTiled(kernel)) {
    // The last program instance's groups past the domain idle.
    tile.back() = std::min<int64_t>(kQTileRows,
                                    llvm::PowerOf2Ceil(domain.back()));
    return tile;
  }
  if (getLongestRow(kernel) > kWarpRowLength)
    return tile;
  int64_t rows = kMaxRowsPerProgram;
  while (domain.back() % rows != 0)
    rows /= 2;
  tile.back() = rows;
  return tile;
}

/// About `elements` elements, innermost dimensions first (consecutive
/// threads touch consecutive addresses), powers of two (the threads split
/// them evenly).
SmallVector<int64_t> innermostFirst(ArrayRef<int64_t> domain,
                                    int64_t elements) {
  SmallVector<int64_t> tile(domain.size(), 1);
  for (int64_t d = domain.size() - 1; d >= 0 && elements > 1; --d) {
    tile[d] = std::min<int64_t>(llvm::PowerOf2Ceil(domain[d]), elements);
    elements /= tile[d];
  }
  return tile;
}

/// Whether the contraction kernel `kernel` takes kLargeContractionBlockTile
/// tiles: it multiplies on tensor cores (the same test as
/// convert-tileir-to-kernelir's) and such tiles still make
/// kMinLargeTilePrograms program instances.
bool usesLargeBlockTiles(KernelOp kernel, bool tensorCores, bool tf32) {
  auto contracts = kernel.getBody().getOps<ContractOp>();
  if (!tensorCores || !llvm::hasSingleElement(contracts) ||
      !(*contracts.begin()).getTensorCoreOperandType(tf32))
    return false;
  ArrayRef<int64_t> domain = kernel.getDomain();
  int64_t programs = 1;
  for (auto [d, size] : llvm::enumerate(domain))
    programs *= d + 2 >= domain.size()
                    ? llvm::divideCeil(size, kLargeContractionBlockTile)
                    : size;
  return programs >= kMinLargeTilePrograms;
}

/// Whether the contraction kernel `kernel` may take smaller tiles to fill
/// the GPU: it multiplies on FMAs (a tensor-core layout wants its tiles
/// whole: warpgroups take 64-row slabs, warps 16 x 8 tiles in pairs).
bool shrinksToFillGrid(KernelOp kernel, bool tensorCores, bool tf32) {
  return llvm::none_of(
      kernel.getBody().getOps<ContractOp>(), [&](ContractOp contract) {
        return tensorCores && contract.getTensorCoreOperandType(tf32);
      });
}

/// Halves the longer of a contraction tile's rows and columns while the
/// kernel makes fewer than kMinContractionPrograms program instances and
/// that side stays at least kMinContractionBlockTile (ScheduleModel.h).
void shrinkToFillGrid(ArrayRef<int64_t> domain, MutableArrayRef<int64_t> tile) {
  auto programs = [&] {
    int64_t n = 1;
    for (auto [size, t] : llvm::zip(domain, tile))
      n *= llvm::divideCeil(size, t);
    return n;
  };
  size_t rows = domain.size() - 2, columns = domain.size() - 1;
  while (programs() < kMinContractionPrograms) {
    size_t longer = tile[rows] >= tile[columns] ? rows : columns;
    if (tile[longer] / 2 < kMinContractionBlockTile)
      return;
    tile[longer] /= 2;
  }
}

/// Checks a forced tile against the kernel's kind.
LogicalResult checkForcedTile(KernelOp kernel, ArrayRef<int64_t> tile) {
  size_t rank = kernel.getDomain().size();
  if (tile.size() != rank)
    return kernel.emitError("tile-sizes has ")
           << tile.size() << " entries but the kernel's domain has " << rank
           << " dimensions";
  for (int64_t t : tile)
    if (t <= 0)
      return kernel.emitError("tile sizes must be positive, got ") << t;
  switch (kernel.getProgramKind()) {
  case ProgramKind::Row:
    return success(); // Groups past the domain idle.
  case ProgramKind::Contraction:
    for (int64_t t : tile.drop_back(2))
      if (t != 1)
        return kernel.emitError("a contraction tiles rows and columns; its "
                                "batch dimensions take tile size 1, got ")
               << t;
    return success();
  default:
    return success();
  }
}
} // namespace

FailureOr<SmallVector<int64_t>>
strata::tileir::chooseTile(KernelOp kernel, ArrayRef<int64_t> forced,
                           int64_t tileElements, bool tensorCores, bool tf32) {
  if (!forced.empty()) {
    if (failed(checkForcedTile(kernel, forced)))
      return failure();
    return llvm::to_vector(forced);
  }
  ArrayRef<int64_t> domain = kernel.getDomain();
  switch (kernel.getProgramKind()) {
  case ProgramKind::Row:
    return rowTile(kernel);
  case ProgramKind::Contraction: {
    int64_t block = usesLargeBlockTiles(kernel, tensorCores, tf32)
                        ? kLargeContractionBlockTile
                        : kContractionBlockTile;
    SmallVector<int64_t> tile(domain.size(), 1);
    for (size_t d = domain.size() - 2; d < domain.size(); ++d)
      tile[d] = std::min<int64_t>(llvm::PowerOf2Ceil(domain[d]), block);
    if (shrinksToFillGrid(kernel, tensorCores, tf32))
      shrinkToFillGrid(domain, tile);
    return tile;
  }
  case ProgramKind::Generic:
    return innermostFirst(domain, kGenericTilePoints);
  case ProgramKind::Elementwise:
    if (tileElements <= 0 || !llvm::isPowerOf2_64(tileElements))
      return kernel.emitError("tile-elements must be a positive power of "
                              "two, got ")
             << tileElements;
    return innermostFirst(domain, tileElements);
  }
  llvm_unreachable("unknown program kind");
}

LogicalResult strata::tileir::setTile(KernelOp kernel, ArrayRef<int64_t> tile) {
  int64_t elements = computeProduct(tile);
  // Fewer threads than rows (the trivial schedule's one warp, for a Q
  // tile of 64 rows) become one thread per row, which tileir-map-threads
  // then chooses again.
  if (kernel.isCooperative() && static_cast<int64_t>(kernel.getThreads()) < elements &&
      elements % kernel.getThreads() == 0)
    kernel.setThreads(elements);
  if (kernel.isCooperative() && kernel.getThreads() % elements != 0)
    return kernel.emitError("the ")
           << kernel.getThreads()
           << " threads chosen before cannot split into one group per row "
              "of a tile of "
           << elements
           << " rows; choose the tile first (tileir-tile, then "
              "tileir-map-threads)";
  if (!kernel.isCooperative() && elements % kernel.getThreads() != 0)
    return kernel.emitError("a tile of ")
           << elements << " elements cannot be split evenly among the "
           << kernel.getThreads()
           << " threads chosen before; choose the tile first "
              "(tileir-tile, then tileir-map-threads)";
  MLIRContext *ctx = kernel.getContext();
  kernel.setTile(tile);
  kernel.getBody().walk([&](Operation *op) {
    for (Value result : op->getResults())
      if (auto type = dyn_cast<TileType>(result.getType()))
        result.setType(TileType::get(ctx, tile, type.getElementType()));
  });
  return success();
}

namespace {
struct TileIRTilePass
    : strata::tileir::impl::TileIRTilePassBase<TileIRTilePass> {
  using TileIRTilePassBase::TileIRTilePassBase;

  void runOnOperation() override {
    SmallVector<int64_t> forced(tileSizes.begin(), tileSizes.end());
    WalkResult result = getOperation()->walk([&](KernelOp kernel) {
      FailureOr<SmallVector<int64_t>> tile =
          chooseTile(kernel, forced, tileElements, tensorCores, tf32);
      if (failed(tile) || failed(setTile(kernel, *tile)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
