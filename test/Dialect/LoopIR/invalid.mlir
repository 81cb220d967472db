// RUN: strata-opt %s -split-input-file -verify-diagnostics

func.func @buffer_count(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects 2 buffer arguments (one per input, then one per result), got 1}}
  %r = loopir.kernel ins(%a : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%in: memref<4xf32>):
  }
  return %r : tensor<4xf32>
}

// -----

func.func @buffer_type(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{buffer argument #1 has type 'memref<4xf16>', expected 'memref<4xf32>'}}
  %r = loopir.kernel ins(%a : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%in: memref<4xf32>, %out: memref<4xf16>):
  }
  return %r : tensor<4xf32>
}

// -----

func.func @nonpositive_bound() -> tensor<4xf32> {
  %r = loopir.kernel -> tensor<4xf32> {
  ^bb0(%out: memref<4xf32>):
    // expected-error @+1 {{loop bounds must be positive, got 0}}
    loopir.parallel (%i) in [0] {
    }
  }
  return %r : tensor<4xf32>
}

// -----

func.func @wrong_index_count(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = loopir.kernel ins(%a : tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%in: memref<4x4xf32>, %out: memref<4x4xf32>):
    loopir.parallel (%i, %j) in [4, 4] {
      // expected-error @+1 {{expects 2 indices for a buffer of rank 2 (or a map), got 1}}
      %x = loopir.load %in[%i] : memref<4x4xf32>
    }
  }
  return %r : tensor<4x4xf32>
}

// -----

func.func @map_arity(%a: tensor<4xf32>) -> tensor<4x4xf32> {
  %r = loopir.kernel ins(%a : tensor<4xf32>) -> tensor<4x4xf32> {
  ^bb0(%in: memref<4xf32>, %out: memref<4x4xf32>):
    loopir.parallel (%i, %j) in [4, 4] {
      // expected-error @+1 {{index map takes 1 dimensions but 2 indices are given}}
      %x = loopir.load %in[%i, %j] map affine_map<(d0) -> (d0)> : memref<4xf32>
    }
  }
  return %r : tensor<4x4xf32>
}

// -----

func.func @map_results(%a: tensor<4xf32>) -> tensor<4x4xf32> {
  %r = loopir.kernel ins(%a : tensor<4xf32>) -> tensor<4x4xf32> {
  ^bb0(%in: memref<4xf32>, %out: memref<4x4xf32>):
    loopir.parallel (%i, %j) in [4, 4] {
      %x = loopir.load %in[%i, %j] map affine_map<(d0, d1) -> (d1)> : memref<4xf32>
      // expected-error @+1 {{index map produces 1 indices for a buffer of rank 2}}
      loopir.store %x, %out[%i, %j] map affine_map<(d0, d1) -> (d1)> : memref<4x4xf32>
    }
  }
  return %r : tensor<4x4xf32>
}

// -----

func.func @store_type(%a: tensor<4xf32>) -> tensor<4xi32> {
  %r = loopir.kernel ins(%a : tensor<4xf32>) -> tensor<4xi32> {
  ^bb0(%in: memref<4xf32>, %out: memref<4xi32>):
    loopir.parallel (%i) in [4] {
      %x = loopir.load %in[%i] : memref<4xf32>
      // expected-error @+1 {{stored value matches the buffer's element type}}
      "loopir.store"(%x, %out, %i) : (f32, memref<4xi32>, index) -> ()
    }
  }
  return %r : tensor<4xi32>
}

// -----

func.func @not_isolated(%a: tensor<4xf32>, %s: f32) -> tensor<4xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %r = loopir.kernel ins(%a : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%in: memref<4xf32>, %out: memref<4xf32>):
    loopir.parallel (%i) in [4] {
      // expected-error @+1 {{using value defined outside the region}}
      loopir.store %s, %out[%i] : memref<4xf32>
    }
  }
  return %r : tensor<4xf32>
}

// -----

func.func @reduce_result_type(%a: tensor<4xf32>) -> tensor<f32> {
  %r = loopir.kernel ins(%a : tensor<4xf32>) -> tensor<f32> {
  ^bb0(%in: memref<4xf32>, %out: memref<f32>):
    loopir.parallel () in [] {
      // expected-error @+1 {{expects one result of the contribution type 'f32'}}
      %s = loopir.reduce add (%k) in [4] : i32 {
        %x = loopir.load %in[%k] : memref<4xf32>
        loopir.yield %x : f32
      }
    }
  }
  return %r : tensor<f32>
}

