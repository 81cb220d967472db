#ifndef STRATA_TILEIR_PASSES
#define STRATA_TILEIR_PASSES

include "mlir/Pass/PassBase.td"

def TileIRPipelinePass : Pass<"tileir-pipeline"> {
  let summary = "Choose how many steps of k each contraction keeps in flight.";
  let description = [{
    Sets the `stages` of every `tileir.contract`: how many steps' operand
    chunks shared memory holds at once, so that the copies of later steps
    overlap the multiplication of the current one (double buffering with
    2). The depth is the `stages` option, but no more than the
    contraction's steps of k (more would only hold empty slots) and no more
    than fit in the `shared-memory` budget of a block (48 KiB unless given:
    what any NVIDIA GPU gives a block statically; larger budgets use
    dynamic shared memory, up to 227 KiB on sm_90; every chunk element is
    counted at the width of the result's element type); 1 turns pipelining
    off.

    Before (k = 64 in steps of 16, a 64 x 64 tile):

    ```mlir
    %c = tileir.contract [%o0, %o1] k 64 step 16 : !tileir.tile<64x64xf32> ...
    ```

    After `tileir-pipeline{stages=3}`: 3 x (64 + 64) x 16 x 4 bytes = 24 KiB.

    ```mlir
    %c = tileir.contract [%o0, %o1] k 64 step 16 stages 3 : !tileir.tile<64x64xf32> ...
    ```
  }];
  let options = [
    Option<"stages", "stages", "int64_t", /*default=*/"2",
           "The pipeline depth wanted (1: no pipeline)">,
    Option<"sharedMemory", "shared-memory", "int64_t",
           /*default=*/"::strata::kStaticSharedMemoryBytes",
           "Bytes of shared memory a block's operand chunks may take">
  ];
  let dependentDialects = ["::strata::tileir::TileIRDialect"];
}

#endif // STRATA_TILEIR_PASSES
