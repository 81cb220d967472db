// RUN: strata-opt %s -split-input-file -verify-diagnostics --convert-loopir-to-cpu

// Scheduled kernels have a CPU lowering of their own (strata-lower-to-cpu);
// the LLVM lowering after this pass would break them (it turned a
// kernelir.func's loops into blocks the op does not allow).
// expected-error @+1 {{convert-loopir-to-cpu runs loop kernels; 'kernelir.func' is a scheduled kernel's (strata-lower-to-cpu runs those)}}
kernelir.func @k(%out: memref<32xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  kernelir.return
}

// -----

func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{convert-loopir-to-cpu runs loop kernels; 'tileir.kernel' is a scheduled kernel's (strata-lower-to-cpu runs those)}}
  %r = tileir.kernel ins(%a : tensor<8xf32>) -> tensor<8xf32> domain [8] tile [8] threads 4 {
  ^bb0(%in: memref<8xf32>, %out: memref<8xf32>):
    %o = tileir.tile_offset 0
    %x = tileir.load %in[%o] : memref<8xf32> -> !tileir.tile<8xf32>
    tileir.store %x, %out[%o] : !tileir.tile<8xf32>, memref<8xf32>
  }
  return %r : tensor<8xf32>
}
