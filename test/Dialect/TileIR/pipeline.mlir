// RUN: strata-opt %s --tileir-pipeline | FileCheck %s
// RUN: strata-opt %s '--tileir-pipeline=stages=4' | FileCheck %s --check-prefix=FOUR
// RUN: strata-opt %s '--tileir-pipeline=stages=1' | FileCheck %s --check-prefix=NONE
// RUN: not strata-opt %s '--tileir-pipeline=stages=-1' 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: strata-opt %s '--tileir-pipeline=stages=2' | FileCheck %s --check-prefix=TWO
// RUN: strata-opt %s '--tileir-pipeline=stages=4 shared-memory=200000' | FileCheck %s --check-prefix=BIG
// RUN: not strata-opt %s '--tileir-pipeline=shared-memory=300000' 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: strata-opt %s '--tileir-pipeline=tf32=true' | FileCheck %s --check-prefix=TF32

// Double buffering by default. With 4 wanted: the 64 x 64 f32 tile
// (8 KiB of chunks per step of 16) takes 4; k = 40 has only 3 steps of 16;
// the 256 x 256 tile (32 KiB per step) fits once in 48 KiB.
// CHECK-LABEL: func.func @square
// CHECK: tileir.contract [%{{.*}}, %{{.*}}] k 256 step 16 stages 2 :
// CHECK-LABEL: func.func @short_k
// CHECK: tileir.contract [%{{.*}}, %{{.*}}] k 40 step 16 stages 2 :
// CHECK-LABEL: func.func @wide
// CHECK: tileir.contract [%{{.*}}, %{{.*}}] k 256 step 16 :
// FOUR-LABEL: func.func @square
// FOUR: k 256 step 16 stages 4 :
// FOUR-LABEL: func.func @short_k
// FOUR: k 40 step 16 stages 3 :
// FOUR-LABEL: func.func @wide
// FOUR: k 256 step 16 :
// NONE-NOT: stages
// NEGATIVE: tileir-pipeline: stages must be positive (or 0: chosen per contraction), got -1
// With 200000 bytes (dynamic shared memory) the wide tile takes 4 too.
// BIG-LABEL: func.func @wide
// BIG: k 256 step 16 stages 4 :
// HUGE: tileir-pipeline: shared-memory must be between 1 and 232448 bytes, got 300000
// On tensor cores (tf32) a tile of 128 x 128 or more keeps two stages
// whatever the budget (@wide: two stages beyond 48 KiB, in dynamic shared
// memory; @square's 64 x 64 tile is unchanged).
// TF32-LABEL: func.func @square
// TF32: k 256 step 16 stages 2 :
// TF32-LABEL: func.func @wide
// TF32: k 256 step 16 stages 2 :
// Halves on tensor cores in a 128 x 128 tile, 64 k a step: three stages
// by default (3 x 36 KiB of padded chunks, beyond any budget short of it),
// two where two are asked for.
// CHECK-LABEL: func.func @half_large_tile
// CHECK: k 300 step 64 stages 3 :
// TWO-LABEL: func.func @half_large_tile
// TWO: k 300 step 64 stages 2 :

func.func @square(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %r = tileir.kernel ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32> domain [256, 256] tile [64, 64] threads 256 {
  ^bb0(%ab: memref<256x256xf32>, %bb: memref<256x256xf32>, %out: memref<256x256xf32>):
    %c64 = arith.constant 64 : index
    %p0 = tileir.program_id 0
    %p1 = tileir.program_id 1
    %o0 = arith.muli %p0, %c64 : index
    %o1 = arith.muli %p1, %c64 : index
    %c = tileir.contract [%o0, %o1] k 256 step 16 : !tileir.tile<64x64xf32> lhs {
    ^bb0(%i: index, %k: index):
      %x = loopir.load %ab[%i, %k] : memref<256x256xf32>
      tileir.yield %x : f32
    } rhs {
    ^bb0(%j: index, %k: index):
      %w = loopir.load %bb[%k, %j] : memref<256x256xf32>
      tileir.yield %w : f32
    }
    tileir.store %c, %out[%o0, %o1] : !tileir.tile<64x64xf32>, memref<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}

func.func @short_k(%a: tensor<64x40xf32>, %b: tensor<40x64xf32>) -> tensor<64x64xf32> {
  %r = tileir.kernel ins(%a, %b : tensor<64x40xf32>, tensor<40x64xf32>) -> tensor<64x64xf32> domain [64, 64] tile [64, 64] threads 256 {
  ^bb0(%ab: memref<64x40xf32>, %bb: memref<40x64xf32>, %out: memref<64x64xf32>):
    %c0 = arith.constant 0 : index
    %c = tileir.contract [%c0, %c0] k 40 step 16 : !tileir.tile<64x64xf32> lhs {
    ^bb0(%i: index, %k: index):
      %x = loopir.load %ab[%i, %k] : memref<64x40xf32>
      tileir.yield %x : f32
    } rhs {
    ^bb0(%j: index, %k: index):
      %w = loopir.load %bb[%k, %j] : memref<40x64xf32>
      tileir.yield %w : f32
    }
    tileir.store %c, %out[%c0, %c0] : !tileir.tile<64x64xf32>, memref<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}

func.func @wide(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %r = tileir.kernel ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32> domain [256, 256] tile [256, 256] threads 1024 {
  ^bb0(%ab: memref<256x256xf32>, %bb: memref<256x256xf32>, %out: memref<256x256xf32>):
    %c0 = arith.constant 0 : index
    %c = tileir.contract [%c0, %c0] k 256 step 16 : !tileir.tile<256x256xf32> lhs {
    ^bb0(%i: index, %k: index):
      %x = loopir.load %ab[%i, %k] : memref<256x256xf32>
      tileir.yield %x : f32
    } rhs {
    ^bb0(%j: index, %k: index):
      %w = loopir.load %bb[%k, %j] : memref<256x256xf32>
      tileir.yield %w : f32
    }
    tileir.store %c, %out[%c0, %c0] : !tileir.tile<256x256xf32>, memref<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}

func.func @half_large_tile(%a: tensor<1536x300xf16>, %b: tensor<300x1536xf16>) -> tensor<1536x1536xf32> {
  %r = tileir.kernel ins(%a, %b : tensor<1536x300xf16>, tensor<300x1536xf16>) -> tensor<1536x1536xf32> domain [1536, 1536] tile [128, 128] threads 256 {
  ^bb0(%ab: memref<1536x300xf16>, %bb: memref<300x1536xf16>, %out: memref<1536x1536xf32>):
    %o0 = tileir.tile_offset 0
    %o1 = tileir.tile_offset 1
    %c = tileir.contract [%o0, %o1] k 300 step 64 : !tileir.tile<128x128xf32> lhs {
    ^bb0(%i: index, %k: index):
      %x = loopir.load %ab[%i, %k] : memref<1536x300xf16>
      %w = arith.extf %x : f16 to f32
      tileir.yield %w : f32
    } rhs {
    ^bb0(%j: index, %k: index):
      %y = loopir.load %bb[%k, %j] : memref<300x1536xf16>
      %w = arith.extf %y : f16 to f32
      tileir.yield %w : f32
    }
    tileir.store %c, %out[%o0, %o1] : !tileir.tile<128x128xf32>, memref<1536x1536xf32>
  }
  return %r : tensor<1536x1536xf32>
}
