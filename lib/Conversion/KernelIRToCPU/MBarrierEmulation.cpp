// mbarriers and bulk copies on the CPU, with their phases and transaction
// bytes counted exactly. An mbarrier's state lives in its own i64 element,
// packed: the arrivals still pending (bits 0-20), the arrivals each phase
// expects (21-41), the transaction bytes still due, biased by 2^20 so that
// a copy landing before its expect_tx (a negative count, as PTX allows)
// fits (42-62), and the current phase's parity (63). Each op becomes the
// load, update and store of that state in the thread that runs it; a bulk
// copy copies at once, in 16-byte pieces, then completes its bytes (a
// tma_load element by element, zeros outside its source, swizzled; a
// tma_store likewise back, at once, so its bulk group's waits are
// nothing). A wait
// becomes a barrier (every thread's arrivals and copies before it have
// happened, which is what the GPU's wait waits for when every thread
// waits) and a check that the awaited phase has completed: where it has
// not, the GPU would wait forever, and the run fails naming the kernel.

#include "ThreadLoops.h"
#include "strata/Conversion/KernelIRCommon/Swizzle.h"

#include "strata/Dialect/Utils/ElementStorage.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace strata;

namespace {
constexpr int64_t kFieldBits = 21;
constexpr int64_t kFieldMask = (int64_t(1) << kFieldBits) - 1;
constexpr int64_t kExpectedShift = kFieldBits;
constexpr int64_t kTxShift = 2 * kFieldBits;
constexpr int64_t kPhaseShift = 63;
constexpr int64_t kTxBias = int64_t(1) << 20;
/// PTX's bound on a phase's transaction count, either way.
constexpr int64_t kMaxTx = kTxBias - 1;

/// An mbarrier's state, unpacked: i64 values, the transaction bytes due
/// unbiased (negative while copies are ahead of their expect_tx).
struct State {
  Value pending, expected, tx, phase;
};

class MBarrierEmulator {
public:
  MBarrierEmulator(RewriterBase &b, kernelir::FuncOp kernel)
      : b(b), kernelName(kernel.getName().str()) {}

  void rewrite(kernelir::MBarrierInitOp init) {
    begin(init);
    Value arrivals = constant(init.getArrivals());
    store(init.getBarriers(), init.getIndices(),
          {arrivals, arrivals, constant(0), constant(0)});
    b.eraseOp(init);
  }

  void rewrite(kernelir::MBarrierArriveOp arrive) {
    begin(arrive);
    State s = load(arrive.getBarriers(), arrive.getIndices());
    if (std::optional<int64_t> bytes = arrive.getExpectTx())
      s.tx = add(s.tx, constant(*bytes));
    check(compare(arith::CmpIPredicate::sgt, s.pending, constant(0)),
          "more arrivals at an mbarrier than its phase expects");
    s.pending = arith::SubIOp::create(b, loc, s.pending, constant(1));
    store(arrive.getBarriers(), arrive.getIndices(), complete(s));
    b.eraseOp(arrive);
  }

  void rewrite(kernelir::BulkCopyOp copy) {
    begin(copy);
    Type element = copy.getSource().getType().getElementType();
    int64_t perPiece = 128 / getStorageBits(element);
    Type piece = perPiece == 1 ? element : VectorType::get({perPiece}, element);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value end = arith::ConstantIndexOp::create(b, loc, copy.getElements());
    Value step = arith::ConstantIndexOp::create(b, loc, perPiece);
    auto loop = scf::ForOp::create(b, loc, zero, end, step);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value at = loop.getInductionVar();
      auto shifted = [&](ValueRange indices) {
        SmallVector<Value> result(indices);
        result.back() = arith::AddIOp::create(b, loc, result.back(), at);
        return result;
      };
      Value value =
          kernelir::LoadOp::create(b, loc, piece, copy.getSource(),
                                   shifted(copy.getSourceIndices()), Value());
      kernelir::StoreOp::create(b, loc, value, copy.getDest(),
                                shifted(copy.getDestIndices()));
    }
    State s = load(copy.getBarriers(), copy.getBarrierIndices());
    s.tx = arith::SubIOp::create(b, loc, s.tx, constant(copy.getBytes()));
    store(copy.getBarriers(), copy.getBarrierIndices(), complete(s));
    b.eraseOp(copy);
  }

