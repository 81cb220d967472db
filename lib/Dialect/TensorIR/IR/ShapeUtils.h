// Shape helpers shared by the tensorir ops' verifiers and type inference.
#ifndef STRATA_LIB_DIALECT_TENSORIR_IR_SHAPEUTILS_H
#define STRATA_LIB_DIALECT_TENSORIR_IR_SHAPEUTILS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

#include <optional>

namespace strata::tensorir {

/// Checks that `axes` are distinct, increasing and inside [0, rank).
mlir::LogicalResult checkAxes(std::optional<mlir::Location> loc,
                              llvm::ArrayRef<int64_t> axes, int64_t rank);

/// The shape left after reducing `axes` (kept as 1 with `keepdim`).
llvm::SmallVector<int64_t> reducedShape(llvm::ArrayRef<int64_t> shape,
                                        llvm::ArrayRef<int64_t> axes,
                                        bool keepdim);

/// The type of reducing `input` (a ranked tensor) over `axes`, after
/// checking the axes; appended to `types`.
mlir::LogicalResult inferReducedType(std::optional<mlir::Location> loc,
                                     mlir::Type input,
                                     llvm::ArrayRef<int64_t> axes,
                                     bool keepdim,
                                     llvm::SmallVectorImpl<mlir::Type> &types);

} // namespace strata::tensorir

#endif
