#include "strata/Dialect/Utils/VerifyUtils.h"

using namespace mlir;

namespace strata {

MemRefType getBufferType(Type tensorType) {
  auto tensor = cast<RankedTensorType>(tensorType);
  return MemRefType::get(tensor.getShape(), tensor.getElementType());
}

LogicalResult verifyKernelBuffers(Operation *op, TypeRange inputs,
                                  TypeRange results, Block &body) {
  if (body.getNumArguments() != inputs.size() + results.size())
    return op->emitOpError("expects ")
           << inputs.size() + results.size()
           << " buffer arguments (one per input, then one per result), got "
           << body.getNumArguments();
  SmallVector<Type> tensors(inputs.begin(), inputs.end());
  tensors.append(results.begin(), results.end());
  for (auto [i, pair] : llvm::enumerate(llvm::zip(tensors, body.getArguments()))) {
    auto [tensor, arg] = pair;
    if (arg.getType() != getBufferType(tensor))
      return op->emitOpError("buffer argument #")
             << i << " has type " << arg.getType() << ", expected "
             << getBufferType(tensor);
  }
  return success();
}

AffineMap getIndexMapOrIdentity(std::optional<AffineMap> map,
                                unsigned numIndices, MLIRContext *ctx) {
  if (map)
    return *map;
  return AffineMap::getMultiDimIdentityMap(numIndices, ctx);
}

AffineMapAttr getIndexMapAttr(AffineMap map) {
  return map.isIdentity() ? AffineMapAttr() : AffineMapAttr::get(map);
}

LogicalResult verifyIndexMap(Operation *op, std::optional<AffineMap> map,
                             unsigned numIndices, MemRefType buffer) {
  if (!map) {
    if (numIndices != buffer.getRank())
      return op->emitOpError("expects ")
             << buffer.getRank() << " indices for a buffer of rank "
             << buffer.getRank() << " (or a map), got " << numIndices;
    return success();
  }
  if (map->getNumSymbols() != 0)
    return op->emitOpError("index map must not have symbols");
  if (map->getNumDims() != numIndices)
    return op->emitOpError("index map takes ")
           << map->getNumDims() << " dimensions but " << numIndices
           << " indices are given";
  if (map->getNumResults() != buffer.getRank())
    return op->emitOpError("index map produces ")
           << map->getNumResults() << " indices for a buffer of rank "
           << buffer.getRank();
  return success();
}

} // namespace strata
