// Barriers and shuffles on the CPU. Shuffles of every mode deliver exactly
// the lanes the GPU would, in both thread orders. A planted missing barrier
// (each thread reads its neighbour's shared-memory slot right after writing
// its own) gives a result that depends on the order the threads run in, so
// the forward and reversed emulations disagree; with the barrier they agree.
// RUN: strata-opt %s --convert-kernelir-to-cpu --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils \
// RUN: | FileCheck %s --check-prefixes=CHECK,FORWARD
// RUN: strata-opt %s --convert-kernelir-to-cpu=reverse-order=true --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils \
// RUN: | FileCheck %s --check-prefixes=CHECK,REVERSE

// CHECK: shuffle mismatches: 0
// FORWARD-NEXT: missing barrier: 1
// REVERSE-NEXT: missing barrier: 2079
// CHECK-NEXT: with barrier: 2080

// Thread t of 64 (two warps) records the lanes its shuffles read:
// xor 1, down 3, up 5 and idx 7, as one number.
kernelir.func @shuffles(%out: memref<64xi64>) attributes {block = array<i64: 64, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %c5 = arith.constant 5 : i32
  %c7 = arith.constant 7 : i32
  %t = kernelir.thread_id x
  %ti = arith.index_cast %t : index to i64
  %a = kernelir.shuffle xor %ti, %c1 : i64
  %b = kernelir.shuffle down %ti, %c3 : i64
  %c = kernelir.shuffle up %ti, %c5 : i64
  %d = kernelir.shuffle idx %ti, %c7 : i64
  %r = func.call @encode(%a, %b, %c, %d) : (i64, i64, i64, i64) -> i64
  kernelir.store %r, %out[%t] : memref<64xi64>
  kernelir.return
}

func.func @encode(%a: i64, %b: i64, %c: i64, %d: i64) -> i64 {
  %k100 = arith.constant 100 : i64
  %0 = arith.muli %a, %k100 : i64
  %1 = arith.addi %0, %b : i64
  %2 = arith.muli %1, %k100 : i64
  %3 = arith.addi %2, %c : i64
  %4 = arith.muli %3, %k100 : i64
  %5 = arith.addi %4, %d : i64
  return %5 : i64
}

// Every slot holds 0, then thread t writes t + 1 to its slot and reads slot
// t + 1 (mod 64): with the barrier between, every thread reads the new
// value; without it, what a thread reads depends on which threads ran.
kernelir.func @neighbours(%out: memref<64xi64>) attributes {block = array<i64: 64, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %slots = kernelir.shared : memref<64xi64, #gpu.address_space<workgroup>>
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %t = kernelir.thread_id x
  kernelir.store %zero, %slots[%t] : memref<64xi64, #gpu.address_space<workgroup>>
  kernelir.barrier
  %ti = arith.index_cast %t : index to i64
  %v = arith.addi %ti, %one : i64
  kernelir.store %v, %slots[%t] : memref<64xi64, #gpu.address_space<workgroup>>
  // The barrier belongs here.
  %n0 = arith.addi %t, %c1 : index
  %n = arith.remui %n0, %c64 : index
  %x = kernelir.load %slots[%n] : memref<64xi64, #gpu.address_space<workgroup>>
  kernelir.store %x, %out[%t] : memref<64xi64>
  kernelir.return
}

kernelir.func @neighbours_synced(%out: memref<64xi64>) attributes {block = array<i64: 64, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %slots = kernelir.shared : memref<64xi64, #gpu.address_space<workgroup>>
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %t = kernelir.thread_id x
  kernelir.store %zero, %slots[%t] : memref<64xi64, #gpu.address_space<workgroup>>
  kernelir.barrier
  %ti = arith.index_cast %t : index to i64
  %v = arith.addi %ti, %one : i64
  kernelir.store %v, %slots[%t] : memref<64xi64, #gpu.address_space<workgroup>>
  kernelir.barrier
  %n0 = arith.addi %t, %c1 : index
  %n = arith.remui %n0, %c64 : index
  %x = kernelir.load %slots[%n] : memref<64xi64, #gpu.address_space<workgroup>>
  kernelir.store %x, %out[%t] : memref<64xi64>
  kernelir.return
}

func.func @sum(%m: memref<64xi64>) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0 : i64
  %s = scf.for %i = %c0 to %c64 step %c1 iter_args(%a = %zero) -> i64 {
    %x = memref.load %m[%i] : memref<64xi64>
    %n = arith.addi %a, %x : i64
    scf.yield %n : i64
  }
  return %s : i64
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %lanes = memref.alloc() : memref<64xi64>
  kernelir.launch @shuffles(%lanes) : memref<64xi64>
  // The lanes the GPU reads, for thread t in lane l of warp base w.
  %zero = arith.constant 0 : i32
  %wrong = scf.for %t = %c0 to %c64 step %c1 iter_args(%bad = %zero) -> i32 {
    %c32 = arith.constant 32 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %l = arith.remui %t, %c32 : index
    %w = arith.subi %t, %l : index
    %a = arith.xori %t, %c1 : index
    %l3 = arith.addi %l, %c3 : index
    %in3 = arith.cmpi ult, %l3, %c32 : index
    %t3 = arith.addi %t, %c3 : index
    %b = arith.select %in3, %t3, %t : index
    %in5 = arith.cmpi uge, %l, %c5 : index
    %t5 = arith.subi %t, %c5 : index
    %c = arith.select %in5, %t5, %t : index
    %d = arith.addi %w, %c7 : index
    %a64 = arith.index_cast %a : index to i64
    %b64 = arith.index_cast %b : index to i64
    %c64_ = arith.index_cast %c : index to i64
    %d64 = arith.index_cast %d : index to i64
    %want = func.call @encode(%a64, %b64, %c64_, %d64) : (i64, i64, i64, i64) -> i64
    %got = memref.load %lanes[%t] : memref<64xi64>
    %ne = arith.cmpi ne, %got, %want : i64
    %inc = arith.extui %ne : i1 to i32
    %next = arith.addi %bad, %inc : i32
    scf.yield %next : i32
  }
  vector.print str "shuffle mismatches: "
  vector.print %wrong : i32

  %racy = memref.alloc() : memref<64xi64>
  kernelir.launch @neighbours(%racy) : memref<64xi64>
  %rs = func.call @sum(%racy) : (memref<64xi64>) -> i64
  vector.print str "missing barrier: "
  vector.print %rs : i64
  %synced = memref.alloc() : memref<64xi64>
  kernelir.launch @neighbours_synced(%synced) : memref<64xi64>
  %ss = func.call @sum(%synced) : (memref<64xi64>) -> i64
  vector.print str "with barrier: "
  vector.print %ss : i64
  return
}
