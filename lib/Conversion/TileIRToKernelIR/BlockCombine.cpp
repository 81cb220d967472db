// Combining one value per thread into one value per block, in kernelir: the
// shape of the tree (shuffles within warps, shared memory across them) is a
// hardware decision, so it is made here and not in Tile IR.

#include "BlockCombine.h"
#include "strata/Conversion/LoopIRCommon/ScalarLoops.h"
#include "strata/Dialect/KernelIR/IR/KernelIR.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
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

/// One shared buffer of `slots` elements per value, declared at the start
/// of `kernelEntry`: where the warps post their results.
static SmallVector<Value> declarePosts(OpBuilder &b, Location loc,
                                       Block &kernelEntry, ValueRange values,
                                       int64_t slots) {
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&kernelEntry);
  SmallVector<Value> posts;
  for (Value v : values)
    posts.push_back(kernelir::SharedOp::create(
        b, loc,
        MemRefType::get({slots}, v.getType(), MemRefLayoutAttrInterface(),
                        workgroup)));
  return posts;
}

SmallVector<Value> strata::combineAcrossBlock(
    OpBuilder &b, Location loc, Block &kernelEntry, Value thread,
    int64_t threads, const KernelMonoid &monoid, ValueRange partials) {
  SmallVector<Value> values(partials);
  // A group of fewer lanes than a warp (a power of two, aligned) combines
  // within itself.
  butterfly(b, loc, std::min<int64_t>(threads, kWarpSize), monoid, values);
  int64_t warps = threads / kWarpSize;
  if (warps <= 1)
    return values;

  SmallVector<Value> posts = declarePosts(b, loc, kernelEntry, values, warps);
  Value warpSize = arith::ConstantIndexOp::create(b, loc, kWarpSize);
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
  butterfly(b, loc, kWarpSize, monoid, values);
  return values;
}

BlockScan strata::scanAcrossBlock(OpBuilder &b, Location loc,
                                  Block &kernelEntry, Value blockThread,
                                  Value thread, int64_t threads,
                                  const KernelMonoid &monoid,
                                  ValueRange values) {
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  int64_t width = std::min<int64_t>(threads, kWarpSize);
  // The lane within the warp, and within its aligned group of `width`.
  Value lane = arith::RemUIOp::create(b, loc, blockThread, index(kWarpSize));
  Value member = arith::RemUIOp::create(b, loc, thread, index(width));
  BlockScan scan;
  scan.prefix.assign(values.begin(), values.end());
  for (int64_t offset = 1; offset < width; offset *= 2) {
    Value distance = arith::ConstantIntOp::create(b, loc, offset, 32);
    SmallVector<Value> earlier;
    for (Value v : scan.prefix)
      earlier.push_back(kernelir::ShuffleOp::create(b, loc, v, distance,
                                                    kernelir::ShuffleMode::UP));
    // Lanes fewer than `offset` into their group have no such lane.
    Value has = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, member,
                                      index(offset));
    SmallVector<Value> combined = monoid.combine(b, loc, earlier, scan.prefix);
    for (auto [p, c] : llvm::zip(scan.prefix, combined))
      p = arith::SelectOp::create(b, loc, has, c, p);
  }
  int64_t warps = threads / kWarpSize;
  if (width == 1) { // A thread alone is its group.
    scan.total = scan.prefix;
    return scan;
  }
  if (warps <= 1) {
    // The group's last lane holds its fold.
    Value last = arith::IndexCastOp::create(
        b, loc, b.getI32Type(),
        arith::OrIOp::create(b, loc, lane, index(width - 1)));
    for (Value p : scan.prefix)
      scan.total.push_back(kernelir::ShuffleOp::create(
          b, loc, p, last, kernelir::ShuffleMode::IDX));
    return scan;
  }
  SmallVector<Value> posts =
      declarePosts(b, loc, kernelEntry, scan.prefix, warps);
  Value warp = arith::DivUIOp::create(b, loc, thread, index(kWarpSize));
  Value poster = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                       index(kWarpSize - 1));
  for (auto [p, post] : llvm::zip(scan.prefix, posts))
    kernelir::StoreOp::create(b, loc, p, post, ValueRange{warp}, poster);
  kernelir::BarrierOp::create(b, loc);
  // Fold the posts in warp order: those before this thread's warp into its
  // prefix, all into the total.
  SmallVector<Value> init;
  for (TypedAttr identity : monoid.identity)
    init.push_back(arith::ConstantOp::create(b, loc, identity));
  init.append(init);
  size_t n = posts.size();
  auto loop = scf::ForOp::create(
      b, loc, index(0), index(warps), index(1), init,
      [&](OpBuilder &nested, Location loc, Value w, ValueRange carried) {
        SmallVector<Value> post;
        for (Value buffer : posts)
          post.push_back(
              kernelir::LoadOp::create(nested, loc, buffer, ValueRange{w}));
        ValueRange before = carried.take_front(n), all = carried.drop_front(n);
        Value earlier = arith::CmpIOp::create(
            nested, loc, arith::CmpIPredicate::ult, w, warp);
        SmallVector<Value> next;
        for (auto [x, c] :
             llvm::zip(before, monoid.combine(nested, loc, before, post)))
          next.push_back(arith::SelectOp::create(nested, loc, earlier, c, x));
        llvm::append_range(next, monoid.combine(nested, loc, all, post));
        scf::YieldOp::create(nested, loc, next);
      });
  ValueRange results = loop.getResults();
  scan.prefix = monoid.combine(b, loc, results.take_front(n), scan.prefix);
  scan.total.assign(results.begin() + n, results.end());
  kernelir::BarrierOp::create(b, loc);
  return scan;
}
