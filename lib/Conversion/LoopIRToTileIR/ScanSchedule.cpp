// The scan schedule: a block per row, prefixes as one cooperative scan.
//
// The front end writes an inclusive scan (cumsum, cumprod) as a pull:
// element i of the row folds the elements k <= i, a reduction masked to
// the identity past i. Scheduled as written, that is the row's length
// squared per row. Recognized here by its structure (any reduction whose
// contributions are so masked, the front end's or a hand-written
// triangular mask's), the nest becomes one program instance per row with
// one tileir.scan: the row is read once, and the rest of the nest's body
// (the write-back, fused epilogues) runs at each point with its prefix.

#include "TileKernelBuilder.h"

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

  SmallVector<tileir::Combiner> combiners;
  SmallVector<Type> types;
  for (loopir::ReduceOp reduce : match.reductions)
    for (auto [c, type] :
         llvm::zip(reduce.getCombinerList(), reduce.getResultTypes())) {
      combiners.push_back(*getFoldCombiner(c));
      types.push_back(getFoldedType(type));
    }
  auto scan = tileir::ScanOp::create(b, loc, combiners, types,
                                     nest.getBounds()[match.dim]);
  {
    // The contributions: the reductions' bodies without their masks.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&scan.getBody().front());
    SmallVector<Value> contributions;
    for (loopir::ReduceOp reduce : match.reductions) {
      IRMapping point = mapping;
      point.map(reduce.getInductionVars()[0], scan.getInductionVars()[0]);
      Block &source = reduce.getBody().front();
      for (Operation &inner : source.without_terminator())
        if (!match.varying.contains(&inner) && !match.masks.contains(&inner))
          b.clone(inner, point);
      for (Value v : source.getTerminator()->getOperands())
        contributions.push_back(
            point.lookupOrDefault(match.masks.lookup(v.getDefiningOp())));
    }
    tileir::YieldOp::create(b, loc, castIntegers(b, loc, contributions, types));
  }
  {
    // Each point: the rest of the nest's body, with its prefixes.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&scan.getEach().front());
    IRMapping point = mapping;
    point.map(ivs[match.dim], scan.getEachIndex());
    ValueRange prefixes = scan.getPrefixes();
    for (loopir::ReduceOp reduce : match.reductions) {
      size_t n = reduce.getNumResults();
      point.map(reduce.getResults(),
                castIntegers(b, loc, prefixes.take_front(n),
                             reduce.getResultTypes()));
      prefixes = prefixes.drop_front(n);
    }
    for (Operation &inner : body.without_terminator())
      if (match.varying.contains(&inner) && !isa<loopir::ReduceOp>(inner))
        b.clone(inner, point);
    tileir::YieldOp::create(b, loc);
  }
}
