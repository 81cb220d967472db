// Layout ops (transpose, reshape, strided slice), comparisons, selects,
// casts, and the composite activations that decompose into elementwise ops
// (gelu, silu, relu, clamp), run on the CPU and checked element by element
// against a scalar reference that indexes the input directly.
// RUN: strata-opt %s --strata-lower-to-cpu \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_c_runner_utils \
// RUN: | FileCheck %s

// CHECK: layout mismatches: 0{{$}}
// CHECK-NEXT: activation max abs error: {{[0-9.e-]+}}
// CHECK-NEXT: activations within 1e-6: 1

// s = transpose(x)->reshape(4x15)[1::2, 2::3]; q = int(100 / (select(s > 0,
// s^0.5, sigmoid(s)) + 2)) as f32, and the activations of s.
func.func @program(%x: tensor<6x10xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>) {
  %t = tensorir.transpose %x perm [1, 0] : tensor<6x10xf32> -> tensor<10x6xf32>
  %r = tensorir.reshape %t : tensor<10x6xf32> -> tensor<4x15xf32>
  %s = tensorir.slice %r offsets [1, 2] strides [2, 3] : tensor<4x15xf32> -> tensor<2x5xf32>
  %zero = tensorir.constant dense<0.0> : tensor<2x5xf32>
  %half = tensorir.constant dense<0.5> : tensor<2x5xf32>
  %two = tensorir.constant dense<2.0> : tensor<2x5xf32>
  %hundred = tensorir.constant dense<100.0> : tensor<2x5xf32>
  %pos = tensorir.cmp gt, %s, %zero : tensor<2x5xf32>
  %abs = tensorir.abs %s : tensor<2x5xf32>
  %root = tensorir.pow %abs, %half : tensor<2x5xf32>
  %sig = tensorir.sigmoid %s : tensor<2x5xf32>
  %sel = tensorir.select %pos, %root, %sig : tensor<2x5xf32>
  %den = tensorir.add %sel, %two : tensor<2x5xf32>
  %rec = tensorir.reciprocal %den : tensor<2x5xf32>
  %scaled = tensorir.mul %rec, %hundred : tensor<2x5xf32>
  %i = tensorir.cast %scaled : tensor<2x5xf32> to tensor<2x5xi32>
  %q = tensorir.cast %i : tensor<2x5xi32> to tensor<2x5xf32>
  %g = tensorir.gelu %s tanh : tensor<2x5xf32>
  %u = tensorir.silu %s : tensor<2x5xf32>
  %c = tensorir.clamp %s min -0.25 max 0.25 : tensor<2x5xf32>
  %l = tensorir.relu %s : tensor<2x5xf32>
  %a0 = tensorir.add %g, %u : tensor<2x5xf32>
  %a1 = tensorir.add %a0, %c : tensor<2x5xf32>
  %act = tensorir.add %a1, %l : tensor<2x5xf32>
  return %s, %q, %act : tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c10 = arith.constant 10 : index
  %x = memref.alloc() : memref<6x10xf32>
  // x[i, j] = (7 * (10 i + j) mod 23) / 8 - 1.4: values of both signs.
  scf.for %i = %c0 to %c6 step %c1 {
    scf.for %j = %c0 to %c10 step %c1 {
      %lin = affine.apply affine_map<(d0, d1) -> ((d0 * 10 + d1) * 7 mod 23)>(%i, %j)
      %li = arith.index_cast %lin : index to i32
      %lf = arith.sitofp %li : i32 to f32
      %eighth = arith.constant 0.125 : f32
      %off = arith.constant 1.4 : f32
      %v0 = arith.mulf %lf, %eighth : f32
      %v = arith.subf %v0, %off : f32
      memref.store %v, %x[%i, %j] : memref<6x10xf32>
    }
  }
  %xt = bufferization.to_tensor %x restrict : memref<6x10xf32> to tensor<6x10xf32>
  %st, %qt, %actt = func.call @program(%xt) : (tensor<6x10xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>)
  %s = bufferization.to_buffer %st : tensor<2x5xf32> to memref<2x5xf32>
  %q = bufferization.to_buffer %qt : tensor<2x5xf32> to memref<2x5xf32>
  %act = bufferization.to_buffer %actt : tensor<2x5xf32> to memref<2x5xf32>

  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %two = arith.constant 2.0 : f32
  %hundred = arith.constant 100.0 : f32
  %izero = arith.constant 0 : i32
  %ione = arith.constant 1 : i32
  %bad, %err = scf.for %i = %c0 to %c2 step %c1 iter_args(%n0 = %izero, %e0 = %zero) -> (i32, f32) {
    %bad1, %err1 = scf.for %j = %c0 to %c5 step %c1 iter_args(%n1 = %n0, %e1 = %e0) -> (i32, f32) {
      // r[1 + 2i, 2 + 3j] is t at linear index L = 15 (1 + 2i) + 2 + 3j,
      // and t[L / 6, L mod 6] = x[L mod 6, L / 6].
      %lin = affine.apply affine_map<(d0, d1) -> ((1 + d0 * 2) * 15 + 2 + d1 * 3)>(%i, %j)
      %row = arith.remui %lin, %c6 : index
      %col = arith.divui %lin, %c6 : index
      %want = memref.load %x[%row, %col] : memref<6x10xf32>
      %got = memref.load %s[%i, %j] : memref<2x5xf32>
      %ne = arith.cmpf une, %got, %want : f32
      %pos = arith.cmpf ogt, %want, %zero : f32
      %abs = math.absf %want : f32
      %root = math.powf %abs, %half : f32
      %neg = arith.negf %want : f32
      %en = math.exp %neg : f32
      %den0 = arith.addf %one, %en : f32
      %sig = arith.divf %one, %den0 : f32
      %sel = arith.select %pos, %root, %sig : f32
      %den = arith.addf %sel, %two : f32
      %rec = arith.divf %one, %den : f32
      %sc = arith.mulf %rec, %hundred : f32
      %qi = arith.fptosi %sc : f32 to i32
      %qf = arith.sitofp %qi : i32 to f32
      %gotq = memref.load %q[%i, %j] : memref<2x5xf32>
      %neq = arith.cmpf une, %gotq, %qf : f32
      %anyne = arith.ori %ne, %neq : i1
      %inc = arith.select %anyne, %ione, %izero : i32
      %n2 = arith.addi %n1, %inc : i32
      // gelu(tanh) + silu + clamp(-0.25, 0.25) + relu, written out.
      %x2 = arith.mulf %want, %want : f32
      %x3 = arith.mulf %x2, %want : f32
      %k1 = arith.constant 0.044715 : f32
      %k2 = arith.constant 0.7978845608 : f32
      %t0 = arith.mulf %k1, %x3 : f32
      %t1 = arith.addf %want, %t0 : f32
      %t2 = arith.mulf %k2, %t1 : f32
      %th = math.tanh %t2 : f32
      %t3 = arith.addf %one, %th : f32
      %hx = arith.mulf %half, %want : f32
      %gelu = arith.mulf %hx, %t3 : f32
      %silu = arith.mulf %want, %sig : f32
      %lo = arith.constant -0.25 : f32
      %hi = arith.constant 0.25 : f32
      %c0f = arith.maximumf %want, %lo : f32
      %clamp = arith.minimumf %c0f, %hi : f32
      %relu = arith.maximumf %want, %zero : f32
      %a0 = arith.addf %gelu, %silu : f32
      %a1 = arith.addf %a0, %clamp : f32
      %a2 = arith.addf %a1, %relu : f32
      %gota = memref.load %act[%i, %j] : memref<2x5xf32>
      %d = arith.subf %gota, %a2 : f32
      %ad = math.absf %d : f32
      %e2 = arith.maximumf %e1, %ad : f32
      scf.yield %n2, %e2 : i32, f32
    }
    scf.yield %bad1, %err1 : i32, f32
  }
  vector.print str "layout mismatches: "
  vector.print %bad : i32
  vector.print str "activation max abs error: "
  vector.print %err : f32
  %tol = arith.constant 1.0e-6 : f32
  %ok = arith.cmpf ole, %err, %tol : f32
  vector.print str "activations within 1e-6: "
  vector.print %ok : i1
  return
}
