// A fold whose monoid's components split among the lanes of a row.
//
// Attention's row folds (m, l, a_0, ..., a_{E-1}): the running maximum of
// its scores, the sum of their exponentials, and a sum per element of the
// output row. Folded as in SharedChunkFold.cpp or BlockCombine.cpp, each
// lane of a row takes a share of the keys and holds all E + 2
// accumulators, which spill at head dimension 128. Here every lane takes
// every key of its warp's and holds the maximum, the sum and 1/lanes of
// the a_e: each lane computes the score of one key of a group (lane l the
// key o + l, so no product is computed twice) and hands it to the others
// by shuffles, or the lanes add a share of each q . k where that costs
// fewer shuffles, and each folds its own share of the output row. The
// values come from the Q-tile schedule's shared chunks, or straight from
// the buffer for a decode step (a warp or more per row; several warps take
// turns over the keys and combine through shared memory at the end). The
// monoid is found in the fold's structure, not assumed: the combine of
// every split ("tail") component depends only on the others ("head") and
// itself, alike for all of them, and each tail contribution is one scalar
// load of its own (maybe guarded), alike for all.

#include "RowProgramTranslator.h"
#include "strata/Dialect/Utils/LoopBox.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace strata;
using namespace strata::detail;

namespace {

/// The top-level ops of `block` that compute `roots` (and the values their
/// nested regions use), in block order.
SmallVector<Operation *> sliceOf(Block &block, ArrayRef<Value> roots) {
  llvm::SetVector<Operation *> needed;
  SmallVector<Value> worklist(roots);
  auto visit = [&](Value v) {
    Operation *def = v.getDefiningOp();
    if (def && def->getBlock() == &block && !needed.contains(def)) {
      needed.insert(def);
      def->walk([&](Operation *inner) {
        llvm::append_range(worklist, inner->getOperands());
      });
    }
  };
  while (!worklist.empty())
    visit(worklist.pop_back_val());
  SmallVector<Operation *> ordered(needed.begin(), needed.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// The components (modulo `n`) of the combine block's arguments `v`
/// depends on.
llvm::SmallBitVector argumentsOf(Block &combine, unsigned n, Value v) {
  llvm::SmallBitVector components(n);
  SmallVector<Value> worklist = {v};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!worklist.empty()) {
    Value x = worklist.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(x)) {
      if (arg.getOwner() == &combine)
        components.set(arg.getArgNumber() % n);
      continue;
    }
    Operation *def = x.getDefiningOp();
    if (def && def->getBlock() == &combine && seen.insert(def).second)
      llvm::append_range(worklist, def->getOperands());
  }
  return components;
}

/// The one sum of `slice` (a loopir.reduce add over one index of a float)
/// whose points divide among `lanes` lanes: attention's q . k.
loopir::ReduceOp splittableSum(ArrayRef<Operation *> slice, int64_t lanes) {
  loopir::ReduceOp found;
  for (Operation *op : slice) {
    auto reduce = dyn_cast<loopir::ReduceOp>(op);
    if (!reduce)
      continue;
    if (found)
      return {};
    found = reduce;
  }
  if (!found || found.getBounds().size() != 1 ||
      found.getBounds()[0] % lanes != 0 || found.getNumResults() != 1 ||
      found.getCombinerList() !=
          SmallVector<loopir::Combiner>{loopir::Combiner::add} ||
      !isa<FloatType>(found.getResult(0).getType()) ||
      !isShuffledType(found.getResult(0).getType()))
    return {};
  return found;
}

} // namespace

