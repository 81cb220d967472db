// Lowers kernelir to the upstream gpu dialect: kernels become gpu.func
// kernels in one gpu.module, launches become gpu.launch_func.

#include "strata/Conversion/KernelIRToGPU/KernelIRToGPU.h"
#include "strata/Conversion/KernelIRCommon/GuardedAccess.h"
#include "strata/Conversion/KernelIRCommon/ThreadIndex.h"
#include "strata/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace strata {
#define GEN_PASS_DEF_CONVERTKERNELIRTOGPUPASS
#define GEN_PASS_DEF_EXTERNDYNAMICSHAREDPASS
#define GEN_PASS_DEF_GRIDCONSTANTTENSORMAPSPASS
#include "strata/Conversion/Passes.h.inc"
} // namespace strata

using namespace mlir;
using namespace strata;

namespace {
/// On a gpu.func whose kernel needs dynamic shared memory: how many bytes
/// (its launches request them, whichever of the two converts first).
constexpr llvm::StringLiteral kDynamicSharedBytes =
    "strata.dynamic_shared_bytes";
/// On the gpu.func of a wave kernel: its estimated grid (its grid is not
/// known: the runtime chooses it).
constexpr llvm::StringLiteral kEstimatedGrid = "strata.estimated_grid";

/// CUDA's CUtensorMap: 128 bytes, aligned to 64.
constexpr unsigned kTensorMapBytes = 128, kTensorMapAlignment = 64;

/// What a launch needs of its kernel: grid, block, dynamic shared bytes
/// (0: none), the tensor maps among its parameters (none: null) and, for
/// a wave kernel, the tiles it strides over (none: null).
struct LaunchShape {
  SmallVector<int64_t, 3> grid, block;
  int64_t dynamicSharedBytes = 0;
  ArrayAttr tensorMaps;
  IntegerAttr waveTiles;
};

/// The tensor-map parameters of `kernel` that TMA copies use:
/// {param, box (outermost first), swizzle, shape (the tensor the map
/// describes: kernelir::getTensorMapShape)} each, or null where there are
/// none. An argument marked as a tensor map that no copy reads stays a
/// pointer. Recorded on each kernel before the conversion
/// (kTensorMapsAttrName), which may convert the copies before their kernel.
ArrayAttr tensorMapsOf(kernelir::FuncOp kernel) {
  Builder b(kernel.getContext());
  SmallVector<Attribute> maps;
  for (BlockArgument arg : kernel.getArguments()) {
    if (!kernel.getArgAttr(arg.getArgNumber(), kernelir::kTensorMapAttrName) ||
        arg.use_empty())
      continue;
    // Every copy through the map has its box and swizzle (verified).
    Operation *user = *arg.getUsers().begin();
    auto load = dyn_cast<kernelir::TmaLoadOp>(user);
    auto store = dyn_cast<kernelir::TmaStoreOp>(user);
    ArrayRef<int64_t> box = load ? load.getBox() : store.getBox();
    int64_t swizzle = load ? load.getSwizzle() : store.getSwizzle();
    maps.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("param", b.getI64IntegerAttr(arg.getArgNumber())),
         b.getNamedAttr("box", b.getDenseI64ArrayAttr(box)),
         b.getNamedAttr("swizzle", b.getI64IntegerAttr(swizzle)),
         b.getNamedAttr("shape",
                        b.getDenseI64ArrayAttr(
                            kernelir::getTensorMapShape(arg, box.size())))}));
  }
  return maps.empty() ? ArrayAttr() : b.getArrayAttr(maps);
}

