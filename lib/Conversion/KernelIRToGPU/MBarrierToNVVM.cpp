// kernelir's mbarriers, bulk copies and TMA copies to nvvm (the bulk
// groups' commit is a ReplaceWith in KernelIRToGPU.cpp): each names its
// mbarrier (and buffers) by element, which becomes an LLVM pointer into the
// shared (or global) address space, computed from the buffer's aligned pointer
// and the element's row-major offset.

#include "strata/Conversion/KernelIRToGPU/KernelIRToGPU.h"
#include "strata/Dialect/KernelIR/IR/KernelIR.h"
#include "strata/Dialect/Utils/ElementStorage.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace strata;

namespace {
/// NVPTX's address spaces.
constexpr unsigned kGlobalSpace = 1;
constexpr unsigned kSharedSpace = 3;
constexpr unsigned kSharedClusterSpace = 7;

/// A pointer to `buffer[indices]` in `space`: shared buffers' aligned
/// pointers are shared addresses already; a global buffer's is generic,
/// converted (cvta.to.global).
Value elementPointer(OpBuilder &b, Location loc, Value buffer,
                     ValueRange indices, unsigned space) {
  Value address = elementByteAddress(b, loc, buffer, indices);
  auto pointer = [&](unsigned s) {
    return LLVM::LLVMPointerType::get(b.getContext(), s);
  };
  if (space == kSharedSpace)
    return LLVM::IntToPtrOp::create(b, loc, pointer(kSharedSpace), address);
  Value generic = LLVM::IntToPtrOp::create(b, loc, pointer(0), address);
  return LLVM::AddrSpaceCastOp::create(b, loc, pointer(space), generic);
}

/// A copy engine's destination `buffer[indices]` (shared) in the
/// shared::cluster window: the copies' shared::cluster forms are PTX 8.0's
/// (the shared::cta ones need 8.6), and a block's own shared window is
/// part of its cluster's.
Value clusterPointer(OpBuilder &b, Location loc, Value buffer,
                     ValueRange indices) {
  return LLVM::AddrSpaceCastOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), kSharedClusterSpace),
      elementPointer(b, loc, buffer, indices, kSharedSpace));
}

Value i32Constant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 32);
}

NVVM::MemScopeKindAttr ctaScope(MLIRContext *ctx) {
  return NVVM::MemScopeKindAttr::get(ctx, NVVM::MemScopeKind::CTA);
}

/// The lowering of an op on one mbarrier: the mbarrier's pointer, then
/// the nvvm op(s) `lower` builds in its place.
template <typename Op> struct OnMBarrier : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  using Adaptor = typename Op::Adaptor;
  virtual void lower(OpBuilder &b, Location loc, Op op, Adaptor adaptor,
                     Value barrier) const = 0;
  LogicalResult
  matchAndRewrite(Op op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    Value barrier = elementPointer(rewriter, op.getLoc(), adaptor.getBarriers(),
                                   adaptor.getIndices(), kSharedSpace);
    lower(rewriter, op.getLoc(), op, adaptor, barrier);
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierInitToNVVM : OnMBarrier<kernelir::MBarrierInitOp> {
  using OnMBarrier::OnMBarrier;
  void lower(OpBuilder &b, Location loc, kernelir::MBarrierInitOp op, Adaptor,
             Value barrier) const override {
    NVVM::MBarrierInitOp::create(
        b, loc, barrier, i32Constant(b, loc, op.getArrivals()), Value());
  }
};

struct MBarrierArriveToNVVM : OnMBarrier<kernelir::MBarrierArriveOp> {
  using OnMBarrier::OnMBarrier;
  void lower(OpBuilder &b, Location loc, kernelir::MBarrierArriveOp op, Adaptor,
             Value barrier) const override {
    if (std::optional<int64_t> bytes = op.getExpectTx())
      NVVM::MBarrierArriveExpectTxOp::create(
          b, loc, Type(), barrier, i32Constant(b, loc, *bytes),
          ctaScope(b.getContext()), b.getBoolAttr(false), Value());
    else
      NVVM::MBarrierArriveOp::create(b, loc, b.getI64Type(), barrier, Value(),
                                     ctaScope(b.getContext()));
  }
};

struct MBarrierWaitToNVVM : OnMBarrier<kernelir::MBarrierWaitOp> {
  using OnMBarrier::OnMBarrier;
  void lower(OpBuilder &b, Location loc, kernelir::MBarrierWaitOp,
             Adaptor adaptor, Value barrier) const override {
    Value parity =
        arith::ExtUIOp::create(b, loc, b.getI32Type(), adaptor.getParity());
    // nvvm retries the try_wait until the phase completes; the operand is
    // how long one try may suspend the thread (10 ms, in ns).
    NVVM::MBarrierTryWaitParityOp::create(b, loc, barrier, parity,
                                          i32Constant(b, loc, 10000000));
  }
};

struct BulkCopyToNVVM : OpConversionPattern<kernelir::BulkCopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kernelir::BulkCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value dest = clusterPointer(rewriter, loc, adaptor.getDest(),
                                adaptor.getDestIndices());
    Value source = elementPointer(rewriter, loc, adaptor.getSource(),
                                  adaptor.getSourceIndices(), kGlobalSpace);
    Value barrier = elementPointer(rewriter, loc, adaptor.getBarriers(),
                                   adaptor.getBarrierIndices(), kSharedSpace);
    NVVM::CpAsyncBulkGlobalToSharedClusterOp::create(
        rewriter, loc, dest, source, barrier,
        i32Constant(rewriter, loc, op.getBytes()), Value(), Value());
    rewriter.eraseOp(op);
    return success();
  }
};

