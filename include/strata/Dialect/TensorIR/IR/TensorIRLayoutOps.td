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
