// RUN: strata-opt %s -split-input-file --loopir-normalize --canonicalize | FileCheck %s

// The fused softmax: the row max and sum move out of the column loop (and
// the max out of the sum), the duplicated max is merged, and the division
// by the row sum becomes a multiplication by its reciprocal.
// CHECK-LABEL: func.func @softmax
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: loopir.parallel (%[[I:.*]]) in [33] {
// CHECK-NEXT: %[[M:.*]] = loopir.reduce max (%[[K:.*]]) in [70] : f32 {
// CHECK-NEXT: loopir.load %{{.*}}[%[[I]], %[[K]]] : memref<33x70xf32>
// CHECK: %[[S:.*]] = loopir.reduce add (%[[K2:.*]]) in [70] : f32 {
// CHECK: arith.subf %{{.*}}, %[[M]] : f32
// CHECK: %[[R:.*]] = arith.divf %[[ONE]], %[[S]] : f32
// CHECK-NEXT: loopir.parallel (%[[J:.*]]) in [70] {
// CHECK: %[[E:.*]] = math.exp
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[E]], %[[R]] : f32
// CHECK-NEXT: loopir.store %[[Y]], %{{.*}}[%[[I]], %[[J]]]
// CHECK-NOT: loopir.reduce max
func.func @softmax(%arg0: tensor<33x70xf32>) -> tensor<33x70xf32> {
  %0 = loopir.kernel ins(%arg0 : tensor<33x70xf32>) -> tensor<33x70xf32> {
  ^bb0(%arg1: memref<33x70xf32>, %arg2: memref<33x70xf32>):
    loopir.parallel (%arg3, %arg4) in [33, 70] {
      %1 = loopir.load %arg1[%arg3, %arg4] : memref<33x70xf32>
      %2 = loopir.reduce max (%arg5) in [70] : f32 {
        %7 = loopir.load %arg1[%arg3, %arg4, %arg5] map affine_map<(d0, d1, d2) -> (d0, d2)> : memref<33x70xf32>
        loopir.yield %7 : f32
      }
      %3 = arith.subf %1, %2 : f32
      %4 = math.exp %3 : f32
      %5 = loopir.reduce add (%arg5) in [70] : f32 {
        %7 = loopir.load %arg1[%arg3, %arg4, %arg5] map affine_map<(d0, d1, d2) -> (d0, d2)> : memref<33x70xf32>
        %8 = loopir.reduce max (%arg6) in [70] : f32 {
          %11 = loopir.load %arg1[%arg3, %arg4, %arg5, %arg6] map affine_map<(d0, d1, d2, d3) -> (d0, d3)> : memref<33x70xf32>
          loopir.yield %11 : f32
        }
        %9 = arith.subf %7, %8 : f32
        %10 = math.exp %9 : f32
        loopir.yield %10 : f32
      }
      %6 = arith.divf %4, %5 : f32
      loopir.store %6, %arg2[%arg3, %arg4] : memref<33x70xf32>
    }
  }
  return %0 : tensor<33x70xf32>
}

// -----

// A division by a value computed in the same iteration stays a division.
// CHECK-LABEL: func.func @variant_divisor
// CHECK: arith.divf
// CHECK-NOT: arith.mulf
func.func @variant_divisor(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %0 = loopir.kernel ins(%a, %b : tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%x: memref<8xf32>, %y: memref<8xf32>, %out: memref<8xf32>):
    loopir.parallel (%i) in [8] {
      %u = loopir.load %x[%i] : memref<8xf32>
      %v = loopir.load %y[%i] : memref<8xf32>
      %w = arith.divf %u, %v : f32
      loopir.store %w, %out[%i] : memref<8xf32>
    }
  }
  return %0 : tensor<8xf32>
}

// -----

