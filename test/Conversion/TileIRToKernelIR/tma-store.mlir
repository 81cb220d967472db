// RUN: strata-opt %s '--convert-tileir-to-kernelir=wgmma=true tma=true tma-store=true' | FileCheck %s

// A contraction kernel with two results stored by TMA: the first staged
// over the lhs chunks (3 x 128 x 64 halves hold a 128 x 128 tile of
// halves), the second over the rhs chunks (a chunk with an overlay is no
// longer free); one barrier after the loop's last wait serves both, the
// epilogues' maps and stores after it.
// CHECK-LABEL: kernelir.func @forward_kernel
// CHECK: %[[LHS:.*]] = kernelir.shared : memref<3x1x128x64xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[S0:.*]] = kernelir.shared : memref<2x128x64xf16, #gpu.address_space<workgroup>> overlays %[[LHS]]
// CHECK-NEXT: %[[RHS:.*]] = kernelir.shared : memref<3x2x64x64xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[S1:.*]] = kernelir.shared : memref<2x128x64xf16, #gpu.address_space<workgroup>> overlays %[[RHS]]
// CHECK: scf.for
// CHECK: kernelir.wgmma_wait %{{.*}} pending 0
// CHECK-NEXT: kernelir.barrier
// CHECK-NOT: kernelir.barrier
// CHECK: kernelir.store %{{.*}}, %[[S0]]
// CHECK: kernelir.proxy_fence
// CHECK-NEXT: kernelir.barrier
// CHECK: kernelir.tma_store %[[S0]]
// CHECK: kernelir.bulk_wait pending 0 read
// CHECK-NOT: kernelir.barrier
// CHECK: kernelir.store %{{.*}}, %[[S1]]
// CHECK: kernelir.proxy_fence
// CHECK-NEXT: kernelir.barrier
// CHECK: kernelir.tma_store %[[S1]]
#map = affine_map<(d0, d1) -> (d1, d0)>
func.func @forward(%arg0: tensor<300x328xf16>, %arg1: tensor<328x264xf16>) -> (tensor<300x264xf16>, tensor<300x264xf16>) {
  %0:2 = tileir.kernel ins(%arg0, %arg1 : tensor<300x328xf16>, tensor<328x264xf16>) -> tensor<300x264xf16>, tensor<300x264xf16> domain [300, 264] tile [128, 128] threads 256 {
  ^bb0(%arg2: memref<300x328xf16>, %arg3: memref<328x264xf16>, %arg4: memref<300x264xf16>, %arg5: memref<300x264xf16>):
    %1 = tileir.tile_offset 0
    %2 = tileir.tile_offset 1
    %3 = tileir.contract [%1, %2] k 328 step 64 stages 3 : <128x128xf32> lhs {
    ^bb0(%i: index, %k: index):
      %5 = loopir.load %arg2[%i, %k] : memref<300x328xf16>
      %6 = arith.extf %5 : f16 to f32
      tileir.yield %6 : f32
    } rhs {
    ^bb0(%j: index, %k: index):
      %5 = loopir.load %arg3[%j, %k] map #map : memref<328x264xf16>
      %6 = arith.extf %5 : f16 to f32
      tileir.yield %6 : f32
    }
    %4 = tileir.map ins(%3 : !tileir.tile<128x128xf32>) -> !tileir.tile<128x128xf16> {
    ^bb0(%x: f32):
      %5 = arith.truncf %x : f32 to f16
      tileir.yield %5 : f16
    }
    %7 = tileir.map ins(%3 : !tileir.tile<128x128xf32>) -> !tileir.tile<128x128xf16> {
    ^bb0(%x: f32):
      %c2 = arith.constant 2.0 : f32
      %y = arith.mulf %x, %c2 : f32
      %5 = arith.truncf %y : f32 to f16
      tileir.yield %5 : f16
    }
    tileir.store %4, %arg4[%1, %2] : <128x128xf16>, memref<300x264xf16>
    tileir.store %7, %arg5[%1, %2] : <128x128xf16>, memref<300x264xf16>
  }
  return %0#0, %0#1 : tensor<300x264xf16>, tensor<300x264xf16>
}
