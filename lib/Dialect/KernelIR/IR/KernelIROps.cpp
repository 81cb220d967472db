#include "strata/Dialect/KernelIR/IR/KernelIR.h"
#include "strata/Dialect/Utils/ElementStorage.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/Utils/MMAUtils.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionImplementation.h"

using namespace mlir;
using namespace strata;
using namespace strata::kernelir;

static ParseResult parseAccessTypes(OpAsmParser &parser, Type &bufferType,
                                    Type &valueType);
static void printAccessTypes(OpAsmPrinter &p, Operation *, Type bufferType,
                             Type valueType);

#define GET_OP_CLASSES
#include "strata/Dialect/KernelIR/IR/KernelIROps.cpp.inc"

//===----------------------------------------------------------------------===//
// FuncOp
//===----------------------------------------------------------------------===//

void FuncOp::build(OpBuilder &b, OperationState &state, StringRef name,
                   TypeRange argTypes, ArrayRef<int64_t> grid,
                   ArrayRef<int64_t> block) {
  state.addAttribute(SymbolTable::getSymbolAttrName(), b.getStringAttr(name));
  state.addAttribute(getFunctionTypeAttrName(state.name),
                     TypeAttr::get(b.getFunctionType(argTypes, {})));
  state.addAttribute(getGridAttrName(state.name),
                     b.getDenseI64ArrayAttr(grid));
  state.addAttribute(getBlockAttrName(state.name),
                     b.getDenseI64ArrayAttr(block));
  Region *body = state.addRegion();
  Block *entry = new Block();
  body->push_back(entry);
  for (Type t : argTypes)
    entry->addArgument(t, state.location);
}

ParseResult FuncOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildType = [](Builder &b, ArrayRef<Type> args, ArrayRef<Type> results,
                      function_interface_impl::VariadicFlag, std::string &) {
    return b.getFunctionType(args, results);
  };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void FuncOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

/// Checks a grid or block shape against CUDA's limits per dimension
/// (`limits`), which also keeps products of the sizes from overflowing.
static LogicalResult verifyLaunchShape(FuncOp op, StringRef what,
                                       ArrayRef<int64_t> sizes,
                                       const int64_t (&limits)[3]) {
  if (sizes.size() != 3)
    return op.emitOpError() << what << " must have 3 sizes (x, y, z), got "
                            << sizes.size();
  for (auto [s, limit, name] : llvm::zip(sizes, limits, StringRef("xyz"))) {
    if (s <= 0)
      return op.emitOpError() << what << " sizes must be positive, got " << s;
    if (s > limit)
      return op.emitOpError()
             << what << " size " << name << " is at most " << limit
             << ", got " << s;
  }
  return success();
}

/// The box and swizzle a TMA copy uses `map` with, if it is one that does.
static std::optional<std::pair<ArrayRef<int64_t>, int64_t>>
tensorMapUse(Operation *user, Value map) {
  if (auto load = dyn_cast<TmaLoadOp>(user); load && load.getSource() == map)
    return std::make_pair(load.getBox(), (int64_t)load.getSwizzle());
  if (auto store = dyn_cast<TmaStoreOp>(user); store && store.getDest() == map)
    return std::make_pair(store.getBox(), (int64_t)store.getSwizzle());
  return std::nullopt;
}

/// A tensor-map argument: used by TMA copies alone, with one box and
/// swizzle (the map's).
static LogicalResult verifyTensorMap(FuncOp kernel, BlockArgument map) {
  std::optional<std::pair<ArrayRef<int64_t>, int64_t>> first;
  for (Operation *user : map.getUsers()) {
    auto use = tensorMapUse(user, map);
    if (!use)
      return kernel.emitOpError("tensor map argument #")
             << map.getArgNumber()
             << " is used by kernelir.tma_load and tma_store alone, got a "
                "use by "
             << user->getName();
    if (!first)
      first = use;
    else if (*use != *first)
      return kernel.emitOpError("tensor map argument #")
             << map.getArgNumber()
             << " is copied with one box and swizzle, got two";
  }
  return success();
}

LogicalResult FuncOp::verify() {
  if (!getFunctionType().getResults().empty())
    return emitOpError("a kernel returns no values");
  if (getBody().empty())
    return emitOpError("a kernel must have a body");
  if (getBody().getArgumentTypes() != getFunctionType().getInputs())
    return emitOpError("entry block arguments do not match the signature");
  if (failed(verifyLaunchShape(*this, "grid", getGrid(), kMaxGridSize)) ||
      failed(verifyLaunchShape(*this, "block", getBlock(), kMaxBlockSize)))
    return failure();
  if (getNumThreadsPerBlock() > kMaxThreadsPerBlock)
    return emitOpError("a block has at most ")
           << kMaxThreadsPerBlock << " threads, got "
           << getNumThreadsPerBlock();
  for (BlockArgument arg : getArguments())
    if (getArgAttr(arg.getArgNumber(), kTensorMapAttrName) &&
        failed(verifyTensorMap(*this, arg)))
      return failure();
  int64_t sharedBytes = getSharedLayout().second;
  if (sharedBytes > kMaxSharedMemoryBytes)
    return emitOpError("a block has at most ")
           << kMaxSharedMemoryBytes << " bytes of shared memory, got "
           << sharedBytes;
  if (std::optional<int64_t> tiles = getWaveTiles()) {
    if (getGrid()[0] > *tiles || getGrid()[1] != 1 || getGrid()[2] != 1)
      return emitOpError("a wave of at most wave_tiles = ")
             << *tiles << " blocks needs a grid of at most that many along x "
             << "and 1 along y and z";
    if (*tiles > kMaxGridSize[0])
      return emitOpError("wave_tiles is at most ")
             << kMaxGridSize[0] << " (a grid's x), got " << *tiles;
  }
  if (std::optional<int64_t> blocks = getMinBlocksPerSm()) {
    if (*blocks < 1)
      return emitOpError("min_blocks_per_sm must be positive, got ") << *blocks;
    if (*blocks * getNumThreadsPerBlock() > kMaxThreadsPerSM)
      return emitOpError("min_blocks_per_sm = ")
             << *blocks << " blocks of " << getNumThreadsPerBlock()
             << " threads exceed an SM's " << kMaxThreadsPerSM;
    if (*blocks * (sharedBytes + kSharedBytesReservedPerBlock) >
        kSharedBytesPerSM)
      return emitOpError("min_blocks_per_sm = ")
             << *blocks << " blocks of " << sharedBytes
             << " bytes of shared memory (and 1 KiB each reserved) exceed "
                "an SM's "
             << kSharedBytesPerSM;
  }
  return success();
}

