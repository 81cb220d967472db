// The scan schedule: a block per row, prefixes as one cooperative scan.
//
// The front end writes an inclusive scan (cumsum, cumprod) as a pull:
// element i of the row folds the elements k <= i, a reduction masked to
// the identity past i. Scheduled as written, that is the row's length
// squared per row. Recognized here by its structure (any reduction whose
// contributions are so masked, the front end's or a hand-written
// triangular mask's), the nest becomes one program instance per row with
// one tileir.scan: the row is read once, and the rest of the nest's body
// (the write-back, fused epilogues) runs at each point with its prefix. A
// sum relative to a scanned maximum's prefix (logcumsumexp) makes it a
// tileir.composite_scan of online softmax's (max, sum) monoid.

#include "TileKernelBuilder.h"
#include "strata/Conversion/LoopIRCommon/ScalarLoops.h"
#include "strata/Dialect/TileIR/IR/CompositeMonoids.h"

using namespace mlir;
using namespace strata;

std::optional<loopir::PrefixScan>
strata::matchScanSchedule(loopir::ParallelOp nest) {
  std::optional<loopir::PrefixScan> scan = loopir::matchPrefixScan(nest);
  if (!scan || nest.getBounds()[scan->dim] < kMinRowLength ||
      !llvm::all_of(scan->reductions, isShareable))
    return std::nullopt;
  return scan;
}

tileir::KernelOp strata::buildScanProgram(OpBuilder &b, loopir::KernelOp op,
                                          ValueRange inputs,
                                          ArrayRef<Operation *> preamble,
                                          loopir::ParallelOp nest,
                                          const loopir::PrefixScan &match) {
  Location loc = op.getLoc();
  ArrayRef<int64_t> bounds = nest.getBounds();
  SmallVector<int64_t> domain;
  for (auto [d, bound] : llvm::enumerate(bounds))
    if (d != match.dim)
      domain.push_back(bound);
  if (domain.empty())
    domain.push_back(1); // One row.
  IRMapping mapping;
  SmallVector<Value> origin;
  tileir::KernelOp kernel =
      buildTileKernel(b, op, inputs, domain, kUnscheduledRowThreads,
                      /*cooperative=*/true, preamble, mapping, origin);
  ValueRange ivs = nest.getInductionVars();
  for (unsigned d = 0, row = 0; d < ivs.size(); ++d)
    if (d != match.dim)
      mapping.map(ivs[d], origin[row++]);
  buildScan(b, nest, match, mapping);
  tileir::YieldOp::create(b, loc);
  return kernel;
}

/// The identities of a composite scan's components (`types`): each
/// scanned reduction's, and a sum's 0 after its maximum's.
static SmallVector<TypedAttr>
compositeIdentities(OpBuilder &b, ArrayRef<loopir::ReduceOp> scanned,
                    const DenseMap<Operation *, Operation *> &sumOf,
                    TypeRange types) {
  SmallVector<TypedAttr> identities;
  for (loopir::ReduceOp reduce : scanned) {
    for (loopir::Combiner c : reduce.getCombinerList())
      identities.push_back(tileir::FoldOp::getIdentity(
          *getFoldCombiner(c), types[identities.size()]));
    if (sumOf.contains(reduce))
      identities.push_back(b.getF32FloatAttr(0.0f));
  }
  return identities;
}

/// The combine region of a composite scan: each scanned reduction's
/// components by their combiners, a maximum and the sum relative to it as
/// online softmax's pair (rescaling the sums to the larger maximum).
static void
buildCompositeCombine(OpBuilder &b, tileir::CompositeScanOp scan,
                      ArrayRef<loopir::ReduceOp> scanned,
                      const DenseMap<Operation *, Operation *> &sumOf) {
  Location loc = scan.getLoc();
  OpBuilder::InsertionGuard guard(b);
  Block &combine = scan.getCombine().front();
  b.setInsertionPointToStart(&combine);
  size_t n = scan.getIdentities().size();
  ValueRange x = combine.getArguments().take_front(n),
             y = combine.getArguments().drop_front(n);
  SmallVector<Value> combined;
  for (loopir::ReduceOp reduce : scanned) {
    size_t first = combined.size();
    if (sumOf.contains(reduce)) {
      llvm::append_range(combined,
                         tileir::combineOnlineSoftmax(b, loc, x.slice(first, 2),
                                                      y.slice(first, 2)));
      continue;
    }
    for (auto [i, c] : llvm::enumerate(reduce.getCombinerList()))
      combined.push_back(combineScalars(
          b, loc, tileir::FoldOp::getMonoidKind(*getFoldCombiner(c)),
          x[first + i], y[first + i]));
  }
  tileir::YieldOp::create(b, loc, combined);
}

