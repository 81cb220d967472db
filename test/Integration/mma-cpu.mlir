// The CPU emulation of kernelir.mma against the layout of PTX's
// mma.m16n8k16 written out by hand (lane = 4 g + t; A value v at row
// g + 8 ((v / 2) mod 2), column 2t + v mod 2 + 8 (v / 4); B value v at k =
// 2t + v mod 2 + 8 (v / 2), n = g; C and D value v at row g + 8 (v / 2),
// column 2t + v mod 2), independently of kernelir::getMmaFragmentMap.
// A is a permutation (A[r][(r + 1) mod 16] = 1) and B[k][n] = 8k + n, so
// D[r][n] = B[(r + 1) mod 16][n] + C[r][n] with C[r][n] = 0.5: any swapped
// row, column or register shows. Forward, reversed and shuffled.
// RUN: strata-opt %s --convert-kernelir-to-cpu --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
// RUN: strata-opt %s --convert-kernelir-to-cpu=reverse-order=true --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
// RUN: strata-opt %s --convert-kernelir-to-cpu=shuffled-order=true --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s

// CHECK: wrong elements: 0
// CHECK-NEXT: D[0][0] = 8.5
// CHECK-NEXT: D[15][7] = 7.5

kernelir.func @one_mma(%out: memref<128xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %one = arith.constant 1.0 : f16
  %zero = arith.constant 0.0 : f16
  %t0 = kernelir.thread_id x
  %lane = arith.remui %t0, %c32 : index
  %g = arith.divui %lane, %c4 : index
  %t = arith.remui %lane, %c4 : index
  %t2 = arith.muli %t, %c2 : index
  %g8 = arith.addi %g, %c8 : index
  %t2p1 = arith.addi %t2, %c1 : index
  %t2p8 = arith.addi %t2, %c8 : index
  %t2p9 = arith.addi %t2p8, %c1 : index
  %ar0 = arith.addi %g, %c1 : index
  %arm0 = arith.remui %ar0, %c16 : index
  %ahit0 = arith.cmpi eq, %t2, %arm0 : index
  %a0 = arith.select %ahit0, %one, %zero : f16
  %ar1 = arith.addi %g, %c1 : index
  %arm1 = arith.remui %ar1, %c16 : index
  %ahit1 = arith.cmpi eq, %t2p1, %arm1 : index
  %a1 = arith.select %ahit1, %one, %zero : f16
  %ar2 = arith.addi %g8, %c1 : index
  %arm2 = arith.remui %ar2, %c16 : index
  %ahit2 = arith.cmpi eq, %t2, %arm2 : index
  %a2 = arith.select %ahit2, %one, %zero : f16
  %ar3 = arith.addi %g8, %c1 : index
  %arm3 = arith.remui %ar3, %c16 : index
  %ahit3 = arith.cmpi eq, %t2p1, %arm3 : index
  %a3 = arith.select %ahit3, %one, %zero : f16
  %ar4 = arith.addi %g, %c1 : index
  %arm4 = arith.remui %ar4, %c16 : index
  %ahit4 = arith.cmpi eq, %t2p8, %arm4 : index
  %a4 = arith.select %ahit4, %one, %zero : f16
  %ar5 = arith.addi %g, %c1 : index
  %arm5 = arith.remui %ar5, %c16 : index
  %ahit5 = arith.cmpi eq, %t2p9, %arm5 : index
  %a5 = arith.select %ahit5, %one, %zero : f16
  %ar6 = arith.addi %g8, %c1 : index
  %arm6 = arith.remui %ar6, %c16 : index
  %ahit6 = arith.cmpi eq, %t2p8, %arm6 : index
  %a6 = arith.select %ahit6, %one, %zero : f16
  %ar7 = arith.addi %g8, %c1 : index
  %arm7 = arith.remui %ar7, %c16 : index
  %ahit7 = arith.cmpi eq, %t2p9, %arm7 : index
  %a7 = arith.select %ahit7, %one, %zero : f16
  %A = vector.from_elements %a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7 : vector<4x2xf16>
  %bk0 = arith.muli %t2, %c8 : index
  %bi0 = arith.addi %bk0, %g : index
  %bn0 = arith.index_cast %bi0 : index to i32
  %b0 = arith.sitofp %bn0 : i32 to f16
  %bk1 = arith.muli %t2p1, %c8 : index
  %bi1 = arith.addi %bk1, %g : index
  %bn1 = arith.index_cast %bi1 : index to i32
  %b1 = arith.sitofp %bn1 : i32 to f16
  %bk2 = arith.muli %t2p8, %c8 : index
  %bi2 = arith.addi %bk2, %g : index
  %bn2 = arith.index_cast %bi2 : index to i32
  %b2 = arith.sitofp %bn2 : i32 to f16
  %bk3 = arith.muli %t2p9, %c8 : index
  %bi3 = arith.addi %bk3, %g : index
  %bn3 = arith.index_cast %bi3 : index to i32
  %b3 = arith.sitofp %bn3 : i32 to f16
  %B = vector.from_elements %b0, %b1, %b2, %b3 : vector<2x2xf16>
  %C = arith.constant dense<0.5> : vector<2x2xf32>
  %D = kernelir.mma %A, %B, %C : vector<4x2xf16>, vector<2x2xf16> -> vector<2x2xf32>
  %d0 = vector.extract %D[0, 0] : f32 from vector<2x2xf32>
  %dr0 = arith.muli %g, %c8 : index
  %di0 = arith.addi %dr0, %t2 : index
  kernelir.store %d0, %out[%di0] : memref<128xf32>
  %d1 = vector.extract %D[0, 1] : f32 from vector<2x2xf32>
  %dr1 = arith.muli %g, %c8 : index
  %di1 = arith.addi %dr1, %t2p1 : index
  kernelir.store %d1, %out[%di1] : memref<128xf32>
  %d2 = vector.extract %D[1, 0] : f32 from vector<2x2xf32>
  %dr2 = arith.muli %g8, %c8 : index
  %di2 = arith.addi %dr2, %t2 : index
  kernelir.store %d2, %out[%di2] : memref<128xf32>
  %d3 = vector.extract %D[1, 1] : f32 from vector<2x2xf32>
  %dr3 = arith.muli %g8, %c8 : index
  %di3 = arith.addi %dr3, %t2p1 : index
  kernelir.store %d3, %out[%di3] : memref<128xf32>
  kernelir.return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c127 = arith.constant 127 : index
  %c128 = arith.constant 128 : index
  %half = arith.constant 0.5 : f32
  %out = memref.alloc() : memref<128xf32>
  kernelir.launch @one_mma(%out) : memref<128xf32>
  // Element i = 8 r + n must be 8 ((r + 1) mod 16) + n + 0.5.
  %wrong = scf.for %i = %c0 to %c128 step %c1 iter_args(%w = %c0) -> index {
    %r = arith.divui %i, %c8 : index
    %n = arith.remui %i, %c8 : index
    %r1 = arith.addi %r, %c1 : index
    %rm = arith.remui %r1, %c16 : index
    %base = arith.muli %rm, %c8 : index
    %e = arith.addi %base, %n : index
    %ei = arith.index_cast %e : index to i32
    %ef = arith.sitofp %ei : i32 to f32
    %want = arith.addf %ef, %half : f32
    %got = memref.load %out[%i] : memref<128xf32>
    %ok = arith.cmpf oeq, %got, %want : f32
    %inc = arith.select %ok, %c0, %c1 : index
    %next = arith.addi %w, %inc : index
    scf.yield %next : index
  }
  vector.print str "wrong elements: "
  vector.print %wrong : index
  %first = memref.load %out[%c0] : memref<128xf32>
  %last = memref.load %out[%c127] : memref<128xf32>
  vector.print str "D[0][0] = "
  vector.print %first : f32
  vector.print str "D[15][7] = "
  vector.print %last : f32
  return
}
