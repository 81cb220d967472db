// The identities of the monoids reductions fold with, shared by the Loop IR
// lowering (accumulator initial values) and Tile IR (tileir.fold's verified
// identities).

#include "strata/Dialect/Utils/Monoid.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

TypedAttr strata::getMonoidIdentity(MonoidKind kind, Type type) {
  Builder b(type.getContext());
  auto f = dyn_cast<FloatType>(type);
  unsigned width = type.getIntOrFloatBitWidth();
  switch (kind) {
  case MonoidKind::Add:
    return cast<TypedAttr>(b.getZeroAttr(type));
  case MonoidKind::Mul:
    return f ? TypedAttr(b.getFloatAttr(type, 1.0))
             : TypedAttr(b.getIntegerAttr(type, 1));
  case MonoidKind::Max:
  case MonoidKind::Min: {
    bool negative = kind == MonoidKind::Max;
    if (f)
      return b.getFloatAttr(type,
                            APFloat::getInf(f.getFloatSemantics(), negative));
    return b.getIntegerAttr(type, negative ? APInt::getSignedMinValue(width)
                                           : APInt::getSignedMaxValue(width));
  }
  }
  llvm_unreachable("unknown monoid");
}

bool strata::isShuffledType(Type type) {
  return type.isF32() || type.isF64() || type.isInteger(32) ||
         type.isInteger(64);
}
