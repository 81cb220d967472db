// RUN: strata-opt %s -split-input-file --loopir-fuse --canonicalize | FileCheck %s
// The guard, on both sides of its bound:
// RUN: strata-opt %s -split-input-file '--loopir-fuse=max-recompute=0.01' --canonicalize | FileCheck %s --check-prefix=STRICT

// An elementwise chain through a broadcast becomes one kernel: the
// consumer's indices are substituted into the producers' loads.
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[A:.*]]: tensor<1000x37xf32>, %[[B:.*]]: tensor<37xf32>)
// CHECK: %[[K:.*]] = loopir.kernel ins(%[[A]], %[[B]] : tensor<1000x37xf32>, tensor<37xf32>) -> tensor<1000x37xf32> {
// CHECK: loopir.parallel (%[[I:.*]], %[[J:.*]]) in [1000, 37] {
// CHECK-NEXT: %[[X:.*]] = loopir.load %{{.*}}[%[[I]], %[[J]]] : memref<1000x37xf32>
// CHECK-NEXT: %[[E:.*]] = math.exp %[[X]] : f32
// CHECK-NEXT: %[[Y:.*]] = loopir.load %{{.*}}[%[[I]], %[[J]]] map #[[ROW]] : memref<37xf32>
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[E]], %[[Y]] : f32
// CHECK-NEXT: loopir.store %[[M]]
// CHECK-NOT: loopir.kernel
// CHECK: return %[[K]]
// With a stricter bound the exp stays a kernel; the broadcast, which only
// moves data, still fuses.
// STRICT-LABEL: func.func @chain
// STRICT: loopir.kernel
// STRICT: math.exp
// STRICT: loopir.kernel
// STRICT-NOT: loopir.kernel
// STRICT: arith.mulf
func.func @chain(%a: tensor<1000x37xf32>, %b: tensor<37xf32>) -> tensor<1000x37xf32> {
  %e = loopir.kernel ins(%a : tensor<1000x37xf32>) -> tensor<1000x37xf32> {
  ^bb0(%in: memref<1000x37xf32>, %out: memref<1000x37xf32>):
    loopir.parallel (%i, %j) in [1000, 37] {
      %x = loopir.load %in[%i, %j] : memref<1000x37xf32>
      %y = math.exp %x : f32
      loopir.store %y, %out[%i, %j] : memref<1000x37xf32>
    }
  }
  %bb = loopir.kernel ins(%b : tensor<37xf32>) -> tensor<1000x37xf32> {
  ^bb0(%in: memref<37xf32>, %out: memref<1000x37xf32>):
    loopir.parallel (%i, %j) in [1000, 37] {
      %x = loopir.load %in[%i, %j] map affine_map<(d0, d1) -> (d1)> : memref<37xf32>
      loopir.store %x, %out[%i, %j] : memref<1000x37xf32>
    }
  }
  %m = loopir.kernel ins(%e, %bb : tensor<1000x37xf32>, tensor<1000x37xf32>) -> tensor<1000x37xf32> {
  ^bb0(%x: memref<1000x37xf32>, %y: memref<1000x37xf32>, %out: memref<1000x37xf32>):
    loopir.parallel (%i, %j) in [1000, 37] {
      %u = loopir.load %x[%i, %j] : memref<1000x37xf32>
      %v = loopir.load %y[%i, %j] : memref<1000x37xf32>
      %w = arith.mulf %u, %v : f32
      loopir.store %w, %out[%i, %j] : memref<1000x37xf32>
    }
  }
  return %m : tensor<1000x37xf32>
}

// -----

