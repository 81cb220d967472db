// Row folds of a composite monoid split among the lanes of a row without
// shared chunks (ComponentSplitFold.cpp, translateSplitFold): a decode
// step's attention, several rows per block whose keys and values differ
// (8 heads, 4 lanes each). Every lane walks every key; the row's lanes add
// a quarter of q . k each (elements 4 k + lane) and exchange the partial
// sums by an xor butterfly, so every lane has the score; each folds the
// maximum, the sum and its 2 of the 8 sums, reading element 4 s + lane of
// the key's value row straight from the buffer (the tail loads differ in
// that index only). No shared memory, no barrier; each component is
// shuffled from its lane just before its element is written.
// RUN: strata-opt %s -split-input-file --convert-tileir-to-kernelir | FileCheck %s

// CHECK-LABEL: kernelir.func @decode_rows_kernel
// CHECK-NOT: kernelir.shared
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c4
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c45 step %c4{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32)
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step %c1{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32)
// CHECK: scf.for %[[D:.*]] = %c0{{.*}} to %c2{{.*}} step %c1
// CHECK: %[[STRIDED:.*]] = arith.muli %[[D]], %c4
// CHECK: %[[ELEMENT:.*]] = arith.addi %[[STRIDED]], %[[LANE]]
// CHECK: kernelir.load %{{.*}}[%{{.*}}, %{{.*}}, %[[ELEMENT]]] : memref<8x45x8xf32>
// CHECK: kernelir.shuffle xor %{{.*}}, %c2_i32
// CHECK: kernelir.shuffle xor %{{.*}}, %c1_i32
// CHECK: %[[SLOT1:.*]] = arith.addi %c4{{.*}}, %[[LANE]]
// CHECK: %[[COLUMN1:.*]] = arith.addi %c0{{.*}}, %[[SLOT1]]
// CHECK: kernelir.load %arg0[%{{.*}}, %{{.*}}, %[[COLUMN1]]] : memref<8x45x8xf32>
// CHECK-NOT: kernelir.barrier
// CHECK-NOT: kernelir.shuffle xor
// CHECK: kernelir.shuffle idx %{{[0-9]+}}#2
// CHECK: scf.if
// CHECK-NEXT: kernelir.store
// CHECK-COUNT-7: kernelir.shuffle idx %{{[0-9]+}}#{{[23]}}
// CHECK-NOT: kernelir.shuffle

