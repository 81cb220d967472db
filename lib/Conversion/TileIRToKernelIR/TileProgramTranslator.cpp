// The tile programs' translation (elementwise, generic and contraction
// kernels): each thread owns elements of the tile, or runs of neighbouring
// ones, and runs the tile's loads, maps, stores and generic points for
// each; the contractions go to their instruction family's
// ContractionLowering.

#include "TileProgramTranslator.h"
#include "strata/Conversion/LoopIRCommon/ScalarLoops.h"
#include "strata/Dialect/Utils/LoopBox.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace strata;
using namespace strata::detail;

void TileProgramTranslator::prepare() {
  contraction = chooseContractionLowering(*this);
  if (contraction && contraction->assignElements())
    return;
  // Thread t owns runs of `vectorWidth` neighbouring elements: run r is
  // elements (r * threads + t) * vectorWidth + 0, 1, ..., so neighbouring
  // threads still touch neighbouring addresses.
  Location loc = kernel.getLoc();
  vectorWidth = chooseVectorWidth();
  int64_t threads = kernel.getThreads();
  Value first = thread;
  if (vectorWidth > 1)
    first = arith::MulIOp::create(
        b, loc, thread, arith::ConstantIndexOp::create(b, loc, vectorWidth));
  for (int64_t k = 0; k < elementsPerThread; ++k) {
    int64_t offset =
        (k / vectorWidth) * threads * vectorWidth + k % vectorWidth;
    Value element = first;
    if (offset > 0)
      element = arith::AddIOp::create(
          b, loc, first, arith::ConstantIndexOp::create(b, loc, offset));
    elementCoords.push_back(delinearize(b, loc, element, kernel.getTile()));
  }
}

LogicalResult TileProgramTranslator::translateProgramOp(Operation &op) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case([&](tileir::LoadOp load) { return translateLoad(load); })
      .Case([&](tileir::CoordinateOp coordinate) {
        return translateCoordinate(coordinate);
      })
      .Case([&](tileir::StoreOp store) { return translateStore(store); })
      .Case([&](tileir::MapOp map) { return translateMap(map); })
      .Case([&](tileir::ForEachPointOp points) {
        return translatePoints(points);
      })
      .Case([&](tileir::ContractOp contract) {
        return contraction->lower(contract);
      })
      .Default([&](Operation *other) {
        return other->emitError("cannot lower this op to kernelir yet");
      });
}

/// Whether the tile access through `map` to `buffer` reads a row run for
/// runs of `width` points along the tile's innermost dimension.
static bool isVectorAccess(AffineMap map, MemRefType buffer, int64_t width) {
  unsigned inner = map.getNumDims() - 1;
  return isRowRun(
      map, [&](unsigned d) { return d == inner; }, buffer, width);
}

int64_t TileProgramTranslator::chooseVectorWidth() {
  SmallVector<std::pair<AffineMap, MemRefType>> accesses = tileAccesses(kernel);
  // The widest vector whose accesses stay within kMaxVectorBits for every
  // buffer, and whose runs neither straddle the tile nor the domain's edge
  // (so one guard covers a whole run).
  int64_t width =
      maxVectorWidth(llvm::to_vector(llvm::make_second_range(accesses)));
  for (; width > 1; width /= 2) {
    if (kernel.getTile().back() % width != 0 ||
        kernel.getDomain().back() % width != 0 ||
        elementsPerThread % width != 0)
      continue;
    if (llvm::any_of(accesses, [&](auto access) {
          return isVectorAccess(access.first, access.second, width);
        }))
      return width;
  }
  return 1;
}

int64_t TileProgramTranslator::runWidth(AffineMap map, Value buffer) {
  if (vectorWidth > 1 &&
      isVectorAccess(map, cast<MemRefType>(buffer.getType()), vectorWidth))
    return vectorWidth;
  return 1;
}

LogicalResult TileProgramTranslator::translateLoad(tileir::LoadOp load) {
  Location loc = load.getLoc();
  Value buffer = mapping.lookup(load.getMemref());
  int64_t width = runWidth(load.getIndexMap(), buffer);
  auto &elements = scalars[load.getResult()];
  for (int64_t k = 0; k < elementsPerThread; k += width) {
    auto [indices, inside] =
        access(loc, load.getOrigin(), load.getIndexMap(), k);
    if (width == 1) {
      elements.push_back(
          kernelir::LoadOp::create(b, loc, buffer, indices, inside));
      continue;
    }
    auto type = VectorType::get(
        {width}, cast<MemRefType>(buffer.getType()).getElementType());
    Value run = kernelir::LoadOp::create(b, loc, type, buffer, indices, inside);
    for (int64_t lane = 0; lane < width; ++lane)
      elements.push_back(vector::ExtractOp::create(b, loc, run, lane));
  }
  return success();
}