// Independent reductions over one box share one pass; a reduction that uses
// another's result does not join it (the sum of x - max joins the sum of
// squares, not the max).
// CHECK-LABEL: func.func @siblings
// CHECK: %[[M:.*]] = loopir.reduce max (%{{.*}}) in [100] : f32 {
// CHECK: %[[R:.*]]:2 = loopir.reduce add, add (%{{.*}}) in [100] : f32, f32 {
// CHECK: %[[X:.*]] = loopir.load
// CHECK: %[[SQ:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK: %[[D:.*]] = arith.subf %{{.*}}, %[[M]] : f32
// CHECK: loopir.yield %[[SQ]], %[[D]] : f32, f32
// CHECK: arith.addf %[[R]]#0, %[[R]]#1
func.func @siblings(%a: tensor<32x100xf32>) -> (tensor<32xf32>, tensor<32xf32>) {
  %0:2 = loopir.kernel ins(%a : tensor<32x100xf32>) -> tensor<32xf32>, tensor<32xf32> {
  ^bb0(%in: memref<32x100xf32>, %o1: memref<32xf32>, %o2: memref<32xf32>):
    loopir.parallel (%i) in [32] {
      %s = loopir.reduce add (%k) in [100] : f32 {
        %x = loopir.load %in[%i, %k] : memref<32x100xf32>
        %x2 = arith.mulf %x, %x : f32
        loopir.yield %x2 : f32
      }
      %m = loopir.reduce max (%k) in [100] : f32 {
        %x = loopir.load %in[%i, %k] : memref<32x100xf32>
        loopir.yield %x : f32
      }
      %d = loopir.reduce add (%k) in [100] : f32 {
        %x = loopir.load %in[%i, %k] : memref<32x100xf32>
        %y = arith.subf %x, %m : f32
        loopir.yield %y : f32
      }
      %t = arith.addf %s, %d : f32
      loopir.store %t, %o1[%i] : memref<32xf32>
      loopir.store %m, %o2[%i] : memref<32xf32>
    }
  }
  return %0#0, %0#1 : tensor<32xf32>, tensor<32xf32>
}

// -----

// Siblings that read a rank-0 buffer (a scalar weight: an access without
// indices) merge alike; asking which loops such an access depends on once
// read past the op's operands (a crash that depended on the heap's layout,
// ALBERT's tiny config in transformers).
// CHECK-LABEL: func.func @siblings_reading_a_scalar
// CHECK: loopir.load %{{.*}}[] : memref<f32>
// CHECK: %[[R:.*]]:2 = loopir.reduce add, add (%{{.*}}) in [100] : f32, f32 {
// CHECK: arith.addf %[[R]]#0, %[[R]]#1
func.func @siblings_reading_a_scalar(%a: tensor<32x100xf32>, %w: tensor<f32>) -> tensor<32xf32> {
  %0 = loopir.kernel ins(%a, %w : tensor<32x100xf32>, tensor<f32>) -> tensor<32xf32> {
  ^bb0(%in: memref<32x100xf32>, %wb: memref<f32>, %o: memref<32xf32>):
    loopir.parallel (%i) in [32] {
      %s = loopir.reduce add (%k) in [100] : f32 {
        %x = loopir.load %in[%i, %k] : memref<32x100xf32>
        %c = loopir.load %wb[] : memref<f32>
        %y = arith.mulf %x, %c : f32
        loopir.yield %y : f32
      }
      %d = loopir.reduce add (%k) in [100] : f32 {
        %x = loopir.load %in[%i, %k] : memref<32x100xf32>
        %c = loopir.load %wb[] : memref<f32>
        %y = arith.subf %x, %c : f32
        loopir.yield %y : f32
      }
      %t = arith.addf %s, %d : f32
      loopir.store %t, %o[%i] : memref<32xf32>
    }
  }
  return %0 : tensor<32xf32>
}

// -----

