#include "strata/Dialect/LoopIR/IR/LoopIR.h"

using namespace mlir;
using namespace strata::loopir;

#include "strata/Dialect/LoopIR/IR/LoopIRDialect.cpp.inc"
#include "strata/Dialect/LoopIR/IR/LoopIREnums.cpp.inc"

void LoopIRDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "strata/Dialect/LoopIR/IR/LoopIROps.cpp.inc"
      >();
}