std::pair<SmallVector<int64_t>, int64_t> FuncOp::getSharedLayout() {
  SmallVector<int64_t> offsets;
  int64_t total = 0;
  if (getBody().empty())
    return {offsets, total};
  // An overlay starts where its base does and adds no bytes.
  DenseMap<Value, int64_t> offsetOf;
  for (auto buffer : getBody().front().getOps<SharedOp>()) {
    if (Value base = buffer.getBase()) {
      offsets.push_back(offsetOf.lookup(base));
      continue;
    }
    total = llvm::alignTo(total, buffer.getAlignment());
    offsets.push_back(total);
    offsetOf[buffer.getBuffer()] = total;
    total += buffer.getBytes();
  }
  if (!offsets.empty())
    total += getSharedAlignment() - kSharedAlignment;
  return {offsets, total};
}

bool FuncOp::usesDynamicSharedMemory() {
  if (getBody().empty())
    return false;
  auto buffers = getBody().front().getOps<SharedOp>();
  return getSharedLayout().second > kStaticSharedMemoryBytes ||
         llvm::any_of(buffers, [](SharedOp b) { return b.getBase(); });
}

int64_t FuncOp::getSharedAlignment() {
  int64_t alignment = kSharedAlignment;
  if (!getBody().empty())
    for (auto buffer : getBody().front().getOps<SharedOp>())
      alignment = std::max(alignment, buffer.getAlignment());
  return alignment;
}

//===----------------------------------------------------------------------===//
// LaunchOp
//===----------------------------------------------------------------------===//

/// Whether the kernel writes `buffer` (an argument of its kernelir.func),
/// directly or through anything it passes the buffer to: only uses that
/// declare reading it alone count as not writing.
static bool writesBuffer(BlockArgument buffer) {
  return llvm::any_of(buffer.getUsers(), [&](Operation *user) {
    return !kernelir::onlyReads(user, buffer);
  });
}

bool kernelir::onlyReads(Operation *user, Value buffer) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(user);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> onBuffer;
  effects.getEffectsOnValue(buffer, onBuffer);
  return !onBuffer.empty() &&
         llvm::all_of(onBuffer, [](MemoryEffects::EffectInstance &e) {
           return isa<MemoryEffects::Read>(e.getEffect());
         });
}

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto kernel =
      symbolTable.lookupNearestSymbolFrom<FuncOp>(*this, getKernelAttr());
  if (!kernel)
    return emitOpError("'") << getKernel()
                            << "' does not name a kernelir.func";
  if (TypeRange(getArgs().getTypes()) !=
      TypeRange(kernel.getFunctionType().getInputs()))
    return emitOpError("argument types do not match the signature of '")
           << getKernel() << "'";
  // A buffer passed to a noalias argument and to another one must be only
  // read by the kernel.
  for (auto [i, buffer] : llvm::enumerate(getArgs()))
    for (unsigned j = i + 1, e = getArgs().size(); j < e; ++j) {
      bool marked = kernel.getArgAttr(i, kNoAliasAttrName) ||
                    kernel.getArgAttr(j, kNoAliasAttrName);
      if (getArgs()[j] != buffer || !marked)
        continue;
      if (writesBuffer(kernel.getArgument(i)) ||
          writesBuffer(kernel.getArgument(j)))
        return emitOpError("passes one buffer to arguments ")
               << i << " and " << j << " of '" << getKernel()
               << "', which writes it through one of them though they are "
                  "marked "
               << kNoAliasAttrName;
    }
  return success();
}

//===----------------------------------------------------------------------===//
// LoadOp / StoreOp
//===----------------------------------------------------------------------===//

/// `: memref<...>`, then `-> vector<n x T>` for a vector access (nothing
/// for an access of one element).
static ParseResult parseAccessTypes(OpAsmParser &parser, Type &bufferType,
                                    Type &valueType) {
  MemRefType buffer;
  if (parser.parseColon() || parser.parseType(buffer))
    return failure();
  bufferType = buffer;
  if (succeeded(parser.parseOptionalArrow()))
    return parser.parseType(valueType);
  valueType = buffer.getElementType();
  return success();
}

static void printAccessTypes(OpAsmPrinter &p, Operation *, Type bufferType,
                             Type valueType) {
  p << ": " << bufferType;
  if (isa<VectorType>(valueType))
    p << " -> " << valueType;
}

/// The widest access a GPU thread makes in one instruction.
static constexpr int64_t kMaxAccessBits = 128;

static LogicalResult verifyAccess(Operation *op, MemRefType buffer,
                                  size_t numIndices, Type value) {
  if ((int64_t)numIndices != buffer.getRank())
    return op->emitOpError("expects ")
           << buffer.getRank() << " indices, got " << numIndices;
  Type element = buffer.getElementType();
  auto vector = dyn_cast<VectorType>(value);
  if (!vector) {
    if (value != element)
      return op->emitOpError("accesses ")
             << value << " in a buffer of " << element;
    return success();
  }
  if (vector.getRank() != 1 || vector.isScalable() ||
      vector.getElementType() != element)
    return op->emitOpError("a vector access takes a fixed 1-D vector of the "
                           "buffer's element type, got ")
           << vector;
  int64_t width = vector.getNumElements();
  if (!element.isIntOrFloat() || !llvm::isPowerOf2_64(width) || width < 2 ||
      width * strata::getStorageBits(element) > kMaxAccessBits)
    return op->emitOpError("a vector access has 2, 4, ... elements and at "
                           "most ")
           << kMaxAccessBits << " bits, got " << vector;
  if (buffer.getRank() == 0 || !buffer.getLayout().isIdentity() ||
      buffer.getShape().back() % width != 0)
    return op->emitOpError("a vector of ")
           << width << " elements needs a row-major buffer whose innermost "
           << "dimension is a multiple of " << width << ", got " << buffer;
  return success();
}

