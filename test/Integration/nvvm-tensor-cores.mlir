// A half-precision matmul (512x384 @ 384x256) is one kernel whose warps
// multiply on tensor cores: mma.sync m16n8k16 with f16 operands and f32
// accumulators, the chunks staged in shared memory as f16 (fragments
// loaded with ldmatrix), rounded to f16 once at the end. Without
// tensor cores (tensor-cores=false) the same kernel uses fused
// multiply-adds.
// RUN: strata-opt %s --strata-lower-to-nvvm | FileCheck %s
// RUN: strata-opt %s --strata-lower-to-kernel | FileCheck %s --check-prefix=KERNEL
// RUN: strata-opt %s '--strata-lower-to-kernel=tensor-cores=false' | FileCheck %s --check-prefix=FMA

// CHECK: gpu.binary @strata_kernels
// CHECK-SAME: .entry forward_kernel
// CHECK-NOT: .entry
// CHECK-SAME: .shared .align 16 .b8
// A's rows and B's (8 halves, 16 bytes) are copied asynchronously,
// double-buffered; B's fragments, stored k x n, load with ldmatrix .trans.
// CHECK-SAME: cp.async.cg.shared.global
// CHECK-SAME: cp.async.cg.shared.global
// CHECK-SAME: cp.async.commit_group
// CHECK-SAME: cp.async.wait_group
// CHECK-SAME: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-SAME: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// Each lane's accumulator pairs (neighbouring columns) are rounded and
// stored together: one 32-bit store of two halves.
// CHECK-SAME: cvt.rn.f16x2.f32
// CHECK-SAME: st.global.b32
// bf16 takes the same path, through nvvm.mma.sync (nvgpu has no bf16).
// CHECK-SAME: .entry forward_bf16_kernel
// CHECK-SAME: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-SAME: .entry forward_linear_kernel
// CHECK-SAME: cp.async.cg.shared.global
// CHECK-SAME: cp.async.cg.shared.global
// CHECK-SAME: ldmatrix.sync.aligned.m8n8.x2.shared.b16
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

// 8 warps of 2 x 2 tiles per 64 x 64 block tile: 4 mma per step of 16 k.
// KERNEL: kernelir.launch @forward_kernel
// KERNEL: kernelir.launch @forward_bf16_kernel
// KERNEL: kernelir.func @forward_kernel({{.*}}) attributes {block = array<i64: 256, 1, 1>, grid = array<i64: 32, 1, 1>}
// KERNEL-DAG: kernelir.shared : memref<2x64x24xf16, #gpu.address_space<workgroup>>
// KERNEL-DAG: kernelir.shared : memref<2x16x72xf16, #gpu.address_space<workgroup>>
// KERNEL-DAG: kernelir.async_copy {{.*}} elements 8{{.*}}: memref<512x384xf16>, memref<2x64x24xf16, #gpu.address_space<workgroup>>
// KERNEL-DAG: kernelir.async_copy {{.*}} elements 8{{.*}}: memref<384x256xf16>, memref<2x16x72xf16, #gpu.address_space<workgroup>>
// KERNEL: kernelir.ldmatrix {{.*}} transpose : memref<2x16x72xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// KERNEL-COUNT-4: kernelir.mma {{.*}} : vector<4x2xf16>, vector<2x2xf16> -> vector<2x2xf32>
// KERNEL: kernelir.func @forward_bf16_kernel
// KERNEL-COUNT-4: kernelir.mma {{.*}} : vector<4x2xbf16>, vector<2x2xbf16> -> vector<2x2xf32>
// KERNEL: kernelir.func @forward_linear_kernel
// KERNEL-DAG: kernelir.shared : memref<2x64x24xf16, #gpu.address_space<workgroup>>
// KERNEL-DAG: kernelir.async_copy {{.*}} elements 8{{.*}}: memref<256x384xf16>, memref<2x64x24xf16, #gpu.address_space<workgroup>>
// KERNEL-NOT: transpose
// KERNEL: kernelir.ldmatrix {{.*}} : memref<2x64x24xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>

// FMA-NOT: kernelir.mma
// FMA: math.fma

func.func @forward(%a: tensor<512x384xf16>, %b: tensor<384x256xf16>) -> tensor<512x256xf16> {
  %r = tensorir.matmul %a, %b : (tensor<512x384xf16>, tensor<384x256xf16>) -> tensor<512x256xf16>
  return %r : tensor<512x256xf16>
}

func.func @forward_bf16(%a: tensor<512x384xbf16>, %b: tensor<384x256xbf16>) -> tensor<512x256xbf16> {
  %r = tensorir.matmul %a, %b : (tensor<512x384xbf16>, tensor<384x256xbf16>) -> tensor<512x256xbf16>
  return %r : tensor<512x256xbf16>
}

// A weight stored n x k (`x @ w.t()`, as nn.Linear keeps it): its rows run
// along k, so B is staged n-major, copied asynchronously all the same, and
// loads with ldmatrix without .trans.
func.func @forward_linear(%x: tensor<512x384xf16>, %w: tensor<256x384xf16>) -> tensor<512x256xf16> {
  %t = tensorir.transpose %w perm [1, 0] : tensor<256x384xf16> -> tensor<384x256xf16>
  %r = tensorir.matmul %x, %t : (tensor<512x384xf16>, tensor<384x256xf16>) -> tensor<512x256xf16>
  return %r : tensor<512x256xf16>
}
