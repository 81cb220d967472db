#include "strata/Conversion/KernelIRCommon/Swizzle.h"
#include "strata/Dialect/KernelIR/IR/KernelIR.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

Value strata::buildSwizzledOffset(OpBuilder &b, Location loc, Value offset,
                                  int64_t swizzleBytes) {
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  return arith::XOrIOp::create(
      b, loc, offset,
      arith::AndIOp::create(b, loc,
                            arith::ShRUIOp::create(b, loc, offset, index(3)),
                            index(kernelir::getSwizzleMask(swizzleBytes))));
}