// A reduction folding the same contribution twice with the same combiner
// (fusion cloned one product into two consumers, then the clones were
// merged) keeps one fold; its result serves both uses.
// CHECK-LABEL: func.func @duplicate_contribution
// CHECK: %[[S:.*]] = loopir.reduce add (%{{.*}}) in [65] : f32 {
// CHECK: loopir.yield %{{.*}} : f32
// CHECK: arith.addf %[[S]], %[[S]] : f32
func.func @duplicate_contribution(%a: tensor<4x65xf32>) -> tensor<4xf32> {
  %r = loopir.kernel ins(%a : tensor<4x65xf32>) -> tensor<4xf32> {
  ^bb0(%in: memref<4x65xf32>, %out: memref<4xf32>):
    loopir.parallel (%i) in [4] {
      %s:2 = loopir.reduce add, add (%k) in [65] : f32, f32 {
        %x = loopir.load %in[%i, %k] : memref<4x65xf32>
        %y = loopir.load %in[%i, %k] : memref<4x65xf32>
        %x2 = arith.mulf %x, %x : f32
        %y2 = arith.mulf %y, %y : f32
        loopir.yield %x2, %y2 : f32, f32
      }
      %t = arith.addf %s#0, %s#1 : f32
      loopir.store %t, %out[%i] : memref<4xf32>
    }
  }
  return %r : tensor<4xf32>
}

// -----

// A flattened index split again (a [2, 17, 96] view read as [34, 96] and
// back): d0 * 1632 + d1 * 96 + d2 spans two periods of 1632, but its
// multiples of 1632 leave the division first and the rest (< 17 * 96)
// stays within one, so the map is the identity again. A mod keeps only
// what is not a multiple of its divisor.
// CHECK: #[[MOD:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2 mod 8)>
// CHECK-LABEL: func.func @split_flattened_index
// CHECK: loopir.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : memref<2x17x96xf32>
// CHECK: loopir.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] map #[[MOD]] : memref<2x17x8xf32>
func.func @split_flattened_index(%a: tensor<2x17x96xf32>) -> tensor<2x17x8xf32> {
  %0 = loopir.kernel ins(%a : tensor<2x17x96xf32>) -> tensor<2x17x8xf32> {
  ^bb0(%x: memref<2x17x96xf32>, %out: memref<2x17x8xf32>):
    loopir.parallel (%i, %j, %k) in [2, 17, 96] {
      %v = loopir.load %x[%i, %j, %k] map affine_map<(d0, d1, d2) -> ((d0 * 1632 + d1 * 96 + d2) floordiv 1632, d1, d2)> : memref<2x17x96xf32>
      loopir.store %v, %out[%i, %j, %k] map affine_map<(d0, d1, d2) -> (d0, d1, (d1 * 16 + d2) mod 8)> : memref<2x17x8xf32>
    }
  }
  return %0 : tensor<2x17x8xf32>
}

// -----

