// tileir-split-folds: the one decision is into how many slices the folds
// of a row program with few program instances are split.
// RUN: strata-opt %s -split-input-file --tileir-split-folds | FileCheck %s
// RUN: not strata-opt %s -split-input-file '--tileir-split-folds=splits=4' 2>/dev/null | FileCheck %s --check-prefix=FOUR
// RUN: not strata-opt %s -split-input-file '--tileir-split-folds=splits=4' 2>&1 >/dev/null | FileCheck %s --check-prefix=DEPENDENT
// RUN: strata-opt %s -split-input-file '--tileir-split-folds=splits=1' | FileCheck %s --check-prefix=NONE
// RUN: not strata-opt %s -split-input-file '--tileir-split-folds=splits=2000000' 2>&1 | FileCheck %s --check-prefix=TOO-MANY
// RUN: not strata-opt %s -split-input-file '--tileir-split-folds=splits=7' 2>&1 >/dev/null | FileCheck %s --check-prefix=SEVEN
// RUN: not strata-opt %s '--tileir-split-folds=splits=-1' 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// NEGATIVE: tileir-split-folds: splits must be at least 0 and min-programs at least 1

// A sum of a million elements, one program instance: by default as many
// slices as give 128 program instances (at most 128, each reading at least
// 64 KiB: 61), the most that divide the points: 50 slices of 20000. The
// partial kernel's slice is its leading domain dimension (tileir.point 0);
// point k of slice s is s * 20000 + k, in the load's map (an affine
// address of the fold's point, as a shared chunk or a vector load needs).
// The original kernel folds the 50 states with the same monoid and stores
// as before.
// CHECK-DAG: #[[SLICED:.*]] = affine_map<(d0, d1) -> (d0 + d1 * 20000)>
// CHECK-LABEL: func.func @sum
// CHECK: %[[P:.*]] = tileir.kernel ins(%{{.*}} : tensor<1000000xf32>) -> tensor<50x1x1xf32> domain [50, 1] tile [1, 1] threads 32 {
// CHECK-NEXT: ^bb0(%[[IN:.*]]: memref<1000000xf32>, %[[WS:.*]]: memref<50x1x1xf32>):
// CHECK-NEXT: %[[S:.*]] = tileir.point 0
// CHECK-NEXT: %[[ROW:.*]] = tileir.point 1
// CHECK-NEXT: %[[PART:.*]] = tileir.fold add(0.000000e+00 : f32) (%[[K:.*]]) in [20000] {
// CHECK-NEXT: %[[V:.*]] = loopir.load %[[IN]][%[[K]], %[[S]]] map #[[SLICED]] : memref<1000000xf32>
// CHECK-NEXT: tileir.yield %[[V]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: loopir.store %[[PART]], %[[WS]][%[[S]], %[[ROW]], %[[C0]]] : memref<50x1x1xf32>
// CHECK: tileir.kernel ins(%[[P]] : tensor<50x1x1xf32>) -> tensor<1xf32> domain [1] tile [1] threads 32 {
// CHECK-NEXT: ^bb0(%[[STATES:.*]]: memref<50x1x1xf32>, %[[OUT:.*]]: memref<1xf32>):
// CHECK-NEXT: %[[R:.*]] = tileir.point 0
// CHECK-NEXT: %[[SUM:.*]] = tileir.fold add(0.000000e+00 : f32) (%[[T:.*]]) in [50] {
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[ST:.*]] = loopir.load %[[STATES]][%[[T]], %[[R]], %[[Z]]] : memref<50x1x1xf32>
// CHECK-NEXT: tileir.yield %[[ST]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: loopir.store %[[SUM]], %[[OUT]][%[[R]]] : memref<1xf32>
// NONE-LABEL: func.func @sum
// NONE: tileir.kernel ins(%{{.*}} : tensor<1000000xf32>) -> tensor<1xf32> domain [1] tile [1]
// NONE-NOT: tileir.kernel
// TOO-MANY: error: the longest fold has 1000000 points: it does not split into 2000000 slices
func.func @sum(%x: tensor<1000000xf32>) -> tensor<1xf32> {
  %r = tileir.kernel ins(%x : tensor<1000000xf32>) -> tensor<1xf32> domain [1] tile [1] threads 32 {
  ^bb0(%in: memref<1000000xf32>, %out: memref<1xf32>):
    %row = tileir.point 0
    %s = tileir.fold add(0.0 : f32) (%i) in [1000000] {
      %v = loopir.load %in[%i] : memref<1000000xf32>
      tileir.yield %v : f32
    }
    loopir.store %s, %out[%row] : memref<1xf32>
  }
  return %r : tensor<1xf32>
}

