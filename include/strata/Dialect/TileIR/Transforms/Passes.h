#ifndef STRATA_DIALECT_TILEIR_TRANSFORMS_PASSES_H
#define STRATA_DIALECT_TILEIR_TRANSFORMS_PASSES_H

#include "strata/Dialect/TileIR/IR/TileIR.h"
#include "strata/Dialect/Utils/ScheduleModel.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace strata::tileir {

#define GEN_PASS_DECL
#include "strata/Dialect/TileIR/Transforms/Passes.h.inc"

/// Sets each contraction's pipeline depth (see tileir-pipeline): `stages`
/// (at least 1) where its chunks fit in `sharedMemory` bytes.
void populatePipelinePatterns(mlir::RewritePatternSet &patterns, int64_t stages,
                              int64_t sharedMemory);

#define GEN_PASS_REGISTRATION
#include "strata/Dialect/TileIR/Transforms/Passes.h.inc"

} // namespace strata::tileir

#endif
