// tileir-split-k: the one decision is into how many slices each
// contraction's k is split.
// RUN: strata-opt %s -split-input-file --tileir-split-k | FileCheck %s
// RUN: strata-opt %s -split-input-file '--tileir-split-k=splits=5' | FileCheck %s --check-prefix=FIVE
// RUN: strata-opt %s -split-input-file '--tileir-split-k=min-programs=1' | FileCheck %s --check-prefix=NONE
// RUN: strata-opt %s -split-input-file '--tileir-split-k=splits=7' | FileCheck %s --check-prefix=SEVEN
// RUN: not strata-opt %s -split-input-file '--tileir-split-k=splits=1001' 2>&1 | FileCheck %s --check-prefix=TOO-MANY

// One 32 x 32 tile, k = 1000 (a prologue b[k] on the lhs, bias and relu
// after): by default as many slices as give 128 program instances, at most
// 16 and 1000 / 256 = 3, dividing k: 2 slices of 500. The slice is a
// leading batch dimension; every load indexed by k (the prologue's b[k]
// too) takes it into its map: k = slice * 500 + k within the slice.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2) -> (d0, d1 + d2 * 500)>
// CHECK-DAG: #[[PRO:.*]] = affine_map<(d0, d1) -> (d0 + d1 * 500)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2) -> (d0 + d2 * 500, d1)>
// CHECK-DAG: #[[FIRST:.*]] = affine_map<(d0, d1) -> (0, d0, d1)>
// CHECK-DAG: #[[SECOND:.*]] = affine_map<(d0, d1) -> (1, d0, d1)>
// CHECK-LABEL: func.func @relu_prologue
// CHECK: %[[P:.*]] = tileir.kernel ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<17x1000xf32>, tensor<1000xf32>, tensor<1000x19xf32>) -> tensor<2x17x19xf32> domain [2, 17, 19] tile [1, 32, 32] threads 256 {
// CHECK-NEXT: ^bb0(%[[A:.*]]: memref<17x1000xf32>, %[[B:.*]]: memref<1000xf32>, %[[W:.*]]: memref<1000x19xf32>, %[[WS:.*]]: memref<2x17x19xf32>):
// CHECK-DAG: %[[O1:.*]] = tileir.tile_offset 1
// CHECK-DAG: %[[O2:.*]] = tileir.tile_offset 2
// CHECK-DAG: %[[S:.*]] = tileir.tile_offset 0
// CHECK: %[[C:.*]] = tileir.contract [%[[S]], %[[O1]], %[[O2]]] k 500 step 16 stages 2 : <1x32x32xf32> lhs {
// CHECK-NEXT: ^bb0(%[[SL:.*]]: index, %[[I:.*]]: index, %[[KL:.*]]: index):
// CHECK-NEXT: %[[X:.*]] = loopir.load %[[A]][%[[I]], %[[KL]], %[[SL]]] map #[[LHS]] : memref<17x1000xf32>
// CHECK-NEXT: %[[BK:.*]] = loopir.load %[[B]][%[[KL]], %[[SL]]] map #[[PRO]] : memref<1000xf32>
// CHECK-NEXT: arith.addf %[[X]], %[[BK]] : f32
// CHECK: } rhs {
// CHECK-NEXT: ^bb0(%[[SL2:.*]]: index, %[[J:.*]]: index, %[[KL2:.*]]: index):
// CHECK-NEXT: loopir.load %[[W]][%[[KL2]], %[[J]], %[[SL2]]] map #[[RHS]] : memref<1000x19xf32>
// CHECK: tileir.store %[[C]], %[[WS]][%[[S]], %[[O1]], %[[O2]]] : <1x32x32xf32>, memref<2x17x19xf32>
// The sum kernel: the original domain and epilogue, the default
// elementwise tile and threads left to tileir-map-threads; the bias is its
// only input besides the partials.
// CHECK: %[[R:.*]] = tileir.kernel ins(%{{.*}}, %[[P]] : tensor<19xf32>, tensor<2x17x19xf32>) -> tensor<17x19xf32> domain [17, 19] tile [16, 32] threads 1 {
// CHECK-NEXT: ^bb0(%[[BIAS:.*]]: memref<19xf32>, %[[PS:.*]]: memref<2x17x19xf32>, %[[OUT:.*]]: memref<17x19xf32>):
// CHECK: %[[P0:.*]] = tileir.load %[[PS]][%{{.*}}, %{{.*}}] map #[[FIRST]] : memref<2x17x19xf32> -> <16x32xf32>
// CHECK: %[[P1:.*]] = tileir.load %[[PS]][%{{.*}}, %{{.*}}] map #[[SECOND]] : memref<2x17x19xf32> -> <16x32xf32>
// CHECK: %[[SUM:.*]] = tileir.map ins(%[[P0]], %[[P1]] : !tileir.tile<16x32xf32>, !tileir.tile<16x32xf32>) -> !tileir.tile<16x32xf32> {
// CHECK-NEXT: ^bb0(%[[E0:.*]]: f32, %[[E1:.*]]: f32):
// CHECK-NEXT: %[[T:.*]] = arith.addf %[[E0]], %[[E1]] : f32
// CHECK-NEXT: tileir.yield %[[T]] : f32
// CHECK: tileir.map ins(%[[SUM]], %{{.*}} : !tileir.tile<16x32xf32>, !tileir.tile<16x32xf32>)
// CHECK: arith.maximumf
// CHECK: tileir.store %{{.*}}, %[[OUT]]
// CHECK: return %[[R]]
// FIVE-LABEL: func.func @relu_prologue
// FIVE: -> tensor<5x17x19xf32> domain [5, 17, 19] tile [1, 32, 32]
// FIVE: tileir.contract {{.*}} k 200 step 16 stages 2
// NONE-LABEL: func.func @relu_prologue
// NONE-NOT: domain [2
// 7 slices do not divide k = 1000: 7 slices of 142, and the 6 k left
// (994 on) a partial kernel of one slice; the sum adds all 8 partials.
// SEVEN-DAG: #[[LHS7:.*]] = affine_map<(d0, d1, d2) -> (d0, d1 + d2 * 142)>
// SEVEN-DAG: #[[REST:.*]] = affine_map<(d0, d1, d2) -> (d0, d1 + d2 * 6 + 994)>
// SEVEN-DAG: #[[RESTRHS:.*]] = affine_map<(d0, d1, d2) -> (d0 + d2 * 6 + 994, d1)>
// SEVEN-DAG: #[[LAST:.*]] = affine_map<(d0, d1) -> (6, d0, d1)>
// SEVEN-LABEL: func.func @relu_prologue
// SEVEN: %[[P7:.*]] = tileir.kernel {{.*}} -> tensor<7x17x19xf32> domain [7, 17, 19] tile [1, 32, 32]
// SEVEN: tileir.contract {{.*}} k 142 step 16 stages 2
// SEVEN: loopir.load {{.*}} map #[[LHS7]] : memref<17x1000xf32>
// SEVEN: %[[P1:.*]] = tileir.kernel {{.*}} -> tensor<1x17x19xf32> domain [1, 17, 19] tile [1, 32, 32]
// SEVEN: tileir.contract {{.*}} k 6 step 16 stages 2
// SEVEN: loopir.load {{.*}} map #[[REST]] : memref<17x1000xf32>
// SEVEN: loopir.load {{.*}} map #[[RESTRHS]] : memref<1000x19xf32>
// SEVEN: tileir.kernel ins(%{{.*}}, %[[P7]], %[[P1]] : tensor<19xf32>, tensor<7x17x19xf32>, tensor<1x17x19xf32>) -> tensor<17x19xf32>
// SEVEN: tileir.load {{.*}} map #[[LAST]] : memref<7x17x19xf32>
// SEVEN: tileir.load %{{.*}}[%{{.*}}, %{{.*}}] map #{{.*}} : memref<1x17x19xf32>
// SEVEN: tileir.map ins(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^ ,]*}} : !tileir.tile
// TOO-MANY: error: k = 1000 does not split into 1001 slices
func.func @relu_prologue(%a: tensor<17x1000xf32>, %bias: tensor<19xf32>, %b: tensor<1000xf32>, %w: tensor<1000x19xf32>) -> tensor<17x19xf32> {
  %r = tileir.kernel ins(%a, %bias, %b, %w : tensor<17x1000xf32>, tensor<19xf32>, tensor<1000xf32>, tensor<1000x19xf32>) -> tensor<17x19xf32> domain [17, 19] tile [32, 32] threads 256 {
  ^bb0(%ab: memref<17x1000xf32>, %biasb: memref<19xf32>, %bb: memref<1000xf32>, %wb: memref<1000x19xf32>, %out: memref<17x19xf32>):
    %zero = arith.constant 0.0 : f32
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %c = tileir.contract [%o0, %o1] k 1000 step 16 stages 2 : !tileir.tile<32x32xf32> lhs {
    ^bb0(%i: index, %k: index):
      %x = loopir.load %ab[%i, %k] : memref<17x1000xf32>
      %bk = loopir.load %bb[%k] : memref<1000xf32>
      %s = arith.addf %x, %bk : f32
      tileir.yield %s : f32
    } rhs {
    ^bb0(%j: index, %k: index):
      %v = loopir.load %wb[%k, %j] : memref<1000x19xf32>
      tileir.yield %v : f32
    }
    %bt = tileir.load %biasb[%o0, %o1] map affine_map<(d0, d1) -> (d1)> : memref<19xf32> -> !tileir.tile<32x32xf32>
    %y = tileir.map ins(%c, %bt : !tileir.tile<32x32xf32>, !tileir.tile<32x32xf32>) -> !tileir.tile<32x32xf32> {
    ^bb0(%e: f32, %f: f32):
      %t = arith.addf %e, %f : f32
      %u = arith.maximumf %t, %zero : f32
      tileir.yield %u : f32
    }
    tileir.store %y, %out[%o0, %o1] : !tileir.tile<32x32xf32>, memref<17x19xf32>
  }
  return %r : tensor<17x19xf32>
}

// -----

// Only contraction kernels are split.
// CHECK-LABEL: func.func @elementwise
// CHECK: domain [1000, 37] tile [8, 64] threads 128
// CHECK-NOT: tileir.kernel
func.func @elementwise(%a: tensor<1000x37xf32>) -> tensor<1000x37xf32> {
  %r = tileir.kernel ins(%a : tensor<1000x37xf32>) -> tensor<1000x37xf32> domain [1000, 37] tile [8, 64] threads 128 {
  ^bb0(%in: memref<1000x37xf32>, %out: memref<1000x37xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %x = tileir.load %in[%o0, %o1] : memref<1000x37xf32> -> !tileir.tile<8x64xf32>
    tileir.store %x, %out[%o0, %o1] : !tileir.tile<8x64xf32>, memref<1000x37xf32>
  }
  return %r : tensor<1000x37xf32>
}
