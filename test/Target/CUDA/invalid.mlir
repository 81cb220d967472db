// RUN: strata-translate --kernelir-to-cuda %s -split-input-file -verify-diagnostics

// What CUDA has no rendering for is a diagnostic on the op, not a crash
// or a silently wrong kernel.

kernelir.func @ceil_division(%out: memref<4xi64>) attributes {block = array<i64: 4, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c3 = arith.constant 3 : i64
  %t = kernelir.thread_id x
  %i = arith.index_cast %t : index to i64
  // expected-error @below {{cannot render 'arith.ceildivsi' as CUDA}}
  %q = arith.ceildivsi %i, %c3 : i64
  kernelir.store %q, %out[%t] : memref<4xi64>
  kernelir.return
}

// -----

kernelir.func @fp8(%in: memref<4xf8E4M3FN>, %out: memref<4xf32>) attributes {block = array<i64: 4, 1, 1>, grid = array<i64: 1, 1, 1>} {
  kernelir.return
}
// expected-error @-3 {{cannot render type 'f8E4M3FN' as CUDA}}

// -----

// A kernel that does not verify is the verifier's diagnostic.
// expected-error @below {{'kernelir.func' op requires attribute 'block'}}
kernelir.func @no_launch_shape(%out: memref<4xf32>) {
  kernelir.return
}
