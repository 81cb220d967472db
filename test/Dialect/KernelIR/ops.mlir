// RUN: strata-opt %s | FileCheck %s
// RUN: strata-opt %s | strata-opt | FileCheck %s

// CHECK-LABEL: kernelir.func @exp_kernel
// CHECK-SAME: (%[[IN:.*]]: memref<1000xf32>, %[[OUT:.*]]: memref<1000xf32>)
// CHECK-SAME: attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 8, 1, 1>}
kernelir.func @exp_kernel(%in: memref<1000xf32>, %out: memref<1000xf32>)
    attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 8, 1, 1>} {
  %c128 = arith.constant 128 : index
  %c1000 = arith.constant 1000 : index
  // CHECK: %[[B:.*]] = kernelir.block_id x
  // CHECK: %[[T:.*]] = kernelir.thread_id x
  %b = kernelir.block_id x
  %t = kernelir.thread_id x
  %base = arith.muli %b, %c128 : index
  %i = arith.addi %base, %t : index
  %ok = arith.cmpi ult, %i, %c1000 : index
  // CHECK: %[[X:.*]] = kernelir.load %[[IN]][%{{.*}}] if %{{.*}} : memref<1000xf32>
  %x = kernelir.load %in[%i] if %ok : memref<1000xf32>
  %y = math.exp %x : f32
  // CHECK: kernelir.store %{{.*}}, %[[OUT]][%{{.*}}] if %{{.*}} : memref<1000xf32>
  kernelir.store %y, %out[%i] if %ok : memref<1000xf32>
  // Unguarded accesses.
  // CHECK: kernelir.load %[[IN]][%{{.*}}] : memref<1000xf32>
  %z = kernelir.load %in[%t] : memref<1000xf32>
  // CHECK: kernelir.store %{{.*}}, %[[OUT]][%{{.*}}] : memref<1000xf32>
  kernelir.store %z, %out[%t] : memref<1000xf32>
  // CHECK: kernelir.lane_id
  // CHECK: kernelir.warp_id
  %lane = kernelir.lane_id
  %warp = kernelir.warp_id
  // CHECK: kernelir.thread_id y
  // CHECK: kernelir.block_id z
  %ty = kernelir.thread_id y
  %bz = kernelir.block_id z
  // CHECK: kernelir.return
  kernelir.return
}

// CHECK-LABEL: func.func @host
func.func @host(%a: memref<1000xf32>) -> memref<1000xf32> {
  %r = memref.alloc() : memref<1000xf32>
  // CHECK: kernelir.launch @exp_kernel(%{{.*}}, %{{.*}}) : memref<1000xf32>, memref<1000xf32>
  kernelir.launch @exp_kernel(%a, %r) : memref<1000xf32>, memref<1000xf32>
  return %r : memref<1000xf32>
}

// Buffers no other argument writes during a launch (restrict). One buffer
// may reach two noalias arguments that the kernel only reads.
// CHECK-LABEL: kernelir.func @add_kernel
// CHECK-SAME: (%{{.*}}: memref<64xf32> {kernelir.noalias}, %{{.*}}: memref<64xf32> {kernelir.noalias}, %{{.*}}: memref<64xf32> {kernelir.noalias})
kernelir.func @add_kernel(%x: memref<64xf32> {kernelir.noalias}, %y: memref<64xf32> {kernelir.noalias}, %out: memref<64xf32> {kernelir.noalias}) attributes {block = array<i64: 64, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %t = kernelir.thread_id x
  %a = kernelir.load %x[%t] : memref<64xf32>
  %b = kernelir.load %y[%t] : memref<64xf32>
  %s = arith.addf %a, %b : f32
  kernelir.store %s, %out[%t] : memref<64xf32>
  kernelir.return
}

// CHECK-LABEL: func.func @doubled
func.func @doubled(%a: memref<64xf32>) -> memref<64xf32> {
  %r = memref.alloc() : memref<64xf32>
  // CHECK: kernelir.launch @add_kernel(%[[A:.*]], %[[A]], %{{.*}})
  kernelir.launch @add_kernel(%a, %a, %r) : memref<64xf32>, memref<64xf32>, memref<64xf32>
  return %r : memref<64xf32>
}

