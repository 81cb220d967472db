// RUN: strata-opt %s -split-input-file -verify-diagnostics

func.func @tile_rank(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{tile has 1 sizes but the domain has 2 dimensions}}
  %r = tileir.kernel ins(%a : tensor<4x4xf32>) -> tensor<4x4xf32> domain [4, 4] tile [16] threads 16 {
  ^bb0(%in: memref<4x4xf32>, %out: memref<4x4xf32>):
  }
  return %r : tensor<4x4xf32>
}

// -----

func.func @uneven_threads(%a: tensor<100xf32>) -> tensor<100xf32> {
  // expected-error @+1 {{tile of 64 elements cannot be divided evenly among 48 threads}}
  %r = tileir.kernel ins(%a : tensor<100xf32>) -> tensor<100xf32> domain [100] tile [64] threads 48 {
  ^bb0(%in: memref<100xf32>, %out: memref<100xf32>):
  }
  return %r : tensor<100xf32>
}

// -----

func.func @too_many_threads(%a: tensor<4096xf32>) -> tensor<4096xf32> {
  // expected-error @+1 {{threads must be in [1, 1024], got 2048}}
  %r = tileir.kernel ins(%a : tensor<4096xf32>) -> tensor<4096xf32> domain [4096] tile [4096] threads 2048 {
  ^bb0(%in: memref<4096xf32>, %out: memref<4096xf32>):
  }
  return %r : tensor<4096xf32>
}

// -----

func.func @program_id_dim(%a: tensor<100xf32>) -> tensor<100xf32> {
  %r = tileir.kernel ins(%a : tensor<100xf32>) -> tensor<100xf32> domain [100] tile [64] threads 64 {
  ^bb0(%in: memref<100xf32>, %out: memref<100xf32>):
    // expected-error @+1 {{dimension 1 is outside the kernel's 1-dimensional domain}}
    %p = tileir.program_id 1
  }
  return %r : tensor<100xf32>
}

// -----

func.func @coordinate_dim(%a: tensor<100xf32>) -> tensor<100xf32> {
  %r = tileir.kernel ins(%a : tensor<100xf32>) -> tensor<100xf32> domain [100] tile [64] threads 64 {
  ^bb0(%in: memref<100xf32>, %out: memref<100xf32>):
    %o = tileir.tile_offset 0
    // expected-error @+1 {{dimension 1 is outside the kernel's 1-dimensional domain}}
    %c = tileir.coordinate %o dim 1 : !tileir.tile<64xindex>
  }
  return %r : tensor<100xf32>
}

// -----

func.func @coordinate_type(%a: tensor<100xf32>) -> tensor<100xf32> {
  %r = tileir.kernel ins(%a : tensor<100xf32>) -> tensor<100xf32> domain [100] tile [64] threads 64 {
  ^bb0(%in: memref<100xf32>, %out: memref<100xf32>):
    %o = tileir.tile_offset 0
    // expected-error @+1 {{coordinates are indices, got a tile of 'i32'}}
    %c = tileir.coordinate %o dim 0 : !tileir.tile<64xi32>
  }
  return %r : tensor<100xf32>
}

// -----

func.func @coordinate_shape(%a: tensor<100xf32>) -> tensor<100xf32> {
  %r = tileir.kernel ins(%a : tensor<100xf32>) -> tensor<100xf32> domain [100] tile [64] threads 64 {
  ^bb0(%in: memref<100xf32>, %out: memref<100xf32>):
    %o = tileir.tile_offset 0
    // expected-error @+1 {{tile shape does not match the kernel's tile}}
    %c = tileir.coordinate %o dim 0 : !tileir.tile<32xindex>
  }
  return %r : tensor<100xf32>
}

// -----

