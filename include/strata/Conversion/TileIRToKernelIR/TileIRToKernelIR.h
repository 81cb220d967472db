#ifndef STRATA_CONVERSION_TILEIRTOKERNELIR_H
#define STRATA_CONVERSION_TILEIRTOKERNELIR_H

#include "mlir/Transforms/DialectConversion.h"

namespace strata {
/// Converts statically shaped tensors to identity-layout memrefs.
class HostBufferTypeConverter : public mlir::TypeConverter {
public:
  HostBufferTypeConverter();
};

/// How kernelir multiplies contractions: the hardware units it may use.
struct MultiplyOptions {
  /// f16 and bf16 operands on tensor cores (kernelir.mma, sm_80 and later).
  bool tensorCores = true;
  /// With tensorCores, f32 operands too, rounded to tf32.
  bool tf32 = false;
  /// With tensorCores, f16 and bf16 operands by warpgroups straight from
  /// shared memory (kernelir.wgmma, sm_90a only) where the tile allows.
  bool wgmma = false;
};

/// Patterns that turn tileir kernels into kernelir funcs and launches,
/// contractions multiplied as `multiply` allows.
void populateTileIRToKernelIRPatterns(mlir::TypeConverter &converter,
                                      mlir::RewritePatternSet &patterns,
                                      MultiplyOptions multiply = {});

/// Patterns that bufferize the host program around the kernels: function
/// signatures, calls, returns, constant tensors and tensor/buffer casts.
void populateHostBufferizationPatterns(mlir::TypeConverter &converter,
                                       mlir::RewritePatternSet &patterns);
/// Makes `target` accept only host ops whose types `converter` finds legal
/// (function signatures included): the common legality of the passes that
/// bufferize the host program.
void addHostBufferizationLegality(mlir::ConversionTarget &target,
                                  mlir::TypeConverter &converter);
} // namespace strata

#endif
