// The emulator's bounds check: a planted out-of-bounds store (thread 16 of
// a 16-element buffer) aborts the run naming the kernel and the buffer (the
// run is unbuffered so that what it printed before survives the abort); a
// guard that stops it passes.
// RUN: strata-opt %s --convert-kernelir-to-cpu=check-bounds=true --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | not --crash stdbuf -o0 mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils 2>&1 \
// RUN: | FileCheck %s

// CHECK: guarded: ok
// CHECK: out-of-bounds store of argument #0 in kernel overrun

kernelir.func @guarded(%out: memref<16xf32>) attributes {block = array<i64: 17, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c16 = arith.constant 16 : index
  %t = kernelir.thread_id x
  %ok = arith.cmpi ult, %t, %c16 : index
  %one = arith.constant 1.0 : f32
  kernelir.store %one, %out[%t] if %ok : memref<16xf32>
  kernelir.return
}

kernelir.func @overrun(%out: memref<16xf32>) attributes {block = array<i64: 17, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %t = kernelir.thread_id x
  %one = arith.constant 1.0 : f32
  kernelir.store %one, %out[%t] : memref<16xf32>
  kernelir.return
}

func.func @main() {
  %buf = memref.alloc() : memref<16xf32>
  kernelir.launch @guarded(%buf) : memref<16xf32>
  vector.print str "guarded: ok\n"
  kernelir.launch @overrun(%buf) : memref<16xf32>
  vector.print str "not reached\n"
  return
}
