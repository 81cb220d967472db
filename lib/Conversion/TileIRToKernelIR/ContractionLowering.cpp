// The contraction lowerings' common part: which one a kernel takes, the
// shared operand chunks and the loop over steps of k that stages them.

#include "ContractionLowering.h"
#include "strata/Dialect/Utils/ScheduleModel.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace strata;
using namespace strata::detail;

std::unique_ptr<ContractionLowering>
strata::detail::chooseContractionLowering(KernelContext &ctx) {
  if (ctx.kernel.getBody().getOps<tileir::ContractOp>().empty())
    return nullptr;
  if (auto wgmma = createWgmmaContraction(ctx))
    return wgmma;
  if (auto mma = createMmaContraction(ctx))
    return mma;
  return createFmaContraction(ctx);
}

int64_t ContractionLowering::chooseAccumulatorPairWidth() {
  // A pair may not straddle the domain's edge (one guard covers it).
  if (kernel.getDomain().back() % 2 != 0 ||
      maxVectorWidth(
          llvm::to_vector(llvm::make_second_range(tileAccesses(kernel)))) < 2)
    return 1;
  return 2;
}

std::pair<Value, Value>
ContractionLowering::createChunks(tileir::ContractOp contract, Type element,
                                  bool rhsTransposed, bool fragments) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ctx.entry);
  size_t rank = kernel.getTile().size();
  int64_t rows = kernel.getTile()[rank - 2], cols = kernel.getTile()[rank - 1];
  int64_t step = contract.getStep();
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  // A pipelined contraction has a slot per stage.
  int64_t stages = contract.getStages();
  int64_t bytes = llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
  // Tensor-core fragments read the chunks in patterns whose bank conflicts
  // padding the rows removes; the padding is never read. A k x n chunk of
  // halves is read by ldmatrix .trans, 8 rows of 16 bytes at a time, like
  // the others; of tf32 element by element (see conflictFreeRowLength).
  auto shared = [&](int64_t r, int64_t c, bool rowsOfFour = true) -> Value {
    SmallVector<int64_t> shape{
        r, fragments ? conflictFreeRowLength(c, bytes, rowsOfFour) : c};
    // wgmma's core matrices: c runs along k, in blocks of 16 bytes.
    if (int64_t w = coreMatrixWidth())
      shape = {c / w, r, w};
    if (stages > 1)
      shape.insert(shape.begin(), stages);
    return kernelir::SharedOp::create(
        b, contract.getLoc(),
        MemRefType::get(shape, element, MemRefLayoutAttrInterface(),
                        workgroup));
  };
  Value lhs = shared(rows, step);
  return {lhs, rhsTransposed ? shared(cols, step)
                             : shared(step, cols, /*rowsOfFour=*/bytes == 2)};
}

ContractionLowering::ChunkShape
ContractionLowering::rhsChunkShape(tileir::ContractOp contract, bool narrow,
                                   bool transposed) {
  size_t rank = kernel.getTile().size();
  return {(int64_t)contract.getStep(),
          kernel.getTile()[rank - 1],
          true,
          rank - 2,
          narrow,
          transposed};
}

Value ContractionLowering::slotOf(Location loc, Value kt, int64_t stages) {
  if (stages == 1)
    return {};
  return arith::RemUIOp::create(b, loc, kt,
                                arith::ConstantIndexOp::create(b, loc, stages));
}

void ContractionLowering::stageAhead(Location loc, Value kt, int64_t stages,
                                     int64_t steps,
                                     function_ref<void(Value)> stage) {
  Value ahead = arith::AddIOp::create(
      b, loc, kt, arith::ConstantIndexOp::create(b, loc, stages - 1));
  Value more =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, ahead,
                            arith::ConstantIndexOp::create(b, loc, steps));
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, more, false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  stage(ahead);
}

scf::ForOp ContractionLowering::stagedLoop(
    tileir::ContractOp contract, Value lhsChunk, Value rhsChunk, Value zero,
    bool narrow, bool rhsTransposed, ValueRange init,
    function_ref<SmallVector<Value>(ValueRange, Value)> multiply) {
  Location loc = contract.getLoc();
  size_t rank = kernel.getTile().size();
  int64_t rows = kernel.getTile()[rank - 2];
  int64_t step = contract.getStep(), stages = contract.getStages();
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // lhs: rows x k; rhs: k x columns, stored transposed with rhsTransposed
  // (fields: rows, cols, rowIsK, dropped, narrow, transposed).
  ChunkShape lhsShape{rows, step, false, rank - 1, narrow, false};
  ChunkShape rhsShape = rhsChunkShape(contract, narrow, rhsTransposed);
  std::optional<AsyncCopy> lhsCopy = planAsyncCopy(contract.getLhs(), lhsShape);
  std::optional<AsyncCopy> rhsCopy = planAsyncCopy(contract.getRhs(), rhsShape);
  bool async = lhsCopy || rhsCopy;
  // Stages the chunks of step `kt` into `slot`.
  auto stageStep = [&](Value kt, Value slot) {
    Value k0 = arith::MulIOp::create(b, loc, kt, index(step));
    auto one = [&](Region &operand, Value chunk, const ChunkShape &shape,
                   const std::optional<AsyncCopy> &copy) {
      if (copy)
        stageAsync(operand, contract.getOrigin(), chunk, slot, shape, k0,
                   *copy);
      else
        stage(operand, contract.getOrigin(), chunk, slot, shape, k0, zero);
    };
    one(contract.getLhs(), lhsChunk, lhsShape, lhsCopy);
    one(contract.getRhs(), rhsChunk, rhsShape, rhsCopy);
  };
  auto commit = [&]() {
    if (async)
      kernelir::AsyncCommitOp::create(b, loc);
  };
  // Before the barrier after a wait: wgmma reads the chunks through the
  // async proxy, which sees this thread's writes only after a fence.
  auto wait = [&](int64_t pending) {
    if (async)
      kernelir::AsyncWaitOp::create(b, loc, pending);
    if (coreMatrixWidth())
      kernelir::ProxyFenceOp::create(b, loc);
  };
  int64_t steps = llvm::divideCeil(contract.getK(), step);
  if (stages == 1)
    return ctx.buildLoop(loc, index(0), index(steps), index(1), init,
                         [&](Value kt, ValueRange acc) -> SmallVector<Value> {
                           stageStep(kt, Value());
                           commit();
                           wait(0);
                           kernelir::BarrierOp::create(b, loc);
                           SmallVector<Value> next = multiply(acc, Value());
                           kernelir::BarrierOp::create(b, loc);
                           return next;
                         });
  // The prologue fills the first stages - 1 slots; every step commits one
  // group (empty ones too), so that before step kt's wait the groups of
  // steps up to kt + stages - 2 are committed: stages - 2 may stay pending.
  for (int64_t s = 0; s + 1 < stages; ++s) {
    if (s < steps)
      stageStep(index(s), index(s));
    commit();
  }
  return ctx.buildLoop(
      loc, index(0), index(steps), index(1), init,
      [&](Value kt, ValueRange acc) -> SmallVector<Value> {
        wait(stages - 2);
        // Step kt's chunks are visible, and every thread is done with step
        // kt - 1, whose slot the next copies overwrite.
        kernelir::BarrierOp::create(b, loc);
        stageAhead(loc, kt, stages, steps, [&](Value ahead) {
          stageStep(ahead, slotOf(loc, ahead, stages));
        });
        commit();
        return multiply(acc, slotOf(loc, kt, stages));
      });
}
