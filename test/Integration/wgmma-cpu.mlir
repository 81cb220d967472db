// The CPU emulation of kernelir.wgmma against PTX's wgmma layouts written
// out by hand: operands in shared memory as [k blocks][rows][8 halves]
// (A(r, k) at [k / 8][r][k mod 8], B(k, n) at [k / 8][n][k mod 8]), stored
// here through those indices, read by the emulation through the
// descriptor's byte strides; and D's layout (warp q, lane = 4 g + t:
// element [j][h][i] is D(16 q + g + 8 h, 8 j + 2 t + i)), independently of
// the code that builds it. m64n16k32: A is a permutation (A[r][k] = 1 where
// k = (r + 1) mod 32) and B[k][n] = 16 k + n, so D[r][n] = 16 ((r + 1) mod
// 32) + n + 0.5 with C = 0.5: any swapped row, column, k block or register
// shows. Forward, reversed and shuffled.
// RUN: strata-opt %s --convert-kernelir-to-cpu --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
// RUN: strata-opt %s --convert-kernelir-to-cpu=reverse-order=true --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
// RUN: strata-opt %s --convert-kernelir-to-cpu=shuffled-order=true --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s

// CHECK: wrong elements: 0
// CHECK-NEXT: D[0][0] = 16.5
// CHECK-NEXT: D[63][15] = 15.5

