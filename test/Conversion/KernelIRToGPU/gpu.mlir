// RUN: strata-opt %s --convert-kernelir-to-gpu --cse | FileCheck %s

// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: func.func @host
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: gpu.launch_func @strata_kernels::@k blocks in (%[[C3]], %[[C1]], %[[C1]]) threads in (%[[C4]], %[[C1]], %[[C1]]) args(%{{.*}} : memref<20xf32>, %{{.*}} : memref<20xf32>)
func.func @host(%a: memref<20xf32>) -> memref<20xf32> {
  %r = memref.alloc() : memref<20xf32>
  kernelir.launch @k(%a, %r) : memref<20xf32>, memref<20xf32>
  return %r : memref<20xf32>
}

// CHECK: gpu.module @strata_kernels {
// CHECK: gpu.func @k(%[[IN:.*]]: memref<20xf32>, %[[OUT:.*]]: memref<20xf32>) kernel attributes {known_block_size = array<i32: 4, 1, 1>, known_grid_size = array<i32: 3, 1, 1>}
// CHECK: %[[B:.*]] = gpu.block_id x
// CHECK: %[[T:.*]] = gpu.thread_id y
// CHECK: %[[I:.*]] = arith.addi %[[B]], %[[T]] : index
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[I]], %{{.*}} : index
// A guarded load reads only where the guard holds, and is zero elsewhere.
// CHECK: %[[X:.*]] = scf.if %[[OK]] -> (f32) {
// CHECK-NEXT: %[[L:.*]] = memref.load %[[IN]][%[[I]]] : memref<20xf32>
// CHECK-NEXT: scf.yield %[[L]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: scf.yield %[[Z]] : f32
// CHECK-NEXT: }
// CHECK: scf.if %[[OK]] {
// CHECK-NEXT: memref.store %[[X]], %[[OUT]][%[[I]]] : memref<20xf32>
// CHECK-NEXT: }
// An unguarded access is a plain memref access.
// CHECK: memref.store %[[X]], %[[OUT]][%[[T]]] : memref<20xf32>
// CHECK: gpu.return
kernelir.func @k(%in: memref<20xf32>, %out: memref<20xf32>) attributes {block = array<i64: 4, 1, 1>, grid = array<i64: 3, 1, 1>} {
  %c20 = arith.constant 20 : index
  %b = kernelir.block_id x
  %t = kernelir.thread_id y
  %i = arith.addi %b, %t : index
  %ok = arith.cmpi ult, %i, %c20 : index
  %x = kernelir.load %in[%i] if %ok : memref<20xf32>
  kernelir.store %x, %out[%i] if %ok : memref<20xf32>
  kernelir.store %x, %out[%t] : memref<20xf32>
  kernelir.return
}

// A vector access becomes vector.load / vector.store claiming its size as
// alignment (16 bytes for 4 x f32), which is what makes it one 128-bit
// instruction (ld.global.v4); a guarded one yields a zero vector elsewhere.
// CHECK: gpu.func @vectors(%[[A:.*]]: memref<8x20xf32>, %[[B:.*]]: memref<8x20xf32>)
// CHECK: %[[V:.*]] = scf.if %{{.*}} -> (vector<4xf32>) {
// CHECK-NEXT: %[[L:.*]] = vector.load %[[A]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<8x20xf32>, vector<4xf32>
// CHECK-NEXT: scf.yield %[[L]] : vector<4xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK-NEXT: scf.yield %[[Z]] : vector<4xf32>
// CHECK: vector.store %[[V]], %[[B]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<8x20xf32>, vector<4xf32>
kernelir.func @vectors(%a: memref<8x20xf32>, %b: memref<8x20xf32>) attributes {block = array<i64: 8, 1, 1>, grid = array<i64: 8, 1, 1>} {
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %row = kernelir.block_id x
  %t = kernelir.thread_id x
  %col = arith.muli %t, %c4 : index
  %ok = arith.cmpi ult, %t, %c5 : index
  %v = kernelir.load %a[%row, %col] if %ok : memref<8x20xf32> -> vector<4xf32>
  kernelir.store %v, %b[%row, %col] : memref<8x20xf32> -> vector<4xf32>
  kernelir.return
}

// kernelir.mma is nvgpu.mma.sync 16x8x16 on the same fragments.
// CHECK: gpu.func @mma
// CHECK: %[[D:.*]] = nvgpu.mma.sync(%{{.*}}, %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK: vector.extract %[[D]][1, 0] : f32 from vector<2x2xf32>
kernelir.func @mma(%out: memref<32xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = arith.constant dense<1.0> : vector<4x2xf16>
  %b = arith.constant dense<2.0> : vector<2x2xf16>
  %c = arith.constant dense<0.5> : vector<2x2xf32>
  %d = kernelir.mma %a, %b, %c : vector<4x2xf16>, vector<2x2xf16> -> vector<2x2xf32>
  %x = vector.extract %d[1, 0] : f32 from vector<2x2xf32>
  %t = kernelir.thread_id x
  kernelir.store %x, %out[%t] : memref<32xf32>
  kernelir.return
}

