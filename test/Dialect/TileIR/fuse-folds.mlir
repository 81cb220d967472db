// RUN: strata-opt %s -split-input-file --tileir-fuse-folds | FileCheck %s

// Softmax's max, then the sum of exp(x - max) of the same x (scaled on
// the way: x * 0.5), read the row twice; as online softmax's (max, sum)
// they read it once. The write-back uses both results.
// CHECK-LABEL: func.func @softmax
// CHECK: %[[F:.*]]:2 = tileir.composite_fold (%[[K:.*]]) in [70] identity(0xFF800000 : f32, 0.000000e+00 : f32) {
// CHECK-NEXT: %[[X:.*]] = loopir.load %{{.*}}[%{{.*}}, %[[K]]] : memref<33x70xf32>
// CHECK-NEXT: %[[H:.*]] = arith.mulf %[[X]], %{{.*}} : f32
// CHECK: tileir.yield %[[H]], %{{.*}} : f32, f32
// CHECK-NEXT: } combine {
// CHECK-NEXT: ^bb0(%[[M1:.*]]: f32, %[[S1:.*]]: f32, %[[M2:.*]]: f32, %[[S2:.*]]: f32):
// CHECK-NEXT: %[[M:.*]] = arith.maximumf %[[M1]], %[[M2]] : f32
// CHECK: arith.cmpf oeq, %[[M1]], %[[M]] : f32
// CHECK: math.exp
// CHECK: arith.select
// CHECK: tileir.yield %[[M]], %{{.*}} : f32, f32
// CHECK-NOT: tileir.fold
// The sum as the two passes compute it: NaN where the maximum is infinite.
// CHECK: %[[ABS:.*]] = math.absf %[[F]]#0 : f32
// CHECK: %[[INF:.*]] = arith.cmpf oeq, %[[ABS]], %{{.*}} : f32
// CHECK: %[[SUM:.*]] = arith.select %[[INF]], %{{.*}}, %[[F]]#1 : f32
// CHECK: arith.subf %{{.*}}, %[[F]]#0 : f32
// CHECK: arith.divf %{{.*}}, %[[SUM]] : f32
func.func @softmax(%a: tensor<33x70xf32>) -> tensor<33x70xf32> {
  %r = tileir.kernel ins(%a : tensor<33x70xf32>) -> tensor<33x70xf32> domain [33] tile [1] threads 64 {
  ^bb0(%in: memref<33x70xf32>, %out: memref<33x70xf32>):
    %row = tileir.point 0
    %half = arith.constant 0.5 : f32
    %m = tileir.fold max(0xFF800000 : f32) (%k) in [70] {
      %x = loopir.load %in[%row, %k] : memref<33x70xf32>
      %h = arith.mulf %x, %half : f32
      tileir.yield %h : f32
    }
    %s = tileir.fold add(0.0 : f32) (%k) in [70] {
      %x = loopir.load %in[%row, %k] : memref<33x70xf32>
      %h = arith.mulf %x, %half : f32
      %d = arith.subf %h, %m : f32
      %e = math.exp %d : f32
      tileir.yield %e : f32
    }
    tileir.distribute (%j) in [70] {
      %x = loopir.load %in[%row, %j] : memref<33x70xf32>
      %h = arith.mulf %x, %half : f32
      %d = arith.subf %h, %m : f32
      %e = math.exp %d : f32
      %y = arith.divf %e, %s : f32
      loopir.store %y, %out[%row, %j] : memref<33x70xf32>
    }
  }
  return %r : tensor<33x70xf32>
}

// -----

