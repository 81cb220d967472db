// RUN: strata-opt %s -split-input-file --convert-loopir-to-tileir | FileCheck %s

// cumsum along a row, doubled, as the front end writes it: each point folds
// the row masked to k <= i. The scan schedule takes one program instance
// per row: the masked reduction becomes a tileir.scan of the row (the mask
// dropped), the rest of the body its each region at every point.
// CHECK-LABEL: func.func @cumsum_rows
// CHECK: tileir.kernel ins(%{{.*}} : tensor<5x50xf32>) -> tensor<5x50xf32> domain [5] tile [1] threads 32 {
// CHECK: %[[ROW:.*]] = tileir.point 0
// CHECK-NEXT: tileir.scan add(0.000000e+00 : f32) (%[[K:.*]]) in [50] {
// CHECK-NOT: arith.select
// CHECK: %[[X:.*]] = loopir.load %{{.*}}[%[[ROW]], %[[K]]] : memref<5x50xf32>
// CHECK-NEXT: tileir.yield %[[X]] : f32
// CHECK-NEXT: } each {
// CHECK-NEXT: ^bb0(%[[I:.*]]: index, %[[P:.*]]: f32):
// CHECK: %[[Y:.*]] = arith.mulf %[[P]], %{{.*}} : f32
// CHECK-NEXT: loopir.store %[[Y]], %{{.*}}[%[[ROW]], %[[I]]] : memref<5x50xf32>
// CHECK-NEXT: tileir.yield
func.func @cumsum_rows(%a: tensor<5x50xf32>) -> tensor<5x50xf32> {
  %r = loopir.kernel ins(%a : tensor<5x50xf32>) -> tensor<5x50xf32> {
  ^bb0(%in: memref<5x50xf32>, %out: memref<5x50xf32>):
    %zero = arith.constant 0.0 : f32
    %two = arith.constant 2.0 : f32
    loopir.parallel (%r, %i) in [5, 50] {
      %i64 = arith.index_cast %i : index to i64
      %s = loopir.reduce add (%k) in [50] : f32 {
        %k64 = arith.index_cast %k : index to i64
        %before = arith.cmpi sle, %k64, %i64 : i64
        %x = loopir.load %in[%r, %k] : memref<5x50xf32>
        %c = arith.select %before, %x, %zero : f32
        loopir.yield %c : f32
      }
      %y = arith.mulf %s, %two : f32
      loopir.store %y, %out[%r, %i] : memref<5x50xf32>
    }
  }
  return %r : tensor<5x50xf32>
}

// -----

// A product along the first dimension, the mask written the other way
// round (k > i keeps the identity), of i8 values: the rows are the
// columns, and the scan carries i32 (what a warp shuffles), truncated back
// at each point.
// CHECK-LABEL: func.func @cumprod_columns
// CHECK: domain [3] tile [1] threads 32 {
// CHECK: %[[COL:.*]] = tileir.point 0
// CHECK: tileir.scan mul(1 : i32) (%[[K:.*]]) in [40] {
// CHECK: %[[X:.*]] = loopir.load %{{.*}}[%[[K]], %[[COL]]] : memref<40x3xi8>
// CHECK-NEXT: %[[W:.*]] = arith.extsi %[[X]] : i8 to i32
// CHECK-NEXT: tileir.yield %[[W]] : i32
// CHECK: ^bb0(%[[I:.*]]: index, %[[P:.*]]: i32):
// CHECK-NEXT: %[[N:.*]] = arith.trunci %[[P]] : i32 to i8
// CHECK-NEXT: loopir.store %[[N]], %{{.*}}[%[[I]], %[[COL]]] : memref<40x3xi8>
func.func @cumprod_columns(%a: tensor<40x3xi8>) -> tensor<40x3xi8> {
  %r = loopir.kernel ins(%a : tensor<40x3xi8>) -> tensor<40x3xi8> {
  ^bb0(%in: memref<40x3xi8>, %out: memref<40x3xi8>):
    %one = arith.constant 1 : i8
    loopir.parallel (%i, %c) in [40, 3] {
      %p = loopir.reduce mul (%k) in [40] : i8 {
        %past = arith.cmpi sgt, %k, %i : index
        %x = loopir.load %in[%k, %c] : memref<40x3xi8>
        %v = arith.select %past, %one, %x : i8
        loopir.yield %v : i8
      }
      loopir.store %p, %out[%i, %c] : memref<40x3xi8>
    }
  }
  return %r : tensor<40x3xi8>
}