// -----

// The argmax of each of 2 rows of 1003 (its (value, i64 position) monoid:
// one workspace per element type). 4 KiB per row is too little to split by
// default; 4 forced slices of 251 do not divide 1003: past the last point
// the slice reads the last point (every read in bounds) and contributes
// the identity. The position stays the global one; the combination region
// (and the constant it reads from above) is cloned into both kernels.
// CHECK-LABEL: func.func @argmax
// CHECK: tileir.kernel
// CHECK-SAME: domain [2] tile [1] threads 32
// CHECK-NOT: tileir.kernel
// NONE-LABEL: func.func @argmax
// FOUR-LABEL: func.func @argmax
// FOUR: %[[P:.*]]:2 = tileir.kernel ins(%{{.*}} : tensor<2x1003xf32>) -> tensor<4x2x1xf32>, tensor<4x2x1xi64> domain [4, 2] tile [1, 1] threads 32 {
// FOUR-NEXT: ^bb0(%[[IN:.*]]: memref<2x1003xf32>, %[[VALUES:.*]]: memref<4x2x1xf32>, %[[POSITIONS:.*]]: memref<4x2x1xi64>):
// FOUR-NEXT: %[[TRUE:.*]] = arith.constant true
// FOUR-NEXT: %[[ROW:.*]] = tileir.point 1
// FOUR-NEXT: %[[S:.*]] = tileir.point 0
// FOUR-NEXT: %[[PART:.*]]:2 = tileir.composite_fold (%[[K:.*]]) in [251] identity(0xFF800000 : f32, 9223372036854775807 : i64) {
// FOUR-NEXT: %[[LEN:.*]] = arith.constant 251 : index
// FOUR-NEXT: %[[START:.*]] = arith.muli %[[S]], %[[LEN]] : index
// FOUR-NEXT: %[[I:.*]] = arith.addi %[[START]], %[[K]] : index
// FOUR-NEXT: %[[END:.*]] = arith.constant 1003 : index
// FOUR-NEXT: %[[IN_RANGE:.*]] = arith.cmpi slt, %[[I]], %[[END]] : index
// FOUR-NEXT: %[[LAST:.*]] = arith.constant 1002 : index
// FOUR-NEXT: %[[J:.*]] = arith.minui %[[I]], %[[LAST]] : index
// FOUR-NEXT: %[[V:.*]] = loopir.load %[[IN]][%[[ROW]], %[[J]]] : memref<2x1003xf32>
// FOUR-NEXT: %[[POS:.*]] = arith.index_cast %[[J]] : index to i64
// FOUR-NEXT: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// FOUR-NEXT: %[[V2:.*]] = arith.select %[[IN_RANGE]], %[[V]], %[[NEG_INF]] : f32
// FOUR-NEXT: %[[MAX:.*]] = arith.constant 9223372036854775807 : i64
// FOUR-NEXT: %[[POS2:.*]] = arith.select %[[IN_RANGE]], %[[POS]], %[[MAX]] : i64
// FOUR-NEXT: tileir.yield %[[V2]], %[[POS2]] : f32, i64
// FOUR-NEXT: } combine {
// FOUR: arith.xori %{{.*}}, %[[TRUE]] : i1
// FOUR: loopir.store %[[PART]]#0, %[[VALUES]][%[[S]], %[[ROW]], %{{.*}}] : memref<4x2x1xf32>
// FOUR: loopir.store %[[PART]]#1, %[[POSITIONS]][%[[S]], %[[ROW]], %{{.*}}] : memref<4x2x1xi64>
// FOUR: tileir.kernel ins(%[[P]]#0, %[[P]]#1 : tensor<4x2x1xf32>, tensor<4x2x1xi64>) -> tensor<2xf32>, tensor<2xi64> domain [2] tile [2] threads 32 {
// FOUR-NEXT: ^bb0(%[[VS:.*]]: memref<4x2x1xf32>, %[[PS:.*]]: memref<4x2x1xi64>, %{{.*}}: memref<2xf32>, %{{.*}}: memref<2xi64>):
// FOUR-NEXT: %[[TRUE2:.*]] = arith.constant true
// FOUR-NEXT: %[[R:.*]] = tileir.point 0
// FOUR-NEXT: %{{.*}}:2 = tileir.composite_fold (%[[T:.*]]) in [4] identity(0xFF800000 : f32, 9223372036854775807 : i64) {
// FOUR: loopir.load %[[VS]][%[[T]], %[[R]], %{{.*}}] : memref<4x2x1xf32>
// FOUR: loopir.load %[[PS]][%[[T]], %[[R]], %{{.*}}] : memref<4x2x1xi64>
// FOUR: } combine {
// FOUR: arith.xori %{{.*}}, %[[TRUE2]] : i1
func.func @argmax(%x: tensor<2x1003xf32>) -> (tensor<2xf32>, tensor<2xi64>) {
  %r:2 = tileir.kernel ins(%x : tensor<2x1003xf32>) -> tensor<2xf32>, tensor<2xi64> domain [2] tile [1] threads 32 {
  ^bb0(%in: memref<2x1003xf32>, %values: memref<2xf32>, %positions: memref<2xi64>):
    %true = arith.constant true
    %row = tileir.point 0
    %v, %p = tileir.composite_fold (%k) in [1003] identity(0xFF800000 : f32, 9223372036854775807 : i64) {
      %e = loopir.load %in[%row, %k] : memref<2x1003xf32>
      %i = arith.index_cast %k : index to i64
      tileir.yield %e, %i : f32, i64
    } combine {
    ^bb0(%v1: f32, %i1: i64, %v2: f32, %i2: i64):
      %earlier = arith.cmpi slt, %i2, %i1 : i64
      %greater = arith.cmpf ogt, %v2, %v1 : f32
      %equal = arith.cmpf oeq, %v2, %v1 : f32
      %nan1 = arith.cmpf uno, %v1, %v1 : f32
      %nan2 = arith.cmpf uno, %v2, %v2 : f32
      %number1 = arith.xori %nan1, %true : i1
      %nan_wins = arith.ori %number1, %earlier : i1
      %tie = arith.andi %equal, %earlier : i1
      %better = arith.ori %greater, %tie : i1
      %number_wins = arith.andi %number1, %better : i1
      %second = arith.select %nan2, %nan_wins, %number_wins : i1
      %v = arith.select %second, %v2, %v1 : f32
      %i = arith.select %second, %i2, %i1 : i64
      tileir.yield %v, %i : f32, i64
    }
    loopir.store %v, %values[%row] : memref<2xf32>
    loopir.store %p, %positions[%row] : memref<2xi64>
  }
  return %r#0, %r#1 : tensor<2xf32>, tensor<2xi64>
}

