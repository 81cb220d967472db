// tileir-persist: the one decision is how many program instances a
// contraction kernel launches (instances), each looping over its tiles.
// RUN: strata-opt %s -split-input-file --tileir-persist | FileCheck %s --check-prefix=OFF
// RUN: strata-opt %s -split-input-file '--tileir-persist=sms=132' | FileCheck %s --check-prefix=SMS132
// RUN: strata-opt %s -split-input-file '--tileir-persist=sms=100' | FileCheck %s --check-prefix=SMS100
// RUN: strata-opt %s -split-input-file '--tileir-persist=instances=300' | FileCheck %s --check-prefix=FORCED
// RUN: not strata-opt %s -split-input-file '--tileir-persist=sms=-1' 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// 2048 x 2048 in 128 x 128 tiles of 256 threads: 256 tiles. Four stages
// of 128 x 32 and 32 x 128 floats take over 128 KiB of shared memory, so
// one block fits an SM: a wave of 132 multiprocessors is 132 instances,
// an estimate (`wave`: the launch takes the exact wave). Off unless asked;
// forced to 300, more than the tiles: one per tile.
// OFF-LABEL: func.func @deep_pipeline
// OFF: domain [2048, 2048] tile [128, 128] threads 256 {
// SMS132-LABEL: func.func @deep_pipeline
// SMS132: domain [2048, 2048] tile [128, 128] threads 256 instances 132 wave {
// SMS100-LABEL: func.func @deep_pipeline
// SMS100: domain [2048, 2048] tile [128, 128] threads 256 instances 100 wave {
// FORCED-LABEL: func.func @deep_pipeline
// FORCED: domain [2048, 2048] tile [128, 128] threads 256 {
// NEGATIVE: error: tileir-persist: sms and instances must not be negative, got sms=-1 instances=0
func.func @deep_pipeline(%a: tensor<2048x1024xf32>, %b: tensor<1024x2048xf32>) -> tensor<2048x2048xf32> {
  %r = tileir.kernel ins(%a, %b : tensor<2048x1024xf32>, tensor<1024x2048xf32>) -> tensor<2048x2048xf32> domain [2048, 2048] tile [128, 128] threads 256 {
  ^bb0(%ab: memref<2048x1024xf32>, %bb: memref<1024x2048xf32>, %out: memref<2048x2048xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %c = tileir.contract [%o0, %o1] k 1024 step 32 stages 4 : !tileir.tile<128x128xf32> lhs {
    ^bb0(%i: index, %k: index):
      %x = loopir.load %ab[%i, %k] : memref<2048x1024xf32>
      tileir.yield %x : f32
    } rhs {
    ^bb0(%j: index, %k: index):
      %w = loopir.load %bb[%k, %j] : memref<1024x2048xf32>
      tileir.yield %w : f32
    }
    tileir.store %c, %out[%o0, %o1] : !tileir.tile<128x128xf32>, memref<2048x2048xf32>
  }
  return %r : tensor<2048x2048xf32>
}

// -----

// The same output in 64 x 64 tiles without stages: 1024 tiles, and eight
// blocks of 256 threads fit an SM (its 2048 threads). 132 SMs hold all
// 1024 at once (one per tile); 100 hold 800, which then loop (a wave);
// forced, 300 loop, and a launch takes 300 (no wave).
// SMS132-LABEL: func.func @small_tiles
// SMS132: domain [2048, 2048] tile [64, 64] threads 256 {
// SMS100-LABEL: func.func @small_tiles
// SMS100: domain [2048, 2048] tile [64, 64] threads 256 instances 800 wave {
// FORCED-LABEL: func.func @small_tiles
// FORCED: domain [2048, 2048] tile [64, 64] threads 256 instances 300 {
func.func @small_tiles(%a: tensor<2048x256xf32>, %b: tensor<256x2048xf32>) -> tensor<2048x2048xf32> {
  %r = tileir.kernel ins(%a, %b : tensor<2048x256xf32>, tensor<256x2048xf32>) -> tensor<2048x2048xf32> domain [2048, 2048] tile [64, 64] threads 256 {
  ^bb0(%ab: memref<2048x256xf32>, %bb: memref<256x2048xf32>, %out: memref<2048x2048xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %c = tileir.contract [%o0, %o1] k 256 step 16 : !tileir.tile<64x64xf32> lhs {
    ^bb0(%i: index, %k: index):
      %x = loopir.load %ab[%i, %k] : memref<2048x256xf32>
      tileir.yield %x : f32
    } rhs {
    ^bb0(%j: index, %k: index):
      %w = loopir.load %bb[%k, %j] : memref<256x2048xf32>
      tileir.yield %w : f32
    }
    tileir.store %c, %out[%o0, %o1] : !tileir.tile<64x64xf32>, memref<2048x2048xf32>
  }
  return %r : tensor<2048x2048xf32>
}

// -----

// Elementwise kernels take one tile per instance, however large the grid.
// FORCED-LABEL: func.func @elementwise
// FORCED: domain [4096, 4096] tile [4, 64] threads 128 {
func.func @elementwise(%a: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %r = tileir.kernel ins(%a : tensor<4096x4096xf32>) -> tensor<4096x4096xf32> domain [4096, 4096] tile [4, 64] threads 128 {
  ^bb0(%in: memref<4096x4096xf32>, %out: memref<4096x4096xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %x = tileir.load %in[%o0, %o1] : memref<4096x4096xf32> -> !tileir.tile<4x64xf32>
    tileir.store %x, %out[%o0, %o1] : !tileir.tile<4x64xf32>, memref<4096x4096xf32>
  }
  return %r : tensor<4096x4096xf32>
}