#map = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
module {
  func.func @decode_rows(%arg0: tensor<8x5x8xf32>, %arg1: tensor<8x45x8xf32>, %arg2: tensor<8x45x8xf32>) -> tensor<8x5x8xf32> {
    %0 = tileir.kernel ins(%arg2, %arg0, %arg1 : tensor<8x45x8xf32>, tensor<8x5x8xf32>, tensor<8x45x8xf32>) -> tensor<8x5x8xf32> domain [8, 5] tile [8, 1] threads 32 {
    ^bb0(%arg3: memref<8x45x8xf32>, %arg4: memref<8x5x8xf32>, %arg5: memref<8x45x8xf32>, %arg6: memref<8x5x8xf32>):
      %cst = arith.constant 0x7FC00000 : f32
      %cst_0 = arith.constant 0x7F800000 : f32
      %c7 = arith.constant 7 : index
      %c6 = arith.constant 6 : index
      %c5 = arith.constant 5 : index
      %c4 = arith.constant 4 : index
      %c3 = arith.constant 3 : index
      %c2 = arith.constant 2 : index
      %c1 = arith.constant 1 : index
      %c0 = arith.constant 0 : index
      %cst_1 = arith.constant 1.000000e+00 : f32
      %cst_2 = arith.constant 3.500000e-01 : f32
      %1 = tileir.point 0
      %2 = tileir.point 1
      %3:10 = tileir.composite_fold (%arg7) in [45] identity(0xFF800000 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32) {
        %40 = loopir.reduce add (%arg8) in [8] : f32 {
          %50 = loopir.load %arg4[%1, %2, %arg8] : memref<8x5x8xf32>
          %51 = loopir.load %arg5[%1, %arg7, %arg8] : memref<8x45x8xf32>
          %52 = arith.mulf %50, %51 : f32
          loopir.yield %52 : f32
        }
        %41 = arith.mulf %40, %cst_2 : f32
        %42 = loopir.load %arg3[%1, %c0, %arg7] map #map : memref<8x45x8xf32>
        %43 = loopir.load %arg3[%1, %c1, %arg7] map #map : memref<8x45x8xf32>
        %44 = loopir.load %arg3[%1, %c2, %arg7] map #map : memref<8x45x8xf32>
        %45 = loopir.load %arg3[%1, %c3, %arg7] map #map : memref<8x45x8xf32>
        %46 = loopir.load %arg3[%1, %c4, %arg7] map #map : memref<8x45x8xf32>
        %47 = loopir.load %arg3[%1, %c5, %arg7] map #map : memref<8x45x8xf32>
        %48 = loopir.load %arg3[%1, %c6, %arg7] map #map : memref<8x45x8xf32>
        %49 = loopir.load %arg3[%1, %c7, %arg7] map #map : memref<8x45x8xf32>
        tileir.yield %41, %cst_1, %42, %43, %44, %45, %46, %47, %48, %49 : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
      } combine {
      ^bb0(%arg7: f32, %arg8: f32, %arg9: f32, %arg10: f32, %arg11: f32, %arg12: f32, %arg13: f32, %arg14: f32, %arg15: f32, %arg16: f32, %arg17: f32, %arg18: f32, %arg19: f32, %arg20: f32, %arg21: f32, %arg22: f32, %arg23: f32, %arg24: f32, %arg25: f32, %arg26: f32):
        %40 = arith.maximumf %arg7, %arg17 : f32
        %41 = arith.cmpf oeq, %arg7, %40 : f32
        %42 = arith.subf %arg7, %40 : f32
        %43 = math.exp %42 : f32
        %44 = arith.select %41, %cst_1, %43 : f32
        %45 = arith.cmpf oeq, %arg17, %40 : f32
        %46 = arith.subf %arg17, %40 : f32
        %47 = math.exp %46 : f32
        %48 = arith.select %45, %cst_1, %47 : f32
        %49 = arith.mulf %arg8, %44 : f32
        %50 = arith.mulf %arg18, %48 : f32
        %51 = arith.addf %49, %50 : f32
        %52 = arith.mulf %arg9, %44 : f32
        %53 = arith.mulf %arg19, %48 : f32
        %54 = arith.addf %52, %53 : f32
        %55 = arith.mulf %arg10, %44 : f32
        %56 = arith.mulf %arg20, %48 : f32
        %57 = arith.addf %55, %56 : f32
        %58 = arith.mulf %arg11, %44 : f32
        %59 = arith.mulf %arg21, %48 : f32
        %60 = arith.addf %58, %59 : f32
        %61 = arith.mulf %arg12, %44 : f32
        %62 = arith.mulf %arg22, %48 : f32
        %63 = arith.addf %61, %62 : f32
        %64 = arith.mulf %arg13, %44 : f32
        %65 = arith.mulf %arg23, %48 : f32
        %66 = arith.addf %64, %65 : f32
        %67 = arith.mulf %arg14, %44 : f32
        %68 = arith.mulf %arg24, %48 : f32
        %69 = arith.addf %67, %68 : f32
        %70 = arith.mulf %arg15, %44 : f32
        %71 = arith.mulf %arg25, %48 : f32
        %72 = arith.addf %70, %71 : f32
        %73 = arith.mulf %arg16, %44 : f32
        %74 = arith.mulf %arg26, %48 : f32
        %75 = arith.addf %73, %74 : f32
        tileir.yield %40, %51, %54, %57, %60, %63, %66, %69, %72, %75 : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
      }
      %4 = math.absf %3#0 : f32
      %5 = arith.cmpf oeq, %4, %cst_0 : f32
      %6 = arith.select %5, %cst, %3#1 : f32
      %7 = arith.divf %cst_1, %6 : f32
      %8 = math.absf %3#0 : f32
      %9 = arith.cmpf oeq, %8, %cst_0 : f32
      %10 = arith.select %9, %cst, %3#2 : f32
      %11 = arith.mulf %10, %7 : f32
      %12 = math.absf %3#0 : f32
      %13 = arith.cmpf oeq, %12, %cst_0 : f32
      %14 = arith.select %13, %cst, %3#3 : f32
      %15 = arith.mulf %14, %7 : f32
      %16 = math.absf %3#0 : f32
      %17 = arith.cmpf oeq, %16, %cst_0 : f32
      %18 = arith.select %17, %cst, %3#4 : f32
      %19 = arith.mulf %18, %7 : f32
      %20 = math.absf %3#0 : f32
      %21 = arith.cmpf oeq, %20, %cst_0 : f32
      %22 = arith.select %21, %cst, %3#5 : f32
      %23 = arith.mulf %22, %7 : f32
      %24 = math.absf %3#0 : f32
      %25 = arith.cmpf oeq, %24, %cst_0 : f32
      %26 = arith.select %25, %cst, %3#6 : f32
      %27 = arith.mulf %26, %7 : f32
      %28 = math.absf %3#0 : f32
      %29 = arith.cmpf oeq, %28, %cst_0 : f32
      %30 = arith.select %29, %cst, %3#7 : f32
      %31 = arith.mulf %30, %7 : f32
      %32 = math.absf %3#0 : f32
      %33 = arith.cmpf oeq, %32, %cst_0 : f32
      %34 = arith.select %33, %cst, %3#8 : f32
      %35 = arith.mulf %34, %7 : f32
      %36 = math.absf %3#0 : f32
      %37 = arith.cmpf oeq, %36, %cst_0 : f32
      %38 = arith.select %37, %cst, %3#9 : f32
      %39 = arith.mulf %38, %7 : f32
      loopir.store %11, %arg6[%1, %2, %c0] : memref<8x5x8xf32>
      loopir.store %15, %arg6[%1, %2, %c1] : memref<8x5x8xf32>
      loopir.store %19, %arg6[%1, %2, %c2] : memref<8x5x8xf32>
      loopir.store %23, %arg6[%1, %2, %c3] : memref<8x5x8xf32>
      loopir.store %27, %arg6[%1, %2, %c4] : memref<8x5x8xf32>
      loopir.store %31, %arg6[%1, %2, %c5] : memref<8x5x8xf32>
      loopir.store %35, %arg6[%1, %2, %c6] : memref<8x5x8xf32>
      loopir.store %39, %arg6[%1, %2, %c7] : memref<8x5x8xf32>
    }
    return %0 : tensor<8x5x8xf32>
  }
}


