// RUN: strata-opt %s -split-input-file --convert-kernelir-to-cpu | FileCheck %s

// A barrier splits the thread loop: in each block, every thread runs the
// first interval, then every thread runs the second. A value that lives
// across the barrier (%x) is kept per thread; the shared buffer is one
// buffer that the blocks use in turn; constants stay at block level.
// CHECK: func.func private @k(%[[IN:.*]]: memref<96xf32>, %[[OUT:.*]]: memref<96xf32>)
// CHECK: scf.for %[[B:.*]] = %{{.*}} to %c3
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %c32
// CHECK: %[[X:.*]] = scf.if
// CHECK: memref.store %[[X]], %[[KEEP:.*]][%{{.*}}] : memref<32xf32>
// CHECK-NEXT: memref.store %[[X]], %[[SHARED:.*]][%[[T]]] : memref<32xf32>
// CHECK: }
// CHECK: scf.for %[[T2:.*]] = %{{.*}} to %c32
// CHECK: %[[X2:.*]] = memref.load %[[KEEP]][%{{.*}}]
// CHECK: memref.load %[[SHARED]][
// CHECK: arith.addf %[[X2]], %{{.*}} : f32
// CHECK: memref.store
kernelir.func @k(%in: memref<96xf32>, %out: memref<96xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 3, 1, 1>} {
  %s = kernelir.shared : memref<32xf32, #gpu.address_space<workgroup>>
  %c31 = arith.constant 31 : index
  %c32 = arith.constant 32 : index
  %b = kernelir.block_id x
  %t = kernelir.thread_id x
  %base = arith.muli %b, %c32 : index
  %i = arith.addi %base, %t : index
  %ok = arith.cmpi ult, %i, %c32 : index
  %x = kernelir.load %in[%i] if %ok : memref<96xf32>
  kernelir.store %x, %s[%t] : memref<32xf32, #gpu.address_space<workgroup>>
  kernelir.barrier
  %r = arith.subi %c31, %t : index
  %y = kernelir.load %s[%r] : memref<32xf32, #gpu.address_space<workgroup>>
  %z = arith.addf %x, %y : f32
  kernelir.store %z, %out[%i] : memref<96xf32>
  kernelir.return
}

// -----

// A shuffle becomes an exchange through a scratch buffer: post, barrier,
// read the source lane's post, barrier.
// CHECK-LABEL: func.func private @shuffle
// CHECK-DAG: %[[SCRATCH:.*]] = memref.alloca() : memref<32xf32>
// CHECK: scf.for
// CHECK: scf.for %[[T:.*]] =
// CHECK: arith.xori
// CHECK: memref.store %{{.*}}, %[[SCRATCH]][%{{.*}}]
// CHECK: scf.for
// CHECK: memref.load %[[SCRATCH]]
// CHECK: memref.store
kernelir.func @shuffle(%out: memref<32xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c16 = arith.constant 16 : i32
  %t = kernelir.thread_id x
  %ti = arith.index_cast %t : index to i32
  %x = arith.sitofp %ti : i32 to f32
  %y = kernelir.shuffle xor %x, %c16 : f32
  kernelir.store %y, %out[%t] : memref<32xf32>
  kernelir.return
}

// -----

// A loop with barriers inside, with the same bounds in every thread (the K
// loop of a tiled matmul), runs at block level; each interval of its body
// is a thread loop, and its carried value lives per thread. The last
// interval of one iteration and the first of the next share a thread loop.
// CHECK-LABEL: func.func private @k_loop
// CHECK: scf.for %[[B:.*]] = {{.*}} to %c2
// CHECK: memref.store %cst{{.*}}, %[[ACC:alloca[_0-9]*]][%{{.*}}] : memref<32xf32>
// The first iteration's staging runs ahead of the loop.
// CHECK: memref.store %{{.*}}, %[[SHARED:alloca[_0-9]*]][
// CHECK: scf.for %[[KT:.*]] = %{{.*}} to %c4 step %{{.*}} {
// CHECK: memref.load %[[ACC]][
// CHECK: memref.load %[[SHARED]][
// CHECK: %[[NEXT:.*]] = arith.addf
// CHECK: memref.store %[[NEXT]], %[[KEPT:alloca[_0-9]*]][
// CHECK: %[[KT1:.*]] = arith.addi %[[KT]]
// CHECK: %[[MORE:.*]] = arith.cmpi slt, %[[KT1]]
// CHECK: %[[CARRY:.*]] = memref.load %[[KEPT]][
// CHECK-NEXT: memref.store %[[CARRY]], %[[ACC]][
// The next iteration's staging shares the thread loop: the back edge is
// no barrier.
// CHECK-NEXT: scf.if %[[MORE]] {
// CHECK: arith.muli %[[KT1]]
// CHECK: memref.store %{{.*}}, %[[SHARED]][
// CHECK: %[[SUM:.*]] = memref.load %[[ACC]][
// CHECK: memref.store %[[SUM]], %{{.*}}[%{{.*}}] : memref<64xf32>
kernelir.func @k_loop(%in: memref<256xf32>, %out: memref<64xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 2, 1, 1>} {
  %s = kernelir.shared : memref<32xf32, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c31 = arith.constant 31 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %b = kernelir.block_id x
  %t = kernelir.thread_id x
  %sum = scf.for %kt = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
    %off = arith.muli %kt, %c32 : index
    %row = arith.muli %b, %c128 : index
    %base = arith.addi %row, %off : index
    %i = arith.addi %base, %t : index
    %x = kernelir.load %in[%i] : memref<256xf32>
    kernelir.store %x, %s[%t] : memref<32xf32, #gpu.address_space<workgroup>>
    kernelir.barrier
    %r = arith.subi %c31, %t : index
    %y = kernelir.load %s[%r] : memref<32xf32, #gpu.address_space<workgroup>>
    %next = arith.addf %acc, %y : f32
    kernelir.barrier
    scf.yield %next : f32
  }
  %o0 = arith.muli %b, %c32 : index
  %o = arith.addi %o0, %t : index
  kernelir.store %sum, %out[%o] : memref<64xf32>
  kernelir.return
}
