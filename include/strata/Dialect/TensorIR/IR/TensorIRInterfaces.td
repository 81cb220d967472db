#ifndef STRATA_TENSORIR_INTERFACES
#define STRATA_TENSORIR_INTERFACES

include "mlir/IR/OpBase.td"

def TensorIR_ScalarizableOpInterface : OpInterface<"ScalarizableOpInterface"> {
  let cppNamespace = "::strata::tensorir";
  let description = [{
    An elementwise tensor op whose per-element computation can be written as
    scalar `arith`/`math` ops. Lowering to loops asks each op for its scalar
    body, so one conversion pattern serves every elementwise op.
  }];
  let methods = [
    InterfaceMethod<"Builds the scalar computation of one element from one "
                    "scalar per operand and returns the element's value.",
      "::mlir::Value", "buildScalarOp",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
           "::mlir::ValueRange":$operands)>
  ];
}

def TensorIR_LayoutOpInterface : OpInterface<"LayoutOpInterface"> {
  let cppNamespace = "::strata::tensorir";
  let description = [{
    An op that only moves data: each output element is one input element. The
    index map sends output coordinates to input coordinates, so later stages
    compose layout ops into loads instead of copying data.
  }];
  let methods = [
    InterfaceMethod<"Returns the map from output coordinates to input "
                    "coordinates.",
      "::mlir::AffineMap", "getIndexMap">,
    InterfaceMethod<"Returns the output coordinates that read the input, "
                    "as an integer set over them; the others are "
                    "getPaddingValue(). Null (the default): all of them.",
      "::mlir::IntegerSet", "getGuard", (ins), "", "return {};">,
    InterfaceMethod<"Returns the value of the elements outside getGuard() "
                    "(null where there is no guard).",
      "::mlir::TypedAttr", "getPaddingValue", (ins), "", "return {};">
  ];
}

def TensorIR_DecomposableOpInterface : OpInterface<"DecomposableOpInterface"> {
  let cppNamespace = "::strata::tensorir";
  let description = [{
    A composite op (matmul, softmax, layer_norm, ...) that can be written
    with atomic ops. `tensorir-decompose` asks each op for its decomposition,
    so one rewrite serves every composite op, Strata's or a downstream
    dialect's.
  }];
  let methods = [
    InterfaceMethod<"Builds the op's computation from simpler ops at the "
                    "builder's insertion point and returns the values that "
                    "replace the op's results.",
      "::mlir::SmallVector<::mlir::Value>", "decompose",
      (ins "::mlir::OpBuilder &":$builder)>
  ];
}

#endif // STRATA_TENSORIR_INTERFACES
