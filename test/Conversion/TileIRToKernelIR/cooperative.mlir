// RUN: strata-opt %s -split-input-file --convert-tileir-to-kernelir --canonicalize --cse | FileCheck %s

// A cooperative row program on 64 threads (2 warps). Each thread folds
// points t, t + 64, ... in registers (rows of 71: no runs of neighbours
// divide them, so every access is scalar); a butterfly of xor shuffles combines
// the warp; lane 0 of each warp posts to shared memory; after a barrier
// every lane reads the post of warp (lane mod 2) and a one-step butterfly
// finishes, so every thread holds the row's max. The write-back loop is
// shared the same way; the row's own store is made by thread 0.
// CHECK-LABEL: kernelir.func @host_kernel
// CHECK-SAME: block = array<i64: 64, 1, 1>, grid = array<i64: 33, 1, 1>
// CHECK-DAG: %[[POSTS:.*]] = kernelir.shared : memref<2xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C71:.*]] = arith.constant 71 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : i32
// CHECK: %[[ROW:.*]] = kernelir.block_id x
// CHECK: %[[T:.*]] = kernelir.thread_id x
// CHECK: %[[PART:.*]] = scf.for %[[K:.*]] = %[[T]] to %[[C71]] step %[[C64]] iter_args(%[[ACC:.*]] = %[[NEG_INF]]) -> (f32) {
// CHECK-NEXT: %[[X:.*]] = kernelir.load %{{.*}}[%[[ROW]], %[[K]]] : memref<33x71xf32>
// CHECK-NEXT: %[[NEXT:.*]] = arith.maximumf %[[ACC]], %[[X]] : f32
// CHECK-NEXT: scf.yield %[[NEXT]] : f32
// CHECK: %[[S16:.*]] = kernelir.shuffle xor %[[PART]], %[[C16]] : f32
// CHECK-NEXT: arith.maximumf %[[PART]], %[[S16]] : f32
// CHECK-COUNT-4: kernelir.shuffle xor
// CHECK: %[[LANE:.*]] = arith.remui %[[T]], %{{.*}} : index
// CHECK: %[[WARP:.*]] = arith.divui %[[T]], %{{.*}} : index
// CHECK: %[[LEADER:.*]] = arith.cmpi eq, %[[LANE]], %{{.*}} : index
// CHECK: kernelir.store %{{.*}}, %[[POSTS]][%[[WARP]]] if %[[LEADER]]
// CHECK-NEXT: kernelir.barrier
// CHECK: %[[SLOT:.*]] = arith.remui %[[LANE]], %{{.*}} : index
// CHECK: %[[POST:.*]] = kernelir.load %[[POSTS]][%[[SLOT]]] : memref<2xf32, #gpu.address_space<workgroup>>
// CHECK: %[[OTHER:.*]] = kernelir.shuffle xor %[[POST]], %{{.*}} : f32
// CHECK-NEXT: %[[MAX:.*]] = arith.maximumf %[[POST]], %[[OTHER]] : f32
// CHECK-NOT: kernelir.shuffle
// CHECK: scf.for %[[J:.*]] = %[[T]] to %[[C71]] step %[[C64]] {
// CHECK: arith.subf %{{.*}}, %[[MAX]] : f32
// CHECK: kernelir.store %{{.*}}, %{{.*}}[%[[ROW]], %[[J]]]
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: kernelir.store %[[MAX]], %{{.*}}[%[[ROW]]] : memref<33xf32>
func.func @host(%a: tensor<33x71xf32>) -> (tensor<33x71xf32>, tensor<33xf32>) {
  %r:2 = tileir.kernel ins(%a : tensor<33x71xf32>) -> tensor<33x71xf32>, tensor<33xf32> domain [33] tile [1] threads 64 {
  ^bb0(%in: memref<33x71xf32>, %out: memref<33x71xf32>, %maxes: memref<33xf32>):
    %row = tileir.program_id 0
    %m = tileir.fold max(0xFF800000 : f32) (%k) in [71] {
      %x = loopir.load %in[%row, %k] : memref<33x71xf32>
      tileir.yield %x : f32
    }
    tileir.distribute (%j) in [71] {
      %x = loopir.load %in[%row, %j] : memref<33x71xf32>
      %y = arith.subf %x, %m : f32
      loopir.store %y, %out[%row, %j] : memref<33x71xf32>
    }
    loopir.store %m, %maxes[%row] : memref<33xf32>
  }
  return %r#0, %r#1 : tensor<33x71xf32>, tensor<33xf32>
}

// -----