static int64_t accessWidth(Type value) {
  auto vector = dyn_cast<VectorType>(value);
  return vector ? vector.getNumElements() : 1;
}

LogicalResult LoadOp::verify() {
  return verifyAccess(*this, getMemref().getType(), getIndices().size(),
                      getType());
}

int64_t LoadOp::getWidth() { return accessWidth(getType()); }

LogicalResult StoreOp::verify() {
  return verifyAccess(*this, getMemref().getType(), getIndices().size(),
                      getValue().getType());
}

int64_t StoreOp::getWidth() { return accessWidth(getValue().getType()); }

//===----------------------------------------------------------------------===//
// SharedOp
//===----------------------------------------------------------------------===//

/// Whether `type` lives in shared memory.
static bool isWorkgroup(MemRefType type) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

LogicalResult SharedOp::verify() {
  if (!isWorkgroup(getBuffer().getType()))
    return emitOpError("a shared buffer lives in "
                       "#gpu.address_space<workgroup>");
  if (!getBuffer().getType().getLayout().isIdentity())
    return emitOpError("a shared buffer has the identity layout");
  if (!getBase())
    return success();
  auto base = getBase().getDefiningOp<SharedOp>();
  if (!base || base->getBlock() != (*this)->getBlock())
    return emitOpError("overlays the result of a kernelir.shared of its "
                       "kernel");
  if (base.getBase())
    return emitOpError("overlays a buffer that overlays another: overlay ")
           << "the first";
  if (getBytes() > base.getBytes())
    return emitOpError("of ")
           << getBytes() << " bytes overlays a buffer of " << base.getBytes();
  return success();
}

int64_t SharedOp::getBytes() {
  MemRefType type = getBuffer().getType();
  return type.getNumElements() *
         llvm::divideCeil(type.getElementTypeBitWidth(), 8);
}

SmallVector<SharedOp> kernelir::getOverlays(SharedOp buffer) {
  SmallVector<SharedOp> overlays;
  for (Operation *user : buffer.getBuffer().getUsers())
    if (auto overlay = dyn_cast<SharedOp>(user))
      overlays.push_back(overlay);
  return overlays;
}

int64_t SharedOp::getAlignment() {
  int64_t alignment = kSharedAlignment;
  for (Operation *user : getBuffer().getUsers())
    if (auto overlay = dyn_cast<SharedOp>(user))
      alignment = std::max(alignment, overlay.getAlignment());
    else if (auto copy = dyn_cast<TmaLoadOp>(user);
             copy && copy.getDest() == getBuffer())
      alignment = std::max(alignment, copy.getDestAlignment());
    else if (auto store = dyn_cast<TmaStoreOp>(user))
      alignment = std::max(alignment, store.getSourceAlignment());
    else if (auto mma = dyn_cast<WgmmaOp>(user); mma && mma.getSwizzle())
      alignment = std::max(alignment, (int64_t)(8 * mma.getSwizzle()));
  return alignment;
}

//===----------------------------------------------------------------------===//
// ShuffleOp
//===----------------------------------------------------------------------===//

/// A warp-collective op needs every lane of its warp: blocks of whole warps.
static LogicalResult verifyWholeWarps(Operation *op) {
  auto kernel = op->getParentOfType<FuncOp>();
  if (kernel && kernel.getNumThreadsPerBlock() % kWarpSize != 0)
    return op->emitOpError("needs blocks of whole warps (")
           << kWarpSize << " threads), but the kernel has "
           << kernel.getNumThreadsPerBlock() << " threads per block";
  return success();
}

LogicalResult ShuffleOp::verify() { return verifyWholeWarps(*this); }

OpFoldResult ShuffleOp::fold(FoldAdaptor adaptor) {
  // Every lane offers the same constant, so every lane receives it.
  if (adaptor.getValue())
    return getValue();
  return {};
}

//===----------------------------------------------------------------------===//
// MmaOp
//===----------------------------------------------------------------------===//

LogicalResult MmaOp::verify() {
  Type element = getLhs().getType().getElementType();
  if (getRhs().getType().getElementType() != element)
    return emitOpError("multiplies operands of one type (f16, bf16 or f32), "
                       "got ")
           << element << " and " << getRhs().getType().getElementType();
  if (getLhs().getType() != getMmaFragmentType(MmaOperand::Lhs, element) ||
      getRhs().getType() != getMmaFragmentType(MmaOperand::Rhs, element) ||
      getAcc().getType() != getMmaFragmentType(MmaOperand::Acc, element))
    return emitOpError("takes the fragments of a 16x8x")
           << getMmaK(element)
           << " product: " << getMmaFragmentType(MmaOperand::Lhs, element)
           << ", " << getMmaFragmentType(MmaOperand::Rhs, element) << " and "
           << getMmaFragmentType(MmaOperand::Acc, element);
  return verifyWholeWarps(*this);
}

MmaOperand LdMatrixOp::getOperand() {
  return getType().getDimSize(0) == 4 ? MmaOperand::Lhs : MmaOperand::Rhs;
}

