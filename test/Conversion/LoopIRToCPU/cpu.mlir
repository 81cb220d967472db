// RUN: strata-opt %s --convert-loopir-to-cpu | FileCheck %s

// The kernel is inlined on buffers: its result becomes an allocation; the
// parallel nest an scf.for nest; the reduction an scf.for carrying the
// accumulator from the combiner's identity.
// CHECK-LABEL: func.func @row_max
// CHECK-SAME: (%[[IN:.*]]: memref<32x2049xf32>) -> memref<32xf32>
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<32xf32>
// CHECK: scf.for %[[I:.*]] =
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[M:.*]] = scf.for %[[K:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[NEGINF]]) -> (f32) {
// CHECK: %[[X:.*]] = memref.load %[[IN]][%[[I]], %[[K]]] : memref<32x2049xf32>
// CHECK: %[[N:.*]] = arith.maximumf %[[ACC]], %[[X]] : f32
// CHECK: scf.yield %[[N]] : f32
// CHECK: memref.store %[[M]], %[[OUT]][%[[I]]] : memref<32xf32>
// CHECK: return %[[OUT]] : memref<32xf32>
func.func @row_max(%x: tensor<32x2049xf32>) -> tensor<32xf32> {
  %r = loopir.kernel ins(%x : tensor<32x2049xf32>) -> tensor<32xf32> {
  ^bb0(%in: memref<32x2049xf32>, %out: memref<32xf32>):
    loopir.parallel (%i) in [32] {
      %m = loopir.reduce max (%k) in [2049] : f32 {
        %v = loopir.load %in[%i, %k] : memref<32x2049xf32>
        loopir.yield %v : f32
      }
      loopir.store %m, %out[%i] : memref<32xf32>
    }
  }
  return %r : tensor<32xf32>
}

// An arg-reduction also carries the position and takes a value only when it
// is strictly better or the first NaN.
// CHECK-LABEL: func.func @row_argmax
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[POS:.*]] = %{{.*}}) -> (f32, i64)
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[X:.*]], %[[ACC]] : f32
// CHECK: %[[XNAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK: %[[ANUM:.*]] = arith.cmpf ord, %[[ACC]], %[[ACC]] : f32
// CHECK: %[[FIRST:.*]] = arith.andi %[[XNAN]], %[[ANUM]] : i1
// CHECK: %[[TAKE:.*]] = arith.ori %[[GT]], %[[FIRST]] : i1
// CHECK: arith.select %[[TAKE]], %[[X]], %[[ACC]] : f32
// CHECK: arith.select %[[TAKE]], %{{.*}}, %[[POS]] : i64
func.func @row_argmax(%x: tensor<32x9xf32>) -> tensor<32xi64> {
  %r = loopir.kernel ins(%x : tensor<32x9xf32>) -> tensor<32xi64> {
  ^bb0(%in: memref<32x9xf32>, %out: memref<32xi64>):
    loopir.parallel (%i) in [32] {
      %m, %p = loopir.reduce argmax (%k) in [9] : f32, i64 {
        %v = loopir.load %in[%i, %k] : memref<32x9xf32>
        loopir.yield %v : f32
      }
      loopir.store %p, %out[%i] : memref<32xi64>
    }
  }
  return %r : tensor<32xi64>
}

// A guarded load reads only where its guard holds (each constraint a
// comparison with zero), and is its padding elsewhere.
// CHECK-LABEL: func.func @padded
// CHECK: %[[LOW:.*]] = arith.cmpi sge, %{{.*}}, %{{.*}} : index
// CHECK: %[[HIGH:.*]] = arith.cmpi sge, %{{.*}}, %{{.*}} : index
// CHECK: %[[IN:.*]] = arith.andi %[[LOW]], %[[HIGH]] : i1
// CHECK: %[[X:.*]] = scf.if %[[IN]] -> (f32) {
// CHECK-NEXT: memref.load
// CHECK: } else {
// CHECK-NEXT: arith.constant 5.000000e-01 : f32
// CHECK: memref.store %[[X]]
func.func @padded(%a: tensor<8xf32>) -> tensor<10xf32> {
  %r = loopir.kernel ins(%a : tensor<8xf32>) -> tensor<10xf32> {
  ^bb0(%in: memref<8xf32>, %out: memref<10xf32>):
    loopir.parallel (%i) in [10] {
      %x = loopir.load %in[%i] map affine_map<(d0) -> (d0 - 1)> if affine_set<(d0) : (d0 - 1 >= 0, -d0 + 8 >= 0)> else 0.5 : f32 : memref<8xf32>
      loopir.store %x, %out[%i] : memref<10xf32>
    }
  }
  return %r : tensor<10xf32>
}
