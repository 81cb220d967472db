// The bundled example: exp(a) * b + 1, with the row `b` broadcast over the
// 1000 rows of `a`. 1000x37 is no multiple of any tile size, so the masks at
// the ragged edges matter. `@program` is the tensorir program; `@main` fills
// the inputs with pseudo-random values, runs the program, recomputes every
// element with scalar code and prints PASS or FAIL.
//
//   build/bin/strata stages examples/elementwise.mlir --run

func.func @program(%a: tensor<1000x37xf32>, %b: tensor<37xf32>) -> tensor<1000x37xf32> {
  %e = tensorir.exp %a : tensor<1000x37xf32>
  %bb = tensorir.broadcast %b dims [1] : tensor<37xf32> -> tensor<1000x37xf32>
  %m = tensorir.mul %e, %bb : tensor<1000x37xf32>
  %one = tensorir.constant dense<1.0> : tensor<1000x37xf32>
  %r = tensorir.add %m, %one : tensor<1000x37xf32>
  return %r : tensor<1000x37xf32>
}

// A pseudo-random value in [-1, 1) from an index (a linear congruential hash).
func.func @noise(%i: index) -> f32 {
  %x = arith.index_cast %i : index to i64
  %mul = arith.constant 1103515245 : i64
  %add = arith.constant 12345 : i64
  %mod = arith.constant 2147483648 : i64
  %h0 = arith.muli %x, %mul : i64
  %h1 = arith.addi %h0, %add : i64
  %h = arith.remui %h1, %mod : i64
  %f = arith.uitofp %h : i64 to f32
  %scale = arith.constant 9.31322574615478515625e-10 : f32  // 2 / 2^31
  %s = arith.mulf %f, %scale : f32
  %m1 = arith.constant 1.0 : f32
  %r = arith.subf %s, %m1 : f32
  return %r : f32
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c37 = arith.constant 37 : index
  %c1000 = arith.constant 1000 : index
  %c5000 = arith.constant 5000 : index
  %a = memref.alloc() : memref<1000x37xf32>
  %b = memref.alloc() : memref<37xf32>
  scf.for %i = %c0 to %c1000 step %c1 {
    scf.for %j = %c0 to %c37 step %c1 {
      %lin = affine.apply affine_map<(d0, d1) -> (d0 * 37 + d1)>(%i, %j)
      %v = func.call @noise(%lin) : (index) -> f32
      memref.store %v, %a[%i, %j] : memref<1000x37xf32>
    }
  }
  scf.for %j = %c0 to %c37 step %c1 {
    %k = arith.addi %j, %c5000 : index
    %v = func.call @noise(%k) : (index) -> f32
    memref.store %v, %b[%j] : memref<37xf32>
  }
  %at = bufferization.to_tensor %a restrict : memref<1000x37xf32> to tensor<1000x37xf32>
  %bt = bufferization.to_tensor %b restrict : memref<37xf32> to tensor<37xf32>
  %rt = func.call @program(%at, %bt) : (tensor<1000x37xf32>, tensor<37xf32>) -> tensor<1000x37xf32>
  %r = bufferization.to_buffer %rt : tensor<1000x37xf32> to memref<1000x37xf32>

  // Reference: the same formula, element by element.
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %maxerr = scf.for %i = %c0 to %c1000 step %c1 iter_args(%e0 = %zero) -> f32 {
    %row = scf.for %j = %c0 to %c37 step %c1 iter_args(%e1 = %e0) -> f32 {
      %x = memref.load %a[%i, %j] : memref<1000x37xf32>
      %y = memref.load %b[%j] : memref<37xf32>
      %ex = math.exp %x : f32
      %p = arith.mulf %ex, %y : f32
      %want = arith.addf %p, %one : f32
      %got = memref.load %r[%i, %j] : memref<1000x37xf32>
      %d = arith.subf %got, %want : f32
      %ad = math.absf %d : f32
      // maxnumf would hide a NaN; maximumf propagates it.
      %m = arith.maximumf %e1, %ad : f32
      scf.yield %m : f32
    }
    scf.yield %row : f32
  }
  vector.print str "max abs error over 1000x37 elements: "
  vector.print %maxerr : f32
  // Two corner elements, to compare with an independent computation.
  %c999 = arith.constant 999 : index
  %c36 = arith.constant 36 : index
  %first = memref.load %r[%c0, %c0] : memref<1000x37xf32>
  %last = memref.load %r[%c999, %c36] : memref<1000x37xf32>
  vector.print str "r[0, 0] = "
  vector.print %first : f32
  vector.print str "r[999, 36] = "
  vector.print %last : f32
  %tol = arith.constant 1.0e-5 : f32
  %ok = arith.cmpf ole, %maxerr, %tol : f32
  scf.if %ok {
    vector.print str "PASS\n"
  } else {
    vector.print str "FAIL\n"
  }
  return
}
