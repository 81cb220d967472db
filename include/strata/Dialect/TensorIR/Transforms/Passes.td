#ifndef STRATA_TENSORIR_PASSES
#define STRATA_TENSORIR_PASSES

include "mlir/Pass/PassBase.td"

def TensorIRDecomposePass : Pass<"tensorir-decompose"> {
  let summary = "Rewrite composite tensorir ops into atomic ones.";
  let description = [{
    Every op implementing `DecomposableOpInterface` (matmul, linear, einsum,
    softmax, log_softmax, layer_norm, gelu, silu, relu, clamp, mean, var,
    and any downstream op that implements it) is replaced by its
    decomposition into elementwise, layout and reduce ops. A matmul, for
    example, becomes broadcast · multiply · reduce(sum):

    ```mlir
    %c = tensorir.matmul %a, %b : (tensor<16x64xf32>, tensor<64x8xf32>) -> tensor<16x8xf32>
    // becomes
    %a3 = tensorir.broadcast %a dims [0, 1] : tensor<16x64xf32> -> tensor<16x8x64xf32>
    ...
    %c = tensorir.reduce sum %p axes [2] : tensor<16x8x64xf32> -> tensor<16x8xf32>
    ```
  }];
  let dependentDialects = ["::strata::tensorir::TensorIRDialect"];
}

#endif // STRATA_TENSORIR_PASSES
