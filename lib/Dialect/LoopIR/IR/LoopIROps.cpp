#include "strata/Dialect/LoopIR/IR/LoopIR.h"
#include "strata/Dialect/Utils/LoopBox.h"
#include "strata/Dialect/Utils/VerifyUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace strata;
using namespace strata::loopir;

#define GET_OP_CLASSES
#include "strata/Dialect/LoopIR/IR/LoopIROps.cpp.inc"

LogicalResult KernelOp::verify() {
  if (failed(verifyKernelBuffers(*this, getInputs().getTypes(),
                                 getResults().getTypes(), getBody().front())))
    return failure();
  // Inputs are values: the body may only read them.
  WalkResult written = walk([&](StoreOp store) {
    if (llvm::is_contained(getInputBuffers(), store.getMemref())) {
      store.emitOpError("writes an input buffer of its kernel; a kernel "
                        "only writes its result buffers");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(written.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// ParallelOp
//===----------------------------------------------------------------------===//

void ParallelOp::build(OpBuilder &b, OperationState &state,
                       ArrayRef<int64_t> bounds) {
  state.addAttribute(getBoundsAttrName(state.name),
                     b.getDenseI64ArrayAttr(bounds));
  Block *block =
      addLoopBoxBlock(b, *state.addRegion(), bounds.size(), state.location);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(block);
  YieldOp::create(b, state.location);
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

void ReduceOp::build(OpBuilder &b, OperationState &state, TypeRange results,
                     ArrayRef<Attribute> combiners, ArrayRef<int64_t> bounds) {
  state.addAttribute(getCombinersAttrName(state.name),
                     b.getArrayAttr(combiners));
  state.addAttribute(getBoundsAttrName(state.name),
                     b.getDenseI64ArrayAttr(bounds));
  state.addTypes(results);
  addLoopBoxBlock(b, *state.addRegion(), bounds.size(), state.location);
}

// loopir.parallel (%i, %j) in [1000, 37] attr-dict { ... }
ParseResult ParallelOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseParallelLoop<ParallelOp>(parser, result);
}

void ParallelOp::print(OpAsmPrinter &p) {
  printParallelLoop(p, *this, getBounds());
}

LogicalResult ParallelOp::verify() {
  return verifyParallelLoop(*this, getBounds());
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

// loopir.reduce add, max (%k) in [2048] attr-dict : f32, f32 { ... }
ParseResult ReduceOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<Attribute> combiners;
  do {
    StringRef keyword;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseKeyword(&keyword))
      return failure();
    std::optional<Combiner> combiner = symbolizeCombiner(keyword);
    if (!combiner)
      return parser.emitError(loc, "unknown combiner '") << keyword << "'";
    combiners.push_back(CombinerAttr::get(parser.getContext(), *combiner));
  } while (succeeded(parser.parseOptionalComma()));
  result.addAttribute("combiners",
                      parser.getBuilder().getArrayAttr(combiners));
  SmallVector<OpAsmParser::Argument> ivs;
  SmallVector<Type> types;
  if (parseLoopBox(parser, result, ivs) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes) ||
      parser.parseColonTypeList(types))
    return failure();
  result.addTypes(types);
  Region *body = result.addRegion();
  return parser.parseRegion(*body, ivs);
}

void ReduceOp::print(OpAsmPrinter &p) {
  p << " ";
  llvm::interleaveComma(getCombinerList(), p,
                        [&](Combiner c) { p << stringifyCombiner(c); });
  printLoopBox(p, getInductionVars(), getBounds());
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {"bounds", "combiners"});
  p << " : ";
  llvm::interleaveComma(getResultTypes(), p);
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

SmallVector<Combiner> ReduceOp::getCombinerList() {
  SmallVector<Combiner> list;
  for (Attribute a : getCombiners())
    list.push_back(cast<CombinerAttr>(a).getValue());
  return list;
}

MonoidKind ReduceOp::getMonoidKind(Combiner c) {
  switch (c) {
  case Combiner::add:
    return MonoidKind::Add;
  case Combiner::mul:
    return MonoidKind::Mul;
  case Combiner::max:
  case Combiner::argmax:
    return MonoidKind::Max;
  case Combiner::min:
  case Combiner::argmin:
    return MonoidKind::Min;
  }
  llvm_unreachable("unknown combiner");
}

ValueRange ReduceOp::getResultsOf(unsigned i) {
  unsigned first = 0;
  SmallVector<Combiner> list = getCombinerList();
  for (unsigned j = 0; j < i; ++j)
    first += isArgCombiner(list[j]) ? 2 : 1;
  return getResults().slice(first, isArgCombiner(list[i]) ? 2 : 1);
}

LogicalResult ReduceOp::verify() {
  if (failed(verifyLoopBox(*this, getBody().front(), getBounds())))
    return failure();
  SmallVector<Combiner> combiners = getCombinerList();
  if (combiners.empty())
    return emitOpError("expects at least one combiner");
  auto yield = dyn_cast<YieldOp>(getBody().front().getTerminator());
  if (!yield || yield.getValues().size() != combiners.size())
    return emitOpError("body must yield one contribution per combiner");
  unsigned result = 0;
  for (auto [c, value] : llvm::zip(combiners, yield.getValues())) {
    Type t = value.getType();
    if (!t.isIntOrFloat())
      return emitOpError("contributions must be integers or floats, got ")
             << t;
    unsigned count = isArgCombiner(c) ? 2 : 1;
    if (result + count > getNumResults() || getResult(result).getType() != t ||
        (count == 2 && !getResult(result + 1).getType().isInteger(64)))
      return emitOpError(count == 2
                             ? "an arg-reduction has two results: the "
                               "contribution type "
                             : "expects one result of the contribution type ")
             << t << (count == 2 ? " and the i64 position" : "");
    result += count;
  }
  if (result != getNumResults())
    return emitOpError("has ") << getNumResults() << " results for "
                               << result << " expected";
  return success();
}

namespace {
/// The body of a loop over one point, inlined before it with every index 0.
void inlineOnePoint(PatternRewriter &rewriter, Operation *loop) {
  Block &body = loop->getRegion(0).front();
  Value zero = arith::ConstantIndexOp::create(rewriter, loop->getLoc(), 0);
  SmallVector<Value> ivs(body.getNumArguments(), zero);
  rewriter.eraseOp(body.getTerminator());
  rewriter.inlineBlockBefore(&body, loop, ivs);
}

bool isOnePoint(ArrayRef<int64_t> bounds) {
  return llvm::all_of(bounds, [](int64_t b) { return b == 1; });
}

/// A nested parallel loop over one point is its body.
struct InlineOnePointNest : OpRewritePattern<ParallelOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ParallelOp op,
                                PatternRewriter &rewriter) const override {
    if (!isOnePoint(op.getBounds()) || isa<KernelOp>(op->getParentOp()))
      return rewriter.notifyMatchFailure(op, "not a nested one-point nest");
    inlineOnePoint(rewriter, op);
    rewriter.eraseOp(op);
    return success();
  }
};

/// A reduction over a box of one point folds a single contribution with
/// the combiner's identity: it is that contribution (and position 0).
struct InlineOnePointReduction : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    if (!isOnePoint(op.getBounds()))
      return rewriter.notifyMatchFailure(op, "more than one point");
    Block &body = op.getBody().front();
    SmallVector<Value> contributions(body.getTerminator()->getOperands());
    inlineOnePoint(rewriter, op);
    SmallVector<Value> results;
    for (auto [combiner, value] :
         llvm::zip(op.getCombinerList(), contributions)) {
      results.push_back(value);
      if (ReduceOp::isArgCombiner(combiner))
        results.push_back(
            arith::ConstantIntOp::create(rewriter, op.getLoc(), 0, 64));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};
} // namespace

void ReduceOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<InlineOnePointReduction>(context);
}

