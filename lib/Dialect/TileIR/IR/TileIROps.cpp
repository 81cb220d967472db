#include "strata/Dialect/TileIR/IR/TileIR.h"
#include "strata/Dialect/Utils/VerifyUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace strata;
using namespace strata::tileir;

#define GET_OP_CLASSES
#include "strata/Dialect/TileIR/IR/TileIROps.cpp.inc"

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

/// CUDA's limit on the threads of one block.
static constexpr int64_t kMaxThreadsPerBlock = 1024;

LogicalResult KernelOp::verify() {
  if (failed(verifyKernelBuffers(*this, getInputs().getTypes(),
                                 getResults().getTypes(), getBody().front())))
    return failure();
  ArrayRef<int64_t> domain = getDomain(), tile = getTile();
  if (domain.empty())
    return emitOpError("domain must have at least one dimension");
  if (tile.size() != domain.size())
    return emitOpError("tile has ")
           << tile.size() << " sizes but the domain has " << domain.size()
           << " dimensions";
  int64_t elements = 1;
  for (auto [d, t] : llvm::zip(domain, tile)) {
    if (d <= 0)
      return emitOpError("domain sizes must be positive, got ") << d;
    if (t <= 0)
      return emitOpError("tile sizes must be positive, got ") << t;
    elements *= t;
  }
  WalkResult written = walk([&](Operation *op) {
    Value buffer;
    if (auto store = dyn_cast<StoreOp>(op))
      buffer = store.getMemref();
    else if (op->getName().getStringRef() == "loopir.store")
      buffer = op->getOperand(1);
    if (buffer && llvm::is_contained(getInputBuffers(), buffer)) {
      op->emitOpError("writes an input buffer of its kernel; a kernel only "
                      "writes its result buffers");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (written.wasInterrupted())
    return failure();
  int64_t threads = getThreads();
  if (threads <= 0 || threads > kMaxThreadsPerBlock)
    return emitOpError("threads must be in [1, ")
           << kMaxThreadsPerBlock << "], got " << threads;
  if (elements % threads != 0)
    return emitOpError("tile of ")
           << elements << " elements cannot be divided evenly among "
           << threads << " threads";
  return success();
}

SmallVector<int64_t> KernelOp::getGrid() {
  SmallVector<int64_t> grid;
  for (auto [d, t] : llvm::zip(getDomain(), getTile()))
    grid.push_back((d + t - 1) / t);
  return grid;
}

TileType KernelOp::getTileType(Type elementType) {
  return TileType::get(getContext(), getTile(), elementType);
}

//===----------------------------------------------------------------------===//
// ProgramIdOp
//===----------------------------------------------------------------------===//

LogicalResult ProgramIdOp::verify() {
  auto kernel = (*this)->getParentOfType<KernelOp>();
  int64_t rank = kernel.getDomain().size();
  if ((int64_t)getDim() >= rank)
    return emitOpError("dimension ")
           << getDim() << " is outside the kernel's " << rank
           << "-dimensional domain";
  return success();
}

//===----------------------------------------------------------------------===//
// LoadOp / StoreOp
//===----------------------------------------------------------------------===//

/// Tile accesses address the enclosing kernel's domain with one origin index
/// per domain dimension, and move tiles of the kernel's tile shape.
static LogicalResult verifyTileAccess(Operation *op, TileType tile,
                                      MemRefType buffer, ValueRange origin,
                                      std::optional<AffineMap> map) {
  auto kernel = op->getParentOfType<KernelOp>();
  if (!kernel)
    return op->emitOpError("must be inside a tileir.kernel");
  if (origin.size() != kernel.getDomain().size())
    return op->emitOpError("expects ")
           << kernel.getDomain().size()
           << " origin indices (one per domain dimension), got "
           << origin.size();
  if (tile.getShape() != kernel.getTile())
    return op->emitOpError("tile shape does not match the kernel's tile");
  if (tile.getElementType() != buffer.getElementType())
    return op->emitOpError("tile element type ")
           << tile.getElementType() << " differs from buffer element type "
           << buffer.getElementType();
  return verifyIndexMap(op, map, origin.size(), buffer);
}

AffineMap LoadOp::getIndexMap() {
  return getIndexMapOrIdentity(getMap(), getOrigin().size(), getContext());
}

LogicalResult LoadOp::verify() {
  return verifyTileAccess(*this, getResult().getType(), getMemref().getType(),
                          getOrigin(), getMap());
}

AffineMap StoreOp::getIndexMap() {
  return getIndexMapOrIdentity(getMap(), getOrigin().size(), getContext());
}

LogicalResult StoreOp::verify() {
  return verifyTileAccess(*this, getValue().getType(), getMemref().getType(),
                          getOrigin(), getMap());
}

//===----------------------------------------------------------------------===//
// MapOp
//===----------------------------------------------------------------------===//

LogicalResult MapOp::verify() {
  if (getResults().empty())
    return emitOpError("expects at least one result");
  ArrayRef<int64_t> shape =
      cast<TileType>(getResults().front().getType()).getShape();
  auto sameShape = [&](Type t) {
    return cast<TileType>(t).getShape() == shape;
  };
  if (!llvm::all_of(getInputs().getTypes(), sameShape) ||
      !llvm::all_of(getResults().getTypes(), sameShape))
    return emitOpError("expects all tiles to have the same shape");
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("expects one block argument per input tile");
  for (auto [arg, input] : llvm::zip(body.getArguments(), getInputs()))
    if (arg.getType() != cast<TileType>(input.getType()).getElementType())
      return emitOpError("block argument type ")
             << arg.getType() << " differs from the input's element type";
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError("body must end with tileir.yield");
  if (yield.getValues().size() != getResults().size())
    return emitOpError("body yields ")
           << yield.getValues().size() << " values for "
           << getResults().size() << " results";
  for (auto [v, r] : llvm::zip(yield.getValues(), getResults()))
    if (v.getType() != cast<TileType>(r.getType()).getElementType())
      return emitOpError("yielded type ")
             << v.getType() << " differs from the result's element type";
  return success();
}

//===----------------------------------------------------------------------===//
// ForEachPointOp
//===----------------------------------------------------------------------===//

// tileir.for_each_point [%o0, %o1] (%i, %j) attr-dict { ... }
ParseResult ForEachPointOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand> origin;
  SmallVector<OpAsmParser::Argument> points;
  Type index = parser.getBuilder().getIndexType();
  if (parser.parseOperandList(origin, OpAsmParser::Delimiter::Square) ||
      parser.resolveOperands(origin, index, result.operands) ||
      parser.parseArgumentList(points, OpAsmParser::Delimiter::Paren) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  for (auto &p : points)
    p.type = index;
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, points))
    return failure();
  ForEachPointOp::ensureTerminator(*body, parser.getBuilder(),
                                   result.location);
  return success();
}

void ForEachPointOp::print(OpAsmPrinter &p) {
  p << " [" << getOrigin() << "] (";
  llvm::interleaveComma(getBody().getArguments(), p,
                        [&](BlockArgument a) { p.printOperand(a); });
  p << ")";
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs());
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
}

LogicalResult ForEachPointOp::verify() {
  auto kernel = (*this)->getParentOfType<KernelOp>();
  size_t rank = kernel.getDomain().size();
  if (getOrigin().size() != rank || getBody().getNumArguments() != rank)
    return emitOpError("expects one origin index and one point coordinate "
                       "per domain dimension (")
           << rank << ")";
  for (BlockArgument a : getBody().getArguments())
    if (!a.getType().isIndex())
      return emitOpError("point coordinates must have index type");
  return success();
}
