// RUN: strata-opt %s -split-input-file --convert-tileir-to-kernelir -verify-diagnostics

// Threads that are neither whole warps nor an aligned group of a power of
// two lanes cannot shuffle.
func.func @partial_warp(%a: tensor<4x500xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{failed to legalize operation 'tileir.kernel'}}
  %r = tileir.kernel ins(%a : tensor<4x500xi32>) -> tensor<4xi32> domain [4] tile [1] threads 48 {
  ^bb0(%in: memref<4x500xi32>, %out: memref<4xi32>):
    %row = tileir.program_id 0
    // expected-error @+1 {{a cooperative fold needs a power of two below 32 or a whole number of warps per row, but the kernel has 48 threads per row}}
    %s = tileir.fold add(0 : i32) (%k) in [500] {
      %x = loopir.load %in[%row, %k] : memref<4x500xi32>
      tileir.yield %x : i32
    }
    loopir.store %s, %out[%row] : memref<4xi32>
  }
  return %r : tensor<4xi32>
}

// -----

// Several rows per program instance give each row at most one warp.
func.func @wide_groups(%a: tensor<8x500xi32>) -> tensor<8xi32> {
  // expected-error @+1 {{failed to legalize operation 'tileir.kernel'}}
  %r = tileir.kernel ins(%a : tensor<8x500xi32>) -> tensor<8xi32> domain [8] tile [2] threads 128 {
  ^bb0(%in: memref<8x500xi32>, %out: memref<8xi32>):
    %row = tileir.point 0
    // expected-error @+1 {{with several rows per program instance each row takes at most one warp, but the kernel gives each 64 threads}}
    %s = tileir.fold add(0 : i32) (%k) in [500] {
      %x = loopir.load %in[%row, %k] : memref<8x500xi32>
      tileir.yield %x : i32
    }
    loopir.store %s, %out[%row] : memref<8xi32>
  }
  return %r : tensor<8xi32>
}
