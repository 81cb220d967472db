// Options that force the row schedule, and the requests it cannot honour.
// RUN: strata-opt %s --convert-loopir-to-tileir --strata-schedule-tile="threads=64" | FileCheck %s --check-prefix=THREADS
// RUN: strata-opt %s --convert-loopir-to-tileir="schedule=row" --strata-schedule-tile="threads=1024" | FileCheck %s --check-prefix=MAX
// RUN: not strata-opt %s --convert-loopir-to-tileir="schedule=row" --strata-schedule-tile="threads=48" 2>&1 | FileCheck %s --check-prefix=WARPS
// RUN: strata-opt %s --convert-loopir-to-tileir="schedule=row" --strata-schedule-tile="tile-sizes=4" | FileCheck %s --check-prefix=TILES
// RUN: not strata-opt %s --convert-loopir-to-tileir="schedule=elementwise" 2>&1 | FileCheck %s --check-prefix=ELEMENTWISE
// RUN: not strata-opt %s --convert-loopir-to-tileir="schedule=rows" 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// THREADS: domain [33] tile [1] threads 64
// MAX: domain [33] tile [1] threads 1024
// WARPS: error: a row program needs one thread or a whole number of warps (a multiple of 32 up to 1024 threads), got 48
// A tile that does not divide the rows: the last instance's groups past
// them idle (the kernel lowering clamps their row and drops their stores).
// TILES: domain [33] tile [4] threads 128
// ELEMENTWISE: error: the elementwise schedule needs one loop nest of loads, scalar math and stores addressed by its indices
// UNKNOWN: error: unknown schedule 'rows' (expected auto, elementwise, row, contraction or generic)
func.func @row_sums(%a: tensor<33x70xf32>) -> tensor<33xf32> {
  %r = loopir.kernel ins(%a : tensor<33x70xf32>) -> tensor<33xf32> {
  ^bb0(%in: memref<33x70xf32>, %out: memref<33xf32>):
    loopir.parallel (%i) in [33] {
      %s = loopir.reduce add (%k) in [70] : f32 {
        %x = loopir.load %in[%i, %k] : memref<33x70xf32>
        loopir.yield %x : f32
      }
      loopir.store %s, %out[%i] : memref<33xf32>
    }
  }
  return %r : tensor<33xf32>
}
