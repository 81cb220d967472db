#ifndef STRATA_CONVERSION_TILEIRTOKERNELIR_H
#define STRATA_CONVERSION_TILEIRTOKERNELIR_H

#include "mlir/Transforms/DialectConversion.h"

namespace strata {
/// How kernelir multiplies contractions: the hardware units it may use.
struct MultiplyOptions {
  /// f16 and bf16 operands on tensor cores (kernelir.mma, sm_80 and later).
  bool tensorCores = true;
  /// With tensorCores, f32 operands too, rounded to tf32.
  bool tf32 = false;
  /// With tensorCores, f16 and bf16 operands by warpgroups straight from
  /// shared memory (kernelir.wgmma, sm_90a only) where the tile allows.
  bool wgmma = false;
  /// With wgmma, operand chunks copied by TMA (kernelir.tma_load, sm_90)
  /// on a ring of mbarriers where both operands are plain loads of 2-d
  /// tensors a tensor map can describe (B K-major or row-major).
  bool tma = false;
  /// With tma, each k step's wgmmas stay in flight while the next step's
  /// copies are awaited (kernelir.wgmma async, retired one step later by
  /// kernelir.wgmma_wait); false waits for each step's multiplies.
  bool overlapWgmma = true;
  /// With tma, a contraction kernel's result tile goes out through shared
  /// memory by TMA (kernelir.tma_store) where its buffer is written by
  /// that store alone and a tensor map can describe it.
  bool tmaStore = false;
};

/// Patterns that turn tileir kernels into kernelir funcs and launches,
/// contractions multiplied as `multiply` allows.
void populateTileIRToKernelIRPatterns(mlir::TypeConverter &converter,
                                      mlir::RewritePatternSet &patterns,
                                      MultiplyOptions multiply = {});
} // namespace strata

#endif
