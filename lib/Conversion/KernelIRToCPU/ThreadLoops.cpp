// Barrier intervals as thread loops. On the GPU every thread runs the kernel
// body concurrently and meets the others at each barrier; on the CPU each
// interval between barriers runs for every thread in turn before the next
// interval starts, which is the same semantics. Values a thread computes in
// one interval and uses in a later one live in a per-thread buffer.

#include "ThreadLoops.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <numeric>
#include <variant>

using namespace mlir;
using namespace strata;

namespace {

/// Whether `op` synchronizes the block (a barrier, or a shuffle, which
/// becomes barriers here).
bool synchronizes(Operation *op) {
  return isa<kernelir::BarrierOp, kernelir::ShuffleOp>(op);
}

} // namespace

namespace {

/// The code between two barriers at one level of the kernel: every thread
/// runs it before any thread runs the next interval.
struct Interval {
  unsigned id;
  SmallVector<Operation *> ops;
  /// The uniform loop whose initial values this interval hands to the
  /// threads (a copy into the loop-carried storage), if any.
  scf::ForOp initializes;
};

struct UniformLoop;
/// One level of the kernel: its body, or the body of a uniform loop.
struct Level {
  SmallVector<Operation *> constants; // The same in every thread.
  SmallVector<std::variant<Interval *, UniformLoop *>> items;
};

/// A loop with barriers inside, which every thread runs with the same
/// bounds: it runs at block level, its body's intervals as thread loops.
struct UniformLoop {
  scf::ForOp loop;
  Level body;
};

class ThreadLoopBuilder {
public:
  ThreadLoopBuilder(RewriterBase &rewriter, kernelir::FuncOp kernel,
                    ThreadOrder order)
      : rewriter(rewriter), kernel(kernel), order(order), loc(kernel.getLoc()) {
  }

  FailureOr<func::FuncOp> build() {
    Block &body = kernel.getBody().front();
    auto shuffles = kernel.getBody().getOps<kernelir::ShuffleOp>();
    if (!shuffles.empty())
      return (*shuffles.begin())
          .emitError("warp shuffles run on the CPU once "
                     "strata::expandShuffles has turned them into barrier "
                     "exchanges");
    if (failed(partition(body, top, /*isTop=*/true)) ||
        failed(findCrossingValues()))
      return failure();

    auto func = func::FuncOp::create(rewriter, loc, kernel.getName(),
                                     kernel.getFunctionType());
    func.setPrivate();
    Block *entry = func.addEntryBlock();
    rewriter.setInsertionPointToStart(entry);
    blockMapping.map(body.getArguments(), entry->getArguments());
    // Per-thread storage, and the shared buffers: blocks run one after
    // another, so one copy serves them all.
    int64_t threads = kernel.getNumThreadsPerBlock();
    // A uniform loop's results are its carried values after the last
    // iteration: they share the carried values' storage.
    for (Value v : crossing)
      if (!carriedOf.count(v))
        storage[v] = memref::AllocaOp::create(
            rewriter, loc, MemRefType::get({threads}, v.getType()));
    for (auto [result, iterArg] : carriedOf) {
      // Copied out first: inserting `result` may grow the map.
      Value carried = storage.lookup(iterArg);
      storage[result] = carried;
    }
    for (kernelir::SharedOp shared : body.getOps<kernelir::SharedOp>())
      if (!shared.getBase())
        mapSharedBuffer(shared);
    for (int d = 2; d >= 0; --d)
      blockIds[d] = loopOver(kernel.getGrid()[d]);
    for (kernelir::BlockIdOp id : body.getOps<kernelir::BlockIdOp>())
      blockMapping.map(id.getResult(), blockIds[(int)id.getDim()]);
    emitLevel(top);
    rewriter.setInsertionPointToEnd(entry);
    func::ReturnOp::create(rewriter, loc);
    return func;
  }

private:
  /// `shared`'s storage on the CPU: its own array or, where others overlay
  /// it, its bytes, which it and each overlay view in their own types.
  void mapSharedBuffer(kernelir::SharedOp shared) {
    auto local = [](MemRefType type) {
      return MemRefType::get(type.getShape(), type.getElementType());
    };
    SmallVector<kernelir::SharedOp> overlays = kernelir::getOverlays(shared);
    if (overlays.empty()) {
      blockMapping.map(
          shared.getResult(),
          memref::AllocaOp::create(rewriter, loc, local(shared.getType())));
      return;
    }
    Value bytes = memref::AllocaOp::create(
        rewriter, loc,
        MemRefType::get({shared.getBytes()}, rewriter.getI8Type()),
        rewriter.getI64IntegerAttr(shared.getAlignment()));
    Value start = arith::ConstantIndexOp::create(rewriter, loc, 0);
    overlays.push_back(shared);
    for (kernelir::SharedOp buffer : overlays)
      blockMapping.map(buffer.getResult(),
                       memref::ViewOp::create(rewriter, loc,
                                              local(buffer.getType()), bytes,
                                              start, ValueRange{}));
  }

