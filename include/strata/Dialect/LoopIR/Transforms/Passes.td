#ifndef STRATA_LOOPIR_PASSES
#define STRATA_LOOPIR_PASSES

include "mlir/Pass/PassBase.td"

def LoopIRFusePass : Pass<"loopir-fuse"> {
  let summary = "Inline producer kernels into their consumers.";
  let description = [{
    A kernel whose result another kernel loads is inlined at each such load:
    the producer's computation of one element is cloned there, its loads
    reading through the composition of its own index maps with the
    consumer's (the consumer's indices are substituted into the producer's),
    so the intermediate never reaches memory. A producer fuses when it is
    one parallel nest storing each element once (elementwise, layout,
    reduction and gather kernels all are), and when fusion does not cost
    more than `max-recompute` times what it saves. Cost counts arithmetic
    ops: the producer as a kernel costs its arithmetic per element plus
    `round-trip-cost` (writing the element and reading it back); fused, it
    costs its arithmetic once per element each consumer needs, counting an
    element once per distinct value of the consumer indices its address
    depends on (what loopir-normalize's hoisting achieves). So cheap
    elementwise producers fuse even where they are recomputed (a prologue
    of a matmul), a reduction fuses only where it is not repeated, and a
    producer that only moves data always fuses.
  }];
  let options = [
    Option<"maxRecompute", "max-recompute", "double", /*default=*/"1.0",
           "The most fused cost may exceed the unfused cost, as a ratio">,
    Option<"roundTripCost", "round-trip-cost", "double", /*default=*/"64.0",
           "The cost of writing an element to memory and reading it back, "
           "in arithmetic ops (a GPU does tens of flops per byte moved)">
  ];
  let dependentDialects = ["::strata::loopir::LoopIRDialect"];
}

def LoopIRNormalizePass : Pass<"loopir-normalize"> {
  let summary = "Put the same loop math in one canonical form.";
  let description = [{
    Hoists loop-invariant computation: a parallel nest is split so that work
    depending only on its outer indices runs once per outer iteration, and
    work inside a reduction that does not depend on the reduction's indices
    moves before it. Identical side-effect-free computations in one block
    (including reductions) are merged, and a division by a value invariant
    in the enclosing loop becomes a multiplication by its reciprocal.
    `math.powf` by a constant exponent that PyTorch computes without pow
    becomes the same arithmetic: 0 -> 1, 1 -> x, 2 -> x*x, 3 -> x*x*x,
    0.5 -> sqrt, -0.5 -> rsqrt, -1 -> 1/x, -2 -> 1/(x*x); other exponents
    stay pow.
  }];
  let dependentDialects = ["::strata::loopir::LoopIRDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def LoopIRExposeKernelResultsPass
    : Pass<"loopir-expose-kernel-results", "::mlir::ModuleOp"> {
  let summary = "Return every kernel's results, for checking kernels one "
                "by one.";
  let description = [{
    Every `func.func` that calls loop kernels returns, after its own
    results, the results of each of its `loopir.kernel` ops in program
    order. Run on the fused loop kernels, it lets a test compare each
    kernel of a later stage (the final GPU kernels, emulated) with the same
    kernel at the loop stage, and name the first kernel that differs. A
    function with another terminator than `func.return` is a diagnostic.
  }];
  let dependentDialects = ["::strata::loopir::LoopIRDialect",
                           "::mlir::func::FuncDialect"];
}

#endif // STRATA_LOOPIR_PASSES
