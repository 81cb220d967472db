// The linear thread index shared by the GPU and CPU lowerings of kernelir.

#include "strata/Conversion/KernelIRCommon/ThreadIndex.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

Value strata::linearThreadIndex(OpBuilder &b, Location loc, ArrayRef<Value> ids,
                                ArrayRef<int64_t> block) {
  Value sizeY = arith::ConstantIndexOp::create(b, loc, block[1]);
  Value sizeX = arith::ConstantIndexOp::create(b, loc, block[0]);
  Value yz = arith::AddIOp::create(
      b, loc, ids[1], arith::MulIOp::create(b, loc, sizeY, ids[2]));
  return arith::AddIOp::create(b, loc, ids[0],
                               arith::MulIOp::create(b, loc, sizeX, yz));
}