// Shared memory, barriers and warp shuffles.
// The blocks an SM should hold at once, a bound on the registers.
// CHECK-LABEL: kernelir.func @two_per_sm()
// CHECK-SAME: attributes {block = array<i64: 256, 1, 1>, grid = array<i64: 4, 1, 1>, min_blocks_per_sm = 2 : i64}
kernelir.func @two_per_sm() attributes {block = array<i64: 256, 1, 1>, grid = array<i64: 4, 1, 1>, min_blocks_per_sm = 2} {
  kernelir.return
}

// A buffer over another's bytes, in its own type.
// CHECK-LABEL: kernelir.func @overlay
// CHECK: %[[C:.*]] = kernelir.shared : memref<2x64x64xf16, #gpu.address_space<workgroup>>
// CHECK: kernelir.shared : memref<64x32xf32, #gpu.address_space<workgroup>> overlays %[[C]] : memref<2x64x64xf16, #gpu.address_space<workgroup>>
kernelir.func @overlay() attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %chunks = kernelir.shared : memref<2x64x64xf16, #gpu.address_space<workgroup>>
  %staging = kernelir.shared : memref<64x32xf32, #gpu.address_space<workgroup>> overlays %chunks : memref<2x64x64xf16, #gpu.address_space<workgroup>>
  kernelir.return
}

// CHECK-LABEL: kernelir.func @block_sum
// CHECK: %[[S:.*]] = kernelir.shared : memref<2xf32, #gpu.address_space<workgroup>>
// CHECK: kernelir.shuffle xor %{{.*}}, %{{.*}} : f32
// CHECK: kernelir.shuffle down %{{.*}}, %{{.*}} : f32
// CHECK: kernelir.shuffle up %{{.*}}, %{{.*}} : i32
// CHECK: kernelir.shuffle idx %{{.*}}, %{{.*}} : i64
// CHECK: kernelir.store %{{.*}}, %[[S]][%{{.*}}] if %{{.*}} : memref<2xf32, #gpu.address_space<workgroup>>
// CHECK: kernelir.barrier
kernelir.func @block_sum(%in: memref<64xf32>, %out: memref<1xf32>) attributes {block = array<i64: 64, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %partials = kernelir.shared : memref<2xf32, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c1_i32 = arith.constant 1 : i32
  %c1_i64 = arith.constant 1 : i64
  %t = kernelir.thread_id x
  %x = kernelir.load %in[%t] : memref<64xf32>
  %y = kernelir.shuffle xor %x, %c1_i32 : f32
  %z = kernelir.shuffle down %y, %c1_i32 : f32
  %ti = arith.index_cast %t : index to i32
  %u = kernelir.shuffle up %ti, %c1_i32 : i32
  %tl = arith.index_cast %t : index to i64
  %v = kernelir.shuffle idx %tl, %c1_i32 : i64
  %lane = arith.remui %t, %c32 : index
  %warp = arith.divui %t, %c32 : index
  %leader = arith.cmpi eq, %lane, %c0 : index
  kernelir.store %z, %partials[%warp] if %leader : memref<2xf32, #gpu.address_space<workgroup>>
  kernelir.barrier
  %w = kernelir.load %partials[%c0] : memref<2xf32, #gpu.address_space<workgroup>>
  kernelir.store %w, %out[%c0] if %leader : memref<1xf32>
  kernelir.return
}

