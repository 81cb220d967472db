#ifndef STRATA_DIALECT_UTILS_SAMECOMPUTATION_H
#define STRATA_DIALECT_UTILS_SAMECOMPUTATION_H

#include "mlir/IR/Block.h"
#include "mlir/IR/Value.h"

namespace strata {

/// Whether `a` (computed in the loop body `first`) and `b` (in `second`,
/// possibly the same block) are computed the same way from the same
/// values: equal values from outside, the bodies' arguments at the same
/// positions, or equivalent ops (nested reductions compared region by
/// region) of operands that are the same. Loop bodies only read memory, so
/// equal loads are equal.
bool isSameComputation(mlir::Value a, mlir::Value b, mlir::Block &first,
                       mlir::Block &second);

} // namespace strata

#endif // STRATA_DIALECT_UTILS_SAMECOMPUTATION_H
