// RUN: strata-opt %s --convert-kernelir-to-gpu | FileCheck %s

// A bool buffer holds a byte per element, but LLVM packs a vector<4xi1>
// into bits: a vector access of bools becomes one byte access per element,
// the first claiming the vector's alignment (4 bytes).
// CHECK-LABEL: gpu.func @k
// CHECK: %[[B0:.*]] = memref.load %[[IN:.*]][%[[I:.*]]] {alignment = 4 : i64} : memref<8xi1>
// CHECK: %[[I1:.*]] = arith.addi %[[I]], %c1
// CHECK: %[[B1:.*]] = memref.load %[[IN]][%[[I1]]] : memref<8xi1>
// CHECK: %[[B2:.*]] = memref.load %[[IN]]
// CHECK: %[[B3:.*]] = memref.load %[[IN]]
// CHECK: %[[V:.*]] = vector.from_elements %[[B0]], %[[B1]], %[[B2]], %[[B3]] : vector<4xi1>
// CHECK: %[[N:.*]] = arith.xori %[[V]]
// CHECK: %[[E0:.*]] = vector.extract %[[N]][0] : i1 from vector<4xi1>
// CHECK: memref.store %[[E0]], %[[OUT:.*]][%[[I]]] {alignment = 4 : i64} : memref<8xi1>
// CHECK-COUNT-3: memref.store %{{.*}}, %[[OUT]][%{{.*}}] : memref<8xi1>
// CHECK-NOT: vector.load
// CHECK-NOT: vector.store
kernelir.func @k(%in: memref<8xi1>, %out: memref<8xi1>) attributes {block = array<i64: 2, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c4 = arith.constant 4 : index
  %true = arith.constant dense<true> : vector<4xi1>
  %t = kernelir.thread_id x
  %i = arith.muli %t, %c4 : index
  %x = kernelir.load %in[%i] : memref<8xi1> -> vector<4xi1>
  %y = arith.xori %x, %true : vector<4xi1>
  kernelir.store %y, %out[%i] : memref<8xi1> -> vector<4xi1>
  kernelir.return
}
