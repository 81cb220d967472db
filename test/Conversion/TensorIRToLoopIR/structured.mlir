// RUN: strata-opt %s -split-input-file --convert-tensorir-to-loopir | FileCheck %s

// A reduction is a parallel nest over the result with a loopir.reduce over
// the reduced axes; the load map places the reduction index.
// CHECK-DAG: #[[MID:.*]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-LABEL: func.func @reduce_middle
// CHECK: loopir.kernel ins(%{{.*}} : tensor<6x5x7xf32>) -> tensor<6x7xf32>
// CHECK: loopir.parallel (%[[I:.*]], %[[J:.*]]) in [6, 7] {
// CHECK-NEXT: %[[S:.*]] = loopir.reduce max (%[[K:.*]]) in [5] : f32 {
// CHECK-NEXT: %[[X:.*]] = loopir.load %{{.*}}[%[[I]], %[[J]], %[[K]]] map #[[MID]] : memref<6x5x7xf32>
// CHECK-NEXT: loopir.yield %[[X]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: loopir.store %[[S]], %{{.*}}[%[[I]], %[[J]]] : memref<6x7xf32>
func.func @reduce_middle(%x: tensor<6x5x7xf32>) -> tensor<6x7xf32> {
  %0 = tensorir.reduce max %x axes [1] : tensor<6x5x7xf32> -> tensor<6x7xf32>
  return %0 : tensor<6x7xf32>
}

// -----

// keepdim: the kept size-1 dimension is a loop index the load ignores.
// CHECK-DAG: #[[KEEP:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @reduce_keepdim
// CHECK: loopir.parallel (%[[I:.*]], %[[ONE:.*]]) in [32, 1] {
// CHECK: loopir.reduce add (%[[K:.*]]) in [2049] : f32 {
// CHECK: loopir.load %{{.*}}[%[[I]], %[[ONE]], %[[K]]] map #[[KEEP]]
func.func @reduce_keepdim(%x: tensor<32x2049xf32>) -> tensor<32x1xf32> {
  %0 = tensorir.reduce sum %x axes [1] keepdim : tensor<32x2049xf32> -> tensor<32x1xf32>
  return %0 : tensor<32x1xf32>
}

// -----

// CHECK-LABEL: func.func @arg_reduce
// CHECK: loopir.kernel ins(%{{.*}} : tensor<6x9xf32>) -> tensor<6xf32>, tensor<6xi64>
// CHECK: %[[R:.*]]:2 = loopir.reduce argmin (%{{.*}}) in [9] : f32, i64
// CHECK: loopir.store %[[R]]#0
// CHECK: loopir.store %[[R]]#1
func.func @arg_reduce(%x: tensor<6x9xf32>) -> (tensor<6xf32>, tensor<6xi64>) {
  %v, %i = tensorir.arg_reduce min %x axis 1 : tensor<6x9xf32> -> tensor<6xf32>, tensor<6xi64>
  return %v, %i : tensor<6xf32>, tensor<6xi64>
}

// -----