// Vector accesses: 4 x f32 (128 bits) and 8 x f16 along the innermost
// dimension, guarded or not.
// CHECK-LABEL: kernelir.func @vectors
// CHECK: %[[V:.*]] = kernelir.load %{{.*}}[%{{.*}}, %{{.*}}] if %{{.*}} : memref<333x20xf32> -> vector<4xf32>
// CHECK: kernelir.store %[[V]], %{{.*}}[%{{.*}}, %{{.*}}] : memref<333x20xf32> -> vector<4xf32>
// CHECK: %[[H:.*]] = kernelir.load %{{.*}}[%{{.*}}] : memref<64xf16> -> vector<8xf16>
// CHECK: kernelir.store %[[H]], %{{.*}}[%{{.*}}] if %{{.*}} : memref<64xf16> -> vector<8xf16>
kernelir.func @vectors(%a: memref<333x20xf32>, %b: memref<333x20xf32>, %h: memref<64xf16>) attributes {block = array<i64: 5, 1, 1>, grid = array<i64: 333, 1, 1>} {
  %c4 = arith.constant 4 : index
  %row = kernelir.block_id x
  %t = kernelir.thread_id x
  %col = arith.muli %t, %c4 : index
  %ok = arith.cmpi ult, %t, %c4 : index
  %v = kernelir.load %a[%row, %col] if %ok : memref<333x20xf32> -> vector<4xf32>
  kernelir.store %v, %b[%row, %col] : memref<333x20xf32> -> vector<4xf32>
  %x = kernelir.load %h[%col] : memref<64xf16> -> vector<8xf16>
  kernelir.store %x, %h[%col] if %ok : memref<64xf16> -> vector<8xf16>
  kernelir.return
}

// A warp's tensor-core product of 16x16 by 16x8 f16 (bf16; 16x8 by 8x8
// tf32), accumulated in f32.
// CHECK-LABEL: kernelir.func @mma
// CHECK: %[[D:.*]] = kernelir.mma %{{.*}}, %{{.*}}, %{{.*}} : vector<4x2xf16>, vector<2x2xf16> -> vector<2x2xf32>
// CHECK: kernelir.mma %{{.*}}, %{{.*}}, %[[D]] : vector<4x2xf16>, vector<2x2xf16> -> vector<2x2xf32>
// CHECK: kernelir.mma %{{.*}}, %{{.*}}, %{{.*}} : vector<4x2xbf16>, vector<2x2xbf16> -> vector<2x2xf32>
// CHECK: kernelir.mma %{{.*}}, %{{.*}}, %{{.*}} : vector<4x1xf32>, vector<2x1xf32> -> vector<2x2xf32>
// CHECK: kernelir.ldmatrix %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: kernelir.ldmatrix %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// CHECK: kernelir.ldmatrix %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x20xf32, #gpu.address_space<workgroup>> -> vector<4x1xf32>
// CHECK: kernelir.ldmatrix %{{.*}}[%{{.*}}, %{{.*}}] transpose : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
kernelir.func @mma(%out: memref<64xf32>) attributes {block = array<i64: 64, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = arith.constant dense<1.0> : vector<4x2xf16>
  %b = arith.constant dense<2.0> : vector<2x2xf16>
  %c = arith.constant dense<0.0> : vector<2x2xf32>
  %d = kernelir.mma %a, %b, %c : vector<4x2xf16>, vector<2x2xf16> -> vector<2x2xf32>
  %e = kernelir.mma %a, %b, %d : vector<4x2xf16>, vector<2x2xf16> -> vector<2x2xf32>
  %ab = arith.constant dense<1.0> : vector<4x2xbf16>
  %bb = arith.constant dense<2.0> : vector<2x2xbf16>
  %f = kernelir.mma %ab, %bb, %e : vector<4x2xbf16>, vector<2x2xbf16> -> vector<2x2xf32>
  %at = arith.constant dense<1.0> : vector<4x1xf32>
  %bt = arith.constant dense<2.0> : vector<2x1xf32>
  %g = kernelir.mma %at, %bt, %f : vector<4x1xf32>, vector<2x1xf32> -> vector<2x2xf32>
  %chunk = kernelir.shared : memref<64x24xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %fa = kernelir.ldmatrix %chunk[%c0, %c8] : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
  %fb = kernelir.ldmatrix %chunk[%c8, %c0] : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
  %chunk32 = kernelir.shared : memref<64x20xf32, #gpu.address_space<workgroup>>
  %ft = kernelir.ldmatrix %chunk32[%c8, %c8] : memref<64x20xf32, #gpu.address_space<workgroup>> -> vector<4x1xf32>
  %fbt = kernelir.ldmatrix %chunk[%c0, %c8] transpose : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
  %x = vector.extract %g[0, 0] : f32 from vector<2x2xf32>
  %t = kernelir.thread_id x
  kernelir.store %x, %out[%t] : memref<64xf32>
  kernelir.return
}