LogicalResult LdMatrixOp::verify() {
  MemRefType buffer = getMemref().getType();
  Type element = getType().getElementType();
  if (!isWorkgroup(buffer))
    return emitOpError("loads from a shared (workgroup) buffer");
  if (buffer.getElementType() != element)
    return emitOpError("loads ") << element << " fragments from a buffer of "
                                 << buffer.getElementType();
  if (buffer.getRank() < 2 || (int64_t)getIndices().size() != buffer.getRank())
    return emitOpError("takes one index per dimension of a buffer of at "
                       "least two");
  if (getType() != getMmaFragmentType(MmaOperand::Lhs, element) &&
      getType() != getMmaFragmentType(MmaOperand::Rhs, element))
    return emitOpError("loads an A fragment (")
           << getMmaFragmentType(MmaOperand::Lhs, element)
           << ") or a B fragment ("
           << getMmaFragmentType(MmaOperand::Rhs, element) << ")";
  if (element.isF32() && (getOperand() != MmaOperand::Lhs || getTranspose()))
    return emitOpError("loads only A fragments of f32 (tf32): 16-bit "
                       "matrices cannot transpose 32-bit elements");
  if (getTranspose() && getOperand() != MmaOperand::Rhs)
    return emitOpError("transposes only B fragments (")
           << getMmaFragmentType(MmaOperand::Rhs, element)
           << "), stored k-major";
  int64_t rowElements = getLdMatrixRowElements(element);
  if (buffer.getShape().back() % rowElements != 0)
    return emitOpError("needs rows of a multiple of ")
           << rowElements << " elements (16 bytes), got "
           << buffer.getShape().back();
  return verifyWholeWarps(*this);
}

//===----------------------------------------------------------------------===//
// WgmmaOp
//===----------------------------------------------------------------------===//

/// The layout a wgmma operand needs: a shared buffer whose last three
/// dimensions are [blocks][rows][w] (`layout`'s row of w elements), with
/// at least `rows` rows, a multiple of 8, and `blocks` blocks, and one
/// index per dimension, naming a block's row that is a multiple of 8,
/// column 0. K-major the rows run along m or n and the blocks along k;
/// MN-major the other way round.
static LogicalResult verifyWgmmaOperand(WgmmaOp op, StringRef which,
                                        MemRefType buffer, ValueRange indices,
                                        WgmmaLayout layout, int64_t rows,
                                        int64_t blocks) {
  if (!isWorkgroup(buffer))
    return op.emitOpError() << which << " must be a shared (workgroup) buffer";
  if (buffer.getRank() < 3 || (int64_t)indices.size() != buffer.getRank())
    return op.emitOpError()
           << which << " takes one index per dimension of a buffer of at "
           << "least three ([blocks][rows][w])";
  ArrayRef<int64_t> shape = buffer.getShape();
  int64_t w = layout.rowBytes * 8 / buffer.getElementTypeBitWidth();
  size_t rank = shape.size();
  StringRef blockKind = layout.mnMajor ? "n" : "k";
  if (shape[rank - 1] != w)
    return op.emitOpError()
           << which << "'s rows must be " << layout.rowBytes << " bytes (" << w
           << " elements), got " << shape[rank - 1];
  if (shape[rank - 2] < rows || shape[rank - 2] % 8 != 0)
    return op.emitOpError()
           << which << " needs at least " << rows
           << " rows, a multiple of 8 (whole core matrices), got "
           << shape[rank - 2];
  if (shape[rank - 3] < blocks)
    return op.emitOpError() << which << " needs " << blocks << " " << blockKind
                            << " blocks for " << blockKind << " = "
                            << (layout.mnMajor ? op.getN() : (int64_t)op.getK())
                            << ", got " << shape[rank - 3];
  // A core matrix starts at a row that is a multiple of 8, column 0.
  std::optional<int64_t> row = getConstantIntValue(indices[rank - 2]);
  std::optional<int64_t> column = getConstantIntValue(indices[rank - 1]);
  if ((row && *row % 8 != 0) || (column && *column != 0))
    return op.emitOpError() << which
                            << " must start at a core matrix: a row that is a "
                               "multiple of 8, column 0";
  return success();
}

/// An op a whole warpgroup executes together needs blocks of whole
/// warpgroups.
static LogicalResult verifyWholeWarpgroups(Operation *op) {
  auto kernel = op->getParentOfType<FuncOp>();
  if (kernel && kernel.getNumThreadsPerBlock() % kWarpgroupSize != 0)
    return op->emitOpError("needs blocks of whole warpgroups (")
           << kWarpgroupSize << " threads), but the kernel has "
           << kernel.getNumThreadsPerBlock() << " threads per block";
  return success();
}

/// An accumulator an async wgmma group may still write is read by nothing
/// but the group's successors: another async wgmma (its accumulator), a
/// wgmma_wait, or the yield that carries it round a loop.
static LogicalResult verifyInFlightUses(Operation *op, Value inFlight) {
  for (OpOperand &use : inFlight.getUses()) {
    Operation *user = use.getOwner();
    auto wgmma = dyn_cast<WgmmaOp>(user);
    if ((wgmma && wgmma.getAsync() && &use == &wgmma.getAccMutable()) ||
        isa<WgmmaWaitOp, RegionBranchTerminatorOpInterface>(user))
      continue;
    return op->emitOpError("result is in flight until a kernelir.wgmma_wait "
                           "retires its group, but ")
           << user->getName() << " reads it";
  }
  return success();
}

