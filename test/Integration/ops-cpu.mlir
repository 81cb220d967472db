// Every tensorir op of the foundation runs on the CPU through the full
// pipeline and matches a scalar reference: float math (erf and tanh go to
// libm), a column broadcast, a row broadcast of a dense constant (a host
// global), integer arithmetic on a ragged 1-D tensor, and a 0-d tensor.
// RUN: strata-opt %s --strata-lower-to-cpu \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_c_runner_utils \
// RUN: | FileCheck %s

// CHECK: float max abs error: 0{{$}}
// CHECK-NEXT: int mismatches: 0{{$}}
// CHECK-NEXT: scalar: 4.71828

// r = min(max(tanh(erf(x)) * sqrt(|x|) + rsqrt(|col| + 1), -x) - log(exp(x)), w)
func.func @floats(%x: tensor<7x5x33xf32>, %col: tensor<7x1x1xf32>) -> tensor<7x5x33xf32> {
  %w = tensorir.constant dense<[0.5, -0.25, 1.0, 0.0, 2.0]> : tensor<5xf32>
  %wb = tensorir.broadcast %w dims [1] : tensor<5xf32> -> tensor<7x5x33xf32>
  %cb = tensorir.broadcast %col dims [0, 1, 2] : tensor<7x1x1xf32> -> tensor<7x5x33xf32>
  %one = tensorir.constant dense<1.0> : tensor<7x5x33xf32>
  %0 = tensorir.erf %x : tensor<7x5x33xf32>
  %1 = tensorir.tanh %0 : tensor<7x5x33xf32>
  %2 = tensorir.abs %x : tensor<7x5x33xf32>
  %3 = tensorir.sqrt %2 : tensor<7x5x33xf32>
  %4 = tensorir.mul %1, %3 : tensor<7x5x33xf32>
  %5 = tensorir.abs %cb : tensor<7x5x33xf32>
  %6 = tensorir.add %5, %one : tensor<7x5x33xf32>
  %7 = tensorir.rsqrt %6 : tensor<7x5x33xf32>
  %8 = tensorir.add %4, %7 : tensor<7x5x33xf32>
  %9 = tensorir.neg %x : tensor<7x5x33xf32>
  %10 = tensorir.max %8, %9 : tensor<7x5x33xf32>
  %11 = tensorir.exp %x : tensor<7x5x33xf32>
  %12 = tensorir.log %11 : tensor<7x5x33xf32>
  %13 = tensorir.sub %10, %12 : tensor<7x5x33xf32>
  %14 = tensorir.min %13, %wb : tensor<7x5x33xf32>
  return %14 : tensor<7x5x33xf32>
}

// r = |max(a * b - c, -a) / 3|
func.func @ints(%a: tensor<513xi32>, %b: tensor<513xi32>, %c: tensor<513xi32>) -> tensor<513xi32> {
  %three = tensorir.constant dense<3> : tensor<513xi32>
  %0 = tensorir.mul %a, %b : tensor<513xi32>
  %1 = tensorir.sub %0, %c : tensor<513xi32>
  %2 = tensorir.neg %a : tensor<513xi32>
  %3 = tensorir.max %1, %2 : tensor<513xi32>
  %4 = tensorir.div %3, %three : tensor<513xi32>
  %5 = tensorir.abs %4 : tensor<513xi32>
  return %5 : tensor<513xi32>
}

// r = exp(x) + 2
func.func @scalar(%x: tensor<f32>) -> tensor<f32> {
  %two = tensorir.constant dense<2.0> : tensor<f32>
  %0 = tensorir.exp %x : tensor<f32>
  %1 = tensorir.add %0, %two : tensor<f32>
  return %1 : tensor<f32>
}

