// RUN: strata-translate --kernelir-to-cuda %s | FileCheck %s
// RUN: %if nvcc %{ strata-translate --kernelir-to-cuda %s -o %t.cu && %nvcc -c -arch=sm_90 %t.cu -o %t.o %}

// mbarriers and bulk copies as inline PTX: each names its mbarrier (and
// shared destination) by shared-window address; the wait retries
// try_wait.parity until the phase completes. nvcc compiles it for sm_90.
// CHECK-LABEL: stage_rows(float *a0, float *a1) {
// CHECK: asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared(&[[FULL:v[0-9]+]][{{.*}}])), "r"(1) : "memory");
// CHECK: asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared(&[[FULL]][{{.*}}])), "r"(256) : "memory");
// CHECK: asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
// CHECK-NEXT: :: "r"((unsigned)__cvta_generic_to_shared(&{{v[0-9]+}}[{{.*}}])), "l"(&a0[{{.*}}]), "r"(256), "r"((unsigned)__cvta_generic_to_shared(&[[FULL]][{{.*}}])) : "memory");
// CHECK: asm volatile("{\n .reg .pred done;\n waiting:\n mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n @!done bra waiting;\n}"
// CHECK-NEXT: :: "r"((unsigned)__cvta_generic_to_shared(&[[FULL]][{{.*}}])), "r"((unsigned){{.*}}) : "memory");
// CHECK: asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"((unsigned)__cvta_generic_to_shared(&[[FULL]][{{.*}}])) : "memory");
kernelir.func @stage_rows(%in: memref<12x64xf32>, %out: memref<12x64xf32>) attributes {block = array<i64: 64, 1, 1>, grid = array<i64: 12, 1, 1>} {
  %buf = kernelir.shared : memref<2x64xf32, #gpu.address_space<workgroup>>
  %full = kernelir.shared : memref<2xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %row = kernelir.block_id x
  %odd = arith.remui %row, %c2 : index
  %parity = arith.cmpi ne, %odd, %c0 : index
  %t = kernelir.thread_id x
  %leader = arith.cmpi eq, %t, %c0 : index
  scf.if %leader {
    kernelir.mbarrier_init %full[%c1] arrivals 1 : memref<2xi64, #gpu.address_space<workgroup>>
  }
  kernelir.proxy_fence
  kernelir.barrier
  scf.if %leader {
    kernelir.mbarrier_arrive %full[%c1] expect_tx 256 : memref<2xi64, #gpu.address_space<workgroup>>
    kernelir.bulk_copy %in[%row, %c0], %buf[%c1, %c0] elements 64 arrives %full[%c1] : memref<12x64xf32>, memref<2x64xf32, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
  }
  kernelir.mbarrier_wait %full[%c1] parity %parity : memref<2xi64, #gpu.address_space<workgroup>>
  %x = kernelir.load %buf[%c1, %t] : memref<2x64xf32, #gpu.address_space<workgroup>> -> f32
  kernelir.store %x, %out[%row, %t] : memref<12x64xf32>
  kernelir.mbarrier_arrive %full[%c0] : memref<2xi64, #gpu.address_space<workgroup>>
  kernelir.return
}