// Three warps: lanes past the last post take the identity and the second
// butterfly spans the warp. Two monoids fold in one loop and combine side
// by side.
// CHECK-LABEL: kernelir.func @moments_kernel
// CHECK-DAG: kernelir.shared : memref<3xi32, #gpu.address_space<workgroup>>
// CHECK-DAG: kernelir.shared : memref<3xi32, #gpu.address_space<workgroup>>
// CHECK: scf.for {{.*}} -> (i32, i32) {
// CHECK: kernelir.barrier
// CHECK: %[[HAS:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK: %[[READ:.*]] = kernelir.load %{{.*}}[%{{.*}}] if %[[HAS]]
// CHECK: arith.select %[[HAS]], %[[READ]], %{{.*}} : i32
// CHECK-COUNT-10: kernelir.shuffle xor
func.func @moments(%a: tensor<4x500xi32>) -> tensor<4xi32> {
  %r = tileir.kernel ins(%a : tensor<4x500xi32>) -> tensor<4xi32> domain [4] tile [1] threads 96 {
  ^bb0(%in: memref<4x500xi32>, %out: memref<4xi32>):
    %row = tileir.program_id 0
    %s, %q = tileir.fold add(0 : i32), add(0 : i32) (%k) in [500] {
      %x = loopir.load %in[%row, %k] : memref<4x500xi32>
      %x2 = arith.muli %x, %x : i32
      tileir.yield %x, %x2 : i32, i32
    }
    %v = arith.subi %q, %s : i32
    loopir.store %v, %out[%row] : memref<4xi32>
  }
  return %r : tensor<4xi32>
}

// -----

// Rows of 72 f32: each thread takes runs of 4 neighbours (4t .. 4t + 3,
// then 256 further), read as one vector<4xf32> and folded lane by lane; the
// write-back loop reads and writes its runs as vectors too. Both loops read
// the row: the fold keeps each run it loads in a shared row cache, and the
// write-back reads it there (the same thread, the same run: no barrier), so
// the row leaves global memory once.
// CHECK-LABEL: kernelir.func @runs_kernel
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C18:.*]] = arith.constant 18 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[CACHE:.*]] = kernelir.shared : memref<72xf32, #gpu.address_space<workgroup>>
// CHECK: %[[ROW:.*]] = kernelir.block_id x
// CHECK: %[[T:.*]] = kernelir.thread_id x
// CHECK: scf.for %[[R:.*]] = %[[T]] to %[[C18]] step %[[C64]] iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT: %[[K:.*]] = arith.muli %[[R]], %[[C4]] : index
// CHECK-NEXT: %[[X:.*]] = kernelir.load %{{.*}}[%[[ROW]], %[[K]]] : memref<33x72xf32> -> vector<4xf32>
// CHECK-NEXT: kernelir.store %[[X]], %[[CACHE]][%[[K]]] : memref<72xf32, #gpu.address_space<workgroup>> -> vector<4xf32>
// CHECK-NEXT: %[[X0:.*]] = vector.extract %[[X]][0] : f32 from vector<4xf32>
// CHECK: %[[M0:.*]] = arith.maximumf %[[ACC]], %[[X0]] : f32
// CHECK-COUNT-3: arith.maximumf
// CHECK: scf.for %[[S:.*]] = %[[T]] to %[[C18]] step %[[C64]] {
// CHECK-NEXT: %[[J:.*]] = arith.muli %[[S]], %[[C4]] : index
// CHECK-NEXT: %[[Y:.*]] = kernelir.load %[[CACHE]][%[[J]]] : memref<72xf32, #gpu.address_space<workgroup>> -> vector<4xf32>
// CHECK-COUNT-4: arith.subf
// CHECK: %[[Z:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NEXT: kernelir.store %[[Z]], %{{.*}}[%[[ROW]], %[[J]]] : memref<33x72xf32> -> vector<4xf32>
func.func @runs(%a: tensor<33x72xf32>) -> tensor<33x72xf32> {
  %r = tileir.kernel ins(%a : tensor<33x72xf32>) -> tensor<33x72xf32> domain [33] tile [1] threads 64 {
  ^bb0(%in: memref<33x72xf32>, %out: memref<33x72xf32>):
    %row = tileir.program_id 0
    %m = tileir.fold max(0xFF800000 : f32) (%k) in [72] {
      %x = loopir.load %in[%row, %k] : memref<33x72xf32>
      tileir.yield %x : f32
    }
    tileir.distribute (%j) in [72] {
      %x = loopir.load %in[%row, %j] : memref<33x72xf32>
      %y = arith.subf %x, %m : f32
      loopir.store %y, %out[%row, %j] : memref<33x72xf32>
    }
  }
  return %r : tensor<33x72xf32>
}

// -----

