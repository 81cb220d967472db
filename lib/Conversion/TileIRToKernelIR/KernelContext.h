// What every lowering of one tileir.kernel's body into its kernelir.func
// shares: the kernel, its launch shape's indices, the values the tile
// program's values became, and the tile elements each thread owns.

#ifndef STRATA_LIB_CONVERSION_TILEIRTOKERNELIR_KERNELCONTEXT_H
#define STRATA_LIB_CONVERSION_TILEIRTOKERNELIR_KERNELCONTEXT_H

#include "strata/Conversion/TileIRToKernelIR/TileIRToKernelIR.h"
#include "strata/Dialect/KernelIR/IR/KernelIR.h"
#include "strata/Dialect/TileIR/IR/TileIR.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace strata {
namespace detail {
using namespace mlir;

/// The widest global access of one thread, in bits (ld.global.v4.f32).
constexpr int64_t kMaxVectorBits = 128;

/// The indices of element (r, c) of a contraction's operand chunk in
/// `slot` (null where the chunk has no slots; see
/// ContractionLowering::stagedLoop).
SmallVector<Value> chunkIndices(Value slot, Value r, Value c);

/// The most elements of a vector access within kMaxVectorBits for every
/// buffer of `buffers` (1 if one has no integer or float elements).
int64_t maxVectorWidth(ArrayRef<MemRefType> buffers);

/// The tile loads' and stores' index maps and buffers of `kernel`, in
/// program order.
SmallVector<std::pair<AffineMap, MemRefType>>
tileAccesses(tileir::KernelOp kernel);

/// Whether an access through `map` reads (or writes) `width` neighbouring
/// elements of a row of `buffer` for `width` neighbouring values of the
/// innermost coordinate (the map dimensions `isInnermost` accepts), starting
/// at a multiple of `width`: the innermost buffer index is that coordinate
/// plus an offset free of it that is a multiple of `width`, no other index
/// uses it, and rows are multiples of `width` long.
bool isRowRun(AffineMap map, function_ref<bool(unsigned)> isInnermost,
              MemRefType buffer, int64_t width);

/// The state of one kernel's translation that its lowerings (the tile
/// body's elementwise and row programs, ContractionLowering) share. A tile
/// value becomes `elementsPerThread` scalars per thread, at the tile
/// coordinates `elementCoords` holds for each.
struct KernelContext {
  KernelContext(OpBuilder &b, tileir::KernelOp kernel, MultiplyOptions multiply)
      : b(b), kernel(kernel), multiply(multiply),
        elementsPerThread(kernel.getTileType(b.getF32Type()).getNumElements() /
                          kernel.getThreads()) {}

  /// A scf.for at the builder carrying `init`; `body` fills it (with the
  /// builder inside) and returns the values carried to the next iteration.
  scf::ForOp
  buildLoop(Location loc, Value lb, Value ub, Value step, ValueRange init,
            function_ref<SmallVector<Value>(Value, ValueRange)> body);

  OpBuilder &b;
  tileir::KernelOp kernel;
  MultiplyOptions multiply; // The instructions contractions may use.
  int64_t elementsPerThread;
  int64_t vectorWidth = 1; // Neighbouring elements a thread owns in a run.
  IRMapping mapping; // Non-tile values of the tile program -> kernel values.
  DenseMap<Value, SmallVector<Value>> scalars; // Tile -> this thread's scalars.
  SmallVector<Value> programIds;
  Block *entry = nullptr; // The kernel's entry block (shared buffers).
  Value thread;           // This thread's index in its block.
  /// In a persistent kernel (tileir.kernel's instances): the loop over the
  /// instance's tiles, before which what a block sets up once goes, and
  /// the tiles it took before this one (the ring of a TMA-staged
  /// contraction counts its steps across tiles); null otherwise.
  Operation *tileLoop = nullptr;
  Value tilesBefore;
  /// In a cooperative kernel the threads split into one group per point of
  /// the tile: the group's point (domain coordinates), this thread's group
  /// and index in it, and the threads of a group.
  SmallVector<Value> groupPoint;
  Value group, groupThread; // group: null with one group.
  int64_t groups = 1, groupThreads = 0;
  SmallVector<SmallVector<Value>> elementCoords; // Per owned element.
  /// Where some groups of the last program instance lie past the domain
  /// (a row tile that does not divide it): whether this group's row is in
  /// the domain; null otherwise.
  Value rowInDomain;
};

} // namespace detail
} // namespace strata

#endif
