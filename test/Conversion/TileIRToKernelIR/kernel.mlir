// RUN: strata-opt %s -split-input-file --convert-tileir-to-kernelir --canonicalize --cse | FileCheck %s

// A 1-D tile of 8 elements over a domain of 20, 4 threads: each thread owns
// elements t and t + 4 of its block's tile, guarded by the domain bound.
// CHECK-LABEL: func.func @host
// CHECK-SAME: (%[[A:.*]]: memref<20xf32>) -> memref<20xf32>
// CHECK: %[[R:.*]] = memref.alloc() : memref<20xf32>
// CHECK: kernelir.launch @host_kernel(%[[A]], %[[R]]) : memref<20xf32>, memref<20xf32>
// CHECK: return %[[R]] : memref<20xf32>
func.func @host(%a: tensor<20xf32>) -> tensor<20xf32> {
  %r = tileir.kernel ins(%a : tensor<20xf32>) -> tensor<20xf32> domain [20] tile [8] threads 4 {
  ^bb0(%in: memref<20xf32>, %out: memref<20xf32>):
    %p = tileir.program_id 0
    %c8 = arith.constant 8 : index
    %o = arith.muli %p, %c8 : index
    %x = tileir.load %in[%o] : memref<20xf32> -> !tileir.tile<8xf32>
    %y = tileir.map ins(%x : !tileir.tile<8xf32>) -> !tileir.tile<8xf32> {
    ^bb0(%e: f32):
      %v = math.exp %e : f32
      tileir.yield %v : f32
    }
    tileir.store %y, %out[%o] : !tileir.tile<8xf32>, memref<20xf32>
  }
  return %r : tensor<20xf32>
}

// ceil(20 / 8) = 3 blocks of 4 threads.
// CHECK: kernelir.func @host_kernel(%[[IN:.*]]: memref<20xf32>, %[[OUT:.*]]: memref<20xf32>)
// CHECK-SAME: attributes {block = array<i64: 4, 1, 1>, grid = array<i64: 3, 1, 1>}
// CHECK-DAG: %[[BID:.*]] = kernelir.block_id x
// CHECK-DAG: %[[TID:.*]] = kernelir.thread_id x
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C20:.*]] = arith.constant 20 : index
// CHECK: %[[E1:.*]] = arith.addi %[[TID]], %[[C4]] : index
// CHECK: %[[ORIGIN:.*]] = arith.muli %[[BID]], %{{.*}} : index
// CHECK: %[[I0:.*]] = arith.addi %[[ORIGIN]], %[[TID]] : index
// CHECK: %[[IN0:.*]] = arith.cmpi ult, %[[I0]], %[[C20]] : index
// CHECK: %[[X0:.*]] = kernelir.load %[[IN]][%[[I0]]] if %[[IN0]] : memref<20xf32>
// CHECK: %[[I1:.*]] = arith.addi %[[ORIGIN]], %[[E1]] : index
// CHECK: %[[IN1:.*]] = arith.cmpi ult, %[[I1]], %[[C20]] : index
// CHECK: %[[X1:.*]] = kernelir.load %[[IN]][%[[I1]]] if %[[IN1]] : memref<20xf32>
// CHECK: %[[Y0:.*]] = math.exp %[[X0]] : f32
// CHECK: %[[Y1:.*]] = math.exp %[[X1]] : f32
// CHECK: kernelir.store %[[Y0]], %[[OUT]][%[[I0]]] if %[[IN0]] : memref<20xf32>
// CHECK: kernelir.store %[[Y1]], %[[OUT]][%[[I1]]] if %[[IN1]] : memref<20xf32>
// CHECK: kernelir.return

// -----

// A tile that divides the domain needs no guard; a 2-D tile splits the
// element index into row and column.
// CHECK-LABEL: func.func @exact
func.func @exact(%a: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %r = tileir.kernel ins(%a : tensor<16x32xf32>) -> tensor<16x32xf32> domain [16, 32] tile [4, 32] threads 128 {
  ^bb0(%in: memref<16x32xf32>, %out: memref<16x32xf32>):
    %p0 = tileir.program_id 0
    %p1 = tileir.program_id 1
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %o0 = arith.muli %p0, %c4 : index
    %o1 = arith.muli %p1, %c32 : index
    %x = tileir.load %in[%o0, %o1] : memref<16x32xf32> -> !tileir.tile<4x32xf32>
    tileir.store %x, %out[%o0, %o1] : !tileir.tile<4x32xf32>, memref<16x32xf32>
  }
  return %r : tensor<16x32xf32>
}
// CHECK: kernelir.func @exact_kernel
// CHECK-SAME: grid = array<i64: 4, 1, 1>
// CHECK-DAG: %[[T:.*]] = kernelir.thread_id x
// CHECK-DAG: %[[COL:.*]] = arith.remui %[[T]], %{{.*}} : index
// CHECK-DAG: %[[ROW:.*]] = arith.divui %[[T]], %{{.*}} : index
// CHECK: %[[X:.*]] = kernelir.load %{{.*}}[%{{.*}}, %[[COL]]] : memref<16x32xf32>
// CHECK-NEXT: kernelir.store %[[X]], %{{.*}}[%{{.*}}, %[[COL]]] : memref<16x32xf32>
