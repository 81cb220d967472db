// RUN: strata-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{grid must have 3 sizes (x, y, z), got 2}}
kernelir.func @grid_rank() attributes {block = array<i64: 1, 1, 1>, grid = array<i64: 1, 1>} {
  kernelir.return
}

// -----

// expected-error @+1 {{a block has at most 1024 threads, got 2048}}
kernelir.func @block_size() attributes {block = array<i64: 1024, 2, 1>, grid = array<i64: 1, 1, 1>} {
  kernelir.return
}

// -----

// A wave's grid is at most its tiles along x, 1 along y and z.
// expected-error @+1 {{a wave of at most wave_tiles = 4 blocks needs a grid of at most that many along x and 1 along y and z}}
kernelir.func @wave_below_grid() attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 8, 1, 1>, wave_tiles = 4} {
  kernelir.return
}

// -----

// expected-error @+1 {{a wave of at most wave_tiles = 16 blocks needs a grid of at most that many along x and 1 along y and z}}
kernelir.func @wave_in_two_dims() attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 8, 2, 1>, wave_tiles = 16} {
  kernelir.return
}

// -----

// expected-error @+1 {{min_blocks_per_sm must be positive, got 0}}
kernelir.func @no_blocks_per_sm() attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>, min_blocks_per_sm = 0} {
  kernelir.return
}

// -----

// expected-error @+1 {{min_blocks_per_sm = 3 blocks of 1024 threads exceed an SM's 2048}}
kernelir.func @threads_per_sm() attributes {block = array<i64: 1024, 1, 1>, grid = array<i64: 1, 1, 1>, min_blocks_per_sm = 3} {
  kernelir.return
}

// -----

// Two blocks of 128 KiB (and 1 KiB each the system's) are more than an
// SM's 228 KiB.
// expected-error @+1 {{min_blocks_per_sm = 2 blocks of 131072 bytes of shared memory (and 1 KiB each reserved) exceed an SM's 233472}}
kernelir.func @shared_per_sm() attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>, min_blocks_per_sm = 2} {
  %a = kernelir.shared : memref<2x128x128xf32, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

// expected-error @+1 {{block sizes must be positive, got 0}}
kernelir.func @empty_block() attributes {block = array<i64: 0, 1, 1>, grid = array<i64: 1, 1, 1>} {
  kernelir.return
}

// -----

// expected-error @+1 {{a kernel returns no values}}
kernelir.func @returns_value() -> f32 attributes {block = array<i64: 1, 1, 1>, grid = array<i64: 1, 1, 1>} {
  kernelir.return
}

// -----

func.func @unknown_kernel(%a: memref<4xf32>) {
  // expected-error @+1 {{'missing' does not name a kernelir.func}}
  kernelir.launch @missing(%a) : memref<4xf32>
  return
}

// -----

kernelir.func @k(%a: memref<4xf32>) attributes {block = array<i64: 4, 1, 1>, grid = array<i64: 1, 1, 1>} {
  kernelir.return
}

func.func @wrong_arguments(%a: memref<8xf32>) {
  // expected-error @+1 {{argument types do not match the signature of 'k'}}
  kernelir.launch @k(%a) : memref<8xf32>
  return
}

// -----

kernelir.func @in_place(%x: memref<8xf32> {kernelir.noalias}, %out: memref<8xf32>) attributes {block = array<i64: 8, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %t = kernelir.thread_id x
  %c1 = arith.constant 1 : index
  %n = arith.addi %t, %c1 : index
  %c8 = arith.constant 8 : index
  %ok = arith.cmpi ult, %n, %c8 : index
  %v = kernelir.load %x[%n] if %ok : memref<8xf32>
  kernelir.store %v, %out[%t] : memref<8xf32>
  kernelir.return
}

func.func @aliased_output(%a: memref<8xf32>) {
  // expected-error @+1 {{passes one buffer to arguments 0 and 1 of 'in_place', which writes it through one of them though they are marked kernelir.noalias}}
  kernelir.launch @in_place(%a, %a) : memref<8xf32>, memref<8xf32>
  return
}

// -----

// expected-error @+1 {{'kernelir.noalias' marks buffers; argument 0 is 'f32'}}
kernelir.func @noalias_scalar(%x: f32 {kernelir.noalias}) attributes {block = array<i64: 1, 1, 1>, grid = array<i64: 1, 1, 1>} {
  kernelir.return
}

// -----

// expected-error @+1 {{'kernelir.noalias' takes no value}}
kernelir.func @noalias_value(%x: memref<4xf32> {kernelir.noalias = 1}) attributes {block = array<i64: 1, 1, 1>, grid = array<i64: 1, 1, 1>} {
  kernelir.return
}

// -----

// expected-error @+1 {{'kernelir.noalias' marks arguments of kernelir.func only}}
func.func @noalias_host(%x: memref<4xf32> {kernelir.noalias}) {
  return
}

// -----

// expected-error @+1 {{unknown kernelir argument attribute 'kernelir.restrict'}}
kernelir.func @unknown_attribute(%x: memref<4xf32> {kernelir.restrict}) attributes {block = array<i64: 1, 1, 1>, grid = array<i64: 1, 1, 1>} {
  kernelir.return
}

// -----

kernelir.func @index_count(%a: memref<4x4xf32>) attributes {block = array<i64: 4, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %t = kernelir.thread_id x
  // expected-error @+1 {{expects 2 indices, got 1}}
  %x = kernelir.load %a[%t] : memref<4x4xf32>
  kernelir.return
}

// -----

kernelir.func @bad_dim(%a: memref<4xf32>) attributes {block = array<i64: 4, 1, 1>, grid = array<i64: 1, 1, 1>} {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'dim' [x, y, z]}}
  %t = kernelir.thread_id w
  kernelir.return
}