LogicalResult WgmmaOp::verify() {
  Type element = getLhs().getType().getElementType();
  if (!element.isF16() && !element.isBF16())
    return emitOpError("multiplies f16 or bf16 operands, got ") << element;
  if (getRhs().getType().getElementType() != element)
    return emitOpError("multiplies operands of one type, got ")
           << element << " and " << getRhs().getType().getElementType();
  ArrayRef<int64_t> acc = getAcc().getType().getShape();
  if (acc[1] != 2 || acc[2] != 2 || getN() > kWgmmaMaxN)
    return emitOpError("takes a vector<Jx2x2xf32> accumulator, N = 8 J at "
                       "most ")
           << kWgmmaMaxN << ", got " << getAcc().getType();
  if (getK() % kWgmmaK != 0)
    return emitOpError("needs k a multiple of ")
           << kWgmmaK << ", got " << getK();
  if (!isSwizzle(getSwizzle()))
    return emitOpError("swizzles 32, 64 or 128 bytes, got ") << getSwizzle();
  // Elements of a row of an operand's buffer.
  auto width = [&](WgmmaLayout layout) {
    return layout.rowBytes * 8 / element.getIntOrFloatBitWidth();
  };
  WgmmaLayout lhs = getLhsLayout(), rhs = getRhsLayout();
  int64_t k = getK();
  if (failed(verifyWgmmaOperand(*this, "lhs", getLhs().getType(),
                                getLhsIndices(), lhs, kWgmmaM,
                                llvm::divideCeil(k, width(lhs)))))
    return failure();
  if (getRhsMnMajor() && !getSwizzle())
    return emitOpError("reads an MN-major rhs swizzled alone");
  if (getRhsMnMajor() && getN() % width(rhs) != 0)
    return emitOpError("needs N a multiple of the MN-major rhs's row (")
           << width(rhs) << " elements), got " << getN();
  // K-major: N rows, k blocks; MN-major: k rows, N blocks.
  int64_t rhsRows = getRhsMnMajor() ? k : getN();
  int64_t rhsBlocks =
      getRhsMnMajor() ? getN() / width(rhs) : llvm::divideCeil(k, width(rhs));
  if (failed(verifyWgmmaOperand(*this, "rhs", getRhs().getType(),
                                getRhsIndices(), rhs, rhsRows, rhsBlocks)))
    return failure();
  if (getAsync() && failed(verifyInFlightUses(*this, getResult())))
    return failure();
  return verifyWholeWarpgroups(*this);
}

LogicalResult WgmmaWaitOp::verify() {
  if (getPending() > 0)
    for (Value result : getResults())
      if (failed(verifyInFlightUses(*this, result)))
        return failure();
  return verifyWholeWarpgroups(*this);
}

WgmmaLayout strata::kernelir::getWgmmaLayout(MemRefType buffer, int64_t swizzle,
                                             bool mnMajor) {
  ArrayRef<int64_t> shape = buffer.getShape();
  int64_t rowBytes = swizzle ? swizzle : 16;
  return {rowBytes, shape[shape.size() - 2] * rowBytes, 8 * rowBytes, swizzle,
          mnMajor};
}

int64_t WgmmaLayout::getDescriptorBits() const {
  return ((getDescriptorLeading() >> 4) << 16) | ((stride >> 4) << 32) |
         (int64_t)((uint64_t)getDescriptorMode() << 62);
}

int64_t strata::kernelir::getLdMatrixRowElements(Type element) {
  return 128 / element.getIntOrFloatBitWidth();
}

int64_t strata::kernelir::getMmaK(Type operandElement) {
  // 256 bits of k per row of A: 16 halves or 8 tf32.
  return 256 / operandElement.getIntOrFloatBitWidth();
}

VectorType strata::kernelir::getMmaFragmentType(MmaOperand operand,
                                                Type operandElement) {
  int64_t perRegister = 32 / operandElement.getIntOrFloatBitWidth();
  switch (operand) {
  case MmaOperand::Lhs:
    return VectorType::get({4, perRegister}, operandElement);
  case MmaOperand::Rhs:
    return VectorType::get({2, perRegister}, operandElement);
  case MmaOperand::Acc:
    break;
  }
  return VectorType::get({2, 2}, Float32Type::get(operandElement.getContext()));
}

AffineMap strata::kernelir::getMmaFragmentMap(MLIRContext *ctx,
                                              MmaOperand operand,
                                              Type operandElement) {
  // bf16 fragments have the f16 layout (both are 16-bit elements in 32-bit
  // registers). nvgpu describes B as n x k (column-major k x n); ours is
  // k x n.
  Type f32 = Float32Type::get(ctx);
  int64_t k = getMmaK(operandElement);
  // nvgpu tells 16-bit layouts by f16 and 32-bit ones by f32.
  Type element = operandElement.getIntOrFloatBitWidth() == 16
                     ? Type(Float16Type::get(ctx))
                     : f32;
  nvgpu::WarpMatrixInfo info;
  switch (operand) {
  case MmaOperand::Lhs:
    info = {VectorType::get({kMmaM, k}, element), nvgpu::MatMulOperandRole::A};
    break;
  case MmaOperand::Rhs:
    info = {VectorType::get({kMmaN, k}, element), nvgpu::MatMulOperandRole::B};
    break;
  case MmaOperand::Acc:
    info = {VectorType::get({kMmaM, kMmaN}, f32), nvgpu::MatMulOperandRole::C};
    break;
  }
  OpBuilder b(ctx);
  FailureOr<AffineMap> map =
      nvgpu::getLaneIdAndValueIdToOperandCoord(b, UnknownLoc::get(ctx), info);
  assert(succeeded(map) && "nvgpu knows the m16n8k16 and m16n8k8 fragments");
  if (operand != MmaOperand::Rhs)
    return *map;
  return AffineMap::get(2, 0, {map->getResult(1), map->getResult(0)}, ctx);
}

//===----------------------------------------------------------------------===//
// SetMaxRegistersOp
//===----------------------------------------------------------------------===//

LogicalResult SetMaxRegistersOp::verify() {
  int64_t count = getCount();
  if (count < 24 || count > 256 || count % 8 != 0)
    return emitOpError("sets a multiple of 8 registers from 24 to 256, got ")
           << count;
  return verifyWholeWarpgroups(*this);
}

//===----------------------------------------------------------------------===//
// AsyncCopyOp
//===----------------------------------------------------------------------===//

/// The bytes of `elements` elements of `source` (0 for elements of no
/// width).
static int64_t copiedBytes(MemRefType source, int64_t elements) {
  Type element = source.getElementType();
  if (!element.isIntOrFloat())
    return 0;
  return elements * strata::getStorageBits(element) / 8;
}

