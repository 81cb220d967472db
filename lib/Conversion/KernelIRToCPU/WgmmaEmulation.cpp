// Warpgroup mma on the CPU: wgmma reads its operands from shared memory, so
// each thread computes its own accumulator elements from there, through the
// same descriptor arithmetic the GPU applies (kernelir::getWgmmaLayout):
// a chunk staged in any other layout than the one the op's descriptors
// describe gives wrong numbers here first.

#include "ThreadLoops.h"
#include "strata/Conversion/KernelIRCommon/Swizzle.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"

using namespace mlir;
using namespace strata;

namespace {
/// Reads element (row, k) of a wgmma operand (A: m x k; B: n x k) whose
/// first element is `buffer[indices]`: the hardware's byte offset (for a
/// K-major `layout`, k / w blocks, row / 8 groups of 8 rows, then row mod
/// 8 rows and k mod w elements; MN-major, the roles of row and k swapped)
/// added to the first element's, permuted by the swizzle (from the
/// buffer's start, aligned to its period) and split back into the
/// buffer's indices.
Value readOperand(OpBuilder &b, Location loc, Value buffer, ValueRange indices,
                  Value row, Value k, kernelir::WgmmaLayout layout) {
  auto type = cast<MemRefType>(buffer.getType());
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  int64_t w = layout.rowBytes / bytes;
  if (layout.mnMajor)
    std::swap(row, k);
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto mul = [&](Value x, int64_t c) -> Value {
    return arith::MulIOp::create(b, loc, x, index(c));
  };
  auto div = [&](Value x, int64_t c) -> Value {
    return arith::DivUIOp::create(b, loc, x, index(c));
  };
  auto rem = [&](Value x, int64_t c) -> Value {
    return arith::RemUIOp::create(b, loc, x, index(c));
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  Value byteOffset = add(
      add(mul(div(row, 8), layout.stride), mul(rem(row, 8), layout.rowBytes)),
      add(mul(div(k, w), layout.leading), mul(rem(k, w), bytes)));
  byteOffset =
      add(byteOffset, mul(buildElementOffset(b, loc, type, indices), bytes));
  SmallVector<int64_t> elementStrides = computeSuffixProduct(type.getShape());
  Value linear =
      div(buildSwizzledOffset(b, loc, byteOffset, layout.swizzle), bytes);
  SmallVector<Value> at;
  for (auto [d, stride] : llvm::enumerate(elementStrides))
    at.push_back(rem(div(linear, stride), type.getDimSize(d)));
  return kernelir::LoadOp::create(b, loc, buffer, at);
}
} // namespace

Value strata::buildElementOffset(OpBuilder &b, Location loc, MemRefType type,
                                 ValueRange indices) {
  Value offset = arith::ConstantIndexOp::create(b, loc, 0);
  for (auto [i, stride] :
       llvm::zip_equal(indices, computeSuffixProduct(type.getShape())))
    offset = arith::AddIOp::create(
        b, loc, offset,
        arith::MulIOp::create(b, loc, i,
                              arith::ConstantIndexOp::create(b, loc, stride)));
  return offset;
}

void strata::expandWgmmas(RewriterBase &rewriter, kernelir::FuncOp kernel) {
  SmallVector<kernelir::WgmmaOp> wgmmas;
  kernel.walk([&](kernelir::WgmmaOp op) { wgmmas.push_back(op); });
  Type f32 = rewriter.getF32Type();
  for (kernelir::WgmmaOp op : wgmmas) {
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    auto add = [&](Value x, int64_t c) -> Value {
      return arith::AddIOp::create(rewriter, loc, x, index(c));
    };
    // Warp q of the warpgroup owns rows 16 q + g (+ 8); lane = 4 g + t
    // owns columns 8 j + 2 t (+ 1).
    Value self = kernelThreadIndex(rewriter, loc, kernel.getBlock());
    Value warp = arith::DivUIOp::create(rewriter, loc, self, index(kWarpSize));
    Value lane = arith::RemUIOp::create(rewriter, loc, self, index(kWarpSize));
    Value q = arith::RemUIOp::create(rewriter, loc, warp, index(4));
    Value g = arith::DivUIOp::create(rewriter, loc, lane, index(4));
    Value t = arith::RemUIOp::create(rewriter, loc, lane, index(4));
    Value row0 = arith::AddIOp::create(
        rewriter, loc, arith::MulIOp::create(rewriter, loc, q, index(16)), g);
    Value col0 = arith::MulIOp::create(rewriter, loc, t, index(2));
    auto accType = op.getAcc().getType();
    SmallVector<Value> results;
    for (int64_t j = 0; j < accType.getDimSize(0); ++j)
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t i = 0; i < 2; ++i) {
          Value row = add(row0, 8 * h), col = add(col0, 8 * j + i);
          Value init = vector::ExtractOp::create(rewriter, loc, op.getAcc(),
                                                 ArrayRef<int64_t>{j, h, i});
          auto sum = scf::ForOp::create(
              rewriter, loc, index(0), index(op.getK()), index(1),
              ValueRange{init},
              [&](OpBuilder &b, Location loc, Value k, ValueRange acc) {
                auto widened = [&](Value x) -> Value {
                  return arith::ExtFOp::create(b, loc, f32, x);
                };
                Value a = readOperand(b, loc, op.getLhs(), op.getLhsIndices(),
                                      row, k, op.getLhsLayout());
                Value x = readOperand(b, loc, op.getRhs(), op.getRhsIndices(),
                                      col, k, op.getRhsLayout());
                Value product =
                    arith::MulFOp::create(b, loc, widened(a), widened(x));
                scf::YieldOp::create(
                    b, loc,
                    ValueRange{arith::AddFOp::create(b, loc, acc[0], product)});
              });
          results.push_back(sum.getResult(0));
        }
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, accType, results);
  }
  // An async wgmma computed as it was issued: its group is retired at
  // once, the waits have nothing to wait for.
  kernel.walk(
      [&](kernelir::WgmmaWaitOp op) { rewriter.replaceOp(op, op.getAccs()); });
  // The CPU's stores are visible to every later read: nothing to fence.
  kernel.walk([&](kernelir::ProxyFenceOp op) { rewriter.eraseOp(op); });
  // Register budgets are the GPU's alone.
  kernel.walk([&](kernelir::SetMaxRegistersOp op) { rewriter.eraseOp(op); });
}
