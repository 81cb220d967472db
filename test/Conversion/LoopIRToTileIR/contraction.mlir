// RUN: strata-opt %s -split-input-file --convert-loopir-to-tileir --strata-schedule-tile | FileCheck %s

// relu((x + b) @ w): the reduction becomes a tileir.contract whose lhs
// region holds the prologue (x + b) and whose rhs region reads w; the
// activation and the store are the elementwise epilogue. 17 x 19 gets
// 32 x 32 tiles and 256 threads (4 elements each).
// CHECK-LABEL: func.func @relu_matmul
// CHECK: domain [17, 19] tile [32, 32] threads 256 {
// CHECK: %[[O0:.*]] = tileir.tile_offset 0
// CHECK: %[[O1:.*]] = tileir.tile_offset 1
// CHECK: %[[C:.*]] = tileir.contract [%[[O0]], %[[O1]]] k 65 step 16 stages 2 : <32x32xf32> lhs {
// CHECK-NEXT: ^bb0(%[[I:.*]]: index, %[[K:.*]]: index):
// CHECK-NEXT: %[[X:.*]] = loopir.load %{{.*}}[%[[I]], %[[K]]] : memref<17x65xf32>
// CHECK-NEXT: %[[B:.*]] = loopir.load %{{.*}}[%[[K]]] : memref<65xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[X]], %[[B]] : f32
// CHECK-NEXT: tileir.yield %[[S]] : f32
// CHECK-NEXT: } rhs {
// CHECK-NEXT: ^bb0(%[[J:.*]]: index, %[[K2:.*]]: index):
// CHECK-NEXT: %[[W:.*]] = loopir.load %{{.*}}[%[[J]], %[[K2]]] map #{{.*}} : memref<65x19xf32>
// CHECK-NEXT: tileir.yield %[[W]] : f32
// CHECK: tileir.map ins(%[[C]] : !tileir.tile<32x32xf32>)
// CHECK: arith.maximumf
// CHECK: tileir.store
#wt = affine_map<(d0, d1) -> (d1, d0)>
func.func @relu_matmul(%x: tensor<17x65xf32>, %b: tensor<65xf32>, %w: tensor<65x19xf32>) -> tensor<17x19xf32> {
  %r = loopir.kernel ins(%x, %w, %b : tensor<17x65xf32>, tensor<65x19xf32>, tensor<65xf32>) -> tensor<17x19xf32> {
  ^bb0(%xb: memref<17x65xf32>, %wb: memref<65x19xf32>, %bb: memref<65xf32>, %out: memref<17x19xf32>):
    %zero = arith.constant 0.0 : f32
    loopir.parallel (%i, %j) in [17, 19] {
      %s = loopir.reduce add (%k) in [65] : f32 {
        %xv = loopir.load %xb[%i, %k] : memref<17x65xf32>
        %bv = loopir.load %bb[%k] : memref<65xf32>
        %a = arith.addf %xv, %bv : f32
        %wv = loopir.load %wb[%j, %k] map #wt : memref<65x19xf32>
        %p = arith.mulf %a, %wv : f32
        loopir.yield %p : f32
      }
      %y = arith.maximumf %s, %zero : f32
      loopir.store %y, %out[%i, %j] : memref<17x19xf32>
    }
  }
  return %r : tensor<17x19xf32>
}

// -----

