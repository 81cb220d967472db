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

// The CPU copies at once: an asynchronous copy is a load (zero where its
// guard is false) and a store; commits and waits vanish.
// CHECK-LABEL: func.func private @copies
// CHECK: %[[S:.*]] = memref.alloca() : memref<2x8x16xf32>
// CHECK: %[[V:.*]] = scf.if %{{.*}} -> (vector<4xf32>) {
// CHECK-NEXT: %[[L:.*]] = vector.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<8x64xf32>, vector<4xf32>
// CHECK-NEXT: scf.yield %[[L]]
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK-NEXT: scf.yield %[[Z]]
// CHECK: vector.store %[[V]], %[[S]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<2x8x16xf32>, vector<4xf32>
// CHECK-NOT: nvvm
// CHECK: return
kernelir.func @copies(%a: memref<8x64xf32>) attributes {block = array<i64: 4, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<2x8x16xf32, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %t = kernelir.thread_id x
  %col = arith.muli %t, %c4 : index
  %ok = arith.cmpi ult, %t, %c8 : index
  kernelir.async_copy %a[%t, %col], %s[%c0, %t, %col] elements 4 if %ok : memref<8x64xf32>, memref<2x8x16xf32, #gpu.address_space<workgroup>>
  kernelir.async_commit
  kernelir.async_wait pending 0
  kernelir.return
}
