// Attention's online-softmax fold of halves on the Q-tile schedule, on
// tensor cores: per chunk of 64 keys (one copy of K's and V's chunks into
// shared memory, rows padded by 16 bytes), each of the 8 warps multiplies
// the scores of its 16 rows and 32 keys (S = Q . K^T: q's A fragments
// loaded once, K's B fragments by ldmatrix), folds the rows' maxima (a
// row's 4 lanes by xor shuffles) and sums, and accumulates P . V with the
// weights rounded to f16 as A fragments and V's chunk as B fragments
// (ldmatrix .trans). The causal mask (a select of -inf on the score,
// through its rounding) skips the chunks in every row's future. The two
// warps of a row group post their folds to shared memory (warp, row,
// component), which the row's threads combine.
// RUN: strata-opt %s -split-input-file --convert-tileir-to-kernelir | FileCheck %s
// RUN: strata-opt %s -split-input-file --convert-tileir-to-kernelir=tensor-cores=false | FileCheck %s --check-prefix=FMA

// CHECK-LABEL: kernelir.func @causal_kernel
// CHECK-DAG: %[[K:.*]] = kernelir.shared : memref<64x24xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[V:.*]] = kernelir.shared : memref<64x16xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[POSTS:.*]] = kernelir.shared : memref<2x64x10xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for %[[FIRST:.*]] = %{{.*}} to %c100 step %c64{{.*}} iter_args
// CHECK-COUNT-4: arith.cmpi sge
// CHECK: kernelir.barrier
// CHECK: kernelir.barrier
// CHECK: %[[TRIPS:.*]] = arith.select %{{.*}}, %c0{{.*}}, %c1{{.*}} : index
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %[[TRIPS]] step %c1
// CHECK: kernelir.ldmatrix %[[K]][%{{.*}}, %c0{{.*}}] : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// CHECK: kernelir.mma
// CHECK: kernelir.shuffle xor %{{.*}}, %c2_i32
// CHECK: kernelir.shuffle xor %{{.*}}, %c1_i32
// CHECK: math.exp
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: kernelir.ldmatrix %[[V]][%{{.*}}, %c0{{.*}}] transpose
// CHECK: kernelir.mma
// CHECK: kernelir.store %{{.*}}, %[[POSTS]]
// CHECK: kernelir.barrier
// CHECK: kernelir.load %[[POSTS]]
// FMA-LABEL: kernelir.func @causal_kernel
// FMA-NOT: kernelir.mma
// FMA: kernelir.return
func.func @causal(%q: tensor<1x100x16xf16>, %k: tensor<1x100x16xf16>, %v: tensor<1x100x8xf16>) -> tensor<1x100x8xf16> {
  %r = tileir.kernel ins(%q, %k, %v : tensor<1x100x16xf16>, tensor<1x100x16xf16>, tensor<1x100x8xf16>) -> tensor<1x100x8xf16> domain [1, 100] tile [1, 64] threads 256 {
  ^bb0(%qb: memref<1x100x16xf16>, %kb: memref<1x100x16xf16>, %vb: memref<1x100x8xf16>, %out: memref<1x100x8xf16>):
    %one = arith.constant 1.0 : f32
    %scale = arith.constant 0.25 : f32
    %ninf = arith.constant 0xFC00 : f16
    %ahead1 = arith.constant 1 : i64
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %h = tileir.point 0
    %i = tileir.point 1
    %row = arith.index_cast %i : index to i64
    %m, %l, %o0, %o1, %o2, %o3, %o4, %o5, %o6, %o7 = tileir.composite_fold (%j) in [100] identity(0xFF800000 : f32, 0.0 : f32, 0.0 : f32, 0.0 : f32, 0.0 : f32, 0.0 : f32, 0.0 : f32, 0.0 : f32, 0.0 : f32, 0.0 : f32) {
      %key = arith.index_cast %j : index to i64
      %ahead = arith.subi %key, %row : i64
      %future = arith.cmpi sge, %ahead, %ahead1 : i64
      %dot = loopir.reduce add (%d) in [16] : f32 {
        %x = loopir.load %qb[%h, %i, %d] : memref<1x100x16xf16>
        %xw = arith.extf %x : f16 to f32
        %y = loopir.load %kb[%h, %j, %d] : memref<1x100x16xf16>
        %yw = arith.extf %y : f16 to f32
        %p = arith.mulf %xw, %yw : f32
        loopir.yield %p : f32
      }
      %scaled = arith.mulf %dot, %scale : f32
      %rounded = arith.truncf %scaled : f32 to f16
      %masked = arith.select %future, %ninf, %rounded : f16
      %score = arith.extf %masked : f16 to f32
      %v0 = loopir.load %vb[%h, %j, %c0] : memref<1x100x8xf16>
      %w0 = arith.extf %v0 : f16 to f32
      %v1 = loopir.load %vb[%h, %j, %c1] : memref<1x100x8xf16>
      %w1 = arith.extf %v1 : f16 to f32
      %v2 = loopir.load %vb[%h, %j, %c2] : memref<1x100x8xf16>
      %w2 = arith.extf %v2 : f16 to f32
      %v3 = loopir.load %vb[%h, %j, %c3] : memref<1x100x8xf16>
      %w3 = arith.extf %v3 : f16 to f32
      %v4 = loopir.load %vb[%h, %j, %c4] : memref<1x100x8xf16>
      %w4 = arith.extf %v4 : f16 to f32
      %v5 = loopir.load %vb[%h, %j, %c5] : memref<1x100x8xf16>
      %w5 = arith.extf %v5 : f16 to f32
      %v6 = loopir.load %vb[%h, %j, %c6] : memref<1x100x8xf16>
      %w6 = arith.extf %v6 : f16 to f32
      %v7 = loopir.load %vb[%h, %j, %c7] : memref<1x100x8xf16>
      %w7 = arith.extf %v7 : f16 to f32
      tileir.yield %score, %one, %w0, %w1, %w2, %w3, %w4, %w5, %w6, %w7 : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
    } combine {
    ^bb0(%x0: f32, %x1: f32, %x2: f32, %x3: f32, %x4: f32, %x5: f32, %x6: f32, %x7: f32, %x8: f32, %x9: f32, %y0: f32, %y1: f32, %y2: f32, %y3: f32, %y4: f32, %y5: f32, %y6: f32, %y7: f32, %y8: f32, %y9: f32):
      %m = arith.maximumf %x0, %y0 : f32
      %xe = arith.cmpf oeq, %x0, %m : f32
      %xd = arith.subf %x0, %m : f32
      %xx = math.exp %xd : f32
      %xs = arith.select %xe, %one, %xx : f32
      %ye = arith.cmpf oeq, %y0, %m : f32
      %yd = arith.subf %y0, %m : f32
      %yx = math.exp %yd : f32
      %ys = arith.select %ye, %one, %yx : f32
      %a1 = arith.mulf %x1, %xs : f32
      %b1 = arith.mulf %y1, %ys : f32
      %s1 = arith.addf %a1, %b1 : f32
      %a2 = arith.mulf %x2, %xs : f32
      %b2 = arith.mulf %y2, %ys : f32
      %s2 = arith.addf %a2, %b2 : f32
      %a3 = arith.mulf %x3, %xs : f32
      %b3 = arith.mulf %y3, %ys : f32
      %s3 = arith.addf %a3, %b3 : f32
      %a4 = arith.mulf %x4, %xs : f32
      %b4 = arith.mulf %y4, %ys : f32
      %s4 = arith.addf %a4, %b4 : f32
      %a5 = arith.mulf %x5, %xs : f32
      %b5 = arith.mulf %y5, %ys : f32
      %s5 = arith.addf %a5, %b5 : f32
      %a6 = arith.mulf %x6, %xs : f32
      %b6 = arith.mulf %y6, %ys : f32
      %s6 = arith.addf %a6, %b6 : f32
      %a7 = arith.mulf %x7, %xs : f32
      %b7 = arith.mulf %y7, %ys : f32
      %s7 = arith.addf %a7, %b7 : f32
      %a8 = arith.mulf %x8, %xs : f32
      %b8 = arith.mulf %y8, %ys : f32
      %s8 = arith.addf %a8, %b8 : f32
      %a9 = arith.mulf %x9, %xs : f32
      %b9 = arith.mulf %y9, %ys : f32
      %s9 = arith.addf %a9, %b9 : f32
      tileir.yield %m, %s1, %s2, %s3, %s4, %s5, %s6, %s7, %s8, %s9 : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
    }
    %n0 = arith.divf %o0, %l : f32
    %t0 = arith.truncf %n0 : f32 to f16
    loopir.store %t0, %out[%h, %i, %c0] : memref<1x100x8xf16>
    %n1 = arith.divf %o1, %l : f32
    %t1 = arith.truncf %n1 : f32 to f16
    loopir.store %t1, %out[%h, %i, %c1] : memref<1x100x8xf16>
    %n2 = arith.divf %o2, %l : f32
    %t2 = arith.truncf %n2 : f32 to f16
    loopir.store %t2, %out[%h, %i, %c2] : memref<1x100x8xf16>
    %n3 = arith.divf %o3, %l : f32
    %t3 = arith.truncf %n3 : f32 to f16
    loopir.store %t3, %out[%h, %i, %c3] : memref<1x100x8xf16>
    %n4 = arith.divf %o4, %l : f32
    %t4 = arith.truncf %n4 : f32 to f16
    loopir.store %t4, %out[%h, %i, %c4] : memref<1x100x8xf16>
    %n5 = arith.divf %o5, %l : f32
    %t5 = arith.truncf %n5 : f32 to f16
    loopir.store %t5, %out[%h, %i, %c5] : memref<1x100x8xf16>
    %n6 = arith.divf %o6, %l : f32
    %t6 = arith.truncf %n6 : f32 to f16
    loopir.store %t6, %out[%h, %i, %c6] : memref<1x100x8xf16>
    %n7 = arith.divf %o7, %l : f32
    %t7 = arith.truncf %n7 : f32 to f16
    loopir.store %t7, %out[%h, %i, %c7] : memref<1x100x8xf16>
  }
  return %r : tensor<1x100x8xf16>
}

