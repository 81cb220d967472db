#include "strata/Dialect/TileIR/IR/TileIR.h"
#include "strata/Dialect/Utils/LoopBox.h"
#include "strata/Dialect/Utils/ScheduleModel.h"
#include "strata/Dialect/Utils/VerifyUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace strata;
using namespace strata::tileir;

#define GET_OP_CLASSES
#include "strata/Dialect/TileIR/IR/TileIROps.cpp.inc"

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

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
    if (llvm::MulOverflow(elements, t, elements))
      return emitOpError("tile has more elements than an index holds");
  }
  // The order groups rows of the grid's last two dimensions.
  if (getRasterGroup() && domain.size() < 2)
    return emitOpError("raster_group orders the tiles of the last two "
                       "domain dimensions; this domain has one");
  // A row program's setup reads its program ids (tileir-persist's loop
  // over tiles surrounds a tile program's body only).
  if (getWave() && !getInstances())
    return emitOpError("wave refines a persistent kernel's instances; it "
                       "needs instances");
  if (getInstances() && isCooperative())
    return emitOpError("instances makes a tile program persistent; a kernel "
                       "with tileir.fold or tileir.distribute takes one "
                       "tile per instance");
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
  if (isCooperative()) {
    // The threads split into one group per point of the tile.
    if (threads % elements != 0)
      return emitOpError("the ")
             << threads << " threads of a kernel with tileir.fold or "
             << "tileir.distribute split into one group per point of its "
             << "tile, which has " << elements << " points";
    for (Operation &op : getBody().front())
      if (isa<LoadOp, StoreOp, MapOp, ForEachPointOp, ContractOp>(op))
        return op.emitOpError("cannot share a cooperative kernel with "
                              "tileir.fold or tileir.distribute");
    return success();
  }
  if (elements % threads != 0)
    return emitOpError("tile of ")
           << elements << " elements cannot be divided evenly among "
           << threads << " threads";
  return success();
}

std::optional<std::pair<Block *, ArrayRef<int64_t>>>
strata::tileir::getCooperativeLoop(Operation *op) {
  if (auto fold = dyn_cast<FoldOp>(op))
    return std::make_pair(&fold.getBody().front(), fold.getBounds());
  if (auto fold = dyn_cast<CompositeFoldOp>(op))
    return std::make_pair(&fold.getBody().front(), fold.getBounds());
  if (auto scan = dyn_cast<ScanOp>(op))
    return std::make_pair(&scan.getBody().front(), scan.getBounds());
  if (auto scan = dyn_cast<CompositeScanOp>(op))
    return std::make_pair(&scan.getBody().front(), scan.getBounds());
  if (auto loop = dyn_cast<DistributeOp>(op))
    return std::make_pair(&loop.getBody().front(), loop.getBounds());
  return std::nullopt;
}

bool KernelOp::isCooperative() {
  return llvm::any_of(getBody().front(), [](Operation &op) {
    return getCooperativeLoop(&op).has_value();
  });
}

ProgramKind KernelOp::getProgramKind() {
  Block &body = getBody().front();
  if (isCooperative())
    return ProgramKind::Row;
  if (llvm::any_of(body, llvm::IsaPred<ContractOp>))
    return ProgramKind::Contraction;
  if (llvm::any_of(body, llvm::IsaPred<ForEachPointOp>))
    return ProgramKind::Generic;
  return ProgramKind::Elementwise;
}

SmallVector<int64_t> KernelOp::getGrid() {
  SmallVector<int64_t> grid;
  for (auto [d, t] : llvm::zip(getDomain(), getTile()))
    grid.push_back((d + t - 1) / t);
  return grid;
}

int64_t KernelOp::getNumTiles() {
  // Saturated: a grid of more tiles than an index holds has too many.
  int64_t tiles = 1;
  for (int64_t g : getGrid())
    if (llvm::MulOverflow(tiles, g, tiles))
      return std::numeric_limits<int64_t>::max();
  return tiles;
}