// -----

// The combine of split-KV's partial folds (3 slices of each row's keys,
// m, l, a_0, ..., a_7 per slice): the contributions are loads, and the
// partial sums l take the tail's form but are one too many for 4 lanes,
// so l folds with the head. Each lane loads one slice's m and l and hands
// them to the others (idx shuffles); each slot's partial sums are element
// 2 + 4 s + lane of the slice's row.

// CHECK-LABEL: kernelir.func @combine_partials_kernel
// CHECK-NOT: kernelir.shared
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c4
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c3{{.*}} step %c4{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32)
// CHECK: %[[M:.*]] = kernelir.load %arg0[%{{.*}}, %{{.*}}, %{{.*}}, %c0{{.*}}] : memref<3x8x5x10xf32>
// CHECK: %[[L:.*]] = kernelir.load %arg0[%{{.*}}, %{{.*}}, %{{.*}}, %c1{{.*}}] : memref<3x8x5x10xf32>
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step %c1{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32)
// CHECK: kernelir.shuffle idx %[[M]]
// CHECK: kernelir.shuffle idx %[[L]]
// CHECK: %[[SLOT0:.*]] = arith.addi %c0{{.*}}, %[[LANE]]
// CHECK: %[[COLUMN0:.*]] = arith.addi %c2{{.*}}, %[[SLOT0]]
// CHECK: kernelir.load %arg0[%{{.*}}, %{{.*}}, %{{.*}}, %[[COLUMN0]]]
// CHECK: %[[SLOT1:.*]] = arith.addi %c4{{.*}}, %[[LANE]]
// CHECK: %[[COLUMN1:.*]] = arith.addi %c2{{.*}}, %[[SLOT1]]
// CHECK: kernelir.load %arg0[%{{.*}}, %{{.*}}, %{{.*}}, %[[COLUMN1]]]
// CHECK-NOT: kernelir.barrier
// CHECK-NOT: kernelir.shuffle xor
// CHECK-COUNT-8: kernelir.shuffle idx %{{[0-9]+}}#{{[23]}}
// CHECK-NOT: kernelir.shuffle