// A [b * h, t, t] view read as [b, h, t, t] (attention scores against a
// per-(b, h, row) statistic): (d0 * 169 + d1 * 13 + d2) floordiv 676 with
// d1, d2 < 13 is d0 floordiv 4, since the terms below 169 never reach the
// next multiple of 169; its mod is 169 * (d0 mod 4) + the rest. The load no
// longer depends on the reduction index, so it leaves the reduction.
// CHECK-DAG: #[[STAT:.*]] = affine_map<(d0, d1) -> (d0 floordiv 4, d0 mod 4, d1, 0)>
// CHECK-DAG: #[[HEAD:.*]] = affine_map<(d0, d1, d2) -> (d0 mod 4, d1, d2)>
// CHECK-LABEL: func.func @common_factor_division
// CHECK: loopir.parallel (%[[B:.*]], %[[I:.*]]) in [8, 13] {
// CHECK-NEXT: %[[M:.*]] = loopir.load %{{.*}}[%[[B]], %[[I]]] map #[[STAT]] : memref<2x4x13x1xf32>
// CHECK-NEXT: loopir.reduce add (%{{.*}}) in [13] : f32 {
// CHECK: loopir.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] map #[[HEAD]] : memref<4x13x13xf32>
#stat = affine_map<(d0, d1, d2) -> ((d0 * 169 + d1 * 13 + d2) floordiv 676, d0 mod 4, d1, 0)>
#head = affine_map<(d0, d1, d2) -> (((d0 * 169 + d1 * 13 + d2) mod 676) floordiv 169, d1, d2)>
func.func @common_factor_division(%s: tensor<8x13x13xf32>, %m: tensor<2x4x13x1xf32>, %h: tensor<4x13x13xf32>) -> (tensor<8x13xf32>, tensor<8x13x13xf32>) {
  %0:2 = loopir.kernel ins(%s, %m, %h : tensor<8x13x13xf32>, tensor<2x4x13x1xf32>, tensor<4x13x13xf32>) -> tensor<8x13xf32>, tensor<8x13x13xf32> {
  ^bb0(%sb: memref<8x13x13xf32>, %mb: memref<2x4x13x1xf32>, %hb: memref<4x13x13xf32>, %out: memref<8x13xf32>, %out2: memref<8x13x13xf32>):
    loopir.parallel (%b, %i) in [8, 13] {
      %r = loopir.reduce add (%k) in [13] : f32 {
        %x = loopir.load %sb[%b, %i, %k] : memref<8x13x13xf32>
        %mv = loopir.load %mb[%b, %i, %k] map #stat : memref<2x4x13x1xf32>
        %d = arith.subf %x, %mv : f32
        loopir.yield %d : f32
      }
      loopir.store %r, %out[%b, %i] : memref<8x13xf32>
    }
    loopir.parallel (%b, %i, %k) in [8, 13, 13] {
      %x = loopir.load %hb[%b, %i, %k] map #head : memref<4x13x13xf32>
      loopir.store %x, %out2[%b, %i, %k] : memref<8x13x13xf32>
    }
  }
  return %0#0, %0#1 : tensor<8x13xf32>, tensor<8x13x13xf32>
}

// -----

// Fusion clones one producer (a per-row scale) into sibling reductions;
// each hoists its copy of the invariant, and equal values merge as they
// appear, so the reductions stay equal and merge, and the siblings share
// one pass: what the contraction schedule takes as one program.
// CHECK-LABEL: func.func @siblings_hoist_one_invariant
// CHECK: loopir.parallel (%[[I:.*]], %[[J:.*]]) in [6, 9] {
// CHECK-NEXT: %[[S:.*]] = loopir.load %{{.*}}[%[[I]]] : memref<6xf32>
// CHECK-NEXT: %[[R:.*]] = math.rsqrt %[[S]] : f32
// CHECK-NEXT: %[[A:.*]]:2 = loopir.reduce add, add (%{{.*}}) in [16] : f32, f32 {
// CHECK-NOT: math.rsqrt
// CHECK: loopir.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[G:.*]] = arith.mulf %[[A]]#0, %[[A]]#0 : f32
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[G]], %[[A]]#1 : f32
func.func @siblings_hoist_one_invariant(%x: tensor<6x16xf32>, %s: tensor<6xf32>, %g: tensor<9x16xf32>, %u: tensor<9x16xf32>) -> tensor<6x9xf32> {
  %r = loopir.kernel ins(%x, %s, %g, %u : tensor<6x16xf32>, tensor<6xf32>, tensor<9x16xf32>, tensor<9x16xf32>) -> tensor<6x9xf32> {
  ^bb0(%xb: memref<6x16xf32>, %sb: memref<6xf32>, %gb: memref<9x16xf32>, %ub: memref<9x16xf32>, %out: memref<6x9xf32>):
    loopir.parallel (%i, %j) in [6, 9] {
      %g0 = loopir.reduce add (%k) in [16] : f32 {
        %xv = loopir.load %xb[%i, %k] : memref<6x16xf32>
        %sv = loopir.load %sb[%i] : memref<6xf32>
        %rs = math.rsqrt %sv : f32
        %h = arith.mulf %xv, %rs : f32
        %w = loopir.load %gb[%j, %k] : memref<9x16xf32>
        %p = arith.mulf %h, %w : f32
        loopir.yield %p : f32
      }
      %g1 = loopir.reduce add (%k) in [16] : f32 {
        %xv = loopir.load %xb[%i, %k] : memref<6x16xf32>
        %sv = loopir.load %sb[%i] : memref<6xf32>
        %rs = math.rsqrt %sv : f32
        %h = arith.mulf %xv, %rs : f32
        %w = loopir.load %gb[%j, %k] : memref<9x16xf32>
        %p = arith.mulf %h, %w : f32
        loopir.yield %p : f32
      }
      %sq = arith.mulf %g0, %g1 : f32
      %u0 = loopir.reduce add (%k) in [16] : f32 {
        %xv = loopir.load %xb[%i, %k] : memref<6x16xf32>
        %sv = loopir.load %sb[%i] : memref<6xf32>
        %rs = math.rsqrt %sv : f32
        %h = arith.mulf %xv, %rs : f32
        %w = loopir.load %ub[%j, %k] : memref<9x16xf32>
        %p = arith.mulf %h, %w : f32
        loopir.yield %p : f32
      }
      %y = arith.mulf %sq, %u0 : f32
      loopir.store %y, %out[%i, %j] : memref<6x9xf32>
    }
  }
  return %r : tensor<6x9xf32>
}

