// RUN: strata-opt %s --convert-loopir-to-tileir --strata-schedule-tile | FileCheck %s
// RUN: strata-opt %s --convert-loopir-to-tileir | FileCheck %s --check-prefix=TRIVIAL

// Before the scheduling passes every kernel has the trivial schedule: one
// point per program instance, one thread.
// TRIVIAL-LABEL: func.func @ragged_2d
// TRIVIAL: domain [1000, 37] tile [1, 1] threads 1 {
// TRIVIAL: tileir.load %{{.*}} : memref<1000x37xf32> -> <1x1xf32>
// TRIVIAL: tileir.map {{.*}} -> !tileir.tile<1x1xf32>

// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1) -> (d1, d0)>

// The default schedule covers the innermost dimension first with a power of
// two, up to 512 elements, and gives the tile 128 threads (4 elements each).
// CHECK-LABEL: func.func @ragged_2d
func.func @ragged_2d(%a: tensor<1000x37xf32>, %b: tensor<37xf32>) -> tensor<1000x37xf32> {
  // CHECK: tileir.kernel ins(%{{.*}}, %{{.*}} : tensor<1000x37xf32>, tensor<37xf32>) -> tensor<1000x37xf32> domain [1000, 37] tile [8, 64] threads 128 {
  // CHECK-NEXT: ^bb0(%[[IN:.*]]: memref<1000x37xf32>, %[[ROW:.*]]: memref<37xf32>, %[[OUT:.*]]: memref<1000x37xf32>):
  // CHECK: %[[O0:.*]] = tileir.tile_offset 0
  // CHECK: %[[O1:.*]] = tileir.tile_offset 1
  // CHECK: %[[X:.*]] = tileir.load %[[IN]][%[[O0]], %[[O1]]] : memref<1000x37xf32> -> <8x64xf32>
  // CHECK: %[[Y:.*]] = tileir.load %[[ROW]][%[[O0]], %[[O1]]] map #{{.*}} : memref<37xf32> -> <8x64xf32>
  // CHECK: %[[S:.*]] = tileir.map ins(%[[X]], %[[Y]] : !tileir.tile<8x64xf32>, !tileir.tile<8x64xf32>) -> !tileir.tile<8x64xf32> {
  // CHECK-NEXT: ^bb0(%[[E:.*]]: f32, %[[F:.*]]: f32):
  // CHECK-NEXT: %[[M:.*]] = arith.mulf %[[E]], %[[F]] : f32
  // CHECK-NEXT: tileir.yield %[[M]] : f32
  // CHECK: tileir.store %[[S]], %[[OUT]][%[[O0]], %[[O1]]] : <8x64xf32>, memref<1000x37xf32>
  %r = loopir.kernel ins(%a, %b : tensor<1000x37xf32>, tensor<37xf32>) -> tensor<1000x37xf32> {
  ^bb0(%in: memref<1000x37xf32>, %row: memref<37xf32>, %out: memref<1000x37xf32>):
    loopir.parallel (%i, %j) in [1000, 37] {
      %x = loopir.load %in[%i, %j] : memref<1000x37xf32>
      %y = loopir.load %row[%i, %j] map affine_map<(d0, d1) -> (d1)> : memref<37xf32>
      %m = arith.mulf %x, %y : f32
      loopir.store %m, %out[%i, %j] : memref<1000x37xf32>
    }
  }
  return %r : tensor<1000x37xf32>
}

// CHECK-LABEL: func.func @one_d
func.func @one_d(%a: tensor<513xf32>) -> tensor<513xf32> {
  // CHECK: domain [513] tile [512] threads 128
  %r = loopir.kernel ins(%a : tensor<513xf32>) -> tensor<513xf32> {
  ^bb0(%in: memref<513xf32>, %out: memref<513xf32>):
    loopir.parallel (%i) in [513] {
      %x = loopir.load %in[%i] : memref<513xf32>
      %y = math.exp %x : f32
      loopir.store %y, %out[%i] : memref<513xf32>
    }
  }
  return %r : tensor<513xf32>
}