int64_t KernelOp::getNumInstances() {
  int64_t tiles = getNumTiles();
  std::optional<uint64_t> instances = getInstances();
  return instances ? std::min<int64_t>(*instances, tiles) : tiles;
}

TileType KernelOp::getTileType(Type elementType) {
  return TileType::get(getContext(), getTile(), elementType);
}

//===----------------------------------------------------------------------===//
// ProgramIdOp / TileOffsetOp / PointOp
//===----------------------------------------------------------------------===//

/// Checks that `op`'s `dim` names a dimension of its kernel's domain.
static LogicalResult verifyDomainDim(Operation *op, int64_t dim) {
  auto kernel = op->getParentOfType<KernelOp>();
  int64_t rank = kernel.getDomain().size();
  if (dim >= rank)
    return op->emitOpError("dimension ") << dim << " is outside the kernel's "
                                         << rank << "-dimensional domain";
  return success();
}

LogicalResult ProgramIdOp::verify() { return verifyDomainDim(*this, getDim()); }

LogicalResult TileOffsetOp::verify() {
  return verifyDomainDim(*this, getDim());
}

LogicalResult PointOp::verify() {
  if (!(*this)->getParentOfType<KernelOp>().isCooperative())
    return emitOpError("names the point of a thread group, which only a "
                       "kernel with tileir.fold or tileir.distribute has");
  return verifyDomainDim(*this, getDim());
}

