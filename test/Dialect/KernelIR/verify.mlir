// kernelir-verify checks the kernel stage's ops where the pass manager
// does not (strata compiles with per-pass verification off, and the kernel
// stages end with this pass before the GPU and CPU lowerings).
// RUN: not strata-opt %s --mlir-very-unsafe-disable-verifier-on-parsing --verify-each=false --kernelir-verify 2>&1 | FileCheck %s

// CHECK: error: 'kernelir.shuffle' op needs blocks of whole warps (32 threads), but the kernel has 8 threads per block
kernelir.func @partial_warp(%out: memref<8xf32>) attributes {block = array<i64: 8, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c1 = arith.constant 1 : i32
  %x = arith.constant 1.0 : f32
  %t = kernelir.thread_id x
  %y = kernelir.shuffle up %x, %c1 : f32
  kernelir.store %y, %out[%t] : memref<8xf32>
  kernelir.return
}
