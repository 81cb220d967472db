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
    `bias` (both of the normalized shape). Each is named where present, so
    a shift without a scale reads back as one.

    ```mlir
    %y = tensorir.layer_norm %x weight(%w : tensor<512xf32>)
        bias(%b : tensor<512xf32>) normalized_rank 1 eps 1.0e-05
        : tensor<8x512xf32>
    %z = tensorir.layer_norm %x bias(%b : tensor<512xf32>) normalized_rank 1
        eps 1.0e-05 : tensor<8x512xf32>
    ```
  }];
  let arguments = (ins TensorIR_FloatTensor:$input,
                       Optional<TensorIR_FloatTensor>:$weight,
                       Optional<TensorIR_FloatTensor>:$bias,
                       I64Attr:$normalized_rank, F64Attr:$eps);
  let results = (outs TensorIR_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` `(` $weight^ `:` type($weight) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)? `normalized_rank`
    $normalized_rank `eps` $eps attr-dict `:` type($input)
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
    `min(max(x, min), max)`, NaN-propagating, as `torch.clamp`: where `min`
    exceeds `max`, every element is `max`.

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

def TensorIR_ConvOp : TensorIR_CompositeOp<"conv", [InferTypeOpAdaptor]> {
  let summary = "N-dimensional convolution (conv1d/2d/3d, grouped, "
                "depthwise).";
  let description = [{
    `input: (N, C, D_1..D_n)`, `weight: (OC, C / groups, K_1..K_n)` and an
    optional `bias: (OC)` give `(N, OC, O_1..O_n)` with `O_i = (D_i + 2 *
    padding_i - dilations_i * (K_i - 1) - 1) / strides_i + 1`, as
    `torch.nn.functional.conv{n}d` (PyTorch's cross-correlation).

    Decomposes into an implicit GEMM: the padded input (`tensorir.pad`)
    seen through its windows (`tensorir.window`) and reshaped to the
    im2col matrix `(groups, N * O_1..O_n, C / groups * K_1..K_n)`, times
    the weight as `(groups, C / groups * K_1..K_n, OC / groups)`, then
    reshaped to NCHW. Every step is a view, so loop fusion makes one
    contraction kernel that reads the input through the composed index
    maps: the im2col matrix is never stored.

    ```mlir
    %y = tensorir.conv %x, %w, %b strides [1, 1] padding [1, 1]
        dilations [1, 1] groups 1
        : (tensor<2x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>)
        -> tensor<2x16x8x8xf32>
    ```
  }];
  let arguments = (ins TensorIR_FloatTensor:$input,
                       TensorIR_FloatTensor:$weight,
                       Optional<TensorIR_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilations, I64Attr:$groups);
  let results = (outs TensorIR_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? `strides` $strides `padding` $padding
    `dilations` $dilations `groups` $groups attr-dict `:`
    functional-type(operands, $result)
  }];
}

def TensorIR_ConvTransposeOp
    : TensorIR_CompositeOp<"conv_transpose", [InferTypeOpAdaptor]> {
  let summary = "N-dimensional transposed convolution (conv_transpose1d/2d/"
                "3d).";
  let description = [{
    `input: (N, C, D_1..D_n)`, `weight: (C, OC / groups, K_1..K_n)` and an
    optional `bias: (OC)` give `(N, OC, O_1..O_n)` with `O_i = (D_i - 1) *
    strides_i - 2 * padding_i + dilations_i * (K_i - 1) +
    output_padding_i + 1`, as `torch.nn.functional.conv_transpose{n}d`.

    Decomposes into a convolution with stride 1: the input with
    `strides_i - 1` zeros between neighbours and `dilations_i * (K_i - 1) -
    padding_i` around it (on the high side `output_padding_i` more), all
    as views, by the weight flipped in its window dimensions with its
    channel dimensions exchanged within each group. (The products with the
    inserted zeros are computed: `prod(strides)` times the arithmetic of
    the direct form.)

    ```mlir
    %y = tensorir.conv_transpose %x, %w strides [2, 2] padding [0, 0]
        output_padding [0, 0] dilations [1, 1] groups 1
        : (tensor<2x8x4x4xf32>, tensor<8x3x2x2xf32>) -> tensor<2x3x8x8xf32>
    ```
  }];
  let arguments = (ins TensorIR_FloatTensor:$input,
                       TensorIR_FloatTensor:$weight,
                       Optional<TensorIR_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$output_padding,
                       DenseI64ArrayAttr:$dilations, I64Attr:$groups);
  let results = (outs TensorIR_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? `strides` $strides `padding` $padding
    `output_padding` $output_padding `dilations` $dilations `groups` $groups
    attr-dict `:` functional-type(operands, $result)
  }];
}
