// The size bound of loopir-fuse: a producer that reduces is cloned into its
// consumers only while each consumer's body stays within max-kernel-ops
// (here: the consumer's 6 ops, its terminator included, plus the
// producer's nest of 6, once per site).
// RUN: strata-opt %s '--loopir-fuse=max-kernel-ops=12' | FileCheck %s --check-prefix=FITS
// RUN: strata-opt %s '--loopir-fuse=max-kernel-ops=11' | FileCheck %s --check-prefix=BIG

// FITS-LABEL: func.func @row_sum_then_negate
// FITS: loopir.kernel
// FITS-NOT: loopir.kernel
// FITS: loopir.reduce
// FITS: arith.negf
// BIG-LABEL: func.func @row_sum_then_negate
// BIG: loopir.kernel
// BIG: loopir.reduce
// BIG: loopir.kernel
// BIG-NOT: loopir.reduce
// BIG: arith.negf
func.func @row_sum_then_negate(%a: tensor<64x37xf32>) -> tensor<64xf32> {
  %s = loopir.kernel ins(%a : tensor<64x37xf32>) -> tensor<64xf32> {
  ^bb0(%in: memref<64x37xf32>, %out: memref<64xf32>):
    loopir.parallel (%i) in [64] {
      %r = loopir.reduce add (%j) in [37] : f32 {
        %x = loopir.load %in[%i, %j] : memref<64x37xf32>
        loopir.yield %x : f32
      }
      loopir.store %r, %out[%i] : memref<64xf32>
    }
  }
  %n = loopir.kernel ins(%s : tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%in: memref<64xf32>, %out: memref<64xf32>):
    loopir.parallel (%i) in [64] {
      %x = loopir.load %in[%i] : memref<64xf32>
      %y = arith.negf %x : f32
      loopir.store %y, %out[%i] : memref<64xf32>
    }
  }
  return %n : tensor<64xf32>
}