LogicalResult CoordinateOp::verify() {
  auto kernel = (*this)->getParentOfType<KernelOp>();
  TileType type = getResult().getType();
  if (type.getShape() != kernel.getTile())
    return emitOpError("tile shape does not match the kernel's tile");
  if (!type.getElementType().isIndex())
    return emitOpError("coordinates are indices, got a tile of ")
           << type.getElementType();
  return verifyDomainDim(*this, getDim());
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

std::string strata::tileir::getKernelBaseName(KernelOp kernel) {
  auto host = kernel->getParentOfType<FunctionOpInterface>();
  return (host ? host.getName().str() : std::string("strata")) + "_kernel";
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

//===----------------------------------------------------------------------===//
// FoldOp
//===----------------------------------------------------------------------===//

MonoidKind FoldOp::getMonoidKind(Combiner combiner) {
  switch (combiner) {
  case Combiner::add:
    return MonoidKind::Add;
  case Combiner::mul:
    return MonoidKind::Mul;
  case Combiner::max:
    return MonoidKind::Max;
  case Combiner::min:
    return MonoidKind::Min;
  }
  llvm_unreachable("unknown combiner");
}

TypedAttr FoldOp::getIdentity(Combiner combiner, Type type) {
  return getMonoidIdentity(getMonoidKind(combiner), type);
}

/// Adds the attributes of a fold or scan over `bounds` with one monoid of
/// each combiner and type (the combiner's identity) to `state`.
static void addMonoidLoopAttributes(OpBuilder &b, OperationState &state,
                                    ArrayRef<Combiner> combiners,
                                    TypeRange types, ArrayRef<int64_t> bounds) {
  SmallVector<Attribute> combinerAttrs, identities;
  for (auto [c, t] : llvm::zip(combiners, types)) {
    combinerAttrs.push_back(CombinerAttr::get(b.getContext(), c));
    identities.push_back(FoldOp::getIdentity(c, t));
  }
  state.addAttribute("combiners", b.getArrayAttr(combinerAttrs));
  state.addAttribute("identities", b.getArrayAttr(identities));
  state.addAttribute("bounds", b.getDenseI64ArrayAttr(bounds));
}

void FoldOp::build(OpBuilder &b, OperationState &state,
                   ArrayRef<Combiner> combiners, TypeRange types,
                   ArrayRef<int64_t> bounds) {
  addMonoidLoopAttributes(b, state, combiners, types, bounds);
  state.addTypes(types);
  addLoopBoxBlock(b, *state.addRegion(), bounds.size(), state.location);
}

/// Parses `add(0.0 : f32), max(0xFF800000 : f32)`: the monoids of a fold
/// or scan, each a combiner and its identity (typed: the identity's type is
/// what the monoid folds).
static ParseResult parseMonoids(OpAsmParser &parser,
                                SmallVectorImpl<Attribute> &combiners,
                                SmallVectorImpl<Attribute> &identities,
                                SmallVectorImpl<Type> &types) {
  do {
    StringRef keyword;
    SMLoc loc = parser.getCurrentLocation();
    Attribute identity;
    if (parser.parseKeyword(&keyword))
      return failure();
    std::optional<Combiner> combiner = symbolizeCombiner(keyword);
    if (!combiner)
      return parser.emitError(loc, "unknown or non-associative combiner '")
             << keyword << "' (expected add, mul, max or min)";
    if (parser.parseLParen() || parser.parseAttribute(identity) ||
        parser.parseRParen())
      return failure();
    auto typed = dyn_cast<TypedAttr>(identity);
    if (!typed)
      return parser.emitError(loc, "the identity must be a typed scalar");
    combiners.push_back(CombinerAttr::get(parser.getContext(), *combiner));
    identities.push_back(identity);
    types.push_back(typed.getType());
  } while (succeeded(parser.parseOptionalComma()));
  return success();
}

static void printMonoids(OpAsmPrinter &p, ArrayRef<Combiner> combiners,
                         ArrayAttr identities) {
  p << " ";
  llvm::interleaveComma(llvm::zip(combiners, identities), p, [&](auto monoid) {
    p << stringifyCombiner(std::get<0>(monoid)) << "(";
    // Printed with its type: the type is what the monoid folds.
    p.printAttribute(std::get<1>(monoid));
    p << ")";
  });
}

static SmallVector<Combiner> combinerList(ArrayAttr attrs) {
  SmallVector<Combiner> list;
  for (Attribute a : attrs)
    list.push_back(cast<CombinerAttr>(a).getValue());
  return list;
}

/// Checks the monoids of a fold or scan that folds `types` and whose body
/// ends in `terminator`: one identity per combiner, the combiner's own,
/// and one contribution of each type.
static LogicalResult verifyMonoids(Operation *op, ArrayAttr combinerAttrs,
                                   ArrayAttr identities, TypeRange types,
                                   Operation *terminator) {
  SmallVector<Combiner> combiners = combinerList(combinerAttrs);
  if (combiners.empty())
    return op->emitOpError("expects at least one monoid");
  if (identities.size() != combiners.size() || types.size() != combiners.size())
    return op->emitOpError("expects one identity and one result per combiner");
  auto yield = dyn_cast<YieldOp>(terminator);
  if (!yield || yield.getValues().size() != combiners.size())
    return op->emitOpError("body must yield one contribution per monoid");
  for (auto [i, c] : llvm::enumerate(combiners)) {
    Type type = types[i];
    if (yield.getValues()[i].getType() != type)
      return op->emitOpError("contribution #")
             << i << " has type " << yield.getValues()[i].getType()
             << " but its monoid folds " << type;
    auto identity = dyn_cast<TypedAttr>(identities[i]);
    if (!identity || identity.getType() != type)
      return op->emitOpError("identity #") << i << " must have type " << type;
    if (identity != FoldOp::getIdentity(c, type))
      return op->emitOpError("identity #")
             << i << " of " << stringifyCombiner(c) << " must be "
             << FoldOp::getIdentity(c, type) << ", got " << identity;
  }
  return success();
}

// tileir.fold add(0.0 : f32), max(0xFF800000 : f32) (%k) in [70] { ... }
ParseResult FoldOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<Attribute> combiners, identities;
  SmallVector<Type> types;
  if (parseMonoids(parser, combiners, identities, types))
    return failure();
  result.addTypes(types);
  Builder &b = parser.getBuilder();
  result.addAttribute("combiners", b.getArrayAttr(combiners));
  result.addAttribute("identities", b.getArrayAttr(identities));
  SmallVector<OpAsmParser::Argument> ivs;
  if (parseLoopBox(parser, result, ivs) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  return parser.parseRegion(*result.addRegion(), ivs);
}

SmallVector<Combiner> FoldOp::getCombinerList() {
  return combinerList(getCombiners());
}

/// Prints a fold or scan up to its body: ` add(0.0 : f32) (%k) in [70]
/// attr-dict { ... }`.
template <typename OpTy> static void printMonoidLoop(OpAsmPrinter &p, OpTy op) {
  printMonoids(p, op.getCombinerList(), op.getIdentities());
  printLoopBox(p, op.getInductionVars(), op.getBounds());
  p.printOptionalAttrDictWithKeyword(op->getAttrs(),
                                     {"bounds", "combiners", "identities"});
  p << " ";
  p.printRegion(op.getBody(), /*printEntryBlockArgs=*/false);
}

void FoldOp::print(OpAsmPrinter &p) { printMonoidLoop(p, *this); }

LogicalResult FoldOp::verify() {
  if (failed(verifyLoopBox(*this, getBody().front(), getBounds())))
    return failure();
  return verifyMonoids(*this, getCombiners(), getIdentities(), getResultTypes(),
                       getBody().front().getTerminator());
}

//===----------------------------------------------------------------------===//
// ScanOp
//===----------------------------------------------------------------------===//

/// A scan's each region: the point's index, then one prefix of each type.
static void addEachRegion(OpBuilder &b, OperationState &state,
                          TypeRange types) {
  auto *each = new Block();
  state.addRegion()->push_back(each);
  each->addArgument(b.getIndexType(), state.location);
  for (Type t : types)
    each->addArgument(t, state.location);
}

/// The types of a monoid's components: its identities'.
static SmallVector<Type> identityTypes(ArrayAttr identities) {
  SmallVector<Type> types;
  for (Attribute a : identities)
    types.push_back(cast<TypedAttr>(a).getType());
  return types;
}

/// A scan's each region takes the point's index and one prefix of each of
/// `types`, and ends in a tileir.yield of nothing.
static LogicalResult verifyEachRegion(Operation *op, Block &each,
                                      TypeRange types) {
  if (each.getNumArguments() != types.size() + 1 ||
      !each.getArgument(0).getType().isIndex() ||
      TypeRange(each.getArguments().drop_front()) != types)
    return op->emitOpError("the each region takes the point's index and one "
                           "prefix per monoid component (")
           << types.size() << ")";
  auto yield = dyn_cast<YieldOp>(each.getTerminator());
  if (!yield || !yield.getValues().empty())
    return op->emitOpError("the each region must end in a tileir.yield of no "
                           "values");
  return success();
}

void ScanOp::build(OpBuilder &b, OperationState &state,
                   ArrayRef<Combiner> combiners, TypeRange types,
                   int64_t bound) {
  addMonoidLoopAttributes(b, state, combiners, types, {bound});
  addLoopBoxBlock(b, *state.addRegion(), 1, state.location);
  addEachRegion(b, state, types);
}

SmallVector<Combiner> ScanOp::getCombinerList() {
  return combinerList(getCombiners());
}

SmallVector<Type> ScanOp::getPrefixTypes() {
  return identityTypes(getIdentities());
}

// tileir.scan add(0.0 : f32) (%j) in [70] { ... } each { ^bb0(...): ... }
ParseResult ScanOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<Attribute> combiners, identities;
  SmallVector<Type> types;
  if (parseMonoids(parser, combiners, identities, types))
    return failure();
  Builder &b = parser.getBuilder();
  result.addAttribute("combiners", b.getArrayAttr(combiners));
  result.addAttribute("identities", b.getArrayAttr(identities));
  SmallVector<OpAsmParser::Argument> ivs;
  return failure(parseLoopBox(parser, result, ivs) ||
                 parser.parseOptionalAttrDictWithKeyword(result.attributes) ||
                 parser.parseRegion(*result.addRegion(), ivs) ||
                 parser.parseKeyword("each") ||
                 parser.parseRegion(*result.addRegion()));
}

void ScanOp::print(OpAsmPrinter &p) {
  printMonoidLoop(p, *this);
  p << " each ";
  p.printRegion(getEach());
}

/// A scan's one dimension and its body's point index.
static LogicalResult verifyScanBox(Operation *op, Block &body,
                                   ArrayRef<int64_t> bounds) {
  if (bounds.size() != 1)
    return op->emitOpError("scans one dimension, got ")
           << bounds.size() << " bounds";
  return verifyLoopBox(op, body, bounds);
}

LogicalResult ScanOp::verify() {
  if (failed(verifyScanBox(*this, getBody().front(), getBounds())))
    return failure();
  SmallVector<Type> types = getPrefixTypes();
  if (failed(verifyMonoids(*this, getCombiners(), getIdentities(), types,
                           getBody().front().getTerminator())))
    return failure();
  return verifyEachRegion(*this, getEach().front(), types);
}

//===----------------------------------------------------------------------===//
// CompositeFoldOp
//===----------------------------------------------------------------------===//

// tileir.composite_fold (%k) in [70] identity(-inf : f32, 0.0 : f32)
//     { body } combine { ^bb0(...): ... }
/// Parses `(%k) in [70] identity(-inf : f32, 0.0 : f32) {attrs} { body }
/// combine { ... }`, the common part of a composite fold and scan; the
/// identities' types are the monoid's.
static ParseResult parseCompositeMonoidLoop(OpAsmParser &parser,
                                            OperationState &result,
                                            SmallVectorImpl<Type> &types) {
  SmallVector<OpAsmParser::Argument> ivs;
  SmallVector<Attribute> identities;
  if (parseLoopBox(parser, result, ivs) || parser.parseKeyword("identity") ||
      parser.parseLParen())
    return failure();
  do {
    SMLoc loc = parser.getCurrentLocation();
    Attribute identity;
    if (parser.parseAttribute(identity))
      return failure();
    auto typed = dyn_cast<TypedAttr>(identity);
    if (!typed)
      return parser.emitError(loc, "the identity must be typed scalars");
    identities.push_back(identity);
    types.push_back(typed.getType());
  } while (succeeded(parser.parseOptionalComma()));
  result.addAttribute("identities",
                      parser.getBuilder().getArrayAttr(identities));
  return failure(parser.parseRParen() ||
                 parser.parseOptionalAttrDictWithKeyword(result.attributes) ||
                 parser.parseRegion(*result.addRegion(), ivs) ||
                 parser.parseKeyword("combine") ||
                 parser.parseRegion(*result.addRegion()));
}

template <typename OpTy>
static void printCompositeMonoidLoop(OpAsmPrinter &p, OpTy op) {
  printLoopBox(p, op.getInductionVars(), op.getBounds());
  p << " identity(";
  llvm::interleaveComma(op.getIdentities(), p,
                        [&](Attribute a) { p.printAttribute(a); });
  p << ")";
  p.printOptionalAttrDictWithKeyword(op->getAttrs(), {"bounds", "identities"});
  p << " ";
  p.printRegion(op.getBody(), /*printEntryBlockArgs=*/false);
  p << " combine ";
  p.printRegion(op.getCombine());
}

ParseResult CompositeFoldOp::parse(OpAsmParser &parser,
                                   OperationState &result) {
  SmallVector<Type> types;
  if (parseCompositeMonoidLoop(parser, result, types))
    return failure();
  result.addTypes(types);
  return success();
}

void CompositeFoldOp::print(OpAsmPrinter &p) {
  printCompositeMonoidLoop(p, *this);
}

namespace {
/// The combine region `block` evaluated on constants by folding its ops,
/// or nothing where an op does not fold.
std::optional<SmallVector<Attribute>>
foldCombine(Block &block, ArrayRef<Attribute> a, ArrayRef<Attribute> b) {
  DenseMap<Value, Attribute> known;
  for (auto [arg, value] :
       llvm::zip(block.getArguments(), llvm::concat<const Attribute>(a, b)))
    known[arg] = value;
  for (Operation &inner : block.without_terminator()) {
    SmallVector<Attribute> operands;
    for (Value v : inner.getOperands()) {
      Attribute value = known.lookup(v);
      if (!value) // A constant from outside the region (hoisted there).
        matchPattern(v, m_Constant(&value));
      operands.push_back(value);
    }
    SmallVector<OpFoldResult> folded;
    if (inner.getNumResults() != 1 ||
        failed(inner.fold(operands, folded)) || folded.size() != 1)
      return std::nullopt;
    Attribute value = dyn_cast<Attribute>(folded[0]);
    if (!value) {
      value = known.lookup(cast<Value>(folded[0]));
      if (!value)
        return std::nullopt;
    }
    known[inner.getResult(0)] = value;
  }
  SmallVector<Attribute> results;
  for (Value v : block.getTerminator()->getOperands()) {
    results.push_back(known.lookup(v));
    if (!results.back())
      return std::nullopt;
  }
  return results;
}

/// A few elements of a monoid of `types` to try the identity on.
SmallVector<SmallVector<Attribute>> sampleElements(TypeRange types) {
  SmallVector<SmallVector<Attribute>> samples;
  for (double x : {-2.5, 0.75, 3.0}) {
    SmallVector<Attribute> element;
    for (auto [i, type] : llvm::enumerate(types)) {
      double v = x + (double)i;
      if (auto f = dyn_cast<FloatType>(type))
        element.push_back(FloatAttr::get(f, v));
      else
        element.push_back(IntegerAttr::get(type, (int64_t)v));
    }
    samples.push_back(element);
  }
  return samples;
}
} // namespace

/// The attributes and the body and combine regions of a composite fold or
/// scan over `bounds` with `identities`; returns the monoid's types.
static SmallVector<Type> addCompositeMonoidLoop(OpBuilder &b,
                                                OperationState &state,
                                                ArrayRef<TypedAttr> identities,
                                                ArrayRef<int64_t> bounds) {
  SmallVector<Attribute> attrs(identities.begin(), identities.end());
  SmallVector<Type> types;
  for (TypedAttr identity : identities)
    types.push_back(identity.getType());
  state.addAttribute("identities", b.getArrayAttr(attrs));
  state.addAttribute("bounds", b.getDenseI64ArrayAttr(bounds));
  addLoopBoxBlock(b, *state.addRegion(), bounds.size(), state.location);
  SmallVector<Type> pair(types);
  llvm::append_range(pair, types);
  OpBuilder::InsertionGuard guard(b);
  b.createBlock(state.addRegion(), {}, pair,
                SmallVector<Location>(pair.size(), state.location));
  return types;
}

/// The identities, body and combine region of a composite monoid of
/// `types`: one identity of each type, a body yielding one contribution, a
/// combine region of pure scalar code from two elements to one, and an
/// identity neutral on both sides wherever the region folds to constants.
static LogicalResult verifyCompositeMonoid(Operation *op, ArrayAttr identities,
                                           TypeRange types, Block &body,
                                           Block &combine) {
  if (types.empty())
    return op->emitOpError("expects a monoid of at least one component");
  if (identities.size() != types.size())
    return op->emitOpError("expects one identity per component");
  SmallVector<Attribute> identity(identities.getValue());
  for (auto [i, type] : llvm::enumerate(types)) {
    auto typed = dyn_cast<TypedAttr>(identity[i]);
    if (!typed || typed.getType() != type)
      return op->emitOpError("identity #") << i << " must have type " << type;
  }
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield || yield.getValues().getTypes() != types)
    return op->emitOpError("body must yield one contribution of the monoid's "
                           "types ")
           << types;
  SmallVector<Type> pair(types);
  llvm::append_range(pair, types);
  if (combine.getArgumentTypes() != TypeRange(pair))
    return op->emitOpError("combine region must take two elements of the "
                           "monoid, ")
           << TypeRange(pair);
  auto combined = dyn_cast<YieldOp>(combine.getTerminator());
  if (!combined || combined.getValues().getTypes() != types)
    return op->emitOpError("combine region must yield one element of the "
                           "monoid, ")
           << types;
  for (Operation &inner : combine.without_terminator())
    if (inner.getNumRegions() != 0 || !isPure(&inner))
      return inner.emitOpError("in a combine region must be pure scalar code");
  // The identity must be neutral on both sides: checked where the region
  // folds to constants (arith and math on constant operands).
  for (ArrayRef<Attribute> x : sampleElements(types))
    for (bool left : {true, false}) {
      std::optional<SmallVector<Attribute>> result =
          left ? foldCombine(combine, identity, x)
               : foldCombine(combine, x, identity);
      if (result && ArrayRef<Attribute>(*result) != x)
        return op->emitOpError("identity is not neutral: combining it ")
               << (left ? "before " : "after ") << "an element changes it";
    }
  return success();
}

