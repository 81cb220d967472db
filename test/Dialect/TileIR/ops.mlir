// RUN: strata-opt %s | FileCheck %s
// RUN: strata-opt %s | strata-opt | FileCheck %s

// CHECK-LABEL: func.func @scheduled
func.func @scheduled(%a: tensor<1000x37xf32>, %b: tensor<37xf32>) -> tensor<1000x37xf32> {
  // CHECK: tileir.kernel ins(%{{.*}}, %{{.*}} : tensor<1000x37xf32>, tensor<37xf32>) -> tensor<1000x37xf32> domain [1000, 37] tile [8, 64] threads 128 {
  %r = tileir.kernel ins(%a, %b : tensor<1000x37xf32>, tensor<37xf32>) -> tensor<1000x37xf32>
      domain [1000, 37] tile [8, 64] threads 128 {
  ^bb0(%in: memref<1000x37xf32>, %row: memref<37xf32>, %out: memref<1000x37xf32>):
    // CHECK: %[[P0:.*]] = tileir.program_id 0
    // CHECK: %[[P1:.*]] = tileir.program_id 1
    %p0 = tileir.program_id 0
    %p1 = tileir.program_id 1
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %o0 = arith.muli %p0, %c8 : index
    %o1 = arith.muli %p1, %c64 : index
    // CHECK: tileir.tile_offset 1
    %t1 = tileir.tile_offset 1
    // CHECK: tileir.coordinate %{{.*}} dim 1 : <8x64xindex>
    %j = tileir.coordinate %t1 dim 1 : !tileir.tile<8x64xindex>
    // CHECK: tileir.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<1000x37xf32> -> <8x64xf32>
    %x = tileir.load %in[%o0, %o1] : memref<1000x37xf32> -> !tileir.tile<8x64xf32>
    // CHECK: tileir.load %{{.*}}[%{{.*}}, %{{.*}}] map #{{.*}} : memref<37xf32> -> <8x64xf32>
    %y = tileir.load %row[%o0, %o1] map affine_map<(d0, d1) -> (d1)> : memref<37xf32> -> !tileir.tile<8x64xf32>
    // CHECK: tileir.map ins(%{{.*}}, %{{.*}} : !tileir.tile<8x64xf32>, !tileir.tile<8x64xf32>) -> !tileir.tile<8x64xf32> {
    // CHECK-NEXT: ^bb0(%[[E:.*]]: f32, %[[F:.*]]: f32):
    // CHECK-NEXT: %[[S:.*]] = arith.addf %[[E]], %[[F]] : f32
    // CHECK-NEXT: tileir.yield %[[S]] : f32
    %s = tileir.map ins(%x, %y : !tileir.tile<8x64xf32>, !tileir.tile<8x64xf32>) -> !tileir.tile<8x64xf32> {
    ^bb0(%e: f32, %f: f32):
      %v = arith.addf %e, %f : f32
      tileir.yield %v : f32
    }
    // CHECK: tileir.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : <8x64xf32>, memref<1000x37xf32>
    tileir.store %s, %out[%o0, %o1] : !tileir.tile<8x64xf32>, memref<1000x37xf32>
  }
  return %r : tensor<1000x37xf32>
}

// CHECK-LABEL: func.func @generic
// CHECK: tileir.for_each_point [%{{.*}}] (%[[I:.*]]) {
// CHECK-NEXT: loopir.reduce add
func.func @generic(%a: tensor<33x70xf32>) -> tensor<33xf32> {
  %r = tileir.kernel ins(%a : tensor<33x70xf32>) -> tensor<33xf32> domain [33] tile [64] threads 64 {
  ^bb0(%in: memref<33x70xf32>, %out: memref<33xf32>):
    %p = tileir.program_id 0
    %c64 = arith.constant 64 : index
    %o = arith.muli %p, %c64 : index
    tileir.for_each_point [%o] (%i) {
      %s = loopir.reduce add (%k) in [70] : f32 {
        %x = loopir.load %in[%i, %k] : memref<33x70xf32>
        loopir.yield %x : f32
      }
      loopir.store %s, %out[%i] : memref<33xf32>
    }
  }
  return %r : tensor<33xf32>
}