  /// The box element by element: zero where it leaves the source, stored
  /// where the swizzle puts its byte offset from the box's start.
  void rewrite(kernelir::TmaLoadOp copy) {
    begin(copy);
    {
      OpBuilder::InsertionGuard guard(b);
      BoxElement e =
          boxElement(copy.getBox(), copy.getSource(), copy.getSourceIndices(),
                     copy.getDest(), copy.getDestIndices(), copy.getSwizzle());
      Value value = kernelir::LoadOp::create(b, loc, copy.getSource(), e.global,
                                             e.inside);
      kernelir::StoreOp::create(b, loc, value, copy.getDest(), e.shared);
    }
    State s = load(copy.getBarriers(), copy.getBarrierIndices());
    s.tx = arith::SubIOp::create(b, loc, s.tx, constant(copy.getBytes()));
    store(copy.getBarriers(), copy.getBarrierIndices(), complete(s));
    b.eraseOp(copy);
  }

  /// The box element by element, read where the swizzle put it, written
  /// where it lies inside the destination: at once, so the bulk group's
  /// commit and waits have nothing left to wait for.
  void rewrite(kernelir::TmaStoreOp copy) {
    begin(copy);
    {
      OpBuilder::InsertionGuard guard(b);
      BoxElement e = boxElement(copy.getBox(), copy.getDest(),
                                copy.getDestIndices(), copy.getSource(),
                                copy.getSourceIndices(), copy.getSwizzle());
      Value value =
          kernelir::LoadOp::create(b, loc, copy.getSource(), e.shared);
      kernelir::StoreOp::create(b, loc, value, copy.getDest(), e.global,
                                e.inside);
    }
    b.eraseOp(copy);
  }