// -----

kernelir.func @shared_space() attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  // expected-error @+1 {{a shared buffer lives in #gpu.address_space<workgroup>}}
  %s = kernelir.shared : memref<2xf32>
  kernelir.return
}

// -----

kernelir.func @overlay_too_big() attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<8xf16, #gpu.address_space<workgroup>>
  // expected-error @+1 {{of 32 bytes overlays a buffer of 16}}
  %t = kernelir.shared : memref<8xf32, #gpu.address_space<workgroup>> overlays %s : memref<8xf16, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

kernelir.func @overlay_of_overlay() attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<8xf32, #gpu.address_space<workgroup>>
  %t = kernelir.shared : memref<8xf16, #gpu.address_space<workgroup>> overlays %s : memref<8xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{overlays a buffer that overlays another: overlay the first}}
  %u = kernelir.shared : memref<4xf16, #gpu.address_space<workgroup>> overlays %t : memref<8xf16, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

kernelir.func @overlay_of_argument(%a: memref<8xf32, #gpu.address_space<workgroup>>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  // expected-error @+1 {{overlays the result of a kernelir.shared of its kernel}}
  %t = kernelir.shared : memref<8xf16, #gpu.address_space<workgroup>> overlays %a : memref<8xf32, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

func.func @shared_outside_kernel() {
  // expected-error @+1 {{expects parent op 'kernelir.func'}}
  %s = kernelir.shared : memref<2xf32, #gpu.address_space<workgroup>>
  return
}

// -----

kernelir.func @shuffle_type(%v: f16) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{must be 32-bit signless integer or 64-bit signless integer or 32-bit float or 64-bit float}}
  %s = kernelir.shuffle xor %v, %c1 : f16
  kernelir.return
}

// -----

// A shuffle needs every lane of its warp: 48 threads leave a half warp.
kernelir.func @partial_warp(%out: memref<48xf32>) attributes {block = array<i64: 48, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c1 = arith.constant 1 : i32
  %x = arith.constant 1.0 : f32
  %t = kernelir.thread_id x
  // expected-error @+1 {{needs blocks of whole warps (32 threads), but the kernel has 48 threads per block}}
  %y = kernelir.shuffle xor %x, %c1 : f32
  kernelir.store %y, %out[%t] : memref<48xf32>
  kernelir.return
}

// -----

kernelir.func @vector_of_other_type(%a: memref<16xf32>) attributes {block = array<i64: 1, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{a vector access takes a fixed 1-D vector of the buffer's element type, got 'vector<4xf16>'}}
  %v = kernelir.load %a[%c0] : memref<16xf32> -> vector<4xf16>
  kernelir.return
}

// -----

kernelir.func @scalar_of_other_type(%a: memref<16xf32>) attributes {block = array<i64: 1, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c0 = arith.constant 0 : index
  %x = arith.constant 1.0 : f16
  // expected-error @+1 {{accesses 'f16' in a buffer of 'f32'}}
  kernelir.store %x, %a[%c0] : memref<16xf32> -> f16
  kernelir.return
}

// -----

// 8 x f32 is 256 bits: no GPU thread accesses that much at once.
kernelir.func @vector_too_wide(%a: memref<16xf32>) attributes {block = array<i64: 1, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{a vector access has 2, 4, ... elements and at most 128 bits, got 'vector<8xf32>'}}
  %v = kernelir.load %a[%c0] : memref<16xf32> -> vector<8xf32>
  kernelir.return
}

// -----

kernelir.func @vector_of_three(%a: memref<12xf32>) attributes {block = array<i64: 1, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{a vector access has 2, 4, ... elements and at most 128 bits, got 'vector<3xf32>'}}
  %v = kernelir.load %a[%c0] : memref<12xf32> -> vector<3xf32>
  kernelir.return
}

// -----

// Rows of 37 elements: a vector of 4 would cross from one row to the next.
kernelir.func @vector_across_rows(%a: memref<10x37xf32>) attributes {block = array<i64: 1, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c0 = arith.constant 0 : index
  %v = arith.constant dense<1.0> : vector<4xf32>
  // expected-error @+1 {{a vector of 4 elements needs a row-major buffer whose innermost dimension is a multiple of 4, got 'memref<10x37xf32>'}}
  kernelir.store %v, %a[%c0, %c0] : memref<10x37xf32> -> vector<4xf32>
  kernelir.return
}

// -----

kernelir.func @mma_shape(%a: vector<2x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  // expected-error @+1 {{takes the fragments of a 16x8x16 product: 'vector<4x2xf16>', 'vector<2x2xf16>' and 'vector<2x2xf32>'}}
  %d = kernelir.mma %a, %b, %c : vector<2x2xf16>, vector<2x2xf16> -> vector<2x2xf32>
  kernelir.return
}

// -----

// tf32 fragments hold one f32 per register: 4x1 and 2x1.
kernelir.func @mma_tf32_shape(%a: vector<4x2xf32>, %b: vector<2x1xf32>, %c: vector<2x2xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  // expected-error @+1 {{takes the fragments of a 16x8x8 product: 'vector<4x1xf32>', 'vector<2x1xf32>' and 'vector<2x2xf32>'}}
  %d = kernelir.mma %a, %b, %c : vector<4x2xf32>, vector<2x1xf32> -> vector<2x2xf32>
  kernelir.return
}

// -----