LogicalResult
TileProgramTranslator::translateCoordinate(tileir::CoordinateOp coordinate) {
  if ((int64_t)elementCoords.size() != elementsPerThread)
    return coordinate.emitError("tile coordinates need a kernel whose threads "
                                "own elements of the tile");
  Value offset = mapping.lookup(coordinate.getOffset());
  auto &elements = scalars[coordinate.getResult()];
  for (int64_t k = 0; k < elementsPerThread; ++k)
    elements.push_back(arith::AddIOp::create(
        b, coordinate.getLoc(), offset, elementCoords[k][coordinate.getDim()]));
  return success();
}

LogicalResult TileProgramTranslator::translateStore(tileir::StoreOp store) {
  if (contraction && multiply.tma && multiply.tmaStore && storeTileByTma(store))
    return success();
  Location loc = store.getLoc();
  Value buffer = mapping.lookup(store.getMemref());
  int64_t width = runWidth(store.getIndexMap(), buffer);
  ArrayRef<Value> elements = scalars[store.getValue()];
  for (int64_t k = 0; k < elementsPerThread; k += width) {
    auto [indices, inside] =
        access(loc, store.getOrigin(), store.getIndexMap(), k);
    Value value = elements[k];
    if (width > 1)
      value = vector::FromElementsOp::create(
          b, loc,
          VectorType::get({width},
                          cast<MemRefType>(buffer.getType()).getElementType()),
          elements.slice(k, width));
    kernelir::StoreOp::create(b, loc, value, buffer, indices, inside);
  }
  return success();
}

LogicalResult TileProgramTranslator::translateMap(tileir::MapOp map) {
  Block &body = map.getBody().front();
  auto yield = cast<tileir::YieldOp>(body.getTerminator());
  for (int64_t k = 0; k < elementsPerThread; ++k) {
    IRMapping element = mapping;
    for (auto [arg, input] : llvm::zip(body.getArguments(), map.getInputs()))
      element.map(arg, scalars[input][k]);
    for (Operation &inner : body.without_terminator()) {
      if (inner.getNumRegions() != 0)
        return inner.emitError("cannot lower ops with regions in a "
                               "tileir.map yet");
      b.clone(inner, element);
    }
    for (auto [result, value] : llvm::zip(map.getResults(), yield.getValues()))
      scalars[result].push_back(element.lookupOrDefault(value));
  }
  return success();
}

LogicalResult
TileProgramTranslator::translatePoints(tileir::ForEachPointOp points) {
  Block &body = points.getBody().front();
  Location loc = points.getLoc();
  for (int64_t k = 0; k < elementsPerThread; ++k) {
    auto [coords, inside] = access(loc, points.getOrigin(),
                                   AffineMap::getMultiDimIdentityMap(
                                       body.getNumArguments(), b.getContext()),
                                   k);
    OpBuilder::InsertionGuard guard(b);
    if (inside) {
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, inside,
                                    /*withElseRegion=*/false);
      b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    }
    cloneLoopBody(b, body, coords, mapping);
  }
  return success();
}

std::pair<SmallVector<Value>, Value>
TileProgramTranslator::access(Location loc, ValueRange origin, AffineMap map,
                              int64_t k) {
  SmallVector<Value> coords;
  Value inside;
  for (auto [d, o] : llvm::enumerate(origin)) {
    Value c =
        arith::AddIOp::create(b, loc, mapping.lookup(o), elementCoords[k][d]);
    coords.push_back(c);
    // Only dimensions the tile can overhang need a bound check.
    int64_t extent = kernel.getDomain()[d];
    if (extent % kernel.getTile()[d] == 0)
      continue;
    Value bound = arith::ConstantIndexOp::create(b, loc, extent);
    Value ok =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, c, bound);
    inside = inside ? arith::AndIOp::create(b, loc, inside, ok) : ok;
  }
  SmallVector<Value> indices = *affine::expandAffineMap(b, loc, map, coords);
  return {indices, inside};
}
