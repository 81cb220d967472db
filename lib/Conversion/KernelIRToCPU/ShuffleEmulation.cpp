// Warp shuffles on the CPU: an exchange through shared memory between two
// barriers, which the thread loops then run like any other barrier.

#include "ThreadLoops.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace strata;

namespace {

/// The lane a shuffle reads, within the warp of `lane`.
Value sourceLane(OpBuilder &b, Location loc, kernelir::ShuffleMode mode,
                 Value lane, Value offset) {
  Value warp = arith::ConstantIndexOp::create(b, loc, kWarpSize);
  switch (mode) {
  case kernelir::ShuffleMode::XOR:
    return arith::XOrIOp::create(b, loc, lane, offset);
  case kernelir::ShuffleMode::DOWN: {
    Value down = arith::AddIOp::create(b, loc, lane, offset);
    Value inside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, down, warp);
    return arith::SelectOp::create(b, loc, inside, down, lane);
  }
  case kernelir::ShuffleMode::UP: {
    Value inside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, lane, offset);
    Value up = arith::SubIOp::create(b, loc, lane, offset);
    return arith::SelectOp::create(b, loc, inside, up, lane);
  }
  case kernelir::ShuffleMode::IDX:
    return arith::RemUIOp::create(b, loc, offset, warp);
  }
  llvm_unreachable("unknown shuffle mode");
}

} // namespace

Value strata::kernelThreadIndex(OpBuilder &b, Location loc,
                                ArrayRef<int64_t> block) {
  SmallVector<Value> ids;
  for (kernelir::Dim d : {kernelir::Dim::x, kernelir::Dim::y, kernelir::Dim::z})
    ids.push_back(kernelir::ThreadIdOp::create(b, loc, d));
  return linearThreadIndex(b, loc, ids, block);
}

void strata::expandWarpIndices(RewriterBase &rewriter,
                               kernelir::FuncOp kernel) {
  SmallVector<Operation *> indices;
  kernel.walk([&](Operation *op) {
    if (isa<kernelir::LaneIdOp, kernelir::WarpIdOp>(op))
      indices.push_back(op);
  });
  for (Operation *op : indices) {
    rewriter.setInsertionPoint(op);
    Location loc = op->getLoc();
    Value self = kernelThreadIndex(rewriter, loc, kernel.getBlock());
    Value warpSize = arith::ConstantIndexOp::create(rewriter, loc, kWarpSize);
    if (isa<kernelir::LaneIdOp>(op))
      rewriter.replaceOpWithNewOp<arith::RemUIOp>(op, self, warpSize);
    else
      rewriter.replaceOpWithNewOp<arith::DivUIOp>(op, self, warpSize);
  }
}

Value strata::createSharedScratch(OpBuilder &b, kernelir::FuncOp kernel,
                                  ArrayRef<int64_t> shape, Type element) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&kernel.getBody().front());
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  return kernelir::SharedOp::create(
      b, kernel.getLoc(),
      MemRefType::get(shape, element, MemRefLayoutAttrInterface(), workgroup));
}

void strata::expandShuffles(RewriterBase &rewriter, kernelir::FuncOp kernel) {
  SmallVector<kernelir::ShuffleOp> shuffles;
  kernel.walk([&](kernelir::ShuffleOp op) { shuffles.push_back(op); });
  if (shuffles.empty())
    return;
  int64_t threads = kernel.getNumThreadsPerBlock();
  // One scratch buffer per type: the barrier after each read makes reuse
  // safe.
  DenseMap<Type, Value> scratch;
  for (kernelir::ShuffleOp op : shuffles) {
    Location loc = op.getLoc();
    Type type = op.getType();
    if (!scratch.count(type))
      scratch[type] = createSharedScratch(rewriter, kernel, {threads}, type);
    rewriter.setInsertionPoint(op);
    Value self = kernelThreadIndex(rewriter, loc, kernel.getBlock());
    Value warpSize = arith::ConstantIndexOp::create(rewriter, loc, kWarpSize);
    Value lane = arith::RemUIOp::create(rewriter, loc, self, warpSize);
    Value warpBase = arith::SubIOp::create(rewriter, loc, self, lane);
    Value offset = arith::IndexCastUIOp::create(
        rewriter, loc, rewriter.getIndexType(), op.getOffset());
    Value source = arith::AddIOp::create(
        rewriter, loc, warpBase,
        sourceLane(rewriter, loc, op.getMode(), lane, offset));
    kernelir::StoreOp::create(rewriter, loc, op.getValue(), scratch[type],
                              ValueRange{self});
    kernelir::BarrierOp::create(rewriter, loc);
    Value received = kernelir::LoadOp::create(rewriter, loc, scratch[type],
                                              ValueRange{source});
    kernelir::BarrierOp::create(rewriter, loc);
    rewriter.replaceOp(op, received);
  }
}
