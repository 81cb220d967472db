#include "LoopKernelBuilder.h"

#include "strata/Dialect/Utils/VerifyUtils.h"

using namespace mlir;

namespace strata {

loopir::KernelOp buildEmptyLoopKernel(OpBuilder &b, Location loc,
                                      TypeRange resultTypes,
                                      ValueRange inputs) {
  auto kernel = loopir::KernelOp::create(b, loc, resultTypes, inputs);
  SmallVector<Type> bufferTypes;
  for (Value in : inputs)
    bufferTypes.push_back(getBufferType(in.getType()));
  for (Type t : resultTypes)
    bufferTypes.push_back(getBufferType(t));
  SmallVector<Location> locs(bufferTypes.size(), loc);
  b.createBlock(&kernel.getBody(), {}, bufferTypes, locs);
  return kernel;
}

loopir::KernelOp buildLoopKernel(OpBuilder &b, Location loc,
                                 TypeRange resultTypes, ValueRange inputs,
                                 LoopBodyBuilder buildBody) {
  OpBuilder::InsertionGuard guard(b);
  auto kernel = buildEmptyLoopKernel(b, loc, resultTypes, inputs);
  Block *body = &kernel.getBody().front();
  auto shape = cast<RankedTensorType>(resultTypes.front()).getShape();
  auto loop = loopir::ParallelOp::create(b, loc, shape);
  b.setInsertionPoint(loop.getBody().front().getTerminator());
  buildBody(b, loc, body->getArguments().take_front(inputs.size()),
            body->getArguments().drop_front(inputs.size()),
            loop.getInductionVars());
  b.setInsertionPointToEnd(body);
  loopir::YieldOp::create(b, loc);
  return kernel;
}

} // namespace strata
