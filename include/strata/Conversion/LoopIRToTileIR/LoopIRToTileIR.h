#ifndef STRATA_CONVERSION_LOOPIRTOTILEIR_H
#define STRATA_CONVERSION_LOOPIRTOTILEIR_H

#include "mlir/IR/PatternMatch.h"

#include <cstdint>
#include <string>
#include <vector>

namespace strata {

/// A schedule request: empty / zero fields are chosen per kernel.
struct TileScheduleOptions {
  std::vector<int64_t> tileSizes;
  int64_t threads = 0;
  int64_t tileElements = 512;
  /// auto (chosen per kernel), elementwise, row, contraction or generic.
  std::string schedule = "auto";
  /// How many k a contraction stages per step.
  int64_t kTile = 16;
};

/// Patterns that schedule loopir kernels as tileir block programs.
void populateLoopIRToTileIRPatterns(mlir::RewritePatternSet &patterns,
                                    const TileScheduleOptions &options);
} // namespace strata

#endif
