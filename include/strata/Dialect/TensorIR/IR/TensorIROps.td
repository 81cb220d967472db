#ifndef STRATA_TENSORIR_OPS
#define STRATA_TENSORIR_OPS

include "strata/Dialect/TensorIR/IR/TensorIRBase.td"
include "strata/Dialect/TensorIR/IR/TensorIRInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def TensorIR_ConstantOp : TensorIR_Op<"constant",
    [ConstantLike, Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "A tensor of known values.";
  let description = [{
    Produces a tensor from an elements attribute. Splat constants are what
    NumPy scalars become after explicit broadcasting; lowering to loops turns
    them into scalar constants inside the consuming kernel.

    ```mlir
    %one = tensorir.constant dense<1.0> : tensor<1000x37xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs TensorIR_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

class TensorIR_ElementwiseOp<string mnemonic, list<Trait> traits = []>
    : TensorIR_Op<mnemonic, traits # [Pure, Elementwise,
        SameOperandsAndResultType,
        DeclareOpInterfaceMethods<TensorIR_ScalarizableOpInterface>]>;

class TensorIR_BinaryOp<string mnemonic, string what>
    : TensorIR_ElementwiseOp<mnemonic> {
  let summary = "Elementwise " # what # ".";
  let description = [{
    Applies the operation to corresponding elements of two tensors of the same
    type. Operands of different shapes must first be made equal with
    `tensorir.broadcast`.

    ```mlir
  }] # "%r = tensorir." # mnemonic # " %a, %b : tensor<8x16xf32>\n```";
  let arguments = (ins TensorIR_Tensor:$lhs, TensorIR_Tensor:$rhs);
  let results = (outs TensorIR_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

def TensorIR_AddOp : TensorIR_BinaryOp<"add", "addition">;
def TensorIR_SubOp : TensorIR_BinaryOp<"sub", "subtraction">;
def TensorIR_MulOp : TensorIR_BinaryOp<"mul", "multiplication">;
def TensorIR_DivOp : TensorIR_BinaryOp<"div",
    "division (true division for floats, signed division for integers)">;
def TensorIR_MaxOp : TensorIR_BinaryOp<"max",
    "maximum (NaN-propagating for floats, signed for integers)">;
def TensorIR_MinOp : TensorIR_BinaryOp<"min",
    "minimum (NaN-propagating for floats, signed for integers)">;

class TensorIR_UnaryOp<string mnemonic, string what, Type operandType>
    : TensorIR_ElementwiseOp<mnemonic> {
  let summary = "Elementwise " # what # ".";
  let description = [{
    ```mlir
  }] # "%r = tensorir." # mnemonic # " %x : tensor<8x16xf32>\n```";
  let arguments = (ins operandType:$input);
  let results = (outs operandType:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def TensorIR_NegOp : TensorIR_UnaryOp<"neg", "negation", TensorIR_Tensor>;
def TensorIR_AbsOp : TensorIR_UnaryOp<"abs", "absolute value", TensorIR_Tensor>;
def TensorIR_ExpOp : TensorIR_UnaryOp<"exp", "natural exponential",
                                      TensorIR_FloatTensor>;
def TensorIR_LogOp : TensorIR_UnaryOp<"log", "natural logarithm",
                                      TensorIR_FloatTensor>;
def TensorIR_SqrtOp : TensorIR_UnaryOp<"sqrt", "square root",
                                       TensorIR_FloatTensor>;
def TensorIR_RsqrtOp : TensorIR_UnaryOp<"rsqrt", "reciprocal square root",
                                        TensorIR_FloatTensor>;
def TensorIR_TanhOp : TensorIR_UnaryOp<"tanh", "hyperbolic tangent",
                                       TensorIR_FloatTensor>;
def TensorIR_ErfOp : TensorIR_UnaryOp<"erf", "error function",
                                      TensorIR_FloatTensor>;

//===----------------------------------------------------------------------===//
// Layout ops
//===----------------------------------------------------------------------===//

def TensorIR_BroadcastOp : TensorIR_Op<"broadcast",
    [Pure, DeclareOpInterfaceMethods<TensorIR_LayoutOpInterface>]> {
  let summary = "Explicit NumPy broadcasting.";
  let description = [{
    Expands `input` to the result shape. `dims[i]` is the result dimension
    that input dimension `i` becomes; `dims` is strictly increasing. An input
    dimension either equals its result dimension or is 1 (it is repeated).
    Result dimensions not named in `dims` are new.

    ```mlir
    // A bias row repeated over 1000 rows.
    %b2 = tensorir.broadcast %b dims [1] : tensor<37xf32> -> tensor<1000x37xf32>
    // A column of size 1 repeated over 37 columns.
    %c2 = tensorir.broadcast %c dims [0, 1] : tensor<1000x1xf32> -> tensor<1000x37xf32>
    ```
  }];
  let arguments = (ins TensorIR_Tensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs TensorIR_Tensor:$result);
  let assemblyFormat =
      "$input `dims` $dims attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

#endif // STRATA_TENSORIR_OPS