/// What every copy from global into shared memory (cp.async, the bulk
/// copy) verifies: indices, one element type, the buffers' memories.
static LogicalResult verifyGlobalToShared(Operation *op, MemRefType source,
                                          ValueRange sourceIndices,
                                          MemRefType dest,
                                          ValueRange destIndices) {
  if ((int64_t)sourceIndices.size() != source.getRank() ||
      (int64_t)destIndices.size() != dest.getRank())
    return op->emitOpError("expects one index per dimension of each buffer");
  if (source.getElementType() != dest.getElementType())
    return op->emitOpError("copies between buffers of one element type, got ")
           << source.getElementType() << " and " << dest.getElementType();
  if (!isWorkgroup(dest) || isWorkgroup(source))
    return op->emitOpError("copies from global memory into a shared buffer");
  return success();
}

int64_t AsyncCopyOp::getBytes() {
  return copiedBytes(getSource().getType(), getElements());
}

LogicalResult AsyncCopyOp::verify() {
  MemRefType source = getSource().getType(), dest = getDest().getType();
  if (failed(verifyGlobalToShared(*this, source, getSourceIndices(), dest,
                                  getDestIndices())))
    return failure();
  int64_t bytes = getBytes(), elements = getElements();
  if (elements < 1 || (bytes != 4 && bytes != 8 && bytes != 16) ||
      bytes * 8 != elements * strata::getStorageBits(source.getElementType()))
    return emitOpError("copies 4, 8 or 16 bytes, got ")
           << elements << " x " << source.getElementType();
  for (MemRefType buffer : {source, dest})
    if (buffer.getRank() == 0 || !buffer.getLayout().isIdentity() ||
        buffer.getShape().back() % elements != 0)
      return emitOpError("a copy of ")
             << elements << " elements needs row-major buffers whose "
             << "innermost dimension is a multiple of " << elements << ", got "
             << buffer;
  return success();
}

//===----------------------------------------------------------------------===//
// mbarriers and bulk copies
//===----------------------------------------------------------------------===//

/// PTX's bound on an mbarrier's arrival count and on its transaction
/// count: 2^20 - 1.
static constexpr int64_t kMaxMBarrierCount = (1 << 20) - 1;

/// An mbarrier is an i64 element of a shared buffer, named by one index per
/// dimension.
static LogicalResult verifyMBarrier(Operation *op, MemRefType barriers,
                                    ValueRange indices) {
  if (!isWorkgroup(barriers) || !barriers.getElementType().isInteger(64))
    return op->emitOpError("expects its mbarriers in a shared (workgroup) "
                           "buffer of i64, got ")
           << barriers;
  if ((int64_t)indices.size() != barriers.getRank())
    return op->emitOpError(
        "expects one index per dimension of the mbarrier buffer");
  return success();
}

LogicalResult MBarrierInitOp::verify() {
  if (getArrivals() < 1 || getArrivals() > kMaxMBarrierCount)
    return emitOpError("expects between 1 and ")
           << kMaxMBarrierCount << " arrivals, got " << getArrivals();
  return verifyMBarrier(*this, getBarriers().getType(), getIndices());
}

LogicalResult MBarrierArriveOp::verify() {
  std::optional<int64_t> bytes = getExpectTx();
  if (bytes && (*bytes < 1 || *bytes > kMaxMBarrierCount))
    return emitOpError("expects between 1 and ")
           << kMaxMBarrierCount << " transaction bytes, got " << *bytes;
  return verifyMBarrier(*this, getBarriers().getType(), getIndices());
}

LogicalResult MBarrierWaitOp::verify() {
  return verifyMBarrier(*this, getBarriers().getType(), getIndices());
}

/// What the copy engine moves (bulk copies, TMA): whole bytes from global
/// into shared memory.
static LogicalResult verifyCopyEngineTransfer(Operation *op, MemRefType source,
                                              ValueRange sourceIndices,
                                              MemRefType dest,
                                              ValueRange destIndices) {
  if (failed(verifyGlobalToShared(op, source, sourceIndices, dest,
                                  destIndices)))
    return failure();
  Type element = source.getElementType();
  if (!element.isIntOrFloat() || strata::getStorageBits(element) % 8 != 0)
    return op->emitOpError("copies whole bytes, got ") << element;
  return success();
}

int64_t BulkCopyOp::getBytes() {
  return copiedBytes(getSource().getType(), getElements());
}

LogicalResult BulkCopyOp::verify() {
  MemRefType source = getSource().getType(), dest = getDest().getType();
  if (failed(verifyCopyEngineTransfer(*this, source, getSourceIndices(), dest,
                                      getDestIndices())))
    return failure();
  Type element = source.getElementType();
  int64_t bytes = getBytes(), elementBytes = bytes / getElements();
  if (getElements() < 1 || bytes % 16 != 0 || bytes > kMaxMBarrierCount)
    return emitOpError("copies a positive multiple of 16 bytes up to ")
           << kMaxMBarrierCount << ", got " << getElements() << " x "
           << element;
  for (MemRefType buffer : {source, dest})
    if (buffer.getRank() == 0 || !buffer.getLayout().isIdentity() ||
        buffer.getShape().back() * elementBytes % 16 != 0 ||
        buffer.getShape().back() < (int64_t)getElements())
      return emitOpError("a bulk copy of ")
             << getElements() << " elements needs row-major buffers whose "
             << "rows are a multiple of 16 bytes and at least that long, got "
             << buffer;
  return verifyMBarrier(*this, getBarriers().getType(), getBarrierIndices());
}

//===----------------------------------------------------------------------===//
// TmaLoadOp and the swizzles
//===----------------------------------------------------------------------===//

bool strata::kernelir::hasTensorMapStrides(MemRefType tensor) {
  if (tensor.getRank() < 2)
    return true;
  int64_t rowBits =
      tensor.getShape().back() * getStorageBits(tensor.getElementType());
  return rowBits % 128 == 0;
}

