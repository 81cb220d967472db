// Layout ops: data movement without arithmetic. All but concat and gather
// implement LayoutOpInterface (one affine index map).
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
  let hasFolder = 1;
}

def TensorIR_TransposeOp : TensorIR_Op<"transpose", [Pure,
    InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<TensorIR_LayoutOpInterface>]> {
  let summary = "Permutes dimensions (torch.permute, Tensor.t, transpose).";
  let description = [{
    Result dimension `i` is input dimension `perm[i]`.

    ```mlir
    %t = tensorir.transpose %x perm [1, 0] : tensor<64x16xf32> -> tensor<16x64xf32>
    ```
  }];
  let arguments = (ins TensorIR_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs TensorIR_Tensor:$result);
  let assemblyFormat =
      "$input `perm` $perm attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
}

def TensorIR_ReshapeOp : TensorIR_Op<"reshape", [Pure,
    DeclareOpInterfaceMethods<TensorIR_LayoutOpInterface>]> {
  let summary = "Reinterprets the row-major elements with another shape.";
  let description = [{
    `view`, `reshape`, `flatten`, `squeeze` and `unsqueeze` all become this
    op. The element count is unchanged.

    ```mlir
    %r = tensorir.reshape %x : tensor<2x32x64xf32> -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins TensorIR_Tensor:$input);
  let results = (outs TensorIR_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def TensorIR_SliceOp : TensorIR_Op<"slice", [Pure,
    DeclareOpInterfaceMethods<TensorIR_LayoutOpInterface>]> {
  let summary = "A strided box of the input (x[a:b:s, ...]).";
  let description = [{
    Result element `i` is input element `offsets + strides * i`; the result
    type gives the sizes. Every selected element lies inside the input. A
    negative stride walks backwards from its offset (`torch.flip`).

    ```mlir
    // x[1:9:2, :]
    %s = tensorir.slice %x offsets [1, 0] strides [2, 1]
        : tensor<10x16xf32> -> tensor<4x16xf32>
    // x.flip(1)
    %f = tensorir.slice %x offsets [0, 15] strides [1, -1]
        : tensor<10x16xf32> -> tensor<10x16xf32>
    ```
  }];
  let arguments = (ins TensorIR_Tensor:$input, DenseI64ArrayAttr:$offsets,
                       DenseI64ArrayAttr:$strides);
  let results = (outs TensorIR_Tensor:$result);
  let assemblyFormat = [{
    $input `offsets` $offsets `strides` $strides attr-dict `:` type($input)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def TensorIR_PadOp : TensorIR_Op<"pad", [Pure,
    DeclareOpInterfaceMethods<TensorIR_LayoutOpInterface,
                              ["getGuard", "getPaddingValue"]>]> {
  let summary = "Constant padding (F.pad's constant mode, a convolution's).";
  let description = [{
    Surrounds the input with `low[d]` elements before and `high[d]` after
    each dimension `d`, all equal to `value`. It is a view: a consumer's
    load of the result reads the input through a guarded load, which never
    touches memory outside the input (no padded copy is made). Negative
    padding is a slice.

    ```mlir
    // One zero on each side of both image dimensions.
    %p = tensorir.pad %x low [0, 0, 1, 1] high [0, 0, 1, 1] value 0.0 : f32
        : tensor<2x3x8x8xf32> -> tensor<2x3x10x10xf32>
    ```
  }];
  let arguments = (ins TensorIR_Tensor:$input, DenseI64ArrayAttr:$low,
                       DenseI64ArrayAttr:$high, TypedAttrInterface:$value);
  let results = (outs TensorIR_Tensor:$result);
  let assemblyFormat = [{
    $input `low` $low `high` $high `value` $value attr-dict `:` type($input)
    `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def TensorIR_WindowOp : TensorIR_Op<"window", [Pure, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<TensorIR_LayoutOpInterface>]> {
  let summary = "Sliding windows over the trailing dimensions.";
  let description = [{
    A view of every window of `sizes` elements over the last `n =
    len(sizes)` dimensions, `strides` apart, its elements `dilations`
    apart: the result keeps the leading dimensions, then has one dimension
    per window position (`(D - (size - 1) * dilation - 1) / stride + 1`
    each), then one per window element:
    `r[p..., o_1..o_n, k_1..k_n] = x[p..., o_i * stride_i + k_i *
    dilation_i]`. A convolution reads its input through one (with
    `tensorir.pad` before it): the im2col matrix as a view, never stored;
    pooling reduces over the window dimensions; `Tensor.unfold` is one.

    ```mlir
    // The 3x3 windows of a 10x10 image, stride 1.
    %w = tensorir.window %x sizes [3, 3] strides [1, 1] dilations [1, 1]
        : tensor<2x3x10x10xf32> -> tensor<2x3x8x8x3x3xf32>
    ```
  }];
  let arguments = (ins TensorIR_Tensor:$input, DenseI64ArrayAttr:$sizes,
                       DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$dilations);
  let results = (outs TensorIR_Tensor:$result);
  let assemblyFormat = [{
    $input `sizes` $sizes `strides` $strides `dilations` $dilations attr-dict
    `:` type($input) `->` type($result)
  }];
}

def TensorIR_ConcatOp : TensorIR_Op<"concat", [Pure, InferTypeOpAdaptor]> {
  let summary = "Joins tensors along one dimension (torch.cat).";
  let description = [{
    ```mlir
    %c = tensorir.concat %a, %b axis 1
        : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Variadic<TensorIR_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs TensorIR_Tensor:$result);
  let assemblyFormat = [{
    $inputs `axis` $axis attr-dict `:` functional-type($inputs, $result)
  }];
}

def TensorIR_GatherOp : TensorIR_Op<"gather", [Pure, InferTypeOpAdaptor]> {
  let summary = "Data-dependent indexing (embedding, index_select).";
  let description = [{
    Replaces dimension `axis` of `input` by the dimensions of `indices`:
    `r[p..., i..., s...] = input[p..., indices[i...], s...]`. Indices are
    integers; an index outside `[0, size)` is undefined behaviour, like an
    out-of-range index in PyTorch's CUDA kernels.

    ```mlir
    // F.embedding(ids, table)
    %e = tensorir.gather %table[%ids] axis 0
        : (tensor<1000x64xf32>, tensor<4x7xi64>) -> tensor<4x7x64xf32>
    ```
  }];
  let arguments = (ins TensorIR_Tensor:$input,
                       TensorOf<[AnySignlessInteger]>:$indices, I64Attr:$axis);
  let results = (outs TensorIR_Tensor:$result);
  let assemblyFormat = [{
    $input `[` $indices `]` `axis` $axis attr-dict `:`
    functional-type(operands, $result)
  }];
}