// A batched product with the factors written the other way round (w * x):
// the factor free of the rows is the rhs. Batch dimensions get tile 1
// (and the rows 32: a small grid on FMAs, tileir-tile).
// CHECK-LABEL: func.func @bmm
// CHECK: domain [3, 40, 9] tile [1, 32, 16] threads 128 {
// CHECK: tileir.contract [%{{.*}}, %{{.*}}, %{{.*}}] k 20 step 16 stages 2 : <1x32x16xf32> lhs {
// CHECK-NEXT: ^bb0(%[[BT:.*]]: index, %[[I:.*]]: index, %[[K:.*]]: index):
// CHECK-NEXT: loopir.load %{{.*}}[%[[BT]], %[[I]], %[[K]]] : memref<3x40x20xf32>
// CHECK: } rhs {
// CHECK-NEXT: ^bb0(%[[BT2:.*]]: index, %[[J:.*]]: index, %[[K2:.*]]: index):
// CHECK-NEXT: loopir.load %{{.*}}[%[[BT2]], %[[K2]], %[[J]]] : memref<3x20x9xf32>
func.func @bmm(%a: tensor<3x40x20xf32>, %b: tensor<3x20x9xf32>) -> tensor<3x40x9xf32> {
  %r = loopir.kernel ins(%a, %b : tensor<3x40x20xf32>, tensor<3x20x9xf32>) -> tensor<3x40x9xf32> {
  ^bb0(%ab: memref<3x40x20xf32>, %bb: memref<3x20x9xf32>, %out: memref<3x40x9xf32>):
    loopir.parallel (%n, %i, %j) in [3, 40, 9] {
      %s = loopir.reduce add (%k) in [20] : f32 {
        %av = loopir.load %ab[%n, %i, %k] : memref<3x40x20xf32>
        %bv = loopir.load %bb[%n, %k, %j] : memref<3x20x9xf32>
        %p = arith.mulf %bv, %av : f32
        loopir.yield %p : f32
      }
      loopir.store %s, %out[%n, %i, %j] : memref<3x40x9xf32>
    }
  }
  return %r : tensor<3x40x9xf32>
}

// -----

// A matrix-vector product (one row) is a row reduction, not a tile of
// rows and columns.
// CHECK-LABEL: func.func @matvec
// CHECK: tileir.fold
// CHECK-NOT: tileir.contract
func.func @matvec(%x: tensor<1x512xf32>, %w: tensor<96x512xf32>) -> tensor<1x96xf32> {
  %r = loopir.kernel ins(%x, %w : tensor<1x512xf32>, tensor<96x512xf32>) -> tensor<1x96xf32> {
  ^bb0(%xb: memref<1x512xf32>, %wb: memref<96x512xf32>, %out: memref<1x96xf32>):
    loopir.parallel (%i, %j) in [1, 96] {
      %s = loopir.reduce add (%k) in [512] : f32 {
        %xv = loopir.load %xb[%i, %k] : memref<1x512xf32>
        %wv = loopir.load %wb[%j, %k] : memref<96x512xf32>
        %p = arith.mulf %xv, %wv : f32
        loopir.yield %p : f32
      }
      loopir.store %s, %out[%i, %j] : memref<1x96xf32>
    }
  }
  return %r : tensor<1x96xf32>
}

// -----

// A factor that depends on both the row and the column is no contraction.
// CHECK-LABEL: func.func @not_separable
// CHECK-NOT: tileir.contract
// CHECK: tileir.for_each_point
func.func @not_separable(%x: tensor<16x16x8xf32>, %w: tensor<16x8xf32>) -> tensor<16x16xf32> {
  %r = loopir.kernel ins(%x, %w : tensor<16x16x8xf32>, tensor<16x8xf32>) -> tensor<16x16xf32> {
  ^bb0(%xb: memref<16x16x8xf32>, %wb: memref<16x8xf32>, %out: memref<16x16xf32>):
    loopir.parallel (%i, %j) in [16, 16] {
      %s = loopir.reduce add (%k) in [8] : f32 {
        %xv = loopir.load %xb[%i, %j, %k] : memref<16x16x8xf32>
        %wv = loopir.load %wb[%j, %k] : memref<16x8xf32>
        %p = arith.mulf %xv, %wv : f32
        loopir.yield %p : f32
      }
      loopir.store %s, %out[%i, %j] : memref<16x16xf32>
    }
  }
  return %r : tensor<16x16xf32>
}

// -----