func.func @noise(%i: index) -> f32 {
  %x = arith.index_cast %i : index to i64
  %mul = arith.constant 1103515245 : i64
  %add = arith.constant 12345 : i64
  %mod = arith.constant 2147483648 : i64
  %h0 = arith.muli %x, %mul : i64
  %h1 = arith.addi %h0, %add : i64
  %h = arith.remui %h1, %mod : i64
  %f = arith.uitofp %h : i64 to f32
  %scale = arith.constant 9.31322574615478515625e-10 : f32
  %s = arith.mulf %f, %scale : f32
  %m1 = arith.constant 1.0 : f32
  %r = arith.subf %s, %m1 : f32
  return %r : f32
}

// An integer in [-50, 50) from an index.
func.func @inoise(%i: index) -> i32 {
  %f = func.call @noise(%i) : (index) -> f32
  %c50 = arith.constant 50.0 : f32
  %g = arith.mulf %f, %c50 : f32
  %r = arith.fptosi %g : f32 to i32
  return %r : i32
}

func.func @check_floats() -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c33 = arith.constant 33 : index
  %c1000 = arith.constant 1000 : index
  %x = memref.alloc() : memref<7x5x33xf32>
  %col = memref.alloc() : memref<7x1x1xf32>
  scf.for %i = %c0 to %c7 step %c1 {
    scf.for %j = %c0 to %c5 step %c1 {
      scf.for %k = %c0 to %c33 step %c1 {
        %lin = affine.apply affine_map<(d0, d1, d2) -> ((d0 * 5 + d1) * 33 + d2)>(%i, %j, %k)
        %v = func.call @noise(%lin) : (index) -> f32
        %two = arith.constant 2.0 : f32
        %v2 = arith.mulf %v, %two : f32
        memref.store %v2, %x[%i, %j, %k] : memref<7x5x33xf32>
      }
    }
    %ci = arith.addi %i, %c1000 : index
    %cv = func.call @noise(%ci) : (index) -> f32
    memref.store %cv, %col[%i, %c0, %c0] : memref<7x1x1xf32>
  }
  %xt = bufferization.to_tensor %x restrict : memref<7x5x33xf32> to tensor<7x5x33xf32>
  %colt = bufferization.to_tensor %col restrict : memref<7x1x1xf32> to tensor<7x1x1xf32>
  %rt = func.call @floats(%xt, %colt) : (tensor<7x5x33xf32>, tensor<7x1x1xf32>) -> tensor<7x5x33xf32>
  %r = bufferization.to_buffer %rt : tensor<7x5x33xf32> to memref<7x5x33xf32>
  %w = memref.alloc() : memref<5xf32>
  %w0 = arith.constant 0.5 : f32
  %w1 = arith.constant -0.25 : f32
  %w2 = arith.constant 1.0 : f32
  %w3 = arith.constant 0.0 : f32
  %w4 = arith.constant 2.0 : f32
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  memref.store %w0, %w[%c0] : memref<5xf32>
  memref.store %w1, %w[%c1] : memref<5xf32>
  memref.store %w2, %w[%c2] : memref<5xf32>
  memref.store %w3, %w[%c3] : memref<5xf32>
  memref.store %w4, %w[%c4] : memref<5xf32>
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = scf.for %i = %c0 to %c7 step %c1 iter_args(%e0 = %zero) -> f32 {
    %e1 = scf.for %j = %c0 to %c5 step %c1 iter_args(%a1 = %e0) -> f32 {
      %e2 = scf.for %k = %c0 to %c33 step %c1 iter_args(%a2 = %a1) -> f32 {
        %xv = memref.load %x[%i, %j, %k] : memref<7x5x33xf32>
        %cv = memref.load %col[%i, %c0, %c0] : memref<7x1x1xf32>
        %wv = memref.load %w[%j] : memref<5xf32>
        %0 = math.erf %xv : f32
        %1 = math.tanh %0 : f32
        %2 = math.absf %xv : f32
        %3 = math.sqrt %2 : f32
        %4 = arith.mulf %1, %3 : f32
        %5 = math.absf %cv : f32
        %6 = arith.addf %5, %one : f32
        %7 = math.rsqrt %6 : f32
        %8 = arith.addf %4, %7 : f32
        %9 = arith.negf %xv : f32
        %10 = arith.maximumf %8, %9 : f32
        %11 = math.exp %xv : f32
        %12 = math.log %11 : f32
        %13 = arith.subf %10, %12 : f32
        %want = arith.minimumf %13, %wv : f32
        %got = memref.load %r[%i, %j, %k] : memref<7x5x33xf32>
        %d = arith.subf %got, %want : f32
        %ad = math.absf %d : f32
        %m = arith.maximumf %a2, %ad : f32
        scf.yield %m : f32
      }
      scf.yield %e2 : f32
    }
    scf.yield %e1 : f32
  }
  return %e : f32
}

