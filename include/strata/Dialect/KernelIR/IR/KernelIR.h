#ifndef STRATA_DIALECT_KERNELIR_IR_KERNELIR_H
#define STRATA_DIALECT_KERNELIR_IR_KERNELIR_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "strata/Dialect/KernelIR/IR/KernelIRDialect.h.inc"
#include "strata/Dialect/KernelIR/IR/KernelIREnums.h.inc"

#define GET_OP_CLASSES
#include "strata/Dialect/KernelIR/IR/KernelIROps.h.inc"

namespace strata::kernelir {
/// Threads per warp: a kernelir.shuffle spans one warp, so schedules that
/// shuffle give blocks a whole number of warps.
constexpr int64_t kWarpSize = 32;
} // namespace strata::kernelir

#endif // STRATA_DIALECT_KERNELIR_IR_KERNELIR_H
