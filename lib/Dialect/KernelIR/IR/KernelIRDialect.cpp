#include "strata/Dialect/KernelIR/IR/KernelIR.h"

using namespace mlir;
using namespace strata::kernelir;

#include "strata/Dialect/KernelIR/IR/KernelIRDialect.cpp.inc"
#include "strata/Dialect/KernelIR/IR/KernelIREnums.cpp.inc"

void KernelIRDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "strata/Dialect/KernelIR/IR/KernelIROps.cpp.inc"
      >();
}
