// Folds whose rows share chunks: the Q-tile schedule of a row program.
//
// A row program with several rows per program instance (one thread group
// each) whose fold reads some elements alike for every row (attention's
// keys and values, which each query row folds over; a matrix-vector
// product's weight) would read them once per row, from L2 at best. Here the
// block stages each chunk of them in shared memory once, and every group
// folds its row's points of the chunk from there: flash attention's loop
// over key/value tiles, with the row's online-softmax fold as the algebra.

#include "RowProgramTranslator.h"
#include "strata/Dialect/Utils/LoopBox.h"
#include "strata/Dialect/Utils/ScheduleModel.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace strata;
using namespace strata::detail;

std::optional<IdentityGuard>
strata::detail::findIdentityGuard(Block &body, ArrayRef<TypedAttr> identity) {
  std::optional<IdentityGuard> guard;
  for (auto [v, id] :
       llvm::zip(body.getTerminator()->getOperands(), identity)) {
    auto select = v.getDefiningOp<arith::SelectOp>();
    if (!select)
      return std::nullopt;
    auto isIdentity = [&, id = id](Value c) {
      Attribute a;
      return matchPattern(c, m_Constant(&a)) && a == id;
    };
    bool onTrue = isIdentity(select.getTrueValue());
    if (onTrue == isIdentity(select.getFalseValue()))
      return std::nullopt;
    IdentityGuard g{select.getCondition(), onTrue};
    if (guard &&
        (guard->condition != g.condition || guard->whenTrue != g.whenTrue))
      return std::nullopt;
    guard = g;
  }
  return guard;
}

namespace {
/// An affine integer computation of a fold's (one-dimensional) point and
/// the row of the tiled domain dimension: what its value is built from.
enum class Term { Key, Row, Uniform, Computed, Invalid };

Term classify(Value v, Operation *fold, ArrayRef<bool> tiled) {
  Block &body = fold->getRegion(0).front();
  if (auto arg = dyn_cast<BlockArgument>(v))
    return arg.getOwner() == &body ? Term::Key : Term::Invalid;
  Operation *def = v.getDefiningOp();
  if (auto point = dyn_cast<tileir::PointOp>(def);
      point && tiled[point.getDim()])
    return Term::Row;
  if (!fold->isAncestor(def) && tileir::isGroupUniform(v, tiled))
    return Term::Uniform;
  if (isa<arith::ConstantOp>(def))
    return Term::Uniform;
  if (!isa<arith::IndexCastOp, arith::AddIOp, arith::SubIOp, arith::MulIOp>(
          def))
    return Term::Invalid;
  // A product is affine where one factor is a constant.
  if (isa<arith::MulIOp>(def) &&
      !matchPattern(def->getOperand(0), m_Constant()) &&
      !matchPattern(def->getOperand(1), m_Constant()))
    return Term::Invalid;
  for (Value operand : def->getOperands())
    if (classify(operand, fold, tiled) == Term::Invalid)
      return Term::Invalid;
  return Term::Computed;
}

/// Whether `guard`'s condition is an affine comparison that holds on a
/// whole box of keys and rows where it holds at the box's corners: a
/// linear function's sign over a box is decided at its corners for <,
/// <=, >, >= (a half-space is convex) and = (an affine function zero at
/// every corner is zero on the box), not for !=.
bool isCornerDecided(const IdentityGuard &guard, Operation *fold,
                     ArrayRef<bool> tiled) {
  auto cmp = guard.condition.getDefiningOp<arith::CmpIOp>();
  if (!cmp || !fold->isAncestor(cmp))
    return false;
  using P = arith::CmpIPredicate;
  P p = cmp.getPredicate();
  bool ordered = p == P::slt || p == P::sle || p == P::sgt || p == P::sge;
  if (!ordered && !(p == P::eq && guard.whenTrue))
    return false;
  return classify(cmp.getLhs(), fold, tiled) != Term::Invalid &&
         classify(cmp.getRhs(), fold, tiled) != Term::Invalid;
}

} // namespace

SmallVector<bool> RowProgramTranslator::tiledDims() {
  SmallVector<bool> tiled;
  for (int64_t t : kernel.getTile())
    tiled.push_back(t > 1);
  return tiled;
}