void CompositeFoldOp::build(OpBuilder &b, OperationState &state,
                            ArrayRef<TypedAttr> identities,
                            ArrayRef<int64_t> bounds) {
  state.addTypes(addCompositeMonoidLoop(b, state, identities, bounds));
}

LogicalResult CompositeFoldOp::verify() {
  if (failed(verifyLoopBox(*this, getBody().front(), getBounds())))
    return failure();
  return verifyCompositeMonoid(*this, getIdentities(), getResultTypes(),
                               getBody().front(), getCombine().front());
}

//===----------------------------------------------------------------------===//
// CompositeScanOp
//===----------------------------------------------------------------------===//

void CompositeScanOp::build(OpBuilder &b, OperationState &state,
                            ArrayRef<TypedAttr> identities, int64_t bound) {
  addEachRegion(b, state,
                addCompositeMonoidLoop(b, state, identities, {bound}));
}

SmallVector<Type> CompositeScanOp::getPrefixTypes() {
  return identityTypes(getIdentities());
}

// tileir.composite_scan (%j) in [70] identity(-inf : f32, 0.0 : f32)
//     { body } combine { ^bb0(...): ... } each { ^bb0(...): ... }
ParseResult CompositeScanOp::parse(OpAsmParser &parser,
                                   OperationState &result) {
  SmallVector<Type> types;
  return failure(parseCompositeMonoidLoop(parser, result, types) ||
                 parser.parseKeyword("each") ||
                 parser.parseRegion(*result.addRegion()));
}

