// TMA feeding wgmma with no thread touching the operands: a box of A
// (64 rows x 64 halves) and of B (stored n-major: 32 columns x 64 halves)
// copied by kernelir.tma_load with the 128-byte swizzle into shared
// memory, completing on an mbarrier, and multiplied by kernelir.wgmma
// reading the same swizzle (m64n32k64, one k block of 64 halves). The
// tensors are ragged (A 50 x 40, B 24 x 40): the boxes' zeros beyond them
// add nothing, so D is A B where it exists and 0 elsewhere. The TMA
// layout is checked by hand in tma.mlir; this checks that wgmma's
// emulation reads what TMA's writes (kernelir::swizzledOffset in both).
// Forward, reversed and shuffled thread orders, with the bounds check.
// RUN: strata-opt %s --convert-kernelir-to-cpu=check-bounds=true --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
// RUN: strata-opt %s --convert-kernelir-to-cpu=reverse-order=true --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
// RUN: strata-opt %s --convert-kernelir-to-cpu=shuffled-order=true --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
//
// On the GPU (sm_90a): the descriptors carry the 128-byte swizzle (mode 1
// in bits 62-63), a stride of 8 rows of 128 bytes (64 units) and the
// unused leading offset 1, and step 32 bytes along k within the swizzled
// row; the operand buffers are aligned to 1024 bytes; ptxas assembles it.
// Rendered in CUDA, nvcc compiles it for sm_90a.
// RUN: strata-opt %s '--strata-lower-to-nvvm=chip=sm_90a' | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ strata-opt %s '--strata-lower-to-nvvm=chip=sm_90a format=bin' | FileCheck %s --check-prefix=BIN %}
// RUN: strata-translate --kernelir-to-cuda %s | FileCheck %s --check-prefix=CUDA
// RUN: %if nvcc %{ strata-translate --kernelir-to-cuda %s -o %t.cu && %nvcc -c -gencode arch=compute_90a,code=sm_90a %t.cu -o %t.o %}

// CHECK: wrong elements: 0
// PTX: gpu.binary @strata_kernels
// PTX-SAME: .shared .align 1024 .b8 __wg_tma_wgmma_0[8192];
// PTX-SAME: .shared .align 1024 .b8 __wg_tma_wgmma_1[4096];
// PTX-SAME: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// 4611686293305360384 = (1 << 62) | (64 << 32) | (1 << 16): the
// descriptors' bits besides the address.
// PTX-SAME: 4611686293305360384
// PTX-SAME: wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16
// CUDA: strata_wgmma_descriptor(&[[A:v[0-9]+]][{{[^]]*}} + 0LL], 16, 1024, 1)
// CUDA: strata_wgmma_descriptor(&[[B:v[0-9]+]][{{[^]]*}} + 0LL], 16, 1024, 1)
// CUDA: strata_wgmma_descriptor(&[[A]][{{[^]]*}} + 16LL], 16, 1024, 1)
// CUDA: strata_wgmma_descriptor(&[[A]][{{[^]]*}} + 48LL], 16, 1024, 1)
// BIN: gpu.binary @strata_kernels
// BIN-SAME: bin = "\7FELF

!abox = memref<1x64x64xf16, #gpu.address_space<workgroup>>
!bbox = memref<1x32x64xf16, #gpu.address_space<workgroup>>
!bars = memref<1xi64, #gpu.address_space<workgroup>>

