// RUN: strata-opt %s --convert-kernelir-to-gpu | FileCheck %s

// Shared buffers become workgroup attributions of the gpu.func, aligned to
// 16 bytes, barriers gpu.barrier, shuffles gpu.shuffle across the whole
// warp (width 32).
// CHECK: gpu.func @k(%[[IN:.*]]: memref<64xf32>, %[[OUT:.*]]: memref<2xf32>) workgroup(%[[POSTS:.*]] : memref<2xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: %[[X:.*]] = memref.load %[[IN]][%[[T]]]
// CHECK: %[[W:.*]] = arith.constant 32 : i32
// CHECK: %{{.*}}, %{{.*}} = gpu.shuffle  xor %[[X]], %{{.*}}, %[[W]] : f32
// CHECK: gpu.shuffle  down
// CHECK: gpu.shuffle  up
// CHECK: gpu.shuffle  idx
// CHECK: memref.store %{{.*}}, %[[POSTS]][%{{.*}}] : memref<2xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.load %[[POSTS]]
kernelir.func @k(%in: memref<64xf32>, %out: memref<2xf32>) attributes {block = array<i64: 64, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %posts = kernelir.shared : memref<2xf32, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c1_i32 = arith.constant 1 : i32
  %t = kernelir.thread_id x
  %x = kernelir.load %in[%t] : memref<64xf32>
  %y = kernelir.shuffle xor %x, %c1_i32 : f32
  %z = kernelir.shuffle down %y, %c1_i32 : f32
  %u = kernelir.shuffle up %z, %c1_i32 : f32
  %v = kernelir.shuffle idx %u, %c1_i32 : f32
  %warp = arith.divui %t, %c32 : index
  kernelir.store %v, %posts[%warp] : memref<2xf32, #gpu.address_space<workgroup>>
  kernelir.barrier
  %w = kernelir.load %posts[%c1] : memref<2xf32, #gpu.address_space<workgroup>>
  kernelir.store %w, %out[%warp] : memref<2xf32>
  kernelir.return
}
