// Translating a tile program (an elementwise, generic or contraction
// tileir.kernel): each thread owns elements of the tile.

#ifndef STRATA_LIB_CONVERSION_TILEIRTOKERNELIR_TILEPROGRAMTRANSLATOR_H
#define STRATA_LIB_CONVERSION_TILEIRTOKERNELIR_TILEPROGRAMTRANSLATOR_H

#include "ContractionLowering.h"
#include "KernelBodyTranslator.h"

namespace strata {
namespace detail {
using namespace mlir;

/// Translates a tile program. A tile value becomes `elementsPerThread`
/// scalars per thread: thread t owns tile elements t, t + threads, t + 2 *
/// threads, ..., or runs of `vectorWidth` neighbouring elements where its
/// accesses can be vectors (see chooseVectorWidth; in a contraction kernel,
/// what its ContractionLowering assigns). The kernel's contractions are
/// lowered by their instruction family's ContractionLowering; the tile's
/// loads, maps, stores and generic points here.
class TileProgramTranslator : public KernelBodyTranslator {
public:
  using KernelBodyTranslator::KernelBodyTranslator;

  bool multipliesOnTensorCores() const override {
    return contraction && contraction->onTensorCores();
  }

private:
  void prepare() override;
  LogicalResult translateProgramOp(Operation &op) override;

  /// The widest runs of neighbouring elements (up to kMaxVectorBits) each
  /// thread can own so that some tile access reads or writes a run as one
  /// vector, aligned, with one guard; 1 where none can.
  int64_t chooseVectorWidth();

  /// The elements one access through `map` to `buffer` covers: the kernel's
  /// vector width where the run is a vector of the buffer, else 1.
  int64_t runWidth(AffineMap map, Value buffer);

  LogicalResult translateLoad(tileir::LoadOp load);
  /// Each owned element's coordinate along the op's dimension.
  LogicalResult translateCoordinate(tileir::CoordinateOp coordinate);
  LogicalResult translateStore(tileir::StoreOp store);
  /// With tma-store, a contraction kernel's store of its result tile by
  /// TMA (TmaEpilogue.cpp): whether done (not where the store or the
  /// buffer does not allow it: the threads store then).
  bool storeTileByTma(tileir::StoreOp store);
  /// The staging buffer of such a store, of `type`, its copies needing
  /// `alignment`: over an operand chunk the kernel is done with where one
  /// holds it, else its own; null where neither fits in a block's shared
  /// memory.
  Value createStaging(Location loc, MemRefType type, int64_t alignment);
  /// A barrier after the last reads of `chunk` here (where a staging
  /// buffer over it is written next).
  void awaitLastReads(Location loc, Value chunk);

  LogicalResult translateMap(tileir::MapOp map);

  /// The generic schedule: each owned element is a point that runs the
  /// Loop IR body (lowered to scalar loops by the same conversion) when it
  /// lies inside the domain.
  LogicalResult translatePoints(tileir::ForEachPointOp points);

  /// The buffer indices of element k of a tile at `origin`, and whether the
  /// element lies inside the kernel's domain.
  std::pair<SmallVector<Value>, Value> access(Location loc, ValueRange origin,
                                              AffineMap map, int64_t k);

  /// The lowering of the kernel's contractions (null without any).
  std::unique_ptr<ContractionLowering> contraction;
};

} // namespace detail
} // namespace strata

#endif
