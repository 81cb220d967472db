// The tile body translation of tileir.contract: operand chunks staged
// through shared memory per step of k, fused multiply-adds per thread.

#include "TileBodyTranslator.h"
#include "strata/Dialect/Utils/LoopBox.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace strata;
using namespace strata::detail;

LogicalResult
TileBodyTranslator::translateContract(tileir::ContractOp contract) {
  if (mma)
    return translateMmaContract(contract);
  Location loc = contract.getLoc();
  ArrayRef<int64_t> tile = kernel.getTile();
  size_t rank = tile.size();
  for (size_t d = 0; d + 2 < rank; ++d)
    if (tile[d] != 1)
      return contract.emitError("a contraction's batch dimensions need "
                                "tile size 1");
  int64_t step = contract.getStep();
  Type element = contract.getResult().getType().getElementType();
  Value lhsChunk, rhsChunk;
  std::tie(lhsChunk, rhsChunk) = createChunks(contract, element);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // Per step of k: stage both chunks, then each thread multiplies into its
  // elements (elementCoords: its register tile).
  auto multiply = [&](Value kk, ValueRange partial) {
    SmallVector<Value> next;
    // One shared load per distinct row and column of the thread's elements.
    DenseMap<Value, Value> lhsLoads, rhsLoads;
    for (auto [m, coords] : llvm::enumerate(elementCoords)) {
      Value row = coords[rank - 2], col = coords[rank - 1];
      Value &a = lhsLoads[row];
      if (!a)
        a = kernelir::LoadOp::create(b, loc, lhsChunk, ValueRange{row, kk});
      Value &bv = rhsLoads[col];
      if (!bv)
        bv = kernelir::LoadOp::create(b, loc, rhsChunk, ValueRange{kk, col});
      next.push_back(math::FmaOp::create(b, loc, a, bv, partial[m]));
    }
    return next;
  };
  SmallVector<Value> init(elementsPerThread, zero);
  auto kLoop = stagedLoop(contract, lhsChunk, rhsChunk, zero,
                          /*narrow=*/false, /*rhsTransposed=*/false, init,
                          [&](ValueRange acc) {
                            auto inner = buildLoop(loc, index(0), index(step),
                                                   index(1), acc, multiply);
                            return SmallVector<Value>(inner.getResults());
                          });
  scalars[contract.getResult()] = SmallVector<Value>(kLoop.getResults());
  return success();
}

std::pair<Value, Value>
TileBodyTranslator::createChunks(tileir::ContractOp contract, Type element,
                                 bool rhsTransposed) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(entry);
  size_t rank = kernel.getTile().size();
  int64_t rows = kernel.getTile()[rank - 2], cols = kernel.getTile()[rank - 1];
  int64_t step = contract.getStep();
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto shared = [&](int64_t r, int64_t c) -> Value {
    return kernelir::SharedOp::create(
        b, contract.getLoc(),
        MemRefType::get({r, c}, element, MemRefLayoutAttrInterface(),
                        workgroup));
  };
  Value lhs = shared(rows, step);
  return {lhs, rhsTransposed ? shared(cols, step) : shared(step, cols)};
}

scf::ForOp TileBodyTranslator::stagedLoop(
    tileir::ContractOp contract, Value lhsChunk, Value rhsChunk, Value zero,
    bool narrow, bool rhsTransposed, ValueRange init,
    function_ref<SmallVector<Value>(ValueRange)> multiply) {
  Location loc = contract.getLoc();
  size_t rank = kernel.getTile().size();
  int64_t rows = kernel.getTile()[rank - 2], cols = kernel.getTile()[rank - 1];
  int64_t step = contract.getStep();
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  int64_t steps = llvm::divideCeil(contract.getK(), step);
  return buildLoop(
      loc, index(0), index(steps), index(1), init,
      [&](Value kt, ValueRange acc) -> SmallVector<Value> {
        Value k0 = arith::MulIOp::create(b, loc, kt, index(step));
        stage(contract.getLhs(), contract.getOrigin(), lhsChunk, rows, step,
              /*chunkRowIsK=*/false, rank - 1, k0, zero, narrow);
        stage(contract.getRhs(), contract.getOrigin(), rhsChunk, step, cols,
              /*chunkRowIsK=*/true, rank - 2, k0, zero, narrow, rhsTransposed);
        kernelir::BarrierOp::create(b, loc);
        SmallVector<Value> next = multiply(acc);
        kernelir::BarrierOp::create(b, loc);
        return next;
      });
}

void TileBodyTranslator::stage(Region &operand, ValueRange origin, Value chunk,
                               int64_t chunkRows, int64_t chunkCols,
                               bool chunkRowIsK, size_t dropped, Value k0,
                               Value zero, bool narrow, bool transposed) {
  Location loc = operand.getLoc();
  ArrayRef<int64_t> domain = kernel.getDomain();
  size_t rank = domain.size();
  int64_t threads = kernel.getThreads(), total = chunkRows * chunkCols;
  int64_t k = cast<tileir::ContractOp>(operand.getParentOp()).getK();
  size_t varied = dropped == rank - 1 ? rank - 2 : rank - 1;
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  for (int64_t first = 0; first < total; first += threads) {
    OpBuilder::InsertionGuard guard(b);
    Value e = arith::AddIOp::create(b, loc, thread, index(first));
    if (first + threads > total) { // The last round: some threads idle.
      Value active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, e,
                                           index(total));
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, active, false);
      b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    }
    Value r = arith::DivUIOp::create(b, loc, e, index(chunkCols));
    Value c = arith::RemUIOp::create(b, loc, e, index(chunkCols));
    Value kk = chunkRowIsK ? r : c, along = chunkRowIsK ? c : r;
    Value kg = arith::AddIOp::create(b, loc, k0, kk);
    Value point =
        arith::AddIOp::create(b, loc, mapping.lookup(origin[varied]), along);
    // Outside the domain or past k the operand is zero.
    Value inside;
    auto require = [&](Value v, int64_t bound) {
      Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, v,
                                       index(bound));
      inside = inside ? arith::AndIOp::create(b, loc, inside, ok) : ok;
    };
    if (domain[varied] % kernel.getTile()[varied] != 0)
      require(point, domain[varied]);
    if (k % (chunkRowIsK ? chunkRows : chunkCols) != 0)
      require(kg, k);
    SmallVector<Value> coords;
    for (size_t d = 0; d < rank; ++d)
      if (d != dropped)
        coords.push_back(d == varied ? point : mapping.lookup(origin[d]));
    coords.push_back(kg);
    auto evaluate = [&]() -> Value {
      Block &body = operand.front();
      Value result = body.getTerminator()->getOperand(0);
      if (narrow)
        result = result.getDefiningOp<arith::ExtFOp>().getIn();
      return cloneLoopBody(b, body, coords, mapping).lookupOrDefault(result);
    };
    Value value;
    if (!inside) {
      value = evaluate();
    } else {
      auto ifOp = scf::IfOp::create(b, loc, zero.getType(), inside, true);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(b, loc, evaluate());
      b.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(b, loc, zero);
      value = ifOp.getResult(0);
    }
    kernelir::StoreOp::create(b, loc, value, chunk,
                              transposed ? ValueRange{c, r} : ValueRange{r, c});
  }
}