// -----

// Many rows: 200 program instances are enough, nothing is split.
// CHECK-LABEL: func.func @many_rows
// CHECK: tileir.kernel
// CHECK-SAME: domain [200] tile [1]
// CHECK-NOT: tileir.kernel
func.func @many_rows(%x: tensor<200x100000xf32>) -> tensor<200xf32> {
  %r = tileir.kernel ins(%x : tensor<200x100000xf32>) -> tensor<200xf32> domain [200] tile [1] threads 32 {
  ^bb0(%in: memref<200x100000xf32>, %out: memref<200xf32>):
    %row = tileir.point 0
    %s = tileir.fold max(0xFF800000 : f32) (%i) in [100000] {
      %v = loopir.load %in[%row, %i] : memref<200x100000xf32>
      tileir.yield %v : f32
    }
    loopir.store %s, %out[%row] : memref<200xf32>
  }
  return %r : tensor<200xf32>
}

// -----

// The second fold reads the first one's result (a mean): it cannot run in
// a kernel of its own, so by default nothing is split, and a forced split
// is an error.
// CHECK-LABEL: func.func @dependent_folds
// CHECK: tileir.kernel
// CHECK-NOT: tileir.kernel
// DEPENDENT: error: the folds of this kernel read another fold's or a distribute's results: they cannot be split into 4 slices
func.func @dependent_folds(%x: tensor<100000xf32>) -> tensor<1xf32> {
  %r = tileir.kernel ins(%x : tensor<100000xf32>) -> tensor<1xf32> domain [1] tile [1] threads 32 {
  ^bb0(%in: memref<100000xf32>, %out: memref<1xf32>):
    %row = tileir.point 0
    %s = tileir.fold add(0.0 : f32) (%i) in [100000] {
      %v = loopir.load %in[%i] : memref<100000xf32>
      tileir.yield %v : f32
    }
    %n = arith.constant 1.0e-5 : f32
    %mean = arith.mulf %s, %n : f32
    %q = tileir.fold add(0.0 : f32) (%i) in [100000] {
      %v = loopir.load %in[%i] : memref<100000xf32>
      %d = arith.subf %v, %mean : f32
      %d2 = arith.mulf %d, %d : f32
      tileir.yield %d2 : f32
    }
    loopir.store %q, %out[%row] : memref<1xf32>
  }
  return %r : tensor<1xf32>
}