Value RowProgramTranslator::sumAcrossLanes(loopir::ReduceOp sum, IRMapping &m,
                                           Value lane, int64_t lanes) {
  Location loc = sum.getLoc();
  int64_t share = sum.getBounds()[0] / lanes;
  auto partial = loopir::ReduceOp::create(b, loc, sum.getResultTypes(),
                                          sum.getCombiners().getValue(),
                                          ArrayRef<int64_t>{share});
  {
    // This lane's points: lanes * k + lane (neighbouring lanes read
    // neighbouring elements).
    OpBuilder::InsertionGuard guard(b);
    Block &body = partial.getBody().front();
    b.setInsertionPointToStart(&body);
    Value point = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, body.getArgument(0),
                              arith::ConstantIndexOp::create(b, loc, lanes)),
        lane);
    m.map(sum.getBody().front().getArgument(0), point);
    for (Operation &op : sum.getBody().front())
      b.clone(op, m);
  }
  // The lanes' partial sums, added in the same order in every lane.
  return combineAcrossBlock(
      b, loc, *entry, lane, lanes,
      KernelMonoid::primitive({MonoidKind::Add}, partial.getResultTypes()),
      partial.getResults())[0];
}

bool strata::detail::computedAlike(
    Value a, Value b, function_ref<std::optional<bool>(Value, Value)> leaf,
    DenseMap<std::pair<Value, Value>, bool> &memo) {
  if (a == b)
    return true;
  if (std::optional<bool> decided = leaf(a, b))
    return *decided;
  auto ra = dyn_cast<OpResult>(a), rb = dyn_cast<OpResult>(b);
  if (!ra || !rb || ra.getResultNumber() != rb.getResultNumber())
    return false;
  auto [it, inserted] = memo.try_emplace({a, b}, false);
  if (!inserted)
    return it->second;
  Operation *x = ra.getOwner(), *y = rb.getOwner();
  bool same = x->getName() == y->getName() &&
              x->getAttrDictionary() == y->getAttrDictionary() &&
              x->getNumRegions() == 0 && y->getNumRegions() == 0 &&
              x->getNumOperands() == y->getNumOperands() &&
              x->getResultTypes() == y->getResultTypes();
  for (unsigned i = 0; same && i < x->getNumOperands(); ++i)
    same = computedAlike(x->getOperand(i), y->getOperand(i), leaf, memo);
  memo[{a, b}] = same;
  return same;
}

