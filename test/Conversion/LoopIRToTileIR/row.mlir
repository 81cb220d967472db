// RUN: strata-opt %s -split-input-file --convert-loopir-to-tileir --strata-schedule-tile | FileCheck %s
// RUN: strata-opt %s -split-input-file --convert-loopir-to-tileir="schedule=generic" --strata-schedule-tile | FileCheck %s --check-prefix=GENERIC

// A softmax row: one program instance per row; the two reductions become
// folds with their monoids explicit, the division stays uniform scalar code
// and the write-back loop is shared by the threads. 70 elements give 32
// threads (at least 4 elements each, whole warps).
// CHECK-LABEL: func.func @softmax_rows
// CHECK: tileir.kernel ins(%{{.*}} : tensor<33x70xf32>) -> tensor<33x70xf32> domain [33] tile [1] threads 32 {
// CHECK: %[[ROW:.*]] = tileir.point 0
// CHECK-NEXT: %[[M:.*]] = tileir.fold max(0xFF800000 : f32) (%[[K:.*]]) in [70] {
// CHECK-NEXT: %[[X:.*]] = loopir.load %{{.*}}[%[[ROW]], %[[K]]] : memref<33x70xf32>
// CHECK-NEXT: tileir.yield %[[X]] : f32
// CHECK: %[[S:.*]] = tileir.fold add(0.000000e+00 : f32) (%{{.*}}) in [70] {
// CHECK: arith.subf %{{.*}}, %[[M]] : f32
// CHECK: %[[R:.*]] = arith.divf %{{.*}}, %[[S]] : f32
// CHECK: tileir.distribute (%[[J:.*]]) in [70] {
// CHECK: arith.mulf %{{.*}}, %[[R]] : f32
// CHECK: loopir.store %{{.*}}, %{{.*}}[%[[ROW]], %[[J]]] : memref<33x70xf32>
// GENERIC-LABEL: func.func @softmax_rows
// GENERIC: tileir.for_each_point
// GENERIC: loopir.reduce max
func.func @softmax_rows(%a: tensor<33x70xf32>) -> tensor<33x70xf32> {
  %r = loopir.kernel ins(%a : tensor<33x70xf32>) -> tensor<33x70xf32> {
  ^bb0(%in: memref<33x70xf32>, %out: memref<33x70xf32>):
    %one = arith.constant 1.0 : f32
    loopir.parallel (%i) in [33] {
      %m = loopir.reduce max (%k) in [70] : f32 {
        %x = loopir.load %in[%i, %k] : memref<33x70xf32>
        loopir.yield %x : f32
      }
      %s = loopir.reduce add (%k) in [70] : f32 {
        %x = loopir.load %in[%i, %k] : memref<33x70xf32>
        %d = arith.subf %x, %m : f32
        %e = math.exp %d : f32
        loopir.yield %e : f32
      }
      %rs = arith.divf %one, %s : f32
      loopir.parallel (%j) in [70] {
        %x = loopir.load %in[%i, %j] : memref<33x70xf32>
        %d = arith.subf %x, %m : f32
        %e = math.exp %d : f32
        %y = arith.mulf %e, %rs : f32
        loopir.store %y, %out[%i, %j] : memref<33x70xf32>
      }
    }
  }
  return %r : tensor<33x70xf32>
}

// -----

// Long rows get 256 threads; a reduction of two monoids (sum and sum of
// squares) stays one fold; the row's store is uniform code.
// CHECK-LABEL: func.func @moments
// CHECK: domain [3] tile [1] threads 256 {
// CHECK: %{{.*}}:2 = tileir.fold add(0.000000e+00 : f32), add(0.000000e+00 : f32) (%{{.*}}) in [4096] {
// CHECK: loopir.store
// CHECK-NOT: tileir.distribute
func.func @moments(%a: tensor<3x4096xf32>) -> tensor<3xf32> {
  %r = loopir.kernel ins(%a : tensor<3x4096xf32>) -> tensor<3xf32> {
  ^bb0(%in: memref<3x4096xf32>, %out: memref<3xf32>):
    loopir.parallel (%i) in [3] {
      %s, %q = loopir.reduce add, add (%k) in [4096] : f32, f32 {
        %x = loopir.load %in[%i, %k] : memref<3x4096xf32>
        %x2 = arith.mulf %x, %x : f32
        loopir.yield %x, %x2 : f32, f32
      }
      %v = arith.subf %q, %s : f32
      loopir.store %v, %out[%i] : memref<3xf32>
    }
  }
  return %r : tensor<3xf32>
}

