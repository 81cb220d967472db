// RUN: strata-opt %s -split-input-file -verify-diagnostics --convert-tileir-to-kernelir

// A grid is one-dimensional: at most 2^31 - 1 blocks (the kernelir.func it
// would make does not verify).
func.func @too_many_blocks(%a: tensor<4294967296x1024xf32>) -> tensor<4294967296x1024xf32> {
  // expected-error @+2 {{needs more program instances than a grid holds (2147483647 blocks): its domain is too large for its tile}}
  // expected-error @+1 {{failed to legalize operation 'tileir.kernel'}}
  %r = tileir.kernel ins(%a : tensor<4294967296x1024xf32>) -> tensor<4294967296x1024xf32> domain [4294967296, 1024] tile [1, 512] threads 128 {
  ^bb0(%in: memref<4294967296x1024xf32>, %out: memref<4294967296x1024xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %x = tileir.load %in[%o0, %o1] : memref<4294967296x1024xf32> -> !tileir.tile<1x512xf32>
    tileir.store %x, %out[%o0, %o1] : !tileir.tile<1x512xf32>, memref<4294967296x1024xf32>
  }
  return %r : tensor<4294967296x1024xf32>
}

// -----

// Each tile element a thread owns is straight-line code: a million of them
// in one thread did not compile in five minutes.
func.func @too_many_elements_per_thread(%a: tensor<1048576xf32>) -> tensor<1048576xf32> {
  // expected-error @+2 {{gives each of its 1 threads 1048576 tile elements, more than 1024: more threads or a smaller tile}}
  // expected-error @+1 {{failed to legalize operation 'tileir.kernel'}}
  %r = tileir.kernel ins(%a : tensor<1048576xf32>) -> tensor<1048576xf32> domain [1048576] tile [1048576] threads 1 {
  ^bb0(%in: memref<1048576xf32>, %out: memref<1048576xf32>):
    %o = tileir.tile_offset 0
    %x = tileir.load %in[%o] : memref<1048576xf32> -> !tileir.tile<1048576xf32>
    tileir.store %x, %out[%o] : !tileir.tile<1048576xf32>, memref<1048576xf32>
  }
  return %r : tensor<1048576xf32>
}
