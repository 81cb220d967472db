#ifndef STRATA_LOOPIR_OPS
#define STRATA_LOOPIR_OPS

include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def LoopIR_Dialect : Dialect {
  let name = "loopir";
  let cppNamespace = "::strata::loopir";
  let summary = "What each kernel does, as loop nests over scalars.";
  let description = [{
    One `loopir.kernel` per future GPU kernel. A kernel is isolated from
    above: it takes tensors and returns tensors, and inside it sees them as
    buffers and computes with loops, loads, stores and scalar `arith`/`math`.
    Loads and stores carry affine index maps from loop indices to buffer
    indices, so fusion can compose them; reductions fold over boxes of their
    own (`loopir.reduce`).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect"];
}

class LoopIR_Op<string mnemonic, list<Trait> traits = []>
    : Op<LoopIR_Dialect, mnemonic, traits>;

def LoopIR_KernelOp : LoopIR_Op<"kernel", [IsolatedFromAbove, Pure,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "One future GPU kernel, with tensor semantics outside.";
  let description = [{
    The entry block has one buffer argument per input and then one per
    result; the body reads the input buffers and writes every element of the
    result buffers. From outside, the kernel is a pure function of its
    tensor operands. Canonicalization gives a tensor passed twice one buffer
    (fusion brings one per fused producer), so that equal loads are equal.

    ```mlir
    %r = loopir.kernel ins(%a : tensor<1000x37xf32>) -> tensor<1000x37xf32> {
    ^bb0(%in: memref<1000x37xf32>, %out: memref<1000x37xf32>):
      loopir.parallel (%i, %j) in [1000, 37] {
        %x = loopir.load %in[%i, %j] : memref<1000x37xf32>
        %y = math.exp %x : f32
        loopir.store %y, %out[%i, %j] : memref<1000x37xf32>
      }
    }
    ```
  }];
  let arguments = (ins Variadic<AnyStaticShapeTensor>:$inputs);
  let results = (outs Variadic<AnyStaticShapeTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`ins` `(` $inputs^ `:` type($inputs) `)`)? `->` type($results)
    attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// The buffers through which the body reads the inputs.
    ::mlir::Block::BlockArgListType getInputBuffers() {
      return getBody().getArguments().take_front(getInputs().size());
    }
    /// The buffers through which the body writes the results.
    ::mlir::Block::BlockArgListType getOutputBuffers() {
      return getBody().getArguments().drop_front(getInputs().size());
    }
  }];
}

def LoopIR_ParallelOp : LoopIR_Op<"parallel", [RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "A nest of parallel loops with static bounds.";
  let description = [{
    Runs the body once for every point of the box `[0, bounds)`; the
    iterations are independent. The block arguments are the loop indices.
    A nest inside another over one point (no bounds, or all of them 1) is
    its body: canonicalization inlines it (a kernel's own nests stay, the
    schedules take those).

    ```mlir
    loopir.parallel (%i, %j) in [1000, 37] {
      ...
    }
    ```
  }];
  let arguments = (ins DenseI64ArrayAttr:$bounds);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let builders = [
    OpBuilder<(ins "::llvm::ArrayRef<int64_t>":$bounds)>
  ];
  let extraClassDeclaration = [{
    ::mlir::Block::BlockArgListType getInductionVars() {
      return getBody().getArguments();
    }
  }];
}

def LoopIR_LoadOp : LoopIR_Op<"load", [
    TypesMatchWith<"result type matches the buffer's element type",
                   "memref", "result",
                   "::llvm::cast<::mlir::MemRefType>($_self).getElementType()">
  ]> {
  let summary = "Reads one element of a buffer.";
  let description = [{
    Reads `memref[map(indices)]`. Without `map`, the indices address the
    buffer directly. The map makes layout explicit: a broadcast row reads
    with `affine_map<(d0, d1) -> (d1)>`, a transpose with
    `affine_map<(d0, d1) -> (d1, d0)>`. Canonicalization moves constant
    indices into the map, so the indices are loop indices (what fusion and
    the schedules compose).

    A guarded load (`if guard else padding`) reads only where the integer
    set `guard` holds for `indices`, and is `padding` elsewhere, without
    touching memory: a padded view (`tensorir.pad`) reads its input through
    one. The guard is over the same indices as the map, so whatever
    rewrites the indices (fusion composing a consumer's map, dropping
    unread indices) rewrites both alike.

    ```mlir
    %x = loopir.load %a[%i, %j] : memref<1000x37xf32>
    %b = loopir.load %bias[%i, %j] map affine_map<(d0, d1) -> (d1)> : memref<37xf32>
    // x padded by one row above: row 0 reads zero.
    %p = loopir.load %x[%i, %j] map affine_map<(d0, d1) -> (d0 - 1, d1)>
        if affine_set<(d0, d1) : (d0 - 1 >= 0)> else 0.0 : f32
        : memref<1000x37xf32>
    ```
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "", [MemRead]>:$memref,
                       Variadic<Index>:$indices,
                       OptionalAttr<AffineMapAttr>:$map,
                       OptionalAttr<IntegerSetAttr>:$guard,
                       OptionalAttr<TypedAttrInterface>:$padding);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $memref `[` $indices `]` (`map` $map^)? (`if` $guard^ `else` $padding)?
    attr-dict `:` type($memref)
  }];
  let builders = [OpBuilder<(ins "::mlir::Value":$memref,
      "::mlir::ValueRange":$indices, "::mlir::AffineMapAttr":$map,
      CArg<"::mlir::IntegerSetAttr", "{}">:$guard,
      CArg<"::mlir::TypedAttr", "{}">:$padding), [{
    build($_builder, $_state,
          ::llvm::cast<::mlir::MemRefType>(memref.getType()).getElementType(),
          memref, indices, map, guard, padding);
  }]>];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// The map from `indices` to buffer coordinates (identity if absent).
    ::mlir::AffineMap getIndexMap();
    /// Whether the map or the guard reads index `d`.
    bool readsIndex(unsigned d);
    /// Addresses through `indices` instead: old index `d` becomes
    /// `substitution[d]`, an expression over the new indices, in the map
    /// and the guard. Call it inside a rewriter's modifyOpInPlace.
    void reindex(::mlir::ValueRange indices,
                 ::llvm::ArrayRef<::mlir::AffineExpr> substitution);
  }];
}

