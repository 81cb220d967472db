// RUN: strata-opt %s --convert-kernelir-to-gpu --cse | FileCheck %s

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
