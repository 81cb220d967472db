// RUN: strata-opt %s -split-input-file --convert-tileir-to-kernelir --canonicalize --cse | FileCheck %s

// A cooperative scan on 64 threads (2 warps): the row in chunks of 64
// points, thread t taking point chunk + t (the identity past the row's 100).
// Each chunk is scanned within each warp by a ladder of up-shuffles (1, 2,
// 4, 8, 16 lanes back, a lane without one keeping its value); lane 31 of
// each warp posts its warp's sum, and after a barrier every thread folds
// the posts of the warps before its own into its prefix and all of them
// into the chunk's total, which the next chunk starts from (a second
// barrier frees the posts). Each point in the row writes its prefix.
// CHECK-LABEL: kernelir.func @host_kernel
// CHECK-SAME: block = array<i64: 64, 1, 1>, grid = array<i64: 33, 1, 1>
// CHECK-DAG: %[[POSTS:.*]] = kernelir.shared : memref<2xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[C100:.*]] = arith.constant 100 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[T:.*]] = kernelir.thread_id x
// CHECK: scf.for %[[CHUNK:.*]] = %{{.*}} to %[[C100]] step %[[C64]] iter_args(%[[CARRY:.*]] = %{{.*}}) -> (f32) {
// CHECK: %[[P:.*]] = arith.addi %[[CHUNK]], %[[T]] : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[P]], %[[C100]] : index
// CHECK: kernelir.shuffle up %{{.*}}, %{{.*}} : f32
// CHECK-COUNT-4: kernelir.shuffle up
// CHECK: kernelir.store %{{.*}}, %[[POSTS]][%{{.*}}] if %{{.*}}
// CHECK-NEXT: kernelir.barrier
// CHECK: scf.for
// CHECK: kernelir.load %[[POSTS]]
// CHECK: kernelir.barrier
// CHECK: scf.if %{{.*}} {
// CHECK: kernelir.store %{{.*}}, %{{.*}}[%{{.*}}, %[[P]]] : memref<33x100xf32>
// CHECK: scf.yield
func.func @host(%a: tensor<33x100xf32>) -> tensor<33x100xf32> {
  %r = tileir.kernel ins(%a : tensor<33x100xf32>) -> tensor<33x100xf32> domain [33] tile [1] threads 64 {
  ^bb0(%in: memref<33x100xf32>, %out: memref<33x100xf32>):
    %row = tileir.point 0
    tileir.scan add(0.0 : f32) (%k) in [100] {
      %x = loopir.load %in[%row, %k] : memref<33x100xf32>
      tileir.yield %x : f32
    } each {
    ^bb0(%i: index, %p: f32):
      loopir.store %p, %out[%row, %i] : memref<33x100xf32>
      tileir.yield
    }
  }
  return %r : tensor<33x100xf32>
}

// -----

// A composite scan on one warp: each step of the ladder shuffles both
// components of the (max, sum) pair up and combines them with the region
// (the earlier lanes' part first), and the warp's fold, which the next
// chunk starts from, is the last lane's (an indexed shuffle of each).
// CHECK-LABEL: kernelir.func @host_kernel
// CHECK-SAME: block = array<i64: 32, 1, 1>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32) {
// CHECK: %[[M:.*]] = kernelir.shuffle up %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[S:.*]] = kernelir.shuffle up %{{.*}}, %{{.*}} : f32
// CHECK: arith.maximumf %[[M]], %{{.*}} : f32
// CHECK: math.exp
// CHECK-COUNT-8: kernelir.shuffle up
// CHECK: kernelir.shuffle idx
// CHECK-NEXT: kernelir.shuffle idx
// CHECK: math.log
// CHECK: kernelir.store
func.func @host(%a: tensor<33x100xf32>) -> tensor<33x100xf32> {
  %r = tileir.kernel ins(%a : tensor<33x100xf32>) -> tensor<33x100xf32> domain [33] tile [1] threads 32 {
  ^bb0(%in: memref<33x100xf32>, %out: memref<33x100xf32>):
    %row = tileir.point 0
    %one = arith.constant 1.0 : f32
    tileir.composite_scan (%k) in [100] identity(0xFF800000 : f32, 0.0 : f32) {
      %x = loopir.load %in[%row, %k] : memref<33x100xf32>
      tileir.yield %x, %one : f32, f32
    } combine {
    ^bb0(%m1: f32, %s1: f32, %m2: f32, %s2: f32):
      %m = arith.maximumf %m1, %m2 : f32
      %d1 = arith.subf %m1, %m : f32
      %d2 = arith.subf %m2, %m : f32
      %e1 = math.exp %d1 : f32
      %e2 = math.exp %d2 : f32
      %t1 = arith.mulf %s1, %e1 : f32
      %t2 = arith.mulf %s2, %e2 : f32
      %s = arith.addf %t1, %t2 : f32
      tileir.yield %m, %s : f32, f32
    } each {
    ^bb0(%i: index, %m: f32, %s: f32):
      %log = math.log %s : f32
      %y = arith.addf %m, %log : f32
      loopir.store %y, %out[%row, %i] : memref<33x100xf32>
      tileir.yield
    }
  }
  return %r : tensor<33x100xf32>
}
