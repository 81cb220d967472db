#ifndef STRATA_CONVERSION_TILEIRTOKERNELIR_H
#define STRATA_CONVERSION_TILEIRTOKERNELIR_H

#include "mlir/Transforms/DialectConversion.h"

namespace strata {
/// Converts statically shaped tensors to identity-layout memrefs.
class HostBufferTypeConverter : public mlir::TypeConverter {
public:
  HostBufferTypeConverter();
};

/// Patterns that turn tileir kernels into kernelir funcs and launches; with
/// `tensorCores`, f16 contractions multiply on tensor cores.
void populateTileIRToKernelIRPatterns(mlir::TypeConverter &converter,
                                      mlir::RewritePatternSet &patterns,
                                      bool tensorCores = true,
                                      bool tf32 = false);

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