std::optional<ComponentSplit> strata::detail::planComponentSplit(
    Operation *fold, ArrayRef<tileir::SharedChunkLoad> loads, int64_t lanes) {
  auto composite = dyn_cast<tileir::CompositeFoldOp>(fold);
  if (!composite || lanes < 2 || lanes > kWarpSize ||
      !llvm::isPowerOf2_64(lanes))
    return std::nullopt;
  Block &body = composite.getBody().front();
  Block &combine = composite.getCombine().front();
  unsigned n = composite.getNumResults();
  if (llvm::any_of(combine, [](Operation &op) { return op.getNumRegions(); }) ||
      !llvm::all_of(composite.getResultTypes(), isShuffledType))
    return std::nullopt;
  // Candidates for the tail: contributions without nested loops that read
  // one scalar shared chunk of their own (the row vector's values), and
  // maybe what all of them read (a mask, loaded per row and point).
  DenseMap<Operation *, unsigned> scalarChunks; // load -> index in `loads`
  for (auto [i, l] : llvm::enumerate(loads))
    if (l.inner.empty())
      scalarChunks[l.load] = i;
  ValueRange yields = body.getTerminator()->getOperands();
  SmallVector<SmallVector<Operation *>> slices;
  SmallVector<unsigned> candidates;
  for (auto [c, y] : llvm::enumerate(yields)) {
    slices.push_back(sliceOf(body, {y}));
    bool cheap = llvm::all_of(slices.back(), [&](Operation *op) {
      return op->getNumRegions() == 0 &&
             (isa<loopir::LoadOp>(op) || isMemoryEffectFree(op));
    });
    if (cheap && llvm::any_of(slices.back(), [&](Operation *op) {
          return scalarChunks.contains(op);
        }))
      candidates.push_back(c);
  }
  if (candidates.size() < 2 * (size_t)lanes)
    return std::nullopt;
  // A candidate's own load is the one no other candidate reads (a padding
  // mask every one of them reads is common).
  DenseMap<Operation *, unsigned> readers;
  for (unsigned c : candidates)
    for (Operation *op : slices[c])
      if (isa<loopir::LoadOp>(op))
        ++readers[op];
  ComponentSplit split;
  llvm::SmallBitVector isTail(n);
  for (unsigned c : candidates) {
    SmallVector<Operation *> own;
    for (Operation *op : slices[c])
      if (isa<loopir::LoadOp>(op) && readers[op] == 1)
        own.push_back(op);
    if (own.size() != 1 || !scalarChunks.contains(own.front()))
      continue;
    split.tail.push_back(c);
    split.tailLoads.push_back(scalarChunks[own.front()]);
    isTail.set(c);
  }
  // What does not divide among the lanes folds with the head (a combine
  // kernel's partial sums l, loaded like the output row's a_e, take the
  // form of the tail but are one too many).
  split.lanes = lanes;
  while (split.tail.size() % lanes != 0) {
    isTail.reset(split.tail.front());
    split.tail.erase(split.tail.begin());
    split.tailLoads.erase(split.tailLoads.begin());
    ++split.joinedHead;
  }
  for (unsigned c = 0; c < n; ++c)
    if (!isTail.test(c))
      split.head.push_back(c);
  if (split.tail.size() < 2 * (size_t)lanes || split.head.empty())
    return std::nullopt;
  // The head folds alone; each tail component folds with the head only.
  ValueRange combined = combine.getTerminator()->getOperands();
  for (unsigned c = 0; c < n; ++c) {
    llvm::SmallBitVector deps = argumentsOf(combine, n, combined[c]);
    if (isTail.test(c))
      deps.reset(c);
    if ((deps & isTail).any())
      return std::nullopt;
  }
  // Every tail component combines and contributes as the first does.
  unsigned first = split.tail.front();
  Type element = loads[split.tailLoads.front()].load->getResult(0).getType();
  for (size_t t = 0; t < split.tail.size(); ++t) {
    unsigned c = split.tail[t], l = split.tailLoads[t];
    if (loads[l].load->getResult(0).getType() != element ||
        composite.getIdentities()[c] != composite.getIdentities()[first])
      return std::nullopt;
    DenseMap<std::pair<Value, Value>, bool> memo;
    auto sameArgument = [&](Value a, Value b) -> std::optional<bool> {
      auto x = dyn_cast<BlockArgument>(a), y = dyn_cast<BlockArgument>(b);
      if (!x || !y)
        return x || y ? std::optional<bool>(false) : std::nullopt;
      if (x.getOwner() != &combine || y.getOwner() != &combine)
        return false; // Distinct values of the kernel.
      unsigned i = x.getArgNumber(), j = y.getArgNumber();
      return i / n == j / n && i % n == first && j % n == c;
    };
    if (!computedAlike(combined[first], combined[c], sameArgument, memo))
      return std::nullopt;
    Operation *ownFirst = loads[split.tailLoads.front()].load;
    Operation *own = loads[l].load;
    memo.clear();
    auto sameLoad = [&](Value a, Value b) -> std::optional<bool> {
      if (a.getDefiningOp() == ownFirst || b.getDefiningOp() == own)
        return a.getDefiningOp() == ownFirst && b.getDefiningOp() == own;
      if (isa<BlockArgument>(a) || isa<BlockArgument>(b))
        return false; // Distinct arguments (equal ones matched already).
      return std::nullopt;
    };
    if (!computedAlike(yields[first], yields[c], sameLoad, memo))
      return std::nullopt;
  }
  return split;
}

