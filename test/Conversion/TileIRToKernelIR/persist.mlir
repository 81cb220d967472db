// RUN: strata-opt %s -split-input-file --convert-tileir-to-kernelir --canonicalize | FileCheck %s

// instances 5 on a grid of 4 x 7 tiles (domain 100 x 200 in 32 x 32
// tiles), in bands of 2 rows: 5 blocks are launched, and block b takes
// tiles t = b, b + 5, ... below 28 (b = 0..2: 6 tiles, 3..4: 5), each t
// through the banded order as a block id is; a barrier ends each tile
// (the next one's staging may overwrite what a slower thread still
// reads).
// CHECK-LABEL: kernelir.func @persistent_kernel
// CHECK-SAME: grid = array<i64: 5, 1, 1>
// CHECK: %[[B:.*]] = kernelir.block_id x
// CHECK: scf.for %[[T:.*]] = %[[B]] to %c28 step %c5 {
// CHECK:   %[[BAND:.*]] = arith.divui %[[T]], %c14 : index
// CHECK:   arith.remui %[[T]], %c14 : index
// CHECK:   kernelir.store
// CHECK:   kernelir.barrier
// CHECK-NEXT: }
// CHECK-NEXT: kernelir.return
func.func @persistent(%a: tensor<100x200xf32>) -> tensor<100x200xf32> {
  %r = tileir.kernel ins(%a : tensor<100x200xf32>) -> tensor<100x200xf32> domain [100, 200] tile [32, 32] threads 256 raster_group 2 instances 5 {
  ^bb0(%in: memref<100x200xf32>, %out: memref<100x200xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %x = tileir.load %in[%o0, %o1] : memref<100x200xf32> -> !tileir.tile<32x32xf32>
    tileir.store %x, %out[%o0, %o1] : !tileir.tile<32x32xf32>, memref<100x200xf32>
  }
  return %r : tensor<100x200xf32>
}

// -----

// More instances than tiles launch one per tile, and no loop.
// CHECK-LABEL: kernelir.func @few_tiles_kernel
// CHECK-SAME: grid = array<i64: 28, 1, 1>
// CHECK-NOT: scf.for
// CHECK: kernelir.return
func.func @few_tiles(%a: tensor<100x200xf32>) -> tensor<100x200xf32> {
  %r = tileir.kernel ins(%a : tensor<100x200xf32>) -> tensor<100x200xf32> domain [100, 200] tile [32, 32] threads 256 instances 64 {
  ^bb0(%in: memref<100x200xf32>, %out: memref<100x200xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %x = tileir.load %in[%o0, %o1] : memref<100x200xf32> -> !tileir.tile<32x32xf32>
    tileir.store %x, %out[%o0, %o1] : !tileir.tile<32x32xf32>, memref<100x200xf32>
  }
  return %r : tensor<100x200xf32>
}
