// RUN: strata-translate --kernelir-to-cuda %s | FileCheck %s

// kernelir rendered as CUDA C++ (lib/Target/CUDA): the prelude of helpers
// once, then one `extern "C" __global__` function per kernelir.func, its
// buffers as pointers (restrict where noalias), indices linearized with
// the buffers' static strides, values named by kind and number.

// CHECK-LABEL: // CUDA C++ rendering of Strata's kernelir (generated).
// CHECK: template <typename T, int N> struct alignas(sizeof(T) * N) strata_vec {
// CHECK: __device__ inline float strata_maximumf(float a, float b) {

// Guarded accesses; unsigned comparisons and clamps on the indices read as
// unsigned (a negative index is past every bound), not as the signed
// `long long` an index is declared.
// CHECK-LABEL: extern "C" __global__ void __launch_bounds__(128, 2)
// CHECK-NEXT: exp_kernel(float *a0, float *__restrict__ a1) {
// CHECK: long long v[[B:[0-9]+]] = blockIdx.x;
// CHECK: long long v[[T:[0-9]+]] = threadIdx.x;
// CHECK: bool v[[OK:[0-9]+]] = (unsigned long long)v[[I:[0-9]+]] < (unsigned long long)v{{[0-9]+}};
// CHECK-NEXT: float v[[X:[0-9]+]] = v[[OK]] ? a0[v[[I]]] : strata_zero<float>();
// CHECK-NEXT: float v[[Y:[0-9]+]] = expf(v[[X]]);
// CHECK-NEXT: if (v[[OK]]) a1[v[[I]]] = v[[Y]];
// CHECK-NEXT: long long v[[LAST:[0-9]+]] = ((unsigned long long)v[[I]] < (unsigned long long)v{{[0-9]+}}) ? v[[I]] : v{{[0-9]+}};
// CHECK-NEXT: float v[[Z:[0-9]+]] = a0[v[[LAST]]];
// CHECK-NEXT: bool v[[NAN:[0-9]+]] = (v[[Z]] != v[[Z]] || v[[Z]] != v[[Z]]);
// CHECK-NEXT: float v[[M:[0-9]+]] = strata_maximumf(v[[Z]], v[[Y]]);
// CHECK-NEXT: float v[[S:[0-9]+]] = v[[NAN]] ? v[[Z]] : v[[M]];
// CHECK-NEXT: a1[v[[LAST]]] = v[[S]];
// CHECK-NEXT: return;
kernelir.func @exp_kernel(%in: memref<1000xf32>, %out: memref<1000xf32> {kernelir.noalias}) attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 8, 1, 1>, min_blocks_per_sm = 2} {
  %c128 = arith.constant 128 : index
  %c1000 = arith.constant 1000 : index
  %c999 = arith.constant 999 : index
  %b = kernelir.block_id x
  %t = kernelir.thread_id x
  %base = arith.muli %b, %c128 : index
  %i = arith.addi %base, %t : index
  %ok = arith.cmpi ult, %i, %c1000 : index
  %x = kernelir.load %in[%i] if %ok : memref<1000xf32>
  %y = math.exp %x : f32
  kernelir.store %y, %out[%i] if %ok : memref<1000xf32>
  %last = arith.minui %i, %c999 : index
  %z = kernelir.load %in[%last] : memref<1000xf32>
  %nan = arith.cmpf uno, %z, %z : f32
  %m = arith.maximumf %z, %y : f32
  %s = arith.select %nan, %z, %m : f32
  kernelir.store %s, %out[%last] : memref<1000xf32>
  kernelir.return
}

