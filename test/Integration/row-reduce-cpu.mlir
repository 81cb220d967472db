// Cooperative row reductions run on the CPU through the full pipeline and
// match a scalar reference exactly (integers, so the order of the folds
// does not matter): the default row schedule (256 threads, 8 warps: posts
// read by aligned lane groups), 96 threads (3 warps: lanes past the last
// post take the identity), one warp (no shared memory), threads in reverse
// order (the race check), and the generic schedule.
// RUN: strata-opt %s --strata-lower-to-cpu | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
// RUN: strata-opt %s '--strata-lower-to-cpu=schedule=row threads=96' | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
// RUN: strata-opt %s '--strata-lower-to-cpu=schedule=row threads=32' | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
// RUN: strata-opt %s '--strata-lower-to-cpu=reverse-order=true' | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
// RUN: strata-opt %s '--strata-lower-to-cpu=schedule=generic' | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
// RUN: strata-opt %s --strata-lower-to-kernel | FileCheck %s --check-prefix=KERNEL

// CHECK: mismatches: 0{{$}}
// KERNEL: kernelir.shared
// KERNEL: kernelir.shuffle xor
// KERNEL: kernelir.barrier

// Per row of 1000: the sum of x - max(x) (every thread needs the row's
// max), the row's min, and the whole tensor's sum.
func.func @rows(%x: tensor<5x1000xi32>) -> (tensor<5xi32>, tensor<5xi32>, tensor<i32>) {
  %m = tensorir.reduce max %x axes [1] keepdim : tensor<5x1000xi32> -> tensor<5x1xi32>
  %mb = tensorir.broadcast %m dims [0, 1] : tensor<5x1xi32> -> tensor<5x1000xi32>
  %d = tensorir.sub %x, %mb : tensor<5x1000xi32>
  %s = tensorir.reduce sum %d axes [1] : tensor<5x1000xi32> -> tensor<5xi32>
  %lo = tensorir.reduce min %x axes [1] : tensor<5x1000xi32> -> tensor<5xi32>
  %t = tensorir.reduce sum %x axes [0, 1] : tensor<5x1000xi32> -> tensor<i32>
  return %s, %lo, %t : tensor<5xi32>, tensor<5xi32>, tensor<i32>
}

// An integer in [-50, 50) from an index.
func.func @inoise(%i: index) -> i32 {
  %x = arith.index_cast %i : index to i64
  %mul = arith.constant 1103515245 : i64
  %add = arith.constant 12345 : i64
  %mod = arith.constant 100 : i64
  %h0 = arith.muli %x, %mul : i64
  %h1 = arith.addi %h0, %add : i64
  %c16 = arith.constant 16 : i64
  %h2 = arith.shrui %h1, %c16 : i64
  %h = arith.remui %h2, %mod : i64
  %c50 = arith.constant 50 : i64
  %r = arith.subi %h, %c50 : i64
  %r32 = arith.trunci %r : i64 to i32
  return %r32 : i32
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c1000 = arith.constant 1000 : index
  %x = memref.alloc() : memref<5x1000xi32>
  scf.for %i = %c0 to %c5 step %c1 {
    scf.for %k = %c0 to %c1000 step %c1 {
      %lin = affine.apply affine_map<(d0, d1) -> (d0 * 1000 + d1)>(%i, %k)
      %v = func.call @inoise(%lin) : (index) -> i32
      memref.store %v, %x[%i, %k] : memref<5x1000xi32>
    }
  }
  %xt = bufferization.to_tensor %x restrict : memref<5x1000xi32> to tensor<5x1000xi32>
  %st, %lot, %tt = func.call @rows(%xt) : (tensor<5x1000xi32>) -> (tensor<5xi32>, tensor<5xi32>, tensor<i32>)
  %s = bufferization.to_buffer %st : tensor<5xi32> to memref<5xi32>
  %lo = bufferization.to_buffer %lot : tensor<5xi32> to memref<5xi32>
  %t = bufferization.to_buffer %tt : tensor<i32> to memref<i32>
  // The scalar reference, one row at a time.
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %big = arith.constant 1000000 : i32
  %wrong, %total = scf.for %i = %c0 to %c5 step %c1 iter_args(%w0 = %zero, %t0 = %zero) -> (i32, i32) {
    %neg = arith.constant -1000000 : i32
    %mx, %mn, %sm = scf.for %k = %c0 to %c1000 step %c1 iter_args(%a = %neg, %b = %big, %c = %zero) -> (i32, i32, i32) {
      %v = memref.load %x[%i, %k] : memref<5x1000xi32>
      %a1 = arith.maxsi %a, %v : i32
      %b1 = arith.minsi %b, %v : i32
      %c1_ = arith.addi %c, %v : i32
      scf.yield %a1, %b1, %c1_ : i32, i32, i32
    }
    // sum(x - max) = sum(x) - 1000 * max
    %k1000 = arith.constant 1000 : i32
    %scaled = arith.muli %mx, %k1000 : i32
    %want = arith.subi %sm, %scaled : i32
    %got = memref.load %s[%i] : memref<5xi32>
    %bad0 = arith.cmpi ne, %got, %want : i32
    %gotlo = memref.load %lo[%i] : memref<5xi32>
    %bad1 = arith.cmpi ne, %gotlo, %mn : i32
    %bad = arith.ori %bad0, %bad1 : i1
    %inc = arith.extui %bad : i1 to i32
    %w1 = arith.addi %w0, %inc : i32
    %t1 = arith.addi %t0, %sm : i32
    scf.yield %w1, %t1 : i32, i32
  }
  %gott = memref.load %t[] : memref<i32>
  %badt = arith.cmpi ne, %gott, %total : i32
  %inct = arith.extui %badt : i1 to i32
  %all = arith.addi %wrong, %inct : i32
  vector.print str "mismatches: "
  vector.print %all : i32
  return
}
