// Flash attention's Q tile on tensor cores.
//
// A chunked fold (SharedChunkFold.cpp) whose monoid is online softmax's
// (m, l, a_0, ..., a_{E-1}), whose score is q . k over halves widened to
// f32 and whose output row's values are halves, folds a 16 x chunk block
// of scores at a time instead of one score per lane: each warp holds 16
// rows' q as mma A fragments, multiplies S = Q . K^T for its share of the
// chunk's keys (kernelir.mma, K's chunk in shared memory as B fragments,
// ldmatrix), computes each score's scale and mask from its row and key (the
// fold's own body, evaluated where the accumulator holds the element),
// folds the rows' maxima and sums in the accumulator's layout (a row's 4
// lanes by xor shuffles), and accumulates P . V with P, rounded to the
// halves, as the A fragment the accumulator already is (FlashAttention-2's
// register reuse) and V's chunk as k-major B fragments (ldmatrix .trans).
// The warps that share 16 rows took different keys; they post their folds
// to shared memory, and each row's thread group combines them where the
// kernel uses them, as the FMA fold's groups receive theirs. The monoid is
// checked, not assumed: its combine region is online softmax's
// (tileir::combineOnlineSoftmax), its contributions (score, 1, v_0, ...).

#include "RowProgramTranslator.h"
#include "strata/Dialect/TileIR/IR/CompositeMonoids.h"
#include "strata/Dialect/Utils/ScheduleModel.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <limits>

using namespace mlir;
using namespace strata;
using namespace strata::detail;

using kernelir::kMmaM;
using kernelir::kMmaN;
using kernelir::MmaOperand;

namespace {

/// What a guarded contribution (IdentityGuard) is where the point counts.
Value unguarded(Value v, const std::optional<IdentityGuard> &guard) {
  auto select = v.getDefiningOp<arith::SelectOp>();
  if (!guard || !select || select.getCondition() != guard->condition)
    return v;
  return guard->whenTrue ? select.getFalseValue() : select.getTrueValue();
}

/// The f16 or bf16 value `v` widens to f32 (arith.extf), or null.
Value widenedHalf(Value v) {
  auto ext = v.getDefiningOp<arith::ExtFOp>();
  if (!ext || !v.getType().isF32())
    return {};
  Type half = ext.getIn().getType();
  return half.isF16() || half.isBF16() ? ext.getIn() : Value();
}

/// Whether what `v` is computed from inside `fold` is ops without regions
/// (but `sum`, whose result counts as given, and `sum`'s own body), reading
/// the fold's point only where `readsKey`, and, from outside the fold, a
/// tileir.point or values every thread group shares: then it can be
/// evaluated at any row and key of the block.
bool evaluableAtAnyRow(Value v, Operation *fold, loopir::ReduceOp sum,
                       bool readsKey, ArrayRef<bool> tiled) {
  Block &body = fold->getRegion(0).front();
  SmallVector<Value> worklist = {v};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value x = worklist.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    Operation *def = x.getDefiningOp();
    if (auto arg = dyn_cast<BlockArgument>(x)) {
      if (arg.getOwner() == &body) {
        if (!readsKey)
          return false;
        continue;
      }
      if (arg.getOwner() == &sum.getBody().front())
        continue;
      if (fold->isAncestor(arg.getOwner()->getParentOp()) ||
          !tileir::isGroupUniform(x, tiled))
        return false;
      continue;
    }
    if (!fold->isAncestor(def) &&
        (isa<tileir::PointOp>(def) || tileir::isGroupUniform(x, tiled)))
      continue;
    // Pure arithmetic outside the fold on a row's point is evaluated at
    // each row like the fold's own.
    if (!fold->isAncestor(def) && !isMemoryEffectFree(def))
      return false;
    if (def == sum.getOperation())
      continue;
    if (def->getNumRegions())
      return false;
    llvm::append_range(worklist, def->getOperands());
  }
  return true;
}

