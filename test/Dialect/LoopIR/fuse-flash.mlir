// Attention's output rows: a sum over keys of softmax weights (normalized
// by a maximum over the same keys) times values, with a row vector of at
// most 64 values, is no staged contraction but a flash row: loopir-fuse
// takes the softmax (and the scores it computes) into it, one kernel,
// whatever the number of query rows (the Q-tile schedule shares keys and
// values between them). A row vector of up to 256 values is one too where
// the lanes of a row can split it: at least 16 query rows take the Q-tile
// schedule (4 lanes a row), fewer a warp or more each (runs of up to 32
// lanes): a multiple of 4 either way; otherwise the product stays a
// contraction and the probabilities a tensor.
// RUN: strata-opt %s -split-input-file --loopir-fuse | FileCheck %s

// CHECK-LABEL: func.func @attention
// CHECK: loopir.kernel
// CHECK-NOT: loopir.kernel
// CHECK: loopir.reduce max
// CHECK: math.exp
func.func @attention(%q: tensor<40x8xf32>, %k: tensor<45x8xf32>, %v: tensor<45x8xf32>) -> tensor<40x8xf32> {
  %s = loopir.kernel ins(%q, %k : tensor<40x8xf32>, tensor<45x8xf32>) -> tensor<40x45xf32> {
  ^bb0(%qb: memref<40x8xf32>, %kb: memref<45x8xf32>, %out: memref<40x45xf32>):
    loopir.parallel (%i, %j) in [40, 45] {
      %d = loopir.reduce add (%c) in [8] : f32 {
        %x = loopir.load %qb[%i, %c] : memref<40x8xf32>
        %y = loopir.load %kb[%j, %c] : memref<45x8xf32>
        %p = arith.mulf %x, %y : f32
        loopir.yield %p : f32
      }
      loopir.store %d, %out[%i, %j] : memref<40x45xf32>
    }
  }
  %p = loopir.kernel ins(%s : tensor<40x45xf32>) -> tensor<40x45xf32> {
  ^bb0(%sb: memref<40x45xf32>, %out: memref<40x45xf32>):
    loopir.parallel (%i, %j) in [40, 45] {
      %m = loopir.reduce max (%t) in [45] : f32 {
        %x = loopir.load %sb[%i, %t] : memref<40x45xf32>
        loopir.yield %x : f32
      }
      %l = loopir.reduce add (%t) in [45] : f32 {
        %x = loopir.load %sb[%i, %t] : memref<40x45xf32>
        %y = arith.subf %x, %m : f32
        %e = math.exp %y : f32
        loopir.yield %e : f32
      }
      %x = loopir.load %sb[%i, %j] : memref<40x45xf32>
      %y = arith.subf %x, %m : f32
      %e = math.exp %y : f32
      %w = arith.divf %e, %l : f32
      loopir.store %w, %out[%i, %j] : memref<40x45xf32>
    }
  }
  %o = loopir.kernel ins(%p, %v : tensor<40x45xf32>, tensor<45x8xf32>) -> tensor<40x8xf32> {
  ^bb0(%pb: memref<40x45xf32>, %vb: memref<45x8xf32>, %out: memref<40x8xf32>):
    loopir.parallel (%i, %e) in [40, 8] {
      %a = loopir.reduce add (%t) in [45] : f32 {
        %x = loopir.load %pb[%i, %t] : memref<40x45xf32>
        %y = loopir.load %vb[%t, %e] : memref<45x8xf32>
        %z = arith.mulf %x, %y : f32
        loopir.yield %z : f32
      }
      loopir.store %a, %out[%i, %e] : memref<40x8xf32>
    }
  }
  return %o : tensor<40x8xf32>
}

// -----

// CHECK-LABEL: func.func @wide_values
// CHECK: loopir.kernel
// CHECK-NOT: loopir.kernel
// CHECK: loopir.reduce add
// CHECK: loopir.reduce max
// CHECK: math.exp
// CHECK: return
func.func @wide_values(%p0: tensor<40x45xf32>, %v: tensor<45x96xf32>) -> tensor<40x96xf32> {
  %p = loopir.kernel ins(%p0 : tensor<40x45xf32>) -> tensor<40x45xf32> {
  ^bb0(%sb: memref<40x45xf32>, %out: memref<40x45xf32>):
    loopir.parallel (%i, %j) in [40, 45] {
      %m = loopir.reduce max (%t) in [45] : f32 {
        %x = loopir.load %sb[%i, %t] : memref<40x45xf32>
        loopir.yield %x : f32
      }
      %x = loopir.load %sb[%i, %j] : memref<40x45xf32>
      %y = arith.subf %x, %m : f32
      %e = math.exp %y : f32
      loopir.store %e, %out[%i, %j] : memref<40x45xf32>
    }
  }
  %o = loopir.kernel ins(%p, %v : tensor<40x45xf32>, tensor<45x96xf32>) -> tensor<40x96xf32> {
  ^bb0(%pb: memref<40x45xf32>, %vb: memref<45x96xf32>, %out: memref<40x96xf32>):
    loopir.parallel (%i, %e) in [40, 96] {
      %a = loopir.reduce add (%t) in [45] : f32 {
        %x = loopir.load %pb[%i, %t] : memref<40x45xf32>
        %y = loopir.load %vb[%t, %e] : memref<45x96xf32>
        %z = arith.mulf %x, %y : f32
        loopir.yield %z : f32
      }
      loopir.store %a, %out[%i, %e] : memref<40x96xf32>
    }
  }
  return %o : tensor<40x96xf32>
}