  void rewrite(kernelir::MBarrierWaitOp wait) {
    begin(wait);
    kernelir::BarrierOp::create(b, loc);
    State s = load(wait.getBarriers(), wait.getIndices());
    Value parity =
        arith::ExtUIOp::create(b, loc, b.getI64Type(), wait.getParity());
    check(compare(arith::CmpIPredicate::ne, s.phase, parity),
          "an mbarrier wait whose phase never completes (a deadlock on the "
          "GPU: an arrival or transaction bytes are missing, or the parity "
          "is wrong)");
    b.eraseOp(wait);
  }

private:
  /// An element of a TMA box, inside the loops over the box that this
  /// builds (the insertion point is left in the innermost): its indices in
  /// the global tensor, whether they lie inside it, and its indices in the
  /// shared buffer (the leading ones `sharedStart`'s; the box's, its start
  /// plus where the swizzle puts its byte offset in the box; see
  /// kernelir::getTmaBoxInShared).
  struct BoxElement {
    SmallVector<Value> global, shared;
    Value inside;
  };
  BoxElement boxElement(ArrayRef<int64_t> box, Value global,
                        ValueRange globalStart, Value shared,
                        ValueRange sharedStart, int64_t swizzle) {
    SmallVector<int64_t> boxStrides = computeSuffixProduct(box);
    auto tensor = cast<MemRefType>(global.getType());
    int64_t elementBytes = getStorageBits(tensor.getElementType()) / 8;
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    SmallVector<Value> at;
    for (int64_t extent : box) {
      auto loop = scf::ForOp::create(b, loc, index(0), index(extent), index(1));
      b.setInsertionPointToStart(loop.getBody());
      at.push_back(loop.getInductionVar());
    }
    // The tensor the map describes (a view of the buffer: a box of lower
    // rank sees the leading dimensions as one, a marked view its shape),
    // and the element the coordinates name, row-major in both.
    SmallVector<int64_t> shape =
        kernelir::getTensorMapShape(global, box.size());
    BoxElement e;
    for (auto [d, start] : llvm::enumerate(globalStart)) {
      Value c = arith::AddIOp::create(b, loc, start, at[d]);
      Value ok = arith::AndIOp::create(
          b, loc, compare(arith::CmpIPredicate::sge, c, index(0)),
          compare(arith::CmpIPredicate::slt, c, index(shape[d])));
      e.inside = e.inside ? arith::AndIOp::create(b, loc, e.inside, ok) : ok;
      e.global.push_back(c);
    }
    if (ArrayRef<int64_t>(shape) != tensor.getShape()) {
      Value linear = index(0);
      for (auto [c, extent] : llvm::zip_equal(e.global, shape))
        linear = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, linear, index(extent)), c);
      e.global.clear();
      for (int64_t extent : llvm::reverse(tensor.getShape())) {
        e.global.insert(e.global.begin(),
                        arith::RemUIOp::create(b, loc, linear, index(extent)));
        linear = arith::DivUIOp::create(b, loc, linear, index(extent));
      }
    }
    Value offset = index(0);
    for (auto [i, stride] : llvm::zip_equal(at, boxStrides))
      offset = arith::AddIOp::create(
          b, loc, offset,
          arith::MulIOp::create(b, loc, i, index(stride * elementBytes)));
    Value swizzled = buildSwizzledOffset(b, loc, offset, swizzle);
    Value element =
        arith::DivUIOp::create(b, loc, swizzled, index(elementBytes));
    // The box's leading 1s have no dimension in the shared buffer.
    ArrayRef<int64_t> inShared = kernelir::getTmaBoxInShared(box);
    ValueRange leading = sharedStart.drop_back(inShared.size());
    e.shared.assign(leading.begin(), leading.end());
    // From the box's place in the buffer (rows of a chunk, see tma_load).
    for (auto [extent, stride, start] : llvm::zip_equal(
             inShared, ArrayRef(boxStrides).take_back(inShared.size()),
             sharedStart.take_back(inShared.size())))
      e.shared.push_back(arith::AddIOp::create(
          b, loc, start,
          arith::RemUIOp::create(
              b, loc, arith::DivUIOp::create(b, loc, element, index(stride)),
              index(extent))));
    return e;
  }

  void begin(Operation *op) {
    b.setInsertionPoint(op);
    loc = op->getLoc();
  }
  Value constant(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 64);
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value compare(arith::CmpIPredicate predicate, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, predicate, x, y);
  }
  Value field(Value state, int64_t shift) {
    Value shifted = arith::ShRUIOp::create(b, loc, state, constant(shift));
    return arith::AndIOp::create(b, loc, shifted, constant(kFieldMask));
  }
  void check(Value ok, StringRef problem) {
    cf::AssertOp::create(b, loc, ok,
                         (problem + " in kernel " + kernelName).str());
  }

  State load(Value barriers, ValueRange indices) {
    Value state = kernelir::LoadOp::create(b, loc, b.getI64Type(), barriers,
                                           indices, Value());
    return {field(state, 0), field(state, kExpectedShift),
            arith::SubIOp::create(b, loc, field(state, kTxShift),
                                  constant(kTxBias)),
            arith::ShRUIOp::create(b, loc, state, constant(kPhaseShift))};
  }

  void store(Value barriers, ValueRange indices, State s) {
    check(compare(arith::CmpIPredicate::sle, s.tx, constant(kMaxTx)),
          "more transaction bytes expected of an mbarrier's phase than PTX "
          "allows");
    check(compare(arith::CmpIPredicate::sge, s.tx, constant(-kMaxTx)),
          "more transaction bytes completed on an mbarrier's phase than "
          "PTX allows");
    auto shl = [&](Value v, int64_t shift) -> Value {
      return arith::ShLIOp::create(b, loc, v, constant(shift));
    };
    Value state = arith::OrIOp::create(
        b, loc,
        arith::OrIOp::create(b, loc, s.pending,
                             shl(s.expected, kExpectedShift)),
        arith::OrIOp::create(b, loc,
                             shl(add(s.tx, constant(kTxBias)), kTxShift),
                             shl(s.phase, kPhaseShift)));
    kernelir::StoreOp::create(b, loc, state, barriers, indices);
  }

  /// The phase completes when no arrival and no byte is due: the next
  /// begins, expecting its arrivals again.
  State complete(State s) {
    Value done = arith::AndIOp::create(
        b, loc, compare(arith::CmpIPredicate::eq, s.pending, constant(0)),
        compare(arith::CmpIPredicate::eq, s.tx, constant(0)));
    return {arith::SelectOp::create(b, loc, done, s.expected, s.pending),
            s.expected, s.tx,
            arith::SelectOp::create(
                b, loc, done,
                arith::XOrIOp::create(b, loc, s.phase, constant(1)), s.phase)};
  }

  RewriterBase &b;
  std::string kernelName;
  Location loc = UnknownLoc::get(b.getContext());
};
} // namespace

void strata::expandMBarriers(RewriterBase &rewriter, kernelir::FuncOp kernel) {
  MBarrierEmulator emulator(rewriter, kernel);
  SmallVector<Operation *> ops;
  kernel.walk([&](Operation *op) {
    if (isa<kernelir::MBarrierInitOp, kernelir::MBarrierArriveOp,
            kernelir::MBarrierWaitOp, kernelir::BulkCopyOp, kernelir::TmaLoadOp,
            kernelir::TmaStoreOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops)
    llvm::TypeSwitch<Operation *>(op)
        .Case<kernelir::MBarrierInitOp, kernelir::MBarrierArriveOp,
              kernelir::MBarrierWaitOp, kernelir::BulkCopyOp,
              kernelir::TmaLoadOp, kernelir::TmaStoreOp>(
            [&](auto typed) { emulator.rewrite(typed); });
  // TMA stores completed as they were issued: their groups are done.
  kernel.walk([&](Operation *op) {
    if (isa<kernelir::BulkCommitOp, kernelir::BulkWaitOp>(op))
      rewriter.eraseOp(op);
  });
}
