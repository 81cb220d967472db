// kernelir.tma_load on the CPU (MBarrierEmulation.cpp) and to PTX
// (MBarrierToNVVM.cpp, GridConstantTensorMapsPass): boxes of a global
// tensor land in shared memory row-major, their 16-byte units permuted by
// the swizzle, zeros where the box leaves the tensor, and complete the
// box's bytes (zeros included) on an mbarrier.
//
// @box2d: three blocks each load a 16 x 32 f32 box (128-byte rows, the
// 128-byte swizzle) of a 37 x 20 tensor from column -4, so every box
// overhangs on the left, the right and (the last) at the bottom; every
// thread then copies the shared buffer out as it lies. @box3d: a
// 2 x 4 x 16 box (64-byte rows, the 64-byte swizzle) of a 3 x 5 x 12
// tensor from (1, 3, -2). main checks every element against the layout
// written out here: box element e at byte offset o = 4 e lies at
// o xor ((o >> 3) & mask), mask 0x70 (128 bytes) or 0x30 (64 bytes), and
// holds the tensor's element or, outside it, 0 (the tensor holds no 0).
// Forward, reversed and shuffled thread orders, with the bounds check.
// RUN: strata-opt %s --convert-kernelir-to-cpu=check-bounds=true --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
// RUN: strata-opt %s --convert-kernelir-to-cpu=reverse-order=true --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
// RUN: strata-opt %s --convert-kernelir-to-cpu=shuffled-order=true --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
//
// A box's bytes are all of it, the zeros too: expecting only the bytes
// inside the tensor leaves the phase incomplete, which would hang the GPU
// and fails here naming the kernel.
// RUN: strata-opt %s --convert-kernelir-to-cpu --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | not --crash stdbuf -o0 mlir-runner -e inside_bytes_main -entry-point-result=void -shared-libs=%mlir_c_runner_utils 2>&1 \
// RUN: | FileCheck %s --check-prefix=BYTES
//
// TMA stores (@round_trip): a box loaded and stored back elsewhere, the
// store writing only inside its tensor.
// RUN: strata-opt %s --convert-kernelir-to-cpu=check-bounds=true --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e round_trip_main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s --check-prefix=STORE
// RUN: strata-opt %s --convert-kernelir-to-cpu=reverse-order=true --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e round_trip_main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s --check-prefix=STORE
//
// On the GPU (sm_90): each tensor map is a 128-byte parameter passed by
// value (`.param .align 64 .b8 [128]`, CUDA's const __grid_constant__
// CUtensorMap) whose address TMA reads, coordinates innermost first; the
// swizzled box's buffer is aligned to the swizzle's period (1024 bytes);
// the launches list their tensor maps for the runtime; ptxas assembles it.
// RUN: strata-opt %s '--strata-lower-to-nvvm=chip=sm_90' | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ strata-opt %s '--strata-lower-to-nvvm=chip=sm_90 format=bin' | FileCheck %s --check-prefix=BIN %}

// PTX: gpu.launch_func @strata_kernels::@box2d {{.*}} {strata.tensor_maps = [{box = array<i64: 16, 32>, param = 0 : i64, shape = array<i64: 37, 20>, swizzle = 128 : i64}]}
// PTX: gpu.launch_func @strata_kernels::@box3d {{.*}} {strata.tensor_maps = [{box = array<i64: 2, 4, 16>, param = 0 : i64, shape = array<i64: 3, 5, 12>, swizzle = 64 : i64}]}
// PTX: gpu.binary @strata_kernels
// PTX-SAME: .entry box2d(\0A\09.param .align 64 .b8 box2d_param_0[128],\0A\09.param .u64 .ptr .align 1 box2d_param_1\0A)
// PTX-SAME: .shared .align 1024 .b8 __wg_box2d_0[2048];
// PTX-SAME: mov.b64 \09[[MAP:%rd[0-9]+]], box2d_param_0;
// PTX-SAME: cvta.param.u64 \09[[GENERIC:%rd[0-9]+]], [[MAP]];
// PTX-SAME: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], {{\[}}[[GENERIC]], {%r{{[0-9]+}}, %r{{[0-9]+}}}]
// PTX-SAME: .entry box3d(\0A\09.param .align 64 .b8 box3d_param_0[128],
// PTX-SAME: .shared .align 512 .b8 __wg_box3d_0[512];
// PTX-SAME: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-SAME: .entry round_trip(\0A\09.param .align 64 .b8 round_trip_param_0[128],\0A\09.param .align 64 .b8 round_trip_param_1[128]\0A)
// PTX-SAME: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX-SAME: cp.async.bulk.commit_group;
// PTX-SAME: cp.async.bulk.wait_group.read \090;
// BIN: gpu.binary @strata_kernels
// BIN-SAME: bin = "\7FELF
//
// Rendered in CUDA, the tensor map is a const __grid_constant__
// parameter whose address the inline cp.async.bulk.tensor reads; nvcc
// compiles it.
// RUN: strata-translate --kernelir-to-cuda %s | FileCheck %s --check-prefix=CUDA
// RUN: %if nvcc %{ strata-translate --kernelir-to-cuda %s -o %t.cu && %nvcc -c -arch=sm_90 %t.cu -o %t.o %}

