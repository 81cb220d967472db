#include "strata/Dialect/KernelIR/IR/KernelIR.h"

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
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitError("'") << name << "' takes no value";
  auto func = dyn_cast<FuncOp>(op);
  if (!func)
    return op->emitError("'")
           << name << "' marks arguments of kernelir.func only";
  if (!isa<MemRefType>(func.getArgumentTypes()[index]))
    return op->emitError("'") << name << "' marks buffers; argument " << index
                              << " is " << func.getArgumentTypes()[index];
  return success();
}

void KernelIRDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "strata/Dialect/KernelIR/IR/KernelIROps.cpp.inc"
      >();
}
