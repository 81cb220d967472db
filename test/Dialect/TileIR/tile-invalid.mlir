// Tiles tileir-tile cannot give: each is a diagnostic on the kernel.
// RUN: strata-opt %s -split-input-file '--tileir-tile=tile-sizes=4,4' -verify-diagnostics
// RUN: not strata-opt %s '--tileir-tile=tile-elements=48' 2>&1 | FileCheck %s --check-prefix=ELEMENTS
// RUN: not strata-opt %s '--tileir-tile=tile-sizes=0,4' 2>&1 | FileCheck %s --check-prefix=ZERO

// ELEMENTS: error: tile-elements must be a positive power of two, got 48
// ZERO: error: tile sizes must be positive, got 0

// The threads were chosen first, and 3 do not share 16 elements.
func.func @threads_first(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{a tile of 16 elements cannot be split evenly among the 3 threads chosen before; choose the tile first (tileir-tile, then tileir-map-threads)}}
  %r = tileir.kernel ins(%a : tensor<8x8xf32>) -> tensor<8x8xf32> domain [8, 8] tile [3, 1] threads 3 {
  ^bb0(%in: memref<8x8xf32>, %out: memref<8x8xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %x = tileir.load %in[%o0, %o1] : memref<8x8xf32> -> !tileir.tile<3x1xf32>
    tileir.store %x, %out[%o0, %o1] : !tileir.tile<3x1xf32>, memref<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}

// -----

func.func @rank(%a: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{tile-sizes has 2 entries but the kernel's domain has 1 dimensions}}
  %r = tileir.kernel ins(%a : tensor<64xf32>) -> tensor<64xf32> domain [64] tile [1] threads 1 {
  ^bb0(%in: memref<64xf32>, %out: memref<64xf32>):
    %o = tileir.tile_offset 0
    %x = tileir.load %in[%o] : memref<64xf32> -> !tileir.tile<1xf32>
    tileir.store %x, %out[%o] : !tileir.tile<1xf32>, memref<64xf32>
  }
  return %r : tensor<64xf32>
}
