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
    producer that only moves data always fuses. And a producer that
    reduces fuses only while every consumer's body stays within
    `max-kernel-ops` ops (the producer cloned at each site that loads it):
    in a tiny model, where every contraction is cheap, a whole network
    would otherwise become one kernel of tens of thousands of ops, which
    costs registers and compile time that the arithmetic count does not
    see.
  }];
  let options = [
    Option<"maxRecompute", "max-recompute", "double", /*default=*/"1.0",
           "The most fused cost may exceed the unfused cost, as a ratio">,
    Option<"roundTripCost", "round-trip-cost", "double", /*default=*/"64.0",
           "The cost of writing an element to memory and reading it back, "
           "in arithmetic ops (a GPU does tens of flops per byte moved)">,
    Option<"maxKernelOps", "max-kernel-ops", "unsigned", /*default=*/"4096",
           "The most ops a kernel's body may hold after a producer that "
           "reduces fuses into it">
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
    stay pow. A max or min over f16 or bf16 folds in f32 and truncates
    once (exact), the form the row schedule shares between threads.
  }];
  let dependentDialects = ["::strata::loopir::LoopIRDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def LoopIRCanonicalizeContractionsPass
    : Pass<"loopir-canonicalize-contractions"> {
  let summary = "Give every contraction nest the form of a batched matrix "
                "product.";
  let description = [{
    A kernel's nest that sums over one index the products of two factors is
    a matrix product whatever the order of its indices: the indices only
    one factor reads are its rows, those only the other reads its columns,
    the rest batch. This pass orders the nest as (batch..., rows,
    columns) and collapses the rows into one index and the columns into
    another (loads and stores compose the delinearization into their maps),
    which is the form the contraction schedule tiles. So a product stored
    transposed (attention's `(p @ v).transpose(1, 2)`, a (b, t, h, e)
    nest), an einsum whose output interleaves the factors' indices, and a
    convolution producing NCHW (rows: output channels; columns: batch and
    pixels) all become one batched GEMM. The columns are the group holding
    the store's innermost index, each group ordered as the store lays it
    out, so the epilogue writes runs. Nests already in this form, and those
    whose rows or columns would be too few for the contraction schedule,
    are left alone.

    ```mlir
    // Before: the product stored as [b, t, h, e].
    loopir.parallel (%b, %t, %h, %e) in [2, 96, 64, 72] { ... }
    // After: (b, h) batch, t rows, e columns.
    loopir.parallel (%b, %h, %t, %e) in [2, 64, 96, 72] { ... }
    ```
  }];
  let dependentDialects = ["::strata::loopir::LoopIRDialect",
                           "::mlir::arith::ArithDialect"];
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
