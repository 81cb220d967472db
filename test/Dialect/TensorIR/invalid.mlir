// RUN: strata-opt %s -split-input-file -verify-diagnostics

func.func @operand_types_differ(%a: tensor<8xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{all non-scalar operands/results must have the same shape and base type}}
  %0 = "tensorir.add"(%a, %b) : (tensor<8xf32>, tensor<4xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @exp_of_integers(%a: tensor<8xi32>) {
  // expected-error @+1 {{must be statically shaped tensor of floats}}
  %0 = tensorir.exp %a : tensor<8xi32>
  return
}

// -----

func.func @dynamic_shape(%a: tensor<?xf32>) {
  // expected-error @+1 {{must be statically shaped tensor of floats or integers}}
  %0 = tensorir.add %a, %a : tensor<?xf32>
  return
}

// -----

func.func @broadcast_wrong_dims_count(%a: tensor<16xf32>) {
  // expected-error @+1 {{expects one entry in 'dims' per input dimension (1), got 2}}
  %0 = tensorir.broadcast %a dims [0, 1] : tensor<16xf32> -> tensor<8x16xf32>
  return
}

// -----

func.func @broadcast_size_mismatch(%a: tensor<15xf32>) {
  // expected-error @+1 {{input dimension 0 of size 15 cannot broadcast to result dimension 1 of size 16}}
  %0 = tensorir.broadcast %a dims [1] : tensor<15xf32> -> tensor<8x16xf32>
  return
}

// -----

func.func @broadcast_dims_not_increasing(%a: tensor<8x16xf32>) {
  // expected-error @+1 {{expects strictly increasing 'dims'}}
  %0 = tensorir.broadcast %a dims [1, 0] : tensor<8x16xf32> -> tensor<8x16xf32>
  return
}

// -----

func.func @broadcast_dim_out_of_range(%a: tensor<16xf32>) {
  // expected-error @+1 {{dims[0] = 2 is not a result dimension}}
  %0 = tensorir.broadcast %a dims [2] : tensor<16xf32> -> tensor<8x16xf32>
  return
}

// -----

func.func @broadcast_element_type(%a: tensor<16xf32>) {
  // expected-error @+1 {{result element type 'f16' differs from input element type 'f32'}}
  %0 = tensorir.broadcast %a dims [1] : tensor<16xf32> -> tensor<8x16xf16>
  return
}

// -----

func.func @constant_type_mismatch() {
  // expected-error @+1 {{failed to verify that all of {value, result} have same type}}
  %0 = "tensorir.constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<8xf32>
  return
}
