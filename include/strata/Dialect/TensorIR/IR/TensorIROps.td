#ifndef STRATA_TENSORIR_OPS
#define STRATA_TENSORIR_OPS

include "strata/Dialect/TensorIR/IR/TensorIRBase.td"
include "strata/Dialect/TensorIR/IR/TensorIRInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/EnumAttr.td"
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
def TensorIR_SignOp : TensorIR_UnaryOp<"sign",
    "sign (-1, 0 or 1; 0 for NaN, like torch.sign)", TensorIR_Tensor>;
def TensorIR_ReciprocalOp : TensorIR_UnaryOp<"reciprocal", "reciprocal (1 / x)",
                                             TensorIR_FloatTensor>;
def TensorIR_SigmoidOp : TensorIR_UnaryOp<"sigmoid",
    "logistic sigmoid (1 / (1 + exp(-x)))", TensorIR_FloatTensor>;

/// A float function whose scalar form is one op of the upstream math
/// dialect (`mathOp`, its C++ class): the GPU lowering calls libdevice, the
/// CPU lowering LLVM intrinsics or libm, the CUDA rendering the C function.
class TensorIR_MathUnaryOp<string mnemonic, string what, string mathOp>
    : TensorIR_UnaryOp<mnemonic, what, TensorIR_FloatTensor> {
  let extraClassDefinition = [{
    ::mlir::Value $cppClass::buildScalarOp(::mlir::OpBuilder &b,
        ::mlir::Location loc, ::mlir::ValueRange x) {
      return }] # mathOp # [{::create(b, loc, x[0]);
    }
  }];
}

def TensorIR_ExpOp : TensorIR_MathUnaryOp<"exp", "natural exponential",
                                          "::mlir::math::ExpOp">;
def TensorIR_Exp2Op : TensorIR_MathUnaryOp<"exp2", "base-2 exponential",
                                           "::mlir::math::Exp2Op">;
def TensorIR_Expm1Op : TensorIR_MathUnaryOp<"expm1",
    "exp(x) - 1, accurate near 0", "::mlir::math::ExpM1Op">;
def TensorIR_LogOp : TensorIR_MathUnaryOp<"log", "natural logarithm",
                                          "::mlir::math::LogOp">;
def TensorIR_Log2Op : TensorIR_MathUnaryOp<"log2", "base-2 logarithm",
                                           "::mlir::math::Log2Op">;
def TensorIR_Log10Op : TensorIR_MathUnaryOp<"log10", "base-10 logarithm",
                                            "::mlir::math::Log10Op">;
def TensorIR_Log1pOp : TensorIR_MathUnaryOp<"log1p",
    "log(1 + x), accurate near 0", "::mlir::math::Log1pOp">;
def TensorIR_SqrtOp : TensorIR_MathUnaryOp<"sqrt", "square root",
                                           "::mlir::math::SqrtOp">;
def TensorIR_RsqrtOp : TensorIR_MathUnaryOp<"rsqrt", "reciprocal square root",
                                            "::mlir::math::RsqrtOp">;
def TensorIR_ErfOp : TensorIR_MathUnaryOp<"erf", "error function",
                                          "::mlir::math::ErfOp">;
def TensorIR_ErfcOp : TensorIR_MathUnaryOp<"erfc",
    "complementary error function", "::mlir::math::ErfcOp">;
def TensorIR_SinOp : TensorIR_MathUnaryOp<"sin", "sine", "::mlir::math::SinOp">;
def TensorIR_CosOp : TensorIR_MathUnaryOp<"cos", "cosine", "::mlir::math::CosOp">;
def TensorIR_TanOp : TensorIR_MathUnaryOp<"tan", "tangent", "::mlir::math::TanOp">;
def TensorIR_AsinOp : TensorIR_MathUnaryOp<"asin", "arcsine",
                                           "::mlir::math::AsinOp">;
def TensorIR_AcosOp : TensorIR_MathUnaryOp<"acos", "arccosine",
                                           "::mlir::math::AcosOp">;
