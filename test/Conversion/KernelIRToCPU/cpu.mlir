// RUN: strata-opt %s --convert-kernelir-to-cpu | FileCheck %s

// CHECK-LABEL: func.func @host
// CHECK: call @k(%{{.*}}, %{{.*}}) : (memref<20xf32>, memref<20xf32>) -> ()
func.func @host(%a: memref<20xf32>) -> memref<20xf32> {
  %r = memref.alloc() : memref<20xf32>
  kernelir.launch @k(%a, %r) : memref<20xf32>, memref<20xf32>
  return %r : memref<20xf32>
}

// Blocks (z, y, x) then threads (z, y, x) become loops; ids become their
// induction variables.
// CHECK: func.func private @k(%[[IN:.*]]: memref<20xf32>, %[[OUT:.*]]: memref<20xf32>)
// CHECK: scf.for %[[BZ:.*]] = %{{.*}} to %c1
// CHECK: scf.for %[[BY:.*]] = %{{.*}} to %c1
// CHECK: scf.for %[[BX:.*]] = %{{.*}} to %c3
// CHECK: scf.for %[[TZ:.*]] = %{{.*}} to %c1
// CHECK: scf.for %[[TY:.*]] = %{{.*}} to %c2
// CHECK: scf.for %[[TX:.*]] = %{{.*}} to %c4
// CHECK: %[[I:.*]] = arith.addi %[[BX]], %[[TY]] : index
// CHECK: scf.if
// CHECK: memref.load %[[IN]][%[[I]]]
// CHECK: memref.store %{{.*}}, %[[OUT]][%[[I]]]
// CHECK: return
kernelir.func @k(%in: memref<20xf32>, %out: memref<20xf32>) attributes {block = array<i64: 4, 2, 1>, grid = array<i64: 3, 1, 1>} {
  %c20 = arith.constant 20 : index
  %b = kernelir.block_id x
  %t = kernelir.thread_id y
  %i = arith.addi %b, %t : index
  %ok = arith.cmpi ult, %i, %c20 : index
  %x = kernelir.load %in[%i] if %ok : memref<20xf32>
  kernelir.store %x, %out[%i] if %ok : memref<20xf32>
  kernelir.return
}

// On the CPU a vector access claims no more than its element's alignment
// (numpy's and malloc's buffers promise nothing more).
// CHECK-LABEL: func.func private @vectors
// CHECK: vector.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<8x20xf32>, vector<4xf32>
// CHECK: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<8x20xf32>, vector<4xf32>
kernelir.func @vectors(%a: memref<8x20xf32>, %b: memref<8x20xf32>) attributes {block = array<i64: 5, 1, 1>, grid = array<i64: 8, 1, 1>} {
  %c4 = arith.constant 4 : index
  %row = kernelir.block_id x
  %t = kernelir.thread_id x
  %col = arith.muli %t, %c4 : index
  %v = kernelir.load %a[%row, %col] : memref<8x20xf32> -> vector<4xf32>
  kernelir.store %v, %b[%row, %col] : memref<8x20xf32> -> vector<4xf32>
  kernelir.return
}