// -----

// Two independent folds of different lengths (a loop inside the first
// fold counts its loads' bytes: 300 KiB in all, 4 slices of at least 64
// KiB, dividing the longest fold's 1200 points): both are split into the
// same slices, each of its own length, the second (101 points) ragged. A
// fold over a box of several dimensions takes its point apart again,
// row-major.
// CHECK-LABEL: func.func @two_folds
// CHECK: tileir.kernel ins(%{{.*}}, %{{.*}} : tensor<1200x64xf32>, tensor<101xf32>) -> tensor<4x1x1xf32>, tensor<4x1x1xf32> domain [4, 1] tile [1, 1] threads 32 {
// CHECK: tileir.fold add(0.000000e+00 : f32) (%{{.*}}) in [300] {
// CHECK-NOT: arith.minui
// CHECK: arith.remui
// CHECK: arith.divui
// CHECK: loopir.reduce
// CHECK: tileir.fold max(0xFF800000 : f32) (%{{.*}}) in [26] {
// CHECK: arith.minui
// CHECK: tileir.kernel ins(%{{.*}}, %{{.*}} : tensor<4x1x1xf32>, tensor<4x1x1xf32>) -> tensor<1xf32> domain [1] tile [1] threads 32 {
// CHECK: tileir.fold add(0.000000e+00 : f32) (%{{.*}}) in [4] {
// CHECK: tileir.fold max(0xFF800000 : f32) (%{{.*}}) in [4] {
// CHECK: arith.addf
func.func @two_folds(%x: tensor<1200x64xf32>, %y: tensor<101xf32>) -> tensor<1xf32> {
  %r = tileir.kernel ins(%x, %y : tensor<1200x64xf32>, tensor<101xf32>) -> tensor<1xf32> domain [1] tile [1] threads 32 {
  ^bb0(%xb: memref<1200x64xf32>, %yb: memref<101xf32>, %out: memref<1xf32>):
    %row = tileir.point 0
    %s = tileir.fold add(0.0 : f32) (%i, %j) in [80, 15] {
      %i15 = arith.constant 15 : index
      %i0 = arith.muli %i, %i15 : index
      %r0 = arith.addi %i0, %j : index
      %dot = loopir.reduce add (%d) in [64] : f32 {
        %v = loopir.load %xb[%r0, %d] : memref<1200x64xf32>
        loopir.yield %v : f32
      }
      tileir.yield %dot : f32
    }
    %m = tileir.fold max(0xFF800000 : f32) (%k) in [101] {
      %v = loopir.load %yb[%k] : memref<101xf32>
      tileir.yield %v : f32
    }
    %t = arith.addf %s, %m : f32
    loopir.store %t, %out[%row] : memref<1xf32>
  }
  return %r : tensor<1xf32>
}

// -----

