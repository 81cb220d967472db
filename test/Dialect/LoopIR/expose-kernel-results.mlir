// RUN: strata-opt %s --loopir-expose-kernel-results | FileCheck %s

// Each kernel's results join the function's results, in program order.
// CHECK-LABEL: func.func @two_kernels(%{{.*}}: tensor<8xf32>) -> (tensor<f32>, tensor<8xf32>, tensor<f32>)
// CHECK: %[[E:.*]] = loopir.kernel
// CHECK: %[[S:.*]] = loopir.kernel
// CHECK: return %[[S]], %[[E]], %[[S]] : tensor<f32>, tensor<8xf32>, tensor<f32>
func.func @two_kernels(%a: tensor<8xf32>) -> tensor<f32> {
  %e = loopir.kernel ins(%a : tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%in: memref<8xf32>, %out: memref<8xf32>):
    loopir.parallel (%i) in [8] {
      %x = loopir.load %in[%i] : memref<8xf32>
      %y = math.exp %x : f32
      loopir.store %y, %out[%i] : memref<8xf32>
    }
  }
  %s = loopir.kernel ins(%e : tensor<8xf32>) -> tensor<f32> {
  ^bb0(%in: memref<8xf32>, %out: memref<f32>):
    loopir.parallel () in [] {
      %t = loopir.reduce add (%i) in [8] : f32 {
        %x = loopir.load %in[%i] : memref<8xf32>
        loopir.yield %x : f32
      }
      loopir.store %t, %out[] : memref<f32>
    }
  }
  return %s : tensor<f32>
}

// A function without kernels is left alone.
// CHECK-LABEL: func.func @no_kernels(%{{.*}}: tensor<8xf32>) -> tensor<8xf32>
func.func @no_kernels(%a: tensor<8xf32>) -> tensor<8xf32> {
  return %a : tensor<8xf32>
}
