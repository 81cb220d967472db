// RUN: strata-opt %s --split-input-file --convert-kernelir-to-gpu --cse | FileCheck %s

// Beyond the 48 KiB a block may declare statically, shared buffers are
// views of dynamic shared memory at 16-byte-aligned offsets (48 KiB, then
// 20 bytes of f16 rounded up to 32), and the launch requests the total.
// CHECK-LABEL: func.func @launch_big
// CHECK: %[[BYTES:.*]] = arith.constant 49216 : i32
// CHECK: gpu.launch_func @strata_kernels::@big {{.*}} dynamic_shared_memory_size %[[BYTES]] args
// The gpu.func keeps the size for launches that convert after it.
// CHECK: gpu.func @big(%{{.*}}: memref<64xf32>) kernel
// CHECK-SAME: strata.dynamic_shared_bytes = 49216 : i64
// CHECK: %[[ALL:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[ALL]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x64x64xf32, #gpu.address_space<workgroup>>
// CHECK: %[[AT:.*]] = arith.constant 49184 : index
// CHECK: memref.view %[[ALL]][%[[AT]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8xf32, #gpu.address_space<workgroup>>
func.func @launch_big(%a: memref<64xf32>) {
  kernelir.launch @big(%a) : memref<64xf32>
  return
}
kernelir.func @big(%a: memref<64xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<3x64x64xf32, #gpu.address_space<workgroup>>
  %h = kernelir.shared : memref<10xf16, #gpu.address_space<workgroup>>
  %p = kernelir.shared : memref<8xf32, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %t = kernelir.thread_id x
  %x = kernelir.load %a[%t] : memref<64xf32>
  kernelir.store %x, %s[%c0, %c0, %t] : memref<3x64x64xf32, #gpu.address_space<workgroup>>
  kernelir.store %x, %p[%c0] : memref<8xf32, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

// A buffer that overlays another is a view at the other's offset, so the
// kernel takes dynamic shared memory however little it needs (static
// declarations cannot alias): 16 bytes of f32 and 64 of f16 (the f16
// viewed as f32 at its offset, 16), 80 in all.
// CHECK-LABEL: func.func @launch_overlay
// CHECK: %[[BYTES:.*]] = arith.constant 80 : i32
// CHECK: gpu.launch_func @strata_kernels::@overlay {{.*}} dynamic_shared_memory_size %[[BYTES]] args
// CHECK: gpu.func @overlay(%{{.*}}: memref<64xf32>) kernel
// CHECK-SAME: strata.dynamic_shared_bytes = 80 : i64
// CHECK: %[[ALL:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[AT:.*]] = arith.constant 16 : index
// CHECK: memref.view %[[ALL]][%[[AT]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32xf16, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[ALL]][%[[AT]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16xf32, #gpu.address_space<workgroup>>
func.func @launch_overlay(%a: memref<64xf32>) {
  kernelir.launch @overlay(%a) : memref<64xf32>
  return
}
kernelir.func @overlay(%a: memref<64xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %p = kernelir.shared : memref<4xf32, #gpu.address_space<workgroup>>
  %h = kernelir.shared : memref<32xf16, #gpu.address_space<workgroup>>
  %v = kernelir.shared : memref<16xf32, #gpu.address_space<workgroup>> overlays %h : memref<32xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %t = kernelir.thread_id x
  %x = kernelir.load %a[%t] : memref<64xf32>
  kernelir.store %x, %v[%c0] : memref<16xf32, #gpu.address_space<workgroup>>
  %y = arith.truncf %x : f32 to f16
  kernelir.store %y, %h[%t] : memref<32xf16, #gpu.address_space<workgroup>>
  kernelir.store %x, %p[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
  kernelir.return
}
