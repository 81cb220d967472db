#ifndef STRATA_CONVERSION_LOOPIRTOTILEIR_H
#define STRATA_CONVERSION_LOOPIRTOTILEIR_H

#include "mlir/IR/PatternMatch.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace strata {

/// Which tile schedule a loop kernel gets: chosen per kernel (Auto), or
/// forced, in which case a kernel the schedule cannot take is a diagnostic.
enum class TileSchedule { Auto, Elementwise, Row, Contraction, Generic };

/// The schedule named `name` (auto, elementwise, row, contraction, generic).
std::optional<TileSchedule> parseTileSchedule(llvm::StringRef name);
/// The name of `schedule`, as the `schedule` option spells it.
llvm::StringRef stringifyTileSchedule(TileSchedule schedule);

/// A schedule request: empty / zero fields are chosen per kernel.
struct TileScheduleOptions {
  std::vector<int64_t> tileSizes;
  int64_t threads = 0;
  int64_t tileElements = 512;
  TileSchedule schedule = TileSchedule::Auto;
  /// How many k a contraction stages per step.
  int64_t kTile = 16;
};

/// Patterns that schedule loopir kernels as tileir block programs.
void populateLoopIRToTileIRPatterns(mlir::RewritePatternSet &patterns,
                                    const TileScheduleOptions &options);
} // namespace strata

#endif