/// The address of the tensor map a kernel was passed as `map` (the
/// parameter's own: see GridConstantTensorMapsPass), generic.
Value tensorMapPointer(OpBuilder &b, Location loc, Value map) {
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()),
      Value(arith::IndexCastUIOp::create(
          b, loc, b.getI64Type(),
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, map))));
}

/// A box's first element in a tensor map's coordinates: i32, the
/// innermost dimension first.
SmallVector<Value> tensorMapCoordinates(OpBuilder &b, Location loc,
                                        ValueRange indices) {
  SmallVector<Value> coordinates;
  for (Value index : llvm::reverse(indices))
    coordinates.push_back(
        arith::IndexCastOp::create(b, loc, b.getI32Type(), index));
  return coordinates;
}

/// The box's first element in the tensor map's coordinates (i32, the
/// innermost dimension first) from the tensor map the kernel was passed
/// (the parameter's address: see GridConstantTensorMapsPass).
struct TmaLoadToNVVM : OpConversionPattern<kernelir::TmaLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kernelir::TmaLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value dest = clusterPointer(rewriter, loc, adaptor.getDest(),
                                adaptor.getDestIndices());
    Value map = tensorMapPointer(rewriter, loc, adaptor.getSource());
    SmallVector<Value> coordinates =
        tensorMapCoordinates(rewriter, loc, adaptor.getSourceIndices());
    Value barrier = elementPointer(rewriter, loc, adaptor.getBarriers(),
                                   adaptor.getBarrierIndices(), kSharedSpace);
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        rewriter, loc, dest, map, coordinates, barrier, ValueRange(), Value(),
        Value(), NVVM::TMALoadModeAttr(), BoolAttr(), NVVM::CTAGroupKindAttr(),
        Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct TmaStoreToNVVM : OpConversionPattern<kernelir::TmaStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kernelir::TmaStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
        rewriter, loc, tensorMapPointer(rewriter, loc, adaptor.getDest()),
        elementPointer(rewriter, loc, adaptor.getSource(),
                       adaptor.getSourceIndices(), kSharedSpace),
        tensorMapCoordinates(rewriter, loc, adaptor.getDestIndices()), Value(),
        NVVM::TMAStoreModeAttr(), Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct BulkWaitToNVVM : OpConversionPattern<kernelir::BulkWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kernelir::BulkWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkWaitGroupOp>(
        op, rewriter.getI32IntegerAttr(op.getPending()),
        op.getRead() ? rewriter.getUnitAttr() : UnitAttr());
    return success();
  }
};
} // namespace

Value strata::elementByteAddress(OpBuilder &b, Location loc, Value buffer,
                                 ValueRange indices) {
  auto type = cast<MemRefType>(buffer.getType());
  int64_t bytes = getStorageBits(type.getElementType()) / 8;
  Type i64 = b.getI64Type();
  Value address = arith::IndexCastUIOp::create(
      b, loc, i64,
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer));
  SmallVector<int64_t> strides = computeSuffixProduct(type.getShape());
  for (auto [index, stride] : llvm::zip_equal(indices, strides)) {
    Value i = arith::IndexCastUIOp::create(b, loc, i64, index);
    address = arith::AddIOp::create(
        b, loc, address,
        arith::MulIOp::create(
            b, loc, i,
            arith::ConstantIntOp::create(b, loc, stride * bytes, 64)));
  }
  return address;
}

void strata::populateMBarrierToNVVMPatterns(RewritePatternSet &patterns) {
  patterns.add<MBarrierInitToNVVM, MBarrierArriveToNVVM, MBarrierWaitToNVVM,
               BulkCopyToNVVM, TmaLoadToNVVM, TmaStoreToNVVM, BulkWaitToNVVM>(
      patterns.getContext());
}