// Asynchronous copies into a shared chunk: 16 bytes guarded, 4 bytes
// unguarded, committed as one group and waited for.
// CHECK-LABEL: kernelir.func @async_copies
// CHECK: kernelir.async_copy %{{.*}}[%{{.*}}, %{{.*}}], %[[S:.*]][%{{.*}}, %{{.*}}, %{{.*}}] elements 4 if %{{.*}} : memref<100x64xf32>, memref<2x32x16xf32, #gpu.address_space<workgroup>>
// CHECK: kernelir.async_copy %{{.*}}[%{{.*}}, %{{.*}}], %[[S]][%{{.*}}, %{{.*}}, %{{.*}}] elements 1 : memref<100x64xf32>, memref<2x32x16xf32, #gpu.address_space<workgroup>>
// CHECK: kernelir.async_copy %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] elements 8 : memref<64xf16>, memref<16xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: kernelir.async_commit
// CHECK-NEXT: kernelir.async_wait pending 0
kernelir.func @async_copies(%a: memref<100x64xf32>, %h: memref<64xf16>) attributes {block = array<i64: 64, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<2x32x16xf32, #gpu.address_space<workgroup>>
  %sh = kernelir.shared : memref<16xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %t = kernelir.thread_id x
  %col = arith.muli %t, %c4 : index
  %ok = arith.cmpi ult, %t, %c4 : index
  kernelir.async_copy %a[%t, %col], %s[%c0, %t, %col] elements 4 if %ok : memref<100x64xf32>, memref<2x32x16xf32, #gpu.address_space<workgroup>>
  kernelir.async_copy %a[%t, %t], %s[%c0, %t, %t] elements 1 : memref<100x64xf32>, memref<2x32x16xf32, #gpu.address_space<workgroup>>
  %hc = arith.muli %t, %c8 : index
  kernelir.async_copy %h[%hc], %sh[%c0] elements 8 : memref<64xf16>, memref<16xf16, #gpu.address_space<workgroup>>
  kernelir.async_commit
  kernelir.async_wait pending 0
  kernelir.return
}

// A warp-specialized kernel's register split.
// CHECK-LABEL: kernelir.func @register_split
// CHECK: kernelir.set_max_registers decrease 40
// CHECK: kernelir.set_max_registers increase 232
kernelir.func @register_split() attributes {block = array<i64: 256, 1, 1>, grid = array<i64: 1, 1, 1>} {
  kernelir.set_max_registers decrease 40
  kernelir.set_max_registers increase 232
  kernelir.return
}

// An mbarrier per stage: initialized, armed with the bytes of a bulk copy
// that completes on it, waited for with the phase's parity.
// CHECK-LABEL: kernelir.func @mbarriers
// CHECK: kernelir.mbarrier_init %[[B:.*]][%{{.*}}] arrivals 1 : memref<2xi64, #gpu.address_space<workgroup>>
// CHECK-NEXT: kernelir.mbarrier_arrive %[[B]][%{{.*}}] expect_tx 128 : memref<2xi64, #gpu.address_space<workgroup>>
// CHECK-NEXT: kernelir.bulk_copy %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}] elements 64 arrives %[[B]][%{{.*}}] : memref<100x64xf16>, memref<2x64xf16, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
// CHECK-NEXT: kernelir.mbarrier_arrive %[[B]][%{{.*}}] : memref<2xi64, #gpu.address_space<workgroup>>
// CHECK-NEXT: kernelir.mbarrier_wait %[[B]][%{{.*}}] parity %{{.*}} : memref<2xi64, #gpu.address_space<workgroup>>
kernelir.func @mbarriers(%a: memref<100x64xf16>, %row: index, %parity: i1) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %stage = kernelir.shared : memref<2x64xf16, #gpu.address_space<workgroup>>
  %full = kernelir.shared : memref<2xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  kernelir.mbarrier_init %full[%c1] arrivals 1 : memref<2xi64, #gpu.address_space<workgroup>>
  kernelir.mbarrier_arrive %full[%c1] expect_tx 128 : memref<2xi64, #gpu.address_space<workgroup>>
  kernelir.bulk_copy %a[%row, %c0], %stage[%c1, %c0] elements 64 arrives %full[%c1] : memref<100x64xf16>, memref<2x64xf16, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
  kernelir.mbarrier_arrive %full[%c0] : memref<2xi64, #gpu.address_space<workgroup>>
  kernelir.mbarrier_wait %full[%c1] parity %parity : memref<2xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// A wave kernel: its blocks stride over 1000 tiles by the blocks launched,