bool strata::kernelir::isSwizzle(int64_t swizzleBytes) {
  return swizzleBytes == 0 || swizzleBytes == 32 || swizzleBytes == 64 ||
         swizzleBytes == 128;
}

int64_t strata::kernelir::getSwizzleMask(int64_t swizzleBytes) {
  return swizzleBytes == 0 ? 0 : (swizzleBytes / 16 - 1) << 4;
}

ArrayRef<int64_t> strata::kernelir::getTmaBoxInShared(ArrayRef<int64_t> box) {
  while (box.size() > 1 && box.front() == 1)
    box = box.drop_front();
  return box;
}

SmallVector<int64_t> strata::kernelir::getTmaTensorShape(MemRefType source,
                                                         size_t rank) {
  ArrayRef<int64_t> shape = source.getShape();
  size_t folded = shape.size() - rank + 1;
  SmallVector<int64_t> result{computeProduct(shape.take_front(folded))};
  llvm::append_range(result, shape.drop_front(folded));
  return result;
}

SmallVector<int64_t> strata::kernelir::getTensorMapShape(Value map,
                                                         size_t rank) {
  auto tensor = cast<MemRefType>(map.getType());
  auto arg = dyn_cast<BlockArgument>(map);
  auto kernel =
      arg ? dyn_cast<FuncOp>(arg.getOwner()->getParentOp()) : FuncOp();
  if (kernel)
    if (auto view = kernel.getArgAttrOfType<DenseI64ArrayAttr>(
            arg.getArgNumber(), kTensorMapAttrName))
      return SmallVector<int64_t>(view.asArrayRef());
  return getTmaTensorShape(tensor, rank);
}

ArrayRef<int64_t> TmaLoadOp::getBox() {
  if (std::optional<ArrayRef<int64_t>> box = getBoxShape())
    return *box;
  return getDest().getType().getShape().take_back(
      getSource().getType().getRank());
}

int64_t TmaLoadOp::getBytes() {
  return copiedBytes(getSource().getType(),
                     ShapedType::getNumElements(getBox()));
}

/// The alignment of a shared TMA box: a swizzle period (8 x swizzle
/// bytes), or 128 bytes unswizzled.
static int64_t tmaBoxAlignment(int64_t swizzle) {
  return swizzle == 0 ? 128 : 8 * swizzle;
}

int64_t TmaLoadOp::getDestAlignment() { return tmaBoxAlignment(getSwizzle()); }

/// A TMA copy of `box` between the tensor `global` (a tensor-map
/// argument; of the box's rank, or seen so: getTmaTensorShape), from
/// `globalIndices` on, and the trailing dimensions of the shared buffer
/// `shared` (their indices 0), swizzled by `swizzle`: TMA's limits, and
/// the map's argument.
static LogicalResult verifyTmaBox(Operation *op, ArrayRef<int64_t> box,
                                  bool boxGiven, Value global,
                                  ValueRange globalIndices, Value shared,
                                  ValueRange sharedIndices, int64_t swizzle) {
  auto tensor = cast<MemRefType>(global.getType());
  auto buffer = cast<MemRefType>(shared.getType());
  auto map = dyn_cast<BlockArgument>(global);
  auto kernel = op->getParentOfType<FuncOp>();
  if (!map || !kernel || map.getOwner() != &kernel.getBody().front() ||
      !kernel.getArgAttr(map.getArgNumber(), kTensorMapAttrName))
    return op->emitOpError("copies through a kernel argument marked {")
           << kTensorMapAttrName << "}";
  bool viewed = (bool)kernel.getArgAttrOfType<DenseI64ArrayAttr>(
      map.getArgNumber(), kTensorMapAttrName);
  if (!boxGiven && buffer.getRank() < tensor.getRank())
    return op->emitOpError("copies a box of the tensor's rank, in more "
                           "dimensions than ")
           << buffer << " has: a box with leading 1s, or of lower rank, is "
           << "given by `box`";
  if (globalIndices.size() != box.size() ||
      (int64_t)sharedIndices.size() != buffer.getRank())
    return op->emitOpError("expects one index per dimension of the box (of "
                           "the global tensor) and of the shared buffer");
  SmallVector<int64_t> shape = getTensorMapShape(global, box.size());
  if (viewed ? box.size() != shape.size()
             : (int64_t)box.size() > tensor.getRank())
    return op->emitOpError("copies a box of at most the tensor's rank (of "
                           "its tensor map's view's, given), got ")
           << box.size() << " dimensions for " << tensor;
  Type element = tensor.getElementType();
  if (buffer.getElementType() != element)
    return op->emitOpError("copies between buffers of one element type, got ")
           << element << " and " << buffer.getElementType();
  if (!isWorkgroup(buffer) || isWorkgroup(tensor))
    return op->emitOpError(
        "copies between a global tensor and a shared buffer");
  if (!element.isIntOrFloat() || strata::getStorageBits(element) % 8 != 0)
    return op->emitOpError("copies whole bytes, got ") << element;
  int64_t rank = box.size(), elementBytes = getStorageBits(element) / 8;
  if (rank < 1 || rank > kTmaMaxRank)
    return op->emitOpError("copies boxes of rank 1 to ")
           << kTmaMaxRank << ", got " << rank << " of " << tensor;
  for (MemRefType type : {tensor, buffer})
    if (!type.getLayout().isIdentity())
      return op->emitOpError("needs row-major buffers, got ") << type;
  if (!hasTensorMapStrides(MemRefType::get(shape, element)))
    return op->emitOpError("needs a tensor whose rows are a multiple of 16 "
                           "bytes (a tensor map's strides), got ")
           << tensor;
  // The box lands as one dense run of the shared buffer: its dimensions
  // there are the buffer's trailing ones, the first perhaps fewer (rows
  // of a chunk, from a constant index that keeps the run whole swizzle
  // periods from the chunk's start).
  ArrayRef<int64_t> inShared = getTmaBoxInShared(box);
  ArrayRef<int64_t> trailing = buffer.getShape().take_back(
      std::min<size_t>(inShared.size(), buffer.getRank()));
  if (trailing.size() != inShared.size() ||
      trailing.drop_front() != inShared.drop_front() ||
      trailing.front() < inShared.front())
    return op->emitOpError("copies a box whose extents after its leading 1s "
                           "are the shared buffer's trailing ones (the first "
                           "perhaps fewer), got a box of [")
           << box << "] in " << buffer;
  if (llvm::any_of(box,
                   [](int64_t e) { return e < 1 || e > kTmaMaxBoxExtent; }))
    return op->emitOpError("copies boxes of 1 to ")
           << kTmaMaxBoxExtent << " per dimension, got a box of " << box;
  int64_t rowBytes = box.back() * elementBytes;
  if (!isSwizzle(swizzle))
    return op->emitOpError("swizzles 32, 64 or 128 bytes, got ") << swizzle;
  if (rowBytes % 16 != 0 || (swizzle != 0 && rowBytes > swizzle))
    return op->emitOpError("needs box rows of a multiple of 16 bytes")
           << (swizzle ? " up to the swizzle's " + std::to_string(swizzle)
                       : std::string())
           << ", got " << rowBytes;
  int64_t bytes = ShapedType::getNumElements(box) * elementBytes;
  int64_t alignment = tmaBoxAlignment(swizzle);
  if (bytes % alignment != 0 || bytes > kMaxMBarrierCount)
    return op->emitOpError("copies whole swizzle periods (a multiple of ")
           << alignment << " bytes) up to " << kMaxMBarrierCount
           << " bytes, got a box of " << bytes;
  ValueRange boxIndices = sharedIndices.take_back(inShared.size());
  for (Value index : boxIndices.drop_front())
    if (!matchPattern(index, m_Zero()))
      return op->emitOpError("copies whole rows: the indices of the box's "
                             "dimensions in the shared buffer but its first "
                             "are 0");
  APInt first;
  int64_t runBytes =
      ShapedType::getNumElements(inShared.drop_front()) * elementBytes;
  if (!matchPattern(boxIndices.front(), m_ConstantInt(&first)) ||
      first.getSExtValue() < 0 ||
      first.getSExtValue() + inShared.front() > trailing.front() ||
      first.getSExtValue() * runBytes % alignment != 0)
    return op->emitOpError("places a box at a constant index of its first "
                           "dimension in the shared buffer, inside it and "
                           "whole swizzle periods (")
           << alignment << " bytes) from its start";
  return success();
}