// CUDA: struct alignas(64) strata_tensor_map {
// CUDA-LABEL: box2d(const __grid_constant__ strata_tensor_map a0, float *a1) {
// CUDA: __shared__ __align__(1024) float [[BOX:v[0-9]+]][512];
// CUDA: asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];"
// CUDA-NEXT: :: "r"((unsigned)__cvta_generic_to_shared(&[[BOX]][{{.*}}])), "l"(&a0), "r"((unsigned)__cvta_generic_to_shared(&{{v[0-9]+}}[{{.*}}])), "r"((int){{v[0-9]+}}), "r"((int){{v[0-9]+}}) : "memory");
// CUDA-LABEL: box3d(const __grid_constant__ strata_tensor_map a0, float *a1) {
// CUDA: __shared__ __align__(512) float
// CUDA: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];
// CUDA-LABEL: round_trip(const __grid_constant__ strata_tensor_map a0, const __grid_constant__ strata_tensor_map a1) {
// CUDA: asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];"
// CUDA-NEXT: :: "l"(&a1), "r"((unsigned)__cvta_generic_to_shared(&{{v[0-9]+}}[{{.*}}])), "r"((int){{v[0-9]+}}), "r"((int){{v[0-9]+}}) : "memory");
// CUDA-NEXT: asm volatile("cp.async.bulk.commit_group;" ::: "memory");
// CUDA-NEXT: asm volatile("cp.async.bulk.wait_group.read %0;" :: "n"(0) : "memory");

// Box element (1, 5) is in[1][1] = 102, at byte 148 ^ 16 = 132: [1][1];
// box element (2, 4) is in[2][0] = 201, at byte 272 ^ 32 = 304: [2][12].
// CHECK: 2-d wrong elements: 0
// CHECK-NEXT: 102
// CHECK-NEXT: 201
// CHECK-NEXT: 3-d wrong elements: 0
// BYTES: an mbarrier wait whose phase never completes {{.*}} in kernel inside_bytes
// out[0][2] = in[5][0] = 501.
// STORE: round trip wrong elements: 0
// STORE-NEXT: 501

!shared2 = memref<16x32xf32, #gpu.address_space<workgroup>>
!shared3 = memref<2x4x16xf32, #gpu.address_space<workgroup>>
!bars = memref<1xi64, #gpu.address_space<workgroup>>

kernelir.func @box2d(%in: memref<37x20xf32> {kernelir.tensor_map}, %out: memref<3x16x32xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 3, 1, 1>} {
  %box = kernelir.shared : !shared2
  %full = kernelir.shared : !bars
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %cm4 = arith.constant -4 : index
  %false = arith.constant false
  %t = kernelir.thread_id x
  %block = kernelir.block_id x
  %leader = arith.cmpi eq, %t, %c0 : index
  scf.if %leader {
    kernelir.mbarrier_init %full[%c0] arrivals 1 : !bars
  }
  kernelir.proxy_fence
  kernelir.barrier
  scf.if %leader {
    %row = arith.muli %block, %c16 : index
    kernelir.mbarrier_arrive %full[%c0] expect_tx 2048 : !bars
    kernelir.tma_load %in[%row, %cm4], %box[%c0, %c0] swizzle 128 arrives %full[%c0] : memref<37x20xf32>, !shared2, !bars
  }
  kernelir.mbarrier_wait %full[%c0] parity %false : !bars
  scf.for %r = %c0 to %c16 step %c1 {
    %x = kernelir.load %box[%r, %t] : !shared2 -> f32
    kernelir.store %x, %out[%block, %r, %t] : memref<3x16x32xf32>
  }
  kernelir.return
}

