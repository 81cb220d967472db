// How many bits an element takes in a buffer, which is not always its
// type's width: a bool (i1) takes a byte, as in PyTorch and in LLVM's
// memory layout of a scalar i1. Vector widths, access sizes and copy sizes
// count storage bits.

#ifndef STRATA_DIALECT_UTILS_ELEMENTSTORAGE_H
#define STRATA_DIALECT_UTILS_ELEMENTSTORAGE_H

#include "mlir/IR/Types.h"

#include <cstdint>

namespace strata {

/// The bits an element of `type` (an integer or float) takes in a buffer:
/// its width, rounded up to whole bytes.
inline int64_t getStorageBits(mlir::Type type) {
  return (type.getIntOrFloatBitWidth() + 7) / 8 * 8;
}

} // namespace strata

#endif // STRATA_DIALECT_UTILS_ELEMENTSTORAGE_H
