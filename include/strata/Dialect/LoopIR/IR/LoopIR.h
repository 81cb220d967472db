#ifndef STRATA_DIALECT_LOOPIR_IR_LOOPIR_H
#define STRATA_DIALECT_LOOPIR_IR_LOOPIR_H

#include "strata/Dialect/Utils/Monoid.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IntegerSet.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "strata/Dialect/LoopIR/IR/LoopIRDialect.h.inc"
#include "strata/Dialect/LoopIR/IR/LoopIREnums.h.inc"

#define GET_OP_CLASSES
#include "strata/Dialect/LoopIR/IR/LoopIROps.h.inc"

namespace strata::loopir {

/// The iteration box of a loop (`loopir.parallel` or `loopir.reduce`);
/// none for other ops.
inline std::optional<llvm::ArrayRef<int64_t>> getLoopBox(mlir::Operation *op) {
  if (auto parallel = llvm::dyn_cast_or_null<ParallelOp>(op))
    return parallel.getBounds();
  if (auto reduce = llvm::dyn_cast_or_null<ReduceOp>(op))
    return reduce.getBounds();
  return std::nullopt;
}

} // namespace strata::loopir

#endif // STRATA_DIALECT_LOOPIR_IR_LOOPIR_H
