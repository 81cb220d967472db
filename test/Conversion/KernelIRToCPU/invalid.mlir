// RUN: strata-opt %s -split-input-file --convert-kernelir-to-cpu -verify-diagnostics

// A barrier that only some threads may reach cannot be emulated (nor run
// correctly on the GPU).
// expected-error @+1 {{failed to legalize operation 'kernelir.func'}}
kernelir.func @divergent(%out: memref<32xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c16 = arith.constant 16 : index
  %t = kernelir.thread_id x
  %low = arith.cmpi ult, %t, %c16 : index
  // expected-note @+1 {{inside this op, which threads may run differently}}
  scf.if %low {
    // expected-error @+1 {{the CPU emulation needs barriers and shuffles at the top level of the kernel or in loops every thread runs the same way, where every thread of the block reaches them}}
    kernelir.barrier
  }
  kernelir.return
}

// -----

// A loop whose trip count depends on the thread: not every thread would
// reach the barrier the same number of times.
// expected-error @+1 {{failed to legalize operation 'kernelir.func'}}
kernelir.func @divergent_loop(%out: memref<32xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = kernelir.thread_id x
  // expected-error @+1 {{a loop with a barrier inside needs bounds the CPU emulation can see are the same in every thread of the block}}
  scf.for %i = %c0 to %t step %c1 {
    kernelir.barrier
  }
  kernelir.return
}
