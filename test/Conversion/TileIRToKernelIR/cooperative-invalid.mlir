// RUN: strata-opt %s --convert-tileir-to-kernelir -verify-diagnostics

// Threads that are not whole warps cannot shuffle.
func.func @partial_warp(%a: tensor<4x500xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{failed to legalize operation 'tileir.kernel'}}
  %r = tileir.kernel ins(%a : tensor<4x500xi32>) -> tensor<4xi32> domain [4] tile [1] threads 48 {
  ^bb0(%in: memref<4x500xi32>, %out: memref<4xi32>):
    %row = tileir.program_id 0
    // expected-error @+1 {{a cooperative fold needs a whole number of warps, but the kernel has 48 threads}}
    %s = tileir.fold add(0 : i32) (%k) in [500] {
      %x = loopir.load %in[%row, %k] : memref<4x500xi32>
      tileir.yield %x : i32
    }
    loopir.store %s, %out[%row] : memref<4xi32>
  }
  return %r : tensor<4xi32>
}