/// The launch shape of `kernel`, a kernelir.func or, once that converted,
/// its gpu.func (the conversion may visit kernels before or after their
/// launches and ops); none for other ops and for a kernelir.func whose body
/// already moved into its gpu.func.
std::optional<LaunchShape> launchShapeOf(Operation *kernel) {
  if (auto func = dyn_cast<kernelir::FuncOp>(kernel)) {
    if (func.getBody().empty())
      return std::nullopt;
    int64_t bytes = func.getSharedLayout().second;
    return LaunchShape{SmallVector<int64_t, 3>(func.getGrid()),
                       SmallVector<int64_t, 3>(func.getBlock()),
                       func.usesDynamicSharedMemory() ? bytes : 0,
                       func->getAttrOfType<ArrayAttr>(kTensorMapsAttrName),
                       func.getWaveTilesAttr()};
  }
  auto func = dyn_cast<gpu::GPUFuncOp>(kernel);
  if (!func || !func.getKnownBlockSizeAttr())
    return std::nullopt;
  DenseI32ArrayAttr grid = func.getKnownGridSizeAttr();
  if (!grid)
    grid = func->getAttrOfType<DenseI32ArrayAttr>(kEstimatedGrid);
  if (!grid)
    return std::nullopt;
  auto dynamic = func->getAttrOfType<IntegerAttr>(kDynamicSharedBytes);
  return LaunchShape{
      llvm::to_vector_of<int64_t, 3>(grid.asArrayRef()),
      llvm::to_vector_of<int64_t, 3>(func.getKnownBlockSizeAttr().asArrayRef()),
      dynamic ? dynamic.getInt() : 0,
      func->getAttrOfType<ArrayAttr>(kTensorMapsAttrName),
      func->getAttrOfType<IntegerAttr>(kWaveTilesAttrName)};
}

gpu::Dimension toGpu(kernelir::Dim dim) {
  switch (dim) {
  case kernelir::Dim::x:
    return gpu::Dimension::x;
  case kernelir::Dim::y:
    return gpu::Dimension::y;
  case kernelir::Dim::z:
    return gpu::Dimension::z;
  }
  llvm_unreachable("unknown dimension");
}

