// The tile body translation of tileir.contract: operand chunks staged
// through shared memory per step of k, fused multiply-adds per thread.

#include "TileBodyTranslator.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace strata;
using namespace strata::detail;

LogicalResult
TileBodyTranslator::translateContract(tileir::ContractOp contract) {
  Location loc = contract.getLoc();
  ArrayRef<int64_t> tile = kernel.getTile();
  size_t rank = tile.size();
  for (size_t d = 0; d + 2 < rank; ++d)
    if (tile[d] != 1)
      return contract.emitError("a contraction's batch dimensions need "
                                "tile size 1");
  int64_t rows = tile[rank - 2], cols = tile[rank - 1];
  int64_t step = contract.getStep();
  Type element = contract.getResult().getType().getElementType();
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto shared = [&](int64_t r, int64_t c) -> Value {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(entry);
    return kernelir::SharedOp::create(
        b, loc,
        MemRefType::get({r, c}, element, MemRefLayoutAttrInterface(),
                        workgroup));
  };
  Value lhsChunk = shared(rows, step), rhsChunk = shared(step, cols);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // This thread's result elements (row, column in the tile): its register
  // tile (assignRegisterTiles) or its strided elements.
  SmallVector<std::pair<Value, Value>> owned;
  for (int64_t m = 0; m < elementsPerThread; ++m)
    owned.push_back({elementCoords[m][rank - 2], elementCoords[m][rank - 1]});
  SmallVector<Value> init(elementsPerThread, zero);
  int64_t steps = llvm::divideCeil(contract.getK(), step);
  auto kLoop = scf::ForOp::create(
      b, loc, index(0), index(steps), index(1), init,
      [&](OpBuilder &nested, Location loc, Value kt, ValueRange acc) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nested.getInsertionBlock(),
                            nested.getInsertionPoint());
        Value k0 = arith::MulIOp::create(b, loc, kt, index(step));
        stage(contract.getLhs(), contract.getOrigin(), lhsChunk, rows, step,
              /*chunkRowIsK=*/false, rank - 1, k0, zero);
        stage(contract.getRhs(), contract.getOrigin(), rhsChunk, step, cols,
              /*chunkRowIsK=*/true, rank - 2, k0, zero);
        kernelir::BarrierOp::create(b, loc);
        auto inner = scf::ForOp::create(
            b, loc, index(0), index(step), index(1), acc,
            [&](OpBuilder &nested, Location loc, Value kk, ValueRange partial) {
              OpBuilder::InsertionGuard guard(b);
              b.setInsertionPoint(nested.getInsertionBlock(),
                                  nested.getInsertionPoint());
              SmallVector<Value> next;
              // One shared load per distinct row and column of the
              // thread's elements.
              DenseMap<Value, Value> lhsLoads, rhsLoads;
              for (auto [m, coords] : llvm::enumerate(owned)) {
                Value &a = lhsLoads[coords.first];
                if (!a)
                  a = kernelir::LoadOp::create(b, loc, lhsChunk,
                                               ValueRange{coords.first, kk});
                Value &bv = rhsLoads[coords.second];
                if (!bv)
                  bv = kernelir::LoadOp::create(b, loc, rhsChunk,
                                                ValueRange{kk, coords.second});
                next.push_back(math::FmaOp::create(b, loc, a, bv, partial[m]));
              }
              scf::YieldOp::create(b, loc, next);
            });
        kernelir::BarrierOp::create(b, loc);
        scf::YieldOp::create(b, loc, inner.getResults());
      });
  scalars[contract.getResult()] = SmallVector<Value>(kLoop.getResults());
  return success();
}

void TileBodyTranslator::stage(Region &operand, ValueRange origin, Value chunk,
                               int64_t chunkRows, int64_t chunkCols,
                               bool chunkRowIsK, size_t dropped, Value k0,
                               Value zero) {
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
      IRMapping args = mapping;
      Block &body = operand.front();
      args.map(body.getArguments(), coords);
      for (Operation &op : body.without_terminator())
        b.clone(op, args);
      return args.lookupOrDefault(body.getTerminator()->getOperand(0));
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
    kernelir::StoreOp::create(b, loc, value, chunk, ValueRange{r, c});
  }
}
