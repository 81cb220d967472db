// RUN: strata-opt %s --convert-tileir-to-kernelir --canonicalize --cse | FileCheck %s

// A 17 x 19 product over k = 65 in one 32 x 32 tile, 256 threads with a
// register tile of 1 x 4 elements each (row t / 8, columns t mod 8 + 8c),
// 16 k per step: 5 steps.
// Per step the threads stage the lhs chunk (32 x 16, two rounds) and the
// rhs chunk (16 x 32) in shared memory, zero past the domain or k, then a
// barrier, 16 fused multiply-adds per element from the chunks (one lhs
// load per row and one rhs load per column of the register tile), a
// barrier.
// The epilogue (relu, masked store) runs on the accumulators.
// CHECK-LABEL: kernelir.func @host_kernel
// CHECK-DAG: %[[RHS:.*]] = kernelir.shared : memref<16x32xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[LHS:.*]] = kernelir.shared : memref<32x16xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[T:.*]] = kernelir.thread_id x
// CHECK: %[[ROW:.*]] = arith.divui %[[T]], %c8 : index
// CHECK: %[[COL:.*]] = arith.remui %[[T]], %c8 : index
// CHECK: %[[COL1:.*]] = arith.addi %[[COL]], %c8 : index
// CHECK: %[[ACC:.*]]:4 = scf.for %[[KT:.*]] = %c0 to %c5 step %c1 iter_args({{.*}}) -> (f32, f32, f32, f32) {
// CHECK: %[[K0:.*]] = arith.muli %[[KT]], %c16 : index
// CHECK: %[[R:.*]] = arith.divui %[[T]], %c16 : index
// CHECK: %[[KK:.*]] = arith.remui %[[T]], %c16 : index
// CHECK: %[[KG:.*]] = arith.addi %[[K0]], %[[KK]] : index
// CHECK: %[[IN_ROWS:.*]] = arith.cmpi ult, %[[R]], %c17 : index
// CHECK: %[[IN_K:.*]] = arith.cmpi ult, %[[KG]], %c65 : index
// CHECK: %[[IN:.*]] = arith.andi %[[IN_ROWS]], %[[IN_K]] : i1
// CHECK: %[[A:.*]] = scf.if %[[IN]] -> (f32) {
// CHECK-NEXT: %[[X:.*]] = kernelir.load %{{.*}}[%[[R]], %[[KG]]] : memref<17x65xf32>
// CHECK-NEXT: scf.yield %[[X]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[ZERO]] : f32
// CHECK: kernelir.store %[[A]], %[[LHS]][%[[R]], %[[KK]]]
// CHECK: kernelir.store %{{.*}}, %[[LHS]]
// CHECK: kernelir.store %{{.*}}, %[[RHS]]
// CHECK: kernelir.store %{{.*}}, %[[RHS]]
// CHECK-NEXT: kernelir.barrier
// CHECK-NEXT: %[[PART:.*]]:4 = scf.for %[[K:.*]] = %c0 to %c16 step %c1 iter_args(%[[P0:[a-z0-9_]+]] = %{{.*}}, {{.*}}) -> (f32, f32, f32, f32) {
// CHECK-NEXT: %[[AV:.*]] = kernelir.load %[[LHS]][%[[ROW]], %[[K]]]
// CHECK-NEXT: %[[BV:.*]] = kernelir.load %[[RHS]][%[[K]], %[[COL]]]
// CHECK-NEXT: math.fma %[[AV]], %[[BV]], %[[P0]] : f32
// CHECK-NEXT: %[[BV1:.*]] = kernelir.load %[[RHS]][%[[K]], %[[COL1]]]
// CHECK-NEXT: math.fma %[[AV]], %[[BV1]], %{{.*}} : f32
// CHECK-COUNT-2: math.fma %[[AV]], %{{.*}}, %{{.*}} : f32
// CHECK: kernelir.barrier
// CHECK-NEXT: scf.yield %[[PART]]#0, %[[PART]]#1, %[[PART]]#2, %[[PART]]#3
// CHECK: arith.maximumf %[[ACC]]#0, %[[ZERO]] : f32
// CHECK: kernelir.store %{{.*}}, %{{.*}}[%[[ROW]], %[[COL]]] if %{{.*}} : memref<17x19xf32>
func.func @host(%a: tensor<17x65xf32>, %b: tensor<65x19xf32>) -> tensor<17x19xf32> {
  %r = tileir.kernel ins(%a, %b : tensor<17x65xf32>, tensor<65x19xf32>) -> tensor<17x19xf32> domain [17, 19] tile [32, 32] threads 256 {
  ^bb0(%ab: memref<17x65xf32>, %bb: memref<65x19xf32>, %out: memref<17x19xf32>):
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0.0 : f32
    %p0 = tileir.program_id 0
    %p1 = tileir.program_id 1
    %o0 = arith.muli %p0, %c32 : index
    %o1 = arith.muli %p1, %c32 : index
    %c = tileir.contract [%o0, %o1] k 65 step 16 : !tileir.tile<32x32xf32> lhs {
    ^bb0(%i: index, %k: index):
      %x = loopir.load %ab[%i, %k] : memref<17x65xf32>
      tileir.yield %x : f32
    } rhs {
    ^bb0(%j: index, %k: index):
      %w = loopir.load %bb[%k, %j] : memref<65x19xf32>
      tileir.yield %w : f32
    }
    %y = tileir.map ins(%c : !tileir.tile<32x32xf32>) -> !tileir.tile<32x32xf32> {
    ^bb0(%e: f32):
      %m = arith.maximumf %e, %zero : f32
      tileir.yield %m : f32
    }
    tileir.store %y, %out[%o0, %o1] : !tileir.tile<32x32xf32>, memref<17x19xf32>
  }
  return %r : tensor<17x19xf32>
}
