// Async wgmma groups: `kernelir.wgmma ... async` returns with its group in
// flight, `kernelir.wgmma_wait` retires groups; only then may the group's
// shared operands be overwritten. @refill_after_wait multiplies a box of A
// (rows 0-63 of the ragged 50 x 40 A of tma-wgmma.mlir) by one of B,
// retires the group, copies rows 8-71 of A into the same buffer and
// multiplies again into the same accumulator: D(0, 0) = A0 . B0 + A8 . B0 =
// 5 + (-2) = 3 (A[r][k] = (3 r + k) mod 7 - 3, B[n][k] = (n + 2 k) mod 5 -
// 2). @refill_in_flight copies before the wait: the GPU's group might read
// the new rows, so the emulation fails the run, naming the kernel, in
// every thread order.
// RUN: strata-opt %s --convert-kernelir-to-cpu=check-bounds=true --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
// RUN: strata-opt %s --convert-kernelir-to-cpu=shuffled-order=true --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
// RUN: strata-opt %s --convert-kernelir-to-cpu --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | not --crash stdbuf -o0 mlir-runner -e in_flight_main -entry-point-result=void -shared-libs=%mlir_c_runner_utils 2>&1 \
// RUN: | FileCheck %s --check-prefix=HAZARD
// RUN: strata-opt %s --convert-kernelir-to-cpu=reverse-order=true --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | not --crash stdbuf -o0 mlir-runner -e in_flight_main -entry-point-result=void -shared-libs=%mlir_c_runner_utils 2>&1 \
// RUN: | FileCheck %s --check-prefix=HAZARD
//
// On the GPU (sm_90a): the async wgmma is committed and not waited for; the
// wait is one inline asm that ties the accumulator's registers to itself
// ("=f" outputs, "0".. inputs); ptxas assembles it. In CUDA the wait reads
// and writes the registers ("+f"); nvcc compiles it for sm_90a.
// RUN: strata-opt %s '--strata-lower-to-nvvm=chip=sm_90a' | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ strata-opt %s '--strata-lower-to-nvvm=chip=sm_90a format=bin' | FileCheck %s --check-prefix=BIN %}
// RUN: strata-translate --kernelir-to-cuda %s | FileCheck %s --check-prefix=CUDA
// RUN: %if nvcc %{ strata-translate --kernelir-to-cuda %s -o %t.cu && %nvcc -c -gencode arch=compute_90a,code=sm_90a %t.cu -o %t.o %}

// CHECK: D(0, 0) = 3
// HAZARD: a TMA copy writes shared memory that an async wgmma group still reads {{.*}} in kernel refill_in_flight
// PTX: gpu.binary @strata_kernels
// PTX-SAME: .entry refill_after_wait
// PTX-SAME: wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16
// PTX-SAME: wgmma.commit_group.sync.aligned;
// PTX-SAME: wgmma.wait_group.sync.aligned 0;
// PTX-SAME: cp.async.bulk.tensor.2d
// BIN: gpu.binary @strata_kernels
// BIN-SAME: bin = "\7FELF
// CUDA: wgmma.commit_group.sync.aligned;
// CUDA-NEXT: strata_vec<float, 16> [[R:v[0-9]+]] = v{{[0-9]+}};
// CUDA-NEXT: asm volatile("wgmma.wait_group.sync.aligned 0;" : "+f"([[R]].v[0]), "+f"([[R]].v[1]),

!abox = memref<1x64x64xf16, #gpu.address_space<workgroup>>
!bbox = memref<1x32x64xf16, #gpu.address_space<workgroup>>
!bars = memref<2xi64, #gpu.address_space<workgroup>>
!acc = vector<4x2x2xf32>

// The first product's copies, issued by thread 0 on mbarrier 0, awaited,
// and the group issued; the second box of A, on mbarrier 1.
kernelir.func @refill_after_wait(%a: memref<50x40xf16> {kernelir.tensor_map}, %b: memref<24x40xf16> {kernelir.tensor_map}, %out: memref<1xf32>) attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %sa = kernelir.shared : !abox
  %sb = kernelir.shared : !bbox
  %full = kernelir.shared : !bars
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %false = arith.constant false
  %zero = arith.constant dense<0.0> : !acc
  %t = kernelir.thread_id x
  %leader = arith.cmpi eq, %t, %c0 : index
  scf.if %leader {
    kernelir.mbarrier_init %full[%c0] arrivals 1 : !bars
    kernelir.mbarrier_init %full[%c1] arrivals 1 : !bars
  }
  kernelir.proxy_fence
  kernelir.barrier
  scf.if %leader {
    kernelir.mbarrier_arrive %full[%c0] expect_tx 12288 : !bars
    kernelir.tma_load %a[%c0, %c0], %sa[%c0, %c0, %c0] swizzle 128 arrives %full[%c0] : memref<50x40xf16>, !abox, !bars
    kernelir.tma_load %b[%c0, %c0], %sb[%c0, %c0, %c0] swizzle 128 arrives %full[%c0] : memref<24x40xf16>, !bbox, !bars
  }
  kernelir.mbarrier_wait %full[%c0] parity %false : !bars
  %d = kernelir.wgmma %sa[%c0, %c0, %c0], %sb[%c0, %c0, %c0], %zero k 64 swizzle 128 async : !abox, !bbox, !acc
  %e = kernelir.wgmma_wait %d pending 0 : !acc
  kernelir.barrier
  scf.if %leader {
    kernelir.mbarrier_arrive %full[%c1] expect_tx 8192 : !bars
    kernelir.tma_load %a[%c8, %c0], %sa[%c0, %c0, %c0] swizzle 128 arrives %full[%c1] : memref<50x40xf16>, !abox, !bars
  }
  kernelir.mbarrier_wait %full[%c1] parity %false : !bars
  %f = kernelir.wgmma %sa[%c0, %c0, %c0], %sb[%c0, %c0, %c0], %e k 64 swizzle 128 async : !abox, !bbox, !acc
  %g = kernelir.wgmma_wait %f pending 0 : !acc
  // Thread 0 holds D(0, 0) as element [0][0][0].
  scf.if %leader {
    %x = vector.extract %g[0, 0, 0] : f32 from !acc
    kernelir.store %x, %out[%c0] : memref<1xf32>
  }
  kernelir.return
}

