// RUN: strata-opt %s --convert-tileir-to-kernelir --canonicalize --cse | FileCheck %s
// RUN: strata-opt %s '--convert-tileir-to-kernelir=tensor-cores=false' --canonicalize --cse | FileCheck %s --check-prefix=FMA

// f16 operands widened to f32 multiply on tensor cores. A 17 x 19 product
// over k = 40 in one 32 x 16 tile of 64 threads: 2 warps, 2 x 2 mma tiles
// of 16 x 8, a warp per column of tiles (two A fragments, one B fragment
// per step of 16 k). The chunks are staged as f16 (the operands before their
// widening; zero past the domain or k: A's rows, plain loads of rows of 40
// halves, are copied asynchronously 8 halves at a time; B's chunk is n x k
// of a k x n matrix, a transposition the threads store), so that every
// fragment register is a pair of neighbours in k and the warp loads a
// fragment with one kernelir.ldmatrix (x4 for A's 16 x 16, x2 for B's 8 x
// 16). The chunks' rows are padded from 16 to 24 halves (12 words): the 8
// rows of an 8 x 8 matrix start in banks 0, 12, 24, 4, 16, 28, 8, 20, so
// each phase of the ldmatrix hits 32 banks. Each
// thread's result elements are its lane's accumulator elements, stored
// through the epilogue under the domain's guard.
// CHECK-LABEL: kernelir.func @host_kernel
// CHECK-DAG: %[[RHS:.*]] = kernelir.shared : memref<16x24xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[LHS:.*]] = kernelir.shared : memref<32x24xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[ACC0:.*]] = arith.constant dense<0.000000e+00> : vector<2x2xf32>
// CHECK: %[[WARP:.*]] = kernelir.warp_id
// CHECK: %[[LANE:.*]] = kernelir.lane_id
// CHECK: %[[ACC:.*]]:2 = scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args(%[[A0:.*]] = %[[ACC0]], %[[A1:.*]] = %[[ACC0]]) -> (vector<2x2xf32>, vector<2x2xf32>) {
// CHECK: kernelir.async_copy %{{.*}}, %[[LHS]][%{{.*}}, %{{.*}}] elements 8 if %{{.*}} : memref<17x40xf16>
// CHECK: kernelir.load %{{.*}} : memref<40x19xf16>
// CHECK: kernelir.store %{{.*}}, %[[RHS]]
// CHECK: kernelir.async_commit
// CHECK-NEXT: kernelir.async_wait pending 0
// CHECK-NEXT: kernelir.barrier
// CHECK: %[[FA0:.*]] = kernelir.ldmatrix %[[LHS]][%{{.*}}, %c0] : memref<32x24xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: %[[FA1:.*]] = kernelir.ldmatrix %[[LHS]][%{{.*}}, %c0] : memref<32x24xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: %[[FB:.*]] = kernelir.ldmatrix %[[RHS]][%{{.*}}, %c0] : memref<16x24xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// CHECK: %[[D0:.*]] = kernelir.mma %[[FA0]], %[[FB]], %[[A0]] : vector<4x2xf16>, vector<2x2xf16> -> vector<2x2xf32>
// CHECK: %[[D1:.*]] = kernelir.mma %[[FA1]], %[[FB]], %[[A1]] : vector<4x2xf16>, vector<2x2xf16> -> vector<2x2xf32>
// CHECK: kernelir.barrier
// CHECK: scf.yield %[[D0]], %[[D1]]
// CHECK: %[[E:.*]] = vector.extract %[[ACC]]#0[0, 0] : f32 from vector<2x2xf32>
// CHECK: %[[Y:.*]] = arith.truncf %[[E]] : f32 to f16
// CHECK: kernelir.store %[[Y]], %{{.*}} if %{{.*}} : memref<17x19xf16>
// Without tensor cores: chunks of halves (as with them), widened as they
// are read, fused multiply-adds.
// FMA-LABEL: kernelir.func @host_kernel
// FMA: %[[A:.*]] = kernelir.shared : memref<32x16xf16, #gpu.address_space<workgroup>>
// FMA: %[[B:.*]] = kernelir.shared : memref<16x16xf16, #gpu.address_space<workgroup>>
// FMA-NOT: kernelir.mma
// FMA: %[[X:.*]] = kernelir.load %[[A]]
// FMA: %[[XW:.*]] = arith.extf %[[X]] : f16 to f32
// FMA: %[[W:.*]] = kernelir.load %[[B]]
// FMA: %[[WW:.*]] = arith.extf %[[W]] : f16 to f32
// FMA: math.fma %[[XW]], %[[WW]]
func.func @host(%a: tensor<17x40xf16>, %b: tensor<40x19xf16>) -> tensor<17x19xf16> {
  %r = tileir.kernel ins(%a, %b : tensor<17x40xf16>, tensor<40x19xf16>) -> tensor<17x19xf16> domain [17, 19] tile [32, 16] threads 64 {
  ^bb0(%ab: memref<17x40xf16>, %bb: memref<40x19xf16>, %out: memref<17x19xf16>):
    %c32 = arith.constant 32 : index
    %c16 = arith.constant 16 : index
    %p0 = tileir.program_id 0
    %p1 = tileir.program_id 1
    %o0 = arith.muli %p0, %c32 : index
    %o1 = arith.muli %p1, %c16 : index
    %c = tileir.contract [%o0, %o1] k 40 step 16 : !tileir.tile<32x16xf32> lhs {
    ^bb0(%i: index, %k: index):
      %x = loopir.load %ab[%i, %k] : memref<17x40xf16>
      %xw = arith.extf %x : f16 to f32
      tileir.yield %xw : f32
    } rhs {
    ^bb0(%j: index, %k: index):
      %w = loopir.load %bb[%k, %j] : memref<40x19xf16>
      %ww = arith.extf %w : f16 to f32
      tileir.yield %ww : f32
    }
    %y = tileir.map ins(%c : !tileir.tile<32x16xf32>) -> !tileir.tile<32x16xf16> {
    ^bb0(%e: f32):
      %h = arith.truncf %e : f32 to f16
      tileir.yield %h : f16
    }
    tileir.store %y, %out[%o0, %o1] : !tileir.tile<32x16xf16>, memref<17x19xf16>
  }
  return %r : tensor<17x19xf16>
}