// Unsigned division, remainder and shift: of the operands read as
// unsigned (C's `/`, `%` and `>>` on the signed `long long` an index is
// declared would round or fill a negative bit pattern otherwise); signed
// ones as they are.
// CHECK-LABEL: unsigned_ops(long long *a0) {
// CHECK: long long v{{[0-9]+}} = (unsigned long long)v[[X:[0-9]+]] / (unsigned long long)v[[D:[0-9]+]];
// CHECK-NEXT: long long v{{[0-9]+}} = (unsigned long long)v[[X]] % (unsigned long long)v[[D]];
// CHECK-NEXT: long long v{{[0-9]+}} = (unsigned long long)v[[X]] >> (unsigned long long)v[[D]];
// CHECK-NEXT: long long v{{[0-9]+}} = v[[X]] / v[[D]];
// CHECK-NEXT: long long v{{[0-9]+}} = v[[X]] % v[[D]];
kernelir.func @unsigned_ops(%out: memref<8xi64>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c3 = arith.constant 3 : i64
  %t = kernelir.thread_id x
  %ti = arith.index_cast %t : index to i64
  %x = arith.subi %ti, %c3 : i64
  %q = arith.divui %x, %c3 : i64
  %r = arith.remui %x, %c3 : i64
  %s = arith.shrui %x, %c3 : i64
  %p = arith.divsi %x, %c3 : i64
  %m = arith.remsi %x, %c3 : i64
  %sum = arith.addi %q, %r : i64
  %sum2 = arith.addi %sum, %s : i64
  %sum3 = arith.addi %sum2, %p : i64
  %sum4 = arith.addi %sum3, %m : i64
  kernelir.store %sum4, %out[%t] : memref<8xi64>
  kernelir.return
}

// A block's row sum: a loop whose carried value lives in a variable the
// yield assigns, a butterfly shuffle, static shared memory, a barrier and a
// branch with a result.
// CHECK-LABEL: row_sum(float *a0, float *a1) {
// CHECK-NEXT: __shared__ __align__(16) float v[[P:[0-9]+]][2];
// CHECK: float v[[ACC:[0-9]+]] = v[[ZERO:[0-9]+]];
// CHECK-NEXT: for (long long a{{[0-9]+}} = v{{[0-9]+}}; a{{[0-9]+}} < v{{[0-9]+}}; a{{[0-9]+}} += v{{[0-9]+}}) {
// CHECK-NEXT: float v[[X:[0-9]+]] = a0[v{{[0-9]+}} * 64LL + v{{[0-9]+}}];
// CHECK-NEXT: float v[[SUM:[0-9]+]] = v[[ACC]] + v[[X]];
// CHECK-NEXT: v[[ACC]] = v[[SUM]];
// CHECK-NEXT: }
// CHECK-NEXT: float v{{[0-9]+}} = __shfl_xor_sync(0xffffffffu, v[[ACC]], v{{[0-9]+}});
// CHECK: long long v{{[0-9]+}} = (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % 32;
// CHECK-NEXT: long long v[[WARP:[0-9]+]] = (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) / 32;
// CHECK: if (v{{[0-9]+}}) v[[P]][v[[WARP]]] = v{{[0-9]+}};
// CHECK-NEXT: __syncthreads();
// CHECK: float v[[TOTAL:[0-9]+]];
// CHECK-NEXT: if (v{{[0-9]+}}) {
// CHECK: v[[TOTAL]] = v{{[0-9]+}};
// CHECK-NEXT: } else {
// CHECK-NEXT: v[[TOTAL]] = v[[ZERO]];
// CHECK-NEXT: }
kernelir.func @row_sum(%in: memref<4x64xf32>, %out: memref<4xf32>) attributes {block = array<i64: 64, 1, 1>, grid = array<i64: 4, 1, 1>} {
  %partials = kernelir.shared : memref<2xf32, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c16_i32 = arith.constant 16 : i32
  %zero = arith.constant 0.0 : f32
  %row = kernelir.block_id x
  %t = kernelir.thread_id x
  %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%a = %zero) -> (f32) {
    %x = kernelir.load %in[%row, %t] : memref<4x64xf32>
    %y = arith.addf %a, %x : f32
    scf.yield %y : f32
  }
  %p = kernelir.shuffle xor %acc, %c16_i32 : f32
  %q = arith.addf %acc, %p : f32
  %lane = kernelir.lane_id
  %warp = kernelir.warp_id
  %leader = arith.cmpi eq, %lane, %c0 : index
  kernelir.store %q, %partials[%warp] if %leader : memref<2xf32, #gpu.address_space<workgroup>>
  kernelir.barrier
  %first = arith.cmpi eq, %t, %c0 : index
  %total = scf.if %first -> (f32) {
    %u = kernelir.load %partials[%c0] : memref<2xf32, #gpu.address_space<workgroup>>
    %v = kernelir.load %partials[%c1] : memref<2xf32, #gpu.address_space<workgroup>>
    %w = arith.addf %u, %v : f32
    scf.yield %w : f32
  } else {
    scf.yield %zero : f32
  }
  kernelir.store %total, %out[%row] if %first : memref<4xf32>
  kernelir.return
}