// -----

// pow by the exponents PyTorch computes without pow becomes its arithmetic
// (equal values merge, so x*x is computed once); other exponents,
// and exponents that are not constants, stay pow. Any float type.
// CHECK-LABEL: func.func @pow_by_constant
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f16
// CHECK-DAG: %[[E4:.*]] = arith.constant 4.000000e+00 : f16
// CHECK: %[[X:.*]] = loopir.load %{{.*}}[%{{.*}}] : memref<4xf16>
// CHECK-NEXT: %[[Y:.*]] = loopir.load %{{.*}}[%{{.*}}] : memref<4xf16>
// CHECK-NEXT: loopir.store %[[ONE]], %{{.*}} map
// CHECK-NEXT: loopir.store %[[X]], %{{.*}} map
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[X]], %[[X]] : f16
// CHECK-NEXT: loopir.store %[[SQ]], %{{.*}} map
// CHECK-NEXT: %[[CUBE2:.*]] = arith.mulf %[[SQ]], %[[X]] : f16
// CHECK-NEXT: loopir.store %[[CUBE2]], %{{.*}} map
// CHECK-NEXT: %[[SQRT:.*]] = math.sqrt %[[X]] : f16
// CHECK-NEXT: loopir.store %[[SQRT]], %{{.*}} map
// CHECK-NEXT: %[[RSQRT:.*]] = math.rsqrt %[[X]] : f16
// CHECK-NEXT: loopir.store %[[RSQRT]], %{{.*}} map
// CHECK-NEXT: %[[RCP:.*]] = arith.divf %[[ONE]], %[[X]] : f16
// CHECK-NEXT: loopir.store %[[RCP]], %{{.*}} map
// CHECK-NEXT: %[[RSQ:.*]] = arith.divf %[[ONE]], %[[SQ]] : f16
// CHECK-NEXT: loopir.store %[[RSQ]], %{{.*}} map
// CHECK-NEXT: %[[P4:.*]] = math.powf %[[X]], %[[E4]] : f16
// CHECK-NEXT: loopir.store %[[P4]], %{{.*}} map
// CHECK-NEXT: %[[PY:.*]] = math.powf %[[X]], %[[Y]] : f16
// CHECK-NEXT: loopir.store %[[PY]], %{{.*}} map
func.func @pow_by_constant(%a: tensor<4xf16>, %b: tensor<4xf16>) -> tensor<11x4xf16> {
  %0 = loopir.kernel ins(%a, %b : tensor<4xf16>, tensor<4xf16>) -> tensor<11x4xf16> {
  ^bb0(%in: memref<4xf16>, %exp: memref<4xf16>, %out: memref<11x4xf16>):
    %c0 = arith.constant 0.0 : f16
    %c1 = arith.constant 1.0 : f16
    %c2 = arith.constant 2.0 : f16
    %c3 = arith.constant 3.0 : f16
    %ch = arith.constant 0.5 : f16
    %cmh = arith.constant -0.5 : f16
    %cm1 = arith.constant -1.0 : f16
    %cm2 = arith.constant -2.0 : f16
    %c4 = arith.constant 4.0 : f16
    loopir.parallel (%i) in [4] {
      %x = loopir.load %in[%i] : memref<4xf16>
      %y = loopir.load %exp[%i] : memref<4xf16>
      %p0 = math.powf %x, %c0 : f16
      loopir.store %p0, %out[%i] map affine_map<(d0) -> (0, d0)> : memref<11x4xf16>
      %p1 = math.powf %x, %c1 : f16
      loopir.store %p1, %out[%i] map affine_map<(d0) -> (1, d0)> : memref<11x4xf16>
      %p2 = math.powf %x, %c2 : f16
      loopir.store %p2, %out[%i] map affine_map<(d0) -> (2, d0)> : memref<11x4xf16>
      %p3 = math.powf %x, %c3 : f16
      loopir.store %p3, %out[%i] map affine_map<(d0) -> (3, d0)> : memref<11x4xf16>
      %ph = math.powf %x, %ch : f16
      loopir.store %ph, %out[%i] map affine_map<(d0) -> (4, d0)> : memref<11x4xf16>
      %pmh = math.powf %x, %cmh : f16
      loopir.store %pmh, %out[%i] map affine_map<(d0) -> (5, d0)> : memref<11x4xf16>
      %pm1 = math.powf %x, %cm1 : f16
      loopir.store %pm1, %out[%i] map affine_map<(d0) -> (6, d0)> : memref<11x4xf16>
      %pm2 = math.powf %x, %cm2 : f16
      loopir.store %pm2, %out[%i] map affine_map<(d0) -> (7, d0)> : memref<11x4xf16>
      %p4 = math.powf %x, %c4 : f16
      loopir.store %p4, %out[%i] map affine_map<(d0) -> (8, d0)> : memref<11x4xf16>
      %py = math.powf %x, %y : f16
      loopir.store %py, %out[%i] map affine_map<(d0) -> (9, d0)> : memref<11x4xf16>
    }
  }
  return %0 : tensor<11x4xf16>
}

