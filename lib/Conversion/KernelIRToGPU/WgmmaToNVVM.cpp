// kernelir.wgmma to nvvm's warpgroup mma (sm_90a): a 64-bit shared-memory
// descriptor per operand and per 16 k, the accumulator as the struct of the
// lane's f32 registers, and the op's synchronous meaning spelled out as
// wgmma.fence, the mma_asyncs, commit and wait for none pending (an async
// one leaves the wait to its kernelir.wgmma_wait). Beside it
// the other ops of Hopper's warpgroups: the async proxy's fence and
// setmaxnreg.

#include "strata/Conversion/KernelIRToGPU/KernelIRToGPU.h"
#include "strata/Dialect/KernelIR/IR/KernelIR.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace strata;

namespace {
/// The descriptor of the wgmma operand in `layout` whose first element is
/// `buffer[indices]`, at the k16 step starting at `k`: its shared address
/// (bits 0-13, in 16-byte units) and the layout's other bits
/// (WgmmaLayout::getDescriptorBits: strides and swizzle).
Value buildDescriptor(OpBuilder &b, Location loc, Value buffer,
                      ValueRange indices, int64_t k,
                      const kernelir::WgmmaLayout &layout) {
  auto type = cast<MemRefType>(buffer.getType());
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, v, 64);
  };
  Value address = elementByteAddress(b, loc, buffer, indices);
  if (int64_t offset = layout.kOffset(k, type.getElementTypeBitWidth() / 8))
    address = arith::AddIOp::create(b, loc, address, constant(offset));
  // Shared addresses fit 18 bits; the field keeps them in 16-byte units.
  Value field = arith::ShRUIOp::create(
      b, loc, arith::AndIOp::create(b, loc, address, constant(0x3FFFF)),
      constant(4));
  return arith::OrIOp::create(b, loc, field,
                              constant(layout.getDescriptorBits()));
}

/// The f32 registers of accumulator `acc`, in order: register r is element
/// r of the row-major vector, as both follow D's layout ([j][h][i] =
/// register 4 j + 2 h + i).
SmallVector<Value> accumulatorRegisters(OpBuilder &b, Location loc, Value acc) {
  auto type = cast<VectorType>(acc.getType());
  SmallVector<int64_t> strides = computeSuffixProduct(type.getShape());
  SmallVector<Value> registers;
  for (int64_t r = 0; r < type.getNumElements(); ++r)
    registers.push_back(
        vector::ExtractOp::create(b, loc, acc, delinearize(r, strides)));
  return registers;
}

/// The accumulator of `type` whose registers are the fields of struct
/// `registers` from `first` on.
Value accumulatorOf(OpBuilder &b, Location loc, VectorType type,
                    Value registers, int64_t first) {
  SmallVector<Value> elements;
  for (int64_t r = 0; r < type.getNumElements(); ++r)
    elements.push_back(
        LLVM::ExtractValueOp::create(b, loc, registers, first + r));
  return vector::FromElementsOp::create(b, loc, type, elements);
}

/// An LLVM struct of `n` f32 registers.
Type registerStruct(MLIRContext *ctx, int64_t n) {
  return LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(n, Float32Type::get(ctx)));
}