kernelir.func @mma_integers(%a: vector<4x2xi16>, %b: vector<2x2xi16>, %c: vector<2x2xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  // expected-error @+1 {{operand #0 must be vector of 16-bit float or bfloat16 type or 32-bit float values of ranks 2}}
  %d = kernelir.mma %a, %b, %c : vector<4x2xi16>, vector<2x2xi16> -> vector<2x2xf32>
  kernelir.return
}

// -----

// The whole warp multiplies together: 16 threads are half a warp.
kernelir.func @mma_partial_warp(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>) attributes {block = array<i64: 16, 1, 1>, grid = array<i64: 1, 1, 1>} {
  // expected-error @+1 {{needs blocks of whole warps (32 threads), but the kernel has 16 threads per block}}
  %d = kernelir.mma %a, %b, %c : vector<4x2xf16>, vector<2x2xf16> -> vector<2x2xf32>
  kernelir.return
}

// -----

kernelir.func @mma_mixed(%a: vector<4x2xf16>, %b: vector<2x2xbf16>, %c: vector<2x2xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  // expected-error @+1 {{multiplies operands of one type (f16, bf16 or f32), got 'f16' and 'bf16'}}
  %d = kernelir.mma %a, %b, %c : vector<4x2xf16>, vector<2x2xbf16> -> vector<2x2xf32>
  kernelir.return
}

// -----

// cp.async moves 4, 8 or 16 bytes: one f16 is 2.
kernelir.func @copy_two_bytes(%a: memref<64xf16>, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<64xf16, #gpu.address_space<workgroup>>
  // expected-error @+1 {{copies 4, 8 or 16 bytes, got 1 x 'f16'}}
  kernelir.async_copy %a[%i], %s[%i] elements 1 : memref<64xf16>, memref<64xf16, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

kernelir.func @copy_32_bytes(%a: memref<64xf32>, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<64xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{copies 4, 8 or 16 bytes, got 8 x 'f32'}}
  kernelir.async_copy %a[%i], %s[%i] elements 8 : memref<64xf32>, memref<64xf32, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

// The destination is shared memory, the source global memory.
kernelir.func @copy_to_global(%a: memref<64xf32>, %b: memref<64xf32>, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  // expected-error @+1 {{copies from global memory into a shared buffer}}
  kernelir.async_copy %a[%i], %b[%i] elements 4 : memref<64xf32>, memref<64xf32>
  kernelir.return
}

// -----

kernelir.func @copy_types(%a: memref<64xf32>, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<64xi32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{copies between buffers of one element type, got 'f32' and 'i32'}}
  kernelir.async_copy %a[%i], %s[%i] elements 4 : memref<64xf32>, memref<64xi32, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

// Rows of 37 cannot start every 16-byte copy at a 16-byte boundary.
kernelir.func @copy_unaligned_rows(%a: memref<10x37xf32>, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<64xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{a copy of 4 elements needs row-major buffers whose innermost dimension is a multiple of 4, got 'memref<10x37xf32>'}}
  kernelir.async_copy %a[%i, %i], %s[%i] elements 4 : memref<10x37xf32>, memref<64xf32, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

kernelir.func @copy_indices(%a: memref<10x36xf32>, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<64xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{expects one index per dimension of each buffer}}
  kernelir.async_copy %a[%i], %s[%i] elements 4 : memref<10x36xf32>, memref<64xf32, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

kernelir.func @wait_negative() attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  // expected-error @+1 {{attribute 'pending' failed to satisfy constraint}}
  kernelir.async_wait pending -1
  kernelir.return
}

// -----

// 4 x 128 x 128 x 4 bytes (256 KiB): over the 227 KiB a block may have
// (dynamic shared memory on sm_90).
// expected-error @+1 {{a block has at most 232448 bytes of shared memory, got 262144}}
kernelir.func @too_much_shared() attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<4x128x128xf32, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

kernelir.func @ldmatrix_global(%a: memref<64x24xf16>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{loads from a shared (workgroup) buffer}}
  %f = kernelir.ldmatrix %a[%c0, %c0] : memref<64x24xf16> -> vector<4x2xf16>
  kernelir.return
}

// -----

kernelir.func @ldmatrix_shape() attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<64x24xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{loads an A fragment ('vector<4x2xf16>') or a B fragment ('vector<2x2xf16>')}}
  %f = kernelir.ldmatrix %s[%c0, %c0] : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<3x2xf16>
  kernelir.return
}

// -----

// Every row of an 8 x 8 matrix starts at a 16-byte boundary.
kernelir.func @ldmatrix_rows() attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<64x20xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{needs rows of a multiple of 8 elements (16 bytes), got 20}}
  %f = kernelir.ldmatrix %s[%c0, %c0] : memref<64x20xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
  kernelir.return
}

// -----

kernelir.func @ldmatrix_element() attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<64x24xbf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{loads 'f16' fragments from a buffer of 'bf16'}}
  %f = kernelir.ldmatrix %s[%c0, %c0] : memref<64x24xbf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
  kernelir.return
}

// -----

// tf32: A fragments only; rows of 4 floats make 16 bytes.
kernelir.func @ldmatrix_f32_b() attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<64x20xf32, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{loads only A fragments of f32 (tf32): 16-bit matrices cannot transpose 32-bit elements}}
  %f = kernelir.ldmatrix %s[%c0, %c0] : memref<64x20xf32, #gpu.address_space<workgroup>> -> vector<2x1xf32>
  kernelir.return
}

// -----

kernelir.func @ldmatrix_f32_transpose() attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<64x20xf32, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{loads only A fragments of f32 (tf32): 16-bit matrices cannot transpose 32-bit elements}}
  %f = kernelir.ldmatrix %s[%c0, %c0] transpose : memref<64x20xf32, #gpu.address_space<workgroup>> -> vector<4x1xf32>
  kernelir.return
}

