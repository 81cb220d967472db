// RUN: strata-opt %s | FileCheck %s
// RUN: strata-opt %s | strata-opt | FileCheck %s

// CHECK-LABEL: kernelir.func @exp_kernel
// CHECK-SAME: (%[[IN:.*]]: memref<1000xf32>, %[[OUT:.*]]: memref<1000xf32>)
// CHECK-SAME: attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 8, 1, 1>}
kernelir.func @exp_kernel(%in: memref<1000xf32>, %out: memref<1000xf32>)
    attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 8, 1, 1>} {
  %c128 = arith.constant 128 : index
  %c1000 = arith.constant 1000 : index
  // CHECK: %[[B:.*]] = kernelir.block_id x
  // CHECK: %[[T:.*]] = kernelir.thread_id x
  %b = kernelir.block_id x
  %t = kernelir.thread_id x
  %base = arith.muli %b, %c128 : index
  %i = arith.addi %base, %t : index
  %ok = arith.cmpi ult, %i, %c1000 : index
  // CHECK: %[[X:.*]] = kernelir.load %[[IN]][%{{.*}}] if %{{.*}} : memref<1000xf32>
  %x = kernelir.load %in[%i] if %ok : memref<1000xf32>
  %y = math.exp %x : f32
  // CHECK: kernelir.store %{{.*}}, %[[OUT]][%{{.*}}] if %{{.*}} : memref<1000xf32>
  kernelir.store %y, %out[%i] if %ok : memref<1000xf32>
  // Unguarded accesses.
  // CHECK: kernelir.load %[[IN]][%{{.*}}] : memref<1000xf32>
  %z = kernelir.load %in[%t] : memref<1000xf32>
  // CHECK: kernelir.store %{{.*}}, %[[OUT]][%{{.*}}] : memref<1000xf32>
  kernelir.store %z, %out[%t] : memref<1000xf32>
  // CHECK: kernelir.thread_id y
  // CHECK: kernelir.block_id z
  %ty = kernelir.thread_id y
  %bz = kernelir.block_id z
  // CHECK: kernelir.return
  kernelir.return
}

// CHECK-LABEL: func.func @host
func.func @host(%a: memref<1000xf32>) -> memref<1000xf32> {
  %r = memref.alloc() : memref<1000xf32>
  // CHECK: kernelir.launch @exp_kernel(%{{.*}}, %{{.*}}) : memref<1000xf32>, memref<1000xf32>
  kernelir.launch @exp_kernel(%a, %r) : memref<1000xf32>, memref<1000xf32>
  return %r : memref<1000xf32>
}
