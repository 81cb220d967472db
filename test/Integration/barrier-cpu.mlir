// Barriers and shuffles on the CPU. Shuffles of every mode deliver exactly
// the lanes the GPU would, in both thread orders. A planted missing barrier
// (each thread reads its neighbour's shared-memory slot right after writing
// its own) gives a result that depends on the order the threads run in, so
// the forward, reversed and shuffled emulations disagree; with the barrier
// they agree.
// The same holds for the barrier that ends the body of a K loop: the
// emulator does not treat the loop's back edge as a barrier.
// RUN: strata-opt %s --convert-kernelir-to-cpu --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils \
// RUN: | FileCheck %s --check-prefixes=CHECK,FORWARD
// RUN: strata-opt %s --convert-kernelir-to-cpu=reverse-order=true --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils \
// RUN: | FileCheck %s --check-prefixes=CHECK,REVERSE
// RUN: strata-opt %s --convert-kernelir-to-cpu=shuffled-order=true --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils \
// RUN: | FileCheck %s --check-prefixes=CHECK,SHUFFLED
// RUN: not strata-opt %s --convert-kernelir-to-cpu="shuffled-order=true reverse-order=true" 2>&1 | FileCheck %s --check-prefix=BOTH

// BOTH: error: reverse-order and shuffled-order exclude each other
// CHECK: shuffle mismatches: 0
// FORWARD-NEXT: missing barrier: 1
// REVERSE-NEXT: missing barrier: 2079
// SHUFFLED-NEXT: missing barrier: 818
// CHECK-NEXT: with barrier: 2080
// FORWARD-NEXT: k loop missing barrier: 8352
// REVERSE-NEXT: k loop missing barrier: 11232
// SHUFFLED-NEXT: k loop missing barrier: 11040
// CHECK-NEXT: k loop with barrier: 8256

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

// A K loop as in a tiled matmul: each iteration stages a chunk of 32
// values in shared memory, a barrier, every thread adds its neighbour's
// slot, and (in the synced kernel) a barrier before the next
// chunk overwrites the slots. Without the second barrier a fast thread
// overwrites a slot a slow one has yet to read.
kernelir.func @k_loop(%in: memref<128xi64>, %out: memref<32xi64>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<32xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c31 = arith.constant 31 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0 : i64
  %t = kernelir.thread_id x
  %sum = scf.for %kt = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (i64) {
    %off = arith.muli %kt, %c32 : index
    %i = arith.addi %off, %t : index
    %x = kernelir.load %in[%i] : memref<128xi64>
    kernelir.store %x, %s[%t] : memref<32xi64, #gpu.address_space<workgroup>>
    kernelir.barrier
    %r1 = arith.addi %t, %c1 : index
    %r = arith.remui %r1, %c32 : index
    %y = kernelir.load %s[%r] : memref<32xi64, #gpu.address_space<workgroup>>
    %next = arith.addi %acc, %y : i64
    kernelir.barrier
    scf.yield %next : i64
  }
  kernelir.store %sum, %out[%t] : memref<32xi64>
  kernelir.return
}

kernelir.func @k_loop_racy(%in: memref<128xi64>, %out: memref<32xi64>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<32xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c31 = arith.constant 31 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0 : i64
  %t = kernelir.thread_id x
  %sum = scf.for %kt = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (i64) {
    %off = arith.muli %kt, %c32 : index
    %i = arith.addi %off, %t : index
    %x = kernelir.load %in[%i] : memref<128xi64>
    kernelir.store %x, %s[%t] : memref<32xi64, #gpu.address_space<workgroup>>
    kernelir.barrier
    %r1 = arith.addi %t, %c1 : index
    %r = arith.remui %r1, %c32 : index
    %y = kernelir.load %s[%r] : memref<32xi64, #gpu.address_space<workgroup>>
    %next = arith.addi %acc, %y : i64
    scf.yield %next : i64
  }
  kernelir.store %sum, %out[%t] : memref<32xi64>
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

  // in[i] = i + 1: every thread sums 4 values; all of them, 8256.
  %c128 = arith.constant 128 : index
  %in = memref.alloc() : memref<128xi64>
  scf.for %i = %c0 to %c128 step %c1 {
    %v0 = arith.index_cast %i : index to i64
    %one = arith.constant 1 : i64
    %v = arith.addi %v0, %one : i64
    memref.store %v, %in[%i] : memref<128xi64>
  }
  %zero64 = arith.constant 0 : i64
  %rk = memref.alloc() : memref<32xi64>
  kernelir.launch @k_loop_racy(%in, %rk) : memref<128xi64>, memref<32xi64>
  %okk = memref.alloc() : memref<32xi64>
  kernelir.launch @k_loop(%in, %okk) : memref<128xi64>, memref<32xi64>
  %c32i = arith.constant 32 : index
  %rks, %oks = scf.for %i = %c0 to %c32i step %c1 iter_args(%a = %zero64, %b = %zero64) -> (i64, i64) {
    %x = memref.load %rk[%i] : memref<32xi64>
    %y = memref.load %okk[%i] : memref<32xi64>
    %a1 = arith.addi %a, %x : i64
    %b1 = arith.addi %b, %y : i64
    scf.yield %a1, %b1 : i64, i64
  }
  vector.print str "k loop missing barrier: "
  vector.print %rks : i64
  vector.print str "k loop with barrier: "
  vector.print %oks : i64
  return
}