// -----

// Not a scan: the mask k < i leaves point i out (an exclusive prefix), so
// the reduction keeps its own schedule (a fold per point).
// CHECK-LABEL: func.func @exclusive_prefix
// CHECK-NOT: tileir.scan
// CHECK: tileir.fold add
func.func @exclusive_prefix(%a: tensor<5x50xf32>) -> tensor<5x50xf32> {
  %r = loopir.kernel ins(%a : tensor<5x50xf32>) -> tensor<5x50xf32> {
  ^bb0(%in: memref<5x50xf32>, %out: memref<5x50xf32>):
    %zero = arith.constant 0.0 : f32
    loopir.parallel (%r, %i) in [5, 50] {
      %s = loopir.reduce add (%k) in [50] : f32 {
        %before = arith.cmpi slt, %k, %i : index
        %x = loopir.load %in[%r, %k] : memref<5x50xf32>
        %c = arith.select %before, %x, %zero : f32
        loopir.yield %c : f32
      }
      loopir.store %s, %out[%r, %i] : memref<5x50xf32>
    }
  }
  return %r : tensor<5x50xf32>
}

// -----

// Not a scan: the contribution itself depends on i (x[k] * x[i]), so the
// prefix is no prefix of one row.
// CHECK-LABEL: func.func @contribution_varies
// CHECK-NOT: tileir.scan
func.func @contribution_varies(%a: tensor<5x50xf32>) -> tensor<5x50xf32> {
  %r = loopir.kernel ins(%a : tensor<5x50xf32>) -> tensor<5x50xf32> {
  ^bb0(%in: memref<5x50xf32>, %out: memref<5x50xf32>):
    %zero = arith.constant 0.0 : f32
    loopir.parallel (%r, %i) in [5, 50] {
      %xi = loopir.load %in[%r, %i] : memref<5x50xf32>
      %s = loopir.reduce add (%k) in [50] : f32 {
        %before = arith.cmpi sle, %k, %i : index
        %x = loopir.load %in[%r, %k] : memref<5x50xf32>
        %xx = arith.mulf %x, %xi : f32
        %c = arith.select %before, %xx, %zero : f32
        loopir.yield %c : f32
      }
      loopir.store %s, %out[%r, %i] : memref<5x50xf32>
    }
  }
  return %r : tensor<5x50xf32>
}

// -----