std::optional<TailColumns>
strata::detail::planTailColumns(const ComponentSplit &split,
                                ArrayRef<tileir::SharedChunkLoad> loads) {
  // The tail's loads differ in one index only, a constant that counts the
  // components: the output row's element.
  auto firstLoad = loads[split.tailLoads.front()].load;
  std::optional<TailColumns> columns;
  for (auto [t, l] : llvm::enumerate(split.tailLoads)) {
    auto load = loads[l].load;
    if (load.getMemref() != firstLoad.getMemref() ||
        load->getAttrDictionary() != firstLoad->getAttrDictionary() ||
        load->getNumOperands() != firstLoad->getNumOperands())
      return std::nullopt;
    if (t == 0)
      continue;
    std::optional<unsigned> differs;
    for (unsigned i = 0; i < load->getNumOperands(); ++i) {
      if (load->getOperand(i) == firstLoad->getOperand(i))
        continue;
      if (differs)
        return std::nullopt;
      differs = i;
    }
    APInt at, first;
    if (!differs || (columns && columns->operand != *differs) ||
        !matchPattern(load->getOperand(*differs), m_ConstantInt(&at)) ||
        !matchPattern(firstLoad->getOperand(*differs), m_ConstantInt(&first)) ||
        at.getSExtValue() != first.getSExtValue() + (int64_t)t)
      return std::nullopt;
    columns = TailColumns{*differs, first.getSExtValue()};
  }
  return columns;
}

Value RowProgramTranslator::splitLane(Location loc, int64_t lanes) {
  if (groupThreads <= lanes)
    return groupThread;
  return arith::RemUIOp::create(b, loc, groupThread,
                                arith::ConstantIndexOp::create(b, loc, lanes));
}

SmallVector<Value>
RowProgramTranslator::combineSplit(Operation *fold, const ComponentSplit &split,
                                   ValueRange acc, ValueRange contribution) {
  // The region's ops for the head's results and those of the tail
  // components in position 0 of each slot (tail[s * lanes]), which combine
  // as the others of their slot do (planComponentSplit).
  auto composite = cast<tileir::CompositeFoldOp>(fold);
  Block &combine = composite.getCombine().front();
  unsigned n = composite.getNumResults();
  int64_t lanes = split.lanes;
  SmallVector<unsigned> components(split.head);
  for (size_t s = 0; s < split.tail.size() / lanes; ++s)
    components.push_back(split.tail[s * lanes]);
  ValueRange combined = combine.getTerminator()->getOperands();
  SmallVector<Value> roots;
  IRMapping args = mapping;
  for (auto [i, c] : llvm::enumerate(components)) {
    roots.push_back(combined[c]);
    args.map(combine.getArgument(c), acc[i]);
    args.map(combine.getArgument(n + c), contribution[i]);
  }
  for (Operation *op : sliceOf(combine, roots))
    b.clone(*op, args);
  SmallVector<Value> next;
  for (Value r : roots)
    next.push_back(args.lookupOrDefault(r));
  return next;
}

SmallVector<Value>
RowProgramTranslator::splitIdentity(Operation *fold,
                                    const ComponentSplit &split) {
  Location loc = fold->getLoc();
  ArrayAttr identities = cast<tileir::CompositeFoldOp>(fold).getIdentities();
  SmallVector<Value> init;
  auto identity = [&](unsigned c) {
    init.push_back(
        arith::ConstantOp::create(b, loc, cast<TypedAttr>(identities[c])));
  };
  for (unsigned c : split.head)
    identity(c);
  for (size_t s = 0; s < split.tail.size() / split.lanes; ++s)
    identity(split.tail.front());
  return init;
}