module {
  func.func @combine_partials(%arg0: tensor<3x8x5x10xf32>) -> tensor<8x5x8xf32> {
    %0 = tileir.kernel ins(%arg0 : tensor<3x8x5x10xf32>) -> tensor<8x5x8xf32> domain [8, 5] tile [8, 1] threads 32 {
    ^bb0(%arg3: memref<3x8x5x10xf32>, %arg6: memref<8x5x8xf32>):
      %cst = arith.constant 0x7FC00000 : f32
      %cst_0 = arith.constant 0x7F800000 : f32
      %c9 = arith.constant 9 : index
      %c8 = arith.constant 8 : index
      %c7 = arith.constant 7 : index
      %c6 = arith.constant 6 : index
      %c5 = arith.constant 5 : index
      %c4 = arith.constant 4 : index
      %c3 = arith.constant 3 : index
      %c2 = arith.constant 2 : index
      %c1 = arith.constant 1 : index
      %c0 = arith.constant 0 : index
      %cst_1 = arith.constant 1.000000e+00 : f32
      %cst_2 = arith.constant 3.500000e-01 : f32
      %1 = tileir.point 0
      %2 = tileir.point 1
      %3:10 = tileir.composite_fold (%arg7) in [3] identity(0xFF800000 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32) {
        %40 = loopir.load %arg3[%arg7, %1, %2, %c0] : memref<3x8x5x10xf32>
        %41 = loopir.load %arg3[%arg7, %1, %2, %c1] : memref<3x8x5x10xf32>
        %42 = loopir.load %arg3[%arg7, %1, %2, %c2] : memref<3x8x5x10xf32>
        %43 = loopir.load %arg3[%arg7, %1, %2, %c3] : memref<3x8x5x10xf32>
        %44 = loopir.load %arg3[%arg7, %1, %2, %c4] : memref<3x8x5x10xf32>
        %45 = loopir.load %arg3[%arg7, %1, %2, %c5] : memref<3x8x5x10xf32>
        %46 = loopir.load %arg3[%arg7, %1, %2, %c6] : memref<3x8x5x10xf32>
        %47 = loopir.load %arg3[%arg7, %1, %2, %c7] : memref<3x8x5x10xf32>
        %48 = loopir.load %arg3[%arg7, %1, %2, %c8] : memref<3x8x5x10xf32>
        %49 = loopir.load %arg3[%arg7, %1, %2, %c9] : memref<3x8x5x10xf32>
        tileir.yield %40, %41, %42, %43, %44, %45, %46, %47, %48, %49 : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
      } combine {
      ^bb0(%arg7: f32, %arg8: f32, %arg9: f32, %arg10: f32, %arg11: f32, %arg12: f32, %arg13: f32, %arg14: f32, %arg15: f32, %arg16: f32, %arg17: f32, %arg18: f32, %arg19: f32, %arg20: f32, %arg21: f32, %arg22: f32, %arg23: f32, %arg24: f32, %arg25: f32, %arg26: f32):
        %40 = arith.maximumf %arg7, %arg17 : f32
        %41 = arith.cmpf oeq, %arg7, %40 : f32
        %42 = arith.subf %arg7, %40 : f32
        %43 = math.exp %42 : f32
        %44 = arith.select %41, %cst_1, %43 : f32
        %45 = arith.cmpf oeq, %arg17, %40 : f32
        %46 = arith.subf %arg17, %40 : f32
        %47 = math.exp %46 : f32
        %48 = arith.select %45, %cst_1, %47 : f32
        %49 = arith.mulf %arg8, %44 : f32
        %50 = arith.mulf %arg18, %48 : f32
        %51 = arith.addf %49, %50 : f32
        %52 = arith.mulf %arg9, %44 : f32
        %53 = arith.mulf %arg19, %48 : f32
        %54 = arith.addf %52, %53 : f32
        %55 = arith.mulf %arg10, %44 : f32
        %56 = arith.mulf %arg20, %48 : f32
        %57 = arith.addf %55, %56 : f32
        %58 = arith.mulf %arg11, %44 : f32
        %59 = arith.mulf %arg21, %48 : f32
        %60 = arith.addf %58, %59 : f32
        %61 = arith.mulf %arg12, %44 : f32
        %62 = arith.mulf %arg22, %48 : f32
        %63 = arith.addf %61, %62 : f32
        %64 = arith.mulf %arg13, %44 : f32
        %65 = arith.mulf %arg23, %48 : f32
        %66 = arith.addf %64, %65 : f32
        %67 = arith.mulf %arg14, %44 : f32
        %68 = arith.mulf %arg24, %48 : f32
        %69 = arith.addf %67, %68 : f32
        %70 = arith.mulf %arg15, %44 : f32
        %71 = arith.mulf %arg25, %48 : f32
        %72 = arith.addf %70, %71 : f32
        %73 = arith.mulf %arg16, %44 : f32
        %74 = arith.mulf %arg26, %48 : f32
        %75 = arith.addf %73, %74 : f32
        tileir.yield %40, %51, %54, %57, %60, %63, %66, %69, %72, %75 : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
      }
      %4 = math.absf %3#0 : f32
      %5 = arith.cmpf oeq, %4, %cst_0 : f32
      %6 = arith.select %5, %cst, %3#1 : f32
      %7 = arith.divf %cst_1, %6 : f32
      %8 = math.absf %3#0 : f32
      %9 = arith.cmpf oeq, %8, %cst_0 : f32
      %10 = arith.select %9, %cst, %3#2 : f32
      %11 = arith.mulf %10, %7 : f32
      %12 = math.absf %3#0 : f32
      %13 = arith.cmpf oeq, %12, %cst_0 : f32
      %14 = arith.select %13, %cst, %3#3 : f32
      %15 = arith.mulf %14, %7 : f32
      %16 = math.absf %3#0 : f32
      %17 = arith.cmpf oeq, %16, %cst_0 : f32
      %18 = arith.select %17, %cst, %3#4 : f32
      %19 = arith.mulf %18, %7 : f32
      %20 = math.absf %3#0 : f32
      %21 = arith.cmpf oeq, %20, %cst_0 : f32
      %22 = arith.select %21, %cst, %3#5 : f32
      %23 = arith.mulf %22, %7 : f32
      %24 = math.absf %3#0 : f32
      %25 = arith.cmpf oeq, %24, %cst_0 : f32
      %26 = arith.select %25, %cst, %3#6 : f32
      %27 = arith.mulf %26, %7 : f32
      %28 = math.absf %3#0 : f32
      %29 = arith.cmpf oeq, %28, %cst_0 : f32
      %30 = arith.select %29, %cst, %3#7 : f32
      %31 = arith.mulf %30, %7 : f32
      %32 = math.absf %3#0 : f32
      %33 = arith.cmpf oeq, %32, %cst_0 : f32
      %34 = arith.select %33, %cst, %3#8 : f32
      %35 = arith.mulf %34, %7 : f32
      %36 = math.absf %3#0 : f32
      %37 = arith.cmpf oeq, %36, %cst_0 : f32
      %38 = arith.select %37, %cst, %3#9 : f32
      %39 = arith.mulf %38, %7 : f32
      loopir.store %11, %arg6[%1, %2, %c0] : memref<8x5x8xf32>
      loopir.store %15, %arg6[%1, %2, %c1] : memref<8x5x8xf32>
      loopir.store %19, %arg6[%1, %2, %c2] : memref<8x5x8xf32>
      loopir.store %23, %arg6[%1, %2, %c3] : memref<8x5x8xf32>
      loopir.store %27, %arg6[%1, %2, %c4] : memref<8x5x8xf32>
      loopir.store %31, %arg6[%1, %2, %c5] : memref<8x5x8xf32>
      loopir.store %35, %arg6[%1, %2, %c6] : memref<8x5x8xf32>
      loopir.store %39, %arg6[%1, %2, %c7] : memref<8x5x8xf32>
    }
    return %0 : tensor<8x5x8xf32>
  }
}

