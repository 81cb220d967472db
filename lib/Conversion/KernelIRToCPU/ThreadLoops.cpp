// Barrier intervals as thread loops. On the GPU every thread runs the kernel
// body concurrently and meets the others at each barrier; on the CPU each
// interval between barriers runs for every thread in turn before the next
// interval starts, which is the same semantics. Values a thread computes in
// one interval and uses in a later one live in a per-thread buffer.

#include "ThreadLoops.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace strata;

namespace {

constexpr int64_t kWarpSize = 32;

/// The row-major index of the thread at `ids` (x, y, z) in a block of
/// `block` threads: x + X * (y + Y * z).
Value linearize(OpBuilder &b, Location loc, ArrayRef<Value> ids,
                ArrayRef<int64_t> block) {
  Value sizeY = arith::ConstantIndexOp::create(b, loc, block[1]);
  Value sizeX = arith::ConstantIndexOp::create(b, loc, block[0]);
  Value yz = arith::AddIOp::create(
      b, loc, ids[1], arith::MulIOp::create(b, loc, sizeY, ids[2]));
  return arith::AddIOp::create(b, loc, ids[0],
                               arith::MulIOp::create(b, loc, sizeX, yz));
}

/// This thread's index in its block, in kernelir.
Value linearThreadId(OpBuilder &b, Location loc, ArrayRef<int64_t> block) {
  SmallVector<Value> ids;
  for (kernelir::Dim d : {kernelir::Dim::x, kernelir::Dim::y, kernelir::Dim::z})
    ids.push_back(kernelir::ThreadIdOp::create(b, loc, d));
  return linearize(b, loc, ids, block);
}

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

/// Whether `op` synchronizes the block (a barrier, or a shuffle, which
/// becomes barriers here).
bool synchronizes(Operation *op) {
  return isa<kernelir::BarrierOp, kernelir::ShuffleOp>(op);
}

} // namespace

LogicalResult strata::expandShuffles(RewriterBase &rewriter,
                                     kernelir::FuncOp kernel) {
  SmallVector<kernelir::ShuffleOp> shuffles;
  kernel.walk([&](kernelir::ShuffleOp op) { shuffles.push_back(op); });
  if (shuffles.empty())
    return success();
  int64_t threads = kernel.getNumThreadsPerBlock();
  if (threads % kWarpSize != 0)
    return shuffles.front().emitError("warp shuffles need blocks of whole "
                                      "warps, but the kernel has ")
           << threads << " threads per block";
  Block &entry = kernel.getBody().front();
  auto workgroup = gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                              gpu::AddressSpace::Workgroup);
  // One scratch buffer per type: the barrier after each read makes reuse
  // safe.
  DenseMap<Type, Value> scratch;
  for (kernelir::ShuffleOp op : shuffles) {
    Location loc = op.getLoc();
    Type type = op.getType();
    if (!scratch.count(type)) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&entry);
      scratch[type] = kernelir::SharedOp::create(
          rewriter, loc,
          MemRefType::get({threads}, type, MemRefLayoutAttrInterface(),
                          workgroup));
    }
    rewriter.setInsertionPoint(op);
    Value self = linearThreadId(rewriter, loc, kernel.getBlock());
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
  return success();
}

