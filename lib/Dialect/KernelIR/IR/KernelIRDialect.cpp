#include "strata/Dialect/KernelIR/IR/KernelIR.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"

using namespace mlir;
using namespace strata::kernelir;

#include "strata/Dialect/KernelIR/IR/KernelIRDialect.cpp.inc"
#include "strata/Dialect/KernelIR/IR/KernelIREnums.cpp.inc"
#include "strata/Dialect/KernelIR/IR/KernelIRInterfaces.cpp.inc"

LogicalResult KernelIRDialect::verifyRegionArgAttribute(Operation *op,
                                                        unsigned region,
                                                        unsigned index,
                                                        NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name != kNoAliasAttrName && name != kTensorMapAttrName)
    return op->emitError("unknown kernelir argument attribute '")
           << name << "'";
  auto view = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
  if (!isa<UnitAttr>(attr.getValue()) && !(view && name == kTensorMapAttrName))
    return op->emitError("'")
           << name << "' takes no value"
           << (name == kTensorMapAttrName ? " or the shape of its view" : "");
  auto func = dyn_cast<FuncOp>(op);
  if (!func)
    return op->emitError("'")
           << name << "' marks arguments of kernelir.func only";
  auto buffer = dyn_cast<MemRefType>(func.getArgumentTypes()[index]);
  if (!buffer)
    return op->emitError("'") << name << "' marks buffers; argument " << index
                              << " is " << func.getArgumentTypes()[index];
  // A view is the buffer's elements in row-major order seen in another
  // shape, which the tensor map's strides can describe.
  if (view &&
      (view.empty() || (int64_t)view.size() > kTmaMaxRank ||
       llvm::any_of(view.asArrayRef(), [](int64_t e) { return e < 1; }) ||
       !buffer.hasStaticShape() ||
       computeProduct(view.asArrayRef()) != buffer.getNumElements() ||
       !hasTensorMapStrides(
           MemRefType::get(view.asArrayRef(), buffer.getElementType()))))
    return op->emitError("'")
           << name << "' views argument " << index << " (" << buffer << ") as ["
           << view.asArrayRef() << "]: a view has rank 1 to " << kTmaMaxRank
           << ", the buffer's elements and rows of a multiple of 16 bytes";
  return success();
}

void KernelIRDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "strata/Dialect/KernelIR/IR/KernelIROps.cpp.inc"
      >();
}
