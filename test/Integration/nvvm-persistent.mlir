// A persistent kernel on sm_90a (tileir-persist, persistent-sms=132):
// 4096 x 4096 halves in 128 x 128 tiles (1024 of them, in bands of 8
// rows) by wgmma fed by TMA. Two such blocks share an SM (three stages
// of chunks, 98 KiB; 128 registers), so one wave is 264 blocks, each
// looping over its tiles: the TMA ring's mbarriers initialized before
// the loop, once. (ptxas assembles it within the two-blocks budget
// without spills, as it does the kernel of one block per tile:
// test_cli.py.) 264 is the estimate: the kernel strides over its tiles
// by the blocks launched (gridDim.x: PTX's %nctaid.x, no known grid size
// to fold it), and its launch says so (strata.wave_tiles), so that the
// runtime launches the exact wave.
// RUN: strata-opt %s '--strata-lower-to-kernel=wgmma=true tma=true persistent-sms=132' | FileCheck %s --check-prefix=KERNEL
// RUN: strata-opt %s '--strata-lower-to-nvvm=chip=sm_90a wgmma=true tma=true persistent-sms=132' | FileCheck %s
// RUN: strata-opt %s '--strata-lower-to-kernel=wgmma=true tma=true persistent-sms=132' | strata-translate --kernelir-to-cuda | FileCheck %s --check-prefix=CUDA

// KERNEL: kernelir.func @forward_kernel({{.*}}) attributes {block = array<i64: 256, 1, 1>, grid = array<i64: 264, 1, 1>, min_blocks_per_sm = 2 : i64, wave_tiles = 1024 : i64}
// KERNEL: %[[B:.*]] = kernelir.block_id x
// KERNEL: %[[G:.*]] = kernelir.grid_dim x
// KERNEL: kernelir.mbarrier_init
// KERNEL: kernelir.barrier
// KERNEL: scf.for %{{.*}} = %[[B]] to %c1024 step %[[G]]
// KERNEL-NOT: kernelir.mbarrier_init
// KERNEL: kernelir.tma_load
// KERNEL: kernelir.wgmma
// KERNEL-NOT: kernelir.mbarrier_init

// CUDA: long long [[G:v[0-9]+]] = gridDim.x;
// CUDA: for (long long {{a[0-9]+}} = {{v[0-9]+}}; {{a[0-9]+}} < {{v[0-9]+}}; {{a[0-9]+}} += [[G]]) {

// CHECK: gpu.launch_func @strata_kernels::@forward_kernel blocks in (%c264, %c1, %c1)
// CHECK-SAME: strata.wave_tiles = 1024
// CHECK: gpu.binary @strata_kernels
// CHECK-SAME: .minnctapersm 2
// CHECK-SAME: %nctaid.x
// CHECK-SAME: cp.async.bulk.tensor.2d
// CHECK-SAME: wgmma.mma_async

func.func @forward(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %m = tensorir.matmul %a, %b : (tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  return %m : tensor<4096x4096xf16>
}