// which the runtime chooses (at most 1000; 264 where that is not known).
// CHECK-LABEL: kernelir.func @wave
// CHECK-SAME: grid = array<i64: 264, 1, 1>, wave_tiles = 1000 : i64
// CHECK: %[[G:.*]] = kernelir.grid_dim x
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[G]]
kernelir.func @wave(%out: memref<1000xf32>) attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 264, 1, 1>, wave_tiles = 1000} {
  %c1000 = arith.constant 1000 : index
  %one = arith.constant 1.0 : f32
  %b = kernelir.block_id x
  %g = kernelir.grid_dim x
  scf.for %tile = %b to %c1000 step %g {
    kernelir.store %one, %out[%tile] : memref<1000xf32>
  }
  kernelir.return
}

// wgmma on operands in the 128-byte swizzled layout TMA writes.
// CHECK-LABEL: kernelir.func @swizzled_wgmma
// CHECK: kernelir.wgmma %{{.*}}, %{{.*}} k 64 swizzle 128 : memref<1x64x64xf16, #gpu.address_space<workgroup>>, memref<1x32x64xf16, #gpu.address_space<workgroup>>, vector<4x2x2xf32>
kernelir.func @swizzled_wgmma(%acc: vector<4x2x2xf32>) attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<1x64x64xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<1x32x64xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %d = kernelir.wgmma %a[%c0, %c0, %c0], %b[%c0, %c0, %c0], %acc k 64 swizzle 128 : memref<1x64x64xf16, #gpu.address_space<workgroup>>, memref<1x32x64xf16, #gpu.address_space<workgroup>>, vector<4x2x2xf32>
  kernelir.return
}

// Async groups in a k loop: each step's group stays in flight across the
// back edge, the step's wait retiring the step before's; after the loop a
// wait for none.
// CHECK-LABEL: kernelir.func @wgmma_in_flight
// CHECK: kernelir.wgmma %{{.*}}, %{{.*}} k 64 swizzle 128 async : memref<2x64x64xf16, #gpu.address_space<workgroup>>, memref<2x32x64xf16, #gpu.address_space<workgroup>>, vector<4x2x2xf32>
// CHECK: kernelir.wgmma_wait %{{.*}} pending 1 : vector<4x2x2xf32>
// CHECK: scf.yield
// CHECK: kernelir.wgmma_wait %{{.*}}, %{{.*}} pending 0 : vector<4x2x2xf32>, vector<4x2x2xf32>
kernelir.func @wgmma_in_flight(%acc: vector<4x2x2xf32>) attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<2x64x64xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<2x32x64xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %s = %c0 to %c4 step %c1 iter_args(%x = %acc) -> vector<4x2x2xf32> {
    %slot = arith.remui %s, %c2 : index
    %d = kernelir.wgmma %a[%slot, %c0, %c0], %b[%slot, %c0, %c0], %x k 64 swizzle 128 async : memref<2x64x64xf16, #gpu.address_space<workgroup>>, memref<2x32x64xf16, #gpu.address_space<workgroup>>, vector<4x2x2xf32>
    %w = kernelir.wgmma_wait %d pending 1 : vector<4x2x2xf32>
    scf.yield %w : vector<4x2x2xf32>
  }
  %done:2 = kernelir.wgmma_wait %r, %acc pending 0 : vector<4x2x2xf32>, vector<4x2x2xf32>
  %sum = arith.addf %done#0, %done#1 : vector<4x2x2xf32>
  kernelir.return
}

