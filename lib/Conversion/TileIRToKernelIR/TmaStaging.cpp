// Staging a contraction's operand chunks by TMA (sm_90): where both
// operands are plain loads of tensors a tensor map describes, one thread
// copies each step's boxes into swizzled chunks, completing on the
// stage's mbarrier, and no thread computes an address or touches an
// element; the boxes' zeros past the tensors cover the ragged edges.

#include "ContractionLowering.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace strata;
using namespace strata::detail;

namespace {
/// An operand TMA may copy: its kernel buffer and load, the tile
/// dimensions indexing the buffer's leading (batch) dimensions, and
/// whether the buffer is MN-major ([k][the tile dimension]).
struct TmaSource {
  BlockArgument buffer;
  loopir::LoadOp load;
  SmallVector<unsigned, 2> batch;
  bool mnMajor;
  std::optional<TmaView> view;
};

/// What one operand's copies take: its tensor map, its chunk, the
/// coordinates of its batch dimensions, batched or viewed its box's shape,
/// and viewed its view.
struct TmaOperand {
  Value map, chunk;
  int64_t rows; // The tile's extent along the dimension the operand varies.
  SmallVector<Value, 2> batch;
  DenseI64ArrayAttr boxShape;
  std::optional<TmaView> view;
};
} // namespace

/// The view of `load`'s buffer in which each dimension takes one of the
/// coordinates `along` (the tile dimension the operand varies, extent
/// `extent`) and `k` (of `kExtent`) or one of their parts split at a
/// constant of the indices' floordivs and mods (see
/// TmaView), K-major, for tiles of `rows` rows; none
/// if no split describes the buffer's offsets. The offset is affine in the
/// parts, so each part's stride is the offset of a point: a split
/// describes the buffer when the offset equals the sum of its parts times
/// their strides (as affine expressions), the strides row-major in some
/// order of the parts with k's inner part innermost and the varied
/// coordinate's next, and each part's extent covers what it takes (k's
/// exactly: past it lie zeros of the box, not data).
static std::optional<TmaView> splitView(loopir::LoadOp load, Value along,
                                        Value k, int64_t extent,
                                        int64_t kExtent, int64_t rows) {
  MLIRContext *context = load.getContext();
  auto type = cast<MemRefType>(load.getMemref().getType());
  AffineMap map = load.getIndexMap();
  auto position = [&](Value v) -> std::optional<unsigned> {
    auto it = llvm::find(load.getIndices(), v);
    if (it == load.getIndices().end())
      return std::nullopt;
    return it - load.getIndices().begin();
  };
  std::optional<unsigned> a = position(along), kk = position(k);
  if (!a || !kk || load.getIndices().size() != 2 || map.getNumSymbols())
    return std::nullopt;
  AffineExpr offset = rowMajorOffset(map, type);
  AffineExpr rowDim = getAffineDimExpr(*a, context),
             kDim = getAffineDimExpr(*kk, context);
  auto at = [&](int64_t row, int64_t kAt) -> std::optional<int64_t> {
    SmallVector<AffineExpr, 2> point(2);
    point[*a] = getAffineConstantExpr(row, context);
    point[*kk] = getAffineConstantExpr(kAt, context);
    auto c = dyn_cast<AffineConstantExpr>(
        simplifyAffineExpr(offset.replaceDims(point), 0, 0));
    return c ? std::optional(c.getValue()) : std::nullopt;
  };
  if (at(0, 0) != 0)
    return std::nullopt;
  // The constants the indices divide a coordinate by: where it may split.
  SmallVector<int64_t> splits{0};
  offset.walk([&](AffineExpr e) {
    auto binary = dyn_cast<AffineBinaryOpExpr>(e);
    auto c = binary ? dyn_cast<AffineConstantExpr>(binary.getRHS()) : nullptr;
    if (c && c.getValue() > 1 &&
        (e.getKind() == AffineExprKind::FloorDiv ||
         e.getKind() == AffineExprKind::Mod) &&
        !llvm::is_contained(splits, c.getValue()))
      splits.push_back(c.getValue());
  });
  for (int64_t rowSplit : splits) {
    for (int64_t kSplit : splits) {
      if ((!rowSplit && !kSplit) || (kSplit && kExtent % kSplit != 0))
        continue;
      // Each part, what it takes and its stride.
      struct Part {
        ViewTerm term;
        AffineExpr expr;
        std::optional<int64_t> stride;
        int64_t extent = 0; // At least this, or exactly for k's.
        bool exact = false;
      };
      SmallVector<Part, 4> parts;
      if (rowSplit) {
        parts.push_back({ViewTerm::AlongOuter, rowDim.floorDiv(rowSplit),
                         at(rowSplit, 0),
                         (int64_t)llvm::divideCeil(extent, rowSplit)});
        parts.push_back({ViewTerm::AlongInner, rowDim % rowSplit, at(1, 0),
                         rowSplit, true});
      } else {
        parts.push_back({ViewTerm::Along, rowDim, at(1, 0), extent});
      }
      if (kSplit) {
        parts.push_back({ViewTerm::KOuter, kDim.floorDiv(kSplit), at(0, kSplit),
                         kExtent / kSplit, true});
        parts.push_back(
            {ViewTerm::KInner, kDim % kSplit, at(0, 1), kSplit, true});
      } else {
        parts.push_back({ViewTerm::K, kDim, at(0, 1), kExtent, true});
      }
      AffineExpr sum = getAffineConstantExpr(0, context);
      bool strided = true;
      for (Part &part : parts) {
        strided &= part.stride && *part.stride > 0;
        if (strided)
          sum = sum + part.expr * *part.stride;
      }
      if (!strided || simplifyAffineExpr(sum - offset, 2, 0) !=
                          getAffineConstantExpr(0, context))
        continue;
      llvm::sort(parts, [](const Part &x, const Part &y) {
        return *x.stride > *y.stride;
      });
      // Row-major, each part's extent covering what it takes.
      SmallVector<int64_t> strides;
      for (Part &part : parts)
        strides.push_back(*part.stride);
      std::optional<SmallVector<int64_t>> extents =
          rowMajorExtents(strides, type.getNumElements());
      if (!extents)
        continue;
      SmallVector<int64_t> shape = *extents;
      bool rowMajor = true;
      for (auto [part, extent] : llvm::zip_equal(parts, shape))
        rowMajor &= part.exact ? extent == part.extent : extent >= part.extent;
      ViewTerm inner = kSplit ? ViewTerm::KInner : ViewTerm::K;
      ViewTerm varied = rowSplit ? ViewTerm::AlongInner : ViewTerm::Along;
      int64_t boxRows = rowSplit ? std::gcd(rows, rowSplit) : rows;
      int64_t rowBits = shape.back() * type.getElementTypeBitWidth();
      if (!rowMajor || parts.back().term != inner || rowBits % 128 != 0 ||
          parts[parts.size() - 2].term != varied ||
          (int64_t)parts.size() > kernelir::kTmaMaxRank || boxRows % 8 != 0)
        continue;
      TmaView view;
      view.shape.assign(shape.begin(), shape.end());
      for (Part &part : parts)
        view.terms.push_back(part.term);
      view.rowSplit = rowSplit;
      view.kSplit = kSplit;
      view.boxRows = boxRows;
      return view;
    }
  }
  return std::nullopt;
}