kernelir.func @box3d(%in: memref<3x5x12xf32> {kernelir.tensor_map}, %out: memref<2x4x16xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %box = kernelir.shared : !shared3
  %full = kernelir.shared : !bars
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %cm2 = arith.constant -2 : index
  %false = arith.constant false
  %t = kernelir.thread_id x
  %leader = arith.cmpi eq, %t, %c0 : index
  scf.if %leader {
    kernelir.mbarrier_init %full[%c0] arrivals 1 : !bars
  }
  kernelir.proxy_fence
  kernelir.barrier
  scf.if %leader {
    kernelir.mbarrier_arrive %full[%c0] expect_tx 512 : !bars
    kernelir.tma_load %in[%c1, %c3, %cm2], %box[%c0, %c0, %c0] swizzle 64 arrives %full[%c0] : memref<3x5x12xf32>, !shared3, !bars
  }
  kernelir.mbarrier_wait %full[%c0] parity %false : !bars
  %inRow = arith.cmpi ult, %t, %c16 : index
  scf.if %inRow {
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c4 step %c1 {
        %x = kernelir.load %box[%i, %j, %t] : !shared3 -> f32
        kernelir.store %x, %out[%i, %j, %t] : memref<2x4x16xf32>
      }
    }
  }
  kernelir.return
}

// TMA there and back: each block loads its box of `in` (as @box2d) and
// stores it whole, through a tensor map of `out` (30 x 20), at row
// 16 b - 5, column -2: the store reads the swizzled box and writes only
// what lies inside `out`, so out[R][C] = in[R + 5][C - 2] for C >= 2 and
// the load's zeros (C < 2).
kernelir.func @round_trip(%in: memref<37x20xf32> {kernelir.tensor_map}, %out: memref<30x20xf32> {kernelir.tensor_map}) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 3, 1, 1>} {
  %box = kernelir.shared : !shared2
  %full = kernelir.shared : !bars
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %c16 = arith.constant 16 : index
  %cm2 = arith.constant -2 : index
  %cm4 = arith.constant -4 : index
  %false = arith.constant false
  %t = kernelir.thread_id x
  %block = kernelir.block_id x
  %leader = arith.cmpi eq, %t, %c0 : index
  scf.if %leader {
    kernelir.mbarrier_init %full[%c0] arrivals 1 : !bars
  }
  kernelir.proxy_fence
  kernelir.barrier
  %row = arith.muli %block, %c16 : index
  scf.if %leader {
    kernelir.mbarrier_arrive %full[%c0] expect_tx 2048 : !bars
    kernelir.tma_load %in[%row, %cm4], %box[%c0, %c0] swizzle 128 arrives %full[%c0] : memref<37x20xf32>, !shared2, !bars
  }
  kernelir.mbarrier_wait %full[%c0] parity %false : !bars
  scf.if %leader {
    %to = arith.subi %row, %c5 : index
    kernelir.tma_store %box[%c0, %c0], %out[%to, %cm2] swizzle 128 : !shared2, memref<30x20xf32>
    kernelir.bulk_commit
    kernelir.bulk_wait pending 0 read
  }
  kernelir.return
}

// 16 rows of 20 elements lie inside the tensor: 1280 of the box's 2048
// bytes.
kernelir.func @inside_bytes(%in: memref<37x20xf32> {kernelir.tensor_map}) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %box = kernelir.shared : !shared2
  %full = kernelir.shared : !bars
  %c0 = arith.constant 0 : index
  %false = arith.constant false
  %t = kernelir.thread_id x
  %leader = arith.cmpi eq, %t, %c0 : index
  scf.if %leader {
    kernelir.mbarrier_init %full[%c0] arrivals 1 : !bars
  }
  kernelir.proxy_fence
  kernelir.barrier
  scf.if %leader {
    kernelir.mbarrier_arrive %full[%c0] expect_tx 1280 : !bars
    kernelir.tma_load %in[%c0, %c0], %box[%c0, %c0] swizzle 128 arrives %full[%c0] : memref<37x20xf32>, !shared2, !bars
  }
  kernelir.mbarrier_wait %full[%c0] parity %false : !bars
  kernelir.return
}