// -----

// A guard's constraints that the loops never violate go; a guard that
// fails everywhere leaves the padding.
// CHECK-LABEL: func.func @guards
// CHECK: %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: loopir.load %{{.*}} if #{{.*}} else 0.000000e+00 : f32 : memref<8xf32>
// CHECK: loopir.load %{{.*}}[%{{.*}}] map #{{.*}} : memref<8xf32>
// CHECK-NOT: loopir.load
// CHECK: loopir.store %[[TWO]]
#set_both = affine_set<(d0) : (d0 - 1 >= 0, -d0 + 8 >= 0)>
func.func @guards(%a: tensor<8xf32>) -> (tensor<10xf32>, tensor<7xf32>, tensor<4xf32>) {
  %r0, %r1, %r2 = loopir.kernel ins(%a : tensor<8xf32>) -> tensor<10xf32>, tensor<7xf32>, tensor<4xf32> {
  ^bb0(%in: memref<8xf32>, %o0: memref<10xf32>, %o1: memref<7xf32>, %o2: memref<4xf32>):
    // Both sides of the padding are reached.
    loopir.parallel (%i) in [10] {
      %x = loopir.load %in[%i] map affine_map<(d0) -> (d0 - 1)> if #set_both else 0.0 : f32 : memref<8xf32>
      loopir.store %x, %o0[%i] : memref<10xf32>
    }
    // Only the inside of the padded view.
    loopir.parallel (%i) in [7] {
      %y = loopir.load %in[%i] map affine_map<(d0) -> (d0)> if affine_set<(d0) : (d0 + 1 - 1 >= 0, -(d0 + 1) + 8 >= 0)> else 0.0 : f32 : memref<8xf32>
      loopir.store %y, %o1[%i] : memref<7xf32>
    }
    // Only the padding.
    loopir.parallel (%i) in [4] {
      %z = loopir.load %in[%i] map affine_map<(d0) -> (d0 + 20)> if affine_set<(d0) : (-(d0 + 20) + 8 >= 0)> else 2.0 : f32 : memref<8xf32>
      loopir.store %z, %o2[%i] : memref<4xf32>
    }
  }
  return %r0, %r1, %r2 : tensor<10xf32>, tensor<7xf32>, tensor<4xf32>
}