AffineExpr strata::detail::rowMajorOffset(AffineMap map, MemRefType type) {
  AffineExpr offset = getAffineConstantExpr(0, map.getContext());
  for (auto [result, stride] :
       llvm::zip_equal(map.getResults(), computeSuffixProduct(type.getShape())))
    offset = offset + result * stride;
  return simplifyAffineExpr(offset, map.getNumDims(), map.getNumSymbols());
}

std::optional<SmallVector<int64_t>>
strata::detail::rowMajorExtents(ArrayRef<int64_t> strides, int64_t elements) {
  if (strides.empty() || strides.back() != 1)
    return std::nullopt;
  SmallVector<int64_t> extents;
  for (auto [i, stride] : llvm::enumerate(strides)) {
    int64_t outer = i ? strides[i - 1] : elements;
    if (stride < 1 || outer % stride != 0)
      return std::nullopt;
    extents.push_back(outer / stride);
  }
  return extents;
}

/// Whether `load`'s indices but the last delinearize `row` over its
/// buffer's leading dimensions, so that the element they name is row
/// `row` of the buffer seen as a matrix: their row-major position
/// simplifies to `row` (x[0][r][k] of a batch of 1; x[r floordiv n][r mod
/// n][k]), or index i is (row floordiv stride i) mod extent i, the
/// first's mod perhaps left out as row is in bounds (nested folds, which
/// the simplification leaves).
static bool delinearizesRows(loopir::LoadOp load, Value row) {
  auto position = llvm::find(load.getIndices(), row);
  if (position == load.getIndices().end())
    return false;
  AffineExpr r =
      getAffineDimExpr(position - load.getIndices().begin(), load.getContext());
  AffineMap map = load.getIndexMap();
  ArrayRef<int64_t> shape =
      cast<MemRefType>(load.getMemref().getType()).getShape().drop_back();
  SmallVector<int64_t> strides = computeSuffixProduct(shape);
  AffineExpr at = getAffineConstantExpr(0, load.getContext());
  for (auto [i, stride] : llvm::enumerate(strides))
    at = at + map.getResult(i) * stride;
  if (simplifyAffineExpr(at, map.getNumDims(), map.getNumSymbols()) == r)
    return true;
  for (auto [i, stride] : llvm::enumerate(strides)) {
    AffineExpr result = map.getResult(i);
    AffineExpr digit = r.floorDiv(stride);
    if (result != digit % shape[i] && (i != 0 || result != digit))
      return false;
  }
  return true;
}