struct WgmmaToNVVM : OpConversionPattern<kernelir::WgmmaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kernelir::WgmmaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    VectorType accType = op.getAcc().getType();
    Value acc = LLVM::PoisonOp::create(
        rewriter, loc, registerStruct(getContext(), accType.getNumElements()));
    for (auto [r, value] :
         llvm::enumerate(accumulatorRegisters(rewriter, loc, adaptor.getAcc())))
      acc = LLVM::InsertValueOp::create(rewriter, loc, acc, value, r);
    Type element = op.getLhs().getType().getElementType();
    auto operandType = NVVM::WGMMATypesAttr::get(
        getContext(),
        element.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16);
    auto one =
        NVVM::WGMMAScaleInAttr::get(getContext(), NVVM::WGMMAScaleIn::one);
    auto shape = NVVM::MMAShapeAttr::get(getContext(), kernelir::kWgmmaM,
                                         op.getN(), kernelir::kWgmmaK);
    NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
    for (int64_t k = 0; k < (int64_t)op.getK(); k += kernelir::kWgmmaK) {
      Value lhs =
          buildDescriptor(rewriter, loc, adaptor.getLhs(),
                          adaptor.getLhsIndices(), k, op.getLhsLayout());
      Value rhs =
          buildDescriptor(rewriter, loc, adaptor.getRhs(),
                          adaptor.getRhsIndices(), k, op.getRhsLayout());
      // A row-major (K-major); B column-major (K-major), or row-major
      // (MN-major: imm-trans-b).
      acc = NVVM::WgmmaMmaAsyncOp::create(
          rewriter, loc, acc.getType(), acc, lhs, rhs, shape, operandType,
          operandType,
          NVVM::WGMMATypesAttr::get(getContext(), NVVM::WGMMATypes::f32),
          NVVM::WGMMAScaleOutAttr::get(getContext(), NVVM::WGMMAScaleOut::one),
          one, one,
          NVVM::MMALayoutAttr::get(getContext(), NVVM::MMALayout::row),
          NVVM::MMALayoutAttr::get(getContext(), op.getRhsMnMajor()
                                                     ? NVVM::MMALayout::row
                                                     : NVVM::MMALayout::col),
          /*satfinite=*/nullptr);
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
    // An async group's registers are fenced by the kernelir.wgmma_wait
    // that retires it.
    if (!op.getAsync())
      NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, 0);
    rewriter.replaceOp(op, accumulatorOf(rewriter, loc, accType, acc, 0));
    return success();
  }
};

/// kernelir.wgmma_wait as one inline asm that waits and returns every
/// accumulator register tied to itself ("=f" outputs, their inputs "0",
/// "1", ...): LLVM then reads none of them before the wait, nor copies
/// one while its group may still write it, as it could around nvvm's
/// wait_group, which takes no operands. (Triton and CUTLASS fence them so.)
struct WgmmaWaitToNVVM : OpConversionPattern<kernelir::WgmmaWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kernelir::WgmmaWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> registers;
    for (Value acc : adaptor.getAccs())
      llvm::append_range(registers, accumulatorRegisters(rewriter, loc, acc));
    if (registers.empty()) { // Nothing to fence: the wait alone.
      NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, op.getPending());
      rewriter.eraseOp(op);
      return success();
    }
    std::string constraints;
    for (size_t r = 0; r < registers.size(); ++r)
      constraints += (r ? ",=f" : "=f");
    for (size_t r = 0; r < registers.size(); ++r)
      constraints += "," + std::to_string(r);
    auto wait = LLVM::InlineAsmOp::create(
        rewriter, loc, registerStruct(getContext(), registers.size()),
        registers,
        "wgmma.wait_group.sync.aligned " + std::to_string(op.getPending()) +
            ";",
        constraints, /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None,
        LLVM::AsmDialectAttr::get(getContext(), LLVM::AsmDialect::AD_ATT),
        /*operand_attrs=*/ArrayAttr());
    SmallVector<Value> results;
    int64_t first = 0;
    for (Value acc : adaptor.getAccs()) {
      auto type = cast<VectorType>(acc.getType());
      results.push_back(
          accumulatorOf(rewriter, loc, type, wait.getResult(0), first));
      first += type.getNumElements();
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct ProxyFenceToNVVM : OpConversionPattern<kernelir::ProxyFenceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kernelir::ProxyFenceOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::FenceProxyOp>(
        op,
        NVVM::ProxyKindAttr::get(getContext(), NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(getContext(),
                                   NVVM::SharedSpace::shared_cta));
    return success();
  }
};

struct SetMaxRegistersToNVVM
    : OpConversionPattern<kernelir::SetMaxRegistersOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kernelir::SetMaxRegistersOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto action = op.getAction() == kernelir::RegisterAction::increase
                      ? NVVM::SetMaxRegisterAction::increase
                      : NVVM::SetMaxRegisterAction::decrease;
    rewriter.replaceOpWithNewOp<NVVM::SetMaxRegisterOp>(
        op, rewriter.getI32IntegerAttr(op.getCount()),
        NVVM::SetMaxRegisterActionAttr::get(getContext(), action));
    return success();
  }
};
} // namespace

void strata::populateWgmmaToNVVMPatterns(RewritePatternSet &patterns) {
  patterns.add<WgmmaToNVVM, WgmmaWaitToNVVM, ProxyFenceToNVVM,
               SetMaxRegistersToNVVM>(patterns.getContext());
}
