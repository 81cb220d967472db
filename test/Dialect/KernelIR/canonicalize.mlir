// RUN: strata-opt %s --canonicalize | FileCheck %s

// A constant every lane offers is what every lane receives: its shuffle
// folds to it, whatever the mode and offset. A lane's own value stays
// shuffled.
// CHECK-LABEL: kernelir.func @shuffles
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: %[[X:.*]] = kernelir.load
// CHECK: %[[Y:.*]] = kernelir.shuffle idx %[[X]], %{{.*}} : f32
// CHECK-NOT: kernelir.shuffle
// CHECK: kernelir.store %[[TWO]]
// CHECK: kernelir.store %[[Y]]
kernelir.func @shuffles(%in: memref<32xf32>, %out: memref<2x32xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3_i32 = arith.constant 3 : i32
  %two = arith.constant 2.0 : f32
  %t = kernelir.thread_id x
  %x = kernelir.load %in[%t] : memref<32xf32>
  %a = kernelir.shuffle xor %two, %c3_i32 : f32
  %y = kernelir.shuffle idx %x, %c3_i32 : f32
  kernelir.store %a, %out[%c0, %t] : memref<2x32xf32>
  kernelir.store %y, %out[%c1, %t] : memref<2x32xf32>
  kernelir.return
}