FailureOr<func::FuncOp> strata::buildThreadLoops(RewriterBase &rewriter,
                                                 kernelir::FuncOp kernel,
                                                 bool reverse) {
  Block &body = kernel.getBody().front();
  // Only a barrier at the top level is met by every thread of the block.
  WalkResult nested = kernel.walk([&](Operation *op) {
    if (synchronizes(op) && op->getBlock() != &body) {
      op->emitError("the CPU emulation needs barriers and shuffles at the "
                    "top level of the kernel, where every thread of the "
                    "block reaches them; this one is inside control flow");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (nested.wasInterrupted())
    return failure();
  auto shuffles = body.getOps<kernelir::ShuffleOp>();
  if (!shuffles.empty())
    return (*shuffles.begin())
        .emitError("warp shuffles run on the CPU once "
                   "expandShuffles has turned them "
                   "into barrier exchanges");

  // Barrier intervals; constants and shared buffers are block-level.
  SmallVector<SmallVector<Operation *>> intervals(1);
  SmallVector<Operation *> blockLevel;
  DenseMap<Operation *, unsigned> intervalOf;
  for (Operation &op : body.without_terminator()) {
    if (isa<kernelir::BarrierOp>(op)) {
      intervals.emplace_back();
      continue;
    }
    if (op.hasTrait<OpTrait::ConstantLike>() ||
        isa<kernelir::SharedOp, kernelir::BlockIdOp>(op)) {
      blockLevel.push_back(&op);
      continue;
    }
    intervalOf[&op] = intervals.size() - 1;
    intervals.back().push_back(&op);
  }
  // Values used in a later interval than their own, and where.
  llvm::SetVector<Value> crossing;
  DenseMap<Value, llvm::SmallSetVector<unsigned, 4>> usedIn;
  for (auto [interval, ops] : llvm::enumerate(intervals))
    for (Operation *op : ops)
      for (Value result : op->getResults())
        for (Operation *user : result.getUsers()) {
          Operation *top = body.findAncestorOpInBlock(*user);
          if (top && intervalOf.count(top) && intervalOf[top] > interval) {
            crossing.insert(result);
            usedIn[result].insert(intervalOf[top]);
          }
        }
  for (Value v : crossing)
    if (!v.getType().isIntOrIndexOrFloat())
      return v.getDefiningOp()->emitError("the CPU emulation keeps only "
                                          "scalars across a barrier, not ")
             << v.getType();

  Location loc = kernel.getLoc();
  auto func = func::FuncOp::create(rewriter, loc, kernel.getName(),
                                   kernel.getFunctionType());
  func.setPrivate();
  Block *entry = func.addEntryBlock();
  rewriter.setInsertionPointToStart(entry);
  IRMapping blockMapping;
  blockMapping.map(body.getArguments(), entry->getArguments());
  int64_t threads = kernel.getNumThreadsPerBlock();
  // Per-thread storage of crossing values, and the shared buffers: blocks
  // run one after another, so one copy serves them all.
  DenseMap<Value, Value> storage;
  for (Value v : crossing)
    storage[v] = memref::AllocaOp::create(
        rewriter, loc, MemRefType::get({threads}, v.getType()));
  for (Operation *op : blockLevel)
    if (auto shared = dyn_cast<kernelir::SharedOp>(op)) {
      MemRefType type = shared.getType();
      blockMapping.map(
          shared.getResult(),
          memref::AllocaOp::create(
              rewriter, loc,
              MemRefType::get(type.getShape(), type.getElementType())));
    }

  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  // In reverse order, iteration i runs block or thread count - 1 - i: a
  // kernel whose result depends on that order has a race.
  auto loopOver = [&](int64_t count) -> Value {
    Value ub = arith::ConstantIndexOp::create(rewriter, loc, count);
    auto loop = scf::ForOp::create(rewriter, loc, zero, ub, one);
    rewriter.setInsertionPointToStart(loop.getBody());
    if (!reverse)
      return loop.getInductionVar();
    Value last = arith::ConstantIndexOp::create(rewriter, loc, count - 1);
    return arith::SubIOp::create(rewriter, loc, last, loop.getInductionVar());
  };
  SmallVector<Value> blockIds(3), threadIds(3);
  for (int d = 2; d >= 0; --d)
    blockIds[d] = loopOver(kernel.getGrid()[d]);
  for (Operation *op : blockLevel) {
    if (auto id = dyn_cast<kernelir::BlockIdOp>(op))
      blockMapping.map(id.getResult(), blockIds[(int)id.getDim()]);
    else if (!isa<kernelir::SharedOp>(op))
      rewriter.clone(*op, blockMapping);
  }
  Block *blockBody = rewriter.getInsertionBlock();
  Block::iterator blockEnd = rewriter.getInsertionPoint();

  for (auto [k, interval] : llvm::enumerate(intervals)) {
    rewriter.setInsertionPoint(blockBody, blockEnd);
    for (int d = 2; d >= 0; --d)
      threadIds[d] = loopOver(kernel.getBlock()[d]);
    Value self = linearize(rewriter, loc, threadIds, kernel.getBlock());
    IRMapping mapping = blockMapping;
    for (Value v : crossing)
      if (usedIn[v].contains(k))
        mapping.map(v, memref::LoadOp::create(rewriter, loc, storage[v],
                                              ValueRange{self}));
    Block *threadBody = rewriter.getInsertionBlock();
    for (Operation *op : interval) {
      rewriter.clone(*op, mapping);
      for (Value result : op->getResults())
        if (crossing.contains(result))
          memref::StoreOp::create(rewriter, loc, mapping.lookup(result),
                                  storage[result], ValueRange{self});
    }
    // Thread and block ids, wherever they are, become the loops' indices.
    SmallVector<Operation *> ids;
    threadBody->walk([&](Operation *op) {
      if (isa<kernelir::ThreadIdOp, kernelir::BlockIdOp>(op))
        ids.push_back(op);
    });
    for (Operation *op : ids) {
      rewriter.setInsertionPoint(op);
      if (auto id = dyn_cast<kernelir::ThreadIdOp>(op))
        rewriter.replaceOp(op, threadIds[(int)id.getDim()]);
      else
        rewriter.replaceOp(
            op, blockIds[(int)cast<kernelir::BlockIdOp>(op).getDim()]);
    }
  }
  rewriter.setInsertionPointToEnd(entry);
  func::ReturnOp::create(rewriter, loc);
  return func;
}
