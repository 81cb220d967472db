// RUN: strata-opt %s --convert-tileir-to-kernelir --canonicalize | FileCheck %s

// raster_group 3 on a grid of 2 x 4 x 7 program instances (domain
// 2 x 100 x 200 in 1 x 32 x 32 tiles): the one-dimensional block id b is
// b / 28 in the leading dimension, and within its matrix (m = b mod 28)
// in bands of 3 rows of 7 columns (21 instances): band m / 21, i = m mod
// 21, row 3 band + i mod 3, column i / 3; the last band (band 1, from
// row 3) has 4 - 3 = 1 row: row 3 + i mod 1 = 3, column i / 1 = i. Every
// divisor is a constant.
// CHECK-LABEL: kernelir.func @banded_kernel
// CHECK-SAME: grid = array<i64: 56, 1, 1>
// CHECK: %[[B:.*]] = kernelir.block_id x
// CHECK-DAG: %[[N:.*]] = arith.divui %[[B]], %c28 : index
// CHECK-DAG: %[[M:.*]] = arith.remui %[[B]], %c28 : index
// CHECK-DAG: %[[BAND:.*]] = arith.divui %[[M]], %c21 : index
// CHECK-DAG: %[[I:.*]] = arith.remui %[[M]], %c21 : index
// CHECK-DAG: %[[R:.*]] = arith.remui %[[I]], %c3 : index
// CHECK-DAG: %[[C:.*]] = arith.divui %[[I]], %c3 : index
// CHECK-DAG: %[[LAST:.*]] = arith.cmpi uge, %[[BAND]], %c1 : index
// CHECK-DAG: %[[RIN:.*]] = arith.select %[[LAST]], %c0, %[[R]] : index
// CHECK-DAG: %[[COL:.*]] = arith.select %[[LAST]], %[[I]], %[[C]] : index
// CHECK-DAG: %[[FIRST:.*]] = arith.muli %[[BAND]], %c3 : index
// CHECK-DAG: %[[ROW:.*]] = arith.addi %[[FIRST]], %[[RIN]] : index
// CHECK-DAG: arith.muli %[[ROW]], %c32 : index
// CHECK-DAG: arith.muli %[[COL]], %c32 : index
func.func @banded(%a: tensor<2x100x200xf32>) -> tensor<2x100x200xf32> {
  %r = tileir.kernel ins(%a : tensor<2x100x200xf32>) -> tensor<2x100x200xf32> domain [2, 100, 200] tile [1, 32, 32] threads 256 raster_group 3 {
  ^bb0(%in: memref<2x100x200xf32>, %out: memref<2x100x200xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %o2 = tileir.tile_offset 2
    %x = tileir.load %in[%o0, %o1, %o2] : memref<2x100x200xf32> -> !tileir.tile<1x32x32xf32>
    tileir.store %x, %out[%o0, %o1, %o2] : !tileir.tile<1x32x32xf32>, memref<2x100x200xf32>
  }
  return %r : tensor<2x100x200xf32>
}
