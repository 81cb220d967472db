// RUN: strata-opt %s -split-input-file --convert-loopir-to-tileir="schedule=row" -verify-diagnostics

// Forcing the row schedule on a kernel without a shareable reduction.
func.func @elementwise(%a: tensor<8x70xf32>) -> tensor<8x70xf32> {
  // expected-error @+2 {{the row schedule needs a loop nest whose body folds with add, mul, max or min (or one argmax or argmin) over i32, i64, f32 or f64}}
  // expected-error @+1 {{failed to legalize operation 'loopir.kernel'}}
  %r = loopir.kernel ins(%a : tensor<8x70xf32>) -> tensor<8x70xf32> {
  ^bb0(%in: memref<8x70xf32>, %out: memref<8x70xf32>):
    loopir.parallel (%i, %j) in [8, 70] {
      %x = loopir.load %in[%i, %j] : memref<8x70xf32>
      loopir.store %x, %out[%i, %j] : memref<8x70xf32>
    }
  }
  return %r : tensor<8x70xf32>
}

// -----

// An arg-reduction that shares its pass with another fold is no monoid the
// row schedule folds.
func.func @argmax_and_sum(%a: tensor<4x512xf32>) -> tensor<4xi64> {
  // expected-error @+2 {{the row schedule needs a loop nest whose body folds}}
  // expected-error @+1 {{failed to legalize operation 'loopir.kernel'}}
  %r = loopir.kernel ins(%a : tensor<4x512xf32>) -> tensor<4xi64> {
  ^bb0(%in: memref<4x512xf32>, %out: memref<4xi64>):
    loopir.parallel (%i) in [4] {
      %m, %p, %s = loopir.reduce argmax, add (%k) in [512] : f32, i64, f32 {
        %x = loopir.load %in[%i, %k] : memref<4x512xf32>
        loopir.yield %x, %x : f32, f32
      }
      loopir.store %p, %out[%i] : memref<4xi64>
    }
  }
  return %r : tensor<4xi64>
}