// A cooperative row program: folds with explicit monoids (one pass for two
// of them), uniform scalar code, and a distributed write-back.
// CHECK-LABEL: func.func @row_program
// CHECK: domain [33] tile [1] threads 64
// CHECK: %[[M:.*]] = tileir.fold max(0xFF800000 : f32) (%[[K:.*]]) in [70] {
// CHECK: tileir.yield %{{.*}} : f32
// CHECK: %{{.*}}:2 = tileir.fold add(0.000000e+00 : f32), add(0.000000e+00 : f32) (%{{.*}}) in [70] {
// CHECK: tileir.fold min(2147483647 : i32), mul(1 : i32) (%{{.*}}, %{{.*}}) in [7, 10] {
// CHECK: tileir.distribute (%[[J:.*]]) in [70] {
// CHECK-NEXT: loopir.load
// CHECK-NOT: tileir.yield
// CHECK: }
func.func @row_program(%a: tensor<33x70xf32>) -> tensor<33x70xf32> {
  %r = tileir.kernel ins(%a : tensor<33x70xf32>) -> tensor<33x70xf32> domain [33] tile [1] threads 64 {
  ^bb0(%in: memref<33x70xf32>, %out: memref<33x70xf32>):
    %row = tileir.program_id 0
    %m = tileir.fold max(0xFF800000 : f32) (%k) in [70] {
      %x = loopir.load %in[%row, %k] : memref<33x70xf32>
      tileir.yield %x : f32
    }
    %s, %q = tileir.fold add(0.0 : f32), add(0.0 : f32) (%k) in [70] {
      %x = loopir.load %in[%row, %k] : memref<33x70xf32>
      %x2 = arith.mulf %x, %x : f32
      tileir.yield %x, %x2 : f32, f32
    }
    %lo, %p = tileir.fold min(2147483647 : i32), mul(1 : i32) (%u, %v) in [7, 10] {
      %c = arith.constant 3 : i32
      tileir.yield %c, %c : i32, i32
    }
    tileir.distribute (%j) in [70] {
      %x = loopir.load %in[%row, %j] : memref<33x70xf32>
      %y = arith.subf %x, %m : f32
      %z = arith.mulf %y, %s : f32
      loopir.store %z, %out[%row, %j] : memref<33x70xf32>
    }
  }
  return %r : tensor<33x70xf32>
}

// A contraction tile: the operand regions take the point without its
// column (lhs) or row (rhs), then k.
// CHECK-LABEL: func.func @contract
// CHECK: tileir.contract [%{{.*}}, %{{.*}}] k 65 step 16 : <32x32xf32> lhs {
// CHECK: } rhs {
func.func @contract(%a: tensor<17x65xf32>, %b: tensor<65x19xf32>) -> tensor<17x19xf32> {
  %r = tileir.kernel ins(%a, %b : tensor<17x65xf32>, tensor<65x19xf32>) -> tensor<17x19xf32> domain [17, 19] tile [32, 32] threads 256 {
  ^bb0(%ab: memref<17x65xf32>, %bb: memref<65x19xf32>, %out: memref<17x19xf32>):
    %c32 = arith.constant 32 : index
    %p0 = tileir.program_id 0
    %p1 = tileir.program_id 1
    %o0 = arith.muli %p0, %c32 : index
    %o1 = arith.muli %p1, %c32 : index
    %c = tileir.contract [%o0, %o1] k 65 step 16 : !tileir.tile<32x32xf32> lhs {
    ^bb0(%i: index, %k: index):
      %x = loopir.load %ab[%i, %k] : memref<17x65xf32>
      tileir.yield %x : f32
    } rhs {
    ^bb0(%j: index, %k: index):
      %w = loopir.load %bb[%k, %j] : memref<65x19xf32>
      tileir.yield %w : f32
    }
    tileir.store %c, %out[%o0, %o1] : !tileir.tile<32x32xf32>, memref<17x19xf32>
  }
  return %r : tensor<17x19xf32>
}