// A lane is %laneid; a warp the linear thread index over 32 (PTX's
// %warpid is a hardware slot, not this), with the kernel's block sizes as
// constants (16 x 2 x 2).
// CHECK: gpu.func @warp_ids
// CHECK: %[[LANE:.*]] = gpu.lane_id
// CHECK-DAG: %[[X:.*]] = gpu.thread_id x
// CHECK-DAG: %[[Y:.*]] = gpu.thread_id y
// CHECK-DAG: %[[Z:.*]] = gpu.thread_id z
// CHECK-DAG: %[[BX:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[BY:.*]] = arith.constant 2 : index
// CHECK: %[[YZ:.*]] = arith.muli %[[BY]], %[[Z]] : index
// CHECK: %[[ROW:.*]] = arith.addi %[[Y]], %[[YZ]] : index
// CHECK: %[[OFF:.*]] = arith.muli %[[BX]], %[[ROW]] : index
// CHECK: %[[LIN:.*]] = arith.addi %[[X]], %[[OFF]] : index
// CHECK: %[[WARP:.*]] = arith.divui %[[LIN]], %c32 : index
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[LANE]]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[WARP]]]
kernelir.func @warp_ids(%out: memref<64xf32>) attributes {block = array<i64: 16, 2, 2>, grid = array<i64: 1, 1, 1>} {
  %lane = kernelir.lane_id
  %warp = kernelir.warp_id
  %one = arith.constant 1.0 : f32
  kernelir.store %one, %out[%lane] : memref<64xf32>
  kernelir.store %one, %out[%warp] : memref<64xf32>
  kernelir.return
}

// kernelir.ldmatrix is nvgpu.ldmatrix, each lane passing the row it
// contributes: x4 (A) row lane mod 16 at k + 8 ((lane / 16) mod 2); x2 (B)
// row lane mod 8 at k + 8 ((lane / 8) mod 2); transposed x2 (B stored
// k-major) row lane mod 16 (k) at the block's column (n).
// CHECK: gpu.func @ldmatrix
// CHECK: %[[LANE:.*]] = gpu.lane_id
// CHECK: %[[ROW:.*]] = arith.remui %[[LANE]], %c16 : index
// CHECK: %[[HALF:.*]] = arith.divui %[[LANE]], %c16 : index
// CHECK: %[[SIDE:.*]] = arith.remui %[[HALF]], %c2 : index
// CHECK: %[[COL:.*]] = arith.muli %[[SIDE]], %c8 : index
// CHECK: %[[R:.*]] = arith.addi %{{.*}}, %[[ROW]] : index
// CHECK: %[[C:.*]] = arith.addi %{{.*}}, %[[COL]] : index
// CHECK: nvgpu.ldmatrix %{{.*}}[%[[R]], %[[C]]] {numTiles = 4 : i32, transpose = false} : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: %[[BROW:.*]] = arith.remui %{{.*}}, %c8 : index
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 2 : i32, transpose = false} : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// tf32 A: a 16-byte row is 4 floats, so lanes 16-31 read at k + 4.
// CHECK: %[[TCOL:.*]] = arith.muli %{{.*}}, %c4 : index
// CHECK: %[[TC:.*]] = arith.addi %{{.*}}, %[[TCOL]] : index
// CHECK: nvgpu.ldmatrix %{{.*}}[%{{.*}}, %[[TC]]] {numTiles = 4 : i32, transpose = false} : memref<16x20xf32, #gpu.address_space<workgroup>> -> vector<4x1xf32>
// Transposed B at [16, 8]: A's rows 16 + lane mod 16 (the same values,
// after CSE), all lanes at column 8.
// CHECK: %[[KSIDE:.*]] = arith.remui %[[HALF]], %c1 : index
// CHECK: %[[KCOL:.*]] = arith.muli %[[KSIDE]], %c8 : index
// CHECK: %[[KC:.*]] = arith.addi %c8, %[[KCOL]] : index
// CHECK: nvgpu.ldmatrix %{{.*}}[%[[R]], %[[KC]]] {numTiles = 2 : i32, transpose = true} : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
kernelir.func @ldmatrix(%out: memref<32xf16>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %chunk = kernelir.shared : memref<64x24xf16, #gpu.address_space<workgroup>>
  %c16 = arith.constant 16 : index
  %c0 = arith.constant 0 : index
  %a = kernelir.ldmatrix %chunk[%c16, %c0] : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
  %b = kernelir.ldmatrix %chunk[%c16, %c0] : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
  %chunk32 = kernelir.shared : memref<16x20xf32, #gpu.address_space<workgroup>>
  %t32 = kernelir.ldmatrix %chunk32[%c0, %c0] : memref<16x20xf32, #gpu.address_space<workgroup>> -> vector<4x1xf32>
  %c8 = arith.constant 8 : index
  %bt = kernelir.ldmatrix %chunk[%c16, %c8] transpose : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
  %x = vector.extract %a[3, 1] : f16 from vector<4x2xf16>
  %y = vector.extract %b[1, 0] : f16 from vector<2x2xf16>
  %w32 = vector.extract %t32[2, 0] : f32 from vector<4x1xf32>
  %w = arith.truncf %w32 : f32 to f16
  %z0 = arith.addf %x, %y : f16
  %z1 = arith.addf %z0, %w : f16
  %v = vector.extract %bt[0, 1] : f16 from vector<2x2xf16>
  %z = arith.addf %z1, %v : f16
  %t = kernelir.thread_id x
  kernelir.store %z, %out[%t] : memref<32xf16>
  kernelir.return
}

