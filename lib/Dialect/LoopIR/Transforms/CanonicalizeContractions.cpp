// loopir-canonicalize-contractions: every contraction nest as (batch...,
// rows, columns), the rows and columns each collapsed into one index.
//
// The nest's indices are first seen as parts: an index is one part, or,
// where both factors read it (a [b, t, h * e] output: h is the factors'
// batch, e the columns), two (hi * inner + lo), the inner extent one its
// maps divide it by. Which parts each factor reads is what the factors'
// maps read once the parts are substituted and the maps simplified with
// the loops' bounds, so the answer does not wait for the IR to be
// simplified.

#include "strata/Dialect/LoopIR/Analysis/Contraction.h"
#include "strata/Dialect/LoopIR/Analysis/AffineRange.h"
#include "strata/Dialect/LoopIR/Transforms/Passes.h"
#include "Reindex.h"
#include "strata/Dialect/Utils/ScheduleModel.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SmallBitVector.h"

#include <set>

namespace strata::loopir {
#define GEN_PASS_DEF_LOOPIRCANONICALIZECONTRACTIONSPASS
#include "strata/Dialect/LoopIR/Transforms/Passes.h.inc"
} // namespace strata::loopir

using namespace mlir;
using namespace strata;
using namespace strata::loopir;

namespace {

/// A part of a nest index: index `dim` = sum of its parts' values times
/// their strides, each part in [0, extent).
struct Part {
  int64_t dim, extent, stride;
};

/// Each nest index as one part.
SmallVector<Part> wholeIndices(ArrayRef<int64_t> bounds) {
  SmallVector<Part> parts;
  for (auto [d, bound] : llvm::enumerate(bounds))
    parts.push_back({(int64_t)d, bound, 1});
  return parts;
}

/// Nest index `d` over the parts (dims 0..parts.size()-1).
AffineExpr indexOfParts(int64_t d, ArrayRef<Part> parts, MLIRContext *ctx) {
  AffineExpr e = getAffineConstantExpr(0, ctx);
  for (auto [j, part] : llvm::enumerate(parts))
    if (part.dim == d)
      e = e + getAffineDimExpr(j, ctx) * part.stride;
  return e;
}

/// The map of `access` over the parts (dims 0..parts.size()-1) and then its
/// other indices, simplified with the loops' bounds; and the bounds of all
/// those dims.
template <typename AccessOp>
AffineMap mapOverParts(AccessOp access, ValueRange ivs, ArrayRef<Part> parts) {
  MLIRContext *ctx = access.getContext();
  SmallVector<int64_t> bounds;
  for (const Part &part : parts)
    bounds.push_back(part.extent);
  SmallVector<AffineExpr> substitution;
  for (Value index : access.getIndices()) {
    auto it = llvm::find(ivs, index);
    if (it != ivs.end()) {
      substitution.push_back(indexOfParts(it - ivs.begin(), parts, ctx));
      continue;
    }
    std::optional<SmallVector<int64_t>> bound = loopBounds(index);
    substitution.push_back(getAffineDimExpr(bounds.size(), ctx));
    bounds.push_back(bound ? bound->front() : INT64_MAX / 4);
  }
  AffineMap map = access.getIndexMap().replaceDimsAndSymbols(
      substitution, {}, bounds.size(), 0);
  return simplifyWithBounds(map, bounds);
}

/// The parts (as bits) that `ops` read: through the maps of their loads,
/// and wholly where an op uses a nest index itself.
llvm::SmallBitVector partsRead(ArrayRef<Operation *> ops, ValueRange ivs,
                               ArrayRef<Part> parts) {
  llvm::SmallBitVector read(parts.size());
  for (Operation *op : ops) {
    if (auto load = dyn_cast<LoadOp>(op)) {
      AffineMap map = mapOverParts(load, ivs, parts);
      for (unsigned j = 0; j < parts.size(); ++j)
        if (map.isFunctionOfDim(j))
          read.set(j);
      continue;
    }
    for (Value v : op->getOperands())
      for (auto [j, part] : llvm::enumerate(parts))
        if (v == ivs[part.dim])
          read.set(j);
  }
  return read;
}

/// The rows and columns of a contraction over `parts`: the parts only the
/// lhs of every product reads, and only the rhs (a product may name its
/// factors in either order); none where the parts cannot be told apart.
std::optional<std::pair<llvm::SmallBitVector, llvm::SmallBitVector>>
rowsAndColumns(const ContractionBody &body, ValueRange ivs,
               ArrayRef<Part> parts) {
  const ContractionFactors &first = body.products.front();
  llvm::SmallBitVector a = partsRead(first.lhsOps, ivs, parts),
                       b = partsRead(first.rhsOps, ivs, parts);
  llvm::SmallBitVector rows = a, columns = b;
  rows.reset(b);
  columns.reset(a);
  if (rows.none() || columns.none())
    return std::nullopt;
  for (const ContractionFactors &p : body.products) {
    llvm::SmallBitVector l = partsRead(p.lhsOps, ivs, parts),
                         r = partsRead(p.rhsOps, ivs, parts);
    bool asIs = !l.anyCommon(columns) && !r.anyCommon(rows);
    bool swapped = !r.anyCommon(columns) && !l.anyCommon(rows);
    if (!asIs && !swapped)
      return std::nullopt;
  }
  return std::make_pair(rows, columns);
}

/// The divisors the factors' maps apply to nest index `d` (floordiv and
/// mod by a constant that divides its bound), smallest first: where both
/// factors read `d`, splitting it there may separate what each reads.
std::set<int64_t> splitCandidates(const ContractionBody &body, ValueRange ivs,
                                  int64_t d, int64_t bound) {
  std::set<int64_t> candidates;
  for (const ContractionFactors &p : body.products)
    for (ArrayRef<Operation *> ops : {ArrayRef(p.lhsOps), ArrayRef(p.rhsOps)})
      for (Operation *op : ops) {
        auto load = dyn_cast<LoadOp>(op);
        if (!load)
          continue;
        for (auto [pos, index] : llvm::enumerate(load.getIndices())) {
          if (index != ivs[d])
            continue;
          for (AffineExpr e : load.getIndexMap().getResults())
            e.walk([&](AffineExpr x) {
              auto bin = dyn_cast<AffineBinaryOpExpr>(x);
              if (!bin || (x.getKind() != AffineExprKind::FloorDiv &&
                           x.getKind() != AffineExprKind::Mod) ||
                  !bin.getLHS().isFunctionOfDim(pos))
                return;
              auto c = dyn_cast<AffineConstantExpr>(bin.getRHS());
              if (c && c.getValue() > 1 && c.getValue() < bound &&
                  bound % c.getValue() == 0)
                candidates.insert(c.getValue());
            });
        }
      }
  return candidates;
}

/// The parts of the nest for which the contraction has rows and columns:
/// the indices whole, or with those both factors read split at one of
/// their maps' divisors.
std::optional<SmallVector<Part>> contractionParts(const ContractionBody &body,
                                                  ParallelOp nest) {
  ValueRange ivs = nest.getInductionVars();
  ArrayRef<int64_t> bounds = nest.getBounds();
  SmallVector<Part> parts = wholeIndices(bounds);
  if (rowsAndColumns(body, ivs, parts))
    return parts;
  for (int64_t d = 0; d < (int64_t)bounds.size(); ++d)
    for (int64_t inner : splitCandidates(body, ivs, d, bounds[d])) {
      SmallVector<Part> split;
      for (const Part &part : parts) {
        if (part.dim != d) {
          split.push_back(part);
          continue;
        }
        split.push_back({d, bounds[d] / inner, inner});
        split.push_back({d, inner, 1});
      }
      if (rowsAndColumns(body, ivs, split))
        return split;
    }
  return std::nullopt;
}

/// Where each part lands in the layout of what the nest stores: the
/// position of the last result of the first top-level store's map that
/// reads it (the innermost, for a part a result reads with others; parts
/// the store does not read come last).
SmallVector<unsigned> storePositions(ParallelOp nest, ArrayRef<Part> parts) {
  SmallVector<unsigned> positions(parts.size(), ~0u);
  auto stores = nest.getBody().front().getOps<StoreOp>();
  if (stores.empty())
    return positions;
  AffineMap map =
      mapOverParts(*stores.begin(), nest.getInductionVars(), parts);
  for (unsigned j = 0; j < parts.size(); ++j)
    for (auto [r, e] : llvm::enumerate(map.getResults()))
      if (e.isFunctionOfDim(j))
        positions[j] = r;
  return positions;
}

/// The rows and columns of `nest`'s contraction as groups of parts (see
/// contractionParts), with the parts.
struct Groups {
  SmallVector<Part> parts;
  llvm::SmallBitVector rows, columns;
};

std::optional<Groups> contractionGroups(const ContractionBody &body,
                                        ParallelOp nest) {
  std::optional<SmallVector<Part>> parts = contractionParts(body, nest);
  if (!parts)
    return std::nullopt;
  auto [rows, columns] = *rowsAndColumns(body, nest.getInductionVars(), *parts);
  return Groups{*parts, rows, columns};
}

int64_t extentOf(const llvm::SmallBitVector &group, ArrayRef<Part> parts) {
  int64_t n = 1;
  for (int j : group.set_bits())
    n *= parts[j].extent;
  return n;
}

struct CanonicalContractionNest : OpRewritePattern<ParallelOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ParallelOp nest,
                                PatternRewriter &rewriter) const override {
    // The contraction schedule takes kernels of one nest.
    auto kernel = dyn_cast<KernelOp>(nest->getParentOp());
    if (!kernel ||
        !llvm::hasSingleElement(kernel.getBody().front().getOps<ParallelOp>()))
      return rewriter.notifyMatchFailure(nest, "not a kernel's only nest");
    std::optional<ContractionBody> body = matchContractionBody(nest);
    if (!body)
      return rewriter.notifyMatchFailure(nest, "no contraction");
    ValueRange ivs = nest.getInductionVars();
    std::optional<Groups> groups = contractionGroups(*body, nest);
    if (!groups)
      return rewriter.notifyMatchFailure(nest, "no rows and columns");
    SmallVector<Part> parts = groups->parts;
    llvm::SmallBitVector rows = groups->rows, columns = groups->columns;
    // Each group in the order the store lays it out; the columns hold the
    // store's innermost part.
    SmallVector<unsigned> position = storePositions(nest, parts);
    auto ordered = [&](const llvm::SmallBitVector &group) {
      SmallVector<int64_t> members;
      for (int j : group.set_bits())
        members.push_back(j);
      llvm::stable_sort(members, [&](int64_t x, int64_t y) {
        return position[x] < position[y];
      });
      return members;
    };
    SmallVector<int64_t> rowParts = ordered(rows),
                         columnParts = ordered(columns);
    if (position[rowParts.back()] > position[columnParts.back()])
      std::swap(rowParts, columnParts);
    auto extent = [&](ArrayRef<int64_t> members) {
      int64_t n = 1;
      for (int64_t j : members)
        n *= parts[j].extent;
      return n;
    };
    if (extent(rowParts) < kMinContractionRowsAndColumns ||
        extent(columnParts) < kMinContractionRowsAndColumns)
      return rewriter.notifyMatchFailure(nest, "too few rows or columns");
    SmallVector<SmallVector<int64_t>> newDims; // Parts per new index.
    for (int64_t j = 0; j < (int64_t)parts.size(); ++j)
      if (!rows.test(j) && !columns.test(j))
        newDims.push_back({j});
    newDims.push_back(rowParts);
    newDims.push_back(columnParts);
    if (parts.size() == ivs.size() && newDims.size() == ivs.size() &&
        llvm::all_of(llvm::enumerate(newDims), [](auto pair) {
          return pair.value().front() == (int64_t)pair.index();
        }))
      return rewriter.notifyMatchFailure(nest, "already canonical");

    // Each old index as an expression over the new ones: its parts, each
    // delinearized from the new index collapsing its group, row-major.
    MLIRContext *ctx = getContext();
    SmallVector<AffineExpr> partValue(parts.size());
    SmallVector<int64_t> newBounds;
    for (auto [n, members] : llvm::enumerate(newDims)) {
      newBounds.push_back(extent(members));
      int64_t stride = newBounds.back();
      AffineExpr x = getAffineDimExpr(n, ctx);
      for (auto [i, j] : llvm::enumerate(members)) {
        stride /= parts[j].extent;
        AffineExpr q = x.floorDiv(stride);
        partValue[j] = i == 0 ? q : q % parts[j].extent;
      }
    }
    SmallVector<AffineExpr> old(ivs.size(), getAffineConstantExpr(0, ctx));
    for (auto [j, part] : llvm::enumerate(parts))
      old[part.dim] = old[part.dim] + partValue[j] * part.stride;

    rewriter.setInsertionPoint(nest);
    auto collapsed = ParallelOp::create(rewriter, nest.getLoc(), newBounds);
    rewriter.eraseOp(collapsed.getBody().front().getTerminator());
    moveBodyReindexed(rewriter, nest.getBody().front(),
                      collapsed.getBody().front(), old);
    rewriter.eraseOp(nest);
    return success();
  }
};

struct LoopIRCanonicalizeContractionsPass
    : strata::loopir::impl::LoopIRCanonicalizeContractionsPassBase<
          LoopIRCanonicalizeContractionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateCanonicalizeContractionsPatterns(patterns);
    // The composed maps, simplified with the new loops' bounds.
    populateSimplifyAccessPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

std::optional<std::pair<int64_t, int64_t>>
strata::loopir::contractionExtents(ParallelOp nest) {
  std::optional<ContractionBody> body = matchContractionBody(nest);
  if (!body)
    return std::nullopt;
  std::optional<Groups> groups = contractionGroups(*body, nest);
  if (!groups)
    return std::nullopt;
  return std::make_pair(extentOf(groups->rows, groups->parts),
                        extentOf(groups->columns, groups->parts));
}

void strata::loopir::populateCanonicalizeContractionsPatterns(
    RewritePatternSet &patterns) {
  patterns.add<CanonicalContractionNest>(patterns.getContext());
}