SmallVector<Value> RowProgramTranslator::foldByComponents(
    Operation *fold, Block &body, ArrayRef<int64_t> bounds,
    ArrayRef<tileir::SharedChunkLoad> loads, ArrayRef<Value> chunks,
    const ComponentSplit &split, TailRead readTail, Value first, Value end,
    const SplitRuns &runs, ValueRange acc) {
  Location loc = fold->getLoc();
  auto composite = cast<tileir::CompositeFoldOp>(fold);
  int64_t lanes = split.lanes;
  int64_t slots = split.tail.size() / lanes;
  Value lane = splitLane(loc, lanes);
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  SmallVector<TypedAttr> identity;
  for (Attribute a : composite.getIdentities())
    identity.push_back(cast<TypedAttr>(a));
  Value last = index(computeProduct(bounds) - 1);

  // The body at a point, its shared loads reading the chunks (if any).
  auto bindPoint = [&](IRMapping &m, Value offset) {
    Value point = arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, first, offset), last);
    m.map(body.getArguments(), delinearize(b, loc, point, bounds));
  };
  ValueRange yields = body.getTerminator()->getOperands();
  SmallVector<Value> headYields;
  for (unsigned c : split.head)
    headYields.push_back(yields[c]);
  SmallVector<Operation *> headSlice = sliceOf(body, headYields);
  unsigned firstTail = split.tail.front();
  Operation *ownLoad = loads[split.tailLoads.front()].load;
  SmallVector<Operation *> tailSlice = sliceOf(body, {yields[firstTail]});
  // The part of the tail's contribution that reads its own load (the
  // rest, a mask, is computed once per point for every slot).
  llvm::SmallPtrSet<Operation *, 8> readsOwn = {ownLoad};
  for (Operation *op : tailSlice)
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp(); def && readsOwn.count(def))
        readsOwn.insert(op);

  // The head's contribution at the point `offset`, to which `m` binds the
  // body's arguments; with `dot`, its sum of products split among the
  // lanes. Splitting the sum costs each lane log2(lanes) shuffles per
  // point; computing each point's head in one lane and handing it to the
  // others, one per head component.
  loopir::ReduceOp dot = splittableSum(headSlice, lanes);
  if (dot && llvm::Log2_64(lanes) > split.head.size())
    dot = {};
  auto evaluateHead = [&](IRMapping &m, Value offset) {
    for (Operation *op : headSlice) {
      if (op == dot.getOperation())
        m.map(dot.getResult(0), sumAcrossLanes(dot, m, lane, lanes));
      else
        b.clone(*op, m);
    }
    readFromChunks(m, loads, chunks, offset);
    SmallVector<Value> head;
    for (Value y : headYields)
      head.push_back(m.lookupOrDefault(y));
    return head;
  };
  // The loop's bounds are the same in every thread of the block (the CPU
  // emulation runs loops with shuffles in lockstep): the group's runs take
  // turns over groups of `lanes` points, a run's start runs.offset
  // further, and their points past `end` are not valid.
  auto groupLoop = buildLoop(
      loc, index(0), end, index(groupThreads), acc,
      [&](Value o, ValueRange carried) {
        if (runs.offset)
          o = arith::AddIOp::create(b, loc, o, runs.offset);
        // Without a sum to split, each lane computes the head's
        // contribution of one point of the group, for all.
        SmallVector<Value> head;
        if (!dot) {
          IRMapping own = mapping;
          Value mine = arith::AddIOp::create(b, loc, o, lane);
          Value mineClamped = arith::MinUIOp::create(
              b, loc, mine, arith::SubIOp::create(b, loc, end, index(1)));
          bindPoint(own, mineClamped);
          head = evaluateHead(own, mineClamped);
        }
        // The group's points one after the other (a loop, not unrolled:
        // each point's values are dead once folded).
        auto points = buildLoop(
            loc, index(0), index(lanes), index(1), carried,
            [&](Value i, ValueRange next) {
              Value offset = arith::AddIOp::create(b, loc, o, i);
              Value valid = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::ult, offset, end);
              Value clamped = arith::MinUIOp::create(
                  b, loc, offset, arith::SubIOp::create(b, loc, end, index(1)));
              SmallVector<Value> theirs;
              if (dot) {
                // Every lane computes the point's head, a share of its sum.
                IRMapping m = mapping;
                bindPoint(m, clamped);
                theirs = evaluateHead(m, clamped);
              } else {
                Value source = laneOfGroup(loc, i, lanes);
                for (Value h : head)
                  theirs.push_back(kernelir::ShuffleOp::create(
                      b, loc, h, source, kernelir::ShuffleMode::IDX));
              }
              SmallVector<Value> contribution;
              for (auto [h, c] : llvm::zip(theirs, split.head)) {
                Value id = arith::ConstantOp::create(b, loc, identity[c]);
                contribution.push_back(
                    arith::SelectOp::create(b, loc, valid, h, id));
              }
              // The point's tail values for this lane's slots.
              IRMapping at = mapping;
              bindPoint(at, clamped);
              for (Operation *op : tailSlice)
                if (!readsOwn.count(op))
                  b.clone(*op, at);
              readFromChunks(at, loads, chunks, clamped);
              for (int64_t s = 0; s < slots; ++s) {
                Value column =
                    arith::AddIOp::create(b, loc, index(s * lanes), lane);
                IRMapping slot = at;
                slot.map(ownLoad->getResult(0), readTail(at, clamped, column));
                for (Operation *op : tailSlice)
                  if (op != ownLoad && readsOwn.count(op))
                    b.clone(*op, slot);
                Value id =
                    arith::ConstantOp::create(b, loc, identity[firstTail]);
                contribution.push_back(arith::SelectOp::create(
                    b, loc, valid, slot.lookupOrDefault(yields[firstTail]),
                    id));
              }
              return combineSplit(fold, split, next, contribution);
            });
        return SmallVector<Value>(points.getResults());
      });
  return SmallVector<Value>(groupLoop.getResults());
}

