// Impossible schedules and loop bodies the scheduler cannot handle are
// diagnostics on the kernel or op concerned.
// RUN: strata-opt %s -split-input-file --convert-loopir-to-tileir --strata-schedule-tile='tile-sizes=64' -verify-diagnostics
// RUN: not strata-opt %s -split-input-file --convert-loopir-to-tileir --strata-schedule-tile='tile-sizes=4,4 threads=3' 2>&1 | FileCheck %s --check-prefix=UNEVEN
// RUN: not strata-opt %s -split-input-file --convert-loopir-to-tileir --strata-schedule-tile='threads=2048' 2>&1 | FileCheck %s --check-prefix=TOOMANY

// UNEVEN: error: a tile of 16 elements cannot be split evenly among 3 threads
// TOOMANY: error: threads must be in [1, 1024], got 2048

func.func @rank_mismatch(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{tile-sizes has 1 entries but the kernel's domain has 2 dimensions}}
  %r = loopir.kernel ins(%a : tensor<8x8xf32>) -> tensor<8x8xf32> {
  ^bb0(%in: memref<8x8xf32>, %out: memref<8x8xf32>):
    loopir.parallel (%i, %j) in [8, 8] {
      %x = loopir.load %in[%i, %j] : memref<8x8xf32>
      loopir.store %x, %out[%i, %j] : memref<8x8xf32>
    }
  }
  return %r : tensor<8x8xf32>
}

// -----

func.func @ranks_differ(%a: tensor<4x5xf32>, %b: tensor<20xf32>) -> (tensor<4x5xf32>) {
  // expected-error @+1 {{failed to legalize operation 'loopir.kernel'}}
  %r = loopir.kernel ins(%a, %b : tensor<4x5xf32>, tensor<20xf32>) -> tensor<4x5xf32> {
  ^bb0(%x: memref<4x5xf32>, %y: memref<20xf32>, %out: memref<4x5xf32>):
    loopir.parallel (%i, %j) in [4, 5] {
      %v = loopir.load %x[%i, %j] : memref<4x5xf32>
      loopir.store %v, %out[%i, %j] : memref<4x5xf32>
    }
    // expected-error @+1 {{cannot schedule loop nests of different ranks in one kernel}}
    loopir.parallel (%k) in [20] {
      %v = loopir.load %y[%k] : memref<20xf32>
      loopir.store %v, %out[%k] map affine_map<(d0) -> (d0 floordiv 5, d0 mod 5)> : memref<4x5xf32>
    }
  }
  return %r : tensor<4x5xf32>
}