namespace {
/// A tensor passed to a kernel twice is read through one buffer.
struct DeduplicateKernelInputs : OpRewritePattern<KernelOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(KernelOp op,
                                PatternRewriter &rewriter) const override {
    OperandRange inputs = op.getInputs();
    for (unsigned i = 1; i < inputs.size(); ++i) {
      auto first = llvm::find(inputs.take_front(i), inputs[i]);
      if (first == inputs.begin() + i)
        continue;
      Block &body = op.getBody().front();
      unsigned kept = first - inputs.begin();
      rewriter.replaceAllUsesWith(body.getArgument(i), body.getArgument(kept));
      rewriter.modifyOpInPlace(op, [&] {
        op.getInputsMutable().erase(i);
        body.eraseArgument(i);
      });
      return success();
    }
    return rewriter.notifyMatchFailure(op, "every input is distinct");
  }
};
} // namespace

void KernelOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<DeduplicateKernelInputs>(context);
}

void ParallelOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                             MLIRContext *context) {
  results.add<InlineOnePointNest>(context);
}

//===----------------------------------------------------------------------===//
// LoadOp / StoreOp
//===----------------------------------------------------------------------===//

namespace {
/// A constant index becomes a constant of the access's map.
template <typename AccessOp>
struct FoldConstantIndices : OpRewritePattern<AccessOp> {
  using OpRewritePattern<AccessOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(AccessOp op,
                                PatternRewriter &rewriter) const override {
    MLIRContext *ctx = op.getContext();
    SmallVector<Value> kept;
    SmallVector<AffineExpr> select;
    for (Value index : op.getIndices()) {
      if (std::optional<int64_t> c = getConstantIntValue(index)) {
        select.push_back(getAffineConstantExpr(*c, ctx));
      } else {
        select.push_back(getAffineDimExpr(kept.size(), ctx));
        kept.push_back(index);
      }
    }
    if (kept.size() == op.getIndices().size())
      return rewriter.notifyMatchFailure(op, "no constant index");
    rewriter.modifyOpInPlace(op, [&] { op.reindex(kept, select); });
    return success();
  }
};
} // namespace

void LoadOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<FoldConstantIndices<LoadOp>>(context);
}

void StoreOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<FoldConstantIndices<StoreOp>>(context);
}

AffineMap LoadOp::getIndexMap() {
  return getIndexMapOrIdentity(getMap(), getIndices().size(), getContext());
}

bool LoadOp::readsIndex(unsigned d) {
  if (getIndexMap().isFunctionOfDim(d))
    return true;
  std::optional<IntegerSet> guard = getGuard();
  return guard && llvm::any_of(guard->getConstraints(), [&](AffineExpr e) {
           return e.isFunctionOfDim(d);
         });
}

/// `map` over new indices: old dim `d` becomes `substitution[d]`.
static AffineMap substituteDims(AffineMap map,
                                ArrayRef<AffineExpr> substitution,
                                unsigned numIndices) {
  return map.replaceDimsAndSymbols(substitution, {}, numIndices, 0);
}

void LoadOp::reindex(ValueRange indices, ArrayRef<AffineExpr> substitution) {
  AffineMap map = substituteDims(getIndexMap(), substitution, indices.size());
  if (std::optional<IntegerSet> guard = getGuard())
    setGuardAttr(IntegerSetAttr::get(guard->replaceDimsAndSymbols(
        substitution, {}, indices.size(), 0)));
  getIndicesMutable().assign(indices);
  setMapAttr(getIndexMapAttr(map));
}

LogicalResult LoadOp::verify() {
  if (failed(verifyIndexMap(*this, getMap(), getIndices().size(),
                            getMemref().getType())))
    return failure();
  if (getGuard().has_value() != (getPaddingAttr() != nullptr))
    return emitOpError("takes a guard and a padding together, or neither");
  if (std::optional<IntegerSet> guard = getGuard()) {
    if (guard->getNumDims() != getIndices().size() ||
        guard->getNumSymbols() != 0)
      return emitOpError("guard has ")
             << guard->getNumDims() << " dimensions and "
             << guard->getNumSymbols() << " symbols; expected "
             << getIndices().size() << " dimensions (one per index) and no "
             << "symbols";
    if (getPaddingAttr().getType() != getType())
      return emitOpError("padding of type ")
             << getPaddingAttr().getType() << " for a load of " << getType();
  }
  return success();
}

AffineMap StoreOp::getIndexMap() {
  return getIndexMapOrIdentity(getMap(), getIndices().size(), getContext());
}

bool StoreOp::readsIndex(unsigned d) {
  return getIndexMap().isFunctionOfDim(d);
}

void StoreOp::reindex(ValueRange indices, ArrayRef<AffineExpr> substitution) {
  AffineMap map = substituteDims(getIndexMap(), substitution, indices.size());
  getIndicesMutable().assign(indices);
  setMapAttr(getIndexMapAttr(map));
}

LogicalResult StoreOp::verify() {
  return verifyIndexMap(*this, getMap(), getIndices().size(),
                        getMemref().getType());
}
