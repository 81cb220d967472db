#ifndef STRATA_DIALECT_UTILS_MONOID_H
#define STRATA_DIALECT_UTILS_MONOID_H

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/Types.h"

namespace strata {

/// The associative operations Strata's reductions fold with; each stage's
/// combiner enum (loopir.reduce, tileir.fold) maps onto these.
enum class MonoidKind { Add, Mul, Max, Min };

/// The identity of `kind` for scalars of `type`: 0 (add), 1 (mul), and for
/// max/min -inf/+inf (floats) or the signed integer extremes.
mlir::TypedAttr getMonoidIdentity(MonoidKind kind, mlir::Type type);

/// Whether the threads of a cooperative fold can exchange values of `type`
/// (what a warp shuffle moves: 32- and 64-bit integers and floats).
bool isShuffledType(mlir::Type type);

} // namespace strata

#endif // STRATA_DIALECT_UTILS_MONOID_H