/// The kernel buffer TMA may copy an operand's chunks from (see
/// planTmaCopies), MN-major only where `mayBeMnMajor`; none otherwise.
static std::optional<TmaSource> tmaSource(tileir::KernelOp kernel,
                                          tileir::ContractOp contract,
                                          Region &operand, size_t dropped,
                                          bool mayBeMnMajor) {
  loopir::LoadOp load = plainOperandLoad(kernel, operand, /*narrow=*/true);
  if (!load)
    return std::nullopt;
  auto buffer = cast<BlockArgument>(load.getMemref());
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() < 2 || type.getRank() > kernelir::kTmaMaxRank ||
      !type.getLayout().isIdentity() || !type.hasStaticShape() ||
      !kernelir::hasTensorMapStrides(type))
    return std::nullopt;
  // The buffer's indices are the coordinates of tile dimensions of extent
  // 1 before the rows (a batch, never dropped: the region's argument d is
  // dimension d), then the tile coordinate the operand varies and k, in
  // either order.
  Block &body = operand.front();
  size_t rank = kernel.getDomain().size();
  size_t varied = variedDim(dropped, rank);
  Value along = body.getArgument(varied < dropped ? varied : varied - 1);
  Value k = body.getArguments().back();
  AffineMap map = load.getIndexMap();
  auto indexAt = [&](unsigned result) -> Value {
    auto dim = dyn_cast<AffineDimExpr>(map.getResult(result));
    return dim ? load.getIndices()[dim.getPosition()] : Value();
  };
  // A K-major buffer whose leading dimensions delinearize the varied
  // coordinate (a batch folded into the rows: x[r floordiv n][r mod n][k])
  // is one matrix of all its rows to a tensor map (getTmaTensorShape).
  if (type.getRank() > 2 && indexAt(type.getRank() - 1) == k &&
      type.getDimSize(type.getRank() - 1) == (int64_t)contract.getK() &&
      delinearizesRows(load, along))
    return TmaSource{buffer, load, {}, false, std::nullopt};
  // Else a K-major view that splits the rows or k (ViewTerm).
  auto viewed = [&]() -> std::optional<TmaSource> {
    auto view = splitView(load, along, k, kernel.getDomain()[varied],
                          contract.getK(), kernel.getTile()[varied]);
    if (!view)
      return std::nullopt;
    return TmaSource{buffer, load, {}, false, std::move(view)};
  };
  unsigned lead = type.getRank() - 2;
  SmallVector<unsigned, 2> batch;
  for (unsigned result = 0; result < lead; ++result) {
    auto arg = dyn_cast_if_present<BlockArgument>(indexAt(result));
    if (!arg || arg.getOwner() != &body || arg.getArgNumber() + 2 >= rank ||
        kernel.getTile()[arg.getArgNumber()] != 1)
      return viewed();
    batch.push_back(arg.getArgNumber());
  }
  bool kMajor = indexAt(lead) == along && indexAt(lead + 1) == k;
  bool mnMajor =
      mayBeMnMajor && indexAt(lead) == k && indexAt(lead + 1) == along;
  if ((!kMajor && !mnMajor) ||
      type.getDimSize(lead + (mnMajor ? 0 : 1)) != (int64_t)contract.getK())
    return viewed();
  return TmaSource{buffer, load, batch, mnMajor, std::nullopt};
}

