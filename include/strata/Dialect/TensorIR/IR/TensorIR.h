#ifndef STRATA_DIALECT_TENSORIR_IR_TENSORIR_H
#define STRATA_DIALECT_TENSORIR_IR_TENSORIR_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "strata/Dialect/TensorIR/IR/TensorIRDialect.h.inc"
#include "strata/Dialect/TensorIR/IR/TensorIRInterfaces.h.inc"

#define GET_OP_CLASSES
#include "strata/Dialect/TensorIR/IR/TensorIROps.h.inc"

#endif // STRATA_DIALECT_TENSORIR_IR_TENSORIR_H
