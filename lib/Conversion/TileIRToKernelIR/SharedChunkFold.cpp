// Folds whose rows share chunks: the Q-tile schedule of a row program.
//
// A row program with several rows per program instance (one thread group
// each) whose fold reads some elements alike for every row (attention's
// keys and values, which each query row folds over; a matrix-vector
// product's weight) would read them once per row, from L2 at best. Here the
// block stages each chunk of them in shared memory once, and every group
// folds its row's points of the chunk from there: flash attention's loop
// over key/value tiles, with the row's online-softmax fold as the algebra.

#include "TileBodyTranslator.h"
#include "strata/Dialect/Utils/LoopBox.h"
#include "strata/Dialect/Utils/ScheduleModel.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace strata;
using namespace strata::detail;

namespace {
/// The shared memory the chunks of one kernel's folds may take (row caches
/// take what is left of kStaticSharedMemoryBytes, up to their own bound).
constexpr int64_t kMaxSharedChunkBytes = 24 * 1024;
/// The most points of a chunk, and the fewest worth a barrier pair.
constexpr int64_t kMaxChunkPoints = 64;
constexpr int64_t kMinChunkPoints = 8;

/// The chunk of a shared load as stored: the chunk's points, then the
/// inner loops' iterations; the last dimension padded to an odd length
/// where it is even, so that the lanes of a group, which read neighbouring
/// points, hit different banks.
SmallVector<int64_t> chunkShape(const tileir::SharedChunkLoad &load,
                                int64_t points) {
  SmallVector<int64_t> shape = {points};
  llvm::append_range(shape, load.innerBounds);
  if (shape.size() > 1 && shape.back() % 2 == 0)
    ++shape.back();
  return shape;
}

int64_t elementBytes(const tileir::SharedChunkLoad &load) {
  return llvm::divideCeil(
      load.load->getResult(0).getType().getIntOrFloatBitWidth(), 8);
}
} // namespace

void TileBodyTranslator::planSharedChunks() {
  if (groups == 1)
    return;
  SmallVector<bool> tiled;
  for (int64_t t : kernel.getTile())
    tiled.push_back(t > 1);
  DenseMap<Operation *, SmallVector<tileir::SharedChunkLoad>> planned;
  int64_t bytesPerPoint = 0, longest = 0;
  for (Operation &op : kernel.getBody().front()) {
    if (!isa<tileir::FoldOp, tileir::CompositeFoldOp>(op))
      continue;
    SmallVector<tileir::SharedChunkLoad> loads =
        tileir::findSharedChunkLoads(&op, tiled);
    if (loads.empty() ||
        !llvm::all_of(loads, [](const tileir::SharedChunkLoad &l) {
          return l.load->getResult(0).getType().isIntOrFloat();
        }))
      continue;
    for (const tileir::SharedChunkLoad &l : loads)
      bytesPerPoint += computeProduct(chunkShape(l, 1)) * elementBytes(l);
    longest = std::max(longest,
                       computeProduct(tileir::getCooperativeLoop(&op)->second));
    planned[&op] = std::move(loads);
  }
  if (planned.empty())
    return;
  int64_t points = std::min<int64_t>(kMaxChunkPoints,
                                     llvm::PowerOf2Ceil(longest));
  while (points >= kMinChunkPoints &&
         points * bytesPerPoint > kMaxSharedChunkBytes)
    points /= 2;
  if (points < kMinChunkPoints)
    return;
  chunkPoints = points;
  sharedChunks = std::move(planned);
  sharedChunkBytes = points * bytesPerPoint;
}

LogicalResult TileBodyTranslator::translateChunkedFold(
    Operation *fold, const KernelMonoid &monoid, Block &body,
    ArrayRef<int64_t> bounds, ArrayRef<tileir::SharedChunkLoad> loads) {
  Location loc = fold->getLoc();
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  int64_t points = computeProduct(bounds);
  SmallVector<Value> chunks;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(entry);
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    for (const tileir::SharedChunkLoad &l : loads)
      chunks.push_back(kernelir::SharedOp::create(
          b, loc,
          MemRefType::get(chunkShape(l, chunkPoints),
                          l.load->getResult(0).getType(),
                          MemRefLayoutAttrInterface(), workgroup)));
  }
  SmallVector<Value> init;
  for (TypedAttr identity : monoid.identity)
    init.push_back(arith::ConstantOp::create(b, loc, identity));
  Value last = index(points - 1);
  auto chunkLoop = buildLoop(
      loc, index(0), index(points), index(chunkPoints), init,
      [&](Value first, ValueRange acc) {
        // The chunk's buffers are free once every group folded the last one.
        kernelir::BarrierOp::create(b, loc);
        for (auto [l, chunk] : llvm::zip(loads, chunks)) {
          SmallVector<int64_t> box = {chunkPoints};
          llvm::append_range(box, l.innerBounds);
          buildLoop(loc, thread, index(computeProduct(box)),
                    index(kernel.getThreads()), {},
                    [&](Value element, ValueRange) {
                      SmallVector<Value> at = delinearize(b, loc, element, box);
                      // Past the fold's last point: a copy of the last point
                      // (in bounds), which no group reads.
                      Value point = arith::MinUIOp::create(
                          b, loc, arith::AddIOp::create(b, loc, first, at[0]),
                          last);
                      IRMapping m = mapping;
                      m.map(body.getArguments(),
                            delinearize(b, loc, point, bounds));
                      for (auto [iv, i] :
                           llvm::zip(l.inner, ArrayRef(at).drop_front()))
                        m.map(iv, i);
                      for (Value operand : l.load->getOperands())
                        if (auto c = operand.getDefiningOp<arith::ConstantOp>();
                            c && fold->isAncestor(c))
                          b.clone(*c, m);
                      Value v = b.clone(*l.load, m)->getResult(0);
                      kernelir::StoreOp::create(b, loc, v, chunk, at, Value());
                      return SmallVector<Value>();
                    });
        }
        kernelir::BarrierOp::create(b, loc);
        // This thread's points of the chunk: groupThread, + groupThreads, ...
        Value end = arith::MinUIOp::create(
            b, loc, index(chunkPoints),
            arith::SubIOp::create(b, loc, index(points), first));
        auto own = buildLoop(
            loc, groupThread, end, index(groupThreads), acc,
            [&](Value offset, ValueRange carried) {
              Value point = arith::AddIOp::create(b, loc, first, offset);
              IRMapping m = cloneLoopBody(
                  b, body, delinearize(b, loc, point, bounds), mapping);
              // The shared loads read their chunk instead: their copies
              // are changed in place (new ops of the conversion, so nothing
              // is erased under the rewriter).
              for (auto [l, chunk] : llvm::zip(loads, chunks)) {
                auto copy =
                    m.lookup(l.load->getResult(0)).getDefiningOp<loopir::LoadOp>();
                SmallVector<Value> operands = {chunk, offset};
                for (BlockArgument iv : l.inner)
                  operands.push_back(m.lookup(iv));
                copy->setOperands(operands);
                copy.removeMapAttr();
                copy.removeGuardAttr();
                copy.removePaddingAttr();
              }
              SmallVector<Value> contribution;
              for (Value x : body.getTerminator()->getOperands())
                contribution.push_back(m.lookupOrDefault(x));
              return monoid.combine(b, loc, carried, contribution);
            });
        return SmallVector<Value>(own.getResults());
      });
  mapping.map(fold->getResults(),
              combineAcrossBlock(b, loc, *entry, groupThread, groupThreads,
                                 monoid, chunkLoop.getResults()));
  return success();
}
