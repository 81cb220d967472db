// RUN: strata-opt %s -split-input-file --tensorir-decompose | FileCheck %s

// A matmul is broadcast · multiply · reduce(sum) over the joint space
// (M, N, K): the 3-D product is what loop fusion will never store.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<16x64xf32>, %[[B:.*]]: tensor<64x8xf32>)
// CHECK: %[[A3:.*]] = tensorir.broadcast %[[A]] dims [0, 2] : tensor<16x64xf32> -> tensor<16x8x64xf32>
// CHECK: %[[BT:.*]] = tensorir.transpose %[[B]] perm [1, 0] : tensor<64x8xf32> -> tensor<8x64xf32>
// CHECK: %[[B3:.*]] = tensorir.broadcast %[[BT]] dims [1, 2] : tensor<8x64xf32> -> tensor<16x8x64xf32>
// CHECK: %[[P:.*]] = tensorir.mul %[[A3]], %[[B3]] : tensor<16x8x64xf32>
// CHECK: %[[C:.*]] = tensorir.reduce sum %[[P]] axes [2] : tensor<16x8x64xf32> -> tensor<16x8xf32>
// CHECK: return %[[C]]
func.func @matmul(%a: tensor<16x64xf32>, %b: tensor<64x8xf32>) -> tensor<16x8xf32> {
  %0 = tensorir.matmul %a, %b : (tensor<16x64xf32>, tensor<64x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// CHECK-LABEL: func.func @bmm
// CHECK: tensorir.broadcast %{{.*}} dims [0, 1, 3] : tensor<2x16x64xf32> -> tensor<2x16x8x64xf32>
// CHECK: tensorir.transpose %{{.*}} perm [0, 2, 1] : tensor<2x64x8xf32> -> tensor<2x8x64xf32>
// CHECK: tensorir.broadcast %{{.*}} dims [0, 2, 3] : tensor<2x8x64xf32> -> tensor<2x16x8x64xf32>
// CHECK: tensorir.reduce sum %{{.*}} axes [3] : tensor<2x16x8x64xf32> -> tensor<2x16x8xf32>
func.func @bmm(%a: tensor<2x16x64xf32>, %b: tensor<2x64x8xf32>) -> tensor<2x16x8xf32> {
  %0 = tensorir.matmul %a, %b : (tensor<2x16x64xf32>, tensor<2x64x8xf32>) -> tensor<2x16x8xf32>
  return %0 : tensor<2x16x8xf32>
}

// -----

// Linear needs no transpose: the weight is already (N, K). Leading
// dimensions flatten into M (a matrix product, not a batch the weight
// broadcasts over), as PyTorch's decomposition does.
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[X:.*]]: tensor<2x5x64xf32>, %[[W:.*]]: tensor<32x64xf32>, %[[B:.*]]: tensor<32xf32>)
// CHECK-NOT: tensorir.transpose
// CHECK: %[[X2:.*]] = tensorir.reshape %[[X]] : tensor<2x5x64xf32> -> tensor<10x64xf32>
// CHECK: %[[X3:.*]] = tensorir.broadcast %[[X2]] dims [0, 2] : tensor<10x64xf32> -> tensor<10x32x64xf32>
// CHECK: %[[W3:.*]] = tensorir.broadcast %[[W]] dims [1, 2] : tensor<32x64xf32> -> tensor<10x32x64xf32>
// CHECK: %[[P:.*]] = tensorir.mul %[[X3]], %[[W3]]
// CHECK: %[[S:.*]] = tensorir.reduce sum %[[P]] axes [2] : tensor<10x32x64xf32> -> tensor<10x32xf32>
// CHECK: %[[BB:.*]] = tensorir.broadcast %[[B]] dims [1] : tensor<32xf32> -> tensor<10x32xf32>
// CHECK: %[[Y:.*]] = tensorir.add %[[S]], %[[BB]] : tensor<10x32xf32>
// CHECK: tensorir.reshape %[[Y]] : tensor<10x32xf32> -> tensor<2x5x32xf32>
func.func @linear(%x: tensor<2x5x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<2x5x32xf32> {
  %0 = tensorir.linear %x, %w, %b : (tensor<2x5x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<2x5x32xf32>
  return %0 : tensor<2x5x32xf32>
}

// -----

// CHECK-LABEL: func.func @einsum
// "ij,jk->ik" decomposes exactly like a matmul.
// CHECK: tensorir.broadcast %{{.*}} dims [0, 2] : tensor<16x64xf32> -> tensor<16x8x64xf32>
// CHECK: tensorir.transpose %{{.*}} perm [1, 0] : tensor<64x8xf32> -> tensor<8x64xf32>
// CHECK: tensorir.reduce sum %{{.*}} axes [2] : tensor<16x8x64xf32> -> tensor<16x8xf32>
// A one-operand einsum is a transpose, or a reduction.
// CHECK: tensorir.transpose %{{.*}} perm [1, 0] : tensor<16x64xf32> -> tensor<64x16xf32>
// CHECK: tensorir.reduce sum %{{.*}} axes [1] : tensor<16x64xf32> -> tensor<16xf32>
func.func @einsum(%a: tensor<16x64xf32>, %b: tensor<64x8xf32>) -> (tensor<16x8xf32>, tensor<64x16xf32>, tensor<16xf32>) {
  %0 = tensorir.einsum "ij,jk->ik" %a, %b : (tensor<16x64xf32>, tensor<64x8xf32>) -> tensor<16x8xf32>
  %1 = tensorir.einsum "ij->ji" %a : (tensor<16x64xf32>) -> tensor<64x16xf32>
  %2 = tensorir.einsum "ij->i" %a : (tensor<16x64xf32>) -> tensor<16xf32>
  return %0, %1, %2 : tensor<16x8xf32>, tensor<64x16xf32>, tensor<16xf32>
}

// -----

// Softmax is max, subtract, exp, sum, divide (the max keeps exp finite).
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<32x2048xf32>)
// CHECK: %[[M:.*]] = tensorir.reduce max %[[X]] axes [1] keepdim : tensor<32x2048xf32> -> tensor<32x1xf32>
// CHECK: %[[MB:.*]] = tensorir.broadcast %[[M]] dims [0, 1] : tensor<32x1xf32> -> tensor<32x2048xf32>
// CHECK: %[[D:.*]] = tensorir.sub %[[X]], %[[MB]]
// CHECK: %[[E:.*]] = tensorir.exp %[[D]]
// CHECK: %[[S:.*]] = tensorir.reduce sum %[[E]] axes [1] keepdim
// CHECK: %[[SB:.*]] = tensorir.broadcast %[[S]] dims [0, 1]
// CHECK: %[[R:.*]] = tensorir.div %[[E]], %[[SB]]
// CHECK: return %[[R]]
func.func @softmax(%x: tensor<32x2048xf32>) -> tensor<32x2048xf32> {
  %0 = tensorir.softmax %x axis 1 : tensor<32x2048xf32>
  return %0 : tensor<32x2048xf32>
}

// -----

// A softmax of halves computes in f32 and rounds once, as PyTorch's kernels
// do: widened, the f32 softmax, narrowed.
// CHECK-LABEL: func.func @softmax_of_halves
// CHECK-SAME: (%[[X:.*]]: tensor<4x70xbf16>)
// CHECK: %[[W:.*]] = tensorir.cast %[[X]] : tensor<4x70xbf16> to tensor<4x70xf32>
// CHECK: tensorir.reduce max %[[W]] axes [1] keepdim : tensor<4x70xf32> -> tensor<4x1xf32>
// CHECK: tensorir.exp %{{.*}} : tensor<4x70xf32>
// CHECK: %[[R:.*]] = tensorir.div %{{.*}}, %{{.*}} : tensor<4x70xf32>
// CHECK: %[[N:.*]] = tensorir.cast %[[R]] : tensor<4x70xf32> to tensor<4x70xbf16>
// CHECK: return %[[N]]
func.func @softmax_of_halves(%x: tensor<4x70xbf16>) -> tensor<4x70xbf16> {
  %0 = tensorir.softmax %x axis 1 : tensor<4x70xbf16>
  return %0 : tensor<4x70xbf16>
}

// -----

// log_softmax = (x - max) - log(sum(exp(x - max)))
// CHECK-LABEL: func.func @log_softmax
// CHECK: %[[D:.*]] = tensorir.sub
// CHECK: %[[E:.*]] = tensorir.exp %[[D]]
// CHECK: %[[S:.*]] = tensorir.reduce sum %[[E]] axes [0] keepdim
// CHECK: %[[L:.*]] = tensorir.log %[[S]]
// CHECK: %[[LB:.*]] = tensorir.broadcast %[[L]]
// CHECK: tensorir.sub %[[D]], %[[LB]]
func.func @log_softmax(%x: tensor<7x3xf32>) -> tensor<7x3xf32> {
  %0 = tensorir.log_softmax %x axis 0 : tensor<7x3xf32>
  return %0 : tensor<7x3xf32>
}

// -----

// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<8x512xf32>, %[[W:.*]]: tensor<512xf32>, %[[B:.*]]: tensor<512xf32>)
// CHECK-DAG: %[[EPS:.*]] = tensorir.constant dense<9.99{{[0-9]*}}E-6> : tensor<8x1xf32>
// CHECK-DAG: %[[N:.*]] = tensorir.constant dense<5.120000e+02> : tensor<8x1xf32>
// CHECK: %[[SUM:.*]] = tensorir.reduce sum %[[X]] axes [1] keepdim
// CHECK: %[[MEAN:.*]] = tensorir.div %[[SUM]], %[[N]]
// CHECK: %[[C:.*]] = tensorir.sub %[[X]], %{{.*}}
// CHECK: %[[SQ:.*]] = tensorir.mul %[[C]], %[[C]]
// CHECK: %[[VS:.*]] = tensorir.reduce sum %[[SQ]] axes [1] keepdim
// CHECK: %[[VAR:.*]] = tensorir.div %[[VS]], %[[N]]
// CHECK: %[[VE:.*]] = tensorir.add %[[VAR]], %[[EPS]]
// CHECK: %[[RSTD:.*]] = tensorir.rsqrt %[[VE]]
// CHECK: %[[Y:.*]] = tensorir.mul %[[C]], %{{.*}}
// CHECK: %[[WB:.*]] = tensorir.broadcast %[[W]] dims [1] : tensor<512xf32> -> tensor<8x512xf32>
// CHECK: %[[YW:.*]] = tensorir.mul %[[Y]], %[[WB]]
// CHECK: %[[BB:.*]] = tensorir.broadcast %[[B]] dims [1]
// CHECK: tensorir.add %[[YW]], %[[BB]]
func.func @layer_norm(%x: tensor<8x512xf32>, %w: tensor<512xf32>, %b: tensor<512xf32>) -> tensor<8x512xf32> {
  %0 = tensorir.layer_norm %x weight(%w : tensor<512xf32>) bias(%b : tensor<512xf32>) normalized_rank 1 eps 1.0e-05 : tensor<8x512xf32>
  return %0 : tensor<8x512xf32>
}

// -----

// A shift without a scale: the bias is added to the normalized value, and
// nothing multiplies it (the printed form names each operand; without the
// names a bias-only layer norm read back as a weight-only one).
// CHECK-LABEL: func.func @layer_norm_bias_only
// CHECK-SAME: (%[[X:.*]]: tensor<8x512xf32>, %[[B:.*]]: tensor<512xf32>)
// CHECK: %[[RSTD:.*]] = tensorir.rsqrt
// CHECK: %[[Y:.*]] = tensorir.mul %{{.*}}, %{{.*}}
// CHECK-NOT: tensorir.mul
// CHECK: %[[BB:.*]] = tensorir.broadcast %[[B]] dims [1]
// CHECK-NOT: tensorir.mul
// CHECK: tensorir.add %[[Y]], %[[BB]]
func.func @layer_norm_bias_only(%x: tensor<8x512xf32>, %b: tensor<512xf32>) -> tensor<8x512xf32> {
  %0 = tensorir.layer_norm %x bias(%b : tensor<512xf32>) normalized_rank 1 eps 1.0e-05 : tensor<8x512xf32>
  return %0 : tensor<8x512xf32>
}

// -----

// CHECK-LABEL: func.func @activations
// CHECK-SAME: (%[[X:.*]]: tensor<8x512xf32>)
// CHECK-DAG: %[[Z:.*]] = tensorir.constant dense<0.000000e+00>
// CHECK-DAG: %[[K:.*]] = tensorir.constant dense<0.797884{{[0-9]*}}>
// CHECK-DAG: %[[C:.*]] = tensorir.constant dense<4.471500e-02>
// CHECK-DAG: %[[S2:.*]] = tensorir.constant dense<0.707106{{[0-9]*}}>
// gelu (exact): 0.5 * x * (1 + erf(x / sqrt(2)))
// CHECK: %[[XS:.*]] = tensorir.mul %[[X]], %[[S2]]
// CHECK: %[[ERF:.*]] = tensorir.erf %[[XS]]
// CHECK: tensorir.add %{{.*}}, %[[ERF]]
// gelu (tanh): tanh(sqrt(2 / pi) * (x + 0.044715 x^3))
// CHECK: tensorir.mul %[[C]], %{{.*}}
// CHECK: tensorir.mul %[[K]], %{{.*}}
// CHECK: tensorir.tanh
// relu: max(x, 0)
// CHECK: tensorir.max %[[X]], %[[Z]]
// silu: x * sigmoid(x)
// CHECK: %[[SG:.*]] = tensorir.sigmoid %[[X]]
// CHECK: tensorir.mul %[[X]], %[[SG]]
func.func @activations(%x: tensor<8x512xf32>) -> (tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>) {
  %0 = tensorir.gelu %x : tensor<8x512xf32>
  %1 = tensorir.gelu %x tanh : tensor<8x512xf32>
  %2 = tensorir.relu %x : tensor<8x512xf32>
  %3 = tensorir.silu %x : tensor<8x512xf32>
  return %0, %1, %2, %3 : tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>
}

// -----

// Integer clamps use integer bounds.
// CHECK-LABEL: func.func @clamp
// CHECK-DAG: %[[LO:.*]] = tensorir.constant dense<-3> : tensor<8xi32>
// CHECK-DAG: %[[HI:.*]] = tensorir.constant dense<5> : tensor<8xi32>
// CHECK: %[[M:.*]] = tensorir.max %{{.*}}, %[[LO]] : tensor<8xi32>
// CHECK: tensorir.min %[[M]], %[[HI]] : tensor<8xi32>
func.func @clamp(%x: tensor<8xi32>) -> tensor<8xi32> {
  %0 = tensorir.clamp %x min -3.0 max 5.0 : tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

// CHECK-LABEL: func.func @mean_and_var
// CHECK-DAG: %[[N1:.*]] = tensorir.constant dense<4.000000e+00> : tensor<6x7xf32>
// CHECK-DAG: %[[N:.*]] = tensorir.constant dense<4.200000e+01> : tensor<5xf32>
// mean over two axes divides by their product (6 * 7).
// CHECK: %[[S:.*]] = tensorir.reduce sum %[[X:.*]] axes [0, 2] : tensor<6x5x7xf32> -> tensor<5xf32>
// CHECK: tensorir.div %[[S]], %[[N]]
// var with correction 1 divides the squared deviations by N - 1 = 4.
// CHECK: tensorir.reduce sum %[[X]] axes [1] keepdim
// CHECK: %[[SQ:.*]] = tensorir.mul %[[D:.*]], %[[D]]
// CHECK: %[[VS:.*]] = tensorir.reduce sum %[[SQ]] axes [1] : tensor<6x5x7xf32> -> tensor<6x7xf32>
// CHECK: tensorir.div %[[VS]], %[[N1]]
func.func @mean_and_var(%x: tensor<6x5x7xf32>) -> (tensor<5xf32>, tensor<6x7xf32>) {
  %0 = tensorir.mean %x axes [0, 2] : tensor<6x5x7xf32> -> tensor<5xf32>
  %1 = tensorir.var %x axes [1] correction 1 : tensor<6x5x7xf32> -> tensor<6x7xf32>
  return %0, %1 : tensor<5xf32>, tensor<6x7xf32>
}

// -----

// A convolution is an implicit GEMM: the padded input's windows as the
// im2col matrix (groups, N*OH*OW, C/g*KH*KW), all views, times the weight
// as (groups, C/g*KH*KW, OC/g), and views back to NCHW.
// CHECK-LABEL: func.func @conv
// CHECK: %[[P:.*]] = tensorir.pad %arg0 low [0, 0, 1, 1] high [0, 0, 1, 1] value 0.000000e+00 : f32 : tensor<2x4x9x11xf32> -> tensor<2x4x11x13xf32>
// CHECK: %[[W:.*]] = tensorir.window %[[P]] sizes [3, 3] strides [2, 1] dilations [1, 1] : tensor<2x4x11x13xf32> -> tensor<2x4x5x11x3x3xf32>
// CHECK: tensorir.reshape %[[W]] : tensor<2x4x5x11x3x3xf32> -> tensor<2x2x2x5x11x3x3xf32>
// CHECK: tensorir.transpose %{{.*}} perm [1, 0, 3, 4, 2, 5, 6] : tensor<2x2x2x5x11x3x3xf32> -> tensor<2x2x5x11x2x3x3xf32>
// CHECK: tensorir.reshape %{{.*}} : tensor<2x2x5x11x2x3x3xf32> -> tensor<2x110x18xf32>
// CHECK: tensorir.reshape %arg1 : tensor<6x2x3x3xf32> -> tensor<2x3x18xf32>
// CHECK: tensorir.reduce sum %{{.*}} axes [3] : tensor<2x110x3x18xf32> -> tensor<2x110x3xf32>
// CHECK: tensorir.reshape %{{.*}} : tensor<2x110x3xf32> -> tensor<2x2x5x11x3xf32>
// CHECK: tensorir.transpose %{{.*}} perm [1, 0, 4, 2, 3] : tensor<2x2x5x11x3xf32> -> tensor<2x2x3x5x11xf32>
// CHECK: tensorir.reshape %{{.*}} : tensor<2x2x3x5x11xf32> -> tensor<2x6x5x11xf32>
// CHECK: tensorir.broadcast %arg2 dims [1] : tensor<6xf32> -> tensor<2x6x5x11xf32>
// CHECK: tensorir.add
func.func @conv(%x: tensor<2x4x9x11xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<2x6x5x11xf32> {
  %y = tensorir.conv %x, %w, %b strides [2, 1] padding [1, 1] dilations [1, 1] groups 2 : (tensor<2x4x9x11xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<2x6x5x11xf32>
  return %y : tensor<2x6x5x11xf32>
}

// -----

// A transposed convolution is a convolution with stride 1 of the input
// spread by its strides (a unit dimension padded with stride - 1 zeros,
// merged back) and padded by d (K - 1) - p, by the weight with its
// channels exchanged within each group and flipped in its window.
// CHECK-LABEL: func.func @conv_transpose
// CHECK: tensorir.reshape %arg0 : tensor<1x4x3x5xf32> -> tensor<1x4x3x1x5x1xf32>
// CHECK: tensorir.pad %{{.*}} low [0, 0, 0, 0, 0, 0] high [0, 0, 0, 1, 0, 1] value 0.000000e+00 : f32 : tensor<1x4x3x1x5x1xf32> -> tensor<1x4x3x2x5x2xf32>
// CHECK: tensorir.reshape %{{.*}} : tensor<1x4x3x2x5x2xf32> -> tensor<1x4x6x10xf32>
// CHECK: tensorir.reshape %arg1 : tensor<4x3x2x3xf32> -> tensor<2x2x3x2x3xf32>
// CHECK: tensorir.transpose %{{.*}} perm [0, 2, 1, 3, 4] : tensor<2x2x3x2x3xf32> -> tensor<2x3x2x2x3xf32>
// CHECK: tensorir.reshape %{{.*}} : tensor<2x3x2x2x3xf32> -> tensor<6x2x2x3xf32>
// CHECK: tensorir.slice %{{.*}} offsets [0, 0, 1, 2] strides [1, 1, -1, -1] : tensor<6x2x2x3xf32> -> tensor<6x2x2x3xf32>
// CHECK: tensorir.pad %{{.*}} low [0, 0, 1, 1] high [0, 0, 0, 1] value 0.000000e+00 : f32 : tensor<1x4x6x10xf32> -> tensor<1x4x7x12xf32>
// CHECK: tensorir.window %{{.*}} sizes [2, 3] strides [1, 1] dilations [1, 1] : tensor<1x4x7x12xf32> -> tensor<1x4x6x10x2x3xf32>
func.func @conv_transpose(%x: tensor<1x4x3x5xf32>, %w: tensor<4x3x2x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x6x10xf32> {
  %y = tensorir.conv_transpose %x, %w, %b strides [2, 2] padding [0, 1] output_padding [0, 1] dilations [1, 1] groups 2 : (tensor<1x4x3x5xf32>, tensor<4x3x2x3xf32>, tensor<6xf32>) -> tensor<1x6x6x10xf32>
  return %y : tensor<1x6x6x10xf32>
}
