// Tensor-core mma on the CPU (f16, bf16 or tf32 operands): the warp's
// fragments meet in shared scratch matrices between two barriers, which the
// thread loops then run like any other barrier; each lane computes its own
// result elements.

#include "ThreadLoops.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace strata;
using kernelir::MmaOperand;

/// `x` rounded to tf32 as cvt.rna.tf32.f32 does: the 13 low mantissa bits
/// cleared, to nearest, ties away from zero (adding half of the last kept
/// bit to the magnitude); NaN stays NaN.
static Value roundToTF32(OpBuilder &b, Location loc, Value x) {
  Type i32 = b.getI32Type();
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, v, 32);
  };
  Value bits = arith::BitcastOp::create(b, loc, i32, x);
  Value rounded = arith::AndIOp::create(
      b, loc, arith::AddIOp::create(b, loc, bits, constant(0x1000)),
      constant(0xFFFFE000));
  Value result = arith::BitcastOp::create(b, loc, x.getType(), rounded);
  Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  return arith::SelectOp::create(b, loc, isNan, x, result);
}

void strata::expandMmas(RewriterBase &rewriter, kernelir::FuncOp kernel) {
  SmallVector<kernelir::MmaOp> mmas;
  kernel.walk([&](kernelir::MmaOp op) { mmas.push_back(op); });
  if (mmas.empty())
    return;
  int64_t warps = kernel.getNumThreadsPerBlock() / kWarpSize;
  MLIRContext *ctx = rewriter.getContext();
  Type f32 = rewriter.getF32Type();
  // A (m x k) and B (k x n) of every warp, per operand type (f16, bf16,
  // f32); the barrier after the reads makes reuse by the next mma safe.
  DenseMap<Type, std::pair<Value, Value>> scratches;
  auto scratchFor = [&](Type element) {
    auto [it, inserted] = scratches.try_emplace(element);
    int64_t k = kernelir::getMmaK(element);
    if (inserted)
      it->second = {createSharedScratch(rewriter, kernel,
                                        {warps, kernelir::kMmaM, k}, element),
                    createSharedScratch(rewriter, kernel,
                                        {warps, k, kernelir::kMmaN}, element)};
    return it->second;
  };
  for (kernelir::MmaOp op : mmas) {
    Location loc = op.getLoc();
    Type operandElement = op.getLhs().getType().getElementType();
    Value lhsScratch, rhsScratch;
    std::tie(lhsScratch, rhsScratch) = scratchFor(operandElement);
    rewriter.setInsertionPoint(op);
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    Value self = kernelThreadIndex(rewriter, loc, kernel.getBlock());
    Value warp = arith::DivUIOp::create(rewriter, loc, self, index(kWarpSize));
    Value lane = arith::RemUIOp::create(rewriter, loc, self, index(kWarpSize));
    // (row, column) of value v of this lane's fragment of `operand`.
    auto coords = [&](MmaOperand operand, int64_t v) {
      return *affine::expandAffineMap(
          rewriter, loc,
          kernelir::getMmaFragmentMap(ctx, operand, operandElement),
          ValueRange{lane, index(v)});
    };
    auto element = [&](Value fragment, int64_t v) -> Value {
      int64_t columns = cast<VectorType>(fragment.getType()).getDimSize(1);
      return vector::ExtractOp::create(
          rewriter, loc, fragment, ArrayRef<int64_t>{v / columns, v % columns});
    };
    auto size = [&](MmaOperand operand) {
      return kernelir::getMmaFragmentType(operand, operandElement)
          .getNumElements();
    };
    auto post = [&](MmaOperand operand, Value fragment, Value scratch) {
      for (int64_t v = 0; v < size(operand); ++v) {
        SmallVector<Value> rc = coords(operand, v);
        kernelir::StoreOp::create(rewriter, loc, element(fragment, v), scratch,
                                  ValueRange{warp, rc[0], rc[1]});
      }
    };
    post(MmaOperand::Lhs, op.getLhs(), lhsScratch);
    post(MmaOperand::Rhs, op.getRhs(), rhsScratch);
    kernelir::BarrierOp::create(rewriter, loc);
    SmallVector<Value> results;
    for (int64_t v = 0; v < size(MmaOperand::Acc); ++v) {
      SmallVector<Value> rc = coords(MmaOperand::Acc, v);
      auto sum = scf::ForOp::create(
          rewriter, loc, index(0), index(kernelir::getMmaK(operandElement)),
          index(1), ValueRange{element(op.getAcc(), v)},
          [&](OpBuilder &b, Location loc, Value k, ValueRange acc) {
            auto widened = [&](Value scratch, Value r, Value c) -> Value {
              Value x = kernelir::LoadOp::create(b, loc, scratch,
                                                 ValueRange{warp, r, c});
              if (x.getType().isF32())
                return roundToTF32(b, loc, x);
              return arith::ExtFOp::create(b, loc, f32, x);
            };
            Value product =
                arith::MulFOp::create(b, loc, widened(lhsScratch, rc[0], k),
                                      widened(rhsScratch, k, rc[1]));
            scf::YieldOp::create(
                b, loc,
                ValueRange{arith::AddFOp::create(b, loc, acc[0], product)});
          });
      results.push_back(sum.getResult(0));
    }
    kernelir::BarrierOp::create(rewriter, loc);
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, op.getType(),
                                                        results);
  }
}

void strata::expandFragmentLoads(RewriterBase &rewriter,
                                 kernelir::FuncOp kernel) {
  SmallVector<kernelir::LdMatrixOp> loads;
  kernel.walk([&](kernelir::LdMatrixOp op) { loads.push_back(op); });
  for (kernelir::LdMatrixOp op : loads) {
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    Value lane = kernelir::LaneIdOp::create(rewriter, loc);
    Type element = op.getType().getElementType();
    kernelir::MmaOperand operand = op.getOperand();
    AffineMap map =
        kernelir::getMmaFragmentMap(rewriter.getContext(), operand, element);
    // Each lane reads its own fragment: A's (row, k) at [i + row, j + k],
    // B's (k, n) at [i + n, j + k] (stored n-major), or at [i + k, j + n]
    // transposed (stored k-major).
    SmallVector<Value> elements;
    for (int64_t v = 0; v < op.getType().getNumElements(); ++v) {
      SmallVector<Value> rc = *affine::expandAffineMap(
          rewriter, loc, map, ValueRange{lane, index(v)});
      bool asStored = operand == kernelir::MmaOperand::Lhs || op.getTranspose();
      Value outer = asStored ? rc[0] : rc[1];
      Value inner = asStored ? rc[1] : rc[0];
      SmallVector<Value> at(op.getIndices());
      size_t rank = at.size();
      at[rank - 2] = arith::AddIOp::create(rewriter, loc, at[rank - 2], outer);
      at[rank - 1] = arith::AddIOp::create(rewriter, loc, at[rank - 1], inner);
      elements.push_back(
          kernelir::LoadOp::create(rewriter, loc, op.getMemref(), at));
    }
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, op.getType(),
                                                        elements);
  }
}
