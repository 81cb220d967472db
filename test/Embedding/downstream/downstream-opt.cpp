// A downstream mlir-opt: its own dialect plus Strata's, in two calls.

#include "strata/Dialect/TensorIR/IR/TensorIR.h"
#include "strata/InitAll.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "DownstreamDialect.h.inc"
#define GET_OP_CLASSES
#include "DownstreamOps.h.inc"

#include "DownstreamDialect.cpp.inc"
#define GET_OP_CLASSES
#include "DownstreamOps.cpp.inc"

using namespace mlir;

void downstream::DownstreamDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "DownstreamOps.cpp.inc"
      >();
}

Value downstream::SquareOp::buildScalarOp(OpBuilder &b, Location loc,
                                          ValueRange x) {
  return arith::MulFOp::create(b, loc, x[0], x[0]);
}

int main(int argc, char **argv) {
  DialectRegistry registry;
  strata::registerAllDialects(registry);
  strata::registerAllPasses();
  registry.insert<downstream::DownstreamDialect>();
  return asMainReturnCode(
      MlirOptMain(argc, argv, "Downstream optimizer driver\n", registry));
}