struct FuncToGpuFunc : OpConversionPattern<kernelir::FuncOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(kernelir::FuncOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Shared buffers become the kernel's workgroup attributions (static
    // shared memory), or, beyond what a block may declare statically or
    // where buffers overlay, views of its dynamic shared memory, which the
    // launch requests.
    SmallVector<kernelir::SharedOp> shared(
        op.getBody().front().getOps<kernelir::SharedOp>());
    auto [offsets, bytes] = op.getSharedLayout();
    bool dynamic = op.usesDynamicSharedMemory();
    SmallVector<Type> sharedTypes;
    if (!dynamic)
      for (kernelir::SharedOp buffer : shared)
        sharedTypes.push_back(buffer.getType());
    auto gpuFunc = gpu::GPUFuncOp::create(rewriter, op.getLoc(), op.getName(),
                                          op.getFunctionType(), sharedTypes);
    gpuFunc->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                     rewriter.getUnitAttr());
    auto toI32 = [&](ArrayRef<int64_t> v) {
      return rewriter.getDenseI32ArrayAttr(
          {(int32_t)v[0], (int32_t)v[1], (int32_t)v[2]});
    };
    // LLVM's noalias: loads of buffers the kernel only reads become
    // ld.global.nc (NVPTX tags them invariant).
    for (unsigned i = 0, e = op.getNumArguments(); i < e; ++i)
      if (op.getArgAttr(i, kernelir::kNoAliasAttrName))
        gpuFunc.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(),
                           rewriter.getUnitAttr());
    gpuFunc.setKnownBlockSizeAttr(toI32(op.getBlock()));
    // A wave kernel's grid is the runtime's: nothing may take the estimate
    // for gridDim (as a known grid size lets LLVM do).
    if (IntegerAttr tiles = op.getWaveTilesAttr()) {
      gpuFunc->setAttr(kEstimatedGrid, toI32(op.getGrid()));
      gpuFunc->setAttr(kWaveTilesAttrName, tiles);
    } else {
      gpuFunc.setKnownGridSizeAttr(toI32(op.getGrid()));
    }
    // convert-gpu-to-nvvm keeps it on the llvm.func: .minnctapersm.
    if (std::optional<int64_t> blocks = op.getMinBlocksPerSm())
      gpuFunc->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                       rewriter.getI32IntegerAttr(*blocks));
    if (dynamic)
      gpuFunc->setAttr(kDynamicSharedBytes, rewriter.getI64IntegerAttr(bytes));
    if (Attribute maps = op->getAttr(kTensorMapsAttrName))
      gpuFunc->setAttr(kTensorMapsAttrName, maps);
    // The kernel's body joins the entry block, after the attributions.
    Block &entry = gpuFunc.getBody().front();
    rewriter.mergeBlocks(&op.getBody().front(), &entry,
                         entry.getArguments().take_front(op.getNumArguments()));
    if (dynamic) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&entry);
      Location loc = op.getLoc();
      auto workgroup = gpu::AddressSpaceAttr::get(getContext(),
                                                  gpu::AddressSpace::Workgroup);
      Value all = gpu::DynamicSharedMemoryOp::create(
          rewriter, loc,
          MemRefType::get({ShapedType::kDynamic}, rewriter.getI8Type(),
                          MemRefLayoutAttrInterface(), workgroup));
      // The window is aligned to kSharedAlignment alone; buffers aligned
      // further (TMA boxes) start from its first address aligned to the
      // most they need (the layout counted the slack).
      Value base;
      if (int64_t alignment = op.getSharedAlignment();
          alignment > kernelir::kSharedAlignment) {
        Value address =
            memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, all);
        base = arith::AndIOp::create(
            rewriter, loc,
            arith::SubIOp::create(
                rewriter, loc, arith::ConstantIndexOp::create(rewriter, loc, 0),
                address),
            arith::ConstantIndexOp::create(rewriter, loc, alignment - 1));
      }
      for (auto [buffer, offset] : llvm::zip(shared, offsets)) {
        Value shift = arith::ConstantIndexOp::create(rewriter, loc, offset);
        if (base)
          shift = arith::AddIOp::create(rewriter, loc, base, shift);
        rewriter.replaceOp(buffer, memref::ViewOp::create(rewriter, loc,
                                                          buffer.getType(), all,
                                                          shift, ValueRange{}));
      }
    } else {
      for (auto [buffer, attribution] :
           llvm::zip(shared, gpuFunc.getWorkgroupAttributions()))
        rewriter.replaceOp(buffer, attribution);
      // Shared accesses of up to 16 bytes (vectors, cp.async) claim their
      // size as alignment.
      for (auto [i, buffer] : llvm::enumerate(shared))
        gpuFunc.setWorkgroupAttributionAttr(
            i, LLVM::LLVMDialect::getAlignAttrName(),
            rewriter.getI64IntegerAttr(buffer.getAlignment()));
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// An op without operands or results that becomes one op of the target:
/// return, barrier, the commit of a group of asynchronous copies.
template <typename FromOp, typename ToOp>
struct ReplaceWith : OpConversionPattern<FromOp> {
  using OpConversionPattern<FromOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FromOp op, typename FromOp::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<ToOp>(op);
    return success();
  }
};

template <typename FromOp, typename ToOp>
struct IdToGpuId : OpConversionPattern<FromOp> {
  using OpConversionPattern<FromOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FromOp op, typename FromOp::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<ToOp>(op, toGpu(op.getDim()));
    return success();
  }
};

/// kernelir.lane_id is PTX's %laneid; kernelir.warp_id the linear thread
/// index over 32 (PTX's %warpid is a hardware slot, not this).
struct LaneIdToGpu : OpConversionPattern<kernelir::LaneIdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kernelir::LaneIdOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<gpu::LaneIdOp>(op, /*upper_bound=*/nullptr);
    return success();
  }
};

struct WarpIdToGpu : OpConversionPattern<kernelir::WarpIdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kernelir::WarpIdOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Operation *kernel = op->getParentOp();
    while (kernel && !isa<kernelir::FuncOp, gpu::GPUFuncOp>(kernel))
      kernel = kernel->getParentOp();
    std::optional<LaunchShape> shape =
        kernel ? launchShapeOf(kernel) : std::nullopt;
    if (!shape)
      return op.emitError("is not inside a kernel with a known block size");
    Location loc = op.getLoc();
    SmallVector<Value> ids;
    for (gpu::Dimension d :
         {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z})
      ids.push_back(gpu::ThreadIdOp::create(rewriter, loc, d));
    rewriter.replaceOpWithNewOp<arith::DivUIOp>(
        op, linearThreadIndex(rewriter, loc, ids, shape->block),
        arith::ConstantIndexOp::create(rewriter, loc, strata::kWarpSize));
    return success();
  }
};