// A fused prologue's per-row value (RMSNorm's scale, read beside the
// reduction) moves into the lhs region: the nest is still a contraction,
// not a fold per output element. An op the epilogue also uses stays there.
// CHECK-LABEL: func.func @row_scaled_prologue
// CHECK: domain [70, 150] tile [32, 32] threads 256 {
// CHECK: tileir.contract [%{{.*}}, %{{.*}}] k 96 step 16 stages 2 : <32x32xf32> lhs {
// CHECK-NEXT: ^bb0(%[[I:.*]]: index, %[[K:.*]]: index):
// CHECK-NEXT: %[[S:.*]] = loopir.load %{{.*}}[%[[I]]] : memref<70xf32>
// CHECK-NEXT: %[[R:.*]] = math.rsqrt %[[S]] : f32
// CHECK-NEXT: %[[X:.*]] = loopir.load %{{.*}}[%[[I]], %[[K]]] : memref<70x96xf32>
// CHECK-NEXT: %[[XR:.*]] = arith.mulf %[[X]], %[[R]] : f32
// CHECK-NEXT: tileir.yield %[[XR]] : f32
// CHECK-NEXT: } rhs {
// CHECK: tileir.load %{{.*}}[%{{.*}}, %{{.*}}] map #{{.*}} : memref<70xf32>
// CHECK-NOT: math.rsqrt
// CHECK: tileir.map
// CHECK: arith.addf
// CHECK-NOT: tileir.fold
#row = affine_map<(d0, d1) -> (d0)>
func.func @row_scaled_prologue(%x: tensor<70x96xf32>, %s: tensor<70xf32>, %w: tensor<150x96xf32>) -> tensor<70x150xf32> {
  %r = loopir.kernel ins(%x, %s, %w : tensor<70x96xf32>, tensor<70xf32>, tensor<150x96xf32>) -> tensor<70x150xf32> {
  ^bb0(%xb: memref<70x96xf32>, %sb: memref<70xf32>, %wb: memref<150x96xf32>, %out: memref<70x150xf32>):
    loopir.parallel (%i, %j) in [70, 150] {
      %sv = loopir.load %sb[%i] : memref<70xf32>
      %rs = math.rsqrt %sv : f32
      %acc = loopir.reduce add (%k) in [96] : f32 {
        %xv = loopir.load %xb[%i, %k] : memref<70x96xf32>
        %a = arith.mulf %xv, %rs : f32
        %wv = loopir.load %wb[%j, %k] : memref<150x96xf32>
        %p = arith.mulf %a, %wv : f32
        loopir.yield %p : f32
      }
      %y = arith.addf %acc, %sv : f32
      loopir.store %y, %out[%i, %j] : memref<70x150xf32>
    }
  }
  return %r : tensor<70x150xf32>
}

// -----

// Sibling products of one reduction (gate and up projections of one input,
// merged by loopir-normalize) are one tileir.contract each, in one program
// whose epilogue combines them (silu(g) * u).
// CHECK-LABEL: func.func @sibling_products
// CHECK: domain [70, 77] tile [32, 32] threads 256 {
// CHECK: %[[G:.*]] = tileir.contract [%{{.*}}, %{{.*}}] k 96 step 16 stages 2 : <32x32xf32> lhs {
// CHECK: loopir.load %{{.*}} : memref<70x96xf32>
// CHECK: } rhs {
// CHECK: loopir.load %{{.*}} : memref<77x96xf32>
// CHECK: %[[U:.*]] = tileir.contract [%{{.*}}, %{{.*}}] k 96 step 16 stages 2 : <32x32xf32> lhs {
// CHECK: tileir.map ins(%[[G]], %[[U]] : !tileir.tile<32x32xf32>, !tileir.tile<32x32xf32>)
// CHECK: math.exp
// CHECK-NOT: tileir.fold
func.func @sibling_products(%x: tensor<70x96xf32>, %g: tensor<77x96xf32>, %u: tensor<77x96xf32>) -> tensor<70x77xf32> {
  %r = loopir.kernel ins(%x, %g, %u : tensor<70x96xf32>, tensor<77x96xf32>, tensor<77x96xf32>) -> tensor<70x77xf32> {
  ^bb0(%xb: memref<70x96xf32>, %gb: memref<77x96xf32>, %ub: memref<77x96xf32>, %out: memref<70x77xf32>):
    %one = arith.constant 1.0 : f32
    loopir.parallel (%i, %j) in [70, 77] {
      %acc:2 = loopir.reduce add, add (%k) in [96] : f32, f32 {
        %xv = loopir.load %xb[%i, %k] : memref<70x96xf32>
        %gv = loopir.load %gb[%j, %k] : memref<77x96xf32>
        %pg = arith.mulf %xv, %gv : f32
        %uv = loopir.load %ub[%j, %k] : memref<77x96xf32>
        %pu = arith.mulf %xv, %uv : f32
        loopir.yield %pg, %pu : f32, f32
      }
      %n = arith.negf %acc#0 : f32
      %e = math.exp %n : f32
      %d = arith.addf %e, %one : f32
      %sg = arith.divf %acc#0, %d : f32
      %y = arith.mulf %sg, %acc#1 : f32
      loopir.store %y, %out[%i, %j] : memref<70x77xf32>
    }
  }
  return %r : tensor<70x77xf32>
}