// logcumsumexp as the front end writes it: a maximum masked to the prefix,
// and a sum of exp(x - m) masked alike, m that maximum at the point (so
// the sum varies along the row). The sum is relative to its own prefix's
// maximum: one tileir.composite_scan of online softmax's (max, sum)
// monoid, each point's sum as the two passes compute it (NaN where the
// maximum is infinite, which the select after it replaces).
// CHECK-LABEL: func.func @logcumsumexp
// CHECK: domain [5] tile [1] threads 32 {
// CHECK: %[[ROW:.*]] = tileir.point 0
// CHECK: tileir.composite_scan (%[[K:.*]]) in [50] identity(0xFF800000 : f32, 0.000000e+00 : f32) {
// CHECK-NOT: arith.select
// CHECK: %[[X:.*]] = loopir.load %{{.*}}[%[[ROW]], %[[K]]] : memref<5x50xf32>
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: tileir.yield %[[X]], %[[ONE]] : f32, f32
// CHECK-NEXT: } combine {
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: } each {
// CHECK-NEXT: ^bb0(%[[I:.*]]: index, %[[M:.*]]: f32, %[[S:.*]]: f32):
// CHECK: %[[SUM:.*]] = arith.select %{{.*}}, %{{.*}}, %[[S]] : f32
// CHECK: math.log %[[SUM]] : f32
// CHECK: loopir.store %{{.*}}, %{{.*}}[%[[ROW]], %[[I]]] : memref<5x50xf32>
func.func @logcumsumexp(%a: tensor<5x50xf32>) -> tensor<5x50xf32> {
  %r = loopir.kernel ins(%a : tensor<5x50xf32>) -> tensor<5x50xf32> {
  ^bb0(%in: memref<5x50xf32>, %out: memref<5x50xf32>):
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %inf = arith.constant 0x7F800000 : f32
    loopir.parallel (%r, %i) in [5, 50] {
      %i64 = arith.index_cast %i : index to i64
      %m = loopir.reduce max (%k) in [50] : f32 {
        %k64 = arith.index_cast %k : index to i64
        %before = arith.cmpi sle, %k64, %i64 : i64
        %x = loopir.load %in[%r, %k] : memref<5x50xf32>
        %c = arith.select %before, %x, %ninf : f32
        loopir.yield %c : f32
      }
      %abs = math.absf %m : f32
      %finite = arith.cmpf olt, %abs, %inf : f32
      %s = loopir.reduce add (%k) in [50] : f32 {
        %k64 = arith.index_cast %k : index to i64
        %before = arith.cmpi sle, %k64, %i64 : i64
        %x = loopir.load %in[%r, %k] : memref<5x50xf32>
        %d = arith.subf %x, %m : f32
        %e = math.exp %d : f32
        %c = arith.select %before, %e, %zero : f32
        loopir.yield %c : f32
      }
      %log = math.log %s : f32
      %lse = arith.addf %log, %m : f32
      %y = arith.select %finite, %lse, %m : f32
      loopir.store %y, %out[%r, %i] : memref<5x50xf32>
    }
  }
  return %r : tensor<5x50xf32>
}

// -----

// Not a rescaled scan: the sum's exponent is 2x - m, not the maximum's own
// contribution x less its prefix, so no (max, sum) monoid folds it; the
// sum keeps a fold per point.
// CHECK-LABEL: func.func @sum_of_another_exponent
// CHECK-NOT: tileir.composite_scan
// CHECK-NOT: tileir.scan
// CHECK: tileir.fold
func.func @sum_of_another_exponent(%a: tensor<5x50xf32>) -> tensor<5x50xf32> {
  %r = loopir.kernel ins(%a : tensor<5x50xf32>) -> tensor<5x50xf32> {
  ^bb0(%in: memref<5x50xf32>, %out: memref<5x50xf32>):
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    loopir.parallel (%r, %i) in [5, 50] {
      %i64 = arith.index_cast %i : index to i64
      %m = loopir.reduce max (%k) in [50] : f32 {
        %k64 = arith.index_cast %k : index to i64
        %before = arith.cmpi sle, %k64, %i64 : i64
        %x = loopir.load %in[%r, %k] : memref<5x50xf32>
        %c = arith.select %before, %x, %ninf : f32
        loopir.yield %c : f32
      }
      %s = loopir.reduce add (%k) in [50] : f32 {
        %k64 = arith.index_cast %k : index to i64
        %before = arith.cmpi sle, %k64, %i64 : i64
        %x = loopir.load %in[%r, %k] : memref<5x50xf32>
        %x2 = arith.addf %x, %x : f32
        %d = arith.subf %x2, %m : f32
        %e = math.exp %d : f32
        %c = arith.select %before, %e, %zero : f32
        loopir.yield %c : f32
      }
      loopir.store %s, %out[%r, %i] : memref<5x50xf32>
    }
  }
  return %r : tensor<5x50xf32>
}
