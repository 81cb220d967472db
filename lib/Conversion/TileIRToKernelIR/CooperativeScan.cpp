// The cooperative scan of a row program: a block walks its row in chunks of
// one point per thread, scans each chunk across its threads and offsets it
// by the fold of the chunks before it, which every thread carries in
// registers. Work is linear in the row (plus a ladder of log2(32) shuffles
// per chunk), and the row is read and written once, coalesced.

#include "RowProgramTranslator.h"
#include "strata/Conversion/LoopIRCommon/ScalarLoops.h"

using namespace mlir;
using namespace strata;
using namespace strata::detail;

LogicalResult RowProgramTranslator::translateScan(tileir::ScanOp scan) {
  return translateCooperativeScan(
      scan, combinerMonoid(scan.getCombinerList(), scan.getPrefixTypes()),
      scan.getBody().front(), scan.getEach().front(), scan.getBounds()[0]);
}

LogicalResult
RowProgramTranslator::translateCompositeScan(tileir::CompositeScanOp scan) {
  return translateCooperativeScan(
      scan, regionMonoid(scan.getIdentities(), &scan.getCombine().front()),
      scan.getBody().front(), scan.getEach().front(), scan.getBounds()[0]);
}

LogicalResult RowProgramTranslator::translateCooperativeScan(
    Operation *scan, const KernelMonoid &monoid, Block &body, Block &each,
    int64_t length) {
  Location loc = scan->getLoc();
  if (failed(verifyCooperativeGroup(scan, "scan")))
    return failure();
  for (TypedAttr identity : monoid.identity) {
    Type type = identity.getType();
    if (!(type.isF32() || type.isF64() || type.isInteger(32) ||
          type.isInteger(64)))
      return scan->emitError("a cooperative scan shuffles i32, i64, f32 or "
                             "f64 prefixes, not ")
             << type;
  }
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  SmallVector<Value> identities;
  for (TypedAttr identity : monoid.identity)
    identities.push_back(arith::ConstantOp::create(b, loc, identity));
  // Every thread of the group runs every chunk (the scan's barriers need
  // them all); points past the row contribute the identity.
  buildLoop(loc, index(0), index(length), index(groupThreads), identities,
            [&](Value chunk, ValueRange carry) {
              Value point = arith::AddIOp::create(b, loc, chunk, groupThread);
              Value inRow = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::ult, point, index(length));
              Value clamped =
                  arith::MinUIOp::create(b, loc, point, index(length - 1));
              IRMapping contribution = cloneLoopBody(b, body, clamped, mapping);
              SmallVector<Value> values;
              for (auto [v, identity] :
                   llvm::zip(body.getTerminator()->getOperands(), identities))
                values.push_back(arith::SelectOp::create(
                    b, loc, inRow, contribution.lookupOrDefault(v), identity));
              BlockScan chunkScan =
                  scanAcrossBlock(b, loc, *entry, thread, groupThread,
                                  groupThreads, monoid, values);
              SmallVector<Value> prefixes =
                  monoid.combine(b, loc, carry, chunkScan.prefix);
              // A group past the domain (the last program's) writes nothing.
              Value writes = rowInDomain ? arith::AndIOp::create(b, loc, inRow,
                                                                 rowInDomain)
                                         : inRow;
              {
                OpBuilder::InsertionGuard guard(b);
                auto write = scf::IfOp::create(b, loc, TypeRange{}, writes,
                                               /*withElseRegion=*/false);
                b.setInsertionPoint(write.thenBlock()->getTerminator());
                SmallVector<Value> arguments{point};
                llvm::append_range(arguments, prefixes);
                cloneLoopBody(b, each, arguments, mapping);
              }
              return monoid.combine(b, loc, carry, chunkScan.total);
            });
  return success();
}