// B stored MN-major (a TMA box of a row-major k x n tensor), read
// transposed.
// CHECK-LABEL: kernelir.func @mn_major_wgmma
// CHECK: kernelir.wgmma %{{.*}}, %{{.*}} k 32 swizzle 128 rhs_mn_major : memref<1x64x64xf16, #gpu.address_space<workgroup>>, memref<2x32x64xf16, #gpu.address_space<workgroup>>, vector<16x2x2xf32>
kernelir.func @mn_major_wgmma(%acc: vector<16x2x2xf32>) attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<1x64x64xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<2x32x64xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %d = kernelir.wgmma %a[%c0, %c0, %c0], %b[%c0, %c0, %c0], %acc k 32 swizzle 128 rhs_mn_major : memref<1x64x64xf16, #gpu.address_space<workgroup>>, memref<2x32x64xf16, #gpu.address_space<workgroup>>, vector<16x2x2xf32>
  kernelir.return
}

// An epilogue's box stored by TMA, its bulk group committed and waited for.
// CHECK-LABEL: kernelir.func @tma_stores
// CHECK: kernelir.tma_store %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}] swizzle 128 : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<1000x520xf16>
// CHECK-NEXT: kernelir.bulk_commit
// CHECK-NEXT: kernelir.bulk_wait pending 1
// CHECK-NEXT: kernelir.bulk_wait pending 0 read
kernelir.func @tma_stores(%c: memref<1000x520xf16> {kernelir.tensor_map}, %row: index, %col: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %tile = kernelir.shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  kernelir.tma_store %tile[%c0, %c0], %c[%row, %col] swizzle 128 : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<1000x520xf16>
  kernelir.bulk_commit
  kernelir.bulk_wait pending 1
  kernelir.bulk_wait pending 0 read
  kernelir.return
}