// -----

// ldmatrix .trans serves B stored k-major; A is always stored row-major.
kernelir.func @ldmatrix_transposed_a() attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<64x24xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{transposes only B fragments ('vector<2x2xf16>'), stored k-major}}
  %f = kernelir.ldmatrix %s[%c0, %c0] transpose : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
  kernelir.return
}

// -----

kernelir.func @ldmatrix_f32_rows() attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<64x18xf32, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{needs rows of a multiple of 4 elements (16 bytes), got 18}}
  %f = kernelir.ldmatrix %s[%c0, %c0] : memref<64x18xf32, #gpu.address_space<workgroup>> -> vector<4x1xf32>
  kernelir.return
}

// -----

// The whole warp loads together.
kernelir.func @ldmatrix_partial_warp() attributes {block = array<i64: 16, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<64x24xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{needs blocks of whole warps (32 threads), but the kernel has 16 threads per block}}
  %f = kernelir.ldmatrix %s[%c0, %c0] : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
  kernelir.return
}

// -----

// wgmma's operands lie in shared memory, in core-matrix layout.
kernelir.func @wgmma_global(%a: memref<2x64x8xf16>) attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %b = kernelir.shared : memref<2x8x8xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %acc = arith.constant dense<0.0> : vector<1x2x2xf32>
  // expected-error @+1 {{lhs must be a shared (workgroup) buffer}}
  %d = kernelir.wgmma %a[%c0, %c0, %c0], %b[%c0, %c0, %c0], %acc k 16 : memref<2x64x8xf16>, memref<2x8x8xf16, #gpu.address_space<workgroup>>, vector<1x2x2xf32>
  kernelir.return
}

// -----

// An async group's accumulator is in flight until a wait retires it.
kernelir.func @wgmma_in_flight_read(%acc: vector<1x2x2xf32>) attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<2x64x8xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<2x8x8xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{result is in flight until a kernelir.wgmma_wait retires its group, but arith.addf reads it}}
  %d = kernelir.wgmma %a[%c0, %c0, %c0], %b[%c0, %c0, %c0], %acc k 16 async : memref<2x64x8xf16, #gpu.address_space<workgroup>>, memref<2x8x8xf16, #gpu.address_space<workgroup>>, vector<1x2x2xf32>
  %e = arith.addf %d, %acc : vector<1x2x2xf32>
  kernelir.return
}

// -----

// A wait that leaves groups pending returns accumulators still in flight;
// a synchronous wgmma may not take one.
kernelir.func @wgmma_wait_pending_read(%acc: vector<1x2x2xf32>) attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<2x64x8xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<2x8x8xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %d = kernelir.wgmma %a[%c0, %c0, %c0], %b[%c0, %c0, %c0], %acc k 16 async : memref<2x64x8xf16, #gpu.address_space<workgroup>>, memref<2x8x8xf16, #gpu.address_space<workgroup>>, vector<1x2x2xf32>
  // expected-error @+1 {{result is in flight until a kernelir.wgmma_wait retires its group, but kernelir.wgmma reads it}}
  %w = kernelir.wgmma_wait %d pending 1 : vector<1x2x2xf32>
  %e = kernelir.wgmma %a[%c0, %c0, %c0], %b[%c0, %c0, %c0], %w k 16 : memref<2x64x8xf16, #gpu.address_space<workgroup>>, memref<2x8x8xf16, #gpu.address_space<workgroup>>, vector<1x2x2xf32>
  kernelir.return
}

// -----

kernelir.func @wgmma_wait_warpgroups(%acc: vector<1x2x2xf32>) attributes {block = array<i64: 64, 1, 1>, grid = array<i64: 1, 1, 1>} {
  // expected-error @+1 {{needs blocks of whole warpgroups (128 threads), but the kernel has 64 threads per block}}
  %w = kernelir.wgmma_wait %acc pending 0 : vector<1x2x2xf32>
  kernelir.return
}

// -----

kernelir.func @wgmma_row_bytes() attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<2x64x16xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<2x8x8xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %acc = arith.constant dense<0.0> : vector<1x2x2xf32>
  // expected-error @+1 {{lhs's rows must be 16 bytes (8 elements), got 16}}
  %d = kernelir.wgmma %a[%c0, %c0, %c0], %b[%c0, %c0, %c0], %acc k 16 : memref<2x64x16xf16, #gpu.address_space<workgroup>>, memref<2x8x8xf16, #gpu.address_space<workgroup>>, vector<1x2x2xf32>
  kernelir.return
}

// -----

// B holds N = 8 J rows (here 16 for J = 2).
kernelir.func @wgmma_rhs_rows() attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<2x64x8xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<2x8x8xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %acc = arith.constant dense<0.0> : vector<2x2x2xf32>
  // expected-error @+1 {{rhs needs at least 16 rows, a multiple of 8 (whole core matrices), got 8}}
  %d = kernelir.wgmma %a[%c0, %c0, %c0], %b[%c0, %c0, %c0], %acc k 16 : memref<2x64x8xf16, #gpu.address_space<workgroup>>, memref<2x8x8xf16, #gpu.address_space<workgroup>>, vector<2x2x2xf32>
  kernelir.return
}

// -----

kernelir.func @wgmma_k_blocks() attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<2x64x8xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<2x8x8xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %acc = arith.constant dense<0.0> : vector<1x2x2xf32>
  // expected-error @+1 {{lhs needs 4 k blocks for k = 32, got 2}}
  %d = kernelir.wgmma %a[%c0, %c0, %c0], %b[%c0, %c0, %c0], %acc k 32 : memref<2x64x8xf16, #gpu.address_space<workgroup>>, memref<2x8x8xf16, #gpu.address_space<workgroup>>, vector<1x2x2xf32>
  kernelir.return
}