// A row reduction is placed where its consumer reads it: inside the
// consumer's nest, at the row's indices (normalization hoists it later).
// STRICT-LABEL: func.func @reduction_into_consumer
// CHECK-LABEL: func.func @reduction_into_consumer
// CHECK: loopir.kernel ins(%{{.*}} : tensor<32x2049xf32>) -> tensor<32x2049xf32>
// CHECK: loopir.parallel (%[[I:.*]], %[[J:.*]]) in [32, 2049] {
// CHECK: %[[M:.*]] = loopir.reduce max (%[[K:.*]]) in [2049] : f32 {
// CHECK: loopir.load %{{.*}}[%[[I]], %[[K]]] : memref<32x2049xf32>
// CHECK: arith.subf %{{.*}}, %[[M]] : f32
// CHECK-NOT: loopir.kernel
func.func @reduction_into_consumer(%a: tensor<32x2049xf32>) -> tensor<32x2049xf32> {
  %m = loopir.kernel ins(%a : tensor<32x2049xf32>) -> tensor<32xf32> {
  ^bb0(%in: memref<32x2049xf32>, %out: memref<32xf32>):
    loopir.parallel (%i) in [32] {
      %r = loopir.reduce max (%k) in [2049] : f32 {
        %x = loopir.load %in[%i, %k] : memref<32x2049xf32>
        loopir.yield %x : f32
      }
      loopir.store %r, %out[%i] : memref<32xf32>
    }
  }
  %d = loopir.kernel ins(%a, %m : tensor<32x2049xf32>, tensor<32xf32>) -> tensor<32x2049xf32> {
  ^bb0(%x: memref<32x2049xf32>, %y: memref<32xf32>, %out: memref<32x2049xf32>):
    loopir.parallel (%i, %j) in [32, 2049] {
      %u = loopir.load %x[%i, %j] : memref<32x2049xf32>
      %v = loopir.load %y[%i, %j] map affine_map<(d0, d1) -> (d0)> : memref<32xf32>
      %w = arith.subf %u, %v : f32
      loopir.store %w, %out[%i, %j] : memref<32x2049xf32>
    }
  }
  return %d : tensor<32x2049xf32>
}

// -----

// A reduction read where it would be recomputed for every output column
// (a matmul consuming another matmul) stays a kernel of its own.
// CHECK-LABEL: func.func @no_repeated_reduction
// CHECK-COUNT-2: loopir.kernel
func.func @no_repeated_reduction(%a: tensor<16x64xf32>, %w: tensor<64x64xf32>) -> tensor<16x64xf32> {
  %h = loopir.kernel ins(%a, %w : tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> {
  ^bb0(%x: memref<16x64xf32>, %y: memref<64x64xf32>, %out: memref<16x64xf32>):
    loopir.parallel (%i, %j) in [16, 64] {
      %r = loopir.reduce add (%k) in [64] : f32 {
        %u = loopir.load %x[%i, %k] : memref<16x64xf32>
        %v = loopir.load %y[%k, %j] : memref<64x64xf32>
        %p = arith.mulf %u, %v : f32
        loopir.yield %p : f32
      }
      loopir.store %r, %out[%i, %j] : memref<16x64xf32>
    }
  }
  %o = loopir.kernel ins(%h, %w : tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> {
  ^bb0(%x: memref<16x64xf32>, %y: memref<64x64xf32>, %out: memref<16x64xf32>):
    loopir.parallel (%i, %j) in [16, 64] {
      %r = loopir.reduce add (%k) in [64] : f32 {
        %u = loopir.load %x[%i, %k] : memref<16x64xf32>
        %v = loopir.load %y[%k, %j] : memref<64x64xf32>
        %p = arith.mulf %u, %v : f32
        loopir.yield %p : f32
      }
      loopir.store %r, %out[%i, %j] : memref<16x64xf32>
    }
  }
  return %o : tensor<16x64xf32>
}

// -----

// A producer with two consumers is recomputed in both when that is cheaper
// than a round trip through memory, and disappears.
// CHECK-LABEL: func.func @two_consumers
// CHECK: loopir.kernel
// CHECK: math.exp
// CHECK-NEXT: arith.negf
// CHECK: loopir.kernel
// CHECK: math.exp
// CHECK-NEXT: math.sqrt
// CHECK-NOT: loopir.kernel
func.func @two_consumers(%a: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %e = loopir.kernel ins(%a : tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%in: memref<64xf32>, %out: memref<64xf32>):
    loopir.parallel (%i) in [64] {
      %x = loopir.load %in[%i] : memref<64xf32>
      %y = math.exp %x : f32
      loopir.store %y, %out[%i] : memref<64xf32>
    }
  }
  %n = loopir.kernel ins(%e : tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%in: memref<64xf32>, %out: memref<64xf32>):
    loopir.parallel (%i) in [64] {
      %x = loopir.load %in[%i] : memref<64xf32>
      %y = arith.negf %x : f32
      loopir.store %y, %out[%i] : memref<64xf32>
    }
  }
  %s = loopir.kernel ins(%e : tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%in: memref<64xf32>, %out: memref<64xf32>):
    loopir.parallel (%i) in [64] {
      %x = loopir.load %in[%i] : memref<64xf32>
      %y = math.sqrt %x : f32
      loopir.store %y, %out[%i] : memref<64xf32>
    }
  }
  return %n, %s : tensor<64xf32>, tensor<64xf32>
}

