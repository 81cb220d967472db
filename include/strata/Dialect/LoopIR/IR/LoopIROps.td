#ifndef STRATA_LOOPIR_OPS
#define STRATA_LOOPIR_OPS

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
    indices, so fusion can compose them. Reduction loops come next.
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
    tensor operands.

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
    `affine_map<(d0, d1) -> (d1, d0)>`.

    ```mlir
    %x = loopir.load %a[%i, %j] : memref<1000x37xf32>
    %b = loopir.load %bias[%i, %j] map affine_map<(d0, d1) -> (d1)> : memref<37xf32>
    ```
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "", [MemRead]>:$memref,
                       Variadic<Index>:$indices,
                       OptionalAttr<AffineMapAttr>:$map);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $memref `[` $indices `]` (`map` $map^)? attr-dict `:` type($memref)
  }];
  let builders = [OpBuilder<(ins "::mlir::Value":$memref,
      "::mlir::ValueRange":$indices, "::mlir::AffineMapAttr":$map), [{
    build($_builder, $_state,
          ::llvm::cast<::mlir::MemRefType>(memref.getType()).getElementType(),
          memref, indices, map);
  }]>];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The map from `indices` to buffer coordinates (identity if absent).
    ::mlir::AffineMap getIndexMap();
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
  let extraClassDeclaration = [{
    /// The map from `indices` to buffer coordinates (identity if absent).
    ::mlir::AffineMap getIndexMap();
  }];
}

def LoopIR_YieldOp : LoopIR_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["KernelOp", "ParallelOp"]>]> {
  let summary = "Ends a kernel or loop body.";
  let description = [{
    The terminator of `loopir.kernel` and `loopir.parallel`. It is implicit
    in the printed form.
  }];
  let assemblyFormat = "attr-dict";
}

#endif // STRATA_LOOPIR_OPS
