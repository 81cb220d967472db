// The CPU emulation of kernelir.mma on f32 operands (tf32, m16n8k8)
// against the layout of PTX's mma.m16n8k8 .tf32 written out by hand
// (lane = 4 g + t; A value v at row g + 8 (v mod 2), column t + 4 (v / 2);
// B value v at k = t + 4 v, n = g; C and D as for m16n8k16), independently
// of kernelir::getMmaFragmentMap. A is a permutation scaled by
// 1 + 3 * 2^-12, which tf32 (10 mantissa bits, to nearest) rounds to
// 1 + 2^-10; B[k][n] = 8k + n; C = 0.5. So D[r][n] = (8 ((r + 1) mod 8) +
// n) (1 + 2^-10) + 0.5, exactly: any swapped row, column or register, or a
// missing rounding, shows. Forward, reversed and shuffled.
// RUN: strata-opt %s --convert-kernelir-to-cpu --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
// RUN: strata-opt %s --convert-kernelir-to-cpu=reverse-order=true --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
// RUN: strata-opt %s --convert-kernelir-to-cpu=shuffled-order=true --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s

// CHECK: wrong elements: 0
// CHECK-NEXT: D[0][0] = 8.50781
// CHECK-NEXT: D[15][7] = 7.50684

kernelir.func @one_mma(%out: memref<128xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %one = arith.constant 1.000732421875 : f32
  %zero = arith.constant 0.0 : f32
  %t0 = kernelir.thread_id x
  %lane = arith.remui %t0, %c32 : index
  %g = arith.divui %lane, %c4 : index
  %t = arith.remui %lane, %c4 : index
  %g8 = arith.addi %g, %c8 : index
  %t4 = arith.addi %t, %c4 : index
  // A[r][c] = one where c = (r + 1) mod 8.
  %r0 = arith.addi %g, %c1 : index
  %col0 = arith.remui %r0, %c8 : index
  %r8 = arith.addi %g8, %c1 : index
  %col8 = arith.remui %r8, %c8 : index
  %h0 = arith.cmpi eq, %t, %col0 : index
  %a0 = arith.select %h0, %one, %zero : f32
  %h1 = arith.cmpi eq, %t, %col8 : index
  %a1 = arith.select %h1, %one, %zero : f32
  %h2 = arith.cmpi eq, %t4, %col0 : index
  %a2 = arith.select %h2, %one, %zero : f32
  %h3 = arith.cmpi eq, %t4, %col8 : index
  %a3 = arith.select %h3, %one, %zero : f32
  %A = vector.from_elements %a0, %a1, %a2, %a3 : vector<4x1xf32>
  %bk0 = arith.muli %t, %c8 : index
  %bi0 = arith.addi %bk0, %g : index
  %bn0 = arith.index_cast %bi0 : index to i32
  %b0 = arith.sitofp %bn0 : i32 to f32
  %bk1 = arith.muli %t4, %c8 : index
  %bi1 = arith.addi %bk1, %g : index
  %bn1 = arith.index_cast %bi1 : index to i32
  %b1 = arith.sitofp %bn1 : i32 to f32
  %B = vector.from_elements %b0, %b1 : vector<2x1xf32>
  %C = arith.constant dense<0.5> : vector<2x2xf32>
  %D = kernelir.mma %A, %B, %C : vector<4x1xf32>, vector<2x1xf32> -> vector<2x2xf32>
  %c2 = arith.constant 2 : index
  %t2 = arith.muli %t, %c2 : index
  %t2p1 = arith.addi %t2, %c1 : index
  %d0 = vector.extract %D[0, 0] : f32 from vector<2x2xf32>
  %dr0 = arith.muli %g, %c8 : index
  %di0 = arith.addi %dr0, %t2 : index
  kernelir.store %d0, %out[%di0] : memref<128xf32>
  %d1 = vector.extract %D[0, 1] : f32 from vector<2x2xf32>
  %di1 = arith.addi %dr0, %t2p1 : index
  kernelir.store %d1, %out[%di1] : memref<128xf32>
  %d2 = vector.extract %D[1, 0] : f32 from vector<2x2xf32>
  %dr2 = arith.muli %g8, %c8 : index
  %di2 = arith.addi %dr2, %t2 : index
  kernelir.store %d2, %out[%di2] : memref<128xf32>
  %d3 = vector.extract %D[1, 1] : f32 from vector<2x2xf32>
  %di3 = arith.addi %dr2, %t2p1 : index
  kernelir.store %d3, %out[%di3] : memref<128xf32>
  kernelir.return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c127 = arith.constant 127 : index
  %c128 = arith.constant 128 : index
  %half = arith.constant 0.5 : f32
  %scale = arith.constant 1.0009765625 : f32
  %out = memref.alloc() : memref<128xf32>
  kernelir.launch @one_mma(%out) : memref<128xf32>
  // Element i = 8 r + n must be (8 ((r + 1) mod 8) + n) (1 + 2^-10) + 0.5.
  %wrong = scf.for %i = %c0 to %c128 step %c1 iter_args(%w = %c0) -> index {
    %r = arith.divui %i, %c8 : index
    %n = arith.remui %i, %c8 : index
    %r1 = arith.addi %r, %c1 : index
    %rm = arith.remui %r1, %c8 : index
    %base = arith.muli %rm, %c8 : index
    %e = arith.addi %base, %n : index
    %ei = arith.index_cast %e : index to i32
    %ef = arith.sitofp %ei : i32 to f32
    %scaled = arith.mulf %ef, %scale : f32
    %want = arith.addf %scaled, %half : f32
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