// -----

// A widening cast feeding a contraction of 512 x 256 outputs: unstaged,
// each element of the cast would be recomputed for all 256 columns, far
// more than the round trip it saves; the contraction schedule stages it
// once per block of 64 columns (4 times), so it fuses. A matmul feeding a
// matmul is no scalar operand (it cannot be staged) and stays separate.
// CHECK-LABEL: func.func @cast_into_contraction
// CHECK: loopir.kernel
// CHECK: loopir.reduce add
// CHECK: arith.extf
// CHECK: arith.mulf
// CHECK-NOT: loopir.kernel
// STRICT-LABEL: func.func @cast_into_contraction
// STRICT: arith.extf
// STRICT: loopir.kernel
// STRICT: loopir.reduce add
func.func @cast_into_contraction(%a: tensor<512x384xf16>, %b: tensor<384x256xf32>) -> tensor<512x256xf32> {
  %wide = loopir.kernel ins(%a : tensor<512x384xf16>) -> tensor<512x384xf32> {
  ^bb0(%in: memref<512x384xf16>, %out: memref<512x384xf32>):
    loopir.parallel (%i, %k) in [512, 384] {
      %x = loopir.load %in[%i, %k] : memref<512x384xf16>
      %y = arith.extf %x : f16 to f32
      loopir.store %y, %out[%i, %k] : memref<512x384xf32>
    }
  }
  %c = loopir.kernel ins(%wide, %b : tensor<512x384xf32>, tensor<384x256xf32>) -> tensor<512x256xf32> {
  ^bb0(%lhs: memref<512x384xf32>, %rhs: memref<384x256xf32>, %out: memref<512x256xf32>):
    loopir.parallel (%i, %j) in [512, 256] {
      %s = loopir.reduce add (%k) in [384] : f32 {
        %x = loopir.load %lhs[%i, %k] : memref<512x384xf32>
        %y = loopir.load %rhs[%k, %j] : memref<384x256xf32>
        %p = arith.mulf %x, %y : f32
        loopir.yield %p : f32
      }
      loopir.store %s, %out[%i, %j] : memref<512x256xf32>
    }
  }
  return %c : tensor<512x256xf32>
}