// -----

// A full reduction (a 0-d nest) is one row that the whole block folds.
// CHECK-LABEL: func.func @total
// CHECK: domain [1] tile [1] threads 256 {
// CHECK: tileir.fold add(0 : i32) (%{{.*}}, %{{.*}}) in [100, 37] {
func.func @total(%a: tensor<100x37xi32>) -> tensor<i32> {
  %r = loopir.kernel ins(%a : tensor<100x37xi32>) -> tensor<i32> {
  ^bb0(%in: memref<100x37xi32>, %out: memref<i32>):
    loopir.parallel () in [] {
      %s = loopir.reduce add (%i, %k) in [100, 37] : i32 {
        %x = loopir.load %in[%i, %k] : memref<100x37xi32>
        loopir.yield %x : i32
      }
      loopir.store %s, %out[] : memref<i32>
    }
  }
  return %r : tensor<i32>
}

// -----

// Short rows and strided rows (a column sum) keep the generic schedule:
// a thread per row or column.
// CHECK-LABEL: func.func @short_rows
// CHECK: tileir.for_each_point
func.func @short_rows(%a: tensor<1000x8xf32>) -> tensor<1000xf32> {
  %r = loopir.kernel ins(%a : tensor<1000x8xf32>) -> tensor<1000xf32> {
  ^bb0(%in: memref<1000x8xf32>, %out: memref<1000xf32>):
    loopir.parallel (%i) in [1000] {
      %s = loopir.reduce add (%k) in [8] : f32 {
        %x = loopir.load %in[%i, %k] : memref<1000x8xf32>
        loopir.yield %x : f32
      }
      loopir.store %s, %out[%i] : memref<1000xf32>
    }
  }
  return %r : tensor<1000xf32>
}

// -----

// An arg-reduction along rows is a composite fold of (value, row-major
// position in its box) over the first extreme; the block's threads share
// it like any fold.
// CHECK-LABEL: func.func @argmax_rows
// CHECK: tileir.kernel {{.*}} domain [4] tile [1] threads 128
// CHECK: %[[F:.*]]:2 = tileir.composite_fold (%[[K0:.*]], %[[K1:.*]]) in [4, 128] identity(0xFF800000 : f32, 9223372036854775807 : i64) {
// CHECK: %[[X:.*]] = loopir.load %{{.*}}[%{{.*}}, %[[K0]], %[[K1]]] : memref<4x4x128xf32>
// CHECK: %[[ROWS:.*]] = arith.muli %[[K0]], %{{.*}} : index
// CHECK: %[[POS:.*]] = arith.addi %[[ROWS]], %[[K1]] : index
// CHECK: %[[POS64:.*]] = arith.index_cast %[[POS]] : index to i64
// CHECK: tileir.yield %[[X]], %[[POS64]] : f32, i64
// CHECK: } combine {
// CHECK: arith.cmpi slt
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf uno
// CHECK: tileir.yield
// CHECK: loopir.store %[[F]]#1, %{{.*}}[%{{.*}}] : memref<4xi64>
// GENERIC-LABEL: func.func @argmax_rows
// GENERIC: tileir.for_each_point
// GENERIC: loopir.reduce argmax
func.func @argmax_rows(%a: tensor<4x4x128xf32>) -> tensor<4xi64> {
  %r = loopir.kernel ins(%a : tensor<4x4x128xf32>) -> tensor<4xi64> {
  ^bb0(%in: memref<4x4x128xf32>, %out: memref<4xi64>):
    loopir.parallel (%i) in [4] {
      %m, %p = loopir.reduce argmax (%k0, %k1) in [4, 128] : f32, i64 {
        %x = loopir.load %in[%i, %k0, %k1] : memref<4x4x128xf32>
        loopir.yield %x : f32
      }
      loopir.store %p, %out[%i] : memref<4xi64>
    }
  }
  return %r : tensor<4xi64>
}

// -----