// A small kernel gets a small tile, each thread 128 bits of it (4 f32).
// CHECK-LABEL: func.func @tiny
func.func @tiny(%a: tensor<5xf32>) -> tensor<5xf32> {
  // CHECK: domain [5] tile [8] threads 2
  %r = loopir.kernel ins(%a : tensor<5xf32>) -> tensor<5xf32> {
  ^bb0(%in: memref<5xf32>, %out: memref<5xf32>):
    loopir.parallel (%i) in [5] {
      %x = loopir.load %in[%i] : memref<5xf32>
      loopir.store %x, %out[%i] : memref<5xf32>
    }
  }
  return %r : tensor<5xf32>
}

// A 0-d kernel runs on a one-element domain; its maps ignore that dimension.
// CHECK-LABEL: func.func @scalar
func.func @scalar(%a: tensor<f32>) -> tensor<f32> {
  // CHECK: domain [1] tile [1] threads 1
  // CHECK: tileir.load %{{.*}}[%{{.*}}] map #{{.*}} : memref<f32> -> <1xf32>
  %r = loopir.kernel ins(%a : tensor<f32>) -> tensor<f32> {
  ^bb0(%in: memref<f32>, %out: memref<f32>):
    loopir.parallel () in [] {
      %x = loopir.load %in[] : memref<f32>
      %y = arith.negf %x : f32
      loopir.store %y, %out[] : memref<f32>
    }
  }
  return %r : tensor<f32>
}

// Loads may name the loop indices in any order: the tile load's map says
// which domain coordinate feeds which buffer dimension.
// CHECK-LABEL: func.func @transposed
func.func @transposed(%a: tensor<37x1000xf32>) -> tensor<1000x37xf32> {
  // CHECK: tileir.load %{{.*}}[%{{.*}}, %{{.*}}] map #[[T]] : memref<37x1000xf32> -> <8x64xf32>
  %r = loopir.kernel ins(%a : tensor<37x1000xf32>) -> tensor<1000x37xf32> {
  ^bb0(%in: memref<37x1000xf32>, %out: memref<1000x37xf32>):
    loopir.parallel (%i, %j) in [1000, 37] {
      %x = loopir.load %in[%j, %i] : memref<37x1000xf32>
      loopir.store %x, %out[%i, %j] : memref<1000x37xf32>
    }
  }
  return %r : tensor<1000x37xf32>
}

// Scalars hoisted out of the loop nest stay shared by the whole tile.
// CHECK-LABEL: func.func @hoisted_constant
func.func @hoisted_constant(%a: tensor<100xf32>) -> tensor<100xf32> {
  // CHECK: tileir.kernel
  // CHECK: %[[C:.*]] = arith.constant 1.000000e+00 : f32
  // CHECK: tileir.map
  // CHECK: arith.addf %{{.*}}, %[[C]] : f32
  %r = loopir.kernel ins(%a : tensor<100xf32>) -> tensor<100xf32> {
  ^bb0(%in: memref<100xf32>, %out: memref<100xf32>):
    %c = arith.constant 1.0 : f32
    loopir.parallel (%i) in [100] {
      %x = loopir.load %in[%i] : memref<100xf32>
      %y = arith.addf %x, %c : f32
      loopir.store %y, %out[%i] : memref<100xf32>
    }
  }
  return %r : tensor<100xf32>
}

// f16 elements: 8 per thread (128 bits), so 64 threads for a 512-element
// tile.
// CHECK-LABEL: func.func @half
func.func @half(%a: tensor<64x64xf16>) -> tensor<64x64xf16> {
  // CHECK: domain [64, 64] tile [8, 64] threads 64
  %r = loopir.kernel ins(%a : tensor<64x64xf16>) -> tensor<64x64xf16> {
  ^bb0(%in: memref<64x64xf16>, %out: memref<64x64xf16>):
    loopir.parallel (%i, %j) in [64, 64] {
      %x = loopir.load %in[%i, %j] : memref<64x64xf16>
      %y = arith.addf %x, %x : f16
      loopir.store %y, %out[%i, %j] : memref<64x64xf16>
    }
  }
  return %r : tensor<64x64xf16>
}
