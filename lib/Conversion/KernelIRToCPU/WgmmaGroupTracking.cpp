// Async wgmma groups on the CPU. The emulation computes an async wgmma as
// it is issued, which gives the GPU's numbers only if nothing overwrites
// the group's operands before a kernelir.wgmma_wait retires it: on the GPU
// the group reads shared memory at any time until then. So each thread
// keeps the shared byte ranges its groups in flight read (per group, the
// hull of each operand's reads), a wait drops the retired groups, and a
// TMA copy into a range some thread's group still reads, or a thread's
// store into one through a buffer that overlays it, fails the run, naming
// the kernel: the GPU would have multiplied the new data.

#include "ThreadLoops.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace strata;

namespace {
/// Groups one thread may have in flight; more fail the run.
constexpr int64_t kTrackedGroups = 8;
/// A tracked read: the buffer's number, its first byte, past its last.
constexpr int64_t kRangeFields = 3;

class GroupTracker {
public:
  GroupTracker(RewriterBase &b, kernelir::FuncOp kernel)
      : b(b), kernel(kernel), loc(kernel.getLoc()),
        threads(kernel.getNumThreadsPerBlock()) {}

  /// Numbers every shared buffer an async wgmma reads; false if none does.
  bool collect() {
    kernel.walk([&](kernelir::WgmmaOp op) {
      if (!op.getAsync())
        return;
      for (Value buffer : {op.getLhs(), op.getRhs()})
        buffers.try_emplace(buffer, buffers.size());
    });
    return !buffers.empty();
  }

  /// Per thread, its groups' ranges ([group][operand][field]) and their
  /// count, none at the kernel's start.
  void createState() {
    Type i64 = b.getI64Type();
    ranges = createSharedScratch(
        b, kernel, {threads, kTrackedGroups, 2, kRangeFields}, i64);
    counts = createSharedScratch(b, kernel, {threads}, i64);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfter(counts.getDefiningOp());
    kernelir::StoreOp::create(b, loc, constant(0), counts, {self()});
  }

  /// Before the wgmma: its group's two ranges, appended to this thread's.
  void record(kernelir::WgmmaOp op) {
    b.setInsertionPoint(op);
    Value n = loadCount();
    require(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, n,
                                  constant(kTrackedGroups)),
            "more async wgmma groups in flight than the emulation tracks (" +
                std::to_string(kTrackedGroups) + ")");
    Value group = asIndex(n);
    int64_t rows = kernelir::kWgmmaM, k = op.getK();
    auto range = [&](int64_t operand, Value buffer, ValueRange indices,
                     const kernelir::WgmmaLayout &layout, int64_t r) {
      auto [lo, hi] = readRange(buffer, indices, layout, r, k);
      Value fields[] = {constant(buffers.lookup(buffer)), lo, hi};
      for (auto [f, value] : llvm::enumerate(fields))
        kernelir::StoreOp::create(b, loc, value, ranges,
                                  {self(), group, index(operand), index(f)});
    };
    range(0, op.getLhs(), op.getLhsIndices(), op.getLhsLayout(), rows);
    range(1, op.getRhs(), op.getRhsIndices(), op.getRhsLayout(), op.getN());
    kernelir::StoreOp::create(b, loc,
                              arith::AddIOp::create(b, loc, n, constant(1)),
                              counts, {self()});
  }

  /// Keeps this thread's newest `pending` groups, retiring the others.
  void retire(kernelir::WgmmaWaitOp op) {
    b.setInsertionPoint(op);
    Value n = loadCount();
    Value pending = constant(op.getPending());
    Value more =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, n, pending);
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, more, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    // Group n - pending + i moves to i.
    Value retired = asIndex(arith::SubIOp::create(b, loc, n, pending));
    auto loop =
        scf::ForOp::create(b, loc, index(0), index(op.getPending()), index(1));
    b.setInsertionPointToStart(loop.getBody());
    Value from = arith::AddIOp::create(b, loc, retired, loop.getInductionVar());
    for (int64_t operand = 0; operand < 2; ++operand)
      for (int64_t f = 0; f < kRangeFields; ++f) {
        Value value = kernelir::LoadOp::create(
            b, loc, b.getI64Type(), ranges,
            {self(), from, index(operand), index(f)}, Value());
        kernelir::StoreOp::create(
            b, loc, value, ranges,
            {self(), loop.getInductionVar(), index(operand), index(f)});
      }
    b.setInsertionPointAfter(loop);
    kernelir::StoreOp::create(b, loc, pending, counts, {self()});
  }

  /// Before the copy: no thread's group in flight reads a byte it writes.
  void checkCopy(kernelir::TmaLoadOp copy) {
    checkWrite(copy, copy.getDest(), copy.getDestIndices(), copy.getBytes(),
               "a TMA copy writes");
  }

  /// Before a thread's store into a buffer that overlays one async wgmmas
  /// read (an epilogue's staging over the operand chunks): the same.
  void checkStore(kernelir::StoreOp store) {
    auto type = cast<MemRefType>(store.getMemref().getType());
    int64_t bits = type.getElementTypeBitWidth();
    if (auto vector = dyn_cast<VectorType>(store.getValue().getType()))
      bits *= vector.getNumElements();
    checkWrite(store, store.getMemref(), store.getIndices(), bits / 8,
               "a thread's store writes");
  }