// A row that ends in a row vector (here 3 output elements, each a sum over
// the row of w(j) * v[j, e], w not depending on e): one fold with a sum
// per element, w computed once per point of the row (not once per
// element), then each element's write-back with its index constant.
// CHECK-LABEL: func.func @row_vector
// CHECK: tileir.kernel {{.*}} domain [5] tile [1] threads 32
// CHECK: %[[F:.*]]:3 = tileir.fold add(0.000000e+00 : f32), add(0.000000e+00 : f32), add(0.000000e+00 : f32) (%[[J:.*]]) in [70] {
// CHECK: %[[W:.*]] = math.exp
// CHECK-NOT: math.exp
// CHECK: %[[V0:.*]] = loopir.load %{{.*}}[%{{.*}}, %[[J]], %{{.*}}] : memref<5x70x3xf32>
// CHECK: %[[P0:.*]] = arith.mulf %[[W]], %[[V0]] : f32
// CHECK: %[[P1:.*]] = arith.mulf %[[W]], %{{.*}} : f32
// CHECK: %[[P2:.*]] = arith.mulf %[[W]], %{{.*}} : f32
// CHECK: tileir.yield %[[P0]], %[[P1]], %[[P2]] : f32, f32, f32
// CHECK: loopir.store %[[F]]#0, %{{.*}}[%{{.*}}, %[[C0:.*]]] : memref<5x3xf32>
// CHECK: loopir.store %[[F]]#1
// CHECK: loopir.store %[[F]]#2
// GENERIC-LABEL: func.func @row_vector
// GENERIC: tileir.for_each_point
func.func @row_vector(%a: tensor<5x70xf32>, %v: tensor<5x70x3xf32>) -> tensor<5x3xf32> {
  %r = loopir.kernel ins(%a, %v : tensor<5x70xf32>, tensor<5x70x3xf32>) -> tensor<5x3xf32> {
  ^bb0(%ab: memref<5x70xf32>, %vb: memref<5x70x3xf32>, %out: memref<5x3xf32>):
    loopir.parallel (%i) in [5] {
      loopir.parallel (%e) in [3] {
        %s = loopir.reduce add (%j) in [70] : f32 {
          %x = loopir.load %ab[%i, %j] : memref<5x70xf32>
          %w = math.exp %x : f32
          %y = loopir.load %vb[%i, %j, %e] : memref<5x70x3xf32>
          %p = arith.mulf %w, %y : f32
          loopir.yield %p : f32
        }
        loopir.store %s, %out[%i, %e] : memref<5x3xf32>
      }
    }
  }
  return %r : tensor<5x3xf32>
}

// -----

// A narrow integer reduction (`all`: the minimum of i8 flags) is a row
// fold too, carried as i32 (what a warp shuffle moves): each contribution
// sign-extended, the result truncated back.
// CHECK-LABEL: func.func @all_rows
// CHECK: domain [3] tile [1] threads
// CHECK: %[[F:.*]] = tileir.fold min(2147483647 : i32) (%{{.*}}) in [500] {
// CHECK: %[[FLAG:.*]] = arith.extui %{{.*}} : i1 to i8
// CHECK: %[[WIDE:.*]] = arith.extsi %[[FLAG]] : i8 to i32
// CHECK: tileir.yield %[[WIDE]] : i32
// CHECK: %[[ALL:.*]] = arith.trunci %[[F]] : i32 to i8
// CHECK: arith.cmpi ne, %[[ALL]], %{{.*}} : i8
// GENERIC-LABEL: func.func @all_rows
// GENERIC: loopir.reduce min
func.func @all_rows(%a: tensor<3x500xf32>) -> tensor<3xi1> {
  %r = loopir.kernel ins(%a : tensor<3x500xf32>) -> tensor<3xi1> {
  ^bb0(%in: memref<3x500xf32>, %out: memref<3xi1>):
    %bound = arith.constant -5.0 : f32
    %zero = arith.constant 0 : i8
    loopir.parallel (%i) in [3] {
      %m = loopir.reduce min (%k) in [500] : i8 {
        %x = loopir.load %in[%i, %k] : memref<3x500xf32>
        %c = arith.cmpf ogt, %x, %bound : f32
        %f = arith.extui %c : i1 to i8
        loopir.yield %f : i8
      }
      %all = arith.cmpi ne, %m, %zero : i8
      loopir.store %all, %out[%i] : memref<3xi1>
    }
  }
  return %r : tensor<3xi1>
}
