// tileir-k-tile: the one decision is each contraction's k step.
// RUN: strata-opt %s --tileir-k-tile | FileCheck %s
// RUN: strata-opt %s '--tileir-k-tile=k-tile=8' | FileCheck %s --check-prefix=EIGHT
// RUN: not strata-opt %s '--tileir-k-tile=k-tile=-1' 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: strata-opt %s '--tileir-k-tile=tf32=true' | FileCheck %s --check-prefix=TF32
// RUN: strata-opt %s '--tileir-k-tile=tensor-cores=false' | FileCheck %s --check-prefix=NOTC

// CHECK-LABEL: func.func @matmul
// CHECK: tileir.contract [%{{.*}}, %{{.*}}] k 65 step 16 : <32x32xf32>
// EIGHT: tileir.contract [%{{.*}}, %{{.*}}] k 65 step 8 : <32x32xf32>
// NEGATIVE: error: tileir-k-tile: k-tile must be positive (or 0: chosen per contraction), got -1
func.func @matmul(%a: tensor<17x65xf32>, %b: tensor<65x19xf32>) -> tensor<17x19xf32> {
  %r = tileir.kernel ins(%a, %b : tensor<17x65xf32>, tensor<65x19xf32>) -> tensor<17x19xf32> domain [17, 19] tile [32, 32] threads 256 {
  ^bb0(%ab: memref<17x65xf32>, %bb: memref<65x19xf32>, %out: memref<17x19xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %c = tileir.contract [%o0, %o1] k 65 step 1 : !tileir.tile<32x32xf32> lhs {
    ^bb0(%i: index, %k: index):
      %x = loopir.load %ab[%i, %k] : memref<17x65xf32>
      tileir.yield %x : f32
    } rhs {
    ^bb0(%j: index, %k: index):
      %w = loopir.load %bb[%k, %j] : memref<65x19xf32>
      tileir.yield %w : f32
    }
    tileir.store %c, %out[%o0, %o1] : !tileir.tile<32x32xf32>, memref<17x19xf32>
  }
  return %r : tensor<17x19xf32>
}

// Halves on tensor cores in a 128 x 128 tile: steps of 64 (tileir-pipeline
// keeps three steps' chunks, 108 KiB of dynamic shared memory); k-tile=8
// still forces 8, and without tensor cores the step is 16.
// CHECK-LABEL: func.func @half_large_tile
// CHECK: tileir.contract [%{{.*}}, %{{.*}}] k 300 step 64 : <128x128xf32>
// EIGHT-LABEL: func.func @half_large_tile
// EIGHT: tileir.contract [%{{.*}}, %{{.*}}] k 300 step 8 : <128x128xf32>
// NOTC-LABEL: func.func @half_large_tile
// NOTC: tileir.contract [%{{.*}}, %{{.*}}] k 300 step 16 : <128x128xf32>
func.func @half_large_tile(%a: tensor<1536x300xf16>, %b: tensor<300x1536xf16>) -> tensor<1536x1536xf32> {
  %r = tileir.kernel ins(%a, %b : tensor<1536x300xf16>, tensor<300x1536xf16>) -> tensor<1536x1536xf32> domain [1536, 1536] tile [128, 128] threads 256 {
  ^bb0(%ab: memref<1536x300xf16>, %bb: memref<300x1536xf16>, %out: memref<1536x1536xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %c = tileir.contract [%o0, %o1] k 300 step 1 : !tileir.tile<128x128xf32> lhs {
    ^bb0(%i: index, %k: index):
      %x = loopir.load %ab[%i, %k] : memref<1536x300xf16>
      %w = arith.extf %x : f16 to f32
      tileir.yield %w : f32
    } rhs {
    ^bb0(%j: index, %k: index):
      %y = loopir.load %bb[%k, %j] : memref<300x1536xf16>
      %w = arith.extf %y : f16 to f32
      tileir.yield %w : f32
    }
    tileir.store %c, %out[%o0, %o1] : !tileir.tile<128x128xf32>, memref<1536x1536xf32>
  }
  return %r : tensor<1536x1536xf32>
}

// f32 operands in the same tile: steps of 16 on FMAs, 32 as tf32 (where
// tileir-pipeline keeps two stages in dynamic shared memory).
// CHECK-LABEL: func.func @float_large_tile
// CHECK: tileir.contract [%{{.*}}, %{{.*}}] k 300 step 16 : <128x128xf32>
// TF32-LABEL: func.func @float_large_tile
// TF32: tileir.contract [%{{.*}}, %{{.*}}] k 300 step 32 : <128x128xf32>
func.func @float_large_tile(%a: tensor<1536x300xf32>, %b: tensor<300x1536xf32>) -> tensor<1536x1536xf32> {
  %r = tileir.kernel ins(%a, %b : tensor<1536x300xf32>, tensor<300x1536xf32>) -> tensor<1536x1536xf32> domain [1536, 1536] tile [128, 128] threads 256 {
  ^bb0(%ab: memref<1536x300xf32>, %bb: memref<300x1536xf32>, %out: memref<1536x1536xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %c = tileir.contract [%o0, %o1] k 300 step 1 : !tileir.tile<128x128xf32> lhs {
    ^bb0(%i: index, %k: index):
      %x = loopir.load %ab[%i, %k] : memref<1536x300xf32>
      tileir.yield %x : f32
    } rhs {
    ^bb0(%j: index, %k: index):
      %y = loopir.load %bb[%k, %j] : memref<300x1536xf32>
      tileir.yield %y : f32
    }
    tileir.store %c, %out[%o0, %o1] : !tileir.tile<128x128xf32>, memref<1536x1536xf32>
  }
  return %r : tensor<1536x1536xf32>
}
