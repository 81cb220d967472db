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

#endif // STRATA_DIALECT_LOOPIR_IR_LOOPIR_H