std::optional<ContractionLowering::TmaPlan>
ContractionLowering::planOwnTmaCopies(tileir::ContractOp contract, Type operand,
                                      int64_t columns) {
  size_t rank = kernel.getTile().size();
  ArrayRef<int64_t> tile = kernel.getTile();
  int64_t step = contract.getStep(),
          bytes = operand.getIntOrFloatBitWidth() / 8;
  auto lhs = tmaSource(kernel, contract, contract.getLhs(), rank - 1, false);
  auto rhs = tmaSource(kernel, contract, contract.getRhs(), rank - 2, true);
  if (!lhs || !rhs)
    return std::nullopt;
  // A K-major box has the tile's rows (columns), an MN-major one k rows.
  int64_t rhsBoxRows = rhs->mnMajor ? step : tile[rank - 1];
  if (tile[rank - 2] > kernelir::kTmaMaxBoxExtent ||
      rhsBoxRows > kernelir::kTmaMaxBoxExtent)
    return std::nullopt;
  // A box row of a view's split k lies in one of its outer coordinates.
  auto inKSplit = [&](const TmaSource &source, int64_t swizzle) {
    return !source.view || !source.view->kSplit ||
           source.view->kSplit * bytes % swizzle == 0;
  };
  for (int64_t swizzle : {128, 64, 32})
    if (step * bytes % swizzle == 0 &&
        (!rhs->mnMajor || columns * bytes % swizzle == 0) &&
        inKSplit(*lhs, swizzle) && inKSplit(*rhs, swizzle))
      return TmaPlan{
          {lhs->buffer, rhs->buffer, lhs->batch, rhs->batch, rhs->mnMajor,
           swizzle, lhs->view, rhs->view},
          lhs->load,
          rhs->load,
          {tile[rank - 2], false, swizzle, lhs->batch, lhs->view},
          {rhsBoxRows, rhs->mnMajor, swizzle, rhs->batch, rhs->view}};
  return std::nullopt;
}

std::optional<ContractionLowering::TmaCopies>
ContractionLowering::planTmaCopies(tileir::ContractOp contract, Type operand,
                                   int64_t columns) {
  // A tensor map is read by TMA copies alone, with one box: sibling
  // contractions (a gated pair reading one x) take TMA together or not
  // at all, and a buffer (one contraction's two operands, x @ x.T, or
  // siblings' x) is copied the same way wherever it is copied.
  std::optional<TmaCopies> copies;
  SmallPtrSet<Operation *, 8> copied;
  DenseMap<Value, TmaRole> roles;
  for (auto sibling : kernel.getBody().getOps<tileir::ContractOp>()) {
    std::optional<TmaPlan> plan = planOwnTmaCopies(sibling, operand, columns);
    if (!plan)
      return std::nullopt;
    copied.insert({plan->lhsLoad, plan->rhsLoad});
    for (auto [buffer, role] : {std::pair(plan->copies.lhs, plan->lhsRole),
                                std::pair(plan->copies.rhs, plan->rhsRole)}) {
      auto [seen, first] = roles.try_emplace(buffer, role);
      if (!first && !(seen->second == role))
        return std::nullopt;
    }
    if (sibling == contract)
      copies = plan->copies;
  }
  for (auto &[buffer, role] : roles)
    for (Operation *user : buffer.getUsers())
      if (!copied.contains(user))
        return std::nullopt;
  return copies;
}