// A Q tile: 64 rows of one program instance share each chunk of 3000 keys
// (a key row of 8 and a value per point, 204 KiB a row): 3 slices, which
// divide the keys, so the loads of keys and values stay affine in the
// fold's point (the slice in their maps) and the rows still share them;
// 7 slices would not, and forcing them is an error.
// CHECK-DAG: #[[KEYS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1 + d3 * 1000, d2)>
// CHECK-DAG: #[[VALUES:.*]] = affine_map<(d0, d1, d2) -> (d0, d1 + d2 * 1000)>
// CHECK-LABEL: func.func @q_tile
// CHECK: tileir.kernel ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<1x64x8xf32>, tensor<1x3000x8xf32>, tensor<1x3000xf32>) -> tensor<3x1x64x1xf32> domain [3, 1, 64] tile [1, 1, 64] threads 256 {
// CHECK: %[[S:.*]] = tileir.point 0
// CHECK: tileir.fold add(0.000000e+00 : f32) (%[[J:.*]]) in [1000] {
// CHECK: loopir.load %{{.*}}[%{{.*}}, %[[J]], %{{.*}}, %[[S]]] map #[[KEYS]] : memref<1x3000x8xf32>
// CHECK: loopir.load %{{.*}}[%{{.*}}, %[[J]], %[[S]]] map #[[VALUES]] : memref<1x3000xf32>
// CHECK: tileir.kernel ins(%{{.*}} : tensor<3x1x64x1xf32>) -> tensor<1x64xf32> domain [1, 64] tile [1, 8] threads 32 {
// SEVEN: error: a Q-tiled row program's folds split only into slices that divide their points (3000), not into 7
func.func @q_tile(%q: tensor<1x64x8xf32>, %k: tensor<1x3000x8xf32>, %v: tensor<1x3000xf32>) -> tensor<1x64xf32> {
  %r = tileir.kernel ins(%q, %k, %v : tensor<1x64x8xf32>, tensor<1x3000x8xf32>, tensor<1x3000xf32>) -> tensor<1x64xf32> domain [1, 64] tile [1, 64] threads 256 {
  ^bb0(%qb: memref<1x64x8xf32>, %kb: memref<1x3000x8xf32>, %vb: memref<1x3000xf32>, %out: memref<1x64xf32>):
    %h = tileir.point 0
    %i = tileir.point 1
    %s = tileir.fold add(0.0 : f32) (%j) in [3000] {
      %dot = loopir.reduce add (%d) in [8] : f32 {
        %x = loopir.load %qb[%h, %i, %d] : memref<1x64x8xf32>
        %y = loopir.load %kb[%h, %j, %d] : memref<1x3000x8xf32>
        %p = arith.mulf %x, %y : f32
        loopir.yield %p : f32
      }
      %w = loopir.load %vb[%h, %j] : memref<1x3000xf32>
      %c = arith.mulf %dot, %w : f32
      tileir.yield %c : f32
    }
    loopir.store %s, %out[%h, %i] : memref<1x64xf32>
  }
  return %r : tensor<1x64xf32>
}

// -----

// A row normalized by its sum: the write-back (a distribute) is as long as
// the fold, so the combination's domain gains the 5 slices too; each
// program instance folds the row's 5 states and writes its slice of the
// row, the slice in the load's and the store's maps.
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2) -> (d0, d1 + d2 * 20000)>
// CHECK-LABEL: func.func @normalize
// CHECK: %[[P:.*]] = tileir.kernel ins(%{{.*}} : tensor<1x100000xf32>) -> tensor<5x1x1xf32> domain [5, 1] tile [1, 1]
// CHECK: tileir.kernel ins(%{{.*}}, %[[P]] : tensor<1x100000xf32>, tensor<5x1x1xf32>) -> tensor<1x100000xf32> domain [5, 1] tile [1, 1]
// CHECK: %[[R:.*]] = tileir.point 1
// CHECK: %[[SUM:.*]] = tileir.fold add(0.000000e+00 : f32) (%[[T:.*]]) in [5] {
// CHECK: loopir.load %{{.*}}[%[[T]], %[[R]], %{{.*}}] : memref<5x1x1xf32>
// CHECK: %[[S:.*]] = tileir.point 0
// CHECK: tileir.distribute (%[[J:.*]]) in [20000] {
// CHECK-NEXT: %[[X:.*]] = loopir.load %{{.*}}[%[[R]], %[[J]], %[[S]]] map #[[ROW]] : memref<1x100000xf32>
// CHECK-NEXT: %[[Y:.*]] = arith.divf %[[X]], %[[SUM]] : f32
// CHECK-NEXT: loopir.store %[[Y]], %{{.*}}[%[[R]], %[[J]], %[[S]]] map #[[ROW]] : memref<1x100000xf32>
func.func @normalize(%x: tensor<1x100000xf32>) -> tensor<1x100000xf32> {
  %r = tileir.kernel ins(%x : tensor<1x100000xf32>) -> tensor<1x100000xf32> domain [1] tile [1] threads 32 {
  ^bb0(%in: memref<1x100000xf32>, %out: memref<1x100000xf32>):
    %row = tileir.point 0
    %s = tileir.fold add(0.0 : f32) (%j) in [100000] {
      %v = loopir.load %in[%row, %j] : memref<1x100000xf32>
      tileir.yield %v : f32
    }
    tileir.distribute (%j) in [100000] {
      %v = loopir.load %in[%row, %j] : memref<1x100000xf32>
      %y = arith.divf %v, %s : f32
      loopir.store %y, %out[%row, %j] : memref<1x100000xf32>
    }
  }
  return %r : tensor<1x100000xf32>
}