SmallVector<Value> RowProgramTranslator::pointsOf(size_t dim) {
  SmallVector<Value> points;
  kernel.getBody().walk([&](tileir::PointOp point) {
    if (point.getDim() == dim)
      points.push_back(point);
  });
  return points;
}

IRMapping strata::detail::atRow(ArrayRef<Value> points, Value row) {
  IRMapping at;
  for (Value point : points)
    at.map(point, row);
  return at;
}

Value strata::detail::evaluateAtRow(OpBuilder &b, Value v, IRMapping &at,
                                    Operation *fold, const IRMapping &outside,
                                    ArrayRef<bool> tiled) {
  if (Value known = at.lookupOrNull(v))
    return known;
  Operation *def = v.getDefiningOp();
  if (!def || (!fold->isAncestor(def) && tileir::isGroupUniform(v, tiled))) {
    Value translated = outside.lookupOrDefault(v);
    at.map(v, translated);
    return translated;
  }
  for (Value operand : def->getOperands())
    evaluateAtRow(b, operand, at, fold, outside, tiled);
  return b.clone(*def, at)->getResult(cast<OpResult>(v).getResultNumber());
}

void RowProgramTranslator::planSharedChunks() {
  if (groups == 1)
    return;
  SmallVector<bool> tiled = tiledDims();
  DenseMap<Operation *, SmallVector<tileir::SharedChunkLoad>> planned;
  int64_t bytesPerPoint = 0, longest = 0;
  for (Operation &op : kernel.getBody().front()) {
    if (!isa<tileir::FoldOp, tileir::CompositeFoldOp>(op))
      continue;
    SmallVector<tileir::SharedChunkLoad> loads =
        tileir::findSharedChunkLoads(&op, tiled);
    std::optional<int64_t> bytes = tileir::getChunkBytesPerPoint(loads);
    if (loads.empty() || !bytes)
      continue;
    bytesPerPoint += *bytes;
    longest = std::max(longest,
                       computeProduct(tileir::getCooperativeLoop(&op)->second));
    planned[&op] = std::move(loads);
  }
  if (planned.empty())
    return;
  int64_t points =
      std::min<int64_t>(kMaxChunkPoints, llvm::PowerOf2Ceil(longest));
  while (points >= kMinChunkPoints &&
         points * bytesPerPoint > kMaxSharedChunkBytes)
    points /= 2;
  if (points < kMinChunkPoints)
    return;
  chunkPoints = points;
  sharedChunks = std::move(planned);
  sharedChunkBytes = points * bytesPerPoint;
}

LogicalResult RowProgramTranslator::translateChunkedFold(
    Operation *fold, const KernelMonoid &monoid, Block &body,
    ArrayRef<int64_t> bounds, ArrayRef<tileir::SharedChunkLoad> loads) {
  if (std::optional<TensorCoreFlash> plan =
          planTensorCoreFlash(fold, monoid, body, bounds, loads))
    return translateTensorCoreFlash(fold, body, bounds, loads, *plan);
  Location loc = fold->getLoc();
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  int64_t points = computeProduct(bounds);
  // Split among the lanes of a row, the tail components' values share one
  // chunk (points x components; each lane reads its columns).
  std::optional<ComponentSplit> split = chooseComponentSplit(fold, loads);
  std::optional<SplitRuns> runs;
  if (split)
    runs = splitRuns(*split, loc);
  SmallVector<Value> chunks(loads.size());
  SmallVector<std::optional<int64_t>> columns(loads.size());
  Value tailChunk;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(entry);
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    auto shared = [&](ArrayRef<int64_t> shape, Type element) -> Value {
      return kernelir::SharedOp::create(
          b, loc,
          MemRefType::get(shape, element, MemRefLayoutAttrInterface(),
                          workgroup));
    };
    if (split) {
      for (auto [column, l] : llvm::enumerate(split->tailLoads))
        columns[l] = column;
      tailChunk =
          shared({chunkPoints, (int64_t)split->tail.size()},
                 loads[split->tailLoads.front()].load->getResult(0).getType());
    }
    for (auto [i, l] : llvm::enumerate(loads))
      if (!columns[i])
        chunks[i] = shared(tileir::getChunkShape(l, chunkPoints),
                           l.load->getResult(0).getType());
  }
  SmallVector<Value> init;
  if (split)
    init = splitIdentity(fold, *split);
  else
    for (TypedAttr identity : monoid.identity)
      init.push_back(arith::ConstantOp::create(b, loc, identity));
  std::optional<IdentityGuard> guard = findIdentityGuard(body, monoid.identity);
  auto chunkLoop = buildLoop(
      loc, index(0), index(points), index(chunkPoints), init,
      [&](Value first, ValueRange acc) {
        Value skip = skipsChunk(fold, guard, bounds, first);
        stageChunk(fold, body, bounds, loads, chunks, columns, tailChunk, first,
                   skip);
        if (split) {
          // Each slot's value of a point: its column of the tail chunk.
          auto readTail = [&](IRMapping &, Value offset, Value column) {
            return loopir::LoadOp::create(b, loc, tailChunk,
                                          ValueRange{offset, column},
                                          AffineMapAttr())
                .getResult();
          };
          return foldByComponents(fold, body, bounds, loads, chunks, *split,
                                  readTail, first,
                                  chunkEnd(first, points, skip), *runs, acc);
        }
        return foldChunk(fold, monoid, body, bounds, loads, chunks, first, acc,
                         skip);
      });
  if (split) {
    mapSplitResults(
        fold, *split,
        combineSplitRuns(fold, *split, chunkLoop.getResults(), *runs));
    return success();
  }
  mapping.map(fold->getResults(),
              combineAcrossBlock(b, loc, *entry, groupThread, groupThreads,
                                 monoid, chunkLoop.getResults()));
  return success();
}

