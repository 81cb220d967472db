#ifndef STRATA_DIALECT_TENSORIR_IR_TENSORIR_H
#define STRATA_DIALECT_TENSORIR_IR_TENSORIR_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IntegerSet.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace strata::tensorir {
/// The tensor of booleans (i1) with the shape of `type`.
inline mlir::Type getBoolTensorLike(mlir::Type type) {
  auto tensor = llvm::cast<mlir::RankedTensorType>(type);
  return tensor.clone(mlir::IntegerType::get(type.getContext(), 1));
}
} // namespace strata::tensorir

#include "strata/Dialect/TensorIR/IR/TensorIRDialect.h.inc"
#include "strata/Dialect/TensorIR/IR/TensorIREnums.h.inc"
#include "strata/Dialect/TensorIR/IR/TensorIRInterfaces.h.inc"

#define GET_OP_CLASSES
#include "strata/Dialect/TensorIR/IR/TensorIROps.h.inc"

#endif // STRATA_DIALECT_TENSORIR_IR_TENSORIR_H