  /// The first barrier or shuffle in `op`, if any.
  static Operation *firstSync(Operation *op) {
    Operation *found = nullptr;
    op->walk([&](Operation *inner) {
      if (!synchronizes(inner))
        return WalkResult::advance();
      found = inner;
      return WalkResult::interrupt();
    });
    return found;
  }

  Interval *newInterval(Level &level) {
    intervals.push_back(std::make_unique<Interval>());
    intervals.back()->id = intervals.size() - 1;
    level.items.push_back(intervals.back().get());
    return intervals.back().get();
  }

  /// Whether `v` is the same in every thread of a block at this point: an
  /// argument, a constant, a block id, the index of a uniform loop, or pure
  /// arithmetic on such values (a chunk's length, from a loop's index).
  bool isUniform(Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return arg.getOwner() == &kernel.getBody().front() ||
             uniformIndices.contains(v);
    Operation *def = v.getDefiningOp();
    if (def->hasTrait<OpTrait::ConstantLike>() || isa<kernelir::BlockIdOp>(def))
      return true;
    return def->getNumOperands() != 0 && def->getNumRegions() == 0 &&
           isMemoryEffectFree(def) && !synchronizes(def) &&
           llvm::all_of(def->getOperands(),
                        [&](Value o) { return isUniform(o); });
  }

  /// `v` (isUniform) at block level: arithmetic on uniform values is
  /// computed there, once.
  Value blockValue(Value v) {
    if (Value mapped = blockMapping.lookupOrNull(v))
      return mapped;
    Operation *def = v.getDefiningOp();
    for (Value operand : def->getOperands())
      blockValue(operand);
    rewriter.clone(*def, blockMapping);
    return blockMapping.lookup(v);
  }

  /// Splits `block` into intervals at its barriers; loops with barriers
  /// inside become uniform loops.
  LogicalResult partition(Block &block, Level &level, bool isTop) {
    Interval *current = newInterval(level);
    for (Operation &op : block) {
      if (isa<kernelir::BarrierOp>(op)) {
        current = newInterval(level);
        continue;
      }
      if (op.hasTrait<OpTrait::ConstantLike>()) {
        level.constants.push_back(&op);
        continue;
      }
      // Shared buffers and block ids are mapped once per block (build()).
      if (isTop && isa<kernelir::SharedOp, kernelir::BlockIdOp>(op))
        continue;
      if (op.hasTrait<OpTrait::IsTerminator>() && isTop)
        continue; // kernelir.return
      auto loop = dyn_cast<scf::ForOp>(op);
      if (loop && firstSync(loop)) {
        if (!isUniform(loop.getLowerBound()) ||
            !isUniform(loop.getUpperBound()) || !isUniform(loop.getStep()))
          return loop.emitError("a loop with a barrier inside needs bounds "
                                "the CPU emulation can see are the same in "
                                "every thread of the block (constants, "
                                "arguments, block ids, indices of such "
                                "loops, and arithmetic on those)");
        Interval *init = newInterval(level);
        init->initializes = loop;
        homeOf[loop] = init->id;
        auto uniform = std::make_unique<UniformLoop>();
        uniform->loop = loop;
        uniformIndices.insert(loop.getInductionVar());
        level.items.push_back(uniform.get());
        Level &inner = uniform->body;
        uniformLoops.push_back(std::move(uniform));
        if (failed(partition(*loop.getBody(), inner, /*isTop=*/false)))
          return failure();
        for (auto [iterArg, result] :
             llvm::zip(loop.getRegionIterArgs(), loop.getResults())) {
          crossing.insert(iterArg);
          carriedOf[result] = iterArg;
        }
        current = newInterval(level);
        continue;
      }
      if (Operation *sync = firstSync(&op)) {
        InFlightDiagnostic diag = sync->emitError(
            "the CPU emulation needs barriers, shuffles and mbarrier waits at "
            "the top level "
            "of the kernel or in loops every thread runs the same way, "
            "where every thread of the block reaches them");
        diag.attachNote(op.getLoc()) << "inside this op, which threads may "
                                        "run differently";
        return diag;
      }
      current->ops.push_back(&op);
      homeOf[&op] = current->id;
    }
    return success();
  }