def TensorIR_AtanOp : TensorIR_MathUnaryOp<"atan", "arctangent",
                                           "::mlir::math::AtanOp">;
def TensorIR_SinhOp : TensorIR_MathUnaryOp<"sinh", "hyperbolic sine",
                                           "::mlir::math::SinhOp">;
def TensorIR_CoshOp : TensorIR_MathUnaryOp<"cosh", "hyperbolic cosine",
                                           "::mlir::math::CoshOp">;
def TensorIR_TanhOp : TensorIR_MathUnaryOp<"tanh", "hyperbolic tangent",
                                           "::mlir::math::TanhOp">;
def TensorIR_AsinhOp : TensorIR_MathUnaryOp<"asinh",
    "inverse hyperbolic sine", "::mlir::math::AsinhOp">;
def TensorIR_AcoshOp : TensorIR_MathUnaryOp<"acosh",
    "inverse hyperbolic cosine", "::mlir::math::AcoshOp">;
def TensorIR_AtanhOp : TensorIR_MathUnaryOp<"atanh",
    "inverse hyperbolic tangent", "::mlir::math::AtanhOp">;
def TensorIR_FloorOp : TensorIR_MathUnaryOp<"floor", "rounding down",
                                            "::mlir::math::FloorOp">;
def TensorIR_CeilOp : TensorIR_MathUnaryOp<"ceil", "rounding up",
                                           "::mlir::math::CeilOp">;
def TensorIR_RoundOp : TensorIR_MathUnaryOp<"round",
    "rounding to the nearest integer, halves to even (torch.round)",
    "::mlir::math::RoundEvenOp">;
def TensorIR_TruncOp : TensorIR_MathUnaryOp<"trunc", "rounding toward zero",
                                            "::mlir::math::TruncOp">;

def TensorIR_PowOp : TensorIR_BinaryOp<"pow", "power (floats)"> {
  let arguments = (ins TensorIR_FloatTensor:$lhs, TensorIR_FloatTensor:$rhs);
  let results = (outs TensorIR_FloatTensor:$result);
}
def TensorIR_Atan2Op : TensorIR_BinaryOp<"atan2",
    "arctangent of lhs / rhs in the quadrant of (rhs, lhs) (floats)"> {
  let arguments = (ins TensorIR_FloatTensor:$lhs, TensorIR_FloatTensor:$rhs);
  let results = (outs TensorIR_FloatTensor:$result);
}
def TensorIR_RemOp : TensorIR_BinaryOp<"rem",
    "remainder of truncating division, with the sign of lhs (torch.fmod)">;
def TensorIR_ModOp : TensorIR_BinaryOp<"mod",
    "remainder of flooring division, with the sign of rhs (torch.remainder)">;
def TensorIR_FloorDivOp : TensorIR_BinaryOp<"floor_div",
    "division rounded down (torch.floor_divide, rounding_mode='floor'); "
    "floats as PyTorch computes them, through fmod">;

class TensorIR_BitwiseOp<string mnemonic, string what>
    : TensorIR_BinaryOp<mnemonic, what # " of integers or booleans"> {
  let arguments = (ins TensorIR_IntTensor:$lhs, TensorIR_IntTensor:$rhs);
  let results = (outs TensorIR_IntTensor:$result);
}
def TensorIR_AndOp : TensorIR_BitwiseOp<"and", "bitwise and">;
def TensorIR_OrOp : TensorIR_BitwiseOp<"or", "bitwise or">;
def TensorIR_XorOp : TensorIR_BitwiseOp<"xor", "bitwise exclusive or">;
def TensorIR_ShlOp : TensorIR_BitwiseOp<"shl",
    "left shift (poison for shifts outside [0, bits), like arith.shli)">;
def TensorIR_ShrOp : TensorIR_BitwiseOp<"shr",
    "arithmetic right shift (poison for shifts outside [0, bits), like "
    "arith.shrsi)">;

def TensorIR_CmpPredicate : I32EnumAttr<"CmpPredicate",
    "an elementwise comparison", [
    I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
    I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
    I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::strata::tensorir";
}