// Composite monoids: Welford's (count, mean, M2), where two partial
// statistics combine by Chan's formula, and argmax's (value, index), whose
// ties keep the first index as PyTorch does.
// CHECK-LABEL: func.func @composite_monoids
// CHECK: %{{.*}}:3 = tileir.composite_fold (%[[K:.*]]) in [70] identity(0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32) {
// CHECK: tileir.yield %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32
// CHECK-NEXT: } combine {
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK: %{{.*}}:2 = tileir.composite_fold (%{{.*}}) in [70] identity(0xFF800000 : f32, 9223372036854775807 : i64) {
func.func @composite_monoids(%a: tensor<33x70xf32>) -> (tensor<33xf32>, tensor<33xi64>) {
  %r:2 = tileir.kernel ins(%a : tensor<33x70xf32>) -> tensor<33xf32>, tensor<33xi64> domain [33] tile [1] threads 64 {
  ^bb0(%in: memref<33x70xf32>, %var: memref<33xf32>, %arg: memref<33xi64>):
    %row = tileir.point 0
    %n, %mean, %m2 = tileir.composite_fold (%k) in [70] identity(0.0 : f32, 0.0 : f32, 0.0 : f32) {
      %x = loopir.load %in[%row, %k] : memref<33x70xf32>
      %one = arith.constant 1.0 : f32
      %zero = arith.constant 0.0 : f32
      tileir.yield %one, %x, %zero : f32, f32, f32
    } combine {
    ^bb0(%na: f32, %ma: f32, %qa: f32, %nb: f32, %mb: f32, %qb: f32):
      %zero = arith.constant 0.0 : f32
      %nn = arith.addf %na, %nb : f32
      %empty = arith.cmpf oeq, %nn, %zero : f32
      %d = arith.subf %mb, %ma : f32
      %wb = arith.divf %nb, %nn : f32
      %wb0 = arith.select %empty, %zero, %wb : f32
      %dw = arith.mulf %d, %wb0 : f32
      %mm = arith.addf %ma, %dw : f32
      %q = arith.addf %qa, %qb : f32
      %dd = arith.mulf %d, %dw : f32
      %dn = arith.mulf %dd, %na : f32
      %qq = arith.addf %q, %dn : f32
      tileir.yield %nn, %mm, %qq : f32, f32, f32
    }
    %v = arith.divf %m2, %n : f32
    loopir.store %v, %var[%row] : memref<33xf32>
    %best, %at = tileir.composite_fold (%k) in [70] identity(0xFF800000 : f32, 9223372036854775807 : i64) {
      %x = loopir.load %in[%row, %k] : memref<33x70xf32>
      %i = arith.index_cast %k : index to i64
      tileir.yield %x, %i : f32, i64
    } combine {
    ^bb0(%xa: f32, %ia: i64, %xb: f32, %ib: i64):
      %gt = arith.cmpf ogt, %xb, %xa : f32
      %eq = arith.cmpf oeq, %xb, %xa : f32
      %first = arith.cmpi slt, %ib, %ia : i64
      %tie = arith.andi %eq, %first : i1
      %take = arith.ori %gt, %tie : i1
      %x = arith.select %take, %xb, %xa : f32
      %i = arith.select %take, %ib, %ia : i64
      tileir.yield %x, %i : f32, i64
    }
    loopir.store %at, %arg[%row] : memref<33xi64>
  }
  return %r#0, %r#1 : tensor<33xf32>, tensor<33xi64>
}

// A scan: the body yields each point's contributions, the each region gets
// each point's index and inclusive prefixes (cumsum and running maximum in
// one pass).
// CHECK-LABEL: func.func @scan
// CHECK: tileir.scan add(0.000000e+00 : f32), max(0xFF800000 : f32) (%[[K:.*]]) in [70] {
// CHECK: tileir.yield %{{.*}}, %{{.*}} : f32, f32
// CHECK-NEXT: } each {
// CHECK-NEXT: ^bb0(%[[I:.*]]: index, %[[S:.*]]: f32, %[[M:.*]]: f32):
// CHECK: loopir.store %[[S]], %{{.*}}[%{{.*}}, %[[I]]]
// CHECK: tileir.yield
func.func @scan(%a: tensor<33x70xf32>) -> (tensor<33x70xf32>, tensor<33x70xf32>) {
  %r:2 = tileir.kernel ins(%a : tensor<33x70xf32>) -> tensor<33x70xf32>, tensor<33x70xf32> domain [33] tile [1] threads 32 {
  ^bb0(%in: memref<33x70xf32>, %sums: memref<33x70xf32>, %maxima: memref<33x70xf32>):
    %row = tileir.point 0
    tileir.scan add(0.0 : f32), max(0xFF800000 : f32) (%k) in [70] {
      %x = loopir.load %in[%row, %k] : memref<33x70xf32>
      tileir.yield %x, %x : f32, f32
    } each {
    ^bb0(%i: index, %s: f32, %m: f32):
      loopir.store %s, %sums[%row, %i] : memref<33x70xf32>
      loopir.store %m, %maxima[%row, %i] : memref<33x70xf32>
      tileir.yield
    }
  }
  return %r#0, %r#1 : tensor<33x70xf32>, tensor<33x70xf32>
}

// A composite scan: logcumsumexp's (max, sum of exp(x - max)) in one pass,
// the combine region online softmax's (rescaling each sum to the larger
// maximum), each point's log-sum-exp m + log(s) in the each region.
// CHECK-LABEL: func.func @composite_scan
// CHECK: tileir.composite_scan (%[[K:.*]]) in [70] identity(0xFF800000 : f32, 0.000000e+00 : f32) {
// CHECK: tileir.yield %{{.*}}, %{{.*}} : f32, f32
// CHECK-NEXT: } combine {
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK: } each {
// CHECK-NEXT: ^bb0(%[[I:.*]]: index, %[[M:.*]]: f32, %[[S:.*]]: f32):
// CHECK: loopir.store %{{.*}}, %{{.*}}[%{{.*}}, %[[I]]]
func.func @composite_scan(%a: tensor<33x70xf32>) -> tensor<33x70xf32> {
  %r = tileir.kernel ins(%a : tensor<33x70xf32>) -> tensor<33x70xf32> domain [33] tile [1] threads 32 {
  ^bb0(%in: memref<33x70xf32>, %out: memref<33x70xf32>):
    %row = tileir.point 0
    %one = arith.constant 1.0 : f32
    tileir.composite_scan (%k) in [70] identity(0xFF800000 : f32, 0.0 : f32) {
      %x = loopir.load %in[%row, %k] : memref<33x70xf32>
      tileir.yield %x, %one : f32, f32
    } combine {
    ^bb0(%m1: f32, %s1: f32, %m2: f32, %s2: f32):
      %m = arith.maximumf %m1, %m2 : f32
      %d1 = arith.subf %m1, %m : f32
      %d2 = arith.subf %m2, %m : f32
      %e1 = math.exp %d1 : f32
      %e2 = math.exp %d2 : f32
      %same1 = arith.cmpf oeq, %m1, %m : f32
      %same2 = arith.cmpf oeq, %m2, %m : f32
      %f1 = arith.select %same1, %one, %e1 : f32
      %f2 = arith.select %same2, %one, %e2 : f32
      %t1 = arith.mulf %s1, %f1 : f32
      %t2 = arith.mulf %s2, %f2 : f32
      %s = arith.addf %t1, %t2 : f32
      tileir.yield %m, %s : f32, f32
    } each {
    ^bb0(%i: index, %m: f32, %s: f32):
      %log = math.log %s : f32
      %y = arith.addf %m, %log : f32
      loopir.store %y, %out[%row, %i] : memref<33x70xf32>
      tileir.yield
    }
  }
  return %r : tensor<33x70xf32>
}

// A persistent kernel: 4 x 7 tiles taken by 5 instances, in bands.
// CHECK-LABEL: func.func @persistent
// CHECK: domain [100, 200] tile [32, 32] threads 256 raster_group 2 instances 5 {
func.func @persistent(%a: tensor<100x200xf32>) -> tensor<100x200xf32> {
  %r = tileir.kernel ins(%a : tensor<100x200xf32>) -> tensor<100x200xf32> domain [100, 200] tile [32, 32] threads 256 raster_group 2 instances 5 {
  ^bb0(%in: memref<100x200xf32>, %out: memref<100x200xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %x = tileir.load %in[%o0, %o1] : memref<100x200xf32> -> !tileir.tile<32x32xf32>
    tileir.store %x, %out[%o0, %o1] : !tileir.tile<32x32xf32>, memref<100x200xf32>
  }
  return %r : tensor<100x200xf32>
}

// CHECK-LABEL: func.func @banded_order
// CHECK: domain [100, 200] tile [32, 32] threads 256 raster_group 2 {
func.func @banded_order(%a: tensor<100x200xf32>) -> tensor<100x200xf32> {
  %r = tileir.kernel ins(%a : tensor<100x200xf32>) -> tensor<100x200xf32> domain [100, 200] tile [32, 32] threads 256 raster_group 2 {
  ^bb0(%in: memref<100x200xf32>, %out: memref<100x200xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %x = tileir.load %in[%o0, %o1] : memref<100x200xf32> -> !tileir.tile<32x32xf32>
    tileir.store %x, %out[%o0, %o1] : !tileir.tile<32x32xf32>, memref<100x200xf32>
  }
  return %r : tensor<100x200xf32>
}
