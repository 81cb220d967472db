#include "strata/Dialect/TensorIR/IR/TensorIR.h"

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
