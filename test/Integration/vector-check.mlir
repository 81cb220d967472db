// The emulator's checks of vector accesses: a vector must lie inside its
// buffer as a whole, and start at a multiple of its length, as a GPU's
// vector access must. Aligned vectors run; a
// planted misaligned one and one that runs past the end abort the run,
// naming the kernel and the buffer.
// RUN: strata-opt %s --convert-kernelir-to-cpu=check-bounds=true --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts -o %t.mlir
// RUN: not --crash stdbuf -o0 mlir-runner %t.mlir -e misaligned -entry-point-result=void -shared-libs=%mlir_c_runner_utils 2>&1 \
// RUN: | FileCheck %s --check-prefix=SHIFTED
// RUN: not --crash stdbuf -o0 mlir-runner %t.mlir -e overrun -entry-point-result=void -shared-libs=%mlir_c_runner_utils 2>&1 \
// RUN: | FileCheck %s --check-prefix=PASTEND

// SHIFTED: aligned: 1
// SHIFTED-NEXT: 14
// SHIFTED: misaligned load of argument #0 in kernel shifted
// PASTEND: aligned: 1
// PASTEND-NEXT: 14
// PASTEND: out-of-bounds store of argument #1 in kernel past_end

// Thread t copies elements 4t .. 4t + 3.
kernelir.func @aligned(%in: memref<16xf32>, %out: memref<16xf32>) attributes {block = array<i64: 4, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c4 = arith.constant 4 : index
  %t = kernelir.thread_id x
  %i = arith.muli %t, %c4 : index
  %v = kernelir.load %in[%i] : memref<16xf32> -> vector<4xf32>
  kernelir.store %v, %out[%i] : memref<16xf32> -> vector<4xf32>
  kernelir.return
}

// Elements 4t + 2 .. 4t + 5: inside the buffer for 3 threads, but not at a
// multiple of 4.
kernelir.func @shifted(%in: memref<16xf32>, %out: memref<16xf32>) attributes {block = array<i64: 3, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %t = kernelir.thread_id x
  %s = arith.muli %t, %c4 : index
  %i = arith.addi %s, %c2 : index
  %v = kernelir.load %in[%i] : memref<16xf32> -> vector<4xf32>
  kernelir.store %v, %out[%s] : memref<16xf32> -> vector<4xf32>
  kernelir.return
}

// Thread t writes elements 4t + 4 .. 4t + 7: thread 3 past the end.
kernelir.func @past_end(%in: memref<16xf32>, %out: memref<16xf32>) attributes {block = array<i64: 4, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c4 = arith.constant 4 : index
  %t = kernelir.thread_id x
  %s = arith.muli %t, %c4 : index
  %v = kernelir.load %in[%s] : memref<16xf32> -> vector<4xf32>
  %i = arith.addi %s, %c4 : index
  kernelir.store %v, %out[%i] : memref<16xf32> -> vector<4xf32>
  kernelir.return
}

func.func @copy_aligned() -> memref<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %in = memref.alloc() : memref<16xf32>
  scf.for %i = %c0 to %c16 step %c1 {
    %x = arith.index_cast %i : index to i64
    %f = arith.sitofp %x : i64 to f32
    memref.store %f, %in[%i] : memref<16xf32>
  }
  %out = memref.alloc() : memref<16xf32>
  kernelir.launch @aligned(%in, %out) : memref<16xf32>, memref<16xf32>
  %c14 = arith.constant 14 : index
  %second = memref.load %out[%c1] : memref<16xf32>
  %last = memref.load %out[%c14] : memref<16xf32>
  vector.print str "aligned: "
  vector.print %second : f32
  vector.print %last : f32
  return %in : memref<16xf32>
}

func.func @misaligned() {
  %in = func.call @copy_aligned() : () -> memref<16xf32>
  %out = memref.alloc() : memref<16xf32>
  kernelir.launch @shifted(%in, %out) : memref<16xf32>, memref<16xf32>
  vector.print str "not reached\n"
  return
}

func.func @overrun() {
  %in = func.call @copy_aligned() : () -> memref<16xf32>
  %out = memref.alloc() : memref<16xf32>
  kernelir.launch @past_end(%in, %out) : memref<16xf32>, memref<16xf32>
  vector.print str "not reached\n"
  return
}