/// The condition under which `score` is -inf, where it is a select of
/// -inf (of any float type, through roundings): a masked key, whose weight
/// the tensor-core fold makes 0 whatever the other components contribute.
std::optional<IdentityGuard> findScoreMask(Value score) {
  while (isa_and_nonnull<arith::ExtFOp, arith::TruncFOp>(score.getDefiningOp()))
    score = score.getDefiningOp()->getOperand(0);
  auto select = score.getDefiningOp<arith::SelectOp>();
  if (!select)
    return std::nullopt;
  auto isNegInf = [](Value v) {
    FloatAttr c;
    return matchPattern(v, m_Constant(&c)) && c.getValue().isInfinity() &&
           c.getValue().isNegative();
  };
  if (isNegInf(select.getTrueValue()))
    return IdentityGuard{select.getCondition(), true};
  if (isNegInf(select.getFalseValue()))
    return IdentityGuard{select.getCondition(), false};
  return std::nullopt;
}

} // namespace

std::optional<TensorCoreFlash> RowProgramTranslator::planTensorCoreFlash(
    Operation *fold, const KernelMonoid &monoid, Block &body,
    ArrayRef<int64_t> bounds, ArrayRef<tileir::SharedChunkLoad> loads) {
  auto composite = dyn_cast<tileir::CompositeFoldOp>(fold);
  ArrayRef<int64_t> tile = kernel.getTile();
  SmallVector<bool> tiled = tiledDims();
  if (!composite || !multiply.tensorCores || bounds.size() != 1 ||
      llvm::count(tiled, true) != 1 || kernel.getThreads() % kWarpSize != 0)
    return std::nullopt;
  // Whole warps per 16 rows, each warp's share of a chunk's keys a
  // multiple of P . V's k (16): with more warps per 16 rows than a chunk
  // has such shares (a tile of 16 or 32 rows), the rest repeat the others'
  // work and post nothing.
  int64_t rows = tile[llvm::find(tiled, true) - tiled.begin()];
  int64_t warps = kernel.getThreads() / kWarpSize;
  if (rows % kMmaM != 0 || warps % (rows / kMmaM) != 0)
    return std::nullopt;
  int64_t keyWarps = warps / (rows / kMmaM);
  while (keyWarps > 1 && chunkPoints % (keyWarps * kMmaM) != 0)
    keyWarps /= 2;
  if (chunkPoints % (keyWarps * kMmaM) != 0)
    return std::nullopt;

  // The monoid is online softmax's: its identity and combination.
  unsigned n = composite.getNumResults();
  Builder attrs(fold->getContext());
  ArrayRef<TypedAttr> identity = monoid.identity;
  if (n < 3 || identity != ArrayRef<TypedAttr>(
                               tileir::onlineSoftmaxIdentity(attrs, n - 1)))
    return std::nullopt;
  {
    Type f32 = attrs.getF32Type();
    Block expected;
    for (unsigned i = 0; i < 2 * n; ++i)
      expected.addArgument(f32, fold->getLoc());
    OpBuilder scratch(fold->getContext());
    scratch.setInsertionPointToEnd(&expected);
    SmallVector<Value> combined = tileir::combineOnlineSoftmax(
        scratch, fold->getLoc(), expected.getArguments().take_front(n),
        expected.getArguments().drop_front(n));
    Block &combine = composite.getCombine().front();
    DenseMap<std::pair<Value, Value>, bool> memo;
    auto sameArgument = [&](Value x, Value y) -> std::optional<bool> {
      auto ax = dyn_cast<BlockArgument>(x), ay = dyn_cast<BlockArgument>(y);
      if (!ax && !ay)
        return std::nullopt;
      return ax && ay && ax.getOwner() == &combine &&
             ay.getOwner() == &expected &&
             ax.getArgNumber() == ay.getArgNumber();
    };
    for (unsigned c = 0; c < n; ++c)
      if (!computedAlike(combine.getTerminator()->getOperand(c), combined[c],
                         sameArgument, memo))
        return std::nullopt;
  }

  // Its contributions: (score, 1, v_0, ..., v_{E-1}), each v_e a half of a
  // chunk of its own (the value rows), maybe all guarded by one mask.
  std::optional<ComponentSplit> split = planComponentSplit(fold, loads, 2);
  if (!split || split->joinedHead ||
      split->head != SmallVector<unsigned>{0, 1} ||
      split->tail.size() % kMmaN != 0)
    return std::nullopt;
  std::optional<IdentityGuard> guard = findIdentityGuard(body, identity);
  ValueRange yields = body.getTerminator()->getOperands();
  FloatAttr one;
  if (!matchPattern(unguarded(yields[1], guard), m_Constant(&one)) ||
      !one.getValue().isExactlyValue(1.0))
    return std::nullopt;
  Type half = loads[split->tailLoads.front()].load->getResult(0).getType();
  for (auto [c, l] : llvm::zip(split->tail, split->tailLoads)) {
    Value value = widenedHalf(unguarded(yields[c], guard));
    if (!value || value != loads[l].load->getResult(0) ||
        value.getType() != half)
      return std::nullopt;
  }

  // The score: one sum of products of widened halves, q's (of the row and
  // the sum's index) and a chunk of K's (of the key and the sum's index).
  TensorCoreFlash plan;
  plan.split = *split;
  plan.mask = findScoreMask(yields[0]);
  plan.operand = half;
  plan.keyWarps = keyWarps;
  for (Operation &op : body)
    if (auto sum = dyn_cast<loopir::ReduceOp>(op)) {
      if (plan.scoreSum)
        return std::nullopt;
      plan.scoreSum = sum;
    }
  loopir::ReduceOp sum = plan.scoreSum;
  if (!sum || sum.getNumResults() != 1 || sum.getBounds().size() != 1 ||
      sum.getBounds()[0] % kernelir::getMmaK(half) != 0 ||
      sum.getCombinerList() !=
          SmallVector<loopir::Combiner>{loopir::Combiner::add} ||
      !sum.getResult(0).getType().isF32())
    return std::nullopt;
  auto product = sum.getBody()
                     .front()
                     .getTerminator()
                     ->getOperand(0)
                     .getDefiningOp<arith::MulFOp>();
  if (!product)
    return std::nullopt;
  BlockArgument sumIndex = sum.getBody().front().getArgument(0);
  for (auto [k, q] : {std::pair(product.getLhs(), product.getRhs()),
                      std::pair(product.getRhs(), product.getLhs())}) {
    Value key = widenedHalf(k), row = widenedHalf(q);
    if (!key || !row || key.getType() != half || row.getType() != half)
      continue;
    for (auto [i, l] : llvm::enumerate(loads))
      if (l.load->getResult(0) == key && l.inner.size() == 1 &&
          l.inner.front() == sumIndex) {
        plan.keyLoad = i;
        plan.rowOperand = row;
      }
    if (plan.rowOperand)
      break;
  }
  if (!plan.rowOperand ||
      !evaluableAtAnyRow(plan.rowOperand, fold, sum, /*readsKey=*/false,
                         tiled) ||
      !evaluableAtAnyRow(yields[0], fold, sum, /*readsKey=*/true, tiled))
    return std::nullopt;
  return plan;
}

