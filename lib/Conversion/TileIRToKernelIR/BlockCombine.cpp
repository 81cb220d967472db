// Combining one value per thread into one value per block, in kernelir: the
// shape of the tree (shuffles within warps, shared memory across them) is a
// hardware decision, so it is made here and not in Tile IR.

#include "BlockCombine.h"
#include "strata/Conversion/LoopIRCommon/ScalarLoops.h"
#include "strata/Dialect/KernelIR/IR/KernelIR.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace strata;

KernelMonoid KernelMonoid::primitive(ArrayRef<MonoidKind> kinds,
                                     TypeRange types) {
  KernelMonoid monoid;
  for (auto [kind, type] : llvm::zip(kinds, types))
    monoid.identity.push_back(getMonoidIdentity(kind, type));
  SmallVector<MonoidKind> components(kinds);
  monoid.combine = [components](OpBuilder &b, Location loc, ValueRange x,
                                ValueRange y) {
    SmallVector<Value> result;
    for (auto [kind, a, c] : llvm::zip(components, x, y))
      result.push_back(combineScalars(b, loc, kind, a, c));
    return result;
  };
  return monoid;
}

/// Folds each element with those of the lanes `width / 2, ..., 2, 1` away
/// (xor): afterwards every lane of each aligned group of `width` lanes holds
/// the group's result.
static void butterfly(OpBuilder &b, Location loc, int64_t width,
                      const KernelMonoid &monoid,
                      SmallVectorImpl<Value> &values) {
  for (int64_t offset = width / 2; offset >= 1; offset /= 2) {
    Value distance = arith::ConstantIntOp::create(b, loc, offset, 32);
    SmallVector<Value> others;
    for (Value v : values)
      others.push_back(kernelir::ShuffleOp::create(b, loc, v, distance,
                                                   kernelir::ShuffleMode::XOR));
    SmallVector<Value> combined = monoid.combine(b, loc, values, others);
    values.assign(combined.begin(), combined.end());
  }
}

SmallVector<Value> strata::combineAcrossBlock(
    OpBuilder &b, Location loc, Block &kernelEntry, Value thread,
    int64_t threads, const KernelMonoid &monoid, ValueRange partials) {
  SmallVector<Value> values(partials);
  // A group of fewer lanes than a warp (a power of two, aligned) combines
  // within itself.
  butterfly(b, loc, std::min<int64_t>(threads, kernelir::kWarpSize), monoid,
            values);
  int64_t warps = threads / kernelir::kWarpSize;
  if (warps <= 1)
    return values;

  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  SmallVector<Value> posts;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&kernelEntry);
    for (Value v : values)
      posts.push_back(kernelir::SharedOp::create(
          b, loc,
          MemRefType::get({warps}, v.getType(), MemRefLayoutAttrInterface(),
                          workgroup)));
  }
  Value warpSize = arith::ConstantIndexOp::create(b, loc, kernelir::kWarpSize);
  Value lane = arith::RemUIOp::create(b, loc, thread, warpSize);
  Value warp = arith::DivUIOp::create(b, loc, thread, warpSize);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value leader =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, zero);
  for (auto [v, post] : llvm::zip(values, posts))
    kernelir::StoreOp::create(b, loc, v, post, ValueRange{warp}, leader);
  kernelir::BarrierOp::create(b, loc);
  // Every warp reads all posts and folds them, so every thread gets the
  // result without a second barrier. With a power-of-two number of warps,
  // each aligned group of `warps` lanes reads every post once and a
  // butterfly of that width suffices; otherwise lanes past the last post
  // take the identity and the butterfly spans the warp.
  if (llvm::isPowerOf2_64(warps)) {
    Value slot = arith::RemUIOp::create(
        b, loc, lane, arith::ConstantIndexOp::create(b, loc, warps));
    for (auto [i, post] : llvm::enumerate(posts))
      values[i] = kernelir::LoadOp::create(b, loc, post, ValueRange{slot});
    butterfly(b, loc, warps, monoid, values);
    return values;
  }
  Value hasPost =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lane,
                            arith::ConstantIndexOp::create(b, loc, warps));
  for (auto [i, post] : llvm::enumerate(posts)) {
    Value read =
        kernelir::LoadOp::create(b, loc, post, ValueRange{lane}, hasPost);
    Value identity = arith::ConstantOp::create(b, loc, monoid.identity[i]);
    values[i] = arith::SelectOp::create(b, loc, hasPost, read, identity);
  }
  butterfly(b, loc, kernelir::kWarpSize, monoid, values);
  return values;
}