// CHECK-LABEL: func.func @matmul_into_matmul
// CHECK: loopir.kernel
// CHECK: loopir.reduce add
// CHECK: loopir.kernel
// CHECK: loopir.reduce add
func.func @matmul_into_matmul(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %h = loopir.kernel ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32> {
  ^bb0(%l: memref<64x64xf32>, %r: memref<64x64xf32>, %out: memref<64x64xf32>):
    loopir.parallel (%i, %j) in [64, 64] {
      %s = loopir.reduce add (%k) in [64] : f32 {
        %x = loopir.load %l[%i, %k] : memref<64x64xf32>
        %y = loopir.load %r[%k, %j] : memref<64x64xf32>
        %p = arith.mulf %x, %y : f32
        loopir.yield %p : f32
      }
      loopir.store %s, %out[%i, %j] : memref<64x64xf32>
    }
  }
  %c = loopir.kernel ins(%h, %b : tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32> {
  ^bb0(%l: memref<64x64xf32>, %r: memref<64x64xf32>, %out: memref<64x64xf32>):
    loopir.parallel (%i, %j) in [64, 64] {
      %s = loopir.reduce add (%k) in [64] : f32 {
        %x = loopir.load %l[%i, %k] : memref<64x64xf32>
        %y = loopir.load %r[%k, %j] : memref<64x64xf32>
        %p = arith.mulf %x, %y : f32
        loopir.yield %p : f32
      }
      loopir.store %s, %out[%i, %j] : memref<64x64xf32>
    }
  }
  return %c : tensor<64x64xf32>
}

// -----

// A weighted sum over a row with few output columns (attention's P.V for
// one query: 16 values per head) is a row vector: the row schedule folds
// all 16 sums in one pass and computes a weight once per point of the
// row, so a weight's producer (here the scores q.k, a reduction of its
// own) costs once per element fused, and it fuses.
// CHECK-LABEL: func.func @row_vector_weights
// CHECK: loopir.kernel
// CHECK: loopir.parallel (%{{.*}}, %{{.*}}) in [2, 16] {
// CHECK: loopir.reduce add (%{{.*}}) in [45] : f32 {
// CHECK: loopir.reduce add (%{{.*}}) in [8] : f32 {
// CHECK-NOT: loopir.kernel
func.func @row_vector_weights(%q: tensor<2x8xf32>, %k: tensor<45x8xf32>, %v: tensor<45x16xf32>) -> tensor<2x16xf32> {
  %s = loopir.kernel ins(%q, %k : tensor<2x8xf32>, tensor<45x8xf32>) -> tensor<2x45xf32> {
  ^bb0(%qb: memref<2x8xf32>, %kb: memref<45x8xf32>, %out: memref<2x45xf32>):
    loopir.parallel (%i, %j) in [2, 45] {
      %d = loopir.reduce add (%c) in [8] : f32 {
        %a = loopir.load %qb[%i, %c] : memref<2x8xf32>
        %b = loopir.load %kb[%j, %c] : memref<45x8xf32>
        %p = arith.mulf %a, %b : f32
        loopir.yield %p : f32
      }
      loopir.store %d, %out[%i, %j] : memref<2x45xf32>
    }
  }
  %o = loopir.kernel ins(%s, %v : tensor<2x45xf32>, tensor<45x16xf32>) -> tensor<2x16xf32> {
  ^bb0(%sb: memref<2x45xf32>, %vb: memref<45x16xf32>, %out: memref<2x16xf32>):
    loopir.parallel (%i, %e) in [2, 16] {
      %r = loopir.reduce add (%j) in [45] : f32 {
        %x = loopir.load %sb[%i, %j] : memref<2x45xf32>
        %w = math.exp %x : f32
        %y = loopir.load %vb[%j, %e] : memref<45x16xf32>
        %p = arith.mulf %w, %y : f32
        loopir.yield %p : f32
      }
      loopir.store %r, %out[%i, %e] : memref<2x16xf32>
    }
  }
  return %o : tensor<2x16xf32>
}

// -----

// A contraction (k = 8) in the epilogue of another (k = 45) would make a
// kernel of two reductions that no contraction schedule takes: both stay
// kernels, and the second adds the first's result in its epilogue.
// CHECK-LABEL: func.func @contraction_into_contraction
// CHECK: loopir.kernel
// CHECK: loopir.reduce add (%{{.*}}) in [8]
// CHECK: loopir.kernel
// CHECK: loopir.reduce add (%{{.*}}) in [45]
// CHECK-NOT: loopir.reduce
func.func @contraction_into_contraction(%a: tensor<16x8xf32>, %b: tensor<8x16xf32>, %c: tensor<16x45xf32>, %d: tensor<45x16xf32>) -> tensor<16x16xf32> {
  %ab = loopir.kernel ins(%a, %b : tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<16x16xf32> {
  ^bb0(%ap: memref<16x8xf32>, %bp: memref<8x16xf32>, %out: memref<16x16xf32>):
    loopir.parallel (%i, %j) in [16, 16] {
      %s = loopir.reduce add (%k) in [8] : f32 {
        %x = loopir.load %ap[%i, %k] : memref<16x8xf32>
        %y = loopir.load %bp[%k, %j] : memref<8x16xf32>
        %p = arith.mulf %x, %y : f32
        loopir.yield %p : f32
      }
      loopir.store %s, %out[%i, %j] : memref<16x16xf32>
    }
  }
  %r = loopir.kernel ins(%c, %d, %ab : tensor<16x45xf32>, tensor<45x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32> {
  ^bb0(%cp: memref<16x45xf32>, %dp: memref<45x16xf32>, %abp: memref<16x16xf32>, %out: memref<16x16xf32>):
    loopir.parallel (%i, %j) in [16, 16] {
      %s = loopir.reduce add (%k) in [45] : f32 {
        %x = loopir.load %cp[%i, %k] : memref<16x45xf32>
        %y = loopir.load %dp[%k, %j] : memref<45x16xf32>
        %p = arith.mulf %x, %y : f32
        loopir.yield %p : f32
      }
      %e = loopir.load %abp[%i, %j] : memref<16x16xf32>
      %t = arith.addf %s, %e : f32
      loopir.store %t, %out[%i, %j] : memref<16x16xf32>
    }
  }
  return %r : tensor<16x16xf32>
}

// -----

// A matrix product in halves is an f32 contraction and a kernel that
// rounds its result. The rounding fuses into no reader of the halves (two
// here: the contraction would write f32 for both); the contraction takes
// it as its epilogue and writes bf16, which both readers load.
// CHECK-LABEL: func.func @rounded_product
// CHECK: %[[P:.*]] = loopir.kernel ins({{.*}}) -> tensor<64x96xbf16>
// CHECK: loopir.reduce add
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: loopir.kernel ins(%[[P]] : tensor<64x96xbf16>)
// CHECK-NOT: arith.truncf
// CHECK: math.exp
// CHECK: loopir.kernel ins(%[[P]] : tensor<64x96xbf16>)
// CHECK-NOT: arith.truncf
// CHECK: loopir.reduce max
func.func @rounded_product(%a: tensor<64x40xbf16>, %b: tensor<40x96xbf16>) -> (tensor<64x96xf32>, tensor<64xf32>) {
  %p = loopir.kernel ins(%a, %b : tensor<64x40xbf16>, tensor<40x96xbf16>) -> tensor<64x96xf32> {
  ^bb0(%x: memref<64x40xbf16>, %y: memref<40x96xbf16>, %out: memref<64x96xf32>):
    loopir.parallel (%i, %j) in [64, 96] {
      %s = loopir.reduce add (%k) in [40] : f32 {
        %u = loopir.load %x[%i, %j, %k] map affine_map<(d0, d1, d2) -> (d0, d2)> : memref<64x40xbf16>
        %v = loopir.load %y[%i, %j, %k] map affine_map<(d0, d1, d2) -> (d2, d1)> : memref<40x96xbf16>
        %uw = arith.extf %u : bf16 to f32
        %vw = arith.extf %v : bf16 to f32
        %m = arith.mulf %uw, %vw : f32
        loopir.yield %m : f32
      }
      loopir.store %s, %out[%i, %j] : memref<64x96xf32>
    }
  }
  %r = loopir.kernel ins(%p : tensor<64x96xf32>) -> tensor<64x96xbf16> {
  ^bb0(%in: memref<64x96xf32>, %out: memref<64x96xbf16>):
    loopir.parallel (%i, %j) in [64, 96] {
      %x = loopir.load %in[%i, %j] : memref<64x96xf32>
      %y = arith.truncf %x : f32 to bf16
      loopir.store %y, %out[%i, %j] : memref<64x96xbf16>
    }
  }
  %e = loopir.kernel ins(%r : tensor<64x96xbf16>) -> tensor<64x96xf32> {
  ^bb0(%in: memref<64x96xbf16>, %out: memref<64x96xf32>):
    loopir.parallel (%i, %j) in [64, 96] {
      %x = loopir.load %in[%i, %j] : memref<64x96xbf16>
      %w = arith.extf %x : bf16 to f32
      %y = math.exp %w : f32
      loopir.store %y, %out[%i, %j] : memref<64x96xf32>
    }
  }
  %m = loopir.kernel ins(%r : tensor<64x96xbf16>) -> tensor<64xf32> {
  ^bb0(%in: memref<64x96xbf16>, %out: memref<64xf32>):
    loopir.parallel (%i) in [64] {
      %s = loopir.reduce max (%j) in [96] : f32 {
        %x = loopir.load %in[%i, %j] : memref<64x96xbf16>
        %w = arith.extf %x : bf16 to f32
        loopir.yield %w : f32
      }
      loopir.store %s, %out[%i] : memref<64xf32>
    }
  }
  return %e, %m : tensor<64x96xf32>, tensor<64xf32>
}

// -----

// A statistic (here a row's maximum of a mask) read in the epilogue of a
// contraction, and fed by none, stays a kernel: fused, the nest would hold
// two reductions, which no contraction schedule takes.
// CHECK-LABEL: func.func @statistic_beside_product
// CHECK: %[[S:.*]] = loopir.kernel
// CHECK: loopir.reduce max
// CHECK: loopir.kernel ins({{.*}}%[[S]]
// CHECK-NOT: loopir.reduce max
// CHECK: loopir.reduce add
// CHECK-NOT: loopir.reduce
// CHECK: return
func.func @statistic_beside_product(%a: tensor<64x40xf32>, %b: tensor<40x96xf32>, %mask: tensor<64x96xf32>) -> tensor<64x96xf32> {
  %any = loopir.kernel ins(%mask : tensor<64x96xf32>) -> tensor<64xf32> {
  ^bb0(%in: memref<64x96xf32>, %out: memref<64xf32>):
    loopir.parallel (%i) in [64] {
      %s = loopir.reduce max (%j) in [96] : f32 {
        %v = loopir.load %in[%i, %j] : memref<64x96xf32>
        loopir.yield %v : f32
      }
      loopir.store %s, %out[%i] : memref<64xf32>
    }
  }
  %p = loopir.kernel ins(%a, %b, %any : tensor<64x40xf32>, tensor<40x96xf32>, tensor<64xf32>) -> tensor<64x96xf32> {
  ^bb0(%x: memref<64x40xf32>, %y: memref<40x96xf32>, %st: memref<64xf32>, %out: memref<64x96xf32>):
    loopir.parallel (%i, %j) in [64, 96] {
      %s = loopir.reduce add (%k) in [40] : f32 {
        %u = loopir.load %x[%i, %j, %k] map affine_map<(d0, d1, d2) -> (d0, d2)> : memref<64x40xf32>
        %v = loopir.load %y[%i, %j, %k] map affine_map<(d0, d1, d2) -> (d2, d1)> : memref<40x96xf32>
        %m = arith.mulf %u, %v : f32
        loopir.yield %m : f32
      }
      %t = loopir.load %st[%i, %j] map affine_map<(d0, d1) -> (d0)> : memref<64xf32>
      %z = arith.constant 0.0 : f32
      %c = arith.cmpf ogt, %t, %z : f32
      %r = arith.select %c, %s, %z : f32
      loopir.store %r, %out[%i, %j] : memref<64x96xf32>
    }
  }
  return %p : tensor<64x96xf32>
}

// -----

// A sum of loads is no statistic but a contraction whose product has not
// joined it yet (a depthwise convolution's window): it still fuses.
// CHECK-LABEL: func.func @sum_of_loads_beside_product
// CHECK: loopir.kernel
// CHECK-NOT: loopir.kernel
// CHECK: return
func.func @sum_of_loads_beside_product(%a: tensor<64x40xf32>, %b: tensor<40x96xf32>, %mask: tensor<64x96xf32>) -> tensor<64x96xf32> {
  %any = loopir.kernel ins(%mask : tensor<64x96xf32>) -> tensor<64xf32> {
  ^bb0(%in: memref<64x96xf32>, %out: memref<64xf32>):
    loopir.parallel (%i) in [64] {
      %s = loopir.reduce add (%j) in [96] : f32 {
        %v = loopir.load %in[%i, %j] : memref<64x96xf32>
        loopir.yield %v : f32
      }
      loopir.store %s, %out[%i] : memref<64xf32>
    }
  }
  %p = loopir.kernel ins(%a, %b, %any : tensor<64x40xf32>, tensor<40x96xf32>, tensor<64xf32>) -> tensor<64x96xf32> {
  ^bb0(%x: memref<64x40xf32>, %y: memref<40x96xf32>, %st: memref<64xf32>, %out: memref<64x96xf32>):
    loopir.parallel (%i, %j) in [64, 96] {
      %s = loopir.reduce add (%k) in [40] : f32 {
        %u = loopir.load %x[%i, %j, %k] map affine_map<(d0, d1, d2) -> (d0, d2)> : memref<64x40xf32>
        %v = loopir.load %y[%i, %j, %k] map affine_map<(d0, d1, d2) -> (d2, d1)> : memref<40x96xf32>
        %m = arith.mulf %u, %v : f32
        loopir.yield %m : f32
      }
      %t = loopir.load %st[%i, %j] map affine_map<(d0, d1) -> (d0)> : memref<64xf32>
      %z = arith.constant 0.0 : f32
      %c = arith.cmpf ogt, %t, %z : f32
      %r = arith.select %c, %s, %z : f32
      loopir.store %r, %out[%i, %j] : memref<64x96xf32>
    }
  }
  return %p : tensor<64x96xf32>
}