// Vector accesses reinterpret the buffer at the first element; a vector's
// elements are its `.v` array.
// CHECK-LABEL: vectors(float *a0, float *a1, __half *a2) {
// CHECK: strata_vec<float, 4> v[[V:[0-9]+]] = v{{[0-9]+}} ? *reinterpret_cast<strata_vec<float, 4> *>(&a0[v{{[0-9]+}} * 20LL + v{{[0-9]+}}]) : strata_zero<strata_vec<float, 4>>();
// CHECK-NEXT: float v[[E0:[0-9]+]] = v[[V]].v[0];
// CHECK: float v[[E3:[0-9]+]] = v[[V]].v[3];
// CHECK-NEXT: float v[[S:[0-9]+]] = v[[E0]] + v[[E3]];
// CHECK-NEXT: strata_vec<float, 4> v[[W:[0-9]+]] = v[[V]];
// CHECK-NEXT: v[[W]].v[1] = v[[S]];
// CHECK-NEXT: *reinterpret_cast<strata_vec<float, 4> *>(&a1[v{{[0-9]+}} * 20LL + v{{[0-9]+}}]) = v[[W]];
// CHECK-NEXT: strata_vec<__half, 8> v{{[0-9]+}} = *reinterpret_cast<strata_vec<__half, 8> *>(&a2[v{{[0-9]+}}]);
kernelir.func @vectors(%a: memref<333x20xf32>, %b: memref<333x20xf32>, %h: memref<64xf16>) attributes {block = array<i64: 5, 1, 1>, grid = array<i64: 333, 1, 1>} {
  %c4 = arith.constant 4 : index
  %row = kernelir.block_id x
  %t = kernelir.thread_id x
  %col = arith.muli %t, %c4 : index
  %ok = arith.cmpi ult, %t, %c4 : index
  %v = kernelir.load %a[%row, %col] if %ok : memref<333x20xf32> -> vector<4xf32>
  %e:4 = vector.to_elements %v : vector<4xf32>
  %s = arith.addf %e#0, %e#3 : f32
  %w = vector.insert %s, %v [1] : f32 into vector<4xf32>
  kernelir.store %w, %b[%row, %col] : memref<333x20xf32> -> vector<4xf32>
  %x = kernelir.load %h[%col] : memref<64xf16> -> vector<8xf16>
  kernelir.store %x, %h[%col] if %ok : memref<64xf16> -> vector<8xf16>
  kernelir.return
}

