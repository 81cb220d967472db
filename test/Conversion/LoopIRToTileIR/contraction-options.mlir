// Options that force the contraction schedule, and the requests it cannot
// honour.
// RUN: strata-opt %s '--convert-loopir-to-tileir=schedule=contraction' '--strata-schedule-tile=tile-sizes=16,32 threads=64 k-tile=8' | FileCheck %s --check-prefix=FORCED
// RUN: not strata-opt %s --convert-loopir-to-tileir '--strata-schedule-tile=k-tile=-1' 2>&1 | FileCheck %s --check-prefix=KTILE
// RUN: not strata-opt %s --convert-loopir-to-tileir '--strata-schedule-tile=tile-sizes=32,32 threads=96' 2>&1 | FileCheck %s --check-prefix=UNEVEN

// FORCED: domain [17, 19] tile [16, 32] threads 64 {
// FORCED: tileir.contract {{.*}} k 65 step 8
// KTILE: error: tileir-k-tile: k-tile must be positive (or 0: chosen per contraction), got -1
// UNEVEN: error: a tile of 1024 elements cannot be split evenly among 96 threads
#wt = affine_map<(d0, d1) -> (d1, d0)>
func.func @matmul(%x: tensor<17x65xf32>, %w: tensor<65x19xf32>) -> tensor<17x19xf32> {
  %r = loopir.kernel ins(%x, %w : tensor<17x65xf32>, tensor<65x19xf32>) -> tensor<17x19xf32> {
  ^bb0(%xb: memref<17x65xf32>, %wb: memref<65x19xf32>, %out: memref<17x19xf32>):
    loopir.parallel (%i, %j) in [17, 19] {
      %s = loopir.reduce add (%k) in [65] : f32 {
        %xv = loopir.load %xb[%i, %k] : memref<17x65xf32>
        %wv = loopir.load %wb[%j, %k] map #wt : memref<65x19xf32>
        %p = arith.mulf %xv, %wv : f32
        loopir.yield %p : f32
      }
      loopir.store %s, %out[%i, %j] : memref<17x19xf32>
    }
  }
  return %r : tensor<17x19xf32>
}