func.func @tile_offset_dim(%a: tensor<100xf32>) -> tensor<100xf32> {
  %r = tileir.kernel ins(%a : tensor<100xf32>) -> tensor<100xf32> domain [100] tile [64] threads 64 {
  ^bb0(%in: memref<100xf32>, %out: memref<100xf32>):
    // expected-error @+1 {{dimension 2 is outside the kernel's 1-dimensional domain}}
    %o = tileir.tile_offset 2
  }
  return %r : tensor<100xf32>
}

// -----

func.func @tile_shape(%a: tensor<100xf32>) -> tensor<100xf32> {
  %r = tileir.kernel ins(%a : tensor<100xf32>) -> tensor<100xf32> domain [100] tile [64] threads 64 {
  ^bb0(%in: memref<100xf32>, %out: memref<100xf32>):
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{tile shape does not match the kernel's tile}}
    %x = tileir.load %in[%c0] : memref<100xf32> -> !tileir.tile<32xf32>
  }
  return %r : tensor<100xf32>
}

// -----

func.func @origin_count(%a: tensor<100xf32>) -> tensor<100xf32> {
  %r = tileir.kernel ins(%a : tensor<100xf32>) -> tensor<100xf32> domain [100] tile [64] threads 64 {
  ^bb0(%in: memref<100xf32>, %out: memref<100xf32>):
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{expects 1 origin indices (one per domain dimension), got 2}}
    %x = tileir.load %in[%c0, %c0] : memref<100xf32> -> !tileir.tile<64xf32>
  }
  return %r : tensor<100xf32>
}

// -----

func.func @map_yield_type(%a: tensor<100xf32>) -> tensor<100xf32> {
  %r = tileir.kernel ins(%a : tensor<100xf32>) -> tensor<100xf32> domain [100] tile [64] threads 64 {
  ^bb0(%in: memref<100xf32>, %out: memref<100xf32>):
    %c0 = arith.constant 0 : index
    %x = tileir.load %in[%c0] : memref<100xf32> -> !tileir.tile<64xf32>
    // expected-error @+1 {{yielded type 'i32' differs from the result's element type}}
    %y = tileir.map ins(%x : !tileir.tile<64xf32>) -> !tileir.tile<64xf32> {
    ^bb0(%e: f32):
      %i = arith.fptosi %e : f32 to i32
      tileir.yield %i : i32
    }
  }
  return %r : tensor<100xf32>
}

// -----

// expected-error @+1 {{tile dimensions must be positive, got 0}}
func.func @bad_tile_type(%t: !tileir.tile<0x4xf32>) {
  return
}

// -----

func.func @writes_input(%a: tensor<64xf32>) -> tensor<64xf32> {
  %r = tileir.kernel ins(%a : tensor<64xf32>) -> tensor<64xf32> domain [64] tile [64] threads 64 {
  ^bb0(%in: memref<64xf32>, %out: memref<64xf32>):
    %c0 = arith.constant 0 : index
    %x = tileir.load %in[%c0] : memref<64xf32> -> !tileir.tile<64xf32>
    // expected-error @+1 {{writes an input buffer of its kernel; a kernel only writes its result buffers}}
    tileir.store %x, %in[%c0] : !tileir.tile<64xf32>, memref<64xf32>
  }
  return %r : tensor<64xf32>
}

// -----

func.func @point_rank(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = tileir.kernel ins(%a : tensor<4x4xf32>) -> tensor<4x4xf32> domain [4, 4] tile [4, 4] threads 16 {
  ^bb0(%in: memref<4x4xf32>, %out: memref<4x4xf32>):
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{expects one origin index and one point coordinate per domain dimension (2)}}
    tileir.for_each_point [%c0] (%i) {
    }
  }
  return %r : tensor<4x4xf32>
}

// -----