  /// The interval in which `user` runs (that of its ancestor at a
  /// partitioned level), if any.
  std::optional<unsigned> home(Operation *user) {
    for (Operation *op = user; op; op = op->getParentOp()) {
      auto it = homeOf.find(op);
      if (it != homeOf.end())
        return it->second;
    }
    return std::nullopt;
  }

  /// Values a thread computes in one interval and uses in another.
  LogicalResult findCrossingValues() {
    auto noteUses = [&](Value v, std::optional<unsigned> own) {
      for (Operation *user : v.getUsers()) {
        std::optional<unsigned> where = home(user);
        if (where && where != own) {
          crossing.insert(v);
          usedIn[v].insert(*where);
        }
      }
    };
    for (auto &interval : intervals)
      for (Operation *op : interval->ops)
        for (Value result : op->getResults())
          noteUses(result, interval->id);
    for (auto &uniform : uniformLoops) {
      for (Value iterArg : uniform->loop.getRegionIterArgs())
        noteUses(iterArg, std::nullopt);
      for (Value result : uniform->loop.getResults())
        noteUses(result, std::nullopt);
    }
    // Kept per thread in a memref: scalars, or vectors of them (tensor-core
    // accumulators).
    for (Value v : crossing)
      if (!v.getType().isIntOrIndexOrFloat() && !isa<VectorType>(v.getType()))
        return kernel.emitError("the CPU emulation keeps only scalars and "
                                "vectors across a barrier, not ")
               << v.getType();
    return success();
  }

  /// A loop over [0, count) at the builder, which moves into its body;
  /// returns the index the iteration stands for.
  Value loopOver(int64_t count) {
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value ub = arith::ConstantIndexOp::create(rewriter, loc, count);
    auto loop = scf::ForOp::create(rewriter, loc, zero, ub, one);
    rewriter.setInsertionPointToStart(loop.getBody());
    Value i = loop.getInductionVar();
    switch (order) {
    case ThreadOrder::Forward:
      return i;
    case ThreadOrder::Reverse: // count - 1 - i
      return arith::SubIOp::create(
          rewriter, loc,
          arith::ConstantIndexOp::create(rewriter, loc, count - 1), i);
    case ThreadOrder::Shuffled: {
      // (a * i + c) mod count with a coprime with count visits every index
      // once, in an order that is neither forward nor reverse.
      int64_t a = count * 5 / 8 + 1;
      while (std::gcd(a, count) != 1)
        ++a;
      Value scaled = arith::MulIOp::create(
          rewriter, loc, i, arith::ConstantIndexOp::create(rewriter, loc, a));
      Value shifted = arith::AddIOp::create(
          rewriter, loc, scaled,
          arith::ConstantIndexOp::create(rewriter, loc, count / 3));
      return arith::RemUIOp::create(rewriter, loc, shifted, ub);
    }
    }
    llvm_unreachable("unknown thread order");
  }

  void emitLevel(Level &level) {
    cloneConstants(level);
    emitItems(level.items);
  }

  void cloneConstants(Level &level) {
    for (Operation *op : level.constants)
      rewriter.clone(*op, blockMapping);
  }

  void emitItems(ArrayRef<std::variant<Interval *, UniformLoop *>> items) {
    for (auto item : items) {
      if (auto *uniform = std::get_if<UniformLoop *>(&item)) {
        emitUniformLoop(**uniform);
        continue;
      }
      Interval &interval = *std::get<Interval *>(item);
      if (!interval.ops.empty() || interval.initializes)
        emitThreadLoop([&](Value self) { emitPart(interval, self); });
    }
  }

