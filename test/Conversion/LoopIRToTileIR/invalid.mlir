// Impossible schedules and loop bodies the scheduler cannot handle are
// diagnostics on the kernel or op concerned.
// RUN: strata-opt %s -split-input-file --convert-loopir-to-tileir='tile-sizes=64' -verify-diagnostics
// RUN: not strata-opt %s -split-input-file --convert-loopir-to-tileir='tile-sizes=4,4 threads=3' 2>&1 | FileCheck %s --check-prefix=UNEVEN
// RUN: not strata-opt %s -split-input-file --convert-loopir-to-tileir='threads=2048' 2>&1 | FileCheck %s --check-prefix=TOOMANY

// UNEVEN: error: a tile of 16 elements cannot be split evenly among 3 threads
// TOOMANY: error: threads must be in [1, 1024], got 2048

func.func @rank_mismatch(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+2 {{tile-sizes has 1 entries but the kernel's loop nest has 2 dimensions}}
  // expected-error @+1 {{failed to legalize operation 'loopir.kernel'}}
  %r = loopir.kernel ins(%a : tensor<8x8xf32>) -> tensor<8x8xf32> {
  ^bb0(%in: memref<8x8xf32>, %out: memref<8x8xf32>):
    loopir.parallel (%i, %j) in [8, 8] {
      %x = loopir.load %in[%i, %j] : memref<8x8xf32>
      loopir.store %x, %out[%i, %j] : memref<8x8xf32>
    }
  }
  return %r : tensor<8x8xf32>
}

// -----

func.func @index_arithmetic(%a: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{failed to legalize operation 'loopir.kernel'}}
  %r = loopir.kernel ins(%a : tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%in: memref<64xf32>, %out: memref<64xf32>):
    loopir.parallel (%i) in [64] {
      // expected-error @+1 {{computing with loop indices is not supported yet}}
      %k = arith.index_cast %i : index to i32
      %f = arith.sitofp %k : i32 to f32
      loopir.store %f, %out[%i] : memref<64xf32>
    }
  }
  return %r : tensor<64xf32>
}

// -----

func.func @two_loop_nests(%a: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{failed to legalize operation 'loopir.kernel'}}
  %r = loopir.kernel ins(%a : tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%in: memref<64xf32>, %out: memref<64xf32>):
    loopir.parallel (%i) in [64] {
      %x = loopir.load %in[%i] : memref<64xf32>
      loopir.store %x, %out[%i] : memref<64xf32>
    }
    // expected-error @+1 {{can only schedule a kernel whose body is one loopir.parallel nest after scalar values}}
    loopir.parallel (%i) in [64] {
      %x = loopir.load %in[%i] : memref<64xf32>
      loopir.store %x, %out[%i] : memref<64xf32>
    }
  }
  return %r : tensor<64xf32>
}

// -----

func.func @computed_index(%a: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{failed to legalize operation 'loopir.kernel'}}
  %r = loopir.kernel ins(%a : tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%in: memref<64xf32>, %out: memref<64xf32>):
    %c0 = arith.constant 0 : index
    loopir.parallel (%i) in [64] {
      // expected-error @+1 {{only loop indices can address a buffer here}}
      %x = loopir.load %in[%c0] : memref<64xf32>
      loopir.store %x, %out[%i] : memref<64xf32>
    }
  }
  return %r : tensor<64xf32>
}