void strata::buildScan(OpBuilder &b, loopir::ParallelOp nest,
                       const loopir::PrefixScan &match, IRMapping &mapping) {
  Location loc = nest.getLoc();
  ValueRange ivs = nest.getInductionVars();
  Block &body = nest.getBody().front();
  // Uniform code: what no point of the row changes, once per row; its
  // reductions folded by the block's threads together.
  for (Operation &inner : body.without_terminator()) {
    if (match.varying.contains(&inner))
      continue;
    auto reduce = dyn_cast<loopir::ReduceOp>(inner);
    if (reduce && isShareable(reduce))
      mapping.map(reduce.getResults(), buildFold(b, reduce, mapping));
    else
      b.clone(inner, mapping);
  }

  // The monoid: each scanned reduction's components, a maximum that a sum
  // is relative to as online softmax's (max, sum) pair, the sum then in
  // its maximum's place.
  DenseMap<Operation *, Operation *> sumOf;
  for (auto [sum, max] : match.rescaledSums)
    sumOf[max] = sum;
  SmallVector<loopir::ReduceOp> scanned;
  for (loopir::ReduceOp reduce : match.reductions)
    if (!match.rescaledSums.contains(reduce))
      scanned.push_back(reduce);
  SmallVector<tileir::Combiner> combiners;
  SmallVector<Type> types;
  for (loopir::ReduceOp reduce : scanned) {
    for (auto [c, type] :
         llvm::zip(reduce.getCombinerList(), reduce.getResultTypes())) {
      combiners.push_back(*getFoldCombiner(c));
      types.push_back(getFoldedType(type));
    }
    if (sumOf.contains(reduce))
      types.push_back(b.getF32Type());
  }
  int64_t length = nest.getBounds()[match.dim];
  Operation *scan;
  if (sumOf.empty()) {
    scan = tileir::ScanOp::create(b, loc, combiners, types, length);
  } else {
    auto composite = tileir::CompositeScanOp::create(
        b, loc, compositeIdentities(b, scanned, sumOf, types), length);
    buildCompositeCombine(b, composite, scanned, sumOf);
    scan = composite;
  }
  Block &contribution = scan->getRegion(0).front();
  Block &each = scan->getRegions().back().front();
  {
    // The contributions: the reductions' bodies without their masks; a
    // maximum with a sum relative to it contributes (x, 1).
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&contribution);
    SmallVector<Value> contributions;
    for (loopir::ReduceOp reduce : scanned) {
      IRMapping point = mapping;
      point.map(reduce.getInductionVars()[0], contribution.getArgument(0));
      Block &source = reduce.getBody().front();
      for (Operation &inner : source.without_terminator())
        if (!match.varying.contains(&inner) && !match.masks.contains(&inner))
          b.clone(inner, point);
      for (Value v : source.getTerminator()->getOperands())
        contributions.push_back(
            point.lookupOrDefault(match.masks.lookup(v.getDefiningOp())));
      if (sumOf.contains(reduce))
        contributions.push_back(
            arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f)));
    }
    tileir::YieldOp::create(b, loc, castIntegers(b, loc, contributions, types));
  }
  {
    // Each point: the rest of the nest's body, with its prefixes; a sum
    // relative to its maximum as the two passes compute it.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&each);
    IRMapping point = mapping;
    point.map(ivs[match.dim], each.getArgument(0));
    ValueRange prefixes = each.getArguments().drop_front();
    for (loopir::ReduceOp reduce : scanned) {
      size_t n = reduce.getNumResults();
      point.map(reduce.getResults(),
                castIntegers(b, loc, prefixes.take_front(n),
                             reduce.getResultTypes()));
      prefixes = prefixes.drop_front(n);
      if (Operation *sum = sumOf.lookup(reduce)) {
        point.map(sum->getResult(0),
                  tileir::buildTwoPassSum(b, loc,
                                          point.lookup(reduce.getResult(0)),
                                          prefixes.front()));
        prefixes = prefixes.drop_front();
      }
    }
    for (Operation &inner : body.without_terminator())
      if (match.varying.contains(&inner) && !isa<loopir::ReduceOp>(inner))
        b.clone(inner, point);
    tileir::YieldOp::create(b, loc);
  }
}