Value RowProgramTranslator::skipsChunk(
    Operation *fold, const std::optional<IdentityGuard> &guard,
    ArrayRef<int64_t> bounds, Value first) {
  // A chunk whose every point contributes the identity for every row of
  // the block (the keys of causal attention's future) is skipped: the
  // guard's comparison is decided at the corners of the box of the block's
  // rows and the chunk's keys.
  SmallVector<bool> tiled = tiledDims();
  if (!guard || bounds.size() != 1 || llvm::count(tiled, true) != 1 ||
      !isCornerDecided(*guard, fold, tiled))
    return Value();
  Location loc = fold->getLoc();
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  size_t d = llvm::find(tiled, true) - tiled.begin();
  int64_t tile = kernel.getTile()[d], extent = kernel.getDomain()[d];
  Value rowLo = arith::MulIOp::create(b, loc, programIds[d], index(tile));
  Value rowHi = arith::MinUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, rowLo, index(tile - 1)),
      index(extent - 1));
  Value keyHi = arith::MinUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, first, index(chunkPoints - 1)),
      index(computeProduct(bounds) - 1));
  auto cmp = guard->condition.getDefiningOp<arith::CmpIOp>();
  SmallVector<Value> points = pointsOf(d);
  Value all;
  for (Value row : {rowLo, rowHi})
    for (Value key : {first, keyHi}) {
      IRMapping at = atRow(points, row);
      at.map(fold->getRegion(0).getArgument(0), key);
      Value lhs = evaluateAtRow(b, cmp.getLhs(), at, fold, mapping, tiled);
      Value rhs = evaluateAtRow(b, cmp.getRhs(), at, fold, mapping, tiled);
      Value holds = arith::CmpIOp::create(b, loc, cmp.getPredicate(), lhs, rhs);
      if (!guard->whenTrue)
        holds = arith::XOrIOp::create(
            b, loc, holds, arith::ConstantIntOp::create(b, loc, 1, 1));
      all = all ? arith::AndIOp::create(b, loc, all, holds).getResult() : holds;
    }
  return all;
}