private:
  /// Before `op`: no thread's group in flight reads a byte of the `bytes`
  /// from element `indices` of `dest` (a buffer async wgmmas read, or an
  /// overlay of one: the same bytes from its first).
  void checkWrite(Operation *op, Value dest, ValueRange indices, int64_t bytes,
                  StringRef writer) {
    Value read = dest;
    if (auto overlay = dest.getDefiningOp<kernelir::SharedOp>();
        overlay && overlay.getBase())
      read = overlay.getBase();
    auto id = buffers.find(read);
    if (id == buffers.end())
      return;
    b.setInsertionPoint(op);
    auto type = cast<MemRefType>(dest.getType());
    Value lo = byteOffset(type, indices);
    Value hi = arith::AddIOp::create(b, loc, lo, constant(bytes));
    auto threadLoop =
        scf::ForOp::create(b, loc, index(0), index(threads), index(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(threadLoop.getBody());
    Value thread = threadLoop.getInductionVar();
    Value n = asIndex(kernelir::LoadOp::create(b, loc, b.getI64Type(), counts,
                                               {thread}, Value()));
    auto groupLoop = scf::ForOp::create(b, loc, index(0), n, index(1));
    b.setInsertionPointToStart(groupLoop.getBody());
    for (int64_t operand = 0; operand < 2; ++operand) {
      auto field = [&](int64_t f) -> Value {
        return kernelir::LoadOp::create(
            b, loc, b.getI64Type(), ranges,
            {thread, groupLoop.getInductionVar(), index(operand), index(f)},
            Value());
      };
      auto lt = [&](Value x, Value y) -> Value {
        return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y);
      };
      Value same = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         field(0), constant(id->second));
      Value overlaps = arith::AndIOp::create(
          b, loc, same,
          arith::AndIOp::create(b, loc, lt(lo, field(2)), lt(field(1), hi)));
      require(arith::XOrIOp::create(b, loc, overlaps,
                                    arith::ConstantIntOp::create(b, loc, 1, 1)),
              writer.str() +
                  " shared memory that an async wgmma group still reads (no "
                  "kernelir.wgmma_wait has retired it; on the GPU the group "
                  "would multiply the new data)");
    }
  }

  /// The bytes of `buffer` a wgmma operand of `rows` x `k` at `indices`
  /// reads may lie anywhere in [lo, hi): from the first element's byte
  /// over the layout's readBytes, widened to whole swizzle periods, within
  /// which the swizzle moves bytes.
  std::pair<Value, Value> readRange(Value buffer, ValueRange indices,
                                    const kernelir::WgmmaLayout &layout,
                                    int64_t rows, int64_t k) {
    auto type = cast<MemRefType>(buffer.getType());
    int64_t bytes = type.getElementTypeBitWidth() / 8;
    Value lo = byteOffset(type, indices);
    Value hi = arith::AddIOp::create(
        b, loc, lo, constant(layout.readBytes(rows, k, bytes)));
    if (int64_t period = 8 * layout.swizzle) {
      lo = arith::MulIOp::create(
          b, loc, arith::DivSIOp::create(b, loc, lo, constant(period)),
          constant(period));
      hi = arith::MulIOp::create(
          b, loc, arith::CeilDivSIOp::create(b, loc, hi, constant(period)),
          constant(period));
    }
    return {lo, hi};
  }

  /// The byte offset (i64) of element `indices` of a buffer of `type`.
  Value byteOffset(MemRefType type, ValueRange indices) {
    Value elements = arith::IndexCastOp::create(
        b, loc, b.getI64Type(), buildElementOffset(b, loc, type, indices));
    return arith::MulIOp::create(b, loc, elements,
                                 constant(type.getElementTypeBitWidth() / 8));
  }

  Value loadCount() {
    return kernelir::LoadOp::create(b, loc, b.getI64Type(), counts, {self()},
                                    Value());
  }
  Value self() { return kernelThreadIndex(b, loc, kernel.getBlock()); }
  Value constant(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 64);
  }
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value asIndex(Value v) {
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  }
  void require(Value ok, const std::string &problem) {
    cf::AssertOp::create(b, loc, ok,
                         problem + " in kernel " + kernel.getName().str());
  }

  RewriterBase &b;
  kernelir::FuncOp kernel;
  Location loc;
  int64_t threads;
  llvm::MapVector<Value, int64_t> buffers;
  Value ranges, counts;
};
} // namespace

void strata::trackWgmmaGroups(RewriterBase &rewriter, kernelir::FuncOp kernel) {
  OpBuilder::InsertionGuard guard(rewriter);
  GroupTracker tracker(rewriter, kernel);
  if (!tracker.collect())
    return;
  tracker.createState();
  SmallVector<Operation *> ops;
  kernel.walk([&](Operation *op) {
    if (isa<kernelir::WgmmaOp, kernelir::WgmmaWaitOp, kernelir::TmaLoadOp,
            kernelir::StoreOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    if (auto wgmma = dyn_cast<kernelir::WgmmaOp>(op); wgmma && wgmma.getAsync())
      tracker.record(wgmma);
    else if (auto wait = dyn_cast<kernelir::WgmmaWaitOp>(op))
      tracker.retire(wait);
    else if (auto copy = dyn_cast<kernelir::TmaLoadOp>(op))
      tracker.checkCopy(copy);
    else if (auto store = dyn_cast<kernelir::StoreOp>(op))
      tracker.checkStore(store);
  }
}
