// The Q-tile schedule: a row program whose rows read the same elements in
// their folds (keys and values; tileir::sharesFoldChunksAcrossRows) takes
// up to 64 rows per program instance, 4 threads each, whether or not the
// tile divides the rows; rows that read as much of their own, or whose
// chunks would not fit in shared memory, keep the short-row or one-row
// tiles.
// RUN: strata-opt %s -split-input-file --tileir-tile --tileir-map-threads | FileCheck %s

// Each row i of 100 folds q[i] . k[j] * v[j] over 70 keys: a key row (8
// elements) and a value per point are shared, nothing of its own varies.
// CHECK-LABEL: func.func @weighted_keys
// CHECK: domain [2, 100] tile [1, 64] threads 256 {
// CHECK: tileir.point 1
func.func @weighted_keys(%q: tensor<2x100x8xf32>, %k: tensor<2x70x8xf32>, %v: tensor<2x70xf32>) -> tensor<2x100xf32> {
  %r = tileir.kernel ins(%q, %k, %v : tensor<2x100x8xf32>, tensor<2x70x8xf32>, tensor<2x70xf32>) -> tensor<2x100xf32> domain [2, 100] tile [1, 1] threads 32 {
  ^bb0(%qb: memref<2x100x8xf32>, %kb: memref<2x70x8xf32>, %vb: memref<2x70xf32>, %out: memref<2x100xf32>):
    %h = tileir.point 0
    %i = tileir.point 1
    %s = tileir.fold add(0.0 : f32) (%j) in [70] {
      %dot = loopir.reduce add (%d) in [8] : f32 {
        %x = loopir.load %qb[%h, %i, %d] : memref<2x100x8xf32>
        %y = loopir.load %kb[%h, %j, %d] : memref<2x70x8xf32>
        %p = arith.mulf %x, %y : f32
        loopir.yield %p : f32
      }
      %w = loopir.load %vb[%h, %j] : memref<2x70xf32>
      %c = arith.mulf %dot, %w : f32
      tileir.yield %c : f32
    }
    loopir.store %s, %out[%h, %i] : memref<2x100xf32>
  }
  return %r : tensor<2x100xf32>
}

// -----

// Fewer than 16 rows: a warp per row, the short rows' tile.
// CHECK-LABEL: func.func @few_rows
// CHECK: domain [2, 12] tile [1, 4] threads 128 {
func.func @few_rows(%q: tensor<2x12x8xf32>, %k: tensor<2x70x8xf32>) -> tensor<2x12xf32> {
  %r = tileir.kernel ins(%q, %k : tensor<2x12x8xf32>, tensor<2x70x8xf32>) -> tensor<2x12xf32> domain [2, 12] tile [1, 1] threads 32 {
  ^bb0(%qb: memref<2x12x8xf32>, %kb: memref<2x70x8xf32>, %out: memref<2x12xf32>):
    %h = tileir.point 0
    %i = tileir.point 1
    %s = tileir.fold add(0.0 : f32) (%j) in [70] {
      %dot = loopir.reduce add (%d) in [8] : f32 {
        %x = loopir.load %qb[%h, %i, %d] : memref<2x12x8xf32>
        %y = loopir.load %kb[%h, %j, %d] : memref<2x70x8xf32>
        %p = arith.mulf %x, %y : f32
        loopir.yield %p : f32
      }
      tileir.yield %dot : f32
    }
    loopir.store %s, %out[%h, %i] : memref<2x12xf32>
  }
  return %r : tensor<2x12xf32>
}

// -----

