// Builds loop kernels for the tensorir-to-loopir patterns.
#ifndef STRATA_LIB_CONVERSION_TENSORIRTOLOOPIR_LOOPKERNELBUILDER_H
#define STRATA_LIB_CONVERSION_TENSORIRTOLOOPIR_LOOPKERNELBUILDER_H

#include "strata/Dialect/LoopIR/IR/LoopIR.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace strata {

/// Receives the input buffers, the output buffers and the loop indices.
using LoopBodyBuilder =
    llvm::function_ref<void(mlir::OpBuilder &, mlir::Location,
                            mlir::ValueRange inputs, mlir::ValueRange outputs,
                            mlir::ValueRange ivs)>;

/// Builds `loopir.kernel ins(inputs) -> resultTypes` (results of one shape)
/// with one parallel nest over the results; `buildBody` fills the nest.
loopir::KernelOp buildLoopKernel(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::TypeRange resultTypes,
                                 mlir::ValueRange inputs,
                                 LoopBodyBuilder buildBody);

/// Builds an empty kernel (entry block with its buffers, no terminator yet)
/// and leaves the builder at the end of its body.
loopir::KernelOp buildEmptyLoopKernel(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::TypeRange resultTypes,
                                      mlir::ValueRange inputs);

/// Patterns for reductions, generators, concat and gather.
void populateStructuredOpToLoopPatterns(mlir::RewritePatternSet &patterns);

/// Patterns for ops on tensors without elements, which build no kernel
/// (they take precedence over the others).
void populateEmptyTensorToLoopPatterns(mlir::RewritePatternSet &patterns);

} // namespace strata

#endif