// As above, but the second box of A is copied before the first group is
// retired.
kernelir.func @refill_in_flight(%a: memref<50x40xf16> {kernelir.tensor_map}, %b: memref<24x40xf16> {kernelir.tensor_map}, %out: memref<1xf32>) attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %sa = kernelir.shared : !abox
  %sb = kernelir.shared : !bbox
  %full = kernelir.shared : !bars
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %false = arith.constant false
  %zero = arith.constant dense<0.0> : !acc
  %t = kernelir.thread_id x
  %leader = arith.cmpi eq, %t, %c0 : index
  scf.if %leader {
    kernelir.mbarrier_init %full[%c0] arrivals 1 : !bars
    kernelir.mbarrier_init %full[%c1] arrivals 1 : !bars
  }
  kernelir.proxy_fence
  kernelir.barrier
  scf.if %leader {
    kernelir.mbarrier_arrive %full[%c0] expect_tx 12288 : !bars
    kernelir.tma_load %a[%c0, %c0], %sa[%c0, %c0, %c0] swizzle 128 arrives %full[%c0] : memref<50x40xf16>, !abox, !bars
    kernelir.tma_load %b[%c0, %c0], %sb[%c0, %c0, %c0] swizzle 128 arrives %full[%c0] : memref<24x40xf16>, !bbox, !bars
  }
  kernelir.mbarrier_wait %full[%c0] parity %false : !bars
  %d = kernelir.wgmma %sa[%c0, %c0, %c0], %sb[%c0, %c0, %c0], %zero k 64 swizzle 128 async : !abox, !bbox, !acc
  kernelir.barrier
  scf.if %leader {
    kernelir.mbarrier_arrive %full[%c1] expect_tx 8192 : !bars
    kernelir.tma_load %a[%c8, %c0], %sa[%c0, %c0, %c0] swizzle 128 arrives %full[%c1] : memref<50x40xf16>, !abox, !bars
  }
  kernelir.mbarrier_wait %full[%c1] parity %false : !bars
  %e = kernelir.wgmma_wait %d pending 0 : !acc
  scf.if %leader {
    %x = vector.extract %e[0, 0, 0] : f32 from !acc
    kernelir.store %x, %out[%c0] : memref<1xf32>
  }
  kernelir.return
}

// A[r][k] = (3 r + k) mod 7 - 3, B[n][k] = (n + 2 k) mod 5 - 2.
func.func @inputs() -> (memref<50x40xf16>, memref<24x40xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c24 = arith.constant 24 : index
  %c40 = arith.constant 40 : index
  %c50 = arith.constant 50 : index
  %a = memref.alloc() : memref<50x40xf16>
  scf.for %r = %c0 to %c50 step %c1 {
    scf.for %k = %c0 to %c40 step %c1 {
      %r3 = arith.muli %r, %c3 : index
      %s = arith.addi %r3, %k : index
      %m = arith.remui %s, %c7 : index
      %v = arith.subi %m, %c3 : index
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to f16
      memref.store %vf, %a[%r, %k] : memref<50x40xf16>
    }
  }
  %b = memref.alloc() : memref<24x40xf16>
  scf.for %n = %c0 to %c24 step %c1 {
    scf.for %k = %c0 to %c40 step %c1 {
      %k2 = arith.muli %k, %c2 : index
      %s = arith.addi %n, %k2 : index
      %m = arith.remui %s, %c5 : index
      %v = arith.subi %m, %c2 : index
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to f16
      memref.store %vf, %b[%n, %k] : memref<24x40xf16>
    }
  }
  return %a, %b : memref<50x40xf16>, memref<24x40xf16>
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %a, %b = func.call @inputs() : () -> (memref<50x40xf16>, memref<24x40xf16>)
  %out = memref.alloc() : memref<1xf32>
  kernelir.launch @refill_after_wait(%a, %b, %out) : memref<50x40xf16>, memref<24x40xf16>, memref<1xf32>
  %d = memref.load %out[%c0] : memref<1xf32>
  vector.print str "D(0, 0) = "
  vector.print %d : f32
  return
}

func.func @in_flight_main() {
  %a, %b = func.call @inputs() : () -> (memref<50x40xf16>, memref<24x40xf16>)
  %out = memref.alloc() : memref<1xf32>
  kernelir.launch @refill_in_flight(%a, %b, %out) : memref<50x40xf16>, memref<24x40xf16>, memref<1xf32>
  return
}
