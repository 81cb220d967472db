// Reductions over axes, with an explicit combiner.

def TensorIR_ReduceKind : I32EnumAttr<"ReduceKind",
    "the combiner of a reduction", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"prod", 1>,
    I32EnumAttrCase<"max", 2>, I32EnumAttrCase<"min", 3>]> {
  let cppNamespace = "::strata::tensorir";
}

def TensorIR_ReduceOp : TensorIR_Op<"reduce", [Pure, InferTypeOpAdaptor]> {
  let summary = "Combines the elements along some axes.";
  let description = [{
    `axes` are distinct and increasing; with `keepdim` the reduced
    dimensions stay with size 1. `max` and `min` propagate NaN, like
    PyTorch's `amax`/`amin`.

    ```mlir
    %s = tensorir.reduce sum %x axes [1] keepdim
        : tensor<32x2048xf32> -> tensor<32x1xf32>
    ```
  }];
  let arguments = (ins TensorIR_ReduceKind:$kind, TensorIR_Tensor:$input,
                       DenseI64ArrayAttr:$axes, UnitAttr:$keepdim);
  let results = (outs TensorIR_Tensor:$result);
  let assemblyFormat = [{
    $kind $input `axes` $axes (`keepdim` $keepdim^)? attr-dict `:`
    type($input) `->` type($result)
  }];
}

def TensorIR_ArgReduceOp : TensorIR_Op<"arg_reduce", [Pure,
    InferTypeOpAdaptor]> {
  let summary = "The extreme along one axis and where it is (max.dim).";
  let description = [{
    `kind` is `max` or `min`. The index is the first position of the extreme
    (of a NaN, if any), as i64, like `torch.max(x, dim)`.

    ```mlir
    %v, %i = tensorir.arg_reduce max %x axis 1
        : tensor<32x2048xf32> -> tensor<32xf32>, tensor<32xi64>
    ```
  }];
  let arguments = (ins TensorIR_ReduceKind:$kind, TensorIR_Tensor:$input,
                       I64Attr:$axis, UnitAttr:$keepdim);
  let results = (outs TensorIR_Tensor:$values, TensorIR_Tensor:$indices);
  let assemblyFormat = [{
    $kind $input `axis` $axis (`keepdim` $keepdim^)? attr-dict `:`
    type($input) `->` type($values) `,` type($indices)
  }];
}
