#ifndef STRATA_CONVERSION_LOOPIRTOTILEIR_H
#define STRATA_CONVERSION_LOOPIRTOTILEIR_H

#include "mlir/IR/PatternMatch.h"

#include <cstdint>
#include <optional>

namespace strata {

/// Which tile schedule a loop kernel gets: chosen per kernel (Auto), or
/// forced, in which case a kernel the schedule cannot take is a diagnostic.
enum class TileSchedule { Auto, Elementwise, Row, Contraction, Generic };

/// The schedule named `name` (auto, elementwise, row, contraction, generic).
std::optional<TileSchedule> parseTileSchedule(llvm::StringRef name);
/// The name of `schedule`, as the `schedule` option spells it.
llvm::StringRef stringifyTileSchedule(TileSchedule schedule);

/// Patterns that write loopir kernels as tileir block programs of the kind
/// `schedule` (Auto: chosen per kernel), with the trivial schedule the
/// tileir scheduling passes then choose.
void populateLoopIRToTileIRPatterns(mlir::RewritePatternSet &patterns,
                                    TileSchedule schedule);
} // namespace strata

#endif