kernelir.func @tma_wgmma(%a: memref<50x40xf16> {kernelir.tensor_map}, %b: memref<24x40xf16> {kernelir.tensor_map}, %out: memref<64x32xf32>) attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %sa = kernelir.shared : !abox
  %sb = kernelir.shared : !bbox
  %full = kernelir.shared : !bars
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %c16 = arith.constant 16 : index
  %c17 = arith.constant 17 : index
  %c24 = arith.constant 24 : index
  %c25 = arith.constant 25 : index
  %false = arith.constant false
  %zero = arith.constant dense<0.0> : vector<4x2x2xf32>
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
  %d = kernelir.wgmma %sa[%c0, %c0, %c0], %sb[%c0, %c0, %c0], %zero k 64 swizzle 128 : !abox, !bbox, vector<4x2x2xf32>
  // Warp q, lane = 4 g + t': element [j][h][i] is D(16 q + g + 8 h, 8 j + 2 t' + i).
  %warp = arith.divui %t, %c32 : index
  %lane = arith.remui %t, %c32 : index
  %g = arith.divui %lane, %c4 : index
  %tq = arith.remui %lane, %c4 : index
  %w16 = arith.muli %warp, %c16 : index
  %row0 = arith.addi %w16, %g : index
  %col0 = arith.muli %tq, %c2 : index
  %x000 = vector.extract %d[0, 0, 0] : f32 from vector<4x2x2xf32>
  %r000 = arith.addi %row0, %c0 : index
  %n000 = arith.addi %col0, %c0 : index
  kernelir.store %x000, %out[%r000, %n000] : memref<64x32xf32>
  %x001 = vector.extract %d[0, 0, 1] : f32 from vector<4x2x2xf32>
  %r001 = arith.addi %row0, %c0 : index
  %n001 = arith.addi %col0, %c1 : index
  kernelir.store %x001, %out[%r001, %n001] : memref<64x32xf32>
  %x010 = vector.extract %d[0, 1, 0] : f32 from vector<4x2x2xf32>
  %r010 = arith.addi %row0, %c8 : index
  %n010 = arith.addi %col0, %c0 : index
  kernelir.store %x010, %out[%r010, %n010] : memref<64x32xf32>
  %x011 = vector.extract %d[0, 1, 1] : f32 from vector<4x2x2xf32>
  %r011 = arith.addi %row0, %c8 : index
  %n011 = arith.addi %col0, %c1 : index
  kernelir.store %x011, %out[%r011, %n011] : memref<64x32xf32>
  %x100 = vector.extract %d[1, 0, 0] : f32 from vector<4x2x2xf32>
  %r100 = arith.addi %row0, %c0 : index
  %n100 = arith.addi %col0, %c8 : index
  kernelir.store %x100, %out[%r100, %n100] : memref<64x32xf32>
  %x101 = vector.extract %d[1, 0, 1] : f32 from vector<4x2x2xf32>
  %r101 = arith.addi %row0, %c0 : index
  %n101 = arith.addi %col0, %c9 : index
  kernelir.store %x101, %out[%r101, %n101] : memref<64x32xf32>
  %x110 = vector.extract %d[1, 1, 0] : f32 from vector<4x2x2xf32>
  %r110 = arith.addi %row0, %c8 : index
  %n110 = arith.addi %col0, %c8 : index
  kernelir.store %x110, %out[%r110, %n110] : memref<64x32xf32>
  %x111 = vector.extract %d[1, 1, 1] : f32 from vector<4x2x2xf32>
  %r111 = arith.addi %row0, %c8 : index
  %n111 = arith.addi %col0, %c9 : index
  kernelir.store %x111, %out[%r111, %n111] : memref<64x32xf32>
  %x200 = vector.extract %d[2, 0, 0] : f32 from vector<4x2x2xf32>
  %r200 = arith.addi %row0, %c0 : index
  %n200 = arith.addi %col0, %c16 : index
  kernelir.store %x200, %out[%r200, %n200] : memref<64x32xf32>
  %x201 = vector.extract %d[2, 0, 1] : f32 from vector<4x2x2xf32>
  %r201 = arith.addi %row0, %c0 : index
  %n201 = arith.addi %col0, %c17 : index
  kernelir.store %x201, %out[%r201, %n201] : memref<64x32xf32>
  %x210 = vector.extract %d[2, 1, 0] : f32 from vector<4x2x2xf32>
  %r210 = arith.addi %row0, %c8 : index
  %n210 = arith.addi %col0, %c16 : index
  kernelir.store %x210, %out[%r210, %n210] : memref<64x32xf32>
  %x211 = vector.extract %d[2, 1, 1] : f32 from vector<4x2x2xf32>
  %r211 = arith.addi %row0, %c8 : index
  %n211 = arith.addi %col0, %c17 : index
  kernelir.store %x211, %out[%r211, %n211] : memref<64x32xf32>
  %x300 = vector.extract %d[3, 0, 0] : f32 from vector<4x2x2xf32>
  %r300 = arith.addi %row0, %c0 : index
  %n300 = arith.addi %col0, %c24 : index
  kernelir.store %x300, %out[%r300, %n300] : memref<64x32xf32>
  %x301 = vector.extract %d[3, 0, 1] : f32 from vector<4x2x2xf32>
  %r301 = arith.addi %row0, %c0 : index
  %n301 = arith.addi %col0, %c25 : index
  kernelir.store %x301, %out[%r301, %n301] : memref<64x32xf32>
  %x310 = vector.extract %d[3, 1, 0] : f32 from vector<4x2x2xf32>
  %r310 = arith.addi %row0, %c8 : index
  %n310 = arith.addi %col0, %c24 : index
  kernelir.store %x310, %out[%r310, %n310] : memref<64x32xf32>
  %x311 = vector.extract %d[3, 1, 1] : f32 from vector<4x2x2xf32>
  %r311 = arith.addi %row0, %c8 : index
  %n311 = arith.addi %col0, %c25 : index
  kernelir.store %x311, %out[%r311, %n311] : memref<64x32xf32>
  kernelir.return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c24 = arith.constant 24 : index
  %c32 = arith.constant 32 : index
  %c40 = arith.constant 40 : index
  %c50 = arith.constant 50 : index
  %c64 = arith.constant 64 : index
  %nan = arith.constant 0x7FC00000 : f32
  %zero = arith.constant 0.0 : f32
  // A[r][k] = (3 r + k) mod 7 - 3, B[n][k] = (n + 2 k) mod 5 - 2: small
  // integers, exact in halves and in f32 sums.
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
  %out = memref.alloc() : memref<64x32xf32>
  scf.for %r = %c0 to %c64 step %c1 {
    scf.for %n = %c0 to %c32 step %c1 {
      memref.store %nan, %out[%r, %n] : memref<64x32xf32>
    }
  }
  kernelir.launch @tma_wgmma(%a, %b, %out) : memref<50x40xf16>, memref<24x40xf16>, memref<64x32xf32>
  %wrong = scf.for %r = %c0 to %c64 step %c1 iter_args(%w0 = %c0) -> index {
    %wr = scf.for %n = %c0 to %c32 step %c1 iter_args(%w1 = %w0) -> index {
      %rIn = arith.cmpi ult, %r, %c50 : index
      %nIn = arith.cmpi ult, %n, %c24 : index
      %inside = arith.andi %rIn, %nIn : i1
      %want = scf.if %inside -> f32 {
        %sum = scf.for %k = %c0 to %c40 step %c1 iter_args(%acc = %zero) -> f32 {
          %x = memref.load %a[%r, %k] : memref<50x40xf16>
          %y = memref.load %b[%n, %k] : memref<24x40xf16>
          %xf = arith.extf %x : f16 to f32
          %yf = arith.extf %y : f16 to f32
          %p = arith.mulf %xf, %yf : f32
          %acc2 = arith.addf %acc, %p : f32
          scf.yield %acc2 : f32
        }
        scf.yield %sum : f32
      } else {
        scf.yield %zero : f32
      }
      %got = memref.load %out[%r, %n] : memref<64x32xf32>
      %ok = arith.cmpf oeq, %got, %want : f32
      %inc = arith.select %ok, %c0, %c1 : index
      %next = arith.addi %w1, %inc : index
      scf.yield %next : index
    }
    scf.yield %wr : index
  }
  vector.print str "wrong elements: "
  vector.print %wrong : index
  return
}