kernelir.func @one_wgmma(%out: memref<1024xf32>) attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<4x64x8xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<4x16x8xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  %c2048 = arith.constant 2048 : index
  %one = arith.constant 1.0 : f16
  %zero = arith.constant 0.0 : f16
  %t = kernelir.thread_id x
  // A(r, k) at [k / 8][r][k mod 8].
  scf.for %e = %t to %c2048 step %c128 {
    %r = arith.divui %e, %c32 : index
    %k = arith.remui %e, %c32 : index
    %r1 = arith.addi %r, %c1 : index
    %rm = arith.remui %r1, %c32 : index
    %hit = arith.cmpi eq, %k, %rm : index
    %x = arith.select %hit, %one, %zero : f16
    %kb = arith.divui %k, %c8 : index
    %kw = arith.remui %k, %c8 : index
    kernelir.store %x, %a[%kb, %r, %kw] : memref<4x64x8xf16, #gpu.address_space<workgroup>>
  }
  // B(k, n) = 16 k + n at [k / 8][n][k mod 8].
  scf.for %e = %t to %c512 step %c128 {
    %k = arith.divui %e, %c16 : index
    %n = arith.remui %e, %c16 : index
    %ei = arith.index_cast %e : index to i32
    %x = arith.sitofp %ei : i32 to f16
    %kb = arith.divui %k, %c8 : index
    %kw = arith.remui %k, %c8 : index
    kernelir.store %x, %b[%kb, %n, %kw] : memref<4x16x8xf16, #gpu.address_space<workgroup>>
  }
  kernelir.proxy_fence
  kernelir.barrier
  %C = arith.constant dense<0.5> : vector<2x2x2xf32>
  %D = kernelir.wgmma %a[%c0, %c0, %c0], %b[%c0, %c0, %c0], %C k 32 : memref<4x64x8xf16, #gpu.address_space<workgroup>>, memref<4x16x8xf16, #gpu.address_space<workgroup>>, vector<2x2x2xf32>
  %q = arith.divui %t, %c32 : index
  %lane = arith.remui %t, %c32 : index
  %g = arith.divui %lane, %c4 : index
  %tt = arith.remui %lane, %c4 : index
  %q16 = arith.muli %q, %c16 : index
  %row0 = arith.addi %q16, %g : index
  %col0 = arith.muli %tt, %c2 : index
  %d000 = vector.extract %D[0, 0, 0] : f32 from vector<2x2x2xf32>
  %r000 = arith.addi %row0, %c0 : index
  %cc000 = arith.addi %col0, %c0 : index
  %rr000 = arith.muli %r000, %c16 : index
  %at000 = arith.addi %rr000, %cc000 : index
  kernelir.store %d000, %out[%at000] : memref<1024xf32>
  %d001 = vector.extract %D[0, 0, 1] : f32 from vector<2x2x2xf32>
  %r001 = arith.addi %row0, %c0 : index
  %cc001 = arith.addi %col0, %c1 : index
  %rr001 = arith.muli %r001, %c16 : index
  %at001 = arith.addi %rr001, %cc001 : index
  kernelir.store %d001, %out[%at001] : memref<1024xf32>
  %d010 = vector.extract %D[0, 1, 0] : f32 from vector<2x2x2xf32>
  %r010 = arith.addi %row0, %c8 : index
  %cc010 = arith.addi %col0, %c0 : index
  %rr010 = arith.muli %r010, %c16 : index
  %at010 = arith.addi %rr010, %cc010 : index
  kernelir.store %d010, %out[%at010] : memref<1024xf32>
  %d011 = vector.extract %D[0, 1, 1] : f32 from vector<2x2x2xf32>
  %r011 = arith.addi %row0, %c8 : index
  %cc011 = arith.addi %col0, %c1 : index
  %rr011 = arith.muli %r011, %c16 : index
  %at011 = arith.addi %rr011, %cc011 : index
  kernelir.store %d011, %out[%at011] : memref<1024xf32>
  %d100 = vector.extract %D[1, 0, 0] : f32 from vector<2x2x2xf32>
  %r100 = arith.addi %row0, %c0 : index
  %cc100 = arith.addi %col0, %c8 : index
  %rr100 = arith.muli %r100, %c16 : index
  %at100 = arith.addi %rr100, %cc100 : index
  kernelir.store %d100, %out[%at100] : memref<1024xf32>
  %d101 = vector.extract %D[1, 0, 1] : f32 from vector<2x2x2xf32>
  %r101 = arith.addi %row0, %c0 : index
  %cc101 = arith.addi %col0, %c9 : index
  %rr101 = arith.muli %r101, %c16 : index
  %at101 = arith.addi %rr101, %cc101 : index
  kernelir.store %d101, %out[%at101] : memref<1024xf32>
  %d110 = vector.extract %D[1, 1, 0] : f32 from vector<2x2x2xf32>
  %r110 = arith.addi %row0, %c8 : index
  %cc110 = arith.addi %col0, %c8 : index
  %rr110 = arith.muli %r110, %c16 : index
  %at110 = arith.addi %rr110, %cc110 : index
  kernelir.store %d110, %out[%at110] : memref<1024xf32>
  %d111 = vector.extract %D[1, 1, 1] : f32 from vector<2x2x2xf32>
  %r111 = arith.addi %row0, %c8 : index
  %cc111 = arith.addi %col0, %c9 : index
  %rr111 = arith.muli %r111, %c16 : index
  %at111 = arith.addi %rr111, %cc111 : index
  kernelir.store %d111, %out[%at111] : memref<1024xf32>
  kernelir.return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c1023 = arith.constant 1023 : index
  %c1024 = arith.constant 1024 : index
  %half = arith.constant 0.5 : f32
  %out = memref.alloc() : memref<1024xf32>
  kernelir.launch @one_wgmma(%out) : memref<1024xf32>
  // Element i = 16 r + n must be 16 ((r + 1) mod 32) + n + 0.5.
  %wrong = scf.for %i = %c0 to %c1024 step %c1 iter_args(%w = %c0) -> index {
    %r = arith.divui %i, %c16 : index
    %n = arith.remui %i, %c16 : index
    %r1 = arith.addi %r, %c1 : index
    %rm = arith.remui %r1, %c32 : index
    %base = arith.muli %rm, %c16 : index
    %e = arith.addi %base, %n : index
    %ei = arith.index_cast %e : index to i32
    %ef = arith.sitofp %ei : i32 to f32
    %want = arith.addf %ef, %half : f32
    %got = memref.load %out[%i] : memref<1024xf32>
    %ok = arith.cmpf oeq, %got, %want : f32
    %inc = arith.select %ok, %c0, %c1 : index
    %next = arith.addi %w, %inc : index
    scf.yield %next : index
  }
  vector.print str "wrong elements: "
  vector.print %wrong : index
  %first = memref.load %out[%c0] : memref<1024xf32>
  %last = memref.load %out[%c1023] : memref<1024xf32>
  vector.print str "D[0][0] = "
  vector.print %first : f32
  vector.print str "D[63][15] = "
  vector.print %last : f32
  return
}