bool RowProgramTranslator::translateSplitFold(Operation *fold, Block &body,
                                              ArrayRef<int64_t> bounds) {
  if (!isa<tileir::CompositeFoldOp>(fold))
    return false;
  // Every scalar load of the body may be a tail component's own.
  SmallVector<tileir::SharedChunkLoad> loads;
  for (auto load : body.getOps<loopir::LoadOp>())
    loads.push_back({load, {}, {}});
  std::optional<ComponentSplit> split = chooseComponentSplit(fold, loads);
  if (!split)
    return false;
  std::optional<TailColumns> columns = planTailColumns(*split, loads);
  if (!columns)
    return false;
  Location loc = fold->getLoc();
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // A slot's value: the tail's first load, its column moved to the slot's
  // element (neighbouring lanes read neighbouring elements).
  Operation *ownLoad = loads[split->tailLoads.front()].load;
  auto readTail = [&](IRMapping &at, Value, Value column) -> Value {
    Value element =
        arith::AddIOp::create(b, loc, index(columns->first), column);
    Operation *copy = b.clone(*ownLoad, at);
    copy->setOperand(columns->operand, element);
    return copy->getResult(0);
  };
  SplitRuns runs = splitRuns(*split, loc);
  SmallVector<Value> acc = foldByComponents(
      fold, body, bounds, loads, /*chunks=*/{}, *split, readTail, index(0),
      index(computeProduct(bounds)), runs, splitIdentity(fold, *split));
  mapSplitResults(fold, *split, combineSplitRuns(fold, *split, acc, runs));
  return true;
}

std::optional<ComponentSplit> RowProgramTranslator::chooseComponentSplit(
    Operation *fold, ArrayRef<tileir::SharedChunkLoad> loads) {
  // The most lanes (up to a warp's) that leave the fewest components of
  // the tail's form out of the split: a head dimension of 80 takes 16
  // lanes, 5 slots each, not 32 lanes and 16 components in every lane.
  std::optional<ComponentSplit> split;
  for (int64_t lanes = std::min<int64_t>(groupThreads, kWarpSize); lanes >= 2;
       lanes /= 2) {
    std::optional<ComponentSplit> candidate =
        planComponentSplit(fold, loads, lanes);
    if (candidate && (!split || candidate->joinedHead < split->joinedHead))
      split = std::move(candidate);
  }
  return split;
}

RowProgramTranslator::SplitRuns
RowProgramTranslator::splitRuns(const ComponentSplit &split, Location loc) {
  // The runs of a group's lanes (its warps, or runs of a warp's lanes) take
  // turns over groups of split.lanes points.
  SplitRuns runs{groupThreads / split.lanes, Value(), Value()};
  if (runs.count == 1)
    return runs;
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  runs.run = arith::DivUIOp::create(b, loc, groupThread, index(split.lanes));
  runs.offset = arith::MulIOp::create(b, loc, runs.run, index(split.lanes));
  return runs;
}

