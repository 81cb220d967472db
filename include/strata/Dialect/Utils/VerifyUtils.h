#ifndef STRATA_DIALECT_UTILS_VERIFYUTILS_H
#define STRATA_DIALECT_UTILS_VERIFYUTILS_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace strata {

/// Checks the contract shared by every Strata kernel region op: the entry
/// block has one buffer per input then one per result, each a memref with the
/// shape and element type of its tensor.
mlir::LogicalResult verifyKernelBuffers(mlir::Operation *op,
                                        mlir::TypeRange inputs,
                                        mlir::TypeRange results,
                                        mlir::Block &body);

/// Checks that `map` (identity when absent) sends `numIndices` coordinates to
/// one index per dimension of `buffer`.
mlir::LogicalResult verifyIndexMap(mlir::Operation *op,
                                   std::optional<mlir::AffineMap> map,
                                   unsigned numIndices,
                                   mlir::MemRefType buffer);

/// The identity map when `map` is absent.
mlir::AffineMap getIndexMapOrIdentity(std::optional<mlir::AffineMap> map,
                                      unsigned numIndices,
                                      mlir::MLIRContext *ctx);

/// The attribute an access op stores for `map`: absent (null) for the
/// identity, so equal accesses print, compare and CSE as one form.
mlir::AffineMapAttr getIndexMapAttr(mlir::AffineMap map);

/// Copies the type of a statically shaped tensor as an identity-layout memref.
mlir::MemRefType getBufferType(mlir::Type tensorType);

} // namespace strata

#endif // STRATA_DIALECT_UTILS_VERIFYUTILS_H
