#include "strata/Dialect/TensorIR/IR/TensorIR.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace strata::tensorir;

#include "strata/Dialect/TensorIR/IR/TensorIRDialect.cpp.inc"
#include "strata/Dialect/TensorIR/IR/TensorIRInterfaces.cpp.inc"
#include "strata/Dialect/TensorIR/IR/TensorIREnums.cpp.inc"

void TensorIRDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "strata/Dialect/TensorIR/IR/TensorIROps.cpp.inc"
      >();
}

Operation *TensorIRDialect::materializeConstant(OpBuilder &builder,
                                                Attribute value, Type type,
                                                Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