SmallVector<Value>
RowProgramTranslator::combineSplitRuns(Operation *fold,
                                       const ComponentSplit &split,
                                       ValueRange acc, const SplitRuns &runs) {
  if (runs.count == 1)
    return SmallVector<Value>(acc);
  // Lane l of every run holds the same components: each posts its fold to
  // a shared buffer (a row per run of each group), and after a barrier
  // every run combines the posts of its lane in run order (the same bits
  // in every run).
  Location loc = fold->getLoc();
  Value lane = splitLane(loc, split.lanes);
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value first =
      group
          ? arith::MulIOp::create(b, loc, group, index(runs.count)).getResult()
          : index(0);
  Value row = arith::AddIOp::create(b, loc, first, runs.run);
  SmallVector<Value> buffers;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(entry);
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    for (Value v : acc)
      buffers.push_back(kernelir::SharedOp::create(
          b, loc,
          MemRefType::get({groups * runs.count, split.lanes}, v.getType(),
                          MemRefLayoutAttrInterface(), workgroup)));
  }
  for (auto [v, buffer] : llvm::zip(acc, buffers))
    kernelir::StoreOp::create(b, loc, v, buffer, ValueRange{row, lane},
                              Value());
  kernelir::BarrierOp::create(b, loc);
  auto post = [&](int64_t w) {
    SmallVector<Value> state;
    Value at = arith::AddIOp::create(b, loc, first, index(w));
    for (Value buffer : buffers)
      state.push_back(
          kernelir::LoadOp::create(b, loc, buffer, ValueRange{at, lane}));
    return state;
  };
  SmallVector<Value> result = post(0);
  for (int64_t w = 1; w < runs.count; ++w)
    result = combineSplit(fold, split, result, post(w));
  return result;
}

void RowProgramTranslator::mapSplitResults(Operation *fold,
                                           const ComponentSplit &split,
                                           ValueRange acc) {
  for (auto [i, c] : llvm::enumerate(split.head))
    mapping.map(fold->getResult(c), acc[i]);
  // Tail component e lives in slot e / lanes of lane e % lanes; it is
  // shuffled from there where the kernel's top level first uses it (all
  // at once here would keep the whole row vector live in every thread).
  int64_t lanes = split.lanes;
  for (auto [e, c] : llvm::enumerate(split.tail)) {
    Value slot = acc[split.head.size() + e / lanes];
    int64_t lane = e % lanes;
    pendingResults[fold->getResult(c)] = [this, slot, lane,
                                          lanes](Location loc) -> Value {
      Value source =
          laneOfGroup(loc, arith::ConstantIndexOp::create(b, loc, lane), lanes);
      return kernelir::ShuffleOp::create(b, loc, slot, source,
                                         kernelir::ShuffleMode::IDX);
    };
  }
}

void RowProgramTranslator::gatherBeforeUse(Operation &op) {
  if (pendingResults.empty())
    return;
  op.walk([&](Operation *inner) {
    for (Value v : inner->getOperands()) {
      auto pending = pendingResults.find(v);
      if (pending == pendingResults.end())
        continue;
      mapping.map(v, pending->second(op.getLoc()));
      pendingResults.erase(pending);
    }
  });
}

Value RowProgramTranslator::laneOfGroup(Location loc, Value i, int64_t lanes) {
  // A split's lanes are aligned runs of a warp's lanes: this lane minus its
  // place among them is their first.
  Value lane = arith::RemUIOp::create(
      b, loc, thread, arith::ConstantIndexOp::create(b, loc, kWarpSize));
  Value first = arith::SubIOp::create(b, loc, lane, splitLane(loc, lanes));
  return arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                    arith::AddIOp::create(b, loc, first, i));
}
