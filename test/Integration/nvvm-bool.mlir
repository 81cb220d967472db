// Bool buffers hold a byte per element (PyTorch's layout). The elementwise
// schedule gives a thread runs of 4 f32 reads (ld.global.v4), and the bools
// it computes from them are stored as 4 bytes, one per element, not as one
// bit-packed byte (LLVM's layout of a vector of i1); bools read as input
// are 4 byte loads likewise.
// RUN: strata-opt %s --strata-lower-to-nvvm | FileCheck %s

// CHECK: gpu.binary @strata_kernels
// CHECK-SAME: .entry positive_kernel
// CHECK-SAME: ld.global.nc.v4.b32
// CHECK-SAME: st.global.b8 \09[%rd{{[0-9]+}}], %rs
// CHECK-SAME: st.global.b8 \09[%rd{{[0-9]+}}+1], %rs
// CHECK-SAME: st.global.b8 \09[%rd{{[0-9]+}}+2], %rs
// CHECK-SAME: st.global.b8 \09[%rd{{[0-9]+}}+3], %rs
// CHECK-NOT: st.global
// CHECK-SAME: .entry select_kernel
// CHECK-SAME: ld.global.nc.b8 \09%rs{{[0-9]+}}, [%rd{{[0-9]+}}];
// CHECK-SAME: ld.global.nc.b8 \09%rs{{[0-9]+}}, [%rd{{[0-9]+}}+1];
// CHECK-SAME: ld.global.nc.b8 \09%rs{{[0-9]+}}, [%rd{{[0-9]+}}+2];
// CHECK-SAME: ld.global.nc.b8 \09%rs{{[0-9]+}}, [%rd{{[0-9]+}}+3];
// CHECK-SAME: ld.global.nc.v4.b32
// CHECK-SAME: st.global.v4.b32

func.func @positive(%x: tensor<4096xf32>) -> tensor<4096xi1> {
  %zero = tensorir.constant dense<0.0> : tensor<4096xf32>
  %r = tensorir.cmp gt, %x, %zero : tensor<4096xf32>
  return %r : tensor<4096xi1>
}

func.func @select(%c: tensor<4096xi1>, %x: tensor<4096xf32>) -> tensor<4096xf32> {
  %zero = tensorir.constant dense<0.0> : tensor<4096xf32>
  %r = tensorir.select %c, %x, %zero : tensor<4096xf32>
  return %r : tensor<4096xf32>
}