gpu::ShuffleMode toGpu(kernelir::ShuffleMode mode) {
  switch (mode) {
  case kernelir::ShuffleMode::XOR:
    return gpu::ShuffleMode::XOR;
  case kernelir::ShuffleMode::DOWN:
    return gpu::ShuffleMode::DOWN;
  case kernelir::ShuffleMode::UP:
    return gpu::ShuffleMode::UP;
  case kernelir::ShuffleMode::IDX:
    return gpu::ShuffleMode::IDX;
  }
  llvm_unreachable("unknown shuffle mode");
}

struct ShuffleToGpuShuffle : OpConversionPattern<kernelir::ShuffleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kernelir::ShuffleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // The whole warp takes part, so every lane's source is valid.
    Value width = arith::ConstantIntOp::create(rewriter, op.getLoc(), 32, 32);
    auto shuffle =
        gpu::ShuffleOp::create(rewriter, op.getLoc(), adaptor.getValue(),
                               adaptor.getOffset(), width, toGpu(op.getMode()));
    rewriter.replaceOp(op, shuffle.getShuffleResult());
    return success();
  }
};

/// kernelir.ldmatrix as nvgpu.ldmatrix: each lane passes the address of
/// the 8 x 8 matrix row it contributes (a row of 16 bytes: 8 halves or 4
/// floats, `w` elements). x4 (A, 16 x 16 halves or 16 x 8 floats): lanes
/// 0-7 rows 0-7 of k 0 to w-1, 8-15 rows 8-15, 16-31 the same rows at k w
/// to 2w-1 (registers a0a1, a2a3, a4a5, a6a7; tf32: a0, a1, a2, a3); x2
/// (B, 8 n x 16 k stored n-major): lanes 0-7 rows 0-7 at k 0-7, 8-15 at k
/// 8-15 (b0b1, b2b3; lanes 16-31 are ignored and repeat them); transposed
/// x2 (B, 16 k x 8 n stored k-major): lanes 0-15 rows k 0-15 at n 0-7,
/// which .trans hands out by columns (lanes 16-31 are ignored and repeat
/// them).
struct LdMatrixToNVGPU : OpConversionPattern<kernelir::LdMatrixOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kernelir::LdMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    Value lane = gpu::LaneIdOp::create(rewriter, loc, /*upper_bound=*/nullptr);
    int64_t rowsPerHalf = op.getAddressRows();
    Value row = arith::RemUIOp::create(rewriter, loc, lane, index(rowsPerHalf));
    Value half = arith::RemUIOp::create(
        rewriter, loc,
        arith::DivUIOp::create(rewriter, loc, lane, index(rowsPerHalf)),
        index(op.getAddressColumns()));
    Value col = arith::MulIOp::create(
        rewriter, loc, half,
        index(kernelir::getLdMatrixRowElements(op.getType().getElementType())));
    SmallVector<Value> indices(adaptor.getIndices());
    size_t rank = indices.size();
    indices[rank - 2] =
        arith::AddIOp::create(rewriter, loc, indices[rank - 2], row);
    indices[rank - 1] =
        arith::AddIOp::create(rewriter, loc, indices[rank - 1], col);
    rewriter.replaceOpWithNewOp<nvgpu::LdMatrixOp>(
        op, op.getType(), adaptor.getMemref(), indices, op.getTranspose(),
        op.getNumMatrices());
    return success();
  }
};

