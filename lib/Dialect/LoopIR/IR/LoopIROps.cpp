#include "strata/Dialect/LoopIR/IR/LoopIR.h"
#include "strata/Dialect/Utils/VerifyUtils.h"

#include "mlir/IR/Builders.h"
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
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (size_t i = 0; i < bounds.size(); ++i)
    block->addArgument(b.getIndexType(), state.location);
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
  Block *block = new Block();
  state.addRegion()->push_back(block);
  for (size_t i = 0; i < bounds.size(); ++i)
    block->addArgument(b.getIndexType(), state.location);
}

/// Parses the iteration box of a loop: `(%i, %j) in [1000, 37]`.
static ParseResult parseBox(OpAsmParser &parser, OperationState &result,
                            SmallVectorImpl<OpAsmParser::Argument> &ivs) {
  if (parser.parseArgumentList(ivs, OpAsmParser::Delimiter::Paren))
    return failure();
  for (auto &iv : ivs)
    iv.type = parser.getBuilder().getIndexType();
  SmallVector<int64_t> bounds;
  if (parser.parseKeyword("in") ||
      parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, [&] {
        return parser.parseInteger(bounds.emplace_back());
      }))
    return failure();
  result.addAttribute("bounds",
                      parser.getBuilder().getDenseI64ArrayAttr(bounds));
  return success();
}

static void printBox(OpAsmPrinter &p, Block::BlockArgListType ivs,
                     ArrayRef<int64_t> bounds) {
  p << " (";
  llvm::interleaveComma(ivs, p, [&](BlockArgument iv) { p.printOperand(iv); });
  p << ") in [";
  llvm::interleaveComma(bounds, p);
  p << "]";
}

static LogicalResult verifyBox(Operation *op, Block &body,
                               ArrayRef<int64_t> bounds) {
  if (body.getNumArguments() != bounds.size())
    return op->emitOpError("expects one loop index per bound");
  for (BlockArgument iv : body.getArguments())
    if (!iv.getType().isIndex())
      return op->emitOpError("loop indices must have index type");
  for (int64_t bound : bounds)
    if (bound <= 0)
      return op->emitOpError("loop bounds must be positive, got ") << bound;
  return success();
}

// loopir.parallel (%i, %j) in [1000, 37] attr-dict { ... }
ParseResult ParallelOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> ivs;
  if (parseBox(parser, result, ivs) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, ivs))
    return failure();
  ParallelOp::ensureTerminator(*body, parser.getBuilder(), result.location);
  return success();
}

void ParallelOp::print(OpAsmPrinter &p) {
  printBox(p, getInductionVars(), getBounds());
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(), {"bounds"});
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
}

LogicalResult ParallelOp::verify() {
  if (!cast<YieldOp>(getBody().front().getTerminator()).getValues().empty())
    return emitOpError("body yields no values");
  return verifyBox(*this, getBody().front(), getBounds());
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
  if (parseBox(parser, result, ivs) ||
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
  printBox(p, getInductionVars(), getBounds());
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

ValueRange ReduceOp::getResultsOf(unsigned i) {
  unsigned first = 0;
  SmallVector<Combiner> list = getCombinerList();
  for (unsigned j = 0; j < i; ++j)
    first += isArgCombiner(list[j]) ? 2 : 1;
  return getResults().slice(first, isArgCombiner(list[i]) ? 2 : 1);
}

LogicalResult ReduceOp::verify() {
  if (failed(verifyBox(*this, getBody().front(), getBounds())))
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

//===----------------------------------------------------------------------===//
// LoadOp / StoreOp
//===----------------------------------------------------------------------===//

AffineMap LoadOp::getIndexMap() {
  return getIndexMapOrIdentity(getMap(), getIndices().size(), getContext());
}

LogicalResult LoadOp::verify() {
  return verifyIndexMap(*this, getMap(), getIndices().size(),
                        getMemref().getType());
}

AffineMap StoreOp::getIndexMap() {
  return getIndexMapOrIdentity(getMap(), getIndices().size(), getContext());
}

LogicalResult StoreOp::verify() {
  return verifyIndexMap(*this, getMap(), getIndices().size(),
                        getMemref().getType());
}