func.func @fold_identity(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %r = tileir.kernel ins(%a : tensor<4x8xf32>) -> tensor<4xf32> domain [4] tile [1] threads 32 {
  ^bb0(%in: memref<4x8xf32>, %out: memref<4xf32>):
    %row = tileir.program_id 0
    // expected-error @+1 {{identity #0 of max must be 0xFF800000 : f32, got 0.000000e+00 : f32}}
    %m = tileir.fold max(0.0 : f32) (%k) in [8] {
      %x = loopir.load %in[%row, %k] : memref<4x8xf32>
      tileir.yield %x : f32
    }
    loopir.store %m, %out[%row] : memref<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @fold_combiner(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %r = tileir.kernel ins(%a : tensor<4x8xf32>) -> tensor<4xf32> domain [4] tile [1] threads 32 {
  ^bb0(%in: memref<4x8xf32>, %out: memref<4xf32>):
    %row = tileir.program_id 0
    // expected-error @+1 {{unknown or non-associative combiner 'sub' (expected add, mul, max or min)}}
    %m = tileir.fold sub(0.0 : f32) (%k) in [8] {
      %x = loopir.load %in[%row, %k] : memref<4x8xf32>
      tileir.yield %x : f32
    }
  }
  return %r : tensor<4xf32>
}

// -----

func.func @fold_contribution(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %r = tileir.kernel ins(%a : tensor<4x8xf32>) -> tensor<4xf32> domain [4] tile [1] threads 32 {
  ^bb0(%in: memref<4x8xf32>, %out: memref<4xf32>):
    %row = tileir.program_id 0
    // expected-error @+1 {{contribution #0 has type 'i32' but its monoid folds 'f32'}}
    %m = tileir.fold add(0.0 : f32) (%k) in [8] {
      %c = arith.constant 1 : i32
      tileir.yield %c : i32
    }
  }
  return %r : tensor<4xf32>
}

// -----

func.func @cooperative_tile(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{the 32 threads of a kernel with tileir.fold or tileir.distribute split into one group per point of its tile, which has 3 points}}
  %r = tileir.kernel ins(%a : tensor<4x8xf32>) -> tensor<4xf32> domain [4] tile [3] threads 32 {
  ^bb0(%in: memref<4x8xf32>, %out: memref<4xf32>):
    %row = tileir.program_id 0
    %m = tileir.fold add(0.0 : f32) (%k) in [8] {
      %x = loopir.load %in[%row, %k] : memref<4x8xf32>
      tileir.yield %x : f32
    }
  }
  return %r : tensor<4xf32>
}

// -----

func.func @point_outside_row_program(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = tileir.kernel ins(%a : tensor<4xf32>) -> tensor<4xf32> domain [4] tile [4] threads 4 {
  ^bb0(%in: memref<4xf32>, %out: memref<4xf32>):
    // expected-error @+1 {{names the point of a thread group, which only a kernel with tileir.fold or tileir.distribute has}}
    %p = tileir.point 0
  }
  return %r : tensor<4xf32>
}

// -----

func.func @fold_outside_kernel() {
  // expected-error @+1 {{expects parent op 'tileir.kernel'}}
  %m = tileir.fold add(0.0 : f32) (%k) in [8] {
    %c = arith.constant 1.0 : f32
    tileir.yield %c : f32
  }
  return
}

// -----

func.func @distribute_bounds(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = tileir.kernel ins(%a : tensor<4x8xf32>) -> tensor<4x8xf32> domain [4] tile [1] threads 32 {
  ^bb0(%in: memref<4x8xf32>, %out: memref<4x8xf32>):
    // expected-error @+1 {{loop bounds must be positive, got 0}}
    tileir.distribute (%j) in [0] {
    }
  }
  return %r : tensor<4x8xf32>
}

// -----

func.func @contract_rank(%a: tensor<64xf32>) -> tensor<64xf32> {
  %r = tileir.kernel ins(%a : tensor<64xf32>) -> tensor<64xf32> domain [64] tile [64] threads 64 {
  ^bb0(%in: memref<64xf32>, %out: memref<64xf32>):
    %p = tileir.program_id 0
    // expected-error @+1 {{contracts a domain of rows and columns: it needs at least two dimensions, the kernel has 1}}
    %c = tileir.contract [%p] k 8 step 8 : !tileir.tile<64xf32> lhs {
    ^bb0(%i: index):
      %x = arith.constant 1.0 : f32
      tileir.yield %x : f32
    } rhs {
    ^bb0(%j: index):
      %x = arith.constant 1.0 : f32
      tileir.yield %x : f32
    }
  }
  return %r : tensor<64xf32>
}

// -----

func.func @contract_operand(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = tileir.kernel ins(%a : tensor<8x8xf32>) -> tensor<8x8xf32> domain [8, 8] tile [8, 8] threads 64 {
  ^bb0(%in: memref<8x8xf32>, %out: memref<8x8xf32>):
    %p = tileir.program_id 0
    // expected-error @+1 {{the rhs region takes 2 indices: the point's coordinates without the row, then k}}
    %c = tileir.contract [%p, %p] k 8 step 8 : !tileir.tile<8x8xf32> lhs {
    ^bb0(%i: index, %k: index):
      %x = arith.constant 1.0 : f32
      tileir.yield %x : f32
    } rhs {
    ^bb0(%k: index):
      %x = arith.constant 1.0 : f32
      tileir.yield %x : f32
    }
  }
  return %r : tensor<8x8xf32>
}

// -----

func.func @contract_yield(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = tileir.kernel ins(%a : tensor<8x8xf32>) -> tensor<8x8xf32> domain [8, 8] tile [8, 8] threads 64 {
  ^bb0(%in: memref<8x8xf32>, %out: memref<8x8xf32>):
    %p = tileir.program_id 0
    // expected-error @+1 {{the lhs region yields one 'f32'}}
    %c = tileir.contract [%p, %p] k 8 step 8 : !tileir.tile<8x8xf32> lhs {
    ^bb0(%i: index, %k: index):
      %x = arith.constant 1 : i32
      tileir.yield %x : i32
    } rhs {
    ^bb0(%j: index, %k: index):
      %x = arith.constant 1.0 : f32
      tileir.yield %x : f32
    }
  }
  return %r : tensor<8x8xf32>
}

// -----

func.func @cooperative_contract(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %r = tileir.kernel ins(%a : tensor<4x8xf32>) -> tensor<4xf32> domain [4, 1] tile [1, 1] threads 32 {
  ^bb0(%in: memref<4x8xf32>, %out: memref<4xf32>):
    %row = tileir.program_id 0
    %s = tileir.fold add(0.0 : f32) (%k) in [8] {
      %x = loopir.load %in[%row, %k] : memref<4x8xf32>
      tileir.yield %x : f32
    }
    // expected-error @+1 {{cannot share a cooperative kernel with tileir.fold or tileir.distribute}}
    %c = tileir.contract [%row, %row] k 8 step 8 : !tileir.tile<1x1xf32> lhs {
    ^bb0(%i: index, %k: index):
      %x = arith.constant 1.0 : f32
      tileir.yield %x : f32
    } rhs {
    ^bb0(%j: index, %k: index):
      %x = arith.constant 1.0 : f32
      tileir.yield %x : f32
    }
  }
  return %r : tensor<4xf32>
}

// -----

// Domain dimensions are non-negative: the lowerings index the domain with them.
func.func @program_id_negative(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = tileir.kernel ins(%a : tensor<4xf32>) -> tensor<4xf32> domain [4] tile [1] threads 1 {
  ^bb0(%in: memref<4xf32>, %out: memref<4xf32>):
    // expected-error @+1 {{attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
    %i = tileir.program_id -1
    %x = loopir.load %in[%i] : memref<4xf32>
    loopir.store %x, %out[%i] : memref<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @tile_offset_negative(%a: tensor<8xf32>) -> tensor<8xf32> {
  %r = tileir.kernel ins(%a : tensor<8xf32>) -> tensor<8xf32> domain [8] tile [8] threads 4 {
  ^bb0(%in: memref<8xf32>, %out: memref<8xf32>):
    // expected-error @+1 {{attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
    %o = tileir.tile_offset -1
    %x = tileir.load %in[%o] : memref<8xf32> -> !tileir.tile<8xf32>
    tileir.store %x, %out[%o] : !tileir.tile<8xf32>, memref<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

func.func @point_negative(%a: tensor<2x64xi32>) -> tensor<2xi32> {
  %r = tileir.kernel ins(%a : tensor<2x64xi32>) -> tensor<2xi32> domain [2] tile [1] threads 32 {
  ^bb0(%in: memref<2x64xi32>, %out: memref<2xi32>):
    // expected-error @+1 {{attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
    %row = tileir.point -1
    %s = tileir.fold add(0 : i32) (%k) in [64] {
      %x = loopir.load %in[%row, %k] : memref<2x64xi32>
      tileir.yield %x : i32
    }
    loopir.store %s, %out[%row] : memref<2xi32>
  }
  return %r : tensor<2xi32>
}

// -----

// An identity that is not neutral: 0 for the max component of online
// softmax's monoid (combining it before -2.5 gives 0).
func.func @composite_identity(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %r = tileir.kernel ins(%a : tensor<4x8xf32>) -> tensor<4xf32> domain [4] tile [1] threads 32 {
  ^bb0(%in: memref<4x8xf32>, %out: memref<4xf32>):
    %row = tileir.point 0
    // expected-error @+1 {{identity is not neutral: combining it before an element changes it}}
    %m, %s = tileir.composite_fold (%k) in [8] identity(0.0 : f32, 0.0 : f32) {
      %x = loopir.load %in[%row, %k] : memref<4x8xf32>
      %one = arith.constant 1.0 : f32
      tileir.yield %x, %one : f32, f32
    } combine {
    ^bb0(%m1: f32, %s1: f32, %m2: f32, %s2: f32):
      %m = arith.maximumf %m1, %m2 : f32
      %s = arith.addf %s1, %s2 : f32
      tileir.yield %m, %s : f32, f32
    }
    loopir.store %s, %out[%row] : memref<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @composite_combine_arguments(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %r = tileir.kernel ins(%a : tensor<4x8xf32>) -> tensor<4xf32> domain [4] tile [1] threads 32 {
  ^bb0(%in: memref<4x8xf32>, %out: memref<4xf32>):
    %row = tileir.point 0
    // expected-error @+1 {{combine region must take two elements of the monoid, 'f32', 'f32'}}
    %s = tileir.composite_fold (%k) in [8] identity(0.0 : f32) {
      %x = loopir.load %in[%row, %k] : memref<4x8xf32>
      tileir.yield %x : f32
    } combine {
    ^bb0(%a1: f32):
      tileir.yield %a1 : f32
    }
    loopir.store %s, %out[%row] : memref<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @composite_contribution(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %r = tileir.kernel ins(%a : tensor<4x8xf32>) -> tensor<4xf32> domain [4] tile [1] threads 32 {
  ^bb0(%in: memref<4x8xf32>, %out: memref<4xf32>):
    %row = tileir.point 0
    // expected-error @+1 {{body must yield one contribution of the monoid's types 'f32', 'f32'}}
    %m, %s = tileir.composite_fold (%k) in [8] identity(0xFF800000 : f32, 0.0 : f32) {
      %x = loopir.load %in[%row, %k] : memref<4x8xf32>
      tileir.yield %x : f32
    } combine {
    ^bb0(%m1: f32, %s1: f32, %m2: f32, %s2: f32):
      %m = arith.maximumf %m1, %m2 : f32
      %s = arith.addf %s1, %s2 : f32
      tileir.yield %m, %s : f32, f32
    }
    loopir.store %s, %out[%row] : memref<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @scan_each_arguments(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = tileir.kernel ins(%a : tensor<4x8xf32>) -> tensor<4x8xf32> domain [4] tile [1] threads 32 {
  ^bb0(%in: memref<4x8xf32>, %out: memref<4x8xf32>):
    %row = tileir.point 0
    // expected-error @+1 {{the each region takes the point's index and one prefix per monoid component (1)}}
    tileir.scan add(0.0 : f32) (%k) in [8] {
      %x = loopir.load %in[%row, %k] : memref<4x8xf32>
      tileir.yield %x : f32
    } each {
    ^bb0(%i: index, %p: f32, %q: f32):
      tileir.yield
    }
  }
  return %r : tensor<4x8xf32>
}

// -----

func.func @scan_rank(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = tileir.kernel ins(%a : tensor<4x8xf32>) -> tensor<4x8xf32> domain [4] tile [1] threads 32 {
  ^bb0(%in: memref<4x8xf32>, %out: memref<4x8xf32>):
    %row = tileir.point 0
    // expected-error @+1 {{scans one dimension, got 2 bounds}}
    tileir.scan add(0.0 : f32) (%k, %l) in [2, 4] {
      %x = loopir.load %in[%row, %k] : memref<4x8xf32>
      tileir.yield %x : f32
    } each {
    ^bb0(%i: index, %p: f32):
      tileir.yield
    }
  }
  return %r : tensor<4x8xf32>
}

// -----

func.func @scan_identity(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = tileir.kernel ins(%a : tensor<4x8xf32>) -> tensor<4x8xf32> domain [4] tile [1] threads 32 {
  ^bb0(%in: memref<4x8xf32>, %out: memref<4x8xf32>):
    %row = tileir.point 0
    // expected-error @+1 {{identity #0 of mul must be 1.000000e+00 : f32, got 0.000000e+00 : f32}}
    tileir.scan mul(0.0 : f32) (%k) in [8] {
      %x = loopir.load %in[%row, %k] : memref<4x8xf32>
      tileir.yield %x : f32
    } each {
    ^bb0(%i: index, %p: f32):
      loopir.store %p, %out[%row, %i] : memref<4x8xf32>
      tileir.yield
    }
  }
  return %r : tensor<4x8xf32>
}

// -----

func.func @composite_scan_each_arguments(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = tileir.kernel ins(%a : tensor<4x8xf32>) -> tensor<4x8xf32> domain [4] tile [1] threads 32 {
  ^bb0(%in: memref<4x8xf32>, %out: memref<4x8xf32>):
    %row = tileir.point 0
    %one = arith.constant 1.0 : f32
    // expected-error @+1 {{the each region takes the point's index and one prefix per monoid component (2)}}
    tileir.composite_scan (%k) in [8] identity(0xFF800000 : f32, 0.0 : f32) {
      %x = loopir.load %in[%row, %k] : memref<4x8xf32>
      tileir.yield %x, %one : f32, f32
    } combine {
    ^bb0(%m1: f32, %s1: f32, %m2: f32, %s2: f32):
      %m = arith.maximumf %m1, %m2 : f32
      %s = arith.addf %s1, %s2 : f32
      tileir.yield %m, %s : f32, f32
    } each {
    ^bb0(%i: index, %m: f32):
      tileir.yield
    }
  }
  return %r : tensor<4x8xf32>
}

// -----

func.func @composite_scan_identity(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = tileir.kernel ins(%a : tensor<4x8xf32>) -> tensor<4x8xf32> domain [4] tile [1] threads 32 {
  ^bb0(%in: memref<4x8xf32>, %out: memref<4x8xf32>):
    %row = tileir.point 0
    %one = arith.constant 1.0 : f32
    // expected-error @+1 {{identity is not neutral: combining it before an element changes it}}
    tileir.composite_scan (%k) in [8] identity(0.0 : f32, 0.0 : f32) {
      %x = loopir.load %in[%row, %k] : memref<4x8xf32>
      tileir.yield %x, %one : f32, f32
    } combine {
    ^bb0(%m1: f32, %s1: f32, %m2: f32, %s2: f32):
      %m = arith.maximumf %m1, %m2 : f32
      %s = arith.addf %s1, %s2 : f32
      tileir.yield %m, %s : f32, f32
    } each {
    ^bb0(%i: index, %m: f32, %s: f32):
      tileir.yield
    }
  }
  return %r : tensor<4x8xf32>
}

// -----

func.func @composite_scan_combine(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = tileir.kernel ins(%a : tensor<4x8xf32>) -> tensor<4x8xf32> domain [4] tile [1] threads 32 {
  ^bb0(%in: memref<4x8xf32>, %out: memref<4x8xf32>):
    %row = tileir.point 0
    %one = arith.constant 1.0 : f32
    // expected-error @+1 {{combine region must yield one element of the monoid, 'f32', 'f32'}}
    tileir.composite_scan (%k) in [8] identity(0xFF800000 : f32, 0.0 : f32) {
      %x = loopir.load %in[%row, %k] : memref<4x8xf32>
      tileir.yield %x, %one : f32, f32
    } combine {
    ^bb0(%m1: f32, %s1: f32, %m2: f32, %s2: f32):
      %m = arith.maximumf %m1, %m2 : f32
      tileir.yield %m : f32
    } each {
    ^bb0(%i: index, %m: f32, %s: f32):
      tileir.yield
    }
  }
  return %r : tensor<4x8xf32>
}

// -----

func.func @raster_group_of_one_dimension(%a: tensor<100xf32>) -> tensor<100xf32> {
  // expected-error @+1 {{raster_group orders the tiles of the last two domain dimensions; this domain has one}}
  %r = tileir.kernel ins(%a : tensor<100xf32>) -> tensor<100xf32> domain [100] tile [64] threads 64 raster_group 2 {
  ^bb0(%in: memref<100xf32>, %out: memref<100xf32>):
  }
  return %r : tensor<100xf32>
}

// -----

func.func @raster_group_of_zero(%a: tensor<100x100xf32>) -> tensor<100x100xf32> {
  // expected-error @+1 {{attribute 'raster_group' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %r = tileir.kernel ins(%a : tensor<100x100xf32>) -> tensor<100x100xf32> domain [100, 100] tile [64, 64] threads 64 raster_group 0 {
  ^bb0(%in: memref<100x100xf32>, %out: memref<100x100xf32>):
  }
  return %r : tensor<100x100xf32>
}

// -----

func.func @persistent_row_program(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{instances makes a tile program persistent; a kernel with tileir.fold or tileir.distribute takes one tile per instance}}
  %r = tileir.kernel ins(%a : tensor<4x8xf32>) -> tensor<4xf32> domain [4] tile [1] threads 32 instances 2 {
  ^bb0(%in: memref<4x8xf32>, %out: memref<4xf32>):
    %row = tileir.program_id 0
    %m = tileir.fold add(0.0 : f32) (%k) in [8] {
      %x = loopir.load %in[%row, %k] : memref<4x8xf32>
      tileir.yield %x : f32
    }
    loopir.store %m, %out[%row] : memref<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A wave refines an estimate of instances: it needs one.
func.func @wave_without_instances(%a: tensor<100x100xf32>) -> tensor<100x100xf32> {
  // expected-error @+1 {{wave refines a persistent kernel's instances; it needs instances}}
  %r = tileir.kernel ins(%a : tensor<100x100xf32>) -> tensor<100x100xf32> domain [100, 100] tile [64, 64] threads 64 wave {
  ^bb0(%in: memref<100x100xf32>, %out: memref<100x100xf32>):
  }
  return %r : tensor<100x100xf32>
}

// -----

func.func @instances_of_zero(%a: tensor<100x100xf32>) -> tensor<100x100xf32> {
  // expected-error @+1 {{attribute 'instances' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %r = tileir.kernel ins(%a : tensor<100x100xf32>) -> tensor<100x100xf32> domain [100, 100] tile [64, 64] threads 64 instances 0 {
  ^bb0(%in: memref<100x100xf32>, %out: memref<100x100xf32>):
  }
  return %r : tensor<100x100xf32>
}