void CompositeScanOp::print(OpAsmPrinter &p) {
  printCompositeMonoidLoop(p, *this);
  p << " each ";
  p.printRegion(getEach());
}

LogicalResult CompositeScanOp::verify() {
  if (failed(verifyScanBox(*this, getBody().front(), getBounds())))
    return failure();
  for (Attribute a : getIdentities())
    if (!isa<TypedAttr>(a))
      return emitOpError("the identity must be typed scalars");
  SmallVector<Type> types = getPrefixTypes();
  if (failed(verifyCompositeMonoid(*this, getIdentities(), types,
                                   getBody().front(), getCombine().front())))
    return failure();
  return verifyEachRegion(*this, getEach().front(), types);
}

//===----------------------------------------------------------------------===//
// DistributeOp
//===----------------------------------------------------------------------===//

void DistributeOp::build(OpBuilder &b, OperationState &state,
                         ArrayRef<int64_t> bounds) {
  state.addAttribute(getBoundsAttrName(state.name),
                     b.getDenseI64ArrayAttr(bounds));
  Block *block =
      addLoopBoxBlock(b, *state.addRegion(), bounds.size(), state.location);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(block);
  YieldOp::create(b, state.location);
}

// tileir.distribute (%j) in [70] attr-dict { ... }
ParseResult DistributeOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseParallelLoop<DistributeOp>(parser, result);
}

