// A product with one output tile and a long k (37x3000 @ 3000x45, bias and
// relu after) is split into 10 slices of 300 k: a partial kernel of
// 10 program instances whose lhs rows, offset by the slice, are still
// 16-byte cp.async copies, and a kernel that adds the 10 partials and runs
// the epilogue. Both assemble for sm_90 without spills.
// REQUIRES: ptxas
// RUN: strata-opt %s '--strata-lower-to-nvvm=format=isa' | FileCheck %s
// RUN: strata ptx %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// CHECK: gpu.launch_func @strata_kernels::@forward_kernel blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in
// CHECK: gpu.launch_func @strata_kernels::@forward_kernel_0
// CHECK: gpu.binary @strata_kernels
// CHECK-SAME: .entry forward_kernel(
// CHECK-SAME: cp.async.cg.shared.global
// CHECK-SAME: .entry forward_kernel_0(
// CHECK-NOT: .entry
// CHECK-SAME: max.NaN.f32
// PTXAS-COUNT-2: 0 bytes spill stores, 0 bytes spill loads

func.func @forward(%a: tensor<37x3000xf32>, %b: tensor<3000x45xf32>, %bias: tensor<45xf32>) -> tensor<37x45xf32> {
  %m = tensorir.matmul %a, %b : (tensor<37x3000xf32>, tensor<3000x45xf32>) -> tensor<37x45xf32>
  %bb = tensorir.broadcast %bias dims [1] : tensor<45xf32> -> tensor<37x45xf32>
  %r = tensorir.add %m, %bb : tensor<37x45xf32>
  %z = tensorir.relu %r : tensor<37x45xf32>
  return %z : tensor<37x45xf32>
}
