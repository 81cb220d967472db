// tileir-tile: the one decision is each kernel's tile; its tiles are
// retyped and its tile offsets follow.
// RUN: strata-opt %s -split-input-file --tileir-tile | FileCheck %s
// RUN: strata-opt %s -split-input-file '--tileir-tile=tile-elements=64' | FileCheck %s --check-prefix=SMALL
// RUN: strata-opt %s -split-input-file --tileir-tile --tileir-tile | FileCheck %s
// RUN: strata-opt %s -split-input-file '--tileir-tile=tf32=true' | FileCheck %s --check-prefix=TF32
// RUN: strata-opt %s -split-input-file '--tileir-tile=tensor-cores=false' | FileCheck %s --check-prefix=NOTC

// Elementwise: innermost dimension first, powers of two, 512 elements.
// CHECK-LABEL: func.func @elementwise
// CHECK: domain [1000, 37] tile [8, 64] threads 1 {
// CHECK: %[[O0:.*]] = tileir.tile_offset 0
// CHECK: %[[O1:.*]] = tileir.tile_offset 1
// CHECK: %[[X:.*]] = tileir.load %{{.*}}[%[[O0]], %[[O1]]] : memref<1000x37xf32> -> <8x64xf32>
// CHECK: %[[Y:.*]] = tileir.map ins(%[[X]] : !tileir.tile<8x64xf32>) -> !tileir.tile<8x64xf32> {
// CHECK: tileir.store %[[Y]], %{{.*}}[%[[O0]], %[[O1]]] : <8x64xf32>, memref<1000x37xf32>
// SMALL-LABEL: func.func @elementwise
// SMALL: domain [1000, 37] tile [1, 64] threads 1 {
func.func @elementwise(%a: tensor<1000x37xf32>) -> tensor<1000x37xf32> {
  %r = tileir.kernel ins(%a : tensor<1000x37xf32>) -> tensor<1000x37xf32> domain [1000, 37] tile [1, 1] threads 1 {
  ^bb0(%in: memref<1000x37xf32>, %out: memref<1000x37xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %x = tileir.load %in[%o0, %o1] : memref<1000x37xf32> -> !tileir.tile<1x1xf32>
    %y = tileir.map ins(%x : !tileir.tile<1x1xf32>) -> !tileir.tile<1x1xf32> {
    ^bb0(%e: f32):
      %t = math.tanh %e : f32
      tileir.yield %t : f32
    }
    tileir.store %y, %out[%o0, %o1] : !tileir.tile<1x1xf32>, memref<1000x37xf32>
  }
  return %r : tensor<1000x37xf32>
}

// -----

// Contraction: up to 64 x 64 rows and columns, batch dimensions 1; on
// FMAs the longer side halves toward 32 while the grid is small (3
// programs of 64 x 16 here, 6 of 32 x 16).
// CHECK-LABEL: func.func @bmm
// CHECK: domain [3, 40, 9] tile [1, 32, 16] threads 1 {
// CHECK: tileir.contract {{.*}} k 20 step 1 : <1x32x16xf32>
// CHECK: tileir.store %{{.*}} : <1x32x16xf32>, memref<3x40x9xf32>
func.func @bmm(%a: tensor<3x40x20xf32>, %b: tensor<3x20x9xf32>) -> tensor<3x40x9xf32> {
  %r = tileir.kernel ins(%a, %b : tensor<3x40x20xf32>, tensor<3x20x9xf32>) -> tensor<3x40x9xf32> domain [3, 40, 9] tile [1, 1, 1] threads 1 {
  ^bb0(%ab: memref<3x40x20xf32>, %bb: memref<3x20x9xf32>, %out: memref<3x40x9xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %o2 = tileir.tile_offset 2
    %c = tileir.contract [%o0, %o1, %o2] k 20 step 1 : !tileir.tile<1x1x1xf32> lhs {
    ^bb0(%n: index, %i: index, %k: index):
      %x = loopir.load %ab[%n, %i, %k] : memref<3x40x20xf32>
      tileir.yield %x : f32
    } rhs {
    ^bb0(%n: index, %j: index, %k: index):
      %w = loopir.load %bb[%n, %k, %j] : memref<3x20x9xf32>
      tileir.yield %w : f32
    }
    tileir.store %c, %out[%o0, %o1, %o2] : !tileir.tile<1x1x1xf32>, memref<3x40x9xf32>
  }
  return %r : tensor<3x40x9xf32>
}

// -----

// Generic: 128 points, whatever tile-elements says (a point may run loops).
// CHECK-LABEL: func.func @columns
// CHECK: domain [70] tile [128] threads 1 {
// SMALL-LABEL: func.func @columns
// SMALL: domain [70] tile [128] threads 1 {
func.func @columns(%a: tensor<33x70xf32>) -> tensor<70xf32> {
  %r = tileir.kernel ins(%a : tensor<33x70xf32>) -> tensor<70xf32> domain [70] tile [1] threads 1 {
  ^bb0(%in: memref<33x70xf32>, %out: memref<70xf32>):
    %o = tileir.tile_offset 0
    tileir.for_each_point [%o] (%j) {
      %s = loopir.reduce add (%i) in [33] : f32 {
        %x = loopir.load %in[%i, %j] : memref<33x70xf32>
        loopir.yield %x : f32
      }
      loopir.store %s, %out[%j] : memref<70xf32>
    }
  }
  return %r : tensor<70xf32>
}

// -----

// Row: short rows (at most 128 elements, a warp each) share a program
// instance, up to 8 of them, a power of two dividing the rows: 1000 rows of
// 37 take 8 per instance, 33 rows take one each; long rows one each.
// CHECK-LABEL: func.func @row_sums
// CHECK: domain [33] tile [1] threads 32 {
// CHECK: domain [1000] tile [8] threads 32 {
// CHECK: domain [1000] tile [1] threads 32 {
func.func @row_sums(%a: tensor<33x70xf32>, %b: tensor<1000x37xf32>, %c: tensor<1000x129xf32>) -> (tensor<33xf32>, tensor<1000xf32>, tensor<1000xf32>) {
  %r = tileir.kernel ins(%a : tensor<33x70xf32>) -> tensor<33xf32> domain [33] tile [1] threads 32 {
  ^bb0(%in: memref<33x70xf32>, %out: memref<33xf32>):
    %row = tileir.point 0
    %s = tileir.fold add(0.0 : f32) (%k) in [70] {
      %x = loopir.load %in[%row, %k] : memref<33x70xf32>
      tileir.yield %x : f32
    }
    loopir.store %s, %out[%row] : memref<33xf32>
  }
  %q = tileir.kernel ins(%b : tensor<1000x37xf32>) -> tensor<1000xf32> domain [1000] tile [1] threads 32 {
  ^bb0(%in: memref<1000x37xf32>, %out: memref<1000xf32>):
    %row = tileir.point 0
    %s = tileir.fold add(0.0 : f32) (%k) in [37] {
      %x = loopir.load %in[%row, %k] : memref<1000x37xf32>
      tileir.yield %x : f32
    }
    loopir.store %s, %out[%row] : memref<1000xf32>
  }
  %l = tileir.kernel ins(%c : tensor<1000x129xf32>) -> tensor<1000xf32> domain [1000] tile [1] threads 32 {
  ^bb0(%in: memref<1000x129xf32>, %out: memref<1000xf32>):
    %row = tileir.point 0
    %s = tileir.fold add(0.0 : f32) (%k) in [129] {
      %x = loopir.load %in[%row, %k] : memref<1000x129xf32>
      tileir.yield %x : f32
    }
    loopir.store %s, %out[%row] : memref<1000xf32>
  }
  return %r, %q, %l : tensor<33xf32>, tensor<1000xf32>, tensor<1000xf32>
}

// -----

// A contraction that will multiply on tensor cores (f16 operands widened to
// f32) takes 128 x 128 tiles while they still make 128 program instances
// (12 x 12 here); without tensor cores, 64 x 64.
// CHECK-LABEL: func.func @half_matmul
// CHECK: domain [1536, 1536] tile [128, 128] threads 1 {
// CHECK: tileir.contract {{.*}} : <128x128xf32>
// NOTC-LABEL: func.func @half_matmul
// NOTC: domain [1536, 1536] tile [64, 64] threads 1 {
func.func @half_matmul(%a: tensor<1536x32xf16>, %b: tensor<32x1536xf16>) -> tensor<1536x1536xf32> {
  %r = tileir.kernel ins(%a, %b : tensor<1536x32xf16>, tensor<32x1536xf16>) -> tensor<1536x1536xf32> domain [1536, 1536] tile [1, 1] threads 1 {
  ^bb0(%ab: memref<1536x32xf16>, %bb: memref<32x1536xf16>, %out: memref<1536x1536xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %c = tileir.contract [%o0, %o1] k 32 step 1 : !tileir.tile<1x1xf32> lhs {
    ^bb0(%i: index, %k: index):
      %x = loopir.load %ab[%i, %k] : memref<1536x32xf16>
      %w = arith.extf %x : f16 to f32
      tileir.yield %w : f32
    } rhs {
    ^bb0(%j: index, %k: index):
      %y = loopir.load %bb[%k, %j] : memref<32x1536xf16>
      %w = arith.extf %y : f16 to f32
      tileir.yield %w : f32
    }
    tileir.store %c, %out[%o0, %o1] : !tileir.tile<1x1xf32>, memref<1536x1536xf32>
  }
  return %r : tensor<1536x1536xf32>
}

// -----

// The same with too few 128 x 128 tiles (8 x 8 < 128): 64 x 64.
// CHECK-LABEL: func.func @small_half_matmul
// CHECK: domain [1000, 1000] tile [64, 64] threads 1 {
func.func @small_half_matmul(%a: tensor<1000x32xf16>, %b: tensor<32x1000xf16>) -> tensor<1000x1000xf32> {
  %r = tileir.kernel ins(%a, %b : tensor<1000x32xf16>, tensor<32x1000xf16>) -> tensor<1000x1000xf32> domain [1000, 1000] tile [1, 1] threads 1 {
  ^bb0(%ab: memref<1000x32xf16>, %bb: memref<32x1000xf16>, %out: memref<1000x1000xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %c = tileir.contract [%o0, %o1] k 32 step 1 : !tileir.tile<1x1xf32> lhs {
    ^bb0(%i: index, %k: index):
      %x = loopir.load %ab[%i, %k] : memref<1000x32xf16>
      %w = arith.extf %x : f16 to f32
      tileir.yield %w : f32
    } rhs {
    ^bb0(%j: index, %k: index):
      %y = loopir.load %bb[%k, %j] : memref<32x1000xf16>
      %w = arith.extf %y : f16 to f32
      tileir.yield %w : f32
    }
    tileir.store %c, %out[%o0, %o1] : !tileir.tile<1x1xf32>, memref<1000x1000xf32>
  }
  return %r : tensor<1000x1000xf32>
}

// -----

// f32 operands multiply on FMAs (64 x 64 tiles) unless tf32 is asked for.
// CHECK-LABEL: func.func @float_matmul
// CHECK: domain [1536, 1536] tile [64, 64] threads 1 {
// TF32-LABEL: func.func @float_matmul
// TF32: domain [1536, 1536] tile [128, 128] threads 1 {
func.func @float_matmul(%a: tensor<1536x32xf32>, %b: tensor<32x1536xf32>) -> tensor<1536x1536xf32> {
  %r = tileir.kernel ins(%a, %b : tensor<1536x32xf32>, tensor<32x1536xf32>) -> tensor<1536x1536xf32> domain [1536, 1536] tile [1, 1] threads 1 {
  ^bb0(%ab: memref<1536x32xf32>, %bb: memref<32x1536xf32>, %out: memref<1536x1536xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %c = tileir.contract [%o0, %o1] k 32 step 1 : !tileir.tile<1x1xf32> lhs {
    ^bb0(%i: index, %k: index):
      %x = loopir.load %ab[%i, %k] : memref<1536x32xf32>
      tileir.yield %x : f32
    } rhs {
    ^bb0(%j: index, %k: index):
      %y = loopir.load %bb[%k, %j] : memref<32x1536xf32>
      tileir.yield %y : f32
    }
    tileir.store %c, %out[%o0, %o1] : !tileir.tile<1x1xf32>, memref<1536x1536xf32>
  }
  return %r : tensor<1536x1536xf32>
}