void DistributeOp::print(OpAsmPrinter &p) {
  printParallelLoop(p, *this, getBounds());
}

LogicalResult DistributeOp::verify() {
  return verifyParallelLoop(*this, getBounds());
}

//===----------------------------------------------------------------------===//
// ContractOp
//===----------------------------------------------------------------------===//

/// The type (f16 or bf16) of the value `region` (a contract operand) widens
/// to f32 and yields; none otherwise.
static Type widenedHalfType(Region &region) {
  auto widen = region.front()
                   .getTerminator()
                   ->getOperand(0)
                   .getDefiningOp<arith::ExtFOp>();
  if (!widen || widen->getBlock() != &region.front() ||
      !widen.getType().isF32())
    return Type();
  Type narrow = widen.getIn().getType();
  return narrow.isF16() || narrow.isBF16() ? narrow : Type();
}

Type ContractOp::getWidenedHalfType() {
  Type lhs = widenedHalfType(getLhs());
  return lhs && widenedHalfType(getRhs()) == lhs ? lhs : Type();
}

int64_t ContractOp::getStagedElementBytes() {
  Type staged = getWidenedHalfType();
  if (!staged)
    staged = getResult().getType().getElementType();
  return llvm::divideCeil(staged.getIntOrFloatBitWidth(), 8);
}