LogicalResult TmaLoadOp::verify() {
  if (failed(verifyTmaBox(*this, getBox(), getBoxShape().has_value(),
                          getSource(), getSourceIndices(), getDest(),
                          getDestIndices(), getSwizzle())))
    return failure();
  return verifyMBarrier(*this, getBarriers().getType(), getBarrierIndices());
}

ArrayRef<int64_t> TmaStoreOp::getBox() {
  if (std::optional<ArrayRef<int64_t>> box = getBoxShape())
    return *box;
  return getSource().getType().getShape().take_back(
      getDest().getType().getRank());
}

int64_t TmaStoreOp::getSourceAlignment() {
  return tmaBoxAlignment(getSwizzle());
}

LogicalResult TmaStoreOp::verify() {
  return verifyTmaBox(*this, getBox(), getBoxShape().has_value(), getDest(),
                      getDestIndices(), getSource(), getSourceIndices(),
                      getSwizzle());
}

//===----------------------------------------------------------------------===//
// TargetInstructionOpInterface: where each instruction first exists
//===----------------------------------------------------------------------===//

// mma.sync m16n8k16 (f16, bf16) and m16n8k8 (tf32): sm_80.
int64_t MmaOp::getMinComputeCapability() { return 80; }
// ldmatrix: sm_75.
int64_t LdMatrixOp::getMinComputeCapability() { return 75; }
// wgmma.mma_async: sm_90a, and no other target.
int64_t WgmmaOp::getMinComputeCapability() { return 90; }
bool WgmmaOp::needsArchSpecificTarget() { return true; }
// setmaxnreg: sm_90a, and no other target.
int64_t SetMaxRegistersOp::getMinComputeCapability() { return 90; }
bool SetMaxRegistersOp::needsArchSpecificTarget() { return true; }
// wgmma.wait_group: sm_90a, as wgmma.
int64_t WgmmaWaitOp::getMinComputeCapability() { return 90; }
bool WgmmaWaitOp::needsArchSpecificTarget() { return true; }
// fence.proxy.async: sm_90.
int64_t ProxyFenceOp::getMinComputeCapability() { return 90; }
// cp.async and its groups: sm_80.
int64_t AsyncCopyOp::getMinComputeCapability() { return 80; }
int64_t AsyncCommitOp::getMinComputeCapability() { return 80; }
int64_t AsyncWaitOp::getMinComputeCapability() { return 80; }
// mbarrier.init and mbarrier.arrive: sm_80; with expect_tx, try_wait.parity
// and cp.async.bulk: sm_90.
int64_t MBarrierInitOp::getMinComputeCapability() { return 80; }
int64_t MBarrierArriveOp::getMinComputeCapability() {
  return getExpectTx() ? 90 : 80;
}
int64_t MBarrierWaitOp::getMinComputeCapability() { return 90; }
int64_t BulkCopyOp::getMinComputeCapability() { return 90; }
// cp.async.bulk.tensor and its bulk async-groups: sm_90.
int64_t TmaLoadOp::getMinComputeCapability() { return 90; }
int64_t TmaStoreOp::getMinComputeCapability() { return 90; }
int64_t BulkCommitOp::getMinComputeCapability() { return 90; }
int64_t BulkWaitOp::getMinComputeCapability() { return 90; }