func.func @check_ints() -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c513 = arith.constant 513 : index
  %c600 = arith.constant 600 : index
  %c1200 = arith.constant 1200 : index
  %a = memref.alloc() : memref<513xi32>
  %b = memref.alloc() : memref<513xi32>
  %c = memref.alloc() : memref<513xi32>
  scf.for %i = %c0 to %c513 step %c1 {
    %va = func.call @inoise(%i) : (index) -> i32
    %ib = arith.addi %i, %c600 : index
    %vb = func.call @inoise(%ib) : (index) -> i32
    %ic = arith.addi %i, %c1200 : index
    %vc = func.call @inoise(%ic) : (index) -> i32
    memref.store %va, %a[%i] : memref<513xi32>
    memref.store %vb, %b[%i] : memref<513xi32>
    memref.store %vc, %c[%i] : memref<513xi32>
  }
  %at = bufferization.to_tensor %a restrict : memref<513xi32> to tensor<513xi32>
  %bt = bufferization.to_tensor %b restrict : memref<513xi32> to tensor<513xi32>
  %ct = bufferization.to_tensor %c restrict : memref<513xi32> to tensor<513xi32>
  %rt = func.call @ints(%at, %bt, %ct) : (tensor<513xi32>, tensor<513xi32>, tensor<513xi32>) -> tensor<513xi32>
  %r = bufferization.to_buffer %rt : tensor<513xi32> to memref<513xi32>
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %three = arith.constant 3 : i32
  %bad = scf.for %i = %c0 to %c513 step %c1 iter_args(%n = %zero) -> i32 {
    %va = memref.load %a[%i] : memref<513xi32>
    %vb = memref.load %b[%i] : memref<513xi32>
    %vc = memref.load %c[%i] : memref<513xi32>
    %0 = arith.muli %va, %vb : i32
    %1 = arith.subi %0, %vc : i32
    %2 = arith.subi %zero, %va : i32
    %3 = arith.maxsi %1, %2 : i32
    %4 = arith.divsi %3, %three : i32
    %want = math.absi %4 : i32
    %got = memref.load %r[%i] : memref<513xi32>
    %ne = arith.cmpi ne, %got, %want : i32
    %inc = arith.select %ne, %one, %zero : i32
    %n1 = arith.addi %n, %inc : i32
    scf.yield %n1 : i32
  }
  return %bad : i32
}

func.func @main() {
  %e = func.call @check_floats() : () -> f32
  vector.print str "float max abs error: "
  vector.print %e : f32
  %n = func.call @check_ints() : () -> i32
  vector.print str "int mismatches: "
  vector.print %n : i32
  %x = memref.alloc() : memref<f32>
  %one = arith.constant 1.0 : f32
  memref.store %one, %x[] : memref<f32>
  %xt = bufferization.to_tensor %x restrict : memref<f32> to tensor<f32>
  %rt = func.call @scalar(%xt) : (tensor<f32>) -> tensor<f32>
  %r = bufferization.to_buffer %rt : tensor<f32> to memref<f32>
  %v = memref.load %r[] : memref<f32>
  vector.print str "scalar: "
  vector.print %v : f32
  return
}