// A box of a global tensor into a stage of a swizzled ring, completing on
// the stage's mbarrier; unswizzled, the swizzle is not printed.
// CHECK-LABEL: kernelir.func @tma_loads
// CHECK: kernelir.tma_load %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] swizzle 128 arrives %{{.*}}[%{{.*}}] : memref<1000x512xf16>, memref<3x128x64xf16, #gpu.address_space<workgroup>>, memref<3xi64, #gpu.address_space<workgroup>>
// CHECK-NEXT: kernelir.tma_load %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] arrives %{{.*}}[%{{.*}}] : memref<1000xf32>, memref<32xf32, #gpu.address_space<workgroup>>, memref<3xi64, #gpu.address_space<workgroup>>
kernelir.func @tma_loads(%a: memref<1000x512xf16> {kernelir.tensor_map}, %v: memref<1000xf32> {kernelir.tensor_map}, %row: index, %k: index, %s: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %stage = kernelir.shared : memref<3x128x64xf16, #gpu.address_space<workgroup>>
  %line = kernelir.shared : memref<32xf32, #gpu.address_space<workgroup>>
  %full = kernelir.shared : memref<3xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  kernelir.tma_load %a[%row, %k], %stage[%s, %c0, %c0] swizzle 128 arrives %full[%s] : memref<1000x512xf16>, memref<3x128x64xf16, #gpu.address_space<workgroup>>, memref<3xi64, #gpu.address_space<workgroup>>
  kernelir.tma_load %v[%row], %line[%c0] swizzle 0 arrives %full[%s] : memref<1000xf32>, memref<32xf32, #gpu.address_space<workgroup>>, memref<3xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// Batch %n's rows of a batched tensor: a 3-d box landing in a 2-d chunk of
// the ring, stored back the same way; a 2-d box of the batches' rows.
// CHECK-LABEL: kernelir.func @tma_batched_boxes
// CHECK: kernelir.tma_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] box [1, 128, 64] swizzle 128 arrives %{{.*}}[%{{.*}}] : memref<12x1000x512xf16>, memref<3x128x64xf16, #gpu.address_space<workgroup>>, memref<3xi64, #gpu.address_space<workgroup>>
// CHECK-NEXT: kernelir.tma_store %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] box [1, 128, 64] swizzle 128 : memref<3x128x64xf16, #gpu.address_space<workgroup>>, memref<12x1000x512xf16>
// CHECK-NEXT: kernelir.tma_load %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] box [128, 64] swizzle 128 arrives %{{.*}}[%{{.*}}] : memref<12x1000x512xf16>
kernelir.func @tma_batched_boxes(%q: memref<12x1000x512xf16> {kernelir.tensor_map}, %o: memref<12x1000x512xf16> {kernelir.tensor_map}, %x: memref<12x1000x512xf16> {kernelir.tensor_map}, %n: index, %row: index, %k: index, %s: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %stage = kernelir.shared : memref<3x128x64xf16, #gpu.address_space<workgroup>>
  %full = kernelir.shared : memref<3xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  kernelir.tma_load %q[%n, %row, %k], %stage[%s, %c0, %c0] box [1, 128, 64] swizzle 128 arrives %full[%s] : memref<12x1000x512xf16>, memref<3x128x64xf16, #gpu.address_space<workgroup>>, memref<3xi64, #gpu.address_space<workgroup>>
  kernelir.tma_store %stage[%s, %c0, %c0], %o[%n, %row, %k] box [1, 128, 64] swizzle 128 : memref<3x128x64xf16, #gpu.address_space<workgroup>>, memref<12x1000x512xf16>
  // The rows of all 12 batches seen as one dimension (12000 rows).
  kernelir.tma_load %x[%row, %k], %stage[%s, %c0, %c0] box [128, 64] swizzle 128 arrives %full[%s] : memref<12x1000x512xf16>, memref<3x128x64xf16, #gpu.address_space<workgroup>>, memref<3xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// A tensor map's view splits a dimension (4 batches of 12 heads): one
// head's 64 rows from token %s land in rows 64 to 127 of a chunk.
// CHECK-LABEL: kernelir.func @tma_viewed_boxes
// CHECK-SAME: {kernelir.tensor_map = array<i64: 4, 12, 1000, 64>}
// CHECK: kernelir.tma_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] box [1, 1, 64, 64] swizzle 128 arrives
kernelir.func @tma_viewed_boxes(%o: memref<48x1000x64xf16> {kernelir.tensor_map = array<i64: 4, 12, 1000, 64>}, %b: index, %h: index, %s: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %stage = kernelir.shared : memref<3x128x64xf16, #gpu.address_space<workgroup>>
  %full = kernelir.shared : memref<3xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  kernelir.tma_load %o[%b, %h, %s, %c0], %stage[%c0, %c64, %c0] box [1, 1, 64, 64] swizzle 128 arrives %full[%c0] : memref<48x1000x64xf16>, memref<3x128x64xf16, #gpu.address_space<workgroup>>, memref<3xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// A warpgroup's multiply-accumulate from shared chunks in core-matrix
// layout ([k blocks][rows][8 halves]), after the writers' proxy fence.
// CHECK-LABEL: kernelir.func @warpgroup_mma
// CHECK: kernelir.proxy_fence
// CHECK-NEXT: kernelir.barrier
// CHECK-NEXT: kernelir.wgmma %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} k 32 : memref<2x4x128x8xf16, #gpu.address_space<workgroup>>, memref<2x4x128x8xf16, #gpu.address_space<workgroup>>, vector<16x2x2xf32>
// CHECK: kernelir.wgmma {{.*}} k 16 : memref<2x64x8xbf16, #gpu.address_space<workgroup>>, memref<2x8x8xbf16, #gpu.address_space<workgroup>>, vector<1x2x2xf32>
kernelir.func @warpgroup_mma() attributes {block = array<i64: 256, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<2x4x128x8xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<2x4x128x8xf16, #gpu.address_space<workgroup>>
  %ah = kernelir.shared : memref<2x64x8xbf16, #gpu.address_space<workgroup>>
  %bh = kernelir.shared : memref<2x8x8xbf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %acc = arith.constant dense<0.0> : vector<16x2x2xf32>
  %small = arith.constant dense<0.0> : vector<1x2x2xf32>
  kernelir.proxy_fence
  kernelir.barrier
  %d = kernelir.wgmma %a[%c0, %c0, %c64, %c0], %b[%c0, %c0, %c0, %c0], %acc k 32 : memref<2x4x128x8xf16, #gpu.address_space<workgroup>>, memref<2x4x128x8xf16, #gpu.address_space<workgroup>>, vector<16x2x2xf32>
  %e = kernelir.wgmma %ah[%c0, %c0, %c0], %bh[%c0, %c0, %c0], %small k 16 : memref<2x64x8xbf16, #gpu.address_space<workgroup>>, memref<2x8x8xbf16, #gpu.address_space<workgroup>>, vector<1x2x2xf32>
  kernelir.return
}
