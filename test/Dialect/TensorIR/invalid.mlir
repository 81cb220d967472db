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

// -----

func.func @transpose_not_permutation(%a: tensor<4x5xf32>) {
  // expected-error @+2 {{perm is not a permutation}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tensorir.transpose %a perm [0, 0] : tensor<4x5xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @transpose_result_type(%a: tensor<4x5xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<5x4xf32>' are incompatible with return type(s) of operation 'tensor<4x5xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tensorir.transpose %a perm [1, 0] : tensor<4x5xf32> -> tensor<4x5xf32>
  return
}

// -----

func.func @reshape_count(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{changes the number of elements from 20 to 21}}
  %0 = tensorir.reshape %a : tensor<4x5xf32> -> tensor<3x7xf32>
  return
}

// -----

func.func @slice_out_of_bounds(%a: tensor<10x16xf32>) {
  // expected-error @+1 {{dimension 0 reads index 10 of a dimension of size 10}}
  %0 = tensorir.slice %a offsets [1, 0] strides [3, 1] : tensor<10x16xf32> -> tensor<4x16xf32>
  return
}

// -----

func.func @slice_stride(%a: tensor<10x16xf32>) {
  // expected-error @+1 {{strides must be nonzero}}
  %0 = tensorir.slice %a offsets [0, 0] strides [0, 1] : tensor<10x16xf32> -> tensor<4x16xf32>
  return
}

// -----

func.func @slice_backwards_past_the_start(%a: tensor<10x16xf32>) {
  // expected-error @+1 {{dimension 1 reads index -1 of a dimension of size 16}}
  %0 = tensorir.slice %a offsets [0, 14] strides [1, -1] : tensor<10x16xf32> -> tensor<10x16xf32>
  return
}

// -----

func.func @concat_mismatch(%a: tensor<4x3xf32>, %b: tensor<5x5xf32>) {
  // expected-error @+2 {{inputs differ in dimension 0, which is not the concatenation axis}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tensorir.concat %a, %b axis 1 : (tensor<4x3xf32>, tensor<5x5xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @gather_axis(%t: tensor<10x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+2 {{axis 2 is outside a tensor of rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tensorir.gather %t[%i] axis 2 : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return
}

// -----

func.func @reduce_axes(%x: tensor<4x5xf32>) {
  // expected-error @+2 {{axes must be distinct and increasing}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tensorir.reduce sum %x axes [1, 0] : tensor<4x5xf32> -> tensor<f32>
  return
}

// -----

func.func @reduce_result(%x: tensor<4x5xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x1xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tensorir.reduce sum %x axes [1] keepdim : tensor<4x5xf32> -> tensor<4xf32>
  return
}

// -----

func.func @arg_reduce_sum(%x: tensor<4x5xf32>) {
  // expected-error @+2 {{arg_reduce takes max or min, not sum}}
  // expected-error @+1 {{failed to infer returned types}}
  %0, %1 = tensorir.arg_reduce sum %x axis 1 : tensor<4x5xf32> -> tensor<4xf32>, tensor<4xi64>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<4x5xf32>, %b: tensor<6x7xf32>) {
  // expected-error @+2 {{contracted sizes differ: 5 and 6}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tensorir.matmul %a, %b : (tensor<4x5xf32>, tensor<6x7xf32>) -> tensor<4x7xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x4x5xf32>, %b: tensor<3x5x7xf32>) {
  // expected-error @+2 {{batch dimensions differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tensorir.matmul %a, %b : (tensor<2x4x5xf32>, tensor<3x5x7xf32>) -> tensor<2x4x7xf32>
  return
}

// -----

func.func @einsum_no_arrow(%a: tensor<4x5xf32>) {
  // expected-error @+2 {{einsum equation 'ij' needs an explicit '->' output}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tensorir.einsum "ij" %a : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @einsum_sizes(%a: tensor<4x5xf32>, %b: tensor<6x7xf32>) {
  // expected-error @+2 {{einsum subscript 'j' has sizes 5 and 6}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tensorir.einsum "ij,jk->ik" %a, %b : (tensor<4x5xf32>, tensor<6x7xf32>) -> tensor<4x7xf32>
  return
}

// -----

func.func @einsum_diagonal(%a: tensor<4x4xf32>) {
  // expected-error @+2 {{einsum subscript 'i' repeats within one operand}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tensorir.einsum "ii->i" %a : (tensor<4x4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @linear_features(%x: tensor<8x64xf32>, %w: tensor<32x63xf32>) {
  // expected-error @+2 {{input features 64 differ from the weight's 63}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tensorir.linear %x, %w : (tensor<8x64xf32>, tensor<32x63xf32>) -> tensor<8x32xf32>
  return
}

