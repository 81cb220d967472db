// Composite ops: one per PyTorch operation the front end meets. Each
// implements DecomposableOpInterface; tensorir-decompose rewrites them into
// atomic ops, and loop fusion puts the pieces back together.

class TensorIR_CompositeOp<string mnemonic, list<Trait> traits = []>
    : TensorIR_Op<mnemonic, traits # [Pure,
        DeclareOpInterfaceMethods<TensorIR_DecomposableOpInterface>]>;

def TensorIR_MatmulOp : TensorIR_CompositeOp<"matmul", [InferTypeOpAdaptor]> {
  let summary = "Batched matrix product (mm, bmm, matmul).";
  let description = [{
    `(B..., M, K) x (B..., K, N) -> (B..., M, N)`, with identical batch
    dimensions (the importer broadcasts them). Decomposes into broadcast,
    multiply and reduce(sum) over K; loop fusion keeps the 3-D product from
    ever being stored.

    ```mlir
    %c = tensorir.matmul %a, %b : (tensor<16x64xf32>, tensor<64x16xf32>) -> tensor<16x16xf32>
    ```
  }];
  let arguments = (ins TensorIR_Tensor:$lhs, TensorIR_Tensor:$rhs);
  let results = (outs TensorIR_Tensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, $result)";
}

def TensorIR_EinsumOp : TensorIR_CompositeOp<"einsum", [InferTypeOpAdaptor]> {
  let summary = "A contraction written as an einsum equation.";
  let description = [{
    Each operand's subscripts are distinct letters; a letter missing from
    the output is summed over. Decomposes like matmul.

    ```mlir
    %c = tensorir.einsum "ij,jk->ik" %a, %b
        : (tensor<16x64xf32>, tensor<64x16xf32>) -> tensor<16x16xf32>
    ```
  }];
  let arguments = (ins StrAttr:$equation, Variadic<TensorIR_Tensor>:$inputs);
  let results = (outs TensorIR_Tensor:$result);
  let assemblyFormat =
      "$equation $inputs attr-dict `:` functional-type($inputs, $result)";
}

def TensorIR_LinearOp : TensorIR_CompositeOp<"linear", [InferTypeOpAdaptor]> {
  let summary = "x @ weight^T (+ bias), like F.linear.";
  let description = [{
    `x: (..., K)`, `weight: (N, K)`, `bias: (N)` give `(..., N)`.

    ```mlir
    %y = tensorir.linear %x, %w, %b
        : (tensor<8x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<8x32xf32>
    ```
  }];
  let arguments = (ins TensorIR_Tensor:$input, TensorIR_Tensor:$weight,
                       Optional<TensorIR_Tensor>:$bias);
  let results = (outs TensorIR_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:`
    functional-type(operands, $result)
  }];
}

class TensorIR_AxisOp<string mnemonic, string what>
    : TensorIR_CompositeOp<mnemonic, [SameOperandsAndResultType]> {
  let summary = what # " along one axis.";
  let description = [{
    ```mlir
  }] # "%r = tensorir." # mnemonic # " %x axis 1 : tensor<32x2048xf32>\n```";
  let arguments = (ins TensorIR_FloatTensor:$input, I64Attr:$axis);
  let results = (outs TensorIR_FloatTensor:$result);
  let assemblyFormat = "$input `axis` $axis attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def TensorIR_SoftmaxOp : TensorIR_AxisOp<"softmax", "Softmax">;
def TensorIR_LogSoftmaxOp : TensorIR_AxisOp<"log_softmax", "Log-softmax">;

def TensorIR_LayerNormOp : TensorIR_CompositeOp<"layer_norm", [
    AttrSizedOperandSegments, AllTypesMatch<["input", "result"]>]> {
  let summary = "Layer normalization over the trailing dimensions.";
  let description = [{
    Normalizes over the last `normalized_rank` dimensions with the biased
    variance and `eps`, then scales and shifts by the optional `weight` and
    `bias` (both of the normalized shape).

    ```mlir
    %y = tensorir.layer_norm %x, %w, %b normalized_rank 1 eps 1.0e-05
        : tensor<8x512xf32>, tensor<512xf32>, tensor<512xf32>
    ```
  }];
  let arguments = (ins TensorIR_FloatTensor:$input,
                       Optional<TensorIR_FloatTensor>:$weight,
                       Optional<TensorIR_FloatTensor>:$bias,
                       I64Attr:$normalized_rank, F64Attr:$eps);
  let results = (outs TensorIR_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`,` $weight^)? (`,` $bias^)? `normalized_rank` $normalized_rank
    `eps` $eps attr-dict `:` type($input) (`,` type($weight)^)?
    (`,` type($bias)^)?
  }];
  let hasVerifier = 1;
}

