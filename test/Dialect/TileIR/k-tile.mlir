// tileir-k-tile: the one decision is each contraction's k step.
// RUN: strata-opt %s --tileir-k-tile | FileCheck %s
// RUN: strata-opt %s '--tileir-k-tile=k-tile=8' | FileCheck %s --check-prefix=EIGHT
// RUN: not strata-opt %s '--tileir-k-tile=k-tile=0' 2>&1 | FileCheck %s --check-prefix=ZERO

// CHECK: tileir.contract [%{{.*}}, %{{.*}}] k 65 step 16 : <32x32xf32>
// EIGHT: tileir.contract [%{{.*}}, %{{.*}}] k 65 step 8 : <32x32xf32>
// ZERO: error: tileir-k-tile: k-tile must be positive, got 0
func.func @matmul(%a: tensor<17x65xf32>, %b: tensor<65x19xf32>) -> tensor<17x19xf32> {
  %r = tileir.kernel ins(%a, %b : tensor<17x65xf32>, tensor<65x19xf32>) -> tensor<17x19xf32> domain [17, 19] tile [32, 32] threads 256 {
  ^bb0(%ab: memref<17x65xf32>, %bb: memref<65x19xf32>, %out: memref<17x19xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %c = tileir.contract [%o0, %o1] k 65 step 1 : !tileir.tile<32x32xf32> lhs {
    ^bb0(%i: index, %k: index):
      %x = loopir.load %ab[%i, %k] : memref<17x65xf32>
      tileir.yield %x : f32
    } rhs {
    ^bb0(%j: index, %k: index):
      %w = loopir.load %bb[%k, %j] : memref<65x19xf32>
      tileir.yield %w : f32
    }
    tileir.store %c, %out[%o0, %o1] : !tileir.tile<32x32xf32>, memref<17x19xf32>
  }
  return %r : tensor<17x19xf32>
}