scf::ForOp ContractionLowering::tmaStagedLoop(
    tileir::ContractOp contract, const TmaCopies &copies, Value lhsChunk,
    Value rhsChunk, ValueRange init,
    function_ref<SmallVector<Value>(ValueRange, Value)> multiply,
    bool readsInFlight) {
  Location loc = contract.getLoc();
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  size_t rank = kernel.getTile().size();
  int64_t step = contract.getStep(), stages = contract.getStages();
  int64_t steps = llvm::divideCeil(contract.getK(), step);
  auto chunkType = cast<MemRefType>(lhsChunk.getType());
  int64_t width = chunkType.getShape().back(); // Elements of a box row.
  int64_t kBlocks = step / width;

  // The buffers become tensor maps, read by these copies alone.
  auto func = cast<kernelir::FuncOp>(ctx.entry->getParentOp());
  auto mapOf = [&](BlockArgument buffer, const std::optional<TmaView> &view) {
    auto map = cast<BlockArgument>(ctx.mapping.lookup(buffer));
    func.setArgAttr(map.getArgNumber(), kernelir::kTensorMapAttrName,
                    view ? Attribute(b.getDenseI64ArrayAttr(view->shape))
                         : Attribute(b.getUnitAttr()));
    return map;
  };
  Value lhsMap = mapOf(copies.lhs, copies.lhsView),
        rhsMap = mapOf(copies.rhs, copies.rhsView);
  Value barriers;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ctx.entry);
    barriers = kernelir::SharedOp::create(
        b, loc,
        MemRefType::get({stages}, b.getI64Type(), MemRefLayoutAttrInterface(),
                        gpu::AddressSpaceAttr::get(
                            b.getContext(), gpu::AddressSpace::Workgroup)));
  }
  // One thread issues every copy; a stage's phase completes when it has
  // armed it and the step's bytes have landed.
  auto asLeader = [&](function_ref<void()> body) {
    Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         ctx.thread, index(0));
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, leader, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    body();
  };
  auto barrierOf = [&](Value slot) { return slot ? slot : index(0); };
  // A view's coordinates of the element at `along` and `k`.
  auto viewCoordinates = [&](const TmaView &view, Value along, Value k) {
    SmallVector<Value> coordinates;
    for (ViewTerm term : view.terms) {
      Value whole = term <= ViewTerm::AlongInner ? along : k;
      int64_t split =
          term <= ViewTerm::AlongInner ? view.rowSplit : view.kSplit;
      if (term == ViewTerm::AlongOuter || term == ViewTerm::KOuter)
        whole = arith::DivUIOp::create(b, loc, whole, index(split));
      else if (term == ViewTerm::AlongInner || term == ViewTerm::KInner)
        whole = arith::RemUIOp::create(b, loc, whole, index(split));
      coordinates.push_back(whole);
    }
    return coordinates;
  };
  {
    // Once per block: a persistent kernel's tiles go on using the ring.
    OpBuilder::InsertionGuard guard(b);
    if (ctx.tileLoop)
      b.setInsertionPoint(ctx.tileLoop);
    asLeader([&] {
      for (int64_t s = 0; s < stages; ++s)
        kernelir::MBarrierInitOp::create(b, loc, barriers, index(s), 1);
    });
    // The initialized mbarriers, seen by the copy engine and every thread.
    kernelir::ProxyFenceOp::create(b, loc);
    kernelir::BarrierOp::create(b, loc);
  }
  // Step kt of this tile is step g = tiles before x steps + kt of the
  // block's ring: its slot is g mod stages, its use of the slot's
  // mbarrier g / stages (every step a tile issues it also waits for, so
  // the ring is drained, but not back at slot 0, when the next begins).
  Value firstStep;
  if (ctx.tilesBefore)
    firstStep = arith::MulIOp::create(b, loc, ctx.tilesBefore, index(steps));
  auto ringStep = [&](Value kt) -> Value {
    return firstStep ? arith::AddIOp::create(b, loc, firstStep, kt) : kt;
  };

  Value rowOrigin = ctx.mapping.lookup(contract.getOrigin()[rank - 2]);
  Value colOrigin = ctx.mapping.lookup(contract.getOrigin()[rank - 1]);
  // Each operand's map, chunk, batch coordinates and, batched or of a
  // batch folded into the rows, its box: a batch's chunk rows ([1, ...,
  // rows, S bytes]), or chunk rows of all the batches' ([rows, S bytes]).
  // A view's box: 1s, then the view's rows of a box and a chunk row.
  auto operandOf = [&](Value map, Value chunk, int64_t rows,
                       ArrayRef<unsigned> batch,
                       const std::optional<TmaView> &view) {
    TmaOperand operand{map, chunk, rows, {}, nullptr, view};
    for (unsigned d : batch)
      operand.batch.push_back(ctx.mapping.lookup(contract.getOrigin()[d]));
    ArrayRef<int64_t> chunkShape = cast<MemRefType>(chunk.getType()).getShape();
    if (view) {
      SmallVector<int64_t> shape(view->shape.size() - 2, 1);
      shape.append({view->boxRows, chunkShape.back()});
      operand.boxShape = b.getDenseI64ArrayAttr(shape);
    } else if (cast<MemRefType>(map.getType()).getRank() > 2) {
      SmallVector<int64_t> shape(batch.size(), 1);
      llvm::append_range(shape, chunkShape.take_back(2));
      operand.boxShape = b.getDenseI64ArrayAttr(shape);
    }
    return operand;
  };
  TmaOperand lhs = operandOf(lhsMap, lhsChunk, kernel.getTile()[rank - 2],
                             copies.lhsBatch, copies.lhsView);
  TmaOperand rhs = operandOf(rhsMap, rhsChunk, kernel.getTile()[rank - 1],
                             copies.rhsBatch, copies.rhsView);
  // Issues the copies of step `kt` into its slot of the ring (null
  // without slots).
  auto issue = [&](Value kt) {
    Value slot = slotOf(loc, ringStep(kt), stages);
    asLeader([&] {
      // Armed with the bytes of the step's boxes, once they are issued.
      SmallVector<kernelir::TmaLoadOp> boxes;
      Value k0 = arith::MulIOp::create(b, loc, kt, index(step));
      // Block `block` of a chunk, at `along` + `offset` along the tile
      // dimension and `k` along k of its tensor (in the tensor's order).
      auto copy = [&](const TmaOperand &operand, int64_t block, Value along,
                      int64_t offset, Value k, bool mnMajor) {
        // A view's boxes of `boxRows` rows each, at that row of the chunk.
        int64_t boxRows = operand.view ? operand.view->boxRows : operand.rows;
        for (int64_t row = 0; row < operand.rows; row += boxRows) {
          SmallVector<Value> box{index(block), index(operand.view ? row : 0),
                                 index(0)};
          if (slot)
            box.insert(box.begin(), slot);
          Value at = arith::AddIOp::create(b, loc, along, index(offset + row));
          SmallVector<Value> coordinates =
              operand.view ? viewCoordinates(*operand.view, at, k)
                           : SmallVector<Value>(operand.batch.begin(),
                                                operand.batch.end());
          if (!operand.view)
            coordinates.append(mnMajor ? SmallVector<Value>{k, at}
                                       : SmallVector<Value>{at, k});
          boxes.push_back(kernelir::TmaLoadOp::create(
              b, loc, operand.map, coordinates, operand.chunk, box,
              copies.swizzle, barriers, barrierOf(slot), operand.boxShape));
        }
      };
      for (int64_t kb = 0; kb < kBlocks; ++kb) {
        Value k = arith::AddIOp::create(b, loc, k0, index(kb * width));
        copy(lhs, kb, rowOrigin, 0, k, false);
        if (!copies.rhsMnMajor)
          copy(rhs, kb, colOrigin, 0, k, false);
      }
      // An MN-major rhs: blocks of `width` columns, all of the step's k.
      int64_t nBlocks = copies.rhsMnMajor ? kernel.getTile().back() / width : 0;
      for (int64_t nb = 0; nb < nBlocks; ++nb)
        copy(rhs, nb, colOrigin, nb * width, k0, true);
      int64_t bytes = 0;
      for (kernelir::TmaLoadOp box : boxes)
        bytes += box.getBytes();
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(boxes.front());
      kernelir::MBarrierArriveOp::create(b, loc, barriers, barrierOf(slot),
                                         b.getI64IntegerAttr(bytes));
    });
  };
  for (int64_t s = 0; s + 1 < stages && s < steps; ++s)
    issue(index(s));
  return ctx.buildLoop(
      loc, index(0), index(steps), index(1), init,
      [&](Value kt, ValueRange acc) -> SmallVector<Value> {
        // Every thread is done with step kt - 1, whose slot the copies of
        // step kt + stages - 1 overwrite.
        auto refill = [&] {
          kernelir::BarrierOp::create(b, loc);
          stageAhead(loc, kt, stages, steps, issue);
        };
        if (!readsInFlight)
          refill();
        Value g = ringStep(kt);
        Value slot = slotOf(loc, g, stages);
        Value use = arith::DivUIOp::create(b, loc, g, index(stages));
        Value parity = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ne,
            arith::RemUIOp::create(b, loc, use, index(2)), index(0));
        kernelir::MBarrierWaitOp::create(b, loc, barriers, barrierOf(slot),
                                         parity);
        SmallVector<Value> next = multiply(acc, slot);
        // Step kt's reads may still run: step kt - 1's are done.
        if (readsInFlight)
          refill();
        return next;
      });
}