def TensorIR_CmpOp : TensorIR_Op<"cmp", [Pure, Elementwise,
    TypesMatchWith<"result is a tensor of i1 of the operands' shape",
                   "lhs", "result", "::strata::tensorir::getBoolTensorLike($_self)">,
    AllTypesMatch<["lhs", "rhs"]>,
    DeclareOpInterfaceMethods<TensorIR_ScalarizableOpInterface>]> {
  let summary = "Elementwise comparison, giving booleans (i1).";
  let description = [{
    Floats compare ordered (false when either side is NaN, except `ne`, which
    is true then, like PyTorch); integers compare signed.

    ```mlir
    %m = tensorir.cmp lt, %a, %b : tensor<8x16xf32>
    ```
  }];
  let arguments = (ins TensorIR_CmpPredicate:$predicate, TensorIR_Tensor:$lhs,
                       TensorIR_Tensor:$rhs);
  let results = (outs TensorIR_Tensor:$result);
  let assemblyFormat =
      "$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs)";
}

def TensorIR_SelectOp : TensorIR_Op<"select", [Pure, Elementwise,
    AllTypesMatch<["true_value", "false_value", "result"]>,
    TypesMatchWith<"condition is a tensor of i1 of the values' shape",
                   "result", "condition", "::strata::tensorir::getBoolTensorLike($_self)">,
    DeclareOpInterfaceMethods<TensorIR_ScalarizableOpInterface>]> {
  let summary = "Elementwise choice between two tensors (torch.where).";
  let description = [{
    ```mlir
    %r = tensorir.select %mask, %a, %b : tensor<8x16xf32>
    ```
  }];
  let arguments = (ins TensorIR_Tensor:$condition, TensorIR_Tensor:$true_value,
                       TensorIR_Tensor:$false_value);
  let results = (outs TensorIR_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:` type($result)
  }];
}

def TensorIR_CastOp : TensorIR_Op<"cast", [Pure, Elementwise,
    DeclareOpInterfaceMethods<TensorIR_ScalarizableOpInterface>]> {
  let summary = "Elementwise conversion between element types.";
  let description = [{
    Converts among floats (f32, f16, bf16, ...), signed integers and
    booleans (i1) like `Tensor.to(dtype)`: floats to integers truncate toward
    zero, and a value converts to i1 as `value != 0`.

    ```mlir
    %h = tensorir.cast %x : tensor<8x16xf32> to tensor<8x16xf16>
    ```
  }];
  let arguments = (ins TensorIR_Tensor:$input);
  let results = (outs TensorIR_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
}

def TensorIR_BitcastOp : TensorIR_Op<"bitcast", [Pure, Elementwise,
    DeclareOpInterfaceMethods<TensorIR_ScalarizableOpInterface>]> {
  let summary = "Reinterprets each element's bits as another type of the "
                "same width.";
  let description = [{
    What needs a float's bits: its sign bit (`torch.signbit`, `copysign`
    of a negative zero or NaN), the next representable value
    (`nextafter`).

    ```mlir
    %bits = tensorir.bitcast %x : tensor<8x16xf32> to tensor<8x16xi32>
    ```
  }];
  let arguments = (ins TensorIR_Tensor:$input);
  let results = (outs TensorIR_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Generators
//===----------------------------------------------------------------------===//

def TensorIR_IotaOp : TensorIR_Op<"iota", [Pure]> {
  let summary = "Each element is its coordinate along one dimension.";
  let description = [{
    The building block of `arange` and of `triu`/`tril` masks (a comparison
    of two iotas).

    ```mlir
    // r[i, j] = j
    %cols = tensorir.iota dim 1 : tensor<128x128xi64>
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$dim);
  let results = (outs TensorIR_Tensor:$result);
  let assemblyFormat = "`dim` $dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

include "strata/Dialect/TensorIR/IR/TensorIRLayoutOps.td"
include "strata/Dialect/TensorIR/IR/TensorIRReductionOps.td"
include "strata/Dialect/TensorIR/IR/TensorIRCompositeOps.td"

#endif // STRATA_TENSORIR_OPS