// -----

func.func @softmax_axis(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{axis 2 is outside a tensor of rank 2}}
  %0 = tensorir.softmax %x axis 2 : tensor<8x64xf32>
  return
}

// -----

func.func @layer_norm_weight(%x: tensor<8x64xf32>, %w: tensor<32xf32>) {
  // expected-error @+1 {{weight and bias must have the normalized shape and the input's element type}}
  %0 = tensorir.layer_norm %x weight(%w : tensor<32xf32>) normalized_rank 1 eps 1.0e-05 : tensor<8x64xf32>
  return
}

// -----

func.func @cast_shape(%x: tensor<8xf32>) {
  // expected-error @+1 {{all non-scalar operands/results must have the same shape}}
  %0 = tensorir.cast %x : tensor<8xf32> to tensor<4xi32>
  return
}

// -----

func.func @iota_dim() {
  // expected-error @+1 {{dimension 2 is outside a result of rank 2}}
  %0 = tensorir.iota dim 2 : tensor<4x8xi64>
  return
}

// -----

func.func @select_condition(%c: tensor<8xf32>, %x: tensor<8xf32>) {
  // expected-error @+1 {{condition is a tensor of i1 of the values' shape}}
  %0 = "tensorir.select"(%c, %x, %x) : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @iota_negative_dim() -> tensor<4x8xf32> {
  // expected-error @+1 {{attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = tensorir.iota dim -1 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// The extreme of nothing has no position (PyTorch rejects it too).
func.func @arg_reduce_empty_axis(%a: tensor<3x0xf32>) {
  // expected-error @+2 {{arg_reduce over the empty axis 1 has no position to give}}
  // expected-error @+1 {{failed to infer returned types}}
  %v, %i = tensorir.arg_reduce max %a axis 1 : tensor<3x0xf32> -> tensor<3xf32>, tensor<3xi64>
  return
}

// -----

func.func @gather_empty_axis(%t: tensor<0x4xf32>, %ids: tensor<2xi64>) {
  // expected-error @+2 {{gathers from the empty axis 0: every index is out of bounds}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = tensorir.gather %t[%ids] axis 0 : (tensor<0x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  return
}

// -----

func.func @pad_negative(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{padding must be non-negative (a negative one is a slice), got -1 and 0 in dimension 1}}
  %p = tensorir.pad %x low [0, -1] high [0, 0] value 0.0 : f32 : tensor<4x4xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @pad_value_type(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{pads with a value of type 'f16' a tensor of 'f32'}}
  %p = tensorir.pad %x low [0, 1] high [0, 0] value 0.0 : f16 : tensor<4x4xf32> -> tensor<4x5xf32>
  return
}

// -----

func.func @pad_shape(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{result dimension 1 has size 6, expected 5}}
  %p = tensorir.pad %x low [0, 1] high [0, 0] value 0.0 : f32 : tensor<4x4xf32> -> tensor<4x6xf32>
  return
}

// -----

func.func @window_too_large(%x: tensor<4x4xf32>) {
  // expected-error @+2 {{a window spanning 5 elements does not fit a dimension of 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %w = tensorir.window %x sizes [3] strides [1] dilations [2] : tensor<4x4xf32> -> tensor<4x1x3xf32>
  return
}

// -----

func.func @conv_groups(%x: tensor<1x6x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{groups (4) must divide the input channels (6)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = tensorir.conv %x, %w strides [1, 1] padding [0, 0] dilations [1, 1] groups 4 : (tensor<1x6x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_channels(%x: tensor<1x6x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+2 {{the weight takes 2 input channels, the input has 6}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = tensorir.conv %x, %w strides [1, 1] padding [0, 0] dilations [1, 1] groups 1 : (tensor<1x6x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_window(%x: tensor<1x3x2x2xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{a window spanning 3 elements does not fit the padded input dimension of 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = tensorir.conv %x, %w strides [1, 1] padding [0, 0] dilations [1, 1] groups 1 : (tensor<1x3x2x2xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x1x1xf32>
  return
}

// -----

func.func @conv_transpose_output_padding(%x: tensor<1x3x4x4xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+2 {{output padding 2 must be smaller than the stride or the dilation}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = tensorir.conv_transpose %x, %w strides [2, 2] padding [0, 0] output_padding [2, 0] dilations [1, 1] groups 1 : (tensor<1x3x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<1x2x11x9xf32>
  return
}
