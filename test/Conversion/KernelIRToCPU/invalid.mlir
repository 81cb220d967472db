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
    // expected-error @+1 {{the CPU emulation needs barriers, shuffles and mbarrier waits at the top level of the kernel or in loops every thread runs the same way, where every thread of the block reaches them}}
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

// -----

// A wait only the first warp makes (a warp-specialized producer's): the
// emulation runs mbarrier waits where every thread of the block waits.
// expected-error @+1 {{failed to legalize operation 'kernelir.func'}}
kernelir.func @producer_wait(%out: memref<64xf32>) attributes {block = array<i64: 64, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %false = arith.constant false
  %empty = kernelir.shared : memref<1xi64, #gpu.address_space<workgroup>>
  %t = kernelir.thread_id x
  %producer = arith.cmpi ult, %t, %c32 : index
  // expected-note @+1 {{inside this op, which threads may run differently}}
  scf.if %producer {
    // expected-error @+1 {{the CPU emulation needs barriers, shuffles and mbarrier waits at the top level of the kernel or in loops every thread runs the same way, where every thread of the block reaches them}}
    kernelir.mbarrier_wait %empty[%c0] parity %false : memref<1xi64, #gpu.address_space<workgroup>>
  }
  kernelir.return
}
