// RUN: strata-opt %s -split-input-file --convert-loopir-to-tileir --strata-schedule-tile | FileCheck %s

// Index arithmetic takes the loop index as a tile of coordinates: an iota
// is an elementwise kernel, not one point at a time.
// CHECK-LABEL: func.func @iota
// CHECK: %[[O:.*]] = tileir.tile_offset 0
// CHECK-NEXT: %[[I:.*]] = tileir.coordinate %[[O]] dim 0 : <64xindex>
// CHECK-NEXT: %[[F:.*]] = tileir.map ins(%[[I]] : !tileir.tile<64xindex>) -> !tileir.tile<64xf32> {
// CHECK-NEXT: ^bb0(%[[X:.*]]: index):
// CHECK-NEXT: arith.index_cast %[[X]] : index to i32
// CHECK: tileir.store %[[F]]
// CHECK-NOT: tileir.for_each_point
func.func @iota() -> tensor<64xf32> {
  %r = loopir.kernel -> tensor<64xf32> {
  ^bb0(%out: memref<64xf32>):
    loopir.parallel (%i) in [64] {
      %k = arith.index_cast %i : index to i32
      %f = arith.sitofp %k : i32 to f32
      loopir.store %f, %out[%i] : memref<64xf32>
    }
  }
  return %r : tensor<64xf32>
}

// -----

// A gather: the index is a tile load, the row it selects a computed
// address, read point by point inside the map. The read is guarded to the
// table's bounds: the tile's elements past the domain's edge compute
// addresses too, and read 0 instead.
// CHECK: #[[IN:.*]] = affine_set<(d0, d1) : (d0 >= 0, -d0 + 49 >= 0, d1 >= 0, -d1 + 36 >= 0)>
// CHECK-LABEL: func.func @gather
// CHECK: %[[O0:.*]] = tileir.tile_offset 0
// CHECK: %[[O1:.*]] = tileir.tile_offset 1
// CHECK: %[[J:.*]] = tileir.coordinate %[[O1]] dim 1
// CHECK: %[[N:.*]] = tileir.load %{{.*}}[%[[O0]], %[[O1]]] map #{{.*}} : memref<20xi64>
// CHECK: tileir.map ins(%[[J]], %[[N]] : !tileir.tile<8x64xindex>, !tileir.tile<8x64xi64>) -> !tileir.tile<8x64xf32> {
// CHECK-NEXT: ^bb0(%[[JS:.*]]: index, %[[NS:.*]]: i64):
// CHECK-NEXT: %[[ROW:.*]] = arith.index_cast %[[NS]] : i64 to index
// CHECK-NEXT: loopir.load %{{.*}}[%[[ROW]], %[[JS]]] if #[[IN]] else 0.000000e+00 : f32 : memref<50x37xf32>
func.func @gather(%t: tensor<50x37xf32>, %idx: tensor<20xi64>) -> tensor<20x37xf32> {
  %r = loopir.kernel ins(%t, %idx : tensor<50x37xf32>, tensor<20xi64>) -> tensor<20x37xf32> {
  ^bb0(%tb: memref<50x37xf32>, %ib: memref<20xi64>, %out: memref<20x37xf32>):
    loopir.parallel (%i, %j) in [20, 37] {
      %n = loopir.load %ib[%i] : memref<20xi64>
      %row = arith.index_cast %n : i64 to index
      %x = loopir.load %tb[%row, %j] : memref<50x37xf32>
      loopir.store %x, %out[%i, %j] : memref<20x37xf32>
    }
  }
  return %r : tensor<20x37xf32>
}

// -----

// A causal mask computed from the row and column indices stays in the
// epilogue of the contraction: q . k^T is still a tiled tileir.contract,
// with the comparison of two coordinate tiles in its map.
// CHECK-LABEL: func.func @causal_scores
// CHECK: domain [100, 100] tile [32, 32]
// CHECK-DAG: %[[O0:.*]] = tileir.tile_offset 0
// CHECK-DAG: %[[O1:.*]] = tileir.tile_offset 1
// CHECK: %[[S:.*]] = tileir.contract [%[[O0]], %[[O1]]] k 48
// CHECK: %[[J:.*]] = tileir.coordinate %[[O1]] dim 1
// CHECK: %[[I:.*]] = tileir.coordinate %[[O0]] dim 0
// CHECK: tileir.map ins(%[[S]], %[[J]], %[[I]] : !tileir.tile<32x32xf32>, !tileir.tile<32x32xindex>, !tileir.tile<32x32xindex>)
// CHECK-NEXT: ^bb0(%[[SS:.*]]: f32, %[[JS:.*]]: index, %[[IS:.*]]: index):
// CHECK-NEXT: %[[FUTURE:.*]] = arith.cmpi ugt, %[[JS]], %[[IS]] : index
// CHECK-NEXT: arith.select %[[FUTURE]]
// CHECK-NOT: tileir.for_each_point
func.func @causal_scores(%q: tensor<100x48xf32>, %k: tensor<100x48xf32>) -> tensor<100x100xf32> {
  %r = loopir.kernel ins(%q, %k : tensor<100x48xf32>, tensor<100x48xf32>) -> tensor<100x100xf32> {
  ^bb0(%qb: memref<100x48xf32>, %kb: memref<100x48xf32>, %out: memref<100x100xf32>):
    %ninf = arith.constant 0xFF800000 : f32
    loopir.parallel (%i, %j) in [100, 100] {
      %s = loopir.reduce add (%d) in [48] : f32 {
        %a = loopir.load %qb[%i, %d] : memref<100x48xf32>
        %b = loopir.load %kb[%j, %d] : memref<100x48xf32>
        %p = arith.mulf %a, %b : f32
        loopir.yield %p : f32
      }
      %future = arith.cmpi ugt, %j, %i : index
      %m = arith.select %future, %ninf, %s : f32
      loopir.store %m, %out[%i, %j] : memref<100x100xf32>
    }
  }
  return %r : tensor<100x100xf32>
}