struct MmaToMmaSync : OpConversionPattern<kernelir::MmaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kernelir::MmaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = op.getLhs().getType().getElementType();
    int64_t shape[] = {kernelir::kMmaM, kernelir::kMmaN,
                       kernelir::getMmaK(element)};
    Location loc = op.getLoc();
    // The same fragments: nvgpu.mma.sync is PTX's m16n8k16 (m16n8k8 for
    // tf32) row.col.
    if (element.isF16()) {
      rewriter.replaceOpWithNewOp<nvgpu::MmaSyncOp>(
          op, adaptor.getLhs(), adaptor.getRhs(), adaptor.getAcc(), shape);
      return success();
    }
    if (element.isF32()) {
      // The hardware ignores the low mantissa bits of a tf32 operand:
      // round them first (cvt.rna.tf32.f32), as the op promises.
      auto toTF32 = [&](Value fragment) -> Value {
        auto type = cast<VectorType>(fragment.getType());
        SmallVector<Value> rounded;
        for (int64_t r = 0; r < type.getDimSize(0); ++r) {
          Value x = vector::ExtractOp::create(rewriter, loc, fragment, {r, 0});
          Value bits = NVVM::ConvertFloatToTF32Op::create(
              rewriter, loc, rewriter.getI32Type(), x,
              NVVM::FPRoundingMode::RNA);
          rounded.push_back(arith::BitcastOp::create(
              rewriter, loc, rewriter.getF32Type(), bits));
        }
        return vector::FromElementsOp::create(rewriter, loc, type, rounded);
      };
      rewriter.replaceOpWithNewOp<nvgpu::MmaSyncOp>(
          op, toTF32(adaptor.getLhs()), toTF32(adaptor.getRhs()),
          adaptor.getAcc(), shape, /*tf32Enabled=*/true);
      return success();
    }
    // nvgpu takes no bf16: nvvm.mma.sync on the registers, two bf16 per
    // 32-bit register of A and B, one f32 per register of C and D.
    Type i32 = rewriter.getI32Type(), f32 = rewriter.getF32Type();
    auto registers = [&](Value fragment) {
      SmallVector<Value> regs;
      auto type = cast<VectorType>(fragment.getType());
      for (int64_t r = 0; r < type.getDimSize(0); ++r) {
        Value pair = vector::ExtractOp::create(rewriter, loc, fragment, r);
        Value word = vector::BitCastOp::create(rewriter, loc,
                                               VectorType::get({1}, i32), pair);
        regs.push_back(vector::ExtractOp::create(rewriter, loc, word, 0));
      }
      return regs;
    };
    SmallVector<Value> acc;
    for (int64_t v = 0; v < 4; ++v)
      acc.push_back(vector::ExtractOp::create(rewriter, loc, adaptor.getAcc(),
                                              ArrayRef<int64_t>{v / 2, v % 2}));
    auto resultType = LLVM::LLVMStructType::getLiteral(
        rewriter.getContext(), SmallVector<Type>(4, f32));
    auto mma = NVVM::MmaOp::create(
        rewriter, loc, resultType, registers(adaptor.getLhs()),
        registers(adaptor.getRhs()), acc, shape, std::nullopt, std::nullopt,
        std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                      NVVM::MMATypes::bf16},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    SmallVector<Value> results;
    for (int64_t v = 0; v < 4; ++v)
      results.push_back(LLVM::ExtractValueOp::create(rewriter, loc, mma, v));
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, op.getType(),
                                                        results);
    return success();
  }
};

struct AsyncCopyToDeviceAsyncCopy : OpConversionPattern<kernelir::AsyncCopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kernelir::AsyncCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> sourceIndices(adaptor.getSourceIndices());
    Value sourceElements;
    if (Value pred = adaptor.getPred()) {
      // A false guard reads no bytes (src-size 0) and zero-fills; its
      // address still points into the buffer, at element 0.
      auto constant = [&](int64_t v) -> Value {
        return arith::ConstantIndexOp::create(rewriter, loc, v);
      };
      for (Value &index : sourceIndices)
        index =
            arith::SelectOp::create(rewriter, loc, pred, index, constant(0));
      sourceElements = arith::SelectOp::create(
          rewriter, loc, pred, constant(op.getElements()), constant(0));
    }
    // 16-byte copies may bypass L1 (cp.async.cg): the chunk is read once.
    UnitAttr bypassL1 = op.getBytes() == 16 ? rewriter.getUnitAttr() : nullptr;
    nvgpu::DeviceAsyncCopyOp::create(
        rewriter, loc, adaptor.getDest(), adaptor.getDestIndices(),
        adaptor.getSource(), sourceIndices,
        rewriter.getIndexAttr(op.getElements()), sourceElements, bypassL1);
    rewriter.eraseOp(op);
    return success();
  }
};