def LoopIR_StoreOp : LoopIR_Op<"store", [
    TypesMatchWith<"stored value matches the buffer's element type",
                   "memref", "value",
                   "::llvm::cast<::mlir::MemRefType>($_self).getElementType()">
  ]> {
  let summary = "Writes one element of a buffer.";
  let description = [{
    Writes `value` to `memref[map(indices)]`.

    ```mlir
    loopir.store %y, %out[%i, %j] : memref<1000x37xf32>
    ```
  }];
  let arguments = (ins AnyType:$value,
                       Arg<AnyStaticShapeMemRef, "", [MemWrite]>:$memref,
                       Variadic<Index>:$indices,
                       OptionalAttr<AffineMapAttr>:$map);
  let assemblyFormat = [{
    $value `,` $memref `[` $indices `]` (`map` $map^)? attr-dict `:`
    type($memref)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// The map from `indices` to buffer coordinates (identity if absent).
    ::mlir::AffineMap getIndexMap();
    /// Whether the map reads index `d`.
    bool readsIndex(unsigned d);
    /// Addresses through `indices` instead: old index `d` becomes
    /// `substitution[d]`, an expression over the new indices. Call it
    /// inside a rewriter's modifyOpInPlace.
    void reindex(::mlir::ValueRange indices,
                 ::llvm::ArrayRef<::mlir::AffineExpr> substitution);
  }];
}

def LoopIR_Combiner : I32EnumAttr<"Combiner",
    "how a reduction combines contributions", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"mul", 1>,
    I32EnumAttrCase<"max", 2>, I32EnumAttrCase<"min", 3>,
    I32EnumAttrCase<"argmax", 4>, I32EnumAttrCase<"argmin", 5>]> {
  let cppNamespace = "::strata::loopir";
}

def LoopIR_ReduceOp : LoopIR_Op<"reduce", [RecursiveMemoryEffects,
    SingleBlock]> {
  let summary = "Folds contributions over the iterations of a box.";
  let description = [{
    The body runs for every point of `[0, bounds)` and yields one scalar per
    combiner; each is folded with its combiner, starting from the
    combiner's identity (0 for add, 1 for mul, -inf/+inf or the integer
    extremes for max/min). Float max/min propagate NaN. An `argmax` or
    `argmin` combiner gives two results: the extreme and the row-major
    position (i64) of its first occurrence (of the first NaN, if any). The
    combiners are associative, so later stages may split and reorder the
    folds; several combiners in one op share one pass over the box. A box
    of one point (no bounds, or all of them 1) is one contribution:
    canonicalization replaces the reduction by its body (an arg-reduction's
    position is then 0).

    ```mlir
    %m = loopir.reduce max (%k) in [2048] : f32 {
      %x = loopir.load %in[%i, %k] : memref<32x2048xf32>
      loopir.yield %x : f32
    }
    // Sum and sum of squares in one pass.
    %s, %q = loopir.reduce add, add (%k) in [2048] : f32, f32 {
      %x = loopir.load %in[%i, %k] : memref<32x2048xf32>
      %x2 = arith.mulf %x, %x : f32
      loopir.yield %x, %x2 : f32, f32
    }
    ```
  }];
  let arguments = (ins TypedArrayAttrBase<LoopIR_Combiner,
                                          "combiners">:$combiners,
                       DenseI64ArrayAttr:$bounds);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let builders = [
    // The body gets one index argument per bound and no terminator: the
    // caller fills it and yields the combined values.
    OpBuilder<(ins "::mlir::TypeRange":$results,
                   "::llvm::ArrayRef<::mlir::Attribute>":$combiners,
                   "::llvm::ArrayRef<int64_t>":$bounds)>
  ];
  let extraClassDeclaration = [{
    ::mlir::Block::BlockArgListType getInductionVars() {
      return getBody().getArguments();
    }
    /// The combiners, in order.
    ::llvm::SmallVector<Combiner> getCombinerList();
    /// The results of combiner `i` (one, or two for an arg-reduction).
    ::mlir::ValueRange getResultsOf(unsigned i);
    static bool isArgCombiner(Combiner c) {
      return c == Combiner::argmax || c == Combiner::argmin;
    }
    /// The monoid a combiner folds its values with (an arg-reduction, that
    /// of its extreme).
    static ::strata::MonoidKind getMonoidKind(Combiner c);
  }];
}

def LoopIR_YieldOp : LoopIR_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["KernelOp", "ParallelOp", "ReduceOp"]>]> {
  let summary = "Ends a kernel, loop or reduction body.";
  let description = [{
    In a `loopir.reduce` it yields the contribution of one iteration; in a
    kernel or parallel loop it takes no values and is implicit in the
    printed form.
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{
    build($_builder, $_state, ::mlir::ValueRange());
  }]>];
}

#endif // STRATA_LOOPIR_OPS