Type ContractOp::getTensorCoreOperandType(bool tf32) {
  if (!getResult().getType().getElementType().isF32())
    return Type();
  // Halves widened to f32 multiply as halves; f32 operands (a widened half
  // among them is exact in tf32) as tf32 only where asked for.
  if (Type half = getWidenedHalfType())
    return half;
  if (widenedHalfType(getLhs()) || !tf32)
    return Type();
  return Float32Type::get(getContext());
}

LogicalResult ContractOp::verify() {
  auto kernel = (*this)->getParentOfType<KernelOp>();
  size_t rank = kernel.getDomain().size();
  if (rank < 2)
    return emitOpError("contracts a domain of rows and columns: it needs at "
                       "least two dimensions, the kernel has ")
           << rank;
  if (getOrigin().size() != rank)
    return emitOpError("expects one origin index per domain dimension (")
           << rank << ")";
  if (getResult().getType() !=
      kernel.getTileType(getResult().getType().getElementType()))
    return emitOpError("result must be the kernel's tile, ")
           << kernel.getTileType(getResult().getType().getElementType());
  if (getK() <= 0 || getStep() <= 0)
    return emitOpError("k and step must be positive");
  if (getStages() < 1)
    return emitOpError("stages must be positive, got ") << getStages();
  Type element = getResult().getType().getElementType();
  for (Region *operand : {&getLhs(), &getRhs()}) {
    StringRef name = operand == &getLhs() ? "lhs" : "rhs";
    Block &body = operand->front();
    if (body.getNumArguments() != rank ||
        !llvm::all_of(body.getArgumentTypes(),
                      [](Type t) { return t.isIndex(); }))
      return emitOpError("the ")
             << name << " region takes " << rank
             << " indices: the point's coordinates without the "
             << (operand == &getLhs() ? "column" : "row") << ", then k";
    auto yield = dyn_cast<YieldOp>(body.getTerminator());
    if (!yield || yield.getValues().size() != 1 ||
        yield.getValues()[0].getType() != element)
      return emitOpError("the ") << name << " region yields one " << element;
  }
  return success();
}
