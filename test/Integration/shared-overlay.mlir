// A buffer that overlays another (`kernelir.shared ... overlays %base`)
// sees its bytes in its own type: a result tile's staging over the operand
// chunks its contraction is done with. @stage_over_chunk multiplies a box
// of A (rows 0-63 of the ragged 50 x 40 A of tma-wgmma.mlir) by one of B
// (D(0, 0) = 5), retires the group, and after a barrier thread 0 stores
// D(0, 0) into an f32 staging buffer over A's chunk; after another, thread
// 1 reads it back (5), and thread 2 reads the chunk's second half (the
// float's high 16 bits, 0x40a0: 2.3125 as a half). @stage_in_flight stores
// before the wait: the GPU's group might read the stored bytes as A's, so
// the emulation fails the run, naming the kernel, in every thread order.
// RUN: strata-opt %s --convert-kernelir-to-cpu=check-bounds=true --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
// RUN: strata-opt %s --convert-kernelir-to-cpu=shuffled-order=true --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
// RUN: strata-opt %s --convert-kernelir-to-cpu=reverse-order=true --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
// RUN: strata-opt %s --convert-kernelir-to-cpu --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | not --crash stdbuf -o0 mlir-runner -e in_flight_main -entry-point-result=void -shared-libs=%mlir_c_runner_utils 2>&1 \
// RUN: | FileCheck %s --check-prefix=HAZARD
// RUN: strata-opt %s --convert-kernelir-to-cpu=reverse-order=true --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | not --crash stdbuf -o0 mlir-runner -e in_flight_main -entry-point-result=void -shared-libs=%mlir_c_runner_utils 2>&1 \
// RUN: | FileCheck %s --check-prefix=HAZARD
//
// On the GPU (sm_90a) the overlay is a view of the dynamic shared window at
// its base's offset (the kernel's 8 KiB + 4 KiB + 8 bytes would fit in
// static shared memory, which cannot alias); in CUDA a pointer into it.
// RUN: strata-opt %s '--strata-lower-to-nvvm=chip=sm_90a' | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ strata-opt %s '--strata-lower-to-nvvm=chip=sm_90a format=bin' | FileCheck %s --check-prefix=BIN %}
// RUN: strata-translate --kernelir-to-cuda %s | FileCheck %s --check-prefix=CUDA
// RUN: %if nvcc %{ strata-translate --kernelir-to-cuda %s -o %t.cu && %nvcc -c -gencode arch=compute_90a,code=sm_90a %t.cu -o %t.o %}

// CHECK: staged D(0, 0) = 5
// CHECK: its high half through the chunk = 2.3125
// HAZARD: a thread's store writes shared memory that an async wgmma group still reads {{.*}} in kernel stage_in_flight
// PTX: gpu.binary @strata_kernels
// PTX-SAME: .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// PTX-SAME: .entry stage_over_chunk
// PTX-SAME: wgmma.wait_group.sync.aligned 0;
// BIN: gpu.binary @strata_kernels
// BIN-SAME: bin = "\7FELF
// CUDA: stage_over_chunk(
// CUDA: extern __shared__ __align__(16) unsigned char strata_dynamic_shared[]; // launch with 13304 bytes of dynamic shared memory
// CUDA: __half *{{v[0-9]+}} = reinterpret_cast<__half *>(strata_shared_base + 0);
// CUDA-NEXT: float *{{v[0-9]+}} = reinterpret_cast<float *>(strata_shared_base + 0);

!abox = memref<1x64x64xf16, #gpu.address_space<workgroup>>
!bbox = memref<1x32x64xf16, #gpu.address_space<workgroup>>
!staging = memref<64x32xf32, #gpu.address_space<workgroup>>
!bars = memref<1xi64, #gpu.address_space<workgroup>>
!acc = vector<4x2x2xf32>

