// RUN: strata-opt %s -split-input-file --convert-tensorir-to-loopir --canonicalize --loopir-fuse --canonicalize | FileCheck %s

// A padded view (tensorir.pad: a guarded load) fuses into its consumer,
// the guard composed with the consumer's map like the address; the views
// of its input fuse into it, their load taking the guard: one kernel that
// reads x where the guard holds and 0 elsewhere.
// CHECK-DAG: #[[SET:.*]] = affine_set<(d0, d1) : (d0 - 1 >= 0, -d0 + 8 >= 0)>
// CHECK-LABEL: func.func @views_around_pad
// CHECK: loopir.kernel ins(%{{.*}} : tensor<8x6xf32>) -> tensor<10x4xf32>
// CHECK: loopir.parallel (%[[I:.*]], %[[J:.*]]) in [10, 4] {
// CHECK-NEXT: %[[X:.*]] = loopir.load %{{.*}}[%[[I]], %[[J]]] map #{{.*}} if #[[SET]] else 0.000000e+00 : f32 : memref<8x6xf32>
// CHECK-NEXT: math.exp %[[X]]
// CHECK-NOT: loopir.kernel
func.func @views_around_pad(%x: tensor<8x6xf32>) -> tensor<10x4xf32> {
  %t = tensorir.transpose %x perm [1, 0] : tensor<8x6xf32> -> tensor<6x8xf32>
  %r = tensorir.reshape %t : tensor<6x8xf32> -> tensor<8x6xf32>
  %p = tensorir.pad %r low [1, 0] high [1, 0] value 0.0 : f32 : tensor<8x6xf32> -> tensor<10x6xf32>
  %s = tensorir.slice %p offsets [0, 1] strides [1, 1] : tensor<10x6xf32> -> tensor<10x4xf32>
  %e = tensorir.exp %s : tensor<10x4xf32>
  return %e : tensor<10x4xf32>
}

// -----

// A computed input fuses under the guard: exp is computed where the guard
// holds (its load guarded too, so nothing out of bounds is read) and the
// padding is selected elsewhere (exp(padding) would replace it).
// CHECK-DAG: #[[PART:.*]] = affine_set<(d0, d1) : (d0 - 1 >= 0, -d0 + 8 >= 0)>
// CHECK-LABEL: func.func @computed_input
// CHECK: loopir.kernel ins(%{{.*}} : tensor<8x6xf32>) -> tensor<10x6xf32>
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: loopir.parallel (%[[I:.*]], %[[J:.*]]) in [10, 6] {
// CHECK-NEXT: %[[X:.*]] = loopir.load %{{.*}}[%[[I]], %[[J]]] map #{{.*}} if #[[PART]] else 0.000000e+00 : f32 : memref<8x6xf32>
// CHECK-NEXT: %[[E:.*]] = math.exp %[[X]] : f32
// CHECK: %[[LOW:.*]] = arith.cmpi sge
// CHECK: %[[HIGH:.*]] = arith.cmpi sge
// CHECK-NEXT: %[[IN:.*]] = arith.andi %[[LOW]], %[[HIGH]] : i1
// CHECK-NEXT: %[[V:.*]] = arith.select %[[IN]], %[[E]], %[[ONE]] : f32
// CHECK-NEXT: arith.negf %[[V]]
// CHECK-NOT: loopir.kernel
func.func @computed_input(%x: tensor<8x6xf32>) -> tensor<10x6xf32> {
  %e = tensorir.exp %x : tensor<8x6xf32>
  %p = tensorir.pad %e low [1, 0] high [1, 0] value 1.0 : f32 : tensor<8x6xf32> -> tensor<10x6xf32>
  %n = tensorir.neg %p : tensor<10x6xf32>
  return %n : tensor<10x6xf32>
}

// -----

// A padded copy takes no computed producer (it fuses into its consumer as
// a copy, the guard with it): in a window's reduction the computed value
// would need a guard and a select per point. exp stays a kernel.
// CHECK-LABEL: func.func @computed_input_of_window
// CHECK: %[[E:.*]] = loopir.kernel
// CHECK: math.exp
// CHECK: loopir.kernel ins(%[[E]] : tensor<8xf32>) -> tensor<8xf32>
// CHECK: loopir.reduce max
// CHECK: loopir.load %{{.*}} map #{{.*}} if #{{.*}} else 0xFF800000 : f32 : memref<8xf32>
func.func @computed_input_of_window(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensorir.exp %x : tensor<8xf32>
  %p = tensorir.pad %e low [1] high [1] value 0xFF800000 : f32 : tensor<8xf32> -> tensor<10xf32>
  %w = tensorir.window %p sizes [3] strides [1] dilations [1] : tensor<10xf32> -> tensor<8x3xf32>
  %m = tensorir.reduce max %w axes [1] : tensor<8x3xf32> -> tensor<8xf32>
  return %m : tensor<8xf32>
}

// -----

// A pad of a pad with another value: two guards, two paddings, which one
// load cannot say; the inner pad stays a kernel.
// CHECK-LABEL: func.func @pad_of_pad
// CHECK: %[[INNER:.*]] = loopir.kernel
// CHECK: if #{{.*}} else 1.000000e+00
// CHECK: loopir.kernel ins(%[[INNER]] : tensor<6xf32>)
// CHECK: if #{{.*}} else 0.000000e+00
func.func @pad_of_pad(%x: tensor<4xf32>) -> tensor<8xf32> {
  %a = tensorir.pad %x low [1] high [1] value 1.0 : f32 : tensor<4xf32> -> tensor<6xf32>
  %b = tensorir.pad %a low [1] high [1] value 0.0 : f32 : tensor<6xf32> -> tensor<8xf32>
  %e = tensorir.exp %b : tensor<8xf32>
  return %e : tensor<8xf32>
}

// -----

// With equal paddings, the guards conjoin in one load.
// CHECK-LABEL: func.func @pad_of_pad_same_value
// CHECK: loopir.kernel ins(%{{.*}} : tensor<4xf32>) -> tensor<8xf32>
// CHECK: loopir.load %{{.*}} map #{{.*}} if #{{.*}} else 0.000000e+00 : f32 : memref<4xf32>
// CHECK-NOT: loopir.kernel
func.func @pad_of_pad_same_value(%x: tensor<4xf32>) -> tensor<8xf32> {
  %a = tensorir.pad %x low [1] high [1] value 0.0 : f32 : tensor<4xf32> -> tensor<6xf32>
  %b = tensorir.pad %a low [1] high [1] value 0.0 : f32 : tensor<6xf32> -> tensor<8xf32>
  %e = tensorir.exp %b : tensor<8xf32>
  return %e : tensor<8xf32>
}