def TensorIR_GeluOp : TensorIR_CompositeOp<"gelu", [SameOperandsAndResultType]> {
  let summary = "GELU, exact (erf) or with the tanh approximation.";
  let description = [{
    ```mlir
    %y = tensorir.gelu %x : tensor<8x512xf32>
    %z = tensorir.gelu %x tanh : tensor<8x512xf32>
    ```
  }];
  let arguments = (ins TensorIR_FloatTensor:$input, UnitAttr:$tanh);
  let results = (outs TensorIR_FloatTensor:$result);
  let assemblyFormat = "$input (`tanh` $tanh^)? attr-dict `:` type($result)";
}

class TensorIR_UnaryCompositeOp<string mnemonic, string what>
    : TensorIR_CompositeOp<mnemonic, [SameOperandsAndResultType]> {
  let summary = what # ".";
  let description =
      "```mlir\n%y = tensorir." # mnemonic # " %x : tensor<8x512xf32>\n```";
  let arguments = (ins TensorIR_Tensor:$input);
  let results = (outs TensorIR_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def TensorIR_ReluOp : TensorIR_UnaryCompositeOp<"relu", "max(x, 0)">;
def TensorIR_SiluOp : TensorIR_UnaryCompositeOp<"silu", "x * sigmoid(x)"> {
  let arguments = (ins TensorIR_FloatTensor:$input);
  let results = (outs TensorIR_FloatTensor:$result);
}

def TensorIR_ClampOp : TensorIR_CompositeOp<"clamp", [SameOperandsAndResultType]> {
  let summary = "Clamps to [min, max] (either bound optional).";
  let description = [{
    ```mlir
    %y = tensorir.clamp %x min 0.0 max 6.0 : tensor<8x512xf32>
    ```
  }];
  let arguments = (ins TensorIR_Tensor:$input, OptionalAttr<F64Attr>:$min,
                       OptionalAttr<F64Attr>:$max);
  let results = (outs TensorIR_Tensor:$result);
  let assemblyFormat = [{
    $input (`min` $min^)? (`max` $max^)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def TensorIR_MeanOp : TensorIR_CompositeOp<"mean", [InferTypeOpAdaptor]> {
  let summary = "Arithmetic mean over axes.";
  let description = [{
    ```mlir
    %m = tensorir.mean %x axes [1] keepdim : tensor<32x2048xf32> -> tensor<32x1xf32>
    ```
  }];
  let arguments = (ins TensorIR_FloatTensor:$input, DenseI64ArrayAttr:$axes,
                       UnitAttr:$keepdim);
  let results = (outs TensorIR_FloatTensor:$result);
  let assemblyFormat = [{
    $input `axes` $axes (`keepdim` $keepdim^)? attr-dict `:` type($input)
    `->` type($result)
  }];
}

def TensorIR_VarOp : TensorIR_CompositeOp<"var", [InferTypeOpAdaptor]> {
  let summary = "Variance over axes, with a degrees-of-freedom correction.";
  let description = [{
    `sum((x - mean)^2) / (N - correction)`; `correction` 1 is PyTorch's
    default (unbiased), 0 the biased variance of layer norm.

    ```mlir
    %v = tensorir.var %x axes [1] correction 1 : tensor<32x2048xf32> -> tensor<32xf32>
    ```
  }];
  let arguments = (ins TensorIR_FloatTensor:$input, DenseI64ArrayAttr:$axes,
                       I64Attr:$correction, UnitAttr:$keepdim);
  let results = (outs TensorIR_FloatTensor:$result);
  let assemblyFormat = [{
    $input `axes` $axes `correction` $correction (`keepdim` $keepdim^)?
    attr-dict `:` type($input) `->` type($result)
  }];
}
