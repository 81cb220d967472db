// kernelir.lane_id and kernelir.warp_id on the CPU: in a block of 16 x 4 x 2
// threads (4 warps), a thread's lane and warp come from its linear index
// x + 16 * (y + 4 * z), as on the GPU, in every thread order (the sum:
// 4 warps of lanes 0-31, 32 threads each of warps 0-3 times 100).
// RUN: strata-opt %s --convert-kernelir-to-cpu --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
// RUN: strata-opt %s --convert-kernelir-to-cpu=reverse-order=true --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
// RUN: strata-opt %s --convert-kernelir-to-cpu=shuffled-order=true --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s

// CHECK: mismatches: 0
// CHECK-NEXT: sum: 21184

kernelir.func @ids(%out: memref<2x4x16xindex>) attributes {block = array<i64: 16, 4, 2>, grid = array<i64: 1, 1, 1>} {
  %x = kernelir.thread_id x
  %y = kernelir.thread_id y
  %z = kernelir.thread_id z
  %lane = kernelir.lane_id
  %warp = kernelir.warp_id
  %c100 = arith.constant 100 : index
  %w100 = arith.muli %warp, %c100 : index
  %v = arith.addi %lane, %w100 : index
  kernelir.store %v, %out[%z, %y, %x] : memref<2x4x16xindex>
  kernelir.return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c100 = arith.constant 100 : index
  %out = memref.alloc() : memref<2x4x16xindex>
  kernelir.launch @ids(%out) : memref<2x4x16xindex>
  %zero = arith.constant 0 : index
  %r:2 = scf.for %z = %c0 to %c2 step %c1 iter_args(%bad0 = %zero, %sum0 = %zero) -> (index, index) {
    %r1:2 = scf.for %y = %c0 to %c4 step %c1 iter_args(%bad1 = %bad0, %sum1 = %sum0) -> (index, index) {
      %r2:2 = scf.for %x = %c0 to %c16 step %c1 iter_args(%bad = %bad1, %sum = %sum1) -> (index, index) {
        %zy = arith.muli %z, %c4 : index
        %row = arith.addi %y, %zy : index
        %row16 = arith.muli %row, %c16 : index
        %t = arith.addi %x, %row16 : index
        %l = arith.remui %t, %c32 : index
        %w = arith.divui %t, %c32 : index
        %w100 = arith.muli %w, %c100 : index
        %want = arith.addi %l, %w100 : index
        %got = memref.load %out[%z, %y, %x] : memref<2x4x16xindex>
        %ne = arith.cmpi ne, %got, %want : index
        %ne64 = arith.extui %ne : i1 to i64
        %inc = arith.index_cast %ne64 : i64 to index
        %next = arith.addi %bad, %inc : index
        %s = arith.addi %sum, %got : index
        scf.yield %next, %s : index, index
      }
      scf.yield %r2#0, %r2#1 : index, index
    }
    scf.yield %r1#0, %r1#1 : index, index
  }
  vector.print str "mismatches: "
  vector.print %r#0 : index
  vector.print str "sum: "
  vector.print %r#1 : index
  memref.dealloc %out : memref<2x4x16xindex>
  return
}