// -----

// One row per block of 32 threads, head dimension 8: the output row
// divides among 4 lanes (2 slots each), so the warp makes 8 runs of 4
// lanes that take turns over the keys (run r the groups from 4 r, every
// 32 keys), and after the loop each run posts its fold (m, l and its 2
// slots) to shared memory, a barrier, and every run combines the 8 posts
// of its lane in run order.

// CHECK-LABEL: kernelir.func @decode_row_runs_kernel
// CHECK-COUNT-4: kernelir.shared : memref<8x4xf32, #gpu.address_space<workgroup>>
// CHECK: %[[TURN:.*]] = arith.divui %{{.*}}, %c4
// CHECK: %[[OFFSET:.*]] = arith.muli %[[TURN]], %c4
// CHECK: scf.for %[[O:.*]] = %c0{{.*}} to %c45 step %c32{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32)
// CHECK: arith.addi %[[O]], %[[OFFSET]]
// CHECK-NOT: kernelir.barrier
// CHECK: kernelir.store %{{.*}}, %{{.*}}[%[[ROW:.*]], %[[LANE:.*]]] : memref<8x4xf32
// CHECK-COUNT-3: kernelir.store %{{.*}}, %{{.*}}[%[[ROW]], %[[LANE]]] : memref<8x4xf32
// CHECK-NEXT: kernelir.barrier
// CHECK-COUNT-32: kernelir.load %{{.*}}[%{{.*}}, %[[LANE]]] : memref<8x4xf32
// CHECK-NOT: kernelir.barrier