// -----

func.func @argmax_results(%a: tensor<4xf32>) -> tensor<f32> {
  %r = loopir.kernel ins(%a : tensor<4xf32>) -> tensor<f32> {
  ^bb0(%in: memref<4xf32>, %out: memref<f32>):
    loopir.parallel () in [] {
      // expected-error @+1 {{an arg-reduction has two results: the contribution type 'f32' and the i64 position}}
      %s = loopir.reduce argmax (%k) in [4] : f32 {
        %x = loopir.load %in[%k] : memref<4xf32>
        loopir.yield %x : f32
      }
    }
  }
  return %r : tensor<f32>
}

// -----

func.func @unknown_combiner(%a: tensor<4xf32>) -> tensor<f32> {
  %r = loopir.kernel ins(%a : tensor<4xf32>) -> tensor<f32> {
  ^bb0(%in: memref<4xf32>, %out: memref<f32>):
    loopir.parallel () in [] {
      // expected-error @+1 {{unknown combiner 'xor'}}
      %s = loopir.reduce xor (%k) in [4] : f32 {
        %x = loopir.load %in[%k] : memref<4xf32>
        loopir.yield %x : f32
      }
    }
  }
  return %r : tensor<f32>
}

// -----

func.func @writes_input(%a: tensor<8xf32>) -> tensor<8xf32> {
  %r = loopir.kernel ins(%a : tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%in: memref<8xf32>, %out: memref<8xf32>):
    loopir.parallel (%i) in [8] {
      %x = loopir.load %in[%i] : memref<8xf32>
      // expected-error @+1 {{writes an input buffer of its kernel; a kernel only writes its result buffers}}
      loopir.store %x, %in[%i] : memref<8xf32>
    }
  }
  return %r : tensor<8xf32>
}

// -----

func.func @guard_without_padding(%a: tensor<8xf32>) -> tensor<9xf32> {
  %r = loopir.kernel ins(%a : tensor<8xf32>) -> tensor<9xf32> {
  ^bb0(%in: memref<8xf32>, %out: memref<9xf32>):
    loopir.parallel (%i) in [9] {
      // expected-error @+1 {{takes a guard and a padding together, or neither}}
      %x = "loopir.load"(%in, %i) {map = affine_map<(d0) -> (d0 - 1)>, guard = affine_set<(d0) : (d0 - 1 >= 0)>} : (memref<8xf32>, index) -> f32
      loopir.store %x, %out[%i] : memref<9xf32>
    }
  }
  return %r : tensor<9xf32>
}

// -----

func.func @guard_dims(%a: tensor<8xf32>) -> tensor<9xf32> {
  %r = loopir.kernel ins(%a : tensor<8xf32>) -> tensor<9xf32> {
  ^bb0(%in: memref<8xf32>, %out: memref<9xf32>):
    loopir.parallel (%i) in [9] {
      // expected-error @+1 {{guard has 2 dimensions and 0 symbols; expected 1 dimensions (one per index) and no symbols}}
      %x = loopir.load %in[%i] map affine_map<(d0) -> (d0 - 1)> if affine_set<(d0, d1) : (d0 - 1 >= 0)> else 0.0 : f32 : memref<8xf32>
      loopir.store %x, %out[%i] : memref<9xf32>
    }
  }
  return %r : tensor<9xf32>
}

// -----

func.func @padding_type(%a: tensor<8xf32>) -> tensor<9xf32> {
  %r = loopir.kernel ins(%a : tensor<8xf32>) -> tensor<9xf32> {
  ^bb0(%in: memref<8xf32>, %out: memref<9xf32>):
    loopir.parallel (%i) in [9] {
      // expected-error @+1 {{padding of type 'f16' for a load of 'f32'}}
      %x = loopir.load %in[%i] map affine_map<(d0) -> (d0 - 1)> if affine_set<(d0) : (d0 - 1 >= 0)> else 0.0 : f16 : memref<8xf32>
      loopir.store %x, %out[%i] : memref<9xf32>
    }
  }
  return %r : tensor<9xf32>
}