// The swizzled element position of box element `e` (f32: 4 bytes), under
// `mask`.
func.func @swizzled(%e: index, %mask: index) -> index {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %o = arith.muli %e, %c4 : index
  %s = arith.shrui %o, %c3 : index
  %m = arith.andi %s, %mask : index
  %x = arith.xori %o, %m : index
  %r = arith.divui %x, %c4 : index
  return %r : index
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c12 = arith.constant 12 : index
  %c16 = arith.constant 16 : index
  %c20 = arith.constant 20 : index
  %c32 = arith.constant 32 : index
  %c37 = arith.constant 37 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %c112 = arith.constant 112 : index
  %zero = arith.constant 0.0 : f32
  %nan = arith.constant 0x7FC00000 : f32
  // in[r][c] = 100 r + c + 1.
  %in = memref.alloc() : memref<37x20xf32>
  scf.for %r = %c0 to %c37 step %c1 {
    scf.for %c = %c0 to %c20 step %c1 {
      %r100 = arith.muli %r, %c100 : index
      %e0 = arith.addi %r100, %c : index
      %e = arith.addi %e0, %c1 : index
      %ei = arith.index_cast %e : index to i32
      %ef = arith.sitofp %ei : i32 to f32
      memref.store %ef, %in[%r, %c] : memref<37x20xf32>
    }
  }
  %out = memref.alloc() : memref<3x16x32xf32>
  scf.for %b = %c0 to %c3 step %c1 {
    scf.for %r = %c0 to %c16 step %c1 {
      scf.for %c = %c0 to %c32 step %c1 {
        memref.store %nan, %out[%b, %r, %c] : memref<3x16x32xf32>
      }
    }
  }
  kernelir.launch @box2d(%in, %out) : memref<37x20xf32>, memref<3x16x32xf32>
  %wrong2 = scf.for %b = %c0 to %c3 step %c1 iter_args(%w0 = %c0) -> index {
    %wb = scf.for %r = %c0 to %c16 step %c1 iter_args(%w1 = %w0) -> index {
      %wr = scf.for %c = %c0 to %c32 step %c1 iter_args(%w2 = %w1) -> index {
        %b16 = arith.muli %b, %c16 : index
        %gr = arith.addi %b16, %r : index
        %gc = arith.subi %c, %c4 : index
        %rowIn = arith.cmpi ult, %gr, %c37 : index
        %colIn = arith.cmpi ult, %gc, %c20 : index
        %inside = arith.andi %rowIn, %colIn : i1
        %want = scf.if %inside -> f32 {
          %v = memref.load %in[%gr, %gc] : memref<37x20xf32>
          scf.yield %v : f32
        } else {
          scf.yield %zero : f32
        }
        %r32 = arith.muli %r, %c32 : index
        %e = arith.addi %r32, %c : index
        %at = func.call @swizzled(%e, %c112) : (index, index) -> index
        %ar = arith.divui %at, %c32 : index
        %ac = arith.remui %at, %c32 : index
        %got = memref.load %out[%b, %ar, %ac] : memref<3x16x32xf32>
        %ok = arith.cmpf oeq, %got, %want : f32
        %inc = arith.select %ok, %c0, %c1 : index
        %next = arith.addi %w2, %inc : index
        scf.yield %next : index
      }
      scf.yield %wr : index
    }
    scf.yield %wb : index
  }
  vector.print str "2-d wrong elements: "
  vector.print %wrong2 : index
  %p1 = memref.load %out[%c0, %c1, %c1] : memref<3x16x32xf32>
  vector.print %p1 : f32
  %p2 = memref.load %out[%c0, %c2, %c12] : memref<3x16x32xf32>
  vector.print %p2 : f32

  // in3[i][j][k] = 100 (5 i + j) + k + 1.
  %in3 = memref.alloc() : memref<3x5x12xf32>
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c5 step %c1 {
      scf.for %k = %c0 to %c12 step %c1 {
        %i5 = arith.muli %i, %c5 : index
        %ij = arith.addi %i5, %j : index
        %h = arith.muli %ij, %c100 : index
        %hk = arith.addi %h, %k : index
        %e = arith.addi %hk, %c1 : index
        %ei = arith.index_cast %e : index to i32
        %ef = arith.sitofp %ei : i32 to f32
        memref.store %ef, %in3[%i, %j, %k] : memref<3x5x12xf32>
      }
    }
  }
  %out3 = memref.alloc() : memref<2x4x16xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      scf.for %k = %c0 to %c16 step %c1 {
        memref.store %nan, %out3[%i, %j, %k] : memref<2x4x16xf32>
      }
    }
  }
  kernelir.launch @box3d(%in3, %out3) : memref<3x5x12xf32>, memref<2x4x16xf32>
  %wrong3 = scf.for %i = %c0 to %c2 step %c1 iter_args(%w0 = %c0) -> index {
    %wi = scf.for %j = %c0 to %c4 step %c1 iter_args(%w1 = %w0) -> index {
      %wj = scf.for %k = %c0 to %c16 step %c1 iter_args(%w2 = %w1) -> index {
        %gi = arith.addi %i, %c1 : index
        %gj = arith.addi %j, %c3 : index
        %gk = arith.subi %k, %c2 : index
        %iIn = arith.cmpi ult, %gi, %c3 : index
        %jIn = arith.cmpi ult, %gj, %c5 : index
        %kIn = arith.cmpi ult, %gk, %c12 : index
        %ijIn = arith.andi %iIn, %jIn : i1
        %inside = arith.andi %ijIn, %kIn : i1
        %want = scf.if %inside -> f32 {
          %v = memref.load %in3[%gi, %gj, %gk] : memref<3x5x12xf32>
          scf.yield %v : f32
        } else {
          scf.yield %zero : f32
        }
        %i64 = arith.muli %i, %c64 : index
        %j16 = arith.muli %j, %c16 : index
        %ij = arith.addi %i64, %j16 : index
        %e = arith.addi %ij, %k : index
        %at = func.call @swizzled(%e, %c48) : (index, index) -> index
        %ai = arith.divui %at, %c64 : index
        %rest = arith.remui %at, %c64 : index
        %aj = arith.divui %rest, %c16 : index
        %ak = arith.remui %rest, %c16 : index
        %got = memref.load %out3[%ai, %aj, %ak] : memref<2x4x16xf32>
        %ok = arith.cmpf oeq, %got, %want : f32
        %inc = arith.select %ok, %c0, %c1 : index
        %next = arith.addi %w2, %inc : index
        scf.yield %next : index
      }
      scf.yield %wj : index
    }
    scf.yield %wi : index
  }
  vector.print str "3-d wrong elements: "
  vector.print %wrong3 : index
  return
}

