// Bufferizing the host program around the kernels, shared by the two
// conversions that make kernels of it: convert-tileir-to-kernelir (GPU
// kernels) and convert-loopir-to-cpu (loop kernels run on the CPU).

#ifndef STRATA_CONVERSION_HOSTBUFFERIZATION_H
#define STRATA_CONVERSION_HOSTBUFFERIZATION_H

#include "mlir/Transforms/DialectConversion.h"

namespace strata {
/// Converts statically shaped tensors to identity-layout memrefs.
class HostBufferTypeConverter : public mlir::TypeConverter {
public:
  HostBufferTypeConverter();
};

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
