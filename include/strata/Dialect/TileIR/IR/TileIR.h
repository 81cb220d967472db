#ifndef STRATA_DIALECT_TILEIR_IR_TILEIR_H
#define STRATA_DIALECT_TILEIR_IR_TILEIR_H

#include "strata/Dialect/Utils/Monoid.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace strata::tileir {
/// The kinds of tile program; the scheduling passes decide per kind.
/// Elementwise: tile loads, maps and stores. Row: the threads share one
/// point (tileir.fold, tileir.distribute). Contraction: a tileir.contract
/// and its elementwise epilogue. Generic: tileir.for_each_point.
enum class ProgramKind { Elementwise, Row, Contraction, Generic };
} // namespace strata::tileir

#include "strata/Dialect/TileIR/IR/TileIRDialect.h.inc"
#include "strata/Dialect/TileIR/IR/TileIREnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "strata/Dialect/TileIR/IR/TileIRTypes.h.inc"

#define GET_OP_CLASSES
#include "strata/Dialect/TileIR/IR/TileIROps.h.inc"

namespace strata::tileir {
/// The name convert-tileir-to-kernelir gives `kernel`'s kernelir.func
/// before the module's symbol table makes it unique: its host function's
/// name and "_kernel".
std::string getKernelBaseName(KernelOp kernel);

/// The body and bounds of a cooperative loop (tileir.fold,
/// tileir.composite_fold, tileir.scan, tileir.distribute); nothing for
/// other ops. (A scan's each region runs over the same points.)
std::optional<std::pair<mlir::Block *, llvm::ArrayRef<int64_t>>>
getCooperativeLoop(mlir::Operation *op);
} // namespace strata::tileir

#endif // STRATA_DIALECT_TILEIR_IR_TILEIR_H
