// The iteration box shared by Strata's loop-like ops (loopir.parallel,
// loopir.reduce, tileir.fold, tileir.distribute): index arguments over
// [0, bounds).

#include "strata/Dialect/Utils/LoopBox.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

ParseResult strata::parseLoopBox(OpAsmParser &parser, OperationState &result,
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

void strata::printLoopBox(OpAsmPrinter &p, Block::BlockArgListType ivs,
                          ArrayRef<int64_t> bounds) {
  p << " (";
  llvm::interleaveComma(ivs, p, [&](BlockArgument iv) { p.printOperand(iv); });
  p << ") in [";
  llvm::interleaveComma(bounds, p);
  p << "]";
}

LogicalResult strata::verifyLoopBox(Operation *op, Block &body,
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

Block *strata::addLoopBoxBlock(OpBuilder &b, Region &region, size_t numBounds,
                               Location loc) {
  Block *block = new Block();
  region.push_back(block);
  for (size_t i = 0; i < numBounds; ++i)
    block->addArgument(b.getIndexType(), loc);
  return block;
}

Value strata::buildBoxPosition(OpBuilder &b, Location loc, ValueRange ivs,
                               ArrayRef<int64_t> bounds) {
  Value pos = arith::ConstantIndexOp::create(b, loc, 0);
  for (auto [iv, bound] : llvm::zip(ivs, bounds)) {
    Value size = arith::ConstantIndexOp::create(b, loc, bound);
    pos = arith::AddIOp::create(b, loc,
                                arith::MulIOp::create(b, loc, pos, size), iv);
  }
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), pos);
}

IRMapping strata::cloneLoopBody(OpBuilder &b, Block &body,
                                ValueRange arguments, IRMapping mapping) {
  mapping.map(body.getArguments(), arguments);
  for (Operation &op : body.without_terminator())
    b.clone(op, mapping);
  return mapping;
}

void strata::printParallelLoop(OpAsmPrinter &p, Operation *op,
                               ArrayRef<int64_t> bounds) {
  Region &body = op->getRegion(0);
  printLoopBox(p, body.getArguments(), bounds);
  p.printOptionalAttrDictWithKeyword(op->getAttrs(), {"bounds"});
  p << " ";
  p.printRegion(body, /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
}

LogicalResult strata::verifyParallelLoop(Operation *op,
                                         ArrayRef<int64_t> bounds) {
  Block &body = op->getRegion(0).front();
  if (body.empty() || body.back().getNumOperands() != 0)
    return op->emitOpError("body yields no values");
  return verifyLoopBox(op, body, bounds);
}

SmallVector<Value> strata::delinearize(OpBuilder &b, Location loc,
                                       Value linear, ArrayRef<int64_t> sizes) {
  SmallVector<Value> coords(sizes.size());
  Value rest = linear;
  for (int64_t d = sizes.size() - 1; d >= 0; --d) {
    if (sizes[d] == 1) {
      coords[d] = arith::ConstantIndexOp::create(b, loc, 0);
      continue;
    }
    Value size = arith::ConstantIndexOp::create(b, loc, sizes[d]);
    coords[d] = d == 0 ? rest : arith::RemUIOp::create(b, loc, rest, size);
    if (d > 0)
      rest = arith::DivUIOp::create(b, loc, rest, size);
  }
  return coords;
}