// Several rows per program instance (tile [8], 256 threads): thread t is
// lane t mod 32 of the group of row 8 * block + t / 32. Each group folds
// its row alone, a butterfly within its warp and no shared memory or
// barrier; the row's store is made by the group's first lane.
// CHECK-LABEL: kernelir.func @short_rows_kernel
// CHECK-SAME: block = array<i64: 256, 1, 1>, grid = array<i64: 125, 1, 1>
// CHECK-NOT: kernelir.shared
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C37:.*]] = arith.constant 37 : index
// CHECK: %[[B:.*]] = kernelir.block_id x
// CHECK: %[[T:.*]] = kernelir.thread_id x
// CHECK: %[[G:.*]] = arith.divui %[[T]], %[[C32]] : index
// CHECK: %[[L:.*]] = arith.remui %[[T]], %[[C32]] : index
// CHECK: %[[FIRSTROW:.*]] = arith.muli %[[B]], %[[C8]] : index
// CHECK: %[[ROW:.*]] = arith.addi %[[FIRSTROW]], %[[G]] : index
// CHECK: %[[PART:.*]] = scf.for %[[K:.*]] = %[[L]] to %[[C37]] step %[[C32]]
// CHECK-NEXT: kernelir.load %{{.*}}[%[[ROW]], %[[K]]] : memref<1000x37xf32>
// CHECK-COUNT-5: kernelir.shuffle xor
// CHECK-NOT: kernelir.barrier
// CHECK: %[[LEAD:.*]] = arith.cmpi eq, %[[L]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[LEAD]] {
// CHECK-NEXT: kernelir.store %{{.*}}, %{{.*}}[%[[ROW]]] : memref<1000xf32>
func.func @short_rows(%a: tensor<1000x37xf32>) -> tensor<1000xf32> {
  %r = tileir.kernel ins(%a : tensor<1000x37xf32>) -> tensor<1000xf32> domain [1000] tile [8] threads 256 {
  ^bb0(%in: memref<1000x37xf32>, %out: memref<1000xf32>):
    %row = tileir.point 0
    %s = tileir.fold add(0.0 : f32) (%k) in [37] {
      %x = loopir.load %in[%row, %k] : memref<1000x37xf32>
      tileir.yield %x : f32
    }
    loopir.store %s, %out[%row] : memref<1000xf32>
  }
  return %r : tensor<1000xf32>
}

// -----

// A composite fold: each thread folds its points (pairs of neighbours)
// into a (max, sum) pair with the combine region, the warp's butterfly shuffles both components
// and combines them the same way, and with two warps the posts hold both.
// CHECK-LABEL: kernelir.func @composite_kernel
// CHECK-DAG: kernelir.shared : memref<2xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: kernelir.shared : memref<2xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for %{{.*}} iter_args(%[[M:.*]] = %{{.*}}, %[[S:.*]] = %{{.*}}) -> (f32, f32) {
// CHECK: kernelir.load %{{.*}} : memref<33x70xf32> -> vector<2xf32>
// CHECK: %[[X:.*]] = vector.extract
// CHECK: arith.maximumf %[[M]], %[[X]] : f32
// CHECK: math.exp
// CHECK: scf.yield
// CHECK: kernelir.shuffle xor %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: kernelir.shuffle xor %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: arith.maximumf
// CHECK: kernelir.barrier
func.func @composite(%a: tensor<33x70xf32>) -> tensor<33xf32> {
  %r = tileir.kernel ins(%a : tensor<33x70xf32>) -> tensor<33xf32> domain [33] tile [1] threads 64 {
  ^bb0(%in: memref<33x70xf32>, %out: memref<33xf32>):
    %row = tileir.point 0
    %one = arith.constant 1.0 : f32
    %m, %s = tileir.composite_fold (%k) in [70] identity(0xFF800000 : f32, 0.0 : f32) {
      %x = loopir.load %in[%row, %k] : memref<33x70xf32>
      tileir.yield %x, %one : f32, f32
    } combine {
    ^bb0(%m1: f32, %s1: f32, %m2: f32, %s2: f32):
      %mm = arith.maximumf %m1, %m2 : f32
      %d1 = arith.subf %m1, %mm : f32
      %e1 = math.exp %d1 : f32
      %d2 = arith.subf %m2, %mm : f32
      %e2 = math.exp %d2 : f32
      %a1 = arith.mulf %s1, %e1 : f32
      %a2 = arith.mulf %s2, %e2 : f32
      %ss = arith.addf %a1, %a2 : f32
      tileir.yield %mm, %ss : f32, f32
    }
    %l = math.log %s : f32
    %lse = arith.addf %m, %l : f32
    loopir.store %lse, %out[%row] : memref<33xf32>
  }
  return %r : tensor<33xf32>
}