func.func @round_trip_main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %c20 = arith.constant 20 : index
  %c30 = arith.constant 30 : index
  %c37 = arith.constant 37 : index
  %c100 = arith.constant 100 : index
  %zero = arith.constant 0.0 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %in = memref.alloc() : memref<37x20xf32>
  scf.for %r = %c0 to %c37 step %c1 {
    scf.for %c = %c0 to %c20 step %c1 {
      %r100 = arith.muli %r, %c100 : index
      %e0 = arith.addi %r100, %c : index
      %e = arith.addi %e0, %c1 : index
      %ei = arith.index_cast %e : index to i32
      %ef = arith.sitofp %ei : i32 to f32
      memref.store %ef, %in[%r, %c] : memref<37x20xf32>
    }
  }
  %out = memref.alloc() : memref<30x20xf32>
  scf.for %r = %c0 to %c30 step %c1 {
    scf.for %c = %c0 to %c20 step %c1 {
      memref.store %nan, %out[%r, %c] : memref<30x20xf32>
    }
  }
  kernelir.launch @round_trip(%in, %out) : memref<37x20xf32>, memref<30x20xf32>
  %wrong = scf.for %r = %c0 to %c30 step %c1 iter_args(%w0 = %c0) -> index {
    %wr = scf.for %c = %c0 to %c20 step %c1 iter_args(%w1 = %w0) -> index {
      %shifted = arith.cmpi uge, %c, %c2 : index
      %want = scf.if %shifted -> f32 {
        %r5 = arith.addi %r, %c5 : index
        %cm = arith.subi %c, %c2 : index
        %v = memref.load %in[%r5, %cm] : memref<37x20xf32>
        scf.yield %v : f32
      } else {
        scf.yield %zero : f32
      }
      %got = memref.load %out[%r, %c] : memref<30x20xf32>
      %ok = arith.cmpf oeq, %got, %want : f32
      %inc = arith.select %ok, %c0, %c1 : index
      %next = arith.addi %w1, %inc : index
      scf.yield %next : index
    }
    scf.yield %wr : index
  }
  vector.print str "round trip wrong elements: "
  vector.print %wrong : index
  %probe = memref.load %out[%c0, %c2] : memref<30x20xf32>
  vector.print %probe : f32
  return
}

func.func @inside_bytes_main() {
  %in = memref.alloc() : memref<37x20xf32>
  kernelir.launch @inside_bytes(%in) : memref<37x20xf32>
  return
}
