#ifndef STRATA_CONVERSION_KERNELIRCOMMON_SWIZZLE_H
#define STRATA_CONVERSION_KERNELIRCOMMON_SWIZZLE_H

#include "mlir/IR/Builders.h"

namespace strata {
/// kernelir::swizzledOffset of the byte offset `offset` (index) under
/// `swizzleBytes`, built as IR: what the TMA and wgmma emulations address
/// shared memory through, and where a TMA store's threads put a tile.
mlir::Value buildSwizzledOffset(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value offset, int64_t swizzleBytes);
} // namespace strata

#endif
