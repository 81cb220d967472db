// The race check: a planted race (every thread writes its own id to one
// element) gives a result that depends on the order threads run in, so the
// emulator run forward, in reverse and shuffled disagrees. A race-free kernel agrees.
// RUN: strata-opt %s --convert-kernelir-to-cpu --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils \
// RUN: | FileCheck %s --check-prefix=FORWARD
// RUN: strata-opt %s --convert-kernelir-to-cpu=reverse-order=true --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils \
// RUN: | FileCheck %s --check-prefix=REVERSE
// RUN: strata-opt %s --convert-kernelir-to-cpu=shuffled-order=true --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils \
// RUN: | FileCheck %s --check-prefix=SHUFFLED

// FORWARD: racy: 63
// FORWARD-NEXT: race-free: 2016
// REVERSE: racy: 0
// REVERSE-NEXT: race-free: 2016
// SHUFFLED: racy: 53
// SHUFFLED-NEXT: race-free: 2016

kernelir.func @racy(%out: memref<1xi64>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 2, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %b = kernelir.block_id x
  %t = kernelir.thread_id x
  %base = arith.muli %b, %c32 : index
  %i = arith.addi %base, %t : index
  %v = arith.index_cast %i : index to i64
  kernelir.store %v, %out[%c0] : memref<1xi64>
  kernelir.return
}

// Each thread writes its own element; then the host sums them.
kernelir.func @race_free(%out: memref<64xi64>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 2, 1, 1>} {
  %c32 = arith.constant 32 : index
  %b = kernelir.block_id x
  %t = kernelir.thread_id x
  %base = arith.muli %b, %c32 : index
  %i = arith.addi %base, %t : index
  %v = arith.index_cast %i : index to i64
  kernelir.store %v, %out[%i] : memref<64xi64>
  kernelir.return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %one = memref.alloc() : memref<1xi64>
  kernelir.launch @racy(%one) : memref<1xi64>
  %r = memref.load %one[%c0] : memref<1xi64>
  vector.print str "racy: "
  vector.print %r : i64
  %all = memref.alloc() : memref<64xi64>
  kernelir.launch @race_free(%all) : memref<64xi64>
  %zero = arith.constant 0 : i64
  %sum = scf.for %i = %c0 to %c64 step %c1 iter_args(%s = %zero) -> i64 {
    %x = memref.load %all[%i] : memref<64xi64>
    %n = arith.addi %s, %x : i64
    scf.yield %n : i64
  }
  vector.print str "race-free: "
  vector.print %sum : i64
  return
}
