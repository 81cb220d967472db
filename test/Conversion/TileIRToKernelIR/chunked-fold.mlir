// A fold whose rows share their keys and values, in the Q-tile schedule:
// per chunk of 64 keys, a barrier, the block copies the chunk of each
// shared load into shared memory (the key rows padded to 9 words, so the 4
// lanes of a row, which read neighbouring keys, hit different banks), a
// barrier, and each thread folds its row's keys of the chunk from there;
// the 4 lanes of a row combine by two shuffles. 100 rows in tiles of 64:
// the last program's groups past row 99 run row 99 and store nothing.
// RUN: strata-opt %s -split-input-file --tileir-tile --tileir-map-threads --convert-tileir-to-kernelir | FileCheck %s

// CHECK-LABEL: kernelir.func @weighted_keys_kernel
// CHECK-SAME: block = array<i64: 256, 1, 1>, grid = array<i64: 4, 1, 1>
// CHECK-DAG: %[[KEYS:.*]] = kernelir.shared : memref<64x9xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[VALUES:.*]] = kernelir.shared : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c4
// CHECK: %[[ROW:.*]] = arith.addi
// CHECK: %[[INSIDE:.*]] = arith.cmpi ule, %[[ROW]], %c99
// CHECK: %[[CLAMPED:.*]] = arith.minui %[[ROW]], %c99
// CHECK: scf.for %[[FIRST:.*]] = %{{.*}} to %c70 step %c64{{.*}} iter_args
// CHECK: kernelir.barrier
// CHECK: scf.for %[[E:.*]] = %{{.*}} to %c512 step %c256
// CHECK: %[[KEY:.*]] = arith.minui %{{.*}}, %c69
// CHECK: %[[K:.*]] = kernelir.load %arg1[%{{.*}}, %[[KEY]], %{{.*}}] : memref<2x70x8xf32>
// CHECK: kernelir.store %[[K]], %[[KEYS]]
// CHECK: kernelir.store %{{.*}}, %[[VALUES]]
// CHECK: kernelir.barrier
// CHECK: scf.for %[[J:.*]] = %[[LANE]] to %{{.*}} step %c4
// CHECK: kernelir.load %arg0[%{{.*}}, %[[CLAMPED]], %{{.*}}] : memref<2x100x8xf32>
// CHECK: kernelir.load %[[KEYS]][%[[J]], %{{.*}}]
// CHECK: kernelir.load %[[VALUES]][%[[J]]]
// CHECK: kernelir.shuffle xor %{{.*}}, %c2_i32
// CHECK: kernelir.shuffle xor %{{.*}}, %c1_i32
// CHECK: %[[WRITES:.*]] = arith.andi %{{.*}}, %[[INSIDE]]
// CHECK: scf.if %[[WRITES]]
// CHECK-NEXT: kernelir.store %{{.*}}, %arg3[%{{.*}}, %[[CLAMPED]]]
func.func @weighted_keys(%q: tensor<2x100x8xf32>, %k: tensor<2x70x8xf32>, %v: tensor<2x70xf32>) -> tensor<2x100xf32> {
  %r = tileir.kernel ins(%q, %k, %v : tensor<2x100x8xf32>, tensor<2x70x8xf32>, tensor<2x70xf32>) -> tensor<2x100xf32> domain [2, 100] tile [1, 1] threads 32 {
  ^bb0(%qb: memref<2x100x8xf32>, %kb: memref<2x70x8xf32>, %vb: memref<2x70xf32>, %out: memref<2x100xf32>):
    %h = tileir.point 0
    %i = tileir.point 1
    %s = tileir.fold add(0.0 : f32) (%j) in [70] {
      %dot = loopir.reduce add (%d) in [8] : f32 {
        %x = loopir.load %qb[%h, %i, %d] : memref<2x100x8xf32>
        %y = loopir.load %kb[%h, %j, %d] : memref<2x70x8xf32>
        %p = arith.mulf %x, %y : f32
        loopir.yield %p : f32
      }
      %w = loopir.load %vb[%h, %j] : memref<2x70xf32>
      %c = arith.mulf %dot, %w : f32
      tileir.yield %c : f32
    }
    loopir.store %s, %out[%h, %i] : memref<2x100xf32>
  }
  return %r : tensor<2x100xf32>
}

// -----

