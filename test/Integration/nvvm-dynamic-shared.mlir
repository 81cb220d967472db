// A kernel with more than 48 KiB of shared buffers (3 x 64 x 64 f32 and
// more) gets dynamic shared memory: PTX declares it as CUDA does, an
// extern array of unknown size (not a demoted zero-length variable whose
// out-of-range accesses LLVM could drop), the buffers at fixed offsets in
// it, and the launch asks for the total. ptxas assembles it.
// RUN: strata-opt %s --strata-lower-to-nvvm | FileCheck %s
// RUN: %if ptxas %{ strata-opt %s '--strata-lower-to-nvvm=format=bin' | FileCheck %s --check-prefix=BIN %}

// CHECK: gpu.launch_func @strata_kernels::@big {{.*}} dynamic_shared_memory_size
// CHECK: gpu.binary @strata_kernels
// CHECK-NOT: demoted
// CHECK-SAME: .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// CHECK-SAME: st.shared.b32 {{.*}}[__dynamic_shmem__0+49184]
// BIN: gpu.binary @strata_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">
// BIN-SAME: bin = "\7FELF

func.func @host(%a: memref<64xf32>) {
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
  kernelir.barrier
  %y = kernelir.load %s[%c0, %t, %c0] : memref<3x64x64xf32, #gpu.address_space<workgroup>>
  kernelir.store %y, %a[%t] : memref<64xf32>
  kernelir.return
}
