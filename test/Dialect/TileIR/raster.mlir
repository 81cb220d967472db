// tileir-raster: the one decision is the order in which a contraction
// kernel's program instances take their tiles (raster_group).
// RUN: strata-opt %s -split-input-file --tileir-raster | FileCheck %s
// RUN: strata-opt %s -split-input-file '--tileir-raster=group=3' | FileCheck %s --check-prefix=THREE
// RUN: strata-opt %s -split-input-file '--tileir-raster=group=1' | FileCheck %s --check-prefix=ROWS
// RUN: strata-opt %s -split-input-file '--tileir-raster=min-programs=2000' | FileCheck %s --check-prefix=ROWS
// RUN: not strata-opt %s -split-input-file '--tileir-raster=group=-2' 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// 2048 x 2048 in 64 x 64 tiles: 32 x 32 = 1024 instances, more than one
// wave (128), each row of them sweeping all of B (8192 x 2048 floats:
// 64 MiB, more than half the 50 MB L2): bands of 8 rows by default, of 3
// forced, row-major with group 1 or where 1024 tiles are not more than
// min-programs.
// CHECK-LABEL: func.func @large_grid
// CHECK: domain [2048, 2048] tile [64, 64] threads 256 raster_group 8 {
// THREE-LABEL: func.func @large_grid
// THREE: domain [2048, 2048] tile [64, 64] threads 256 raster_group 3 {
// ROWS-LABEL: func.func @large_grid
// ROWS: domain [2048, 2048] tile [64, 64] threads 256 {
// NEGATIVE: error: tileir-raster: group and min-programs must not be negative, got group=-2 min-programs=128
func.func @large_grid(%a: tensor<2048x8192xf32>, %b: tensor<8192x2048xf32>) -> tensor<2048x2048xf32> {
  %r = tileir.kernel ins(%a, %b : tensor<2048x8192xf32>, tensor<8192x2048xf32>) -> tensor<2048x2048xf32> domain [2048, 2048] tile [64, 64] threads 256 {
  ^bb0(%ab: memref<2048x8192xf32>, %bb: memref<8192x2048xf32>, %out: memref<2048x2048xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %c = tileir.contract [%o0, %o1] k 8192 step 16 : !tileir.tile<64x64xf32> lhs {
    ^bb0(%i: index, %k: index):
      %x = loopir.load %ab[%i, %k] : memref<2048x8192xf32>
      tileir.yield %x : f32
    } rhs {
    ^bb0(%j: index, %k: index):
      %w = loopir.load %bb[%k, %j] : memref<8192x2048xf32>
      tileir.yield %w : f32
    }
    tileir.store %c, %out[%o0, %o1] : !tileir.tile<64x64xf32>, memref<2048x2048xf32>
  }
  return %r : tensor<2048x2048xf32>
}

// -----

// The same grid over k = 256: B is 2 MiB, which L2 keeps while the rows
// of tiles sweep it; row-major unless forced.
// CHECK-LABEL: func.func @small_operands
// CHECK: domain [2048, 2048] tile [64, 64] threads 256 {
// THREE-LABEL: func.func @small_operands
// THREE: domain [2048, 2048] tile [64, 64] threads 256 raster_group 3 {
// ROWS-LABEL: func.func @small_operands
// ROWS: domain [2048, 2048] tile [64, 64] threads 256 {
func.func @small_operands(%a: tensor<2048x256xf32>, %b: tensor<256x2048xf32>) -> tensor<2048x2048xf32> {
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

// 4 x 4 tiles (16 instances, one wave) keep row-major unless forced; a
// leading batch dimension (here 40 batches: 640 instances) does not count
// toward the wave, since the order is that of each matrix's tiles.
// CHECK-LABEL: func.func @small_grid
// CHECK: domain [40, 256, 256] tile [1, 64, 64] threads 256 {
// THREE-LABEL: func.func @small_grid
// THREE: domain [40, 256, 256] tile [1, 64, 64] threads 256 raster_group 3 {
// ROWS-LABEL: func.func @small_grid
// ROWS: domain [40, 256, 256] tile [1, 64, 64] threads 256 {
func.func @small_grid(%a: tensor<40x256x32xf32>, %b: tensor<40x32x256xf32>) -> tensor<40x256x256xf32> {
  %r = tileir.kernel ins(%a, %b : tensor<40x256x32xf32>, tensor<40x32x256xf32>) -> tensor<40x256x256xf32> domain [40, 256, 256] tile [1, 64, 64] threads 256 {
  ^bb0(%ab: memref<40x256x32xf32>, %bb: memref<40x32x256xf32>, %out: memref<40x256x256xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %o2 = tileir.tile_offset 2
    %c = tileir.contract [%o0, %o1, %o2] k 32 step 16 : !tileir.tile<1x64x64xf32> lhs {
    ^bb0(%n: index, %i: index, %k: index):
      %x = loopir.load %ab[%n, %i, %k] : memref<40x256x32xf32>
      tileir.yield %x : f32
    } rhs {
    ^bb0(%n: index, %j: index, %k: index):
      %w = loopir.load %bb[%n, %k, %j] : memref<40x32x256xf32>
      tileir.yield %w : f32
    }
    tileir.store %c, %out[%o0, %o1, %o2] : !tileir.tile<1x64x64xf32>, memref<40x256x256xf32>
  }
  return %r : tensor<40x256x256xf32>
}

// -----

// Not a contraction: an elementwise kernel's order stays row-major, even
// forced (its tiles share no operand panels).
// CHECK-LABEL: func.func @elementwise
// CHECK: domain [4096, 4096] tile [8, 64] threads 128 {
// THREE-LABEL: func.func @elementwise
// THREE: domain [4096, 4096] tile [8, 64] threads 128 {
func.func @elementwise(%a: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %r = tileir.kernel ins(%a : tensor<4096x4096xf32>) -> tensor<4096x4096xf32> domain [4096, 4096] tile [8, 64] threads 128 {
  ^bb0(%in: memref<4096x4096xf32>, %out: memref<4096x4096xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %x = tileir.load %in[%o0, %o1] : memref<4096x4096xf32> -> !tileir.tile<8x64xf32>
    %y = tileir.map ins(%x : !tileir.tile<8x64xf32>) -> !tileir.tile<8x64xf32> {
    ^bb0(%e: f32):
      %v = math.exp %e : f32
      tileir.yield %v : f32
    }
    tileir.store %y, %out[%o0, %o1] : !tileir.tile<8x64xf32>, memref<4096x4096xf32>
  }
  return %r : tensor<4096x4096xf32>
}