// CHECK-LABEL: func.func @iota
// CHECK: loopir.parallel (%[[I:.*]], %[[J:.*]]) in [4, 8] {
// CHECK-NEXT: %[[C:.*]] = arith.index_cast %[[J]] : index to i64
// CHECK-NEXT: %[[F:.*]] = arith.sitofp %[[C]] : i64 to f32
// CHECK-NEXT: loopir.store %[[F]]
func.func @iota() -> tensor<4x8xf32> {
  %0 = tensorir.iota dim 1 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A concatenation of few inputs is one nest over the result: each input
// loaded through a guard that holds on its part of the axis, the part
// selected by position.
// CHECK-DAG: #[[BACK:.*]] = affine_map<(d0, d1) -> (d0, d1 - 3)>
// CHECK-DAG: #[[FIRST:.*]] = affine_set<(d0, d1) : (-d1 + 2 >= 0)>
// CHECK-DAG: #[[SECOND:.*]] = affine_set<(d0, d1) : (d1 - 3 >= 0)>
// CHECK-LABEL: func.func @concat
// CHECK: loopir.parallel (%[[I:.*]], %[[J:.*]]) in [4, 8] {
// CHECK-NEXT: %[[A:.*]] = loopir.load %{{.*}}[%[[I]], %[[J]]] map #{{.*}} if #[[FIRST]] else 0.000000e+00 : f32 : memref<4x3xf32>
// CHECK-NEXT: %[[B:.*]] = loopir.load %{{.*}}[%[[I]], %[[J]]] map #[[BACK]] if #[[SECOND]] else 0.000000e+00 : f32 : memref<4x5xf32>
// CHECK-NEXT: %[[C:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[IN_A:.*]] = arith.cmpi ult, %[[J]], %[[C]] : index
// CHECK-NEXT: %[[V:.*]] = arith.select %[[IN_A]], %[[A]], %[[B]] : f32
// CHECK-NEXT: loopir.store %[[V]], %{{.*}}[%[[I]], %[[J]]] : memref<4x8xf32>
func.func @concat(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) -> tensor<4x8xf32> {
  %0 = tensorir.concat %a, %b axis 1 : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Of more inputs, one nest per input, each storing at its offset along the
// axis.
// CHECK-DAG: #[[SHIFT:.*]] = affine_map<(d0) -> (d0 + 7)>
// CHECK-LABEL: func.func @concat_many
// CHECK: loopir.parallel (%{{.*}}) in [2] {
// CHECK: loopir.parallel (%{{.*}}) in [1] {
// CHECK: loopir.parallel (%{{.*}}) in [3] {
// CHECK: loopir.parallel (%{{.*}}) in [1] {
// CHECK: loopir.parallel (%{{.*}}) in [2] {
// CHECK: loopir.store %{{.*}}, %{{.*}}[%{{.*}}] map #[[SHIFT]] : memref<9xi64>
func.func @concat_many(%a: tensor<2xi64>, %b: tensor<1xi64>, %c: tensor<3xi64>, %d: tensor<1xi64>, %e: tensor<2xi64>) -> tensor<9xi64> {
  %0 = tensorir.concat %a, %b, %c, %d, %e axis 0 : (tensor<2xi64>, tensor<1xi64>, tensor<3xi64>, tensor<1xi64>, tensor<2xi64>) -> tensor<9xi64>
  return %0 : tensor<9xi64>
}

// -----

// The index is loaded, then addresses the table.
// CHECK-DAG: #[[IDX:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @gather
// CHECK: loopir.parallel (%[[B:.*]], %[[S:.*]], %[[D:.*]]) in [4, 7, 16] {
// CHECK-NEXT: %[[ID:.*]] = loopir.load %[[IDS:.*]][%[[B]], %[[S]], %[[D]]] map #[[IDX]] : memref<4x7xi64>
// CHECK-NEXT: %[[I:.*]] = arith.index_cast %[[ID]] : i64 to index
// CHECK-NEXT: %[[X:.*]] = loopir.load %{{.*}}[%[[I]], %[[D]]] : memref<100x16xf32>
func.func @gather(%t: tensor<100x16xf32>, %ids: tensor<4x7xi64>) -> tensor<4x7x16xf32> {
  %0 = tensorir.gather %t[%ids] axis 0 : (tensor<100x16xf32>, tensor<4x7xi64>) -> tensor<4x7x16xf32>
  return %0 : tensor<4x7x16xf32>
}

// -----

// Sums and products of halves accumulate in f32 and round once (as
// PyTorch's kernels do); extremes stay in the element type (exact).
// CHECK-LABEL: func.func @half_sum
// CHECK: %[[S:.*]] = loopir.reduce add (%{{.*}}) in [455] : f32 {
// CHECK-NEXT: %[[X:.*]] = loopir.load
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT: loopir.yield %[[W]] : f32
// CHECK: %[[R:.*]] = arith.truncf %[[S]] : f32 to bf16
// CHECK-NEXT: loopir.store %[[R]]
// CHECK-LABEL: func.func @half_max
// CHECK: loopir.reduce max (%{{.*}}) in [455] : bf16 {
// CHECK-NOT: arith.extf
func.func @half_sum(%x: tensor<455xbf16>) -> tensor<bf16> {
  %0 = tensorir.reduce sum %x axes [0] : tensor<455xbf16> -> tensor<bf16>
  return %0 : tensor<bf16>
}
func.func @half_max(%x: tensor<455xbf16>) -> tensor<bf16> {
  %0 = tensorir.reduce max %x axes [0] : tensor<455xbf16> -> tensor<bf16>
  return %0 : tensor<bf16>
}