// -----

// CHECK-LABEL: func.func @wide_values_few_queries
// CHECK: loopir.kernel
// CHECK-NOT: loopir.kernel
// CHECK: loopir.reduce add
// CHECK: loopir.reduce max
// CHECK: math.exp
// CHECK: return
func.func @wide_values_few_queries(%p0: tensor<8x45xf32>, %v: tensor<45x96xf32>) -> tensor<8x96xf32> {
  %p = loopir.kernel ins(%p0 : tensor<8x45xf32>) -> tensor<8x45xf32> {
  ^bb0(%sb: memref<8x45xf32>, %out: memref<8x45xf32>):
    loopir.parallel (%i, %j) in [8, 45] {
      %m = loopir.reduce max (%t) in [45] : f32 {
        %x = loopir.load %sb[%i, %t] : memref<8x45xf32>
        loopir.yield %x : f32
      }
      %x = loopir.load %sb[%i, %j] : memref<8x45xf32>
      %y = arith.subf %x, %m : f32
      %e = math.exp %y : f32
      loopir.store %e, %out[%i, %j] : memref<8x45xf32>
    }
  }
  %o = loopir.kernel ins(%p, %v : tensor<8x45xf32>, tensor<45x96xf32>) -> tensor<8x96xf32> {
  ^bb0(%pb: memref<8x45xf32>, %vb: memref<45x96xf32>, %out: memref<8x96xf32>):
    loopir.parallel (%i, %e) in [8, 96] {
      %a = loopir.reduce add (%t) in [45] : f32 {
        %x = loopir.load %pb[%i, %t] : memref<8x45xf32>
        %y = loopir.load %vb[%t, %e] : memref<45x96xf32>
        %z = arith.mulf %x, %y : f32
        loopir.yield %z : f32
      }
      loopir.store %a, %out[%i, %e] : memref<8x96xf32>
    }
  }
  return %o : tensor<8x96xf32>
}

// -----

// CHECK-LABEL: func.func @values_few_queries_cannot_split
// CHECK: loopir.kernel
// CHECK: loopir.reduce max
// CHECK: loopir.kernel
// CHECK-NOT: loopir.reduce max
// CHECK: loopir.reduce add
func.func @values_few_queries_cannot_split(%p0: tensor<8x45xf32>, %v: tensor<45x66xf32>) -> tensor<8x66xf32> {
  %p = loopir.kernel ins(%p0 : tensor<8x45xf32>) -> tensor<8x45xf32> {
  ^bb0(%sb: memref<8x45xf32>, %out: memref<8x45xf32>):
    loopir.parallel (%i, %j) in [8, 45] {
      %m = loopir.reduce max (%t) in [45] : f32 {
        %x = loopir.load %sb[%i, %t] : memref<8x45xf32>
        loopir.yield %x : f32
      }
      %x = loopir.load %sb[%i, %j] : memref<8x45xf32>
      %y = arith.subf %x, %m : f32
      %e = math.exp %y : f32
      loopir.store %e, %out[%i, %j] : memref<8x45xf32>
    }
  }
  %o = loopir.kernel ins(%p, %v : tensor<8x45xf32>, tensor<45x66xf32>) -> tensor<8x66xf32> {
  ^bb0(%pb: memref<8x45xf32>, %vb: memref<45x66xf32>, %out: memref<8x66xf32>):
    loopir.parallel (%i, %e) in [8, 66] {
      %a = loopir.reduce add (%t) in [45] : f32 {
        %x = loopir.load %pb[%i, %t] : memref<8x45xf32>
        %y = loopir.load %vb[%t, %e] : memref<45x66xf32>
        %z = arith.mulf %x, %y : f32
        loopir.yield %z : f32
      }
      loopir.store %a, %out[%i, %e] : memref<8x66xf32>
    }
  }
  return %o : tensor<8x66xf32>
}