// -----

kernelir.func @wgmma_k_step() attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<2x64x8xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<2x8x8xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %acc = arith.constant dense<0.0> : vector<1x2x2xf32>
  // expected-error @+1 {{needs k a multiple of 16, got 8}}
  %d = kernelir.wgmma %a[%c0, %c0, %c0], %b[%c0, %c0, %c0], %acc k 8 : memref<2x64x8xf16, #gpu.address_space<workgroup>>, memref<2x8x8xf16, #gpu.address_space<workgroup>>, vector<1x2x2xf32>
  kernelir.return
}

// -----

kernelir.func @wgmma_wide() attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<2x64x8xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<2x512x8xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %acc = arith.constant dense<0.0> : vector<33x2x2xf32>
  // expected-error @+1 {{takes a vector<Jx2x2xf32> accumulator, N = 8 J at most 256, got 'vector<33x2x2xf32>'}}
  %d = kernelir.wgmma %a[%c0, %c0, %c0], %b[%c0, %c0, %c0], %acc k 16 : memref<2x64x8xf16, #gpu.address_space<workgroup>>, memref<2x512x8xf16, #gpu.address_space<workgroup>>, vector<33x2x2xf32>
  kernelir.return
}

// -----

kernelir.func @wgmma_f32() attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<2x64x4xf32, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<2x8x4xf32, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %acc = arith.constant dense<0.0> : vector<1x2x2xf32>
  // expected-error @+1 {{multiplies f16 or bf16 operands, got 'f32'}}
  %d = kernelir.wgmma %a[%c0, %c0, %c0], %b[%c0, %c0, %c0], %acc k 16 : memref<2x64x4xf32, #gpu.address_space<workgroup>>, memref<2x8x4xf32, #gpu.address_space<workgroup>>, vector<1x2x2xf32>
  kernelir.return
}

// -----

// The four warps of a warpgroup multiply together.
kernelir.func @wgmma_partial_warpgroup() attributes {block = array<i64: 96, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<2x64x8xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<2x8x8xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %acc = arith.constant dense<0.0> : vector<1x2x2xf32>
  // expected-error @+1 {{needs blocks of whole warpgroups (128 threads), but the kernel has 96 threads per block}}
  %d = kernelir.wgmma %a[%c0, %c0, %c0], %b[%c0, %c0, %c0], %acc k 16 : memref<2x64x8xf16, #gpu.address_space<workgroup>>, memref<2x8x8xf16, #gpu.address_space<workgroup>>, vector<1x2x2xf32>
  kernelir.return
}

// -----

kernelir.func @wgmma_core_matrix_start() attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<2x128x8xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<2x8x8xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %acc = arith.constant dense<0.0> : vector<1x2x2xf32>
  // expected-error @+1 {{lhs must start at a core matrix: a row that is a multiple of 8, column 0}}
  %d = kernelir.wgmma %a[%c0, %c4, %c0], %b[%c0, %c0, %c0], %acc k 16 : memref<2x128x8xf16, #gpu.address_space<workgroup>>, memref<2x8x8xf16, #gpu.address_space<workgroup>>, vector<1x2x2xf32>
  kernelir.return
}

// -----

// Each launch dimension stays within CUDA's limit, which also keeps the
// thread count from overflowing (2^63 - 1 threads in y once passed as -32).
// expected-error @+1 {{block size y is at most 1024, got 9223372036854775807}}
kernelir.func @block_overflow() attributes {block = array<i64: 32, 9223372036854775807, 1>, grid = array<i64: 1, 1, 1>} {
  kernelir.return
}

// -----

// expected-error @+1 {{block size z is at most 64, got 128}}
kernelir.func @block_z() attributes {block = array<i64: 1, 1, 128>, grid = array<i64: 1, 1, 1>} {
  kernelir.return
}

// -----

// expected-error @+1 {{grid size y is at most 65535, got 65536}}
kernelir.func @grid_y() attributes {block = array<i64: 1, 1, 1>, grid = array<i64: 1, 65536, 1>} {
  kernelir.return
}

// -----

// expected-error @+1 {{grid size x is at most 2147483647, got 2147483648}}
kernelir.func @grid_x() attributes {block = array<i64: 1, 1, 1>, grid = array<i64: 2147483648, 1, 1>} {
  kernelir.return
}

// -----

// An mbarrier is an i64 in shared memory.
kernelir.func @mbarrier_in_global(%b: memref<2xi64>, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  // expected-error @+1 {{expects its mbarriers in a shared (workgroup) buffer of i64, got 'memref<2xi64>'}}
  kernelir.mbarrier_init %b[%i] arrivals 1 : memref<2xi64>
  kernelir.return
}

// -----

