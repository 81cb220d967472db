// Tensor-core mma on the CPU (f16 or bf16 operands): the warp's fragments meet
// in shared scratch matrices between two barriers, which the thread loops then
// run like any other barrier; each lane computes its own result elements.

#include "ThreadLoops.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace strata;
using kernelir::MmaOperand;

void strata::expandMmas(RewriterBase &rewriter, kernelir::FuncOp kernel) {
  SmallVector<kernelir::MmaOp> mmas;
  kernel.walk([&](kernelir::MmaOp op) { mmas.push_back(op); });
  if (mmas.empty())
    return;
  int64_t warps = kernel.getNumThreadsPerBlock() / kernelir::kWarpSize;
  MLIRContext *ctx = rewriter.getContext();
  Type f32 = rewriter.getF32Type();
  // A (m x k) and B (k x n) of every warp, per operand type (f16, bf16);
  // the barrier after the reads makes reuse by the next mma safe.
  DenseMap<Type, std::pair<Value, Value>> scratches;
  auto scratchFor = [&](Type element) {
    auto [it, inserted] = scratches.try_emplace(element);
    if (inserted)
      it->second = {createSharedScratch(
                        rewriter, kernel,
                        {warps, kernelir::kMmaM, kernelir::kMmaK}, element),
                    createSharedScratch(
                        rewriter, kernel,
                        {warps, kernelir::kMmaK, kernelir::kMmaN}, element)};
    return it->second;
  };
  for (kernelir::MmaOp op : mmas) {
    Location loc = op.getLoc();
    Value lhsScratch, rhsScratch;
    std::tie(lhsScratch, rhsScratch) =
        scratchFor(op.getLhs().getType().getElementType());
    rewriter.setInsertionPoint(op);
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    Value self = kernelThreadIndex(rewriter, loc, kernel.getBlock());
    Value warp =
        arith::DivUIOp::create(rewriter, loc, self, index(kernelir::kWarpSize));
    Value lane =
        arith::RemUIOp::create(rewriter, loc, self, index(kernelir::kWarpSize));
    // (row, column) of value v of this lane's fragment of `operand`.
    auto coords = [&](MmaOperand operand, int64_t v) {
      return *affine::expandAffineMap(rewriter, loc,
                                      kernelir::getMmaFragmentMap(ctx, operand),
                                      ValueRange{lane, index(v)});
    };
    auto element = [&](Value fragment, int64_t v) -> Value {
      return vector::ExtractOp::create(rewriter, loc, fragment,
                                       ArrayRef<int64_t>{v / 2, v % 2});
    };
    auto post = [&](MmaOperand operand, Value fragment, Value scratch) {
      for (int64_t v = 0; v < kernelir::getMmaFragmentSize(operand); ++v) {
        SmallVector<Value> rc = coords(operand, v);
        kernelir::StoreOp::create(rewriter, loc, element(fragment, v), scratch,
                                  ValueRange{warp, rc[0], rc[1]});
      }
    };
    post(MmaOperand::Lhs, op.getLhs(), lhsScratch);
    post(MmaOperand::Rhs, op.getRhs(), rhsScratch);
    kernelir::BarrierOp::create(rewriter, loc);
    SmallVector<Value> results;
    for (int64_t v = 0; v < kernelir::getMmaFragmentSize(MmaOperand::Acc);
         ++v) {
      SmallVector<Value> rc = coords(MmaOperand::Acc, v);
      auto sum = scf::ForOp::create(
          rewriter, loc, index(0), index(kernelir::kMmaK), index(1),
          ValueRange{element(op.getAcc(), v)},
          [&](OpBuilder &b, Location loc, Value k, ValueRange acc) {
            auto widened = [&](Value scratch, Value r, Value c) -> Value {
              Value x = kernelir::LoadOp::create(b, loc, scratch,
                                                 ValueRange{warp, r, c});
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