// A matrix-vector product reads x[i, k] of its own for each w[k] it shares:
// a warp per row and its vector loads, one row per program (500 > 128).
// CHECK-LABEL: func.func @matrix_vector
// CHECK: domain [300] tile [1] threads 128 {
func.func @matrix_vector(%x: tensor<300x500xf32>, %w: tensor<500xf32>) -> tensor<300xf32> {
  %r = tileir.kernel ins(%x, %w : tensor<300x500xf32>, tensor<500xf32>) -> tensor<300xf32> domain [300] tile [1] threads 32 {
  ^bb0(%xb: memref<300x500xf32>, %wb: memref<500xf32>, %out: memref<300xf32>):
    %i = tileir.point 0
    %s = tileir.fold add(0.0 : f32) (%k) in [500] {
      %a = loopir.load %xb[%i, %k] : memref<300x500xf32>
      %b = loopir.load %wb[%k] : memref<500xf32>
      %p = arith.mulf %a, %b : f32
      tileir.yield %p : f32
    }
    loopir.store %s, %out[%i] : memref<300xf32>
  }
  return %r : tensor<300xf32>
}

// -----

// Key rows of 1024 f32: 8 keys of them (the smallest chunk worth its
// barriers) would take 32 KiB, more than the chunks' 24 KiB: no Q tile.
// CHECK-LABEL: func.func @long_keys
// CHECK: domain [2, 100] tile [1, 4] threads 128 {
func.func @long_keys(%q: tensor<2x100x1024xf32>, %k: tensor<2x70x1024xf32>) -> tensor<2x100xf32> {
  %r = tileir.kernel ins(%q, %k : tensor<2x100x1024xf32>, tensor<2x70x1024xf32>) -> tensor<2x100xf32> domain [2, 100] tile [1, 1] threads 32 {
  ^bb0(%qb: memref<2x100x1024xf32>, %kb: memref<2x70x1024xf32>, %out: memref<2x100xf32>):
    %h = tileir.point 0
    %i = tileir.point 1
    %s = tileir.fold add(0.0 : f32) (%j) in [70] {
      %dot = loopir.reduce add (%d) in [1024] : f32 {
        %x = loopir.load %qb[%h, %i, %d] : memref<2x100x1024xf32>
        %y = loopir.load %kb[%h, %j, %d] : memref<2x70x1024xf32>
        %p = arith.mulf %x, %y : f32
        loopir.yield %p : f32
      }
      tileir.yield %dot : f32
    }
    loopir.store %s, %out[%h, %i] : memref<2x100xf32>
  }
  return %r : tensor<2x100xf32>
}

// -----

// A key read only where the guard, over the key and the row, holds (a
// padded view): the address is shared but the guard is the row's own, so
// the keys are not shared elements and the value alone does not outweigh
// them.
// CHECK-LABEL: func.func @row_guarded_keys
// CHECK: domain [2, 100] tile [1, 4] threads 128 {
func.func @row_guarded_keys(%q: tensor<2x100x8xf32>, %k: tensor<2x70x8xf32>, %v: tensor<2x70xf32>) -> tensor<2x100xf32> {
  %r = tileir.kernel ins(%q, %k, %v : tensor<2x100x8xf32>, tensor<2x70x8xf32>, tensor<2x70xf32>) -> tensor<2x100xf32> domain [2, 100] tile [1, 1] threads 32 {
  ^bb0(%qb: memref<2x100x8xf32>, %kb: memref<2x70x8xf32>, %vb: memref<2x70xf32>, %out: memref<2x100xf32>):
    %h = tileir.point 0
    %i = tileir.point 1
    %s = tileir.fold add(0.0 : f32) (%j) in [70] {
      %dot = loopir.reduce add (%d) in [8] : f32 {
        %x = loopir.load %qb[%h, %i, %d] : memref<2x100x8xf32>
        %y = loopir.load %kb[%h, %i, %j, %d] map affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)> if affine_set<(d0, d1, d2, d3) : (d1 - d2 >= 0)> else 0.0 : f32 : memref<2x70x8xf32>
        %p = arith.mulf %x, %y : f32
        loopir.yield %p : f32
      }
      %w = loopir.load %vb[%h, %j] : memref<2x70xf32>
      %c = arith.mulf %dot, %w : f32
      tileir.yield %c : f32
    }
    loopir.store %s, %out[%h, %i] : memref<2x100xf32>
  }
  return %r : tensor<2x100xf32>
}
