// Batched operands fed by TMA on sm_90a: attention's two products per
// head, q @ k.T (both K-major) and p @ v (v row-major, so MN-major), over
// 12 heads of 1000 rows. Each operand's tensor map is of its whole 3-d
// tensor; a box is one head's rows, [1, rows, S bytes] (the leading
// extent 1, the head coordinate the tile's), landing in the same 2-d
// chunk of the ring as an unbatched operand's box, and PTX copies it with
// the 3-d form of cp.async.bulk.tensor. A batch of rows times one matrix
// (x @ w, as nn.Linear multiplies activations) folds the batch into the
// rows: x's map sees its leading dimensions as one, a box of rank 2 over
// the 3-d buffer, copied in 2-d. ptxas assembles the kernels;
// rendered in CUDA, nvcc compiles them for sm_90a (the numbers:
// test_contraction.py, test_batched_half_matmul_fed_by_tma).
// RUN: strata-opt %s '--strata-lower-to-kernel=wgmma=true tma=true' | FileCheck %s --check-prefix=KERNEL
// RUN: strata-opt %s '--strata-lower-to-nvvm=chip=sm_90a wgmma=true tma=true' | FileCheck %s
// RUN: %if ptxas %{ strata-opt %s '--strata-lower-to-nvvm=chip=sm_90a wgmma=true tma=true format=bin' | FileCheck %s --check-prefix=BIN %}
// RUN: strata-opt %s '--strata-lower-to-kernel=wgmma=true tma=true' | strata-translate --kernelir-to-cuda | FileCheck %s --check-prefix=CUDA
// RUN: %if nvcc %{ strata-opt %s '--strata-lower-to-kernel=wgmma=true tma=true' | strata-translate --kernelir-to-cuda -o %t.cu && %nvcc -c -gencode arch=compute_90a,code=sm_90a %t.cu -o %t.o %}

// KERNEL-LABEL: kernelir.func @forward_kernel(
// KERNEL-SAME: memref<12x1000x64xf16> {kernelir.noalias, kernelir.tensor_map}
// KERNEL-SAME: memref<12x1000x64xf16> {kernelir.noalias, kernelir.tensor_map}
// KERNEL: kernelir.tma_load %{{.*}}[%[[HEAD:[0-9]+]], %{{.*}}, %{{.*}}], %{{.*}} box [1, {{[0-9]+}}, {{[0-9]+}}] swizzle
// KERNEL: kernelir.tma_load %{{.*}}[%[[HEAD]], %{{.*}}, %{{.*}}], %{{.*}} box [1, {{[0-9]+}}, {{[0-9]+}}] swizzle
// KERNEL: kernelir.wgmma
// KERNEL-NOT: rhs_mn_major
// KERNEL-LABEL: kernelir.func @forward_kernel_0(
// KERNEL-SAME: memref<12x1000x1000xf16> {kernelir.noalias, kernelir.tensor_map}
// KERNEL-SAME: memref<12x1000x64xf16> {kernelir.noalias, kernelir.tensor_map}
// KERNEL: kernelir.tma_load {{.*}} box [1, {{[0-9]+}}, {{[0-9]+}}] swizzle
// KERNEL: kernelir.tma_load {{.*}} box [1, {{[0-9]+}}, {{[0-9]+}}] swizzle
// KERNEL: kernelir.wgmma {{.*}} rhs_mn_major
// KERNEL-LABEL: kernelir.func @forward_kernel_1(
// KERNEL: kernelir.tma_load %{{.*}}[%{{[0-9]+}}, %{{.*}}], %{{.*}} box [{{[0-9]+}}, {{[0-9]+}}] swizzle {{.*}} : memref<12x1000x64xf16>

// CHECK: gpu.launch_func @strata_kernels::@forward_kernel {{.*}} {strata.tensor_maps = [{box = array<i64: 1, {{[0-9]+}}, {{[0-9]+}}>, param = 0 : i64, {{.*}}}, {box = array<i64: 1, {{[0-9]+}}, {{[0-9]+}}>, param = 1 : i64, {{.*}}}]}
// CHECK: gpu.launch_func @strata_kernels::@forward_kernel_1 {{.*}} {strata.tensor_maps = [{box = array<i64: {{[0-9]+}}, {{[0-9]+}}>, param = {{.*}}}, {box = array<i64: {{[0-9]+}}, {{[0-9]+}}>, param = {{.*}}}]}
// CHECK: gpu.binary @strata_kernels
// CHECK-SAME: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-SAME: wgmma.mma_async
// CUDA: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];
// BIN: gpu.binary @strata_kernels
// BIN-SAME: bin = "\7FELF

func.func @forward(%q: tensor<12x1000x64xf16>, %k: tensor<12x1000x64xf16>, %p: tensor<12x1000x1000xf16>, %v: tensor<12x1000x64xf16>, %x: tensor<12x1000x64xf16>, %w: tensor<64x256xf16>) -> (tensor<12x1000x1000xf16>, tensor<12x1000x64xf16>, tensor<12x1000x256xf16>) {
  %kt = tensorir.transpose %k perm [0, 2, 1] : tensor<12x1000x64xf16> -> tensor<12x64x1000xf16>
  %s = tensorir.matmul %q, %kt : (tensor<12x1000x64xf16>, tensor<12x64x1000xf16>) -> tensor<12x1000x1000xf16>
  %o = tensorir.matmul %p, %v : (tensor<12x1000x1000xf16>, tensor<12x1000x64xf16>) -> tensor<12x1000x64xf16>
  %rows = tensorir.reshape %x : tensor<12x1000x64xf16> -> tensor<12000x64xf16>
  %xw = tensorir.matmul %rows, %w : (tensor<12000x64xf16>, tensor<64x256xf16>) -> tensor<12000x256xf16>
  %y = tensorir.reshape %xw : tensor<12000x256xf16> -> tensor<12x1000x256xf16>
  return %s, %o, %y : tensor<12x1000x1000xf16>, tensor<12x1000x64xf16>, tensor<12x1000x256xf16>
}
