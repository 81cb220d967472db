// RUN: strata-opt %s --convert-kernelir-to-gpu --canonicalize | FileCheck %s

// kernelir.wgmma becomes nvvm's warpgroup mma: fence, one mma_async per 16
// k (here 32: two), commit, wait for none pending. Each descriptor holds
// the operand's shared address in 16-byte units (bits 0-13, the address
// masked to 18 bits) or'ed with the strides: the leading byte offset (a k
// block: 128 rows x 16 bytes = 2048, as 128 << 16) and the stride byte
// offset (8 rows x 16 bytes = 128, as 8 << 32): 8388608 + 34359738368.
// A starts at row 64 (8 core matrices of 128 bytes: 1024 bytes in); the
// second step's descriptors start two k blocks (4096 bytes) further. The
// accumulator passes as the struct of the lane's 64 f32 registers, in the
// vector's row-major order.

// CHECK-LABEL: gpu.func @warpgroup_mma
// CHECK-DAG: %[[A1:.*]] = arith.constant 5120 : i64
// CHECK-DAG: %[[B1:.*]] = arith.constant 4096 : i64
// CHECK-DAG: %[[A0:.*]] = arith.constant 1024 : i64
// CHECK-DAG: %[[FIXED:.*]] = arith.constant 34368126976 : i64
// CHECK-DAG: %[[UNIT:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[MASK:.*]] = arith.constant 262143 : i64
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: %[[PA:.*]] = memref.extract_aligned_pointer_as_index %[[A:.*]] : memref<2x4x128x8xf16, #gpu.address_space<workgroup>> -> index
// CHECK-NEXT: %[[IA:.*]] = arith.index_castui %[[PA]] : index to i64
// CHECK-NEXT: %[[SA:.*]] = arith.addi %[[IA]], %[[A0]] : i64
// CHECK-NEXT: %[[MA:.*]] = arith.andi %[[SA]], %[[MASK]] : i64
// CHECK-NEXT: %[[UA:.*]] = arith.shrui %[[MA]], %[[UNIT]] : i64
// CHECK-NEXT: %[[DA:.*]] = arith.ori %[[UA]], %[[FIXED]] : i64
// CHECK-NEXT: %[[PB:.*]] = memref.extract_aligned_pointer_as_index %[[B:.*]] : memref
// CHECK-NEXT: %[[IB:.*]] = arith.index_castui %[[PB]] : index to i64
// CHECK-NEXT: %[[MB:.*]] = arith.andi %[[IB]], %[[MASK]] : i64
// CHECK-NEXT: %[[UB:.*]] = arith.shrui %[[MB]], %[[UNIT]] : i64
// CHECK-NEXT: %[[DB:.*]] = arith.ori %[[UB]], %[[FIXED]] : i64
// CHECK-NEXT: %[[D0:.*]] = nvvm.wgmma.mma_async %[[DA]], %[[DB]], %{{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>] : !llvm.struct<({{(f32, )+}}f32)> -> !llvm.struct
// CHECK: arith.addi %{{.*}}, %[[A1]] : i64
// CHECK: arith.addi %{{.*}}, %[[B1]] : i64
// CHECK: %[[D1:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[D0]], <m = 64, n = 128, k = 16>
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: nvvm.wgmma.mma_async
// Element [3][1][0] of the result is register 4 * 3 + 2 * 1 + 0.
// CHECK-NEXT: llvm.extractvalue %[[D1]][14]
kernelir.func @warpgroup_mma(%out: memref<256xf32>) attributes {block = array<i64: 256, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<2x4x128x8xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<2x4x128x8xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %acc = arith.constant dense<0.0> : vector<16x2x2xf32>
  kernelir.proxy_fence
  kernelir.barrier
  %d = kernelir.wgmma %a[%c0, %c0, %c64, %c0], %b[%c0, %c0, %c0, %c0], %acc k 32 : memref<2x4x128x8xf16, #gpu.address_space<workgroup>>, memref<2x4x128x8xf16, #gpu.address_space<workgroup>>, vector<16x2x2xf32>
  %x = vector.extract %d[3, 1, 0] : f32 from vector<16x2x2xf32>
  %t = kernelir.thread_id x
  kernelir.store %x, %out[%t] : memref<256xf32>
  kernelir.return
}

// bf16 operands: the same with <bf16> types; n = 8 J.
// CHECK-LABEL: gpu.func @warpgroup_mma_bf16
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 16, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
kernelir.func @warpgroup_mma_bf16(%out: memref<128xf32>) attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<2x64x8xbf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<2x16x8xbf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %acc = arith.constant dense<0.0> : vector<2x2x2xf32>
  %d = kernelir.wgmma %a[%c0, %c0, %c0], %b[%c0, %c0, %c0], %acc k 16 : memref<2x64x8xbf16, #gpu.address_space<workgroup>>, memref<2x16x8xbf16, #gpu.address_space<workgroup>>, vector<2x2x2xf32>
  %x = vector.extract %d[1, 1, 1] : f32 from vector<2x2x2xf32>
  %t = kernelir.thread_id x
  kernelir.store %x, %out[%t] : memref<128xf32>
  kernelir.return
}

// An MN-major B (rhs_mn_major, 128-byte swizzle: what TMA writes from a
// row-major k x n tensor) is read transposed: B's layout is <row>. Its
// descriptor's leading byte offset is the distance between its blocks of
// 64 columns (32 k rows x 128 bytes = 4096, 256 units), the stride 8 k
// rows (1024 bytes, 64 units), the mode 1: (1 << 62) | (64 << 32) |
// (256 << 16); A's is K-major's (leading offset 1). The second k16 step
// starts 16 k rows (2048 bytes) further in B, 32 bytes further in A.
// CHECK-LABEL: gpu.func @warpgroup_mma_mn_major
// CHECK-DAG: %[[A1:.*]] = arith.constant 32 : i64
// CHECK-DAG: %[[B1:.*]] = arith.constant 2048 : i64
// CHECK-DAG: %[[ABITS:.*]] = arith.constant 4611686293305360384 : i64
// CHECK-DAG: %[[BBITS:.*]] = arith.constant 4611686293322072064 : i64
// CHECK: %[[DA:.*]] = arith.ori %{{.*}}, %[[ABITS]] : i64
// CHECK: %[[DB:.*]] = arith.ori %{{.*}}, %[[BBITS]] : i64
// CHECK-NEXT: nvvm.wgmma.mma_async %[[DA]], %[[DB]], %{{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK: arith.addi %{{.*}}, %[[A1]] : i64
// CHECK: arith.addi %{{.*}}, %[[B1]] : i64
// CHECK: nvvm.wgmma.mma_async {{.*}} B[<f16>, <one>, <row>]
kernelir.func @warpgroup_mma_mn_major(%out: memref<128xf32>) attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<1x64x64xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<2x32x64xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %acc = arith.constant dense<0.0> : vector<16x2x2xf32>
  %d = kernelir.wgmma %a[%c0, %c0, %c0], %b[%c0, %c0, %c0], %acc k 32 swizzle 128 rhs_mn_major : memref<1x64x64xf16, #gpu.address_space<workgroup>>, memref<2x32x64xf16, #gpu.address_space<workgroup>>, vector<16x2x2xf32>
  %x = vector.extract %d[1, 1, 1] : f32 from vector<16x2x2xf32>
  %t = kernelir.thread_id x
  kernelir.store %x, %out[%t] : memref<128xf32>
  kernelir.return
}
