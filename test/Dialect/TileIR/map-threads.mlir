// tileir-map-threads: the one decision is each kernel's thread count.
// RUN: strata-opt %s -split-input-file --tileir-map-threads | FileCheck %s
// RUN: strata-opt %s -split-input-file --tileir-map-threads --tileir-map-threads | FileCheck %s
// RUN: not strata-opt %s -split-input-file '--tileir-map-threads=threads=48' 2>&1 | FileCheck %s --check-prefix=FORCED

// Elementwise: 128 bits each (4 f32), at most 128 threads; with f16
// accesses 8 each.
// CHECK-LABEL: func.func @f32
// CHECK: tile [8, 64] threads 128 {
// CHECK-LABEL: func.func @small
// CHECK: tile [8] threads 2 {
// CHECK-LABEL: func.func @f16
// CHECK: tile [8, 64] threads 64 {
// 48 threads share 8 x 64 = 512 elements unevenly, and a row program needs
// whole warps.
// FORCED: error: a tile of 512 elements cannot be split evenly among 48 threads
// FORCED: error: a tile of 8 elements cannot be split evenly among 48 threads
// FORCED: error: a tile of 512 elements cannot be split evenly among 48 threads
// FORCED: error: a tile of 1024 elements cannot be split evenly among 48 threads
// FORCED: error: a tile of 128 elements cannot be split evenly among 48 threads
// FORCED: error: a row program needs one thread or a whole number of warps (a multiple of 32 up to 1024 threads), got 48
func.func @f32(%a: tensor<1000x37xf32>) -> tensor<1000x37xf32> {
  %r = tileir.kernel ins(%a : tensor<1000x37xf32>) -> tensor<1000x37xf32> domain [1000, 37] tile [8, 64] threads 1 {
  ^bb0(%in: memref<1000x37xf32>, %out: memref<1000x37xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %x = tileir.load %in[%o0, %o1] : memref<1000x37xf32> -> !tileir.tile<8x64xf32>
    tileir.store %x, %out[%o0, %o1] : !tileir.tile<8x64xf32>, memref<1000x37xf32>
  }
  return %r : tensor<1000x37xf32>
}

// -----

func.func @small(%a: tensor<5xf32>) -> tensor<5xf32> {
  %r = tileir.kernel ins(%a : tensor<5xf32>) -> tensor<5xf32> domain [5] tile [8] threads 1 {
  ^bb0(%in: memref<5xf32>, %out: memref<5xf32>):
    %o = tileir.tile_offset 0
    %x = tileir.load %in[%o] : memref<5xf32> -> !tileir.tile<8xf32>
    tileir.store %x, %out[%o] : !tileir.tile<8xf32>, memref<5xf32>
  }
  return %r : tensor<5xf32>
}

// -----

func.func @f16(%a: tensor<1000x37xf16>) -> tensor<1000x37xf16> {
  %r = tileir.kernel ins(%a : tensor<1000x37xf16>) -> tensor<1000x37xf16> domain [1000, 37] tile [8, 64] threads 1 {
  ^bb0(%in: memref<1000x37xf16>, %out: memref<1000x37xf16>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %x = tileir.load %in[%o0, %o1] : memref<1000x37xf16> -> !tileir.tile<8x64xf16>
    tileir.store %x, %out[%o0, %o1] : !tileir.tile<8x64xf16>, memref<1000x37xf16>
  }
  return %r : tensor<1000x37xf16>
}

// -----

// Contraction: 4 result elements each, at most 256 threads.
// CHECK-LABEL: func.func @matmul
// CHECK: tile [32, 32] threads 256 {
func.func @matmul(%a: tensor<17x65xf32>, %b: tensor<65x19xf32>) -> tensor<17x19xf32> {
  %r = tileir.kernel ins(%a, %b : tensor<17x65xf32>, tensor<65x19xf32>) -> tensor<17x19xf32> domain [17, 19] tile [32, 32] threads 1 {
  ^bb0(%ab: memref<17x65xf32>, %bb: memref<65x19xf32>, %out: memref<17x19xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %c = tileir.contract [%o0, %o1] k 65 step 16 : !tileir.tile<32x32xf32> lhs {
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

// -----

// Generic: one point each.
// CHECK-LABEL: func.func @columns
// CHECK: tile [128] threads 128 {
func.func @columns(%a: tensor<33x70xf32>) -> tensor<70xf32> {
  %r = tileir.kernel ins(%a : tensor<33x70xf32>) -> tensor<70xf32> domain [70] tile [128] threads 1 {
  ^bb0(%in: memref<33x70xf32>, %out: memref<70xf32>):
    %o = tileir.tile_offset 0
    tileir.for_each_point [%o] (%j) {
      %s = loopir.reduce add (%i) in [33] : f32 {
        %x = loopir.load %in[%i, %j] : memref<33x70xf32>
        loopir.yield %x : f32
      }
      loopir.store %s, %out[%j] : memref<70xf32>
    }
  }
  return %r : tensor<70xf32>
}

// -----

// Row: about 4 elements of the longest loop each, a power of two from one
// warp to 256 threads: 4096 elements take 256, 70 take one warp.
// CHECK-LABEL: func.func @rows
// CHECK: domain [64] tile [1] threads 256 {
// CHECK: domain [33] tile [1] threads 32 {
func.func @rows(%a: tensor<64x4096xf32>, %b: tensor<33x70xf32>) -> (tensor<64xf32>, tensor<33x70xf32>) {
  %r = tileir.kernel ins(%a : tensor<64x4096xf32>) -> tensor<64xf32> domain [64] tile [1] threads 32 {
  ^bb0(%in: memref<64x4096xf32>, %out: memref<64xf32>):
    %row = tileir.point 0
    %s = tileir.fold add(0.0 : f32) (%k) in [4096] {
      %x = loopir.load %in[%row, %k] : memref<64x4096xf32>
      tileir.yield %x : f32
    }
    loopir.store %s, %out[%row] : memref<64xf32>
  }
  %q = tileir.kernel ins(%b : tensor<33x70xf32>) -> tensor<33x70xf32> domain [33] tile [1] threads 32 {
  ^bb0(%in: memref<33x70xf32>, %out: memref<33x70xf32>):
    %row = tileir.point 0
    tileir.distribute (%j) in [70] {
      %x = loopir.load %in[%row, %j] : memref<33x70xf32>
      loopir.store %x, %out[%row, %j] : memref<33x70xf32>
    }
  }
  return %r, %q : tensor<64xf32>, tensor<33x70xf32>
}

// -----

// Several rows per program instance take a warp each.
// CHECK-LABEL: func.func @short_rows
// CHECK: domain [1000] tile [8] threads 256 {
// FORCED: error: a row program of 8 rows per program instance gives each row a power of two of at most 32 threads: it needs 8 times 1, 2, 4, 8, 16 or 32 threads, got 48
func.func @short_rows(%c: tensor<1000x37xf32>) -> tensor<1000xf32> {
  %m = tileir.kernel ins(%c : tensor<1000x37xf32>) -> tensor<1000xf32> domain [1000] tile [8] threads 32 {
  ^bb0(%in: memref<1000x37xf32>, %out: memref<1000xf32>):
    %row = tileir.point 0
    %s = tileir.fold max(0xFF800000 : f32) (%k) in [37] {
      %x = loopir.load %in[%row, %k] : memref<1000x37xf32>
      tileir.yield %x : f32
    }
    loopir.store %s, %out[%row] : memref<1000xf32>
  }
  return %m : tensor<1000xf32>
}
