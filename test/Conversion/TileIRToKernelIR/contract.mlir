// RUN: strata-opt %s --convert-tileir-to-kernelir --canonicalize --cse | FileCheck %s

// A 17 x 19 product over k = 65 in one 32 x 32 tile, 256 threads with a
// register tile of 1 x 4 elements each (row t / 8, columns t mod 8 + 8c),
// 16 k per step: 5 steps.
// Per step the threads stage the lhs chunk (32 x 16, two rounds) and the
// rhs chunk (16 x 32) in shared memory, zero past the domain or k: the lhs
// is a plain load, copied asynchronously (one element per copy: rows of 65
// are not aligned to more), the rhs squares what it loads, so the threads
// compute it and store it. They wait for their copies, then a barrier,
// 16 fused multiply-adds per element from the chunks (one lhs load per row
// and one rhs load per column of the register tile), a barrier.
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
// CHECK: kernelir.async_copy %[[A:.*]][%[[R]], %[[KG]]], %[[LHS]][%[[R]], %[[KK]]] elements 1 if %[[IN]] : memref<17x65xf32>
// CHECK: kernelir.async_copy %[[A]][{{.*}}], %[[LHS]][{{.*}}] elements 1 if
// CHECK: %[[W:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK-NEXT: %[[X:.*]] = kernelir.load %{{.*}} : memref<65x19xf32>
// CHECK-NEXT: %[[X2:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK-NEXT: scf.yield %[[X2]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[ZERO]] : f32
// CHECK: kernelir.store %[[W]], %[[RHS]]
// CHECK: kernelir.store %{{.*}}, %[[RHS]]
// CHECK-NEXT: kernelir.async_commit
// CHECK-NEXT: kernelir.async_wait pending 0
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
      %w2 = arith.mulf %w, %w : f32
      tileir.yield %w2 : f32
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

// Three stages: both operands are plain loads of rows that are multiples
// of 4, copied asynchronously 16 bytes at a time into the slot of their
// step. The prologue copies steps 0 and 1 (a group each); step kt waits
// until at most one group is pending (its own copies are done), one
// barrier, copies step kt + 2 into slot (kt + 2) mod 3 where there is one,
// commits (an empty group at the end keeps the count), and multiplies from
// slot kt mod 3. No second barrier: the slot copied next is the one every
// thread finished before this step's barrier.
// CHECK-LABEL: kernelir.func @pipelined_kernel
// CHECK-DAG: %[[PL:.*]] = kernelir.shared : memref<3x32x16xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[PR:.*]] = kernelir.shared : memref<3x16x32xf32, #gpu.address_space<workgroup>>
// CHECK: kernelir.async_copy %{{.*}}, %[[PL]][%c0, %{{.*}}, %{{.*}}] elements 4 if %{{.*}} : memref<50x64xf32>
// CHECK: kernelir.async_copy %{{.*}}, %[[PR]][%c0, %{{.*}}, %{{.*}}] elements 4 if %{{.*}} : memref<64x40xf32>
// CHECK: kernelir.async_commit
// CHECK: kernelir.async_copy %{{.*}}, %[[PL]][%c1, %{{.*}}, %{{.*}}] elements 4
// CHECK: kernelir.async_copy %{{.*}}, %[[PR]][%c1, %{{.*}}, %{{.*}}] elements 4
// CHECK: kernelir.async_commit
// CHECK: scf.for %[[S:.*]] = %c0 to %c4 step %c1
// CHECK-NEXT: kernelir.async_wait pending 1
// CHECK-NEXT: kernelir.barrier
// CHECK-NEXT: %[[AHEAD:.*]] = arith.addi %[[S]], %c2 : index
// CHECK-NEXT: %[[MORE:.*]] = arith.cmpi ult, %[[AHEAD]], %c4 : index
// CHECK-NEXT: scf.if %[[MORE]] {
// CHECK-NEXT: %[[NEXT:.*]] = arith.remui %[[AHEAD]], %c3 : index
// CHECK: kernelir.async_copy %{{.*}}, %[[PL]][%[[NEXT]], %{{.*}}, %{{.*}}] elements 4
// CHECK: kernelir.async_copy %{{.*}}, %[[PR]][%[[NEXT]], %{{.*}}, %{{.*}}] elements 4
// CHECK: kernelir.async_commit
// CHECK-NEXT: %[[SLOT:.*]] = arith.remui %[[S]], %c3 : index
// CHECK-NEXT: scf.for
// CHECK-NEXT: kernelir.load %[[PL]][%[[SLOT]], %{{.*}}, %{{.*}}]
// CHECK-NOT: kernelir.barrier
// CHECK: kernelir.store %{{.*}}, %{{.*}} if %{{.*}} : memref<50x40xf32>
func.func @pipelined(%a: tensor<50x64xf32>, %b: tensor<64x40xf32>) -> tensor<50x40xf32> {
  %r = tileir.kernel ins(%a, %b : tensor<50x64xf32>, tensor<64x40xf32>) -> tensor<50x40xf32> domain [50, 40] tile [32, 32] threads 256 {
  ^bb0(%ab: memref<50x64xf32>, %bb: memref<64x40xf32>, %out: memref<50x40xf32>):
    %c32 = arith.constant 32 : index
    %p0 = tileir.program_id 0
    %p1 = tileir.program_id 1
    %o0 = arith.muli %p0, %c32 : index
    %o1 = arith.muli %p1, %c32 : index
    %c = tileir.contract [%o0, %o1] k 64 step 16 stages 3 : !tileir.tile<32x32xf32> lhs {
    ^bb0(%i: index, %k: index):
      %x = loopir.load %ab[%i, %k] : memref<50x64xf32>
      tileir.yield %x : f32
    } rhs {
    ^bb0(%j: index, %k: index):
      %w = loopir.load %bb[%k, %j] : memref<64x40xf32>
      tileir.yield %w : f32
    }
    tileir.store %c, %out[%o0, %o1] : !tileir.tile<32x32xf32>, memref<50x40xf32>
  }
  return %r : tensor<50x40xf32>
}