LogicalResult RowProgramTranslator::translateTensorCoreFlash(
    Operation *fold, Block &body, ArrayRef<int64_t> bounds,
    ArrayRef<tileir::SharedChunkLoad> loads, const TensorCoreFlash &plan) {
  Location loc = fold->getLoc();
  MLIRContext *context = b.getContext();
  loopir::ReduceOp scoreSum = plan.scoreSum;
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto f32 = [&](double v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  auto extract = [&](Value vector, int64_t i, int64_t j) -> Value {
    return vector::ExtractOp::create(b, loc, vector, ArrayRef<int64_t>{i, j});
  };
  auto insert = [&](Value x, Value vector, int64_t i, int64_t j) -> Value {
    return vector::InsertOp::create(b, loc, x, vector, ArrayRef<int64_t>{i, j});
  };
  Type half = plan.operand;
  auto composite = cast<tileir::CompositeFoldOp>(fold);
  unsigned n = composite.getNumResults();
  ArrayRef<int64_t> tile = kernel.getTile();
  SmallVector<bool> tiled = tiledDims();
  size_t dim = llvm::find(tiled, true) - tiled.begin();
  int64_t rows = tile[dim], extent = kernel.getDomain()[dim];
  int64_t points = bounds[0];
  int64_t depth = scoreSum.getBounds()[0];
  int64_t width = plan.split.tail.size();
  int64_t keyWarps = plan.keyWarps, rowGroups = rows / kMmaM;
  int64_t share = chunkPoints / keyWarps;
  int64_t scoreTiles = share / kMmaN, outputTiles = width / kMmaN;
  int64_t mmaK = kernelir::getMmaK(half);
  // Rows padded by 16 bytes: ldmatrix's 8 rows of a matrix hit distinct
  // banks.
  int64_t pad = kernelir::getLdMatrixRowElements(half);

  // The chunks of K (keys x head dimension) and of the value rows (keys x
  // output row), and the warps' posted folds (key warp, row, component).
  Value keyChunk, valueChunk, posts;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(entry);
    auto shared = [&](ArrayRef<int64_t> shape, Type element) -> Value {
      return kernelir::SharedOp::create(
          b, loc,
          MemRefType::get(shape, element, MemRefLayoutAttrInterface(),
                          gpu::AddressSpaceAttr::get(
                              context, gpu::AddressSpace::Workgroup)));
    };
    keyChunk = shared({chunkPoints, depth + pad}, half);
    valueChunk = shared({chunkPoints, width + pad}, half);
    posts = shared({keyWarps, rows, (int64_t)n}, b.getF32Type());
  }

  // This warp's 16 rows and share of each chunk's keys; its lane's
  // fragment coordinates.
  Value warp = kernelir::WarpIdOp::create(b, loc);
  Value lane = kernelir::LaneIdOp::create(b, loc);
  Value warpRow0 = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, warp, index(rowGroups)),
      index(kMmaM));
  Value warpOfRows = arith::DivUIOp::create(b, loc, warp, index(rowGroups));
  Value keyWarp = arith::RemUIOp::create(b, loc, warpOfRows, index(keyWarps));
  // Whether this warp's fold is posted (not a repeat of another's).
  Value posting = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        warpOfRows, index(keyWarps));
  Value keyBase = arith::MulIOp::create(b, loc, keyWarp, index(share));
  auto coords = [&](MmaOperand operand) {
    AffineMap map = kernelir::getMmaFragmentMap(context, operand, half);
    int64_t size = kernelir::getMmaFragmentType(operand, half).getNumElements();
    SmallVector<std::pair<Value, Value>> result;
    for (int64_t v = 0; v < size; ++v) {
      SmallVector<Value> rc =
          *affine::expandAffineMap(b, loc, map, ValueRange{lane, index(v)});
      result.push_back({rc[0], rc[1]});
    }
    return result;
  };
  // The 4 lanes that hold a row in the accumulator's layout (lane / 4) and
  // this lane among them; `kind` folds their values for both row halves,
  // the same bits in each lane.
  Value rowLane = arith::RemUIOp::create(b, loc, lane, index(4));
  auto acrossRowLanes = [&](MonoidKind kind, ValueRange values) {
    return combineAcrossBlock(
        b, loc, *entry, rowLane, 4,
        KernelMonoid::primitive({kind, kind}, values.getTypes()), values);
  };
  SmallVector<std::pair<Value, Value>> aCoords = coords(MmaOperand::Lhs);
  SmallVector<std::pair<Value, Value>> accCoords = coords(MmaOperand::Acc);
  // A row of the block (local to the tile) in the domain, clamped to its
  // last row (rows past it compute, reading in bounds, and store nothing).
  Value blockRow0 = arith::MulIOp::create(b, loc, programIds[dim], index(rows));
  auto domainRow = [&](Value local) -> Value {
    Value row = add(blockRow0, local);
    if (extent % rows == 0)
      return row;
    return arith::MinUIOp::create(b, loc, row, index(extent - 1));
  };
  SmallVector<Value> rowPoints = pointsOf(dim);
  auto at = [&](Value row) { return atRow(rowPoints, row); };

  // Q's A fragments, one per 16 of the head dimension, for the whole fold.
  auto aType = kernelir::getMmaFragmentType(MmaOperand::Lhs, half);
  auto accType = kernelir::getMmaFragmentType(MmaOperand::Acc, half);
  BlockArgument sumIndex = scoreSum.getBody().front().getArgument(0);
  SmallVector<Value> qFragments;
  for (int64_t k = 0; k < depth; k += mmaK) {
    Value fragment =
        arith::ConstantOp::create(b, loc, b.getZeroAttr(aType)).getResult();
    for (auto [v, rc] : llvm::enumerate(aCoords)) {
      IRMapping m = at(domainRow(add(warpRow0, rc.first)));
      m.map(sumIndex, add(rc.second, index(k)));
      fragment =
          insert(evaluateAtRow(b, plan.rowOperand, m, fold, mapping, tiled),
                 fragment, v / 2, v % 2);
    }
    qFragments.push_back(fragment);
  }

  // The fold's state in this lane: per row half (rows lane / 4 and
  // lane / 4 + 8) the maximum and this lane's share of the sum, and the
  // output row's accumulator tiles, from these positions.
  constexpr int64_t kMaxima = 0, kSums = 2, kOutputTiles = 4;
  Value negInf = f32(-std::numeric_limits<double>::infinity());
  Value zero = f32(0), oneF = f32(1);
  SmallVector<Value> init = {negInf, negInf, zero, zero};
  init.append(outputTiles,
              arith::ConstantOp::create(b, loc, b.getZeroAttr(accType)));
  Value lastKey = index(points - 1);
  SmallVector<tileir::SharedChunkLoad> staged = {loads[plan.keyLoad]};
  SmallVector<Value> chunks = {keyChunk};
  SmallVector<std::optional<int64_t>> columns = {std::nullopt};
  for (auto [t, l] : llvm::enumerate(plan.split.tailLoads)) {
    staged.push_back(loads[l]);
    chunks.push_back(Value());
    columns.push_back(t);
  }
  Value yieldedScore = body.getTerminator()->getOperand(0);

  auto foldChunkOnTensorCores = [&](Value first,
                                    ValueRange state) -> SmallVector<Value> {
    // S = Q . K^T for this warp's keys of the chunk.
    SmallVector<Value> scores;
    for (int64_t t = 0; t < scoreTiles; ++t) {
      Value acc = arith::ConstantOp::create(b, loc, b.getZeroAttr(accType));
      Value key0 = add(keyBase, index(t * kMmaN));
      for (int64_t k = 0; k < depth; k += mmaK) {
        Value kFragment = kernelir::LdMatrixOp::create(
            b, loc, kernelir::getMmaFragmentType(MmaOperand::Rhs, half),
            keyChunk, ValueRange{key0, index(k)});
        acc = kernelir::MmaOp::create(b, loc, accType, qFragments[k / mmaK],
                                      kFragment, acc);
      }
      // Each element's score from its q . k, row and key (scale, mask):
      // the fold's own body; keys past the fold's last are -inf.
      for (auto [v, rc] : llvm::enumerate(accCoords)) {
        Value key = add(first, add(key0, rc.second));
        IRMapping m = at(domainRow(add(warpRow0, rc.first)));
        m.map(body.getArgument(0),
              arith::MinUIOp::create(b, loc, key, lastKey));
        m.map(scoreSum.getResult(0), extract(acc, v / 2, v % 2));
        Value score = evaluateAtRow(b, yieldedScore, m, fold, mapping, tiled);
        if (points % chunkPoints != 0)
          score = arith::SelectOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, key,
                                    lastKey),
              score, negInf);
        scores.push_back(score);
      }
    }
    // The rows' new maxima (a row's 4 lanes exchange theirs), the
    // rescaling of what was folded, and the weights p = exp(s - m).
    SmallVector<Value> next(state);
    SmallVector<Value> maxima;
    for (int64_t h = 0; h < 2; ++h) {
      Value max = state[kMaxima + h];
      for (int64_t t = 0; t < scoreTiles; ++t)
        for (int64_t v = 2 * h; v < 2 * h + 2; ++v)
          max = arith::MaximumFOp::create(b, loc, max, scores[4 * t + v]);
      maxima.push_back(max);
    }
    maxima = acrossRowLanes(MonoidKind::Max, maxima);
    SmallVector<Value> rescale;
    for (int64_t h = 0; h < 2; ++h) {
      Value max = maxima[h], old = state[kMaxima + h];
      rescale.push_back(arith::SelectOp::create(
          b, loc,
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, old, max),
          oneF,
          math::ExpOp::create(b, loc,
                              arith::SubFOp::create(b, loc, old, max))));
      next[kMaxima + h] = max;
    }
    SmallVector<Value> weights;
    for (auto [i, s] : llvm::enumerate(scores)) {
      Value max = next[kMaxima + (i % 4) / 2];
      // As the monoid weighs a contribution: 1 at the maximum itself (so
      // -inf maxima give sums, not NaN), none for a masked score.
      Value weight = arith::SelectOp::create(
          b, loc,
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, s, max),
          oneF,
          math::ExpOp::create(b, loc, arith::SubFOp::create(b, loc, s, max)));
      weights.push_back(arith::SelectOp::create(
          b, loc,
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, s, negInf),
          zero, weight));
    }
    for (int64_t h = 0; h < 2; ++h) {
      Value sum = arith::MulFOp::create(b, loc, state[kSums + h], rescale[h]);
      for (int64_t t = 0; t < scoreTiles; ++t)
        for (int64_t v = 2 * h; v < 2 * h + 2; ++v)
          sum = arith::AddFOp::create(b, loc, sum, weights[4 * t + v]);
      next[kSums + h] = sum;
    }
    for (int64_t e = 0; e < outputTiles; ++e) {
      Value acc = state[kOutputTiles + e];
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t j = 0; j < 2; ++j)
          acc = insert(
              arith::MulFOp::create(b, loc, extract(acc, h, j), rescale[h]),
              acc, h, j);
      next[kOutputTiles + e] = acc;
    }
    // P . V: the weights of two score tiles (16 keys) rounded to halves
    // are an A fragment in the accumulators' layout (register r holds row
    // half r % 2 of tile r / 2); V's chunk loads k-major.
    for (int64_t t = 0; t + 1 < scoreTiles; t += 2) {
      Value p =
          arith::ConstantOp::create(b, loc, b.getZeroAttr(aType)).getResult();
      for (int64_t r = 0; r < 4; ++r)
        for (int64_t j = 0; j < 2; ++j) {
          Value w = weights[4 * (t + r / 2) + 2 * (r % 2) + j];
          p = insert(arith::TruncFOp::create(b, loc, half, w), p, r, j);
        }
      Value key0 = add(keyBase, index(t * kMmaN));
      for (int64_t e = 0; e < outputTiles; ++e) {
        Value vFragment = kernelir::LdMatrixOp::create(
            b, loc, kernelir::getMmaFragmentType(MmaOperand::Rhs, half),
            valueChunk, ValueRange{key0, index(e * kMmaN)},
            /*transpose=*/true);
        next[kOutputTiles + e] = kernelir::MmaOp::create(
            b, loc, accType, p, vFragment, next[kOutputTiles + e]);
      }
    }
    return next;
  };

  auto chunkLoop =
      buildLoop(loc, index(0), index(points), index(chunkPoints), init,
                [&](Value first, ValueRange state) -> SmallVector<Value> {
                  Value skip = skipsChunk(fold, plan.mask, bounds, first);
                  stageChunk(fold, body, bounds, staged, chunks, columns,
                             valueChunk, first, skip);
                  if (!skip)
                    return foldChunkOnTensorCores(first, state);
                  // A chunk every row of the block masks folds nothing: a loop
                  // run zero times (the same in every thread).
                  Value trips =
                      arith::SelectOp::create(b, loc, skip, index(0), index(1));
                  return SmallVector<Value>(
                      buildLoop(loc, index(0), trips, index(1), state,
                                [&](Value, ValueRange carried) {
                                  return foldChunkOnTensorCores(first, carried);
                                })
                          .getResults());
                });
  ValueRange state = chunkLoop.getResults();

  // Each warp posts its rows' folds: the sums of a row's 4 lanes added
  // (the same bits in each), the maximum and sum by the row's first lane.
  Value firstOfRow = arith::AndIOp::create(
      b, loc, posting,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rowLane,
                            index(0)));
  SmallVector<Value> sums =
      acrossRowLanes(MonoidKind::Add, {state[kSums], state[kSums + 1]});
  for (int64_t h = 0; h < 2; ++h) {
    Value row = add(warpRow0, accCoords[2 * h].first);
    kernelir::StoreOp::create(b, loc, state[kMaxima + h], posts,
                              ValueRange{keyWarp, row, index(0)}, firstOfRow);
    kernelir::StoreOp::create(b, loc, sums[h], posts,
                              ValueRange{keyWarp, row, index(1)}, firstOfRow);
  }
  for (int64_t e = 0; e < outputTiles; ++e)
    for (auto [v, rc] : llvm::enumerate(accCoords)) {
      Value component = add(index(2 + e * kMmaN), rc.second);
      kernelir::StoreOp::create(
          b, loc, extract(state[kOutputTiles + e], v / 2, v % 2), posts,
          ValueRange{keyWarp, add(warpRow0, rc.first), component}, posting);
    }
  kernelir::BarrierOp::create(b, loc);

  // Each row's thread group combines its key warps' posts as the monoid
  // does (tileir::combineOnlineSoftmax): the maximum and the sum now, each
  // of the output row's sums where the kernel first uses it.
  Value row = group;
  SmallVector<Value> maxima, scales;
  Value max;
  for (int64_t w = 0; w < keyWarps; ++w) {
    maxima.push_back(kernelir::LoadOp::create(
        b, loc, posts, ValueRange{index(w), row, index(0)}));
    max =
        max ? arith::MaximumFOp::create(b, loc, max, maxima.back()).getResult()
            : maxima.back();
  }
  Value sum;
  for (int64_t w = 0; w < keyWarps; ++w) {
    scales.push_back(arith::SelectOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, maxima[w],
                              max),
        oneF,
        math::ExpOp::create(b, loc,
                            arith::SubFOp::create(b, loc, maxima[w], max))));
    Value scaled = arith::MulFOp::create(
        b, loc,
        kernelir::LoadOp::create(b, loc, posts,
                                 ValueRange{index(w), row, index(1)}),
        scales.back());
    sum = sum ? arith::AddFOp::create(b, loc, sum, scaled).getResult() : scaled;
  }
  mapping.map(fold->getResult(0), max);
  mapping.map(fold->getResult(1), sum);
  for (auto [t, c] : llvm::enumerate(plan.split.tail)) {
    int64_t component = 2 + t;
    pendingResults[fold->getResult(c)] = [this, posts, row, component,
                                          scales](Location loc) -> Value {
      Value total;
      for (auto [w, scale] : llvm::enumerate(scales)) {
        Value scaled = arith::MulFOp::create(
            b, loc,
            kernelir::LoadOp::create(
                b, loc, posts,
                ValueRange{arith::ConstantIndexOp::create(b, loc, w), row,
                           arith::ConstantIndexOp::create(b, loc, component)}),
            scale);
        total = total ? arith::AddFOp::create(b, loc, total, scaled).getResult()
                      : scaled;
      }
      return total;
    };
  }
  return success();
}