// -----

// A monoid that is not online softmax's (its maximum a minimum): the fold
// keeps its FMA schedule.
// CHECK-LABEL: kernelir.func @not_softmax_kernel
// CHECK-NOT: kernelir.mma
// CHECK: kernelir.return
func.func @not_softmax(%q: tensor<1x100x16xf16>, %k: tensor<1x100x16xf16>, %v: tensor<1x100x8xf16>) -> tensor<1x100x8xf16> {
  %r = tileir.kernel ins(%q, %k, %v : tensor<1x100x16xf16>, tensor<1x100x16xf16>, tensor<1x100x8xf16>) -> tensor<1x100x8xf16> domain [1, 100] tile [1, 64] threads 256 {
  ^bb0(%qb: memref<1x100x16xf16>, %kb: memref<1x100x16xf16>, %vb: memref<1x100x8xf16>, %out: memref<1x100x8xf16>):
    %one = arith.constant 1.0 : f32
    %scale = arith.constant 0.25 : f32
    %ninf = arith.constant 0xFC00 : f16
    %ahead1 = arith.constant 1 : i64
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %h = tileir.point 0
    %i = tileir.point 1
    %row = arith.index_cast %i : index to i64
    %m, %l, %o0, %o1, %o2, %o3, %o4, %o5, %o6, %o7 = tileir.composite_fold (%j) in [100] identity(0xFF800000 : f32, 0.0 : f32, 0.0 : f32, 0.0 : f32, 0.0 : f32, 0.0 : f32, 0.0 : f32, 0.0 : f32, 0.0 : f32, 0.0 : f32) {
      %key = arith.index_cast %j : index to i64
      %ahead = arith.subi %key, %row : i64
      %future = arith.cmpi sge, %ahead, %ahead1 : i64
      %dot = loopir.reduce add (%d) in [16] : f32 {
        %x = loopir.load %qb[%h, %i, %d] : memref<1x100x16xf16>
        %xw = arith.extf %x : f16 to f32
        %y = loopir.load %kb[%h, %j, %d] : memref<1x100x16xf16>
        %yw = arith.extf %y : f16 to f32
        %p = arith.mulf %xw, %yw : f32
        loopir.yield %p : f32
      }
      %scaled = arith.mulf %dot, %scale : f32
      %rounded = arith.truncf %scaled : f32 to f16
      %masked = arith.select %future, %ninf, %rounded : f16
      %score = arith.extf %masked : f16 to f32
      %v0 = loopir.load %vb[%h, %j, %c0] : memref<1x100x8xf16>
      %w0 = arith.extf %v0 : f16 to f32
      %v1 = loopir.load %vb[%h, %j, %c1] : memref<1x100x8xf16>
      %w1 = arith.extf %v1 : f16 to f32
      %v2 = loopir.load %vb[%h, %j, %c2] : memref<1x100x8xf16>
      %w2 = arith.extf %v2 : f16 to f32
      %v3 = loopir.load %vb[%h, %j, %c3] : memref<1x100x8xf16>
      %w3 = arith.extf %v3 : f16 to f32
      %v4 = loopir.load %vb[%h, %j, %c4] : memref<1x100x8xf16>
      %w4 = arith.extf %v4 : f16 to f32
      %v5 = loopir.load %vb[%h, %j, %c5] : memref<1x100x8xf16>
      %w5 = arith.extf %v5 : f16 to f32
      %v6 = loopir.load %vb[%h, %j, %c6] : memref<1x100x8xf16>
      %w6 = arith.extf %v6 : f16 to f32
      %v7 = loopir.load %vb[%h, %j, %c7] : memref<1x100x8xf16>
      %w7 = arith.extf %v7 : f16 to f32
      tileir.yield %score, %one, %w0, %w1, %w2, %w3, %w4, %w5, %w6, %w7 : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
    } combine {
    ^bb0(%x0: f32, %x1: f32, %x2: f32, %x3: f32, %x4: f32, %x5: f32, %x6: f32, %x7: f32, %x8: f32, %x9: f32, %y0: f32, %y1: f32, %y2: f32, %y3: f32, %y4: f32, %y5: f32, %y6: f32, %y7: f32, %y8: f32, %y9: f32):
      %m = arith.minimumf %x0, %y0 : f32
      %xe = arith.cmpf oeq, %x0, %m : f32
      %xd = arith.subf %x0, %m : f32
      %xx = math.exp %xd : f32
      %xs = arith.select %xe, %one, %xx : f32
      %ye = arith.cmpf oeq, %y0, %m : f32
      %yd = arith.subf %y0, %m : f32
      %yx = math.exp %yd : f32
      %ys = arith.select %ye, %one, %yx : f32
      %a1 = arith.mulf %x1, %xs : f32
      %b1 = arith.mulf %y1, %ys : f32
      %s1 = arith.addf %a1, %b1 : f32
      %a2 = arith.mulf %x2, %xs : f32
      %b2 = arith.mulf %y2, %ys : f32
      %s2 = arith.addf %a2, %b2 : f32
      %a3 = arith.mulf %x3, %xs : f32
      %b3 = arith.mulf %y3, %ys : f32
      %s3 = arith.addf %a3, %b3 : f32
      %a4 = arith.mulf %x4, %xs : f32
      %b4 = arith.mulf %y4, %ys : f32
      %s4 = arith.addf %a4, %b4 : f32
      %a5 = arith.mulf %x5, %xs : f32
      %b5 = arith.mulf %y5, %ys : f32
      %s5 = arith.addf %a5, %b5 : f32
      %a6 = arith.mulf %x6, %xs : f32
      %b6 = arith.mulf %y6, %ys : f32
      %s6 = arith.addf %a6, %b6 : f32
      %a7 = arith.mulf %x7, %xs : f32
      %b7 = arith.mulf %y7, %ys : f32
      %s7 = arith.addf %a7, %b7 : f32
      %a8 = arith.mulf %x8, %xs : f32
      %b8 = arith.mulf %y8, %ys : f32
      %s8 = arith.addf %a8, %b8 : f32
      %a9 = arith.mulf %x9, %xs : f32
      %b9 = arith.mulf %y9, %ys : f32
      %s9 = arith.addf %a9, %b9 : f32
      tileir.yield %m, %s1, %s2, %s3, %s4, %s5, %s6, %s7, %s8, %s9 : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
    }
    %n0 = arith.divf %o0, %l : f32
    %t0 = arith.truncf %n0 : f32 to f16
    loopir.store %t0, %out[%h, %i, %c0] : memref<1x100x8xf16>
    %n1 = arith.divf %o1, %l : f32
    %t1 = arith.truncf %n1 : f32 to f16
    loopir.store %t1, %out[%h, %i, %c1] : memref<1x100x8xf16>
    %n2 = arith.divf %o2, %l : f32
    %t2 = arith.truncf %n2 : f32 to f16
    loopir.store %t2, %out[%h, %i, %c2] : memref<1x100x8xf16>
    %n3 = arith.divf %o3, %l : f32
    %t3 = arith.truncf %n3 : f32 to f16
    loopir.store %t3, %out[%h, %i, %c3] : memref<1x100x8xf16>
    %n4 = arith.divf %o4, %l : f32
    %t4 = arith.truncf %n4 : f32 to f16
    loopir.store %t4, %out[%h, %i, %c4] : memref<1x100x8xf16>
    %n5 = arith.divf %o5, %l : f32
    %t5 = arith.truncf %n5 : f32 to f16
    loopir.store %t5, %out[%h, %i, %c5] : memref<1x100x8xf16>
    %n6 = arith.divf %o6, %l : f32
    %t6 = arith.truncf %n6 : f32 to f16
    loopir.store %t6, %out[%h, %i, %c6] : memref<1x100x8xf16>
    %n7 = arith.divf %o7, %l : f32
    %t7 = arith.truncf %n7 : f32 to f16
    loopir.store %t7, %out[%h, %i, %c7] : memref<1x100x8xf16>
  }
  return %r : tensor<1x100x8xf16>
}
