#include "strata/Dialect/TileIR/IR/TileIR.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace strata::tileir;

#include "strata/Dialect/TileIR/IR/TileIRDialect.cpp.inc"
#include "strata/Dialect/TileIR/IR/TileIREnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "strata/Dialect/TileIR/IR/TileIRTypes.cpp.inc"

void TileIRDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "strata/Dialect/TileIR/IR/TileIRTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "strata/Dialect/TileIR/IR/TileIROps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// TileType
//===----------------------------------------------------------------------===//

// !tileir.tile<4x64xf32>
Type TileType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseGreater())
    return {};
  return TileType::getChecked(
      [&] { return parser.emitError(parser.getNameLoc()); },
      parser.getContext(), shape, elementType);
}

void TileType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getShape())
    printer << d << "x";
  printer << getElementType() << ">";
}

LogicalResult TileType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType) {
  if (shape.empty())
    return emitError() << "tile must have at least one dimension";
  for (int64_t d : shape)
    if (d <= 0)
      return emitError() << "tile dimensions must be positive, got " << d;
  if (!elementType.isIntOrIndexOrFloat())
    return emitError() << "tile elements must be integers or floats, got "
                       << elementType;
  return success();
}

int64_t TileType::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : getShape())
    n *= d;
  return n;
}