struct AsyncWaitToWaitGroup : OpConversionPattern<kernelir::AsyncWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kernelir::AsyncWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncWaitGroupOp>(op, op.getPending());
    return success();
  }
};

struct LaunchToLaunchFunc : OpConversionPattern<kernelir::LaunchOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(kernelir::LaunchOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto kernels = SymbolTable::lookupNearestSymbolFrom<gpu::GPUModuleOp>(
        op, StringAttr::get(getContext(), kGpuModuleName));
    // The kernelir.func of that name, or its gpu.func once it converted.
    std::optional<LaunchShape> shape;
    if (kernels)
      for (Operation &kernel : kernels.getBody()->getOperations())
        if (SymbolTable::getSymbolName(&kernel) == op.getKernel() &&
            (shape = launchShapeOf(&kernel)))
          break;
    if (!shape)
      return op.emitError("launches '")
             << op.getKernel() << "', which is not a kernel of this module";
    Location loc = op.getLoc();
    auto dim3 = [&](ArrayRef<int64_t> v) {
      return gpu::KernelDim3{
          arith::ConstantIndexOp::create(rewriter, loc, v[0]),
          arith::ConstantIndexOp::create(rewriter, loc, v[1]),
          arith::ConstantIndexOp::create(rewriter, loc, v[2])};
    };
    auto symbol = SymbolRefAttr::get(
        getContext(), kGpuModuleName,
        {FlatSymbolRefAttr::get(getContext(), op.getKernel())});
    // A kernel beyond static shared memory asks for dynamic shared memory.
    Value dynamicShared;
    if (shape->dynamicSharedBytes)
      dynamicShared = arith::ConstantIntOp::create(
          rewriter, loc, shape->dynamicSharedBytes, 32);
    auto launch = gpu::LaunchFuncOp::create(
        rewriter, loc, symbol, dim3(shape->grid), dim3(shape->block),
        dynamicShared, adaptor.getArgs());
    // The launch plan encodes these parameters' tensor maps.
    if (shape->tensorMaps)
      launch->setAttr(kTensorMapsAttrName, shape->tensorMaps);
    if (shape->waveTiles)
      launch->setAttr(kWaveTilesAttrName, shape->waveTiles);
    rewriter.eraseOp(op);
    return success();
  }
};

/// Copies into `gpuModule` the functions its kernels call (and those call)
/// from `module`: on the GPU they are device functions beside the kernels.
/// A callee that is no function with a body is a diagnostic at the call.
LogicalResult copyCallees(ModuleOp module, gpu::GPUModuleOp gpuModule) {
  SymbolTable host(module), device(gpuModule);
  SmallVector<Operation *> worklist{gpuModule};
  while (!worklist.empty()) {
    Operation *root = worklist.pop_back_val();
    WalkResult walk = root->walk([&](CallOpInterface call) {
      auto symbol = dyn_cast<SymbolRefAttr>(call.getCallableForCallee());
      if (!symbol || device.lookup(symbol.getRootReference()))
        return WalkResult::advance();
      auto callee = host.lookup<func::FuncOp>(symbol.getRootReference());
      if (!callee || callee.isExternal()) {
        call->emitError("a kernel calls ")
            << symbol << ", which is no function with a body the GPU can run";
        return WalkResult::interrupt();
      }
      Operation *copy = callee->clone();
      device.insert(copy);
      worklist.push_back(copy);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
  }
  return success();
}

struct ConvertKernelIRToGPUPass
    : strata::impl::ConvertKernelIRToGPUPassBase<ConvertKernelIRToGPUPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto kernels = llvm::to_vector(module.getOps<kernelir::FuncOp>());
    if (!kernels.empty()) {
      // Structural step: all kernels move into one gpu.module.
      OpBuilder b(ctx);
      b.setInsertionPointToEnd(module.getBody());
      auto gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(),
                                                kGpuModuleName);
      SymbolTable(module).insert(gpuModule);
      if (gpuModule.getName() != kGpuModuleName) {
        module.emitError("the symbol '")
            << kGpuModuleName << "' is already taken";
        return signalPassFailure();
      }
      module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                      b.getUnitAttr());
      for (kernelir::FuncOp kernel : kernels) {
        kernel->moveBefore(gpuModule.getBody(), gpuModule.getBody()->end());
        if (ArrayAttr maps = tensorMapsOf(kernel))
          kernel->setAttr(kTensorMapsAttrName, maps);
      }
      if (failed(copyCallees(module, gpuModule)))
        return signalPassFailure();
    }
    ConversionTarget target(*ctx);
    target.addIllegalDialect<kernelir::KernelIRDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    populateKernelIRToGPUPatterns(patterns);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};