void RowProgramTranslator::stageChunk(Operation *fold, Block &body,
                                      ArrayRef<int64_t> bounds,
                                      ArrayRef<tileir::SharedChunkLoad> loads,
                                      ArrayRef<Value> chunks,
                                      ArrayRef<std::optional<int64_t>> columns,
                                      Value tailChunk, Value first,
                                      Value skip) {
  Location loc = fold->getLoc();
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value last = index(computeProduct(bounds) - 1);
  // A skipped chunk copies nothing; its barriers stay, so that every
  // thread meets them (the skip is the same for the whole block).
  auto unlessSkipped = [&](Value end) -> Value {
    return skip ? arith::SelectOp::create(b, loc, skip, index(0), end)
                      .getResult()
                : end;
  };
  // The chunk's buffers are free once every group folded the last one.
  kernelir::BarrierOp::create(b, loc);
  for (size_t i = 0; i < loads.size(); ++i) {
    const tileir::SharedChunkLoad &l = loads[i];
    Value chunk = chunks[i];
    std::optional<int64_t> column = columns[i];
    SmallVector<int64_t> box = {chunkPoints};
    llvm::append_range(box, l.innerBounds);
    buildLoop(loc, thread, unlessSkipped(index(computeProduct(box))),
              index(kernel.getThreads()), {}, [&](Value element, ValueRange) {
                SmallVector<Value> at = delinearize(b, loc, element, box);
                // Past the fold's last point: a copy of the last point
                // (in bounds), which no group reads.
                Value point = arith::MinUIOp::create(
                    b, loc, arith::AddIOp::create(b, loc, first, at[0]), last);
                IRMapping m = mapping;
                m.map(body.getArguments(), delinearize(b, loc, point, bounds));
                for (auto [iv, i] :
                     llvm::zip(l.inner, ArrayRef(at).drop_front()))
                  m.map(iv, i);
                for (Value operand : l.load->getOperands())
                  if (auto c = operand.getDefiningOp<arith::ConstantOp>();
                      c && fold->isAncestor(c))
                    b.clone(*c, m);
                Value v = b.clone(*l.load, m)->getResult(0);
                if (column)
                  kernelir::StoreOp::create(b, loc, v, tailChunk,
                                            {at[0], index(*column)}, Value());
                else
                  kernelir::StoreOp::create(b, loc, v, chunk, at, Value());
                return SmallVector<Value>();
              });
  }
  kernelir::BarrierOp::create(b, loc);
}

SmallVector<Value> RowProgramTranslator::foldChunk(
    Operation *fold, const KernelMonoid &monoid, Block &body,
    ArrayRef<int64_t> bounds, ArrayRef<tileir::SharedChunkLoad> loads,
    ArrayRef<Value> chunks, Value first, ValueRange acc, Value skip) {
  Location loc = fold->getLoc();
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // This thread's points of the chunk: groupThread, + groupThreads, ...
  auto own = buildLoop(
      loc, groupThread, chunkEnd(first, computeProduct(bounds), skip),
      index(groupThreads), acc, [&](Value offset, ValueRange carried) {
        Value point = arith::AddIOp::create(b, loc, first, offset);
        IRMapping m =
            cloneLoopBody(b, body, delinearize(b, loc, point, bounds), mapping);
        readFromChunks(m, loads, chunks, offset);
        SmallVector<Value> contribution;
        for (Value x : body.getTerminator()->getOperands())
          contribution.push_back(m.lookupOrDefault(x));
        return monoid.combine(b, loc, carried, contribution);
      });
  return SmallVector<Value>(own.getResults());
}

Value RowProgramTranslator::chunkEnd(Value first, int64_t points, Value skip) {
  Location loc = first.getLoc();
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value end = arith::MinUIOp::create(
      b, loc, index(chunkPoints),
      arith::SubIOp::create(b, loc, index(points), first));
  if (skip)
    end = arith::SelectOp::create(b, loc, skip, index(0), end);
  return end;
}

void RowProgramTranslator::readFromChunks(
    IRMapping &m, ArrayRef<tileir::SharedChunkLoad> loads,
    ArrayRef<Value> chunks, Value offset) {
  // The copies are changed in place (new ops of the conversion, so nothing
  // is erased under the rewriter).
  for (auto [l, chunk] : llvm::zip(loads, chunks)) {
    Value copied = m.lookupOrNull(l.load->getResult(0));
    auto copy = copied ? copied.getDefiningOp<loopir::LoadOp>() : nullptr;
    if (!copy || !chunk)
      continue;
    SmallVector<Value> operands = {chunk, offset};
    for (BlockArgument iv : l.inner)
      operands.push_back(m.lookup(iv));
    copy->setOperands(operands);
    copy.removeMapAttr();
    copy.removeGuardAttr();
    copy.removePaddingAttr();
  }
}
