#ifndef STRATA_DIALECT_KERNELIR_TRANSFORMS_PASSES_H
#define STRATA_DIALECT_KERNELIR_TRANSFORMS_PASSES_H

#include "strata/Dialect/KernelIR/IR/KernelIR.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace strata::kernelir {

#define GEN_PASS_DECL
#include "strata/Dialect/KernelIR/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "strata/Dialect/KernelIR/Transforms/Passes.h.inc"

} // namespace strata::kernelir

#endif
