#ifndef STRATA_DIALECT_UTILS_LOOPBOX_H
#define STRATA_DIALECT_UTILS_LOOPBOX_H

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OpImplementation.h"

namespace strata {

/// Parses the iteration box of a loop-like op, `(%i, %j) in [1000, 37]`:
/// index-typed region arguments and a `bounds` attribute.
mlir::ParseResult
parseLoopBox(mlir::OpAsmParser &parser, mlir::OperationState &result,
             llvm::SmallVectorImpl<mlir::OpAsmParser::Argument> &ivs);

/// Prints ` (%i, %j) in [1000, 37]`.
void printLoopBox(mlir::OpAsmPrinter &p, mlir::Block::BlockArgListType ivs,
                  llvm::ArrayRef<int64_t> bounds);

/// Checks one index argument per bound and positive bounds.
mlir::LogicalResult verifyLoopBox(mlir::Operation *op, mlir::Block &body,
                                  llvm::ArrayRef<int64_t> bounds);

/// Adds a block with one index argument per bound to `region`.
mlir::Block *addLoopBoxBlock(mlir::OpBuilder &b, mlir::Region &region,
                             size_t numBounds, mlir::Location loc);

/// The row-major position (an i64) of the point `ivs` in the box
/// `[0, bounds)`: an arg-reduction's position, built at `b`.
mlir::Value buildBoxPosition(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::ValueRange ivs,
                             llvm::ArrayRef<int64_t> bounds);

/// Splits `linear` (an index) into coordinates of a row-major box of
/// `sizes`, built at `b`; a size of one gives the constant 0.
llvm::SmallVector<mlir::Value> delinearize(mlir::OpBuilder &b,
                                           mlir::Location loc,
                                           mlir::Value linear,
                                           llvm::ArrayRef<int64_t> sizes);

/// Clones the ops of `body` except its terminator at the builder, with the
/// block's arguments mapped to `arguments` on top of `mapping`. Returns the
/// mapping, in which the terminator's operands can be looked up.
mlir::IRMapping cloneLoopBody(mlir::OpBuilder &b, mlir::Block &body,
                              mlir::ValueRange arguments,
                              mlir::IRMapping mapping = {});

/// Parses a parallel loop, `(%i, %j) in [1000, 37] attr-dict { ... }`, whose
/// body ends with `LoopOp`'s implicit terminator.
template <typename LoopOp>
mlir::ParseResult parseParallelLoop(mlir::OpAsmParser &parser,
                                    mlir::OperationState &result) {
  llvm::SmallVector<mlir::OpAsmParser::Argument> ivs;
  if (parseLoopBox(parser, result, ivs) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return mlir::failure();
  mlir::Region *body = result.addRegion();
  if (parser.parseRegion(*body, ivs))
    return mlir::failure();
  LoopOp::ensureTerminator(*body, parser.getBuilder(), result.location);
  return mlir::success();
}

/// Prints a parallel loop with a `bounds` attribute and one body region.
void printParallelLoop(mlir::OpAsmPrinter &p, mlir::Operation *op,
                       llvm::ArrayRef<int64_t> bounds);

/// Checks a parallel loop: its box, and a terminator that yields nothing.
mlir::LogicalResult verifyParallelLoop(mlir::Operation *op,
                                       llvm::ArrayRef<int64_t> bounds);

} // namespace strata

#endif // STRATA_DIALECT_UTILS_LOOPBOX_H