// -----

// A reduction over a box of several indices runs over one index, the box
// delinearized in its maps: a group norm's statistics over (channels of
// the group, pixels) are one row of 8192.
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2) -> (d0, d1 * 2 + d2 floordiv 4096, (d2 mod 4096) floordiv 64, d2 mod 64)>
// CHECK-LABEL: func.func @group_statistics
// CHECK: loopir.parallel (%[[N:.*]], %[[G:.*]]) in [2, 4] {
// CHECK-NEXT: loopir.reduce add (%[[K:.*]]) in [8192] : f32 {
// CHECK-NEXT: loopir.load %{{.*}}[%[[N]], %[[G]], %[[K]]] map #[[ROW]] : memref<2x8x64x64xf32>
func.func @group_statistics(%a: tensor<2x8x64x64xf32>) -> tensor<2x4xf32> {
  %r = loopir.kernel ins(%a : tensor<2x8x64x64xf32>) -> tensor<2x4xf32> {
  ^bb0(%in: memref<2x8x64x64xf32>, %out: memref<2x4xf32>):
    loopir.parallel (%n, %g) in [2, 4] {
      %s = loopir.reduce add (%c, %p) in [2, 4096] : f32 {
        %x = loopir.load %in[%n, %g, %c, %p] map affine_map<(d0, d1, d2, d3) -> (d0, d1 * 2 + d2, d3 floordiv 64, d3 mod 64)> : memref<2x8x64x64xf32>
        loopir.yield %x : f32
      }
      loopir.store %s, %out[%n, %g] : memref<2x4xf32>
    }
  }
  return %r : tensor<2x4xf32>
}

// -----