// A sum of exp(y - max(x)) with y not x stays two folds.
// CHECK-LABEL: func.func @another_value
// CHECK: tileir.fold max
// CHECK: tileir.fold add
// CHECK-NOT: tileir.composite_fold
func.func @another_value(%a: tensor<33x70xf32>) -> tensor<33xf32> {
  %r = tileir.kernel ins(%a : tensor<33x70xf32>) -> tensor<33xf32> domain [33] tile [1] threads 64 {
  ^bb0(%in: memref<33x70xf32>, %out: memref<33xf32>):
    %row = tileir.point 0
    %half = arith.constant 0.5 : f32
    %m = tileir.fold max(0xFF800000 : f32) (%k) in [70] {
      %x = loopir.load %in[%row, %k] : memref<33x70xf32>
      tileir.yield %x : f32
    }
    %s = tileir.fold add(0.0 : f32) (%k) in [70] {
      %x = loopir.load %in[%row, %k] : memref<33x70xf32>
      %h = arith.mulf %x, %half : f32
      %d = arith.subf %h, %m : f32
      %e = math.exp %d : f32
      tileir.yield %e : f32
    }
    loopir.store %s, %out[%row] : memref<33xf32>
  }
  return %r : tensor<33xf32>
}

// -----

// Variance's mean, then the sum of squared deviations from it: one
// Welford fold of (1, x, 0) over (count, mean, squares). The mean's users
// get Welford's mean, the second sum's its squared deviations; another
// use of the first sum gets count * mean.
// CHECK-LABEL: func.func @variance
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[F:.*]]:3 = tileir.composite_fold (%[[K:.*]]) in [70] identity(0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32) {
// CHECK-NEXT: %[[X:.*]] = loopir.load %{{.*}}[%{{.*}}, %[[K]]] : memref<33x70xf32>
// CHECK-NEXT: tileir.yield %[[ONE]], %[[X]], %[[ZERO]] : f32, f32, f32
// CHECK-NEXT: } combine {
// CHECK-NEXT: ^bb0(%[[N1:.*]]: f32, %[[A1:.*]]: f32, %[[Q1:.*]]: f32, %[[N2:.*]]: f32, %[[A2:.*]]: f32, %[[Q2:.*]]: f32):
// CHECK-NEXT: %[[N:.*]] = arith.addf %[[N1]], %[[N2]] : f32
// CHECK-NEXT: %[[EMPTY:.*]] = arith.cmpf oeq, %[[N]], %[[ZERO]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.divf %[[N2]], %[[N]] : f32
// CHECK-NEXT: %[[W:.*]] = arith.select %[[EMPTY]], %[[ZERO]], %[[R]] : f32
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[A2]], %[[A1]] : f32
// CHECK: tileir.yield %[[N]], %{{.*}}, %{{.*}} : f32, f32, f32
// CHECK-NOT: tileir.fold
// CHECK-DAG: %[[VAR:.*]] = arith.mulf %[[F]]#2, %{{.*}} : f32
// CHECK-DAG: %[[SUM:.*]] = arith.mulf %[[F]]#1, %{{.*}} : f32
// CHECK: loopir.store %[[VAR]], %{{.*}}[%{{.*}}] : memref<33xf32>
// CHECK: loopir.store %[[SUM]], %{{.*}}[%{{.*}}] : memref<33xf32>
// CHECK: loopir.store %[[F]]#1, %{{.*}}[%{{.*}}] : memref<33xf32>
func.func @variance(%a: tensor<33x70xf32>) -> (tensor<33xf32>, tensor<33xf32>, tensor<33xf32>) {
  %r:3 = tileir.kernel ins(%a : tensor<33x70xf32>) -> tensor<33xf32>, tensor<33xf32>, tensor<33xf32> domain [33] tile [1] threads 64 {
  ^bb0(%in: memref<33x70xf32>, %var: memref<33xf32>, %total: memref<33xf32>, %mean: memref<33xf32>):
    %row = tileir.point 0
    %inv = arith.constant 0.0142857144 : f32
    %s = tileir.fold add(0.0 : f32) (%k) in [70] {
      %x = loopir.load %in[%row, %k] : memref<33x70xf32>
      tileir.yield %x : f32
    }
    %a1 = arith.mulf %s, %inv : f32
    %q = tileir.fold add(0.0 : f32) (%k) in [70] {
      %x = loopir.load %in[%row, %k] : memref<33x70xf32>
      %d = arith.subf %x, %a1 : f32
      %d2 = arith.mulf %d, %d : f32
      tileir.yield %d2 : f32
    }
    %v = arith.mulf %q, %inv : f32
    loopir.store %v, %var[%row] : memref<33xf32>
    loopir.store %s, %total[%row] : memref<33xf32>
    loopir.store %a1, %mean[%row] : memref<33xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<33xf32>, tensor<33xf32>, tensor<33xf32>
}

// -----

// Squares about a value that is not the first sum's mean (here sum / 69,
// over 70 points) stay two folds.
// CHECK-LABEL: func.func @not_the_mean
// CHECK: tileir.fold add
// CHECK: tileir.fold add
// CHECK-NOT: tileir.composite_fold
func.func @not_the_mean(%a: tensor<33x70xf32>) -> tensor<33xf32> {
  %r = tileir.kernel ins(%a : tensor<33x70xf32>) -> tensor<33xf32> domain [33] tile [1] threads 64 {
  ^bb0(%in: memref<33x70xf32>, %out: memref<33xf32>):
    %row = tileir.point 0
    %n = arith.constant 69.0 : f32
    %s = tileir.fold add(0.0 : f32) (%k) in [70] {
      %x = loopir.load %in[%row, %k] : memref<33x70xf32>
      tileir.yield %x : f32
    }
    %a1 = arith.divf %s, %n : f32
    %q = tileir.fold add(0.0 : f32) (%k) in [70] {
      %x = loopir.load %in[%row, %k] : memref<33x70xf32>
      %d = arith.subf %x, %a1 : f32
      %d2 = arith.mulf %d, %d : f32
      tileir.yield %d2 : f32
    }
    loopir.store %q, %out[%row] : memref<33xf32>
  }
  return %r : tensor<33xf32>
}

// -----

// Attention's output row for one query: the max of the scores x, the sum
// of exp(x - max), and per output element the sum of exp(x - max) / l *
// v. One online-softmax fold over (max, l, a0, a1): a point contributes
// (x, 1, v0, v1), the row constant 1 / l multiplies each a afterwards,
// and the scores are computed once per point.
// CHECK-LABEL: func.func @attention_row
// CHECK: %[[F:.*]]:4 = tileir.composite_fold (%[[J:.*]]) in [45] identity(0xFF800000 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32) {
// CHECK: %[[S:.*]] = loopir.reduce add
// CHECK: %[[X:.*]] = arith.mulf %[[S]], %{{.*}} : f32
// CHECK-NOT: math.exp
// CHECK: %[[V0:.*]] = loopir.load %{{.*}}[%{{.*}}, %[[J]], %{{.*}}] : memref<3x45x2xf32>
// CHECK: %[[V1:.*]] = loopir.load %{{.*}}[%{{.*}}, %[[J]], %{{.*}}] : memref<3x45x2xf32>
// CHECK: tileir.yield %[[X]], %{{.*}}, %[[V0]], %[[V1]] : f32, f32, f32, f32
// CHECK: } combine {
// CHECK-COUNT-2: math.exp
// CHECK: tileir.yield
// CHECK-NOT: tileir.fold
// CHECK: %[[L:.*]] = arith.select %{{.*}}, %{{.*}}, %[[F]]#1 : f32
// CHECK: %[[R:.*]] = arith.divf %{{.*}}, %[[L]] : f32
// CHECK: %[[A0:.*]] = arith.select %{{.*}}, %{{.*}}, %[[F]]#2 : f32
// CHECK: %[[O0:.*]] = arith.mulf %[[A0]], %[[R]] : f32
// CHECK: %[[A1:.*]] = arith.select %{{.*}}, %{{.*}}, %[[F]]#3 : f32
// CHECK: %[[O1:.*]] = arith.mulf %[[A1]], %[[R]] : f32
// CHECK: loopir.store %[[O0]]
// CHECK: loopir.store %[[O1]]
func.func @attention_row(%q: tensor<3x16xf32>, %k: tensor<3x45x16xf32>, %v: tensor<3x45x2xf32>) -> tensor<3x2xf32> {
  %r = tileir.kernel ins(%q, %k, %v : tensor<3x16xf32>, tensor<3x45x16xf32>, tensor<3x45x2xf32>) -> tensor<3x2xf32> domain [3] tile [1] threads 32 {
  ^bb0(%qb: memref<3x16xf32>, %kb: memref<3x45x16xf32>, %vb: memref<3x45x2xf32>, %out: memref<3x2xf32>):
    %row = tileir.point 0
    %scale = arith.constant 0.25 : f32
    %one = arith.constant 1.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = tileir.fold max(0xFF800000 : f32) (%j) in [45] {
      %s = loopir.reduce add (%d) in [16] : f32 {
        %a = loopir.load %qb[%row, %d] : memref<3x16xf32>
        %b = loopir.load %kb[%row, %j, %d] : memref<3x45x16xf32>
        %p = arith.mulf %a, %b : f32
        loopir.yield %p : f32
      }
      %x = arith.mulf %s, %scale : f32
      tileir.yield %x : f32
    }
    %l = tileir.fold add(0.0 : f32) (%j) in [45] {
      %s = loopir.reduce add (%d) in [16] : f32 {
        %a = loopir.load %qb[%row, %d] : memref<3x16xf32>
        %b = loopir.load %kb[%row, %j, %d] : memref<3x45x16xf32>
        %p = arith.mulf %a, %b : f32
        loopir.yield %p : f32
      }
      %x = arith.mulf %s, %scale : f32
      %y = arith.subf %x, %m : f32
      %e = math.exp %y : f32
      tileir.yield %e : f32
    }
    %rl = arith.divf %one, %l : f32
    %o:2 = tileir.fold add(0.0 : f32), add(0.0 : f32) (%j) in [45] {
      %s = loopir.reduce add (%d) in [16] : f32 {
        %a = loopir.load %qb[%row, %d] : memref<3x16xf32>
        %b = loopir.load %kb[%row, %j, %d] : memref<3x45x16xf32>
        %p = arith.mulf %a, %b : f32
        loopir.yield %p : f32
      }
      %x = arith.mulf %s, %scale : f32
      %y = arith.subf %x, %m : f32
      %e = math.exp %y : f32
      %w = arith.mulf %e, %rl : f32
      %v0 = loopir.load %vb[%row, %j, %c0] : memref<3x45x2xf32>
      %p0 = arith.mulf %w, %v0 : f32
      %v1 = loopir.load %vb[%row, %j, %c1] : memref<3x45x2xf32>
      %p1 = arith.mulf %w, %v1 : f32
      tileir.yield %p0, %p1 : f32, f32
    }
    loopir.store %o#0, %out[%row, %c0] : memref<3x2xf32>
    loopir.store %o#1, %out[%row, %c1] : memref<3x2xf32>
  }
  return %r : tensor<3x2xf32>
}

// -----

// The same row whose softmax rounds its weights to bf16 before P . V (a
// decode step in halves, which loopir-fuse makes a flash row): the fold
// looks through the rounding and sums the weights unrounded, as a point
// contributes (x, 1, v0, v1) all the same; the row's values are bf16.
// CHECK-LABEL: func.func @rounded_weights
// CHECK: tileir.composite_fold (%[[J:.*]]) in [45] identity(0xFF800000 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32) {
// CHECK: %[[V0:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[V1:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK: tileir.yield %{{.*}}, %{{.*}}, %[[V0]], %[[V1]] : f32, f32, f32, f32
// CHECK-NOT: tileir.fold
func.func @rounded_weights(%q: tensor<3x16xf32>, %k: tensor<3x45x16xf32>, %v: tensor<3x45x2xbf16>) -> tensor<3x2xf32> {
  %r = tileir.kernel ins(%q, %k, %v : tensor<3x16xf32>, tensor<3x45x16xf32>, tensor<3x45x2xbf16>) -> tensor<3x2xf32> domain [3] tile [1] threads 32 {
  ^bb0(%qb: memref<3x16xf32>, %kb: memref<3x45x16xf32>, %vb: memref<3x45x2xbf16>, %out: memref<3x2xf32>):
    %row = tileir.point 0
    %one = arith.constant 1.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = tileir.fold max(0xFF800000 : f32) (%j) in [45] {
      %s = loopir.reduce add (%d) in [16] : f32 {
        %a = loopir.load %qb[%row, %d] : memref<3x16xf32>
        %b = loopir.load %kb[%row, %j, %d] : memref<3x45x16xf32>
        %p = arith.mulf %a, %b : f32
        loopir.yield %p : f32
      }
      tileir.yield %s : f32
    }
    %l = tileir.fold add(0.0 : f32) (%j) in [45] {
      %s = loopir.reduce add (%d) in [16] : f32 {
        %a = loopir.load %qb[%row, %d] : memref<3x16xf32>
        %b = loopir.load %kb[%row, %j, %d] : memref<3x45x16xf32>
        %p = arith.mulf %a, %b : f32
        loopir.yield %p : f32
      }
      %y = arith.subf %s, %m : f32
      %e = math.exp %y : f32
      tileir.yield %e : f32
    }
    %rl = arith.divf %one, %l : f32
    %o:2 = tileir.fold add(0.0 : f32), add(0.0 : f32) (%j) in [45] {
      %s = loopir.reduce add (%d) in [16] : f32 {
        %a = loopir.load %qb[%row, %d] : memref<3x16xf32>
        %b = loopir.load %kb[%row, %j, %d] : memref<3x45x16xf32>
        %p = arith.mulf %a, %b : f32
        loopir.yield %p : f32
      }
      %y = arith.subf %s, %m : f32
      %e = math.exp %y : f32
      %w = arith.mulf %e, %rl : f32
      %wh = arith.truncf %w : f32 to bf16
      %wr = arith.extf %wh : bf16 to f32
      %h0 = loopir.load %vb[%row, %j, %c0] : memref<3x45x2xbf16>
      %v0 = arith.extf %h0 : bf16 to f32
      %p0 = arith.mulf %wr, %v0 : f32
      %h1 = loopir.load %vb[%row, %j, %c1] : memref<3x45x2xbf16>
      %v1 = arith.extf %h1 : bf16 to f32
      %p1 = arith.mulf %wr, %v1 : f32
      tileir.yield %p0, %p1 : f32, f32
    }
    loopir.store %o#0, %out[%row, %c0] : memref<3x2xf32>
    loopir.store %o#1, %out[%row, %c1] : memref<3x2xf32>
  }
  return %r : tensor<3x2xf32>
}

// -----

// An additive mask (`x + select(future, -inf, 0)`, a causal one here):
// a masked key contributes the monoid's identity (-inf, 0, 0, 0), so the
// schedule may skip chunks masked for all its rows.
// CHECK-LABEL: func.func @masked_attention_row
// CHECK: tileir.composite_fold
// CHECK: %[[FUTURE:.*]] = arith.cmpi sgt
// CHECK: %[[X:.*]] = arith.addf
// CHECK: %[[SCORE:.*]] = arith.select %[[FUTURE]], %{{.*}}, %[[X]] : f32
// CHECK: %[[W:.*]] = arith.select %[[FUTURE]], %{{.*}}, %{{.*}} : f32
// CHECK: %[[W0:.*]] = arith.select %[[FUTURE]], %{{.*}}, %{{.*}} : f32
// CHECK: %[[W1:.*]] = arith.select %[[FUTURE]], %{{.*}}, %{{.*}} : f32
// CHECK: tileir.yield %[[SCORE]], %[[W]], %[[W0]], %[[W1]] : f32, f32, f32, f32
func.func @masked_attention_row(%q: tensor<3x16xf32>, %k: tensor<3x45x16xf32>, %v: tensor<3x45x2xf32>) -> tensor<3x2xf32> {
  %r = tileir.kernel ins(%q, %k, %v : tensor<3x16xf32>, tensor<3x45x16xf32>, tensor<3x45x2xf32>) -> tensor<3x2xf32> domain [3] tile [1] threads 32 {
  ^bb0(%qb: memref<3x16xf32>, %kb: memref<3x45x16xf32>, %vb: memref<3x45x2xf32>, %out: memref<3x2xf32>):
    %row = tileir.point 0
    %scale = arith.constant 0.25 : f32
    %one = arith.constant 1.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = tileir.fold max(0xFF800000 : f32) (%j) in [45] {
      %s = loopir.reduce add (%d) in [16] : f32 {
        %a = loopir.load %qb[%row, %d] : memref<3x16xf32>
        %b = loopir.load %kb[%row, %j, %d] : memref<3x45x16xf32>
        %p = arith.mulf %a, %b : f32
        loopir.yield %p : f32
      }
      %sx = arith.mulf %s, %scale : f32
      %future = arith.cmpi sgt, %j, %row : index
      %mask = arith.select %future, %ninf, %zero : f32
      %x = arith.addf %sx, %mask : f32
      tileir.yield %x : f32
    }
    %l = tileir.fold add(0.0 : f32) (%j) in [45] {
      %s = loopir.reduce add (%d) in [16] : f32 {
        %a = loopir.load %qb[%row, %d] : memref<3x16xf32>
        %b = loopir.load %kb[%row, %j, %d] : memref<3x45x16xf32>
        %p = arith.mulf %a, %b : f32
        loopir.yield %p : f32
      }
      %sx = arith.mulf %s, %scale : f32
      %future = arith.cmpi sgt, %j, %row : index
      %mask = arith.select %future, %ninf, %zero : f32
      %x = arith.addf %sx, %mask : f32
      %y = arith.subf %x, %m : f32
      %e = math.exp %y : f32
      tileir.yield %e : f32
    }
    %rl = arith.divf %one, %l : f32
    %o:2 = tileir.fold add(0.0 : f32), add(0.0 : f32) (%j) in [45] {
      %s = loopir.reduce add (%d) in [16] : f32 {
        %a = loopir.load %qb[%row, %d] : memref<3x16xf32>
        %b = loopir.load %kb[%row, %j, %d] : memref<3x45x16xf32>
        %p = arith.mulf %a, %b : f32
        loopir.yield %p : f32
      }
      %sx = arith.mulf %s, %scale : f32
      %future = arith.cmpi sgt, %j, %row : index
      %mask = arith.select %future, %ninf, %zero : f32
      %x = arith.addf %sx, %mask : f32
      %y = arith.subf %x, %m : f32
      %e = math.exp %y : f32
      %w = arith.mulf %e, %rl : f32
      %v0 = loopir.load %vb[%row, %j, %c0] : memref<3x45x2xf32>
      %p0 = arith.mulf %w, %v0 : f32
      %v1 = loopir.load %vb[%row, %j, %c1] : memref<3x45x2xf32>
      %p1 = arith.mulf %w, %v1 : f32
      tileir.yield %p0, %p1 : f32, f32
    }
    loopir.store %o#0, %out[%row, %c0] : memref<3x2xf32>
    loopir.store %o#1, %out[%row, %c1] : memref<3x2xf32>
  }
  return %r : tensor<3x2xf32>
}

// -----

// Sums weighted by something other than exp(x - max) stay folds (online
// softmax still takes the max and the normalizer).
// CHECK-LABEL: func.func @not_softmax_weights
// CHECK: tileir.composite_fold
// CHECK: tileir.fold add(0.000000e+00 : f32), add(0.000000e+00 : f32)
func.func @not_softmax_weights(%a: tensor<3x45xf32>, %v: tensor<3x45x2xf32>) -> tensor<3x2xf32> {
  %r = tileir.kernel ins(%a, %v : tensor<3x45xf32>, tensor<3x45x2xf32>) -> tensor<3x2xf32> domain [3] tile [1] threads 32 {
  ^bb0(%ab: memref<3x45xf32>, %vb: memref<3x45x2xf32>, %out: memref<3x2xf32>):
    %row = tileir.point 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = tileir.fold max(0xFF800000 : f32) (%j) in [45] {
      %x = loopir.load %ab[%row, %j] : memref<3x45xf32>
      tileir.yield %x : f32
    }
    %l = tileir.fold add(0.0 : f32) (%j) in [45] {
      %x = loopir.load %ab[%row, %j] : memref<3x45xf32>
      %y = arith.subf %x, %m : f32
      %e = math.exp %y : f32
      tileir.yield %e : f32
    }
    %o:2 = tileir.fold add(0.0 : f32), add(0.0 : f32) (%j) in [45] {
      %x = loopir.load %ab[%row, %j] : memref<3x45xf32>
      %w = arith.mulf %x, %l : f32
      %v0 = loopir.load %vb[%row, %j, %c0] : memref<3x45x2xf32>
      %p0 = arith.mulf %w, %v0 : f32
      %v1 = loopir.load %vb[%row, %j, %c1] : memref<3x45x2xf32>
      %p1 = arith.mulf %w, %v1 : f32
      tileir.yield %p0, %p1 : f32, f32
    }
    loopir.store %o#0, %out[%row, %c0] : memref<3x2xf32>
    loopir.store %o#1, %out[%row, %c1] : memref<3x2xf32>
  }
  return %r : tensor<3x2xf32>
}

// -----

// logsumexp as fusion leaves it: the max, then the sum of exp(x - max)
// beside the max again (recomputed for the final + max). The second max
// is the first's: it goes, and the sum pairs with the max as online
// softmax, one composite fold for the row.
// CHECK-LABEL: func.func @logsumexp
// CHECK: %[[F:.*]]:2 = tileir.composite_fold (%{{.*}}) in [300]
// CHECK-NOT: tileir.fold
// CHECK: math.log
// CHECK: arith.addf %{{.*}}, %[[F]]#0 : f32
func.func @logsumexp(%x: tensor<4x300xf32>) -> tensor<4xf32> {
  %r = tileir.kernel ins(%x : tensor<4x300xf32>) -> tensor<4xf32> domain [4] tile [1] threads 32 {
  ^bb0(%in: memref<4x300xf32>, %out: memref<4xf32>):
    %row = tileir.point 0
    %m = tileir.fold max(0xFF800000 : f32) (%k) in [300] {
      %v = loopir.load %in[%row, %k] : memref<4x300xf32>
      tileir.yield %v : f32
    }
    %s, %m2 = tileir.fold add(0.0 : f32), max(0xFF800000 : f32) (%k) in [300] {
      %v = loopir.load %in[%row, %k] : memref<4x300xf32>
      %d = arith.subf %v, %m : f32
      %e = math.exp %d : f32
      tileir.yield %e, %v : f32, f32
    }
    %l = math.log %s : f32
    %y = arith.addf %l, %m2 : f32
    loopir.store %y, %out[%row] : memref<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// logsumexp as torch 2.x decomposes it: the sum of exp(x - m') with the
// max guarded, m' = 0 where it is infinite. One composite fold; the sum is
// the online one where the max is finite, inf where it is +inf and 0
// where it is -inf (what exp(x - 0) sums to there).
// CHECK-LABEL: func.func @guarded_logsumexp
// CHECK: %[[F:.*]]:2 = tileir.composite_fold (%{{.*}}) in [300]
// CHECK-NOT: tileir.fold
// CHECK: %[[ABS:.*]] = math.absf %[[F]]#0 : f32
// CHECK: %[[INF:.*]] = arith.cmpf oeq, %[[ABS]], %{{.*}} : f32
// CHECK: %[[POS:.*]] = arith.cmpf ogt, %[[F]]#0, %{{.*}} : f32
// CHECK: %[[EXTREME:.*]] = arith.select %[[POS]], %{{.*}}, %{{.*}} : f32
// CHECK: %[[S:.*]] = arith.select %[[INF]], %[[EXTREME]], %[[F]]#1 : f32
// CHECK: math.log %[[S]] : f32
func.func @guarded_logsumexp(%x: tensor<4x300xf32>) -> tensor<4xf32> {
  %r = tileir.kernel ins(%x : tensor<4x300xf32>) -> tensor<4xf32> domain [4] tile [1] threads 32 {
  ^bb0(%in: memref<4x300xf32>, %out: memref<4xf32>):
    %inf = arith.constant 0x7F800000 : f32
    %zero = arith.constant 0.0 : f32
    %row = tileir.point 0
    %m = tileir.fold max(0xFF800000 : f32) (%k) in [300] {
      %v = loopir.load %in[%row, %k] : memref<4x300xf32>
      tileir.yield %v : f32
    }
    %a = math.absf %m : f32
    %isinf = arith.cmpf oeq, %a, %inf : f32
    %g = arith.select %isinf, %zero, %m : f32
    %s = tileir.fold add(0.0 : f32) (%k) in [300] {
      %v = loopir.load %in[%row, %k] : memref<4x300xf32>
      %d = arith.subf %v, %g : f32
      %e = math.exp %d : f32
      tileir.yield %e : f32
    }
    %l = math.log %s : f32
    %y = arith.addf %l, %g : f32
    loopir.store %y, %out[%row] : memref<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Softmax's sum beside another sum in one fold (loop fusion gave SDPA's
// normalizer and its boolean mask's count of kept keys one loop): the sum
// leaves that fold and pairs with its max as online softmax; the count
// keeps a fold of its own, without the exponentials.
// CHECK-LABEL: func.func @normalizer_beside_a_count
// CHECK: %[[F:.*]]:2 = tileir.composite_fold (%{{.*}}) in [45]
// CHECK: tileir.fold add(0 : i64) (%{{.*}}) in [45] {
// CHECK-NOT: math.exp
// CHECK: tileir.yield %{{.*}} : i64
func.func @normalizer_beside_a_count(%x: tensor<3x45xf32>, %keep: tensor<3x45xi1>) -> tensor<3xf32> {
  %r = tileir.kernel ins(%x, %keep : tensor<3x45xf32>, tensor<3x45xi1>) -> tensor<3xf32> domain [3] tile [1] threads 32 {
  ^bb0(%xb: memref<3x45xf32>, %kb: memref<3x45xi1>, %out: memref<3xf32>):
    %row = tileir.point 0
    %m = tileir.fold max(0xFF800000 : f32) (%j) in [45] {
      %v = loopir.load %xb[%row, %j] : memref<3x45xf32>
      tileir.yield %v : f32
    }
    %s, %n = tileir.fold add(0.0 : f32), add(0 : i64) (%j) in [45] {
      %v = loopir.load %xb[%row, %j] : memref<3x45xf32>
      %d = arith.subf %v, %m : f32
      %e = math.exp %d : f32
      %k = loopir.load %kb[%row, %j] : memref<3x45xi1>
      %c = arith.extui %k : i1 to i64
      tileir.yield %e, %c : f32, i64
    }
    %f = arith.sitofp %n : i64 to f32
    %y = arith.addf %s, %f : f32
    loopir.store %y, %out[%row] : memref<3xf32>
  }
  return %r : tensor<3xf32>
}
