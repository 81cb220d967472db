#ifndef STRATA_CONVERSION_LOOPIRCOMMON_SCALARLOOPS_H
#define STRATA_CONVERSION_LOOPIRCOMMON_SCALARLOOPS_H

#include "mlir/IR/AffineMap.h"
#include "mlir/Transforms/DialectConversion.h"

namespace strata {
/// Patterns that run loopir.parallel nests and loopir.reduce ops
/// sequentially as scf.for nests (a reduction carries its accumulators).
/// Both the CPU path of Loop IR and the generic GPU schedule use them.
void populateLoopIRScalarLoopPatterns(mlir::TypeConverter &converter,
                                      mlir::RewritePatternSet &patterns);

/// The buffer indices of an access: its map applied to its index operands.
llvm::SmallVector<mlir::Value> expandAccessIndices(mlir::OpBuilder &b,
                                                   mlir::Location loc,
                                                   mlir::AffineMap map,
                                                   mlir::ValueRange indices);
} // namespace strata

#endif
