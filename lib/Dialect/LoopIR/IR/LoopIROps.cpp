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
  return verifyKernelBuffers(*this, getInputs().getTypes(),
                             getResults().getTypes(), getBody().front());
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

// loopir.parallel (%i, %j) in [1000, 37] attr-dict { ... }
ParseResult ParallelOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> ivs;
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
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, ivs))
    return failure();
  ParallelOp::ensureTerminator(*body, parser.getBuilder(), result.location);
  return success();
}

void ParallelOp::print(OpAsmPrinter &p) {
  p << " (";
  llvm::interleaveComma(getInductionVars(), p,
                        [&](BlockArgument iv) { p.printOperand(iv); });
  p << ") in [";
  llvm::interleaveComma(getBounds(), p);
  p << "]";
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(), {"bounds"});
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
}

LogicalResult ParallelOp::verify() {
  if (getBody().getNumArguments() != getBounds().size())
    return emitOpError("expects one loop index per bound");
  for (BlockArgument iv : getInductionVars())
    if (!iv.getType().isIndex())
      return emitOpError("loop indices must have index type");
  for (int64_t bound : getBounds())
    if (bound <= 0)
      return emitOpError("loop bounds must be positive, got ") << bound;
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