kernelir.func @mbarrier_of_i32(%i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %b = kernelir.shared : memref<2xi32, #gpu.address_space<workgroup>>
  %true = arith.constant true
  // expected-error @+1 {{expects its mbarriers in a shared (workgroup) buffer of i64}}
  kernelir.mbarrier_wait %b[%i] parity %true : memref<2xi32, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

kernelir.func @mbarrier_indices(%i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %b = kernelir.shared : memref<2x2xi64, #gpu.address_space<workgroup>>
  // expected-error @+1 {{expects one index per dimension of the mbarrier buffer}}
  kernelir.mbarrier_arrive %b[%i] : memref<2x2xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

// PTX counts arrivals and transaction bytes up to 2^20 - 1.
kernelir.func @mbarrier_no_arrivals(%i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %b = kernelir.shared : memref<2xi64, #gpu.address_space<workgroup>>
  // expected-error @+1 {{expects between 1 and 1048575 arrivals, got 0}}
  kernelir.mbarrier_init %b[%i] arrivals 0 : memref<2xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

kernelir.func @mbarrier_too_many_bytes(%i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %b = kernelir.shared : memref<2xi64, #gpu.address_space<workgroup>>
  // expected-error @+1 {{expects between 1 and 1048575 transaction bytes, got 1048576}}
  kernelir.mbarrier_arrive %b[%i] expect_tx 1048576 : memref<2xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

// A bulk copy moves whole 16-byte units: 3 f32 are 12 bytes.
kernelir.func @bulk_copy_12_bytes(%a: memref<64xf32>, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<64xf32, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<1xi64, #gpu.address_space<workgroup>>
  // expected-error @+1 {{copies a positive multiple of 16 bytes up to 1048575, got 3 x 'f32'}}
  kernelir.bulk_copy %a[%i], %s[%i] elements 3 arrives %b[%i] : memref<64xf32>, memref<64xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

// Rows of 20 halves (40 bytes) put every other row off a 16-byte boundary.
kernelir.func @bulk_copy_rows(%a: memref<10x20xf16>, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<64xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<1xi64, #gpu.address_space<workgroup>>
  // expected-error @+1 {{a bulk copy of 8 elements needs row-major buffers whose rows are a multiple of 16 bytes and at least that long, got 'memref<10x20xf16>'}}
  kernelir.bulk_copy %a[%i, %i], %s[%i] elements 8 arrives %b[%i] : memref<10x20xf16>, memref<64xf16, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

kernelir.func @bulk_copy_to_global(%a: memref<64xf32>, %c: memref<64xf32>, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %b = kernelir.shared : memref<1xi64, #gpu.address_space<workgroup>>
  // expected-error @+1 {{copies from global memory into a shared buffer}}
  kernelir.bulk_copy %a[%i], %c[%i] elements 4 arrives %b[%i] : memref<64xf32>, memref<64xf32>, memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

// A box extent beyond TMA's 256.
kernelir.func @tma_box_too_big(%a: memref<1000x64xf16> {kernelir.tensor_map}, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<512x64xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<1xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{copies boxes of 1 to 256 per dimension, got a box of 512, 64}}
  kernelir.tma_load %a[%i, %c0], %s[%c0, %c0] arrives %b[%c0] : memref<1000x64xf16>, memref<512x64xf16, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

// Swizzled rows are at most the swizzle: 64 f32 are 256 bytes.
kernelir.func @tma_row_beyond_swizzle(%a: memref<100x64xf32> {kernelir.tensor_map}, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<8x64xf32, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<1xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{needs box rows of a multiple of 16 bytes up to the swizzle's 128, got 256}}
  kernelir.tma_load %a[%i, %c0], %s[%c0, %c0] swizzle 128 arrives %b[%c0] : memref<100x64xf32>, memref<8x64xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

// A tensor map's strides are multiples of 16 bytes: rows of 20 halves are not.
kernelir.func @tma_source_rows(%a: memref<10x20xf16> {kernelir.tensor_map}, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<8x64xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<1xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{needs a tensor whose rows are a multiple of 16 bytes (a tensor map's strides), got 'memref<10x20xf16>'}}
  kernelir.tma_load %a[%i, %c0], %s[%c0, %c0] arrives %b[%c0] : memref<10x20xf16>, memref<8x64xf16, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

// The swizzles are 32, 64 and 128 bytes.
kernelir.func @tma_swizzle_96(%a: memref<100x64xf16> {kernelir.tensor_map}, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<8x64xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<1xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{swizzles 32, 64 or 128 bytes, got 96}}
  kernelir.tma_load %a[%i, %c0], %s[%c0, %c0] swizzle 96 arrives %b[%c0] : memref<100x64xf16>, memref<8x64xf16, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

// A ring's boxes start where the swizzle's pattern starts: 4 rows of 128 bytes are half a period.
kernelir.func @tma_partial_period(%a: memref<100x64xf16> {kernelir.tensor_map}, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<2x4x64xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<1xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{copies whole swizzle periods (a multiple of 1024 bytes) up to 1048575 bytes, got a box of 512}}
  kernelir.tma_load %a[%i, %c0], %s[%i, %c0, %c0] swizzle 128 arrives %b[%c0] : memref<100x64xf16>, memref<2x4x64xf16, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

// A box lands at a constant place of the destination's trailing
// dimensions, its rows whole.
kernelir.func @tma_box_offset(%a: memref<100x64xf16> {kernelir.tensor_map}, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<2x8x64xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<1xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{places a box at a constant index of its first dimension in the shared buffer, inside it and whole swizzle periods (128 bytes) from its start}}
  kernelir.tma_load %a[%i, %c0], %s[%c0, %i, %c0] arrives %b[%c0] : memref<100x64xf16>, memref<2x8x64xf16, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

// A box of a 3-d tensor in a 2-d buffer says so (its leading extent 1,
// or a box of rank 2 over the tensor's rows).
kernelir.func @tma_rank(%a: memref<4x4x64xf16> {kernelir.tensor_map}, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<4x64xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<1xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{copies a box of the tensor's rank, in more dimensions than 'memref<4x64xf16, #gpu.address_space<workgroup>>' has: a box with leading 1s, or of lower rank, is given by `box`}}
  kernelir.tma_load %a[%i, %i, %c0], %s[%c0, %c0] arrives %b[%c0] : memref<4x4x64xf16>, memref<4x64xf16, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

// A box of rank 2 over a 3-d tensor (its rows seen as one dimension) has
// two coordinates.
kernelir.func @tma_folded_indices(%a: memref<4x4x64xf16> {kernelir.tensor_map}, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<4x64xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<1xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{expects one index per dimension of the box (of the global tensor) and of the shared buffer}}
  kernelir.tma_load %a[%i, %i, %c0], %s[%c0, %c0] box [4, 64] arrives %b[%c0] : memref<4x4x64xf16>, memref<4x64xf16, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

kernelir.func @tma_box_above_rank(%a: memref<4x64xf16> {kernelir.tensor_map}, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<4x64xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<1xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{copies a box of at most the tensor's rank (of its tensor map's view's, given), got 3 dimensions for 'memref<4x64xf16>'}}
  kernelir.tma_load %a[%i, %i, %c0], %s[%c0, %c0] box [1, 4, 64] arrives %b[%c0] : memref<4x64xf16>, memref<4x64xf16, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

// The box's leading extents beyond the shared buffer are 1: the buffer
// holds one batch's rows.
kernelir.func @tma_box_beyond_buffer(%a: memref<4x4x64xf16> {kernelir.tensor_map}, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<4x64xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<1xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{copies a box whose extents after its leading 1s are the shared buffer's trailing ones (the first perhaps fewer), got a box of [2, 4, 64] in 'memref<4x64xf16, #gpu.address_space<workgroup>>'}}
  kernelir.tma_load %a[%i, %i, %c0], %s[%c0, %c0] box [2, 4, 64] arrives %b[%c0] : memref<4x4x64xf16>, memref<4x64xf16, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

// Boxes of rank 1 to 5.
kernelir.func @tma_rank_six(%a: memref<1x1x1x1x4x64xf16> {kernelir.tensor_map}, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<4x64xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<1xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{copies boxes of rank 1 to 5, got 6 of 'memref<1x1x1x1x4x64xf16>'}}
  kernelir.tma_load %a[%c0, %c0, %c0, %c0, %i, %c0], %s[%c0, %c0] box [1, 1, 1, 1, 4, 64] arrives %b[%c0] : memref<1x1x1x1x4x64xf16>, memref<4x64xf16, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

// On the GPU a tensor map is a parameter of its own, not the buffer's
// address: TMA reads through arguments marked as tensor maps alone.
kernelir.func @tma_from_a_pointer(%a: memref<100x64xf16>, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<8x64xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<1xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{copies through a kernel argument marked {kernelir.tensor_map}}}
  kernelir.tma_load %a[%i, %c0], %s[%c0, %c0] arrives %b[%c0] : memref<100x64xf16>, memref<8x64xf16, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

// expected-error @+1 {{tensor map argument #0 is used by kernelir.tma_load and tma_store alone, got a use by kernelir.load}}
kernelir.func @tensor_map_loaded(%a: memref<100x64xf16> {kernelir.tensor_map}, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %x = kernelir.load %a[%i, %i] : memref<100x64xf16>
  kernelir.return
}

// -----

// One tensor map, one box: 8 and 16 rows would be two maps.
// expected-error @+1 {{tensor map argument #0 is copied with one box and swizzle, got two}}
kernelir.func @tensor_map_two_boxes(%a: memref<100x64xf16> {kernelir.tensor_map}, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<8x64xf16, #gpu.address_space<workgroup>>
  %t = kernelir.shared : memref<16x64xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<1xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  kernelir.tma_load %a[%i, %c0], %s[%c0, %c0] arrives %b[%c0] : memref<100x64xf16>, memref<8x64xf16, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.tma_load %a[%i, %c0], %t[%c0, %c0] arrives %b[%c0] : memref<100x64xf16>, memref<16x64xf16, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

// A 128-byte swizzled operand's rows are 128 bytes: 64 halves.
kernelir.func @wgmma_swizzled_rows(%acc: vector<2x2x2xf32>) attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<4x64x8xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<4x16x8xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{lhs's rows must be 128 bytes (64 elements), got 8}}
  %d = kernelir.wgmma %a[%c0, %c0, %c0], %b[%c0, %c0, %c0], %acc k 32 swizzle 128 : memref<4x64x8xf16, #gpu.address_space<workgroup>>, memref<4x16x8xf16, #gpu.address_space<workgroup>>, vector<2x2x2xf32>
  kernelir.return
}

// -----

// An MN-major rhs exists swizzled alone (the layout TMA writes).
kernelir.func @wgmma_mn_major_unswizzled(%acc: vector<2x2x2xf32>) attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<2x64x8xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<2x16x8xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{reads an MN-major rhs swizzled alone}}
  %d = kernelir.wgmma %a[%c0, %c0, %c0], %b[%c0, %c0, %c0], %acc k 16 rhs_mn_major : memref<2x64x8xf16, #gpu.address_space<workgroup>>, memref<2x16x8xf16, #gpu.address_space<workgroup>>, vector<2x2x2xf32>
  kernelir.return
}

// -----

// N = 16 columns of a 128-byte swizzled MN-major B: not a whole row of 64.
kernelir.func @wgmma_mn_major_partial_row(%acc: vector<2x2x2xf32>) attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<1x64x64xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<1x32x64xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{needs N a multiple of the MN-major rhs's row (64 elements), got 16}}
  %d = kernelir.wgmma %a[%c0, %c0, %c0], %b[%c0, %c0, %c0], %acc k 32 swizzle 128 rhs_mn_major : memref<1x64x64xf16, #gpu.address_space<workgroup>>, memref<1x32x64xf16, #gpu.address_space<workgroup>>, vector<2x2x2xf32>
  kernelir.return
}

// -----

// N = 128 needs two blocks of 64 columns; k = 32 needs 32 rows of k.
kernelir.func @wgmma_mn_major_blocks(%acc: vector<16x2x2xf32>) attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<1x64x64xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<1x32x64xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{rhs needs 2 n blocks for n = 128, got 1}}
  %d = kernelir.wgmma %a[%c0, %c0, %c0], %b[%c0, %c0, %c0], %acc k 32 swizzle 128 rhs_mn_major : memref<1x64x64xf16, #gpu.address_space<workgroup>>, memref<1x32x64xf16, #gpu.address_space<workgroup>>, vector<16x2x2xf32>
  kernelir.return
}

// -----

kernelir.func @wgmma_mn_major_rows(%acc: vector<8x2x2xf32>) attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<1x64x64xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<1x16x64xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{rhs needs at least 32 rows, a multiple of 8 (whole core matrices), got 16}}
  %d = kernelir.wgmma %a[%c0, %c0, %c0], %b[%c0, %c0, %c0], %acc k 32 swizzle 128 rhs_mn_major : memref<1x64x64xf16, #gpu.address_space<workgroup>>, memref<1x16x64xf16, #gpu.address_space<workgroup>>, vector<8x2x2xf32>
  kernelir.return
}

// -----

kernelir.func @wgmma_swizzle_96(%acc: vector<2x2x2xf32>) attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<1x64x64xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<1x16x64xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{swizzles 32, 64 or 128 bytes, got 96}}
  %d = kernelir.wgmma %a[%c0, %c0, %c0], %b[%c0, %c0, %c0], %acc k 32 swizzle 96 : memref<1x64x64xf16, #gpu.address_space<workgroup>>, memref<1x16x64xf16, #gpu.address_space<workgroup>>, vector<2x2x2xf32>
  kernelir.return
}

// -----

// A TMA store writes through a tensor map too, with the map's one box.
// expected-error @+1 {{tensor map argument #0 is copied with one box and swizzle, got two}}
kernelir.func @tensor_map_load_and_store_swizzles(%a: memref<100x64xf16> {kernelir.tensor_map}, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<8x64xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<1xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  kernelir.tma_load %a[%i, %c0], %s[%c0, %c0] swizzle 128 arrives %b[%c0] : memref<100x64xf16>, memref<8x64xf16, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.tma_store %s[%c0, %c0], %a[%i, %c0] : memref<8x64xf16, #gpu.address_space<workgroup>>, memref<100x64xf16>
  kernelir.return
}

// -----

kernelir.func @tma_store_from_global(%a: memref<100x64xf16> {kernelir.tensor_map}, %g: memref<8x64xf16>, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{copies between a global tensor and a shared buffer}}
  kernelir.tma_store %g[%c0, %c0], %a[%i, %c0] : memref<8x64xf16>, memref<100x64xf16>
  kernelir.return
}

// -----

// setmaxnreg takes multiples of 8 registers from 24 to 256.
kernelir.func @registers_not_multiple_of_8() attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  // expected-error @+1 {{sets a multiple of 8 registers from 24 to 256, got 100}}
  kernelir.set_max_registers increase 100
  kernelir.return
}

// -----

kernelir.func @too_few_registers() attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  // expected-error @+1 {{sets a multiple of 8 registers from 24 to 256, got 16}}
  kernelir.set_max_registers decrease 16
  kernelir.return
}

// -----

// A warpgroup executes it together.
kernelir.func @registers_of_part_of_a_warpgroup() attributes {block = array<i64: 96, 1, 1>, grid = array<i64: 1, 1, 1>} {
  // expected-error @+1 {{needs blocks of whole warpgroups (128 threads), but the kernel has 96 threads per block}}
  kernelir.set_max_registers decrease 40
  kernelir.return
}

// -----

// Half of a 16 x 64 chunk's rows from row 8 (whole 128-byte swizzle
// periods from its start) is fine; from row 4 it is not.
kernelir.func @tma_rows_off_period(%a: memref<100x64xf16> {kernelir.tensor_map}, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<16x64xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<1xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  kernelir.tma_load %a[%i, %c0], %s[%c8, %c0] box [8, 64] swizzle 128 arrives %b[%c0] : memref<100x64xf16>, memref<16x64xf16, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
  // expected-error @+1 {{places a box at a constant index of its first dimension in the shared buffer, inside it and whole swizzle periods (1024 bytes) from its start}}
  kernelir.tma_load %a[%i, %c0], %s[%c4, %c0] box [8, 64] swizzle 128 arrives %b[%c0] : memref<100x64xf16>, memref<16x64xf16, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

// A view of a tensor map holds the buffer's elements.
// expected-error @+1 {{'kernelir.tensor_map' views argument 0 ('memref<48x64xf16>') as [4, 10, 64]: a view has rank 1 to 5, the buffer's elements and rows of a multiple of 16 bytes}}
kernelir.func @tma_view_elements(%a: memref<48x64xf16> {kernelir.tensor_map = array<i64: 4, 10, 64>}) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  kernelir.return
}

// -----

// A box over a view has the view's rank.
kernelir.func @tma_view_rank(%a: memref<48x64xf16> {kernelir.tensor_map = array<i64: 4, 12, 64>}, %i: index) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<8x64xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<1xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{copies a box of at most the tensor's rank (of its tensor map's view's, given), got 2 dimensions for 'memref<48x64xf16>'}}
  kernelir.tma_load %a[%i, %c0], %s[%c0, %c0] box [8, 64] swizzle 128 arrives %b[%c0] : memref<48x64xf16>, memref<8x64xf16, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.return
}