// bf16: nvgpu.mma.sync takes none, so nvvm.mma.sync on the 32-bit registers
// (two bf16 each) and the four f32 of the accumulator.
// CHECK: gpu.func @mma_bf16
// CHECK: %[[ROW:.*]] = vector.extract %{{.*}}[0] : vector<2xbf16> from vector<4x2xbf16>
// CHECK: %[[WORD:.*]] = vector.bitcast %[[ROW]] : vector<2xbf16> to vector<1xi32>
// CHECK: %[[D:.*]] = nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: llvm.extractvalue %[[D]][3] : !llvm.struct<(f32, f32, f32, f32)>
kernelir.func @mma_bf16(%out: memref<32xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = arith.constant dense<1.0> : vector<4x2xbf16>
  %b = arith.constant dense<2.0> : vector<2x2xbf16>
  %c = arith.constant dense<0.5> : vector<2x2xf32>
  %d = kernelir.mma %a, %b, %c : vector<4x2xbf16>, vector<2x2xbf16> -> vector<2x2xf32>
  %x = vector.extract %d[1, 1] : f32 from vector<2x2xf32>
  %t = kernelir.thread_id x
  kernelir.store %x, %out[%t] : memref<32xf32>
  kernelir.return
}

// Asynchronous copies become nvgpu.device_async_copy (cp.async): 16 bytes
// bypass L1; a guard reads 0 elements (zero-filling the destination) from
// index 0 of the source; commit and wait are NVVM's group operations.
// CHECK: gpu.func @copies(%[[A:.*]]: memref<8x64xf32>) workgroup(%[[S:.*]] : memref<2x8x16xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-DAG: %[[Z:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: %[[OK:.*]] = arith.cmpi
// CHECK: %[[ROW:.*]] = arith.select %[[OK]], %[[T]], %[[Z]] : index
// CHECK: %[[COL:.*]] = arith.select %[[OK]], %{{.*}}, %[[Z]] : index
// CHECK: %[[N:.*]] = arith.select %[[OK]], %[[C4]], %[[Z]] : index
// CHECK: nvgpu.device_async_copy %[[A]][%[[ROW]], %[[COL]]], %[[S]][%{{.*}}, %{{.*}}, %{{.*}}], 4, %[[N]] {bypassL1} : memref<8x64xf32> to memref<2x8x16xf32, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy %[[A]][%[[T]], %[[T]]], %[[S]][%{{.*}}, %{{.*}}, %{{.*}}], 1 : memref<8x64xf32> to memref<2x8x16xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 1
kernelir.func @copies(%a: memref<8x64xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<2x8x16xf32, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %t = kernelir.thread_id x
  %col = arith.muli %t, %c4 : index
  %ok = arith.cmpi ult, %t, %c8 : index
  kernelir.async_copy %a[%t, %col], %s[%c0, %t, %c0] elements 4 if %ok : memref<8x64xf32>, memref<2x8x16xf32, #gpu.address_space<workgroup>>
  kernelir.async_copy %a[%t, %t], %s[%c0, %c0, %c0] elements 1 : memref<8x64xf32>, memref<2x8x16xf32, #gpu.address_space<workgroup>>
  kernelir.async_commit
  kernelir.async_wait pending 1
  kernelir.return
}

// min_blocks_per_sm becomes nvvm.minctasm, which convert-gpu-to-nvvm keeps
// on the llvm.func (PTX .minnctapersm).
// CHECK: gpu.func @two_per_sm() kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>, nvvm.minctasm = 2 : i32}
kernelir.func @two_per_sm() attributes {block = array<i64: 256, 1, 1>, grid = array<i64: 4, 1, 1>, min_blocks_per_sm = 2} {
  kernelir.return
}

// kernelir.noalias becomes LLVM's noalias on the pointer (arguments without
// it keep none).
// CHECK: gpu.func @restricted(%{{.*}}: memref<8xf32> {llvm.noalias}, %{{.*}}: memref<8xf32>) kernel
kernelir.func @restricted(%in: memref<8xf32> {kernelir.noalias}, %out: memref<8xf32>) attributes {block = array<i64: 8, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %t = kernelir.thread_id x
  %v = kernelir.load %in[%t] : memref<8xf32>
  kernelir.store %v, %out[%t] : memref<8xf32>
  kernelir.return
}