struct ExternDynamicSharedPass
    : strata::impl::ExternDynamicSharedPassBase<ExternDynamicSharedPass> {
  void runOnOperation() override {
    // The globals convert-gpu-to-nvvm makes for gpu.dynamic_shared_memory
    // (at the top of the module).
    for (auto global : getOperation().getOps<LLVM::GlobalOp>()) {
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      if (global.getAddrSpace() == 3 && array && array.getNumElements() == 0 &&
          global.getSymName().starts_with("__dynamic_shmem__"))
        global.setLinkage(LLVM::Linkage::External);
    }
  }
};

struct GridConstantTensorMapsPass
    : strata::impl::GridConstantTensorMapsPassBase<GridConstantTensorMapsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    for (auto func : getOperation().getOps<LLVM::LLVMFuncOp>()) {
      auto maps = func->getAttrOfType<ArrayAttr>(kTensorMapsAttrName);
      if (!maps)
        continue;
      for (auto map : maps.getAsRange<DictionaryAttr>()) {
        int64_t param = cast<IntegerAttr>(map.get("param")).getInt();
        // CUDA's `const __grid_constant__ CUtensorMap`: 128 bytes by value,
        // 64-aligned, whose address the kernel takes.
        func.setArgAttr(param, LLVM::LLVMDialect::getByValAttrName(),
                        TypeAttr::get(LLVM::LLVMArrayType::get(
                            b.getI8Type(), kTensorMapBytes)));
        func.setArgAttr(param, LLVM::LLVMDialect::getAlignAttrName(),
                        b.getI64IntegerAttr(kTensorMapAlignment));
        func.setArgAttr(param, NVVM::NVVMDialect::getGridConstantAttrName(),
                        b.getUnitAttr());
        func.removeArgAttr(param, LLVM::LLVMDialect::getNoAliasAttrName());
      }
    }
  }
};
} // namespace

void strata::populateKernelIRToGPUPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns
      .add<FuncToGpuFunc, LaunchToLaunchFunc, ShuffleToGpuShuffle, MmaToMmaSync,
           LdMatrixToNVGPU, AsyncCopyToDeviceAsyncCopy, AsyncWaitToWaitGroup,
           ReplaceWith<kernelir::ReturnOp, gpu::ReturnOp>,
           ReplaceWith<kernelir::BarrierOp, gpu::BarrierOp>,
           ReplaceWith<kernelir::AsyncCommitOp, NVVM::CpAsyncCommitGroupOp>,
           ReplaceWith<kernelir::BulkCommitOp, NVVM::CpAsyncBulkCommitGroupOp>,
           IdToGpuId<kernelir::BlockIdOp, gpu::BlockIdOp>,
           IdToGpuId<kernelir::GridDimOp, gpu::GridDimOp>,
           IdToGpuId<kernelir::ThreadIdOp, gpu::ThreadIdOp>, LaneIdToGpu,
           WarpIdToGpu>(ctx);
  // Device buffers start at 256-byte boundaries (the runtime checks the
  // tensors it is given), so a vector access may claim its size as its
  // alignment: that is what makes it one 128-bit instruction.
  populateGuardedAccessPatterns(patterns, /*alignVectors=*/true);
  populateWgmmaToNVVMPatterns(patterns);
  populateMBarrierToNVVMPatterns(patterns);
}
