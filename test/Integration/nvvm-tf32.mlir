// f32 contractions multiply with fused multiply-adds unless tf32 is asked
// for; then on tensor cores: each operand rounded with cvt.rna.tf32.f32,
// mma.sync m16n8k8 with f32 accumulators; both operands copied with 16-byte
// cp.async (rows of 64 and 72 floats); A's fragments loaded with ldmatrix
// (its 8 x 8 matrices of halves are 8 x 4 of floats, A's tf32 layout), B's
// one float per register (ldmatrix cannot transpose 32-bit elements).
// RUN: strata-opt %s '--strata-lower-to-nvvm=tf32=true' | FileCheck %s
// RUN: strata-opt %s --strata-lower-to-nvvm | FileCheck %s --check-prefix=FMA
// RUN: strata-opt %s '--strata-lower-to-kernel=tf32=true' | FileCheck %s --check-prefix=KERNEL

// CHECK: gpu.binary @strata_kernels
// CHECK-SAME: cp.async.cg.shared.global
// CHECK-SAME: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-SAME: cvt.rna.tf32.f32
// CHECK-SAME: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// FMA: gpu.binary @strata_kernels
// FMA-NOT: mma.sync
// FMA-SAME: fma.rn.f32
// The chunks' rows are padded against bank conflicts of the fragment
// loads: A's 16 floats to 20 (lanes 4g + c read word c of row g: a stride
// of 4 mod 8 words), B's 64 to 72 (lanes 4n + k read word n of row k: 8
// mod 16).
// KERNEL-DAG: kernelir.shared : memref<2x64x20xf32, #gpu.address_space<workgroup>>
// KERNEL-DAG: kernelir.shared : memref<2x16x72xf32, #gpu.address_space<workgroup>>
// KERNEL: %[[A:.*]] = kernelir.ldmatrix %{{.*}} : memref<2x64x20xf32, #gpu.address_space<workgroup>> -> vector<4x1xf32>
// KERNEL: kernelir.load %{{.*}} : memref<2x16x72xf32, #gpu.address_space<workgroup>>
// KERNEL: %[[B:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2x1xf32>
// KERNEL: kernelir.mma %[[A]], %[[B]], %{{.*}} : vector<4x1xf32>, vector<2x1xf32> -> vector<2x2xf32>

func.func @forward(%a: tensor<100x64xf32>, %b: tensor<64x72xf32>) -> tensor<100x72xf32> {
  %r = tensorir.matmul %a, %b : (tensor<100x64xf32>, tensor<64x72xf32>) -> tensor<100x72xf32>
  return %r : tensor<100x72xf32>
}