#map = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
module {
  func.func @decode_row_runs(%arg0: tensor<8x5x8xf32>, %arg1: tensor<8x45x8xf32>, %arg2: tensor<8x45x8xf32>) -> tensor<8x5x8xf32> {
    %0 = tileir.kernel ins(%arg2, %arg0, %arg1 : tensor<8x45x8xf32>, tensor<8x5x8xf32>, tensor<8x45x8xf32>) -> tensor<8x5x8xf32> domain [8, 5] tile [1, 1] threads 32 {
    ^bb0(%arg3: memref<8x45x8xf32>, %arg4: memref<8x5x8xf32>, %arg5: memref<8x45x8xf32>, %arg6: memref<8x5x8xf32>):
      %cst = arith.constant 0x7FC00000 : f32
      %cst_0 = arith.constant 0x7F800000 : f32
      %c7 = arith.constant 7 : index
      %c6 = arith.constant 6 : index
      %c5 = arith.constant 5 : index
      %c4 = arith.constant 4 : index
      %c3 = arith.constant 3 : index
      %c2 = arith.constant 2 : index
      %c1 = arith.constant 1 : index
      %c0 = arith.constant 0 : index
      %cst_1 = arith.constant 1.000000e+00 : f32
      %cst_2 = arith.constant 3.500000e-01 : f32
      %1 = tileir.point 0
      %2 = tileir.point 1
      %3:10 = tileir.composite_fold (%arg7) in [45] identity(0xFF800000 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32) {
        %40 = loopir.reduce add (%arg8) in [8] : f32 {
          %50 = loopir.load %arg4[%1, %2, %arg8] : memref<8x5x8xf32>
          %51 = loopir.load %arg5[%1, %arg7, %arg8] : memref<8x45x8xf32>
          %52 = arith.mulf %50, %51 : f32
          loopir.yield %52 : f32
        }
        %41 = arith.mulf %40, %cst_2 : f32
        %42 = loopir.load %arg3[%1, %c0, %arg7] map #map : memref<8x45x8xf32>
        %43 = loopir.load %arg3[%1, %c1, %arg7] map #map : memref<8x45x8xf32>
        %44 = loopir.load %arg3[%1, %c2, %arg7] map #map : memref<8x45x8xf32>
        %45 = loopir.load %arg3[%1, %c3, %arg7] map #map : memref<8x45x8xf32>
        %46 = loopir.load %arg3[%1, %c4, %arg7] map #map : memref<8x45x8xf32>
        %47 = loopir.load %arg3[%1, %c5, %arg7] map #map : memref<8x45x8xf32>
        %48 = loopir.load %arg3[%1, %c6, %arg7] map #map : memref<8x45x8xf32>
        %49 = loopir.load %arg3[%1, %c7, %arg7] map #map : memref<8x45x8xf32>
        tileir.yield %41, %cst_1, %42, %43, %44, %45, %46, %47, %48, %49 : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
      } combine {
      ^bb0(%arg7: f32, %arg8: f32, %arg9: f32, %arg10: f32, %arg11: f32, %arg12: f32, %arg13: f32, %arg14: f32, %arg15: f32, %arg16: f32, %arg17: f32, %arg18: f32, %arg19: f32, %arg20: f32, %arg21: f32, %arg22: f32, %arg23: f32, %arg24: f32, %arg25: f32, %arg26: f32):
        %40 = arith.maximumf %arg7, %arg17 : f32
        %41 = arith.cmpf oeq, %arg7, %40 : f32
        %42 = arith.subf %arg7, %40 : f32
        %43 = math.exp %42 : f32
        %44 = arith.select %41, %cst_1, %43 : f32
        %45 = arith.cmpf oeq, %arg17, %40 : f32
        %46 = arith.subf %arg17, %40 : f32
        %47 = math.exp %46 : f32
        %48 = arith.select %45, %cst_1, %47 : f32
        %49 = arith.mulf %arg8, %44 : f32
        %50 = arith.mulf %arg18, %48 : f32
        %51 = arith.addf %49, %50 : f32
        %52 = arith.mulf %arg9, %44 : f32
        %53 = arith.mulf %arg19, %48 : f32
        %54 = arith.addf %52, %53 : f32
        %55 = arith.mulf %arg10, %44 : f32
        %56 = arith.mulf %arg20, %48 : f32
        %57 = arith.addf %55, %56 : f32
        %58 = arith.mulf %arg11, %44 : f32
        %59 = arith.mulf %arg21, %48 : f32
        %60 = arith.addf %58, %59 : f32
        %61 = arith.mulf %arg12, %44 : f32
        %62 = arith.mulf %arg22, %48 : f32
        %63 = arith.addf %61, %62 : f32
        %64 = arith.mulf %arg13, %44 : f32
        %65 = arith.mulf %arg23, %48 : f32
        %66 = arith.addf %64, %65 : f32
        %67 = arith.mulf %arg14, %44 : f32
        %68 = arith.mulf %arg24, %48 : f32
        %69 = arith.addf %67, %68 : f32
        %70 = arith.mulf %arg15, %44 : f32
        %71 = arith.mulf %arg25, %48 : f32
        %72 = arith.addf %70, %71 : f32
        %73 = arith.mulf %arg16, %44 : f32
        %74 = arith.mulf %arg26, %48 : f32
        %75 = arith.addf %73, %74 : f32
        tileir.yield %40, %51, %54, %57, %60, %63, %66, %69, %72, %75 : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
      }
      %4 = math.absf %3#0 : f32
      %5 = arith.cmpf oeq, %4, %cst_0 : f32
      %6 = arith.select %5, %cst, %3#1 : f32
      %7 = arith.divf %cst_1, %6 : f32
      %8 = math.absf %3#0 : f32
      %9 = arith.cmpf oeq, %8, %cst_0 : f32
      %10 = arith.select %9, %cst, %3#2 : f32
      %11 = arith.mulf %10, %7 : f32
      %12 = math.absf %3#0 : f32
      %13 = arith.cmpf oeq, %12, %cst_0 : f32
      %14 = arith.select %13, %cst, %3#3 : f32
      %15 = arith.mulf %14, %7 : f32
      %16 = math.absf %3#0 : f32
      %17 = arith.cmpf oeq, %16, %cst_0 : f32
      %18 = arith.select %17, %cst, %3#4 : f32
      %19 = arith.mulf %18, %7 : f32
      %20 = math.absf %3#0 : f32
      %21 = arith.cmpf oeq, %20, %cst_0 : f32
      %22 = arith.select %21, %cst, %3#5 : f32
      %23 = arith.mulf %22, %7 : f32
      %24 = math.absf %3#0 : f32
      %25 = arith.cmpf oeq, %24, %cst_0 : f32
      %26 = arith.select %25, %cst, %3#6 : f32
      %27 = arith.mulf %26, %7 : f32
      %28 = math.absf %3#0 : f32
      %29 = arith.cmpf oeq, %28, %cst_0 : f32
      %30 = arith.select %29, %cst, %3#7 : f32
      %31 = arith.mulf %30, %7 : f32
      %32 = math.absf %3#0 : f32
      %33 = arith.cmpf oeq, %32, %cst_0 : f32
      %34 = arith.select %33, %cst, %3#8 : f32
      %35 = arith.mulf %34, %7 : f32
      %36 = math.absf %3#0 : f32
      %37 = arith.cmpf oeq, %36, %cst_0 : f32
      %38 = arith.select %37, %cst, %3#9 : f32
      %39 = arith.mulf %38, %7 : f32
      loopir.store %11, %arg6[%1, %2, %c0] : memref<8x5x8xf32>
      loopir.store %15, %arg6[%1, %2, %c1] : memref<8x5x8xf32>
      loopir.store %19, %arg6[%1, %2, %c2] : memref<8x5x8xf32>
      loopir.store %23, %arg6[%1, %2, %c3] : memref<8x5x8xf32>
      loopir.store %27, %arg6[%1, %2, %c4] : memref<8x5x8xf32>
      loopir.store %31, %arg6[%1, %2, %c5] : memref<8x5x8xf32>
      loopir.store %35, %arg6[%1, %2, %c6] : memref<8x5x8xf32>
      loopir.store %39, %arg6[%1, %2, %c7] : memref<8x5x8xf32>
    }
    return %0 : tensor<8x5x8xf32>
  }
}

