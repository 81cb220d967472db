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

