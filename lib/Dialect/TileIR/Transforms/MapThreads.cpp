// tileir-map-threads: how many threads share each kernel's tile, the one
// decision of this pass (see Passes.td).

#include "strata/Dialect/TileIR/Analysis/SharedChunks.h"
#include "strata/Dialect/TileIR/Transforms/Passes.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "llvm/Support/MathExtras.h"

namespace strata::tileir {
#define GEN_PASS_DEF_TILEIRMAPTHREADSPASS
#include "strata/Dialect/TileIR/Transforms/Passes.h.inc"
} // namespace strata::tileir

using namespace mlir;
using namespace strata;
using namespace strata::tileir;

namespace {
/// Elementwise: each thread covers 128 bits (one vector access per buffer
/// where the accesses allow), at most 128 threads.
constexpr int64_t kBitsPerThread = 128;
constexpr int64_t kMaxElementwiseThreads = 128;
/// Contraction: at least 4 result elements each (a register tile), at most
/// 256 threads.
constexpr int64_t kContractionElementsPerThread = 4;
constexpr int64_t kMaxContractionThreads = 256;
/// Row: kRowElementsPerThread of the row each, one warp to 256 threads.
constexpr int64_t kMaxRowThreads = 256;

/// The widest element (in bits) the kernel's tile accesses move.
int64_t widestElementBits(KernelOp kernel) {
  int64_t bits = 8;
  kernel.walk([&](Operation *op) {
    Type element;
    if (auto load = dyn_cast<LoadOp>(op))
      element = load.getMemref().getType().getElementType();
    else if (auto store = dyn_cast<StoreOp>(op))
      element = store.getMemref().getType().getElementType();
    if (element)
      bits = std::max<int64_t>(
          bits, element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 64);
  });
  return bits;
}

int64_t defaultThreads(KernelOp kernel) {
  int64_t elements = computeProduct(kernel.getTile());
  switch (kernel.getProgramKind()) {
  case ProgramKind::Row:
    // Several rows per program instance: a group of lanes each (the
    // Q-tile schedule), else a warp each.
    if (elements > 1)
      return (isQTiled(kernel) ? kQTileThreadsPerRow : kWarpSize) * elements;
    return std::clamp<int64_t>(
        llvm::PowerOf2Ceil(
            llvm::divideCeil(getLongestRow(kernel), kRowElementsPerThread)),
        kWarpSize, kMaxRowThreads);
  case ProgramKind::Contraction:
    return std::clamp<int64_t>(elements / kContractionElementsPerThread, 1,
                               kMaxContractionThreads);
  case ProgramKind::Generic:
    return std::min<int64_t>(elements, kMaxThreadsPerBlock);
  case ProgramKind::Elementwise: {
    int64_t perThread =
        std::max<int64_t>(kBitsPerThread / widestElementBits(kernel), 1);
    return std::clamp<int64_t>(elements / perThread, 1, kMaxElementwiseThreads);
  }
  }
  llvm_unreachable("unknown program kind");
}
} // namespace

int64_t strata::tileir::getLongestRow(KernelOp kernel) {
  int64_t longest = 1;
  for (Operation &op : kernel.getBody().front())
    if (auto loop = getCooperativeLoop(&op))
      longest = std::max(longest, computeProduct(loop->second));
  return longest;
}

bool strata::tileir::isQTiled(KernelOp kernel) {
  return kernel.getProgramKind() == ProgramKind::Row &&
         kernel.getDomain().back() >= kMinQTileRows &&
         sharesFoldChunksAcrossRows(kernel);
}

FailureOr<int64_t> strata::tileir::chooseThreads(KernelOp kernel,
                                                 int64_t forced) {
  int64_t threads = forced ? forced : defaultThreads(kernel);
  if (threads <= 0 || threads > kMaxThreadsPerBlock)
    return kernel.emitError("threads must be in [1, ")
           << kMaxThreadsPerBlock << "], got " << threads;
  int64_t elements = computeProduct(kernel.getTile());
  if (kernel.isCooperative()) {
    int64_t group = threads / elements;
    if (elements > 1 && (threads % elements != 0 || group > kWarpSize ||
                         !llvm::isPowerOf2_64(group)))
      return kernel.emitError("a row program of ")
             << elements << " rows per program instance gives each row a "
             << "power of two of at most 32 threads: it needs " << elements
             << " times 1, 2, 4, 8, 16 or 32 threads, got " << threads;
    // Rows of several threads combine them with warp shuffles, which need
    // every lane of the warp: the block must be whole warps (the GPU
    // pipelines do not verify kernelir.shuffle's own check).
    if (elements == 1 && threads != 1 && threads % kWarpSize != 0)
      return kernel.emitError("a row program needs one thread or a whole "
                              "number of warps (a multiple of 32 up to 1024 "
                              "threads), got ")
             << threads;
    if (group > 1 && threads % kWarpSize != 0)
      return kernel.emitError("the threads of a row program shuffle across "
                              "whole warps: ")
             << threads << " threads for " << elements
             << " rows leave a warp partial (a multiple of 32 is needed)";
    return threads;
  }
  if (elements % threads != 0)
    return kernel.emitError("a tile of ")
           << elements << " elements cannot be split evenly among " << threads
           << " threads";
  return threads;
}

namespace {
struct TileIRMapThreadsPass
    : strata::tileir::impl::TileIRMapThreadsPassBase<TileIRMapThreadsPass> {
  using TileIRMapThreadsPassBase::TileIRMapThreadsPassBase;

  void runOnOperation() override {
    WalkResult result = getOperation()->walk([&](KernelOp kernel) {
      FailureOr<int64_t> chosen = chooseThreads(kernel, threads);
      if (failed(chosen))
        return WalkResult::interrupt();
      kernel.setThreads(*chosen);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