  /// A uniform loop runs at block level. Its body's first interval I0 and
  /// last interval In are not separated by a barrier across the back edge:
  /// on the GPU a thread may start I0 of the next iteration while another
  /// is still in In. So In and the next iteration's I0 share a thread loop,
  /// which makes a missing barrier at the end of the body a race the
  /// reversed order exposes; I0 of the first iteration runs ahead.
  void emitUniformLoop(UniformLoop &uniform) {
    scf::ForOp loop = uniform.loop;
    Value lb = blockValue(loop.getLowerBound());
    Value ub = blockValue(loop.getUpperBound());
    Value step = blockValue(loop.getStep());
    Level &body = uniform.body;
    Interval &first = *std::get<Interval *>(body.items.front());
    Interval &last = *std::get<Interval *>(body.items.back());
    Value iv = loop.getInductionVar();
    // The body's constants, for the peeled I0.
    cloneConstants(body);
    if (!first.ops.empty()) {
      Value runs = arith::CmpIOp::create(rewriter, loc,
                                         arith::CmpIPredicate::slt, lb, ub);
      blockMapping.map(iv, lb);
      emitThreadLoop([&](Value self) { emitGuardedPart(first, runs, self); });
    }
    auto blockLoop = scf::ForOp::create(rewriter, loc, lb, ub, step);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(blockLoop.getBody());
    blockMapping.map(iv, blockLoop.getInductionVar());
    cloneConstants(body);
    emitItems(ArrayRef(body.items).drop_front().drop_back());
    Value next =
        arith::AddIOp::create(rewriter, loc, blockLoop.getInductionVar(), step);
    Value more = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt,
                                       next, ub);
    emitThreadLoop([&](Value self) {
      emitPart(last, self);
      if (first.ops.empty())
        return;
      blockMapping.map(iv, next);
      emitGuardedPart(first, more, self);
      blockMapping.map(iv, blockLoop.getInductionVar());
    });
  }

  /// Loops over the threads of a block at the builder; `body` fills the
  /// loop for the thread `self` (its linear index). Thread and block ids in
  /// it become the loops' indices.
  void emitThreadLoop(function_ref<void(Value)> body) {
    OpBuilder::InsertionGuard guard(rewriter);
    SmallVector<Value> threadIds(3);
    for (int d = 2; d >= 0; --d)
      threadIds[d] = loopOver(kernel.getBlock()[d]);
    Value self = linearThreadIndex(rewriter, loc, threadIds, kernel.getBlock());
    Block *threadBody = rewriter.getInsertionBlock();
    body(self);
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

  void emitGuardedPart(Interval &interval, Value cond, Value self) {
    OpBuilder::InsertionGuard guard(rewriter);
    auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{}, cond,
                                  /*withElseRegion=*/false);
    rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    emitPart(interval, self);
  }

  /// One thread's run of `interval`: it reads the values it needs from
  /// other intervals, runs the ops and keeps what later intervals need.
  void emitPart(Interval &interval, Value self) {
    IRMapping mapping = blockMapping;
    for (Value v : crossing)
      if (usedIn.lookup(v).contains(interval.id))
        mapping.map(v, memref::LoadOp::create(rewriter, loc, storage[v],
                                              ValueRange{self}));
    auto keep = [&](Value value, Value slot) {
      memref::StoreOp::create(rewriter, loc, value, storage[slot],
                              ValueRange{self});
    };
    if (scf::ForOp loop = interval.initializes)
      for (auto [init, iterArg] :
           llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs()))
        keep(mapping.lookupOrDefault(init), iterArg);
    for (Operation *op : interval.ops) {
      if (auto yield = dyn_cast<scf::YieldOp>(op)) {
        // The end of a uniform loop's body: the carried values move on.
        auto loop = cast<scf::ForOp>(yield->getParentOp());
        for (auto [value, iterArg] :
             llvm::zip(yield.getOperands(), loop.getRegionIterArgs()))
          keep(mapping.lookupOrDefault(value), iterArg);
        continue;
      }
      rewriter.clone(*op, mapping);
      for (Value result : op->getResults())
        if (crossing.contains(result))
          keep(mapping.lookup(result), result);
    }
  }

  RewriterBase &rewriter;
  kernelir::FuncOp kernel;
  ThreadOrder order;
  Location loc;
  Level top;
  std::vector<std::unique_ptr<Interval>> intervals;
  std::vector<std::unique_ptr<UniformLoop>> uniformLoops;
  DenseMap<Operation *, unsigned> homeOf;
  llvm::SetVector<Value> crossing;
  llvm::SmallPtrSet<Value, 4> uniformIndices;
  DenseMap<Value, llvm::SmallSetVector<unsigned, 4>> usedIn;
  DenseMap<Value, Value> carriedOf; // A uniform loop's result -> iter arg.
  DenseMap<Value, Value> storage;
  IRMapping blockMapping;
  SmallVector<Value> blockIds = SmallVector<Value>(3);
};

} // namespace

FailureOr<func::FuncOp> strata::buildThreadLoops(RewriterBase &rewriter,
                                                 kernelir::FuncOp kernel,
                                                 ThreadOrder order) {
  return ThreadLoopBuilder(rewriter, kernel, order).build();
}