// SDPA's boolean mask, shared by the heads: the row test `any` over the
// keys depends on (b, i) only. It lists the head and column indices its map
// ignores (as fusion leaves them), which must not merge it into the
// column's sum of p . v (that sum would fold it once per column); and
// splitting the heads off into an inner loop to compute it once per (b, i)
// does not pay beside the heads' max over keys of q . k (keys x head dim),
// so the rows stay (b, h, i) with the test computed in each, and only the
// columns move inside.
// CHECK-LABEL: func.func @row_test_beside_attention
// CHECK: loopir.parallel (%[[B:.*]], %[[H:.*]], %[[I:.*]]) in [2, 3, 5] {
// CHECK-DAG: loopir.reduce add (%{{.*}}) in [9] : i64 {
// CHECK-DAG: loopir.reduce max (%{{.*}}) in [9] : f32 {
// CHECK: loopir.parallel (%[[E:.*]]) in [8] {
// CHECK-NEXT: loopir.reduce add (%{{.*}}) in [9] : f32 {
// CHECK-NOT: loopir.reduce add, add
func.func @row_test_beside_attention(%mask: tensor<2x5x9xi1>, %q: tensor<2x3x5x8xf32>, %k: tensor<2x3x9x8xf32>, %v: tensor<2x3x9x8xf32>) -> tensor<2x3x5x8xf32> {
  %r = loopir.kernel ins(%mask, %q, %k, %v : tensor<2x5x9xi1>, tensor<2x3x5x8xf32>, tensor<2x3x9x8xf32>, tensor<2x3x9x8xf32>) -> tensor<2x3x5x8xf32> {
  ^bb0(%m: memref<2x5x9xi1>, %qb: memref<2x3x5x8xf32>, %kb: memref<2x3x9x8xf32>, %vb: memref<2x3x9x8xf32>, %out: memref<2x3x5x8xf32>):
    %zero = arith.constant 0 : i64
    %fzero = arith.constant 0.0 : f32
    loopir.parallel (%b, %h, %i, %e) in [2, 3, 5, 8] {
      %any = loopir.reduce add (%j) in [9] : i64 {
        %keep = loopir.load %m[%b, %h, %i, %e, %j] map affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d4)> : memref<2x5x9xi1>
        %w = arith.extui %keep : i1 to i64
        loopir.yield %w : i64
      }
      %max = loopir.reduce max (%j) in [9] : f32 {
        %s = loopir.reduce add (%d) in [8] : f32 {
          %x = loopir.load %qb[%b, %h, %i, %d] : memref<2x3x5x8xf32>
          %y = loopir.load %kb[%b, %h, %j, %d] : memref<2x3x9x8xf32>
          %p = arith.mulf %x, %y : f32
          loopir.yield %p : f32
        }
        loopir.yield %s : f32
      }
      %pv = loopir.reduce add (%j) in [9] : f32 {
        %s = loopir.reduce add (%d) in [8] : f32 {
          %x = loopir.load %qb[%b, %h, %i, %d] : memref<2x3x5x8xf32>
          %y = loopir.load %kb[%b, %h, %j, %d] : memref<2x3x9x8xf32>
          %p = arith.mulf %x, %y : f32
          loopir.yield %p : f32
        }
        %t = arith.subf %s, %max : f32
        %w = math.exp %t : f32
        %x = loopir.load %vb[%b, %h, %j, %e] : memref<2x3x9x8xf32>
        %y = arith.mulf %w, %x : f32
        loopir.yield %y : f32
      }
      %none = arith.cmpi eq, %any, %zero : i64
      %o = arith.select %none, %fzero, %pv : f32
      loopir.store %o, %out[%b, %h, %i, %e] : memref<2x3x5x8xf32>
    }
  }
  return %r : tensor<2x3x5x8xf32>
}

// -----

// An extremum in halves folds in f32 and truncates once: the same value
// (widening is exact), and one the row schedule's shuffles move. A sum in
// halves keeps its type: widening it would change its rounding.
// CHECK-LABEL: func.func @half_row_max
// CHECK: %[[R:.*]]:2 = loopir.reduce max, add (%{{.*}}) in [70] : f32, bf16 {
// CHECK-NEXT: %[[X:.*]] = loopir.load
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT: loopir.yield %[[W]], %[[X]] : f32, bf16
// CHECK: %[[T:.*]] = arith.truncf %[[R]]#0 : f32 to bf16
// CHECK-NEXT: arith.addf %[[T]], %[[R]]#1 : bf16
func.func @half_row_max(%x: tensor<33x70xbf16>) -> tensor<33xbf16> {
  %r = loopir.kernel ins(%x : tensor<33x70xbf16>) -> tensor<33xbf16> {
  ^bb0(%in: memref<33x70xbf16>, %out: memref<33xbf16>):
    loopir.parallel (%i) in [33] {
      %m = loopir.reduce max (%k) in [70] : bf16 {
        %v = loopir.load %in[%i, %k] : memref<33x70xbf16>
        loopir.yield %v : bf16
      }
      %s = loopir.reduce add (%k) in [70] : bf16 {
        %v = loopir.load %in[%i, %k] : memref<33x70xbf16>
        loopir.yield %v : bf16
      }
      %y = arith.addf %m, %s : bf16
      loopir.store %y, %out[%i] : memref<33xbf16>
    }
  }
  return %r : tensor<33xbf16>
}
