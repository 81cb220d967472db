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
