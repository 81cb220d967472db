// RUN: strata-opt %s --convert-kernelir-to-gpu -split-input-file -verify-diagnostics

// A warp index needs the block size of the kernel it runs in.
func.func @host(%out: memref<4xindex>) {
  // expected-error @+2 {{is not inside a kernel with a known block size}}
  // expected-error @+1 {{failed to legalize operation 'kernelir.warp_id'}}
  %w = kernelir.warp_id
  %c0 = arith.constant 0 : index
  memref.store %w, %out[%c0] : memref<4xindex>
  return
}

// -----

func.func private @elsewhere(f32) -> f32
kernelir.func @calls_a_declaration(%out: memref<32xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %t = kernelir.thread_id x
  %x = arith.constant 1.0 : f32
  // expected-error @+1 {{a kernel calls @elsewhere, which is no function with a body the GPU can run}}
  %y = func.call @elsewhere(%x) : (f32) -> f32
  kernelir.store %y, %out[%t] : memref<32xf32>
  kernelir.return
}
