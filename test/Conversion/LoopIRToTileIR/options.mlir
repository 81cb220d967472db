// RUN: strata-opt %s --convert-loopir-to-tileir '--strata-schedule-tile=tile-sizes=3,16 threads=16' | FileCheck %s --check-prefix=FORCED
// RUN: strata-opt %s --convert-loopir-to-tileir '--strata-schedule-tile=tile-elements=1024' | FileCheck %s --check-prefix=BIG
// RUN: strata-opt %s --convert-loopir-to-tileir '--strata-schedule-tile=threads=32' | FileCheck %s --check-prefix=THREADS

// FORCED: domain [1000, 37] tile [3, 16] threads 16
// FORCED: tileir.load %{{.*}} -> <3x16xf32>
// BIG: domain [1000, 37] tile [16, 64] threads 128
// THREADS: domain [1000, 37] tile [8, 64] threads 32
func.func @k(%a: tensor<1000x37xf32>) -> tensor<1000x37xf32> {
  %r = loopir.kernel ins(%a : tensor<1000x37xf32>) -> tensor<1000x37xf32> {
  ^bb0(%in: memref<1000x37xf32>, %out: memref<1000x37xf32>):
    loopir.parallel (%i, %j) in [1000, 37] {
      %x = loopir.load %in[%i, %j] : memref<1000x37xf32>
      %y = math.tanh %x : f32
      loopir.store %y, %out[%i, %j] : memref<1000x37xf32>
    }
  }
  return %r : tensor<1000x37xf32>
}
