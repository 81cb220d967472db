// RUN: strata-opt %s -split-input-file --convert-tileir-to-kernelir --canonicalize --cse | FileCheck %s

// A 1-D tile of 8 elements over a domain of 21, 4 threads: each thread owns
// elements t and t + 4 of its block's tile, guarded by the domain bound.
// (Runs of 2 neighbouring elements would straddle the domain's odd edge, so
// the accesses stay scalar.)
// CHECK-LABEL: func.func @host
// CHECK-SAME: (%[[A:.*]]: memref<21xf32>) -> memref<21xf32>
// CHECK: %[[R:.*]] = memref.alloc() : memref<21xf32>
// CHECK: kernelir.launch @host_kernel(%[[A]], %[[R]]) : memref<21xf32>, memref<21xf32>
// CHECK: return %[[R]] : memref<21xf32>
func.func @host(%a: tensor<21xf32>) -> tensor<21xf32> {
  %r = tileir.kernel ins(%a : tensor<21xf32>) -> tensor<21xf32> domain [21] tile [8] threads 4 {
  ^bb0(%in: memref<21xf32>, %out: memref<21xf32>):
    %o = tileir.tile_offset 0
    %x = tileir.load %in[%o] : memref<21xf32> -> !tileir.tile<8xf32>
    %y = tileir.map ins(%x : !tileir.tile<8xf32>) -> !tileir.tile<8xf32> {
    ^bb0(%e: f32):
      %v = math.exp %e : f32
      tileir.yield %v : f32
    }
    tileir.store %y, %out[%o] : !tileir.tile<8xf32>, memref<21xf32>
  }
  return %r : tensor<21xf32>
}

// ceil(21 / 8) = 3 blocks of 4 threads. The result buffer is allocated for
// the launch alone and the input only read: both arguments are noalias.
// CHECK: kernelir.func @host_kernel(%[[IN:.*]]: memref<21xf32> {kernelir.noalias}, %[[OUT:.*]]: memref<21xf32> {kernelir.noalias})
// CHECK-SAME: attributes {block = array<i64: 4, 1, 1>, grid = array<i64: 3, 1, 1>}
// CHECK-DAG: %[[BID:.*]] = kernelir.block_id x
// CHECK-DAG: %[[TID:.*]] = kernelir.thread_id x
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C21:.*]] = arith.constant 21 : index
// CHECK: %[[E1:.*]] = arith.addi %[[TID]], %[[C4]] : index
// CHECK: %[[ORIGIN:.*]] = arith.muli %[[BID]], %{{.*}} : index
// CHECK: %[[I0:.*]] = arith.addi %[[ORIGIN]], %[[TID]] : index
// CHECK: %[[IN0:.*]] = arith.cmpi ult, %[[I0]], %[[C21]] : index
// CHECK: %[[X0:.*]] = kernelir.load %[[IN]][%[[I0]]] if %[[IN0]] : memref<21xf32>
// CHECK: %[[I1:.*]] = arith.addi %[[ORIGIN]], %[[E1]] : index
// CHECK: %[[IN1:.*]] = arith.cmpi ult, %[[I1]], %[[C21]] : index
// CHECK: %[[X1:.*]] = kernelir.load %[[IN]][%[[I1]]] if %[[IN1]] : memref<21xf32>
// CHECK: %[[Y0:.*]] = math.exp %[[X0]] : f32
// CHECK: %[[Y1:.*]] = math.exp %[[X1]] : f32
// CHECK: kernelir.store %[[Y0]], %[[OUT]][%[[I0]]] if %[[IN0]] : memref<21xf32>
// CHECK: kernelir.store %[[Y1]], %[[OUT]][%[[I1]]] if %[[IN1]] : memref<21xf32>
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

// -----

// Vector accesses: 4 elements per thread, a domain and buffers whose
// innermost sizes are multiples of 4. Thread t owns the run 4t .. 4t + 3 of
// its tile row, read and written as one vector<4xf32> under one guard (the
// 333 rows are ragged; a run never straddles the 20 columns). The row
// broadcast `map (d0, d1) -> (d1)` is a vector too; the transposed read of
// `%t` is not (its neighbouring points are a column apart), so it stays 4
// scalar loads.
// CHECK-LABEL: kernelir.func @vectors_kernel
// CHECK-SAME: (%[[IN:[^:]*]]: memref<333x20xf32> {{.*}}, %[[ROW:[^:]*]]: memref<20xf32> {{.*}}, %[[T:[^:]*]]: memref<20x333xf32> {{.*}}, %[[OUT:[^:]*]]: memref<333x20xf32> {{.*}})
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[TID:.*]] = kernelir.thread_id x
// CHECK: %[[FIRST:.*]] = arith.muli %[[TID]], %[[C4]] : index
// CHECK: %[[COL:.*]] = arith.remui %[[FIRST]], %{{.*}} : index
// CHECK: %[[X:.*]] = kernelir.load %[[IN]][%[[I:.*]], %[[COL]]] if %[[OK:.*]] : memref<333x20xf32> -> vector<4xf32>
// CHECK: %[[X0:.*]] = vector.extract %[[X]][0] : f32 from vector<4xf32>
// CHECK: %[[X3:.*]] = vector.extract %[[X]][3] : f32 from vector<4xf32>
// CHECK: %[[B:.*]] = kernelir.load %[[ROW]][%[[COL]]] if %[[OK]] : memref<20xf32> -> vector<4xf32>
// CHECK: kernelir.load %[[T]][%[[COL]], %[[I]]] if %[[OK]] : memref<20x333xf32>
// CHECK-NOT: vector<4xf32>
// CHECK: kernelir.load %[[T]]
// CHECK: kernelir.load %[[T]]
// CHECK: kernelir.load %[[T]]
// CHECK: %[[Y:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK: kernelir.store %[[Y]], %[[OUT]][%[[I]], %[[COL]]] if %[[OK]] : memref<333x20xf32> -> vector<4xf32>
func.func @vectors(%a: tensor<333x20xf32>, %b: tensor<20xf32>, %t: tensor<20x333xf32>) -> tensor<333x20xf32> {
  %r = tileir.kernel ins(%a, %b, %t : tensor<333x20xf32>, tensor<20xf32>, tensor<20x333xf32>) -> tensor<333x20xf32> domain [333, 20] tile [16, 32] threads 128 {
  ^bb0(%in: memref<333x20xf32>, %row: memref<20xf32>, %tr: memref<20x333xf32>, %out: memref<333x20xf32>):
    %p0 = tileir.program_id 0
    %c16 = arith.constant 16 : index
    %o0 = arith.muli %p0, %c16 : index
    %c0 = arith.constant 0 : index
    %x = tileir.load %in[%o0, %c0] : memref<333x20xf32> -> <16x32xf32>
    %y = tileir.load %row[%o0, %c0] map affine_map<(d0, d1) -> (d1)> : memref<20xf32> -> <16x32xf32>
    %z = tileir.load %tr[%o0, %c0] map affine_map<(d0, d1) -> (d1, d0)> : memref<20x333xf32> -> <16x32xf32>
    %s = tileir.map ins(%x, %y, %z : !tileir.tile<16x32xf32>, !tileir.tile<16x32xf32>, !tileir.tile<16x32xf32>) -> !tileir.tile<16x32xf32> {
    ^bb0(%e: f32, %f: f32, %g: f32):
      %m = arith.mulf %e, %f : f32
      %v = arith.addf %m, %g : f32
      tileir.yield %v : f32
    }
    tileir.store %s, %out[%o0, %c0] : <16x32xf32>, memref<333x20xf32>
  }
  return %r : tensor<333x20xf32>
}