// Tensor cores: ldmatrix (x4, and x2 transposed) from shared memory, an
// f16 mma.sync m16n8k16 on the fragments (two halves per register) and a
// tf32 m16n8k8 (each f32 rounded), the accumulator's registers in order.
// CHECK-LABEL: mma(float *a0) {
// CHECK: __shared__ __align__(16) __half v[[CHUNK:[0-9]+]][1536];
// CHECK: asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
// CHECK: asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
// CHECK: strata_vec<float, 4> v[[C:[0-9]+]] = strata_splat<strata_vec<float, 4>>(0);
// CHECK: asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
// CHECK-NEXT: : "=f"(v[[D:[0-9]+]].v[0]), "=f"(v[[D]].v[1]), "=f"(v[[D]].v[2]), "=f"(v[[D]].v[3])
// CHECK-NEXT: : "r"(strata_pack(&v[[A:[0-9]+]].v[0])), "r"(strata_pack(&v[[A]].v[2])), "r"(strata_pack(&v[[A]].v[4])), "r"(strata_pack(&v[[A]].v[6])), "r"(strata_pack(&v[[B:[0-9]+]].v[0])), "r"(strata_pack(&v[[B]].v[2])), "f"(v[[C]].v[0]), "f"(v[[C]].v[1]), "f"(v[[C]].v[2]), "f"(v[[C]].v[3]));
// CHECK: asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK: "r"(strata_tf32(v{{[0-9]+}}.v[0]))
// CHECK: float v{{[0-9]+}} = v{{[0-9]+}}.v[2];
kernelir.func @mma(%out: memref<64xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %chunk = kernelir.shared : memref<64x24xf16, #gpu.address_space<workgroup>>
  %fa = kernelir.ldmatrix %chunk[%c0, %c8] : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
  %fb = kernelir.ldmatrix %chunk[%c8, %c0] transpose : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
  %c = arith.constant dense<0.0> : vector<2x2xf32>
  %d = kernelir.mma %fa, %fb, %c : vector<4x2xf16>, vector<2x2xf16> -> vector<2x2xf32>
  %at = arith.constant dense<1.0> : vector<4x1xf32>
  %bt = arith.constant dense<2.0> : vector<2x1xf32>
  %g = kernelir.mma %at, %bt, %d : vector<4x1xf32>, vector<2x1xf32> -> vector<2x2xf32>
  %x = vector.extract %g[1, 0] : f32 from vector<2x2xf32>
  %t = kernelir.thread_id x
  kernelir.store %x, %out[%t] : memref<64xf32>
  kernelir.return
}

// cp.async of 16 bytes (.cg); a false guard copies 0 bytes from the
// buffer's start, zero-filling the destination.
// CHECK-LABEL: async_copies(float *a0) {
// CHECK: asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"
// CHECK-NEXT: :: "r"((unsigned)__cvta_generic_to_shared(&v{{[0-9]+}}[v{{[0-9]+}} * 512LL + v{{[0-9]+}} * 16LL + v{{[0-9]+}}])), "l"(v[[OK:[0-9]+]] ? &a0[v{{[0-9]+}} * 64LL + v{{[0-9]+}}] : a0), "r"(v[[OK]] ? 16 : 0) : "memory");
// CHECK-NEXT: asm volatile("cp.async.commit_group;" ::: "memory");
// CHECK-NEXT: asm volatile("cp.async.wait_group %0;" :: "n"(0) : "memory");
kernelir.func @async_copies(%a: memref<100x64xf32>) attributes {block = array<i64: 64, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<2x32x16xf32, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %t = kernelir.thread_id x
  %col = arith.muli %t, %c4 : index
  %ok = arith.cmpi ult, %t, %c4 : index
  kernelir.async_copy %a[%t, %col], %s[%c0, %t, %col] elements 4 if %ok : memref<100x64xf32>, memref<2x32x16xf32, #gpu.address_space<workgroup>>
  kernelir.async_commit
  kernelir.async_wait pending 0
  kernelir.return
}


// A masked load of a type named in several words reads a value-initialized
// zero through the prelude's helper (`long long{}` is no C++ expression).
// CHECK-LABEL: masked_index_kernel(long long *a0, float *a1) {
// CHECK: long long v[[N:[0-9]+]] = v{{[0-9]+}} ? a0[v{{[0-9]+}}] : strata_zero<long long>();
kernelir.func @masked_index_kernel(%idx: memref<100xi64>, %out: memref<100xf32>) attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c100 = arith.constant 100 : index
  %t = kernelir.thread_id x
  %ok = arith.cmpi ult, %t, %c100 : index
  %n = kernelir.load %idx[%t] if %ok : memref<100xi64>
  %f = arith.sitofp %n : i64 to f32
  kernelir.store %f, %out[%t] if %ok : memref<100xf32>
  kernelir.return
}