kernelir.func @stage_over_chunk(%a: memref<50x40xf16> {kernelir.tensor_map}, %b: memref<24x40xf16> {kernelir.tensor_map}, %out: memref<2xf32>) attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %sa = kernelir.shared : !abox
  %staged = kernelir.shared : !staging overlays %sa : !abox
  %sb = kernelir.shared : !bbox
  %full = kernelir.shared : !bars
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %false = arith.constant false
  %zero = arith.constant dense<0.0> : !acc
  %t = kernelir.thread_id x
  %leader = arith.cmpi eq, %t, %c0 : index
  scf.if %leader {
    kernelir.mbarrier_init %full[%c0] arrivals 1 : !bars
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
  // Thread 0 holds D(0, 0) as element [0][0][0].
  scf.if %leader {
    %x = vector.extract %e[0, 0, 0] : f32 from !acc
    kernelir.store %x, %staged[%c0, %c0] : !staging
  }
  kernelir.barrier
  %one = arith.cmpi eq, %t, %c1 : index
  scf.if %one {
    %y = kernelir.load %staged[%c0, %c0] : !staging
    kernelir.store %y, %out[%c0] : memref<2xf32>
  }
  %two = arith.cmpi eq, %t, %c2 : index
  scf.if %two {
    %h = kernelir.load %sa[%c0, %c0, %c1] : !abox
    %z = arith.extf %h : f16 to f32
    kernelir.store %z, %out[%c1] : memref<2xf32>
  }
  kernelir.return
}

kernelir.func @stage_in_flight(%a: memref<50x40xf16> {kernelir.tensor_map}, %b: memref<24x40xf16> {kernelir.tensor_map}, %out: memref<2xf32>) attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %sa = kernelir.shared : !abox
  %staged = kernelir.shared : !staging overlays %sa : !abox
  %sb = kernelir.shared : !bbox
  %full = kernelir.shared : !bars
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %false = arith.constant false
  %zero = arith.constant dense<0.0> : !acc
  %t = kernelir.thread_id x
  %leader = arith.cmpi eq, %t, %c0 : index
  scf.if %leader {
    kernelir.mbarrier_init %full[%c0] arrivals 1 : !bars
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
  // Before the wait: any float.
  scf.if %leader {
    %x = arith.constant 1.0 : f32
    kernelir.store %x, %staged[%c0, %c0] : !staging
  }
  %e = kernelir.wgmma_wait %d pending 0 : !acc
  kernelir.barrier
  %one = arith.cmpi eq, %t, %c1 : index
  scf.if %one {
    %y = kernelir.load %staged[%c0, %c0] : !staging
    kernelir.store %y, %out[%c0] : memref<2xf32>
  }
  %two = arith.cmpi eq, %t, %c2 : index
  scf.if %two {
    %h = kernelir.load %sa[%c0, %c0, %c1] : !abox
    %z = arith.extf %h : f16 to f32
    kernelir.store %z, %out[%c1] : memref<2xf32>
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
  %c1 = arith.constant 1 : index
  %a, %b = func.call @inputs() : () -> (memref<50x40xf16>, memref<24x40xf16>)
  %out = memref.alloc() : memref<2xf32>
  kernelir.launch @stage_over_chunk(%a, %b, %out) : memref<50x40xf16>, memref<24x40xf16>, memref<2xf32>
  %d = memref.load %out[%c0] : memref<2xf32>
  vector.print str "staged D(0, 0) = "
  vector.print %d : f32
  %h = memref.load %out[%c1] : memref<2xf32>
  vector.print str "its high half through the chunk = "
  vector.print %h : f32
  return
}

func.func @in_flight_main() {
  %a, %b = func.call @inputs() : () -> (memref<50x40xf16>, memref<24x40xf16>)
  %out = memref.alloc() : memref<2xf32>
  kernelir.launch @stage_in_flight(%a, %b, %out) : memref<50x40xf16>, memref<24x40xf16>, memref<2xf32>
  return
}