// Contributions that are the monoid's identity where a causal comparison
// of key and row holds (j - i >= 1: the row's future): a chunk is skipped
// where the comparison holds at the four corners of the box of the
// block's rows and the chunk's keys (a half-space holds on a box where it
// holds at its corners). Its loops run no iteration; its barriers stay.
// CHECK-LABEL: kernelir.func @causal_kernel
// CHECK: scf.for %[[FIRST:.*]] = %{{.*}} to %c70 step %c64{{.*}} iter_args
// CHECK: %[[ROW0:.*]] = arith.muli %{{.*}}, %c64
// CHECK: %[[ROW1:.*]] = arith.minui %{{.*}}, %c99
// CHECK: %[[KEY1:.*]] = arith.minui %{{.*}}, %c69
// CHECK-COUNT-4: arith.cmpi sge
// CHECK: %[[SKIP:.*]] = arith.andi
// CHECK: kernelir.barrier
// CHECK: %[[COPIES:.*]] = arith.select %[[SKIP]], %c0{{.*}}, %c512
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[COPIES]] step %c256
// CHECK: kernelir.barrier
// CHECK: %[[OWN:.*]] = arith.select %[[SKIP]], %c0
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[OWN]] step %c4
func.func @causal(%q: tensor<2x100x8xf32>, %k: tensor<2x70x8xf32>, %v: tensor<2x70xf32>) -> tensor<2x100xf32> {
  %r = tileir.kernel ins(%q, %k, %v : tensor<2x100x8xf32>, tensor<2x70x8xf32>, tensor<2x70xf32>) -> tensor<2x100xf32> domain [2, 100] tile [1, 1] threads 32 {
  ^bb0(%qb: memref<2x100x8xf32>, %kb: memref<2x70x8xf32>, %vb: memref<2x70xf32>, %out: memref<2x100xf32>):
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1 : i64
    %h = tileir.point 0
    %i = tileir.point 1
    %row = arith.index_cast %i : index to i64
    %m, %s = tileir.fold max(0xFF800000 : f32), add(0.0 : f32) (%j) in [70] {
      %key = arith.index_cast %j : index to i64
      %ahead = arith.subi %key, %row : i64
      %future = arith.cmpi sge, %ahead, %one : i64
      %dot = loopir.reduce add (%d) in [8] : f32 {
        %x = loopir.load %qb[%h, %i, %d] : memref<2x100x8xf32>
        %y = loopir.load %kb[%h, %j, %d] : memref<2x70x8xf32>
        %p = arith.mulf %x, %y : f32
        loopir.yield %p : f32
      }
      %w = loopir.load %vb[%h, %j] : memref<2x70xf32>
      %score = arith.select %future, %ninf, %dot : f32
      %value = arith.select %future, %zero, %w : f32
      tileir.yield %score, %value : f32, f32
    }
    %t = arith.addf %m, %s : f32
    loopir.store %t, %out[%h, %i] : memref<2x100xf32>
  }
  return %r : tensor<2x100xf32>
}

// -----

// Scalar arithmetic is translated where it is first used, not where it
// stands; a value two later ops use (here %a, used by %b and by %c) comes
// once, before both.
// CHECK-LABEL: kernelir.func @used_twice_kernel
// CHECK: %[[A:.*]] = arith.mulf %{{.*}}, %cst
// CHECK-NEXT: %[[B:.*]] = arith.addf %[[A]], %cst
// CHECK-NEXT: %[[C:.*]] = arith.subf %[[B]], %[[A]]
// CHECK: kernelir.store %[[C]]
func.func @used_twice(%x: tensor<4x100xf32>) -> tensor<4xf32> {
  %r = tileir.kernel ins(%x : tensor<4x100xf32>) -> tensor<4xf32> domain [4] tile [1] threads 32 {
  ^bb0(%xb: memref<4x100xf32>, %out: memref<4xf32>):
    %two = arith.constant 2.0 : f32
    %i = tileir.point 0
    %s = tileir.fold add(0.0 : f32) (%j) in [100] {
      %v = loopir.load %xb[%i, %j] : memref<4x100xf32>
      tileir.yield %v : f32
    }
    %a = arith.mulf %s, %two : f32
    %b = arith.addf %a, %two : f32
    %c = arith.subf %b, %a : f32
    loopir.store %c, %out[%i] : memref<4xf32>
  }
  return %r : tensor<4xf32>
}
