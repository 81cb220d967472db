// Hopper's asynchronous barriers (mbarrier) and the bulk copies that
// complete on them: the synchronization a TMA pipeline is built from.
// Included by KernelIROps.td.

#ifndef STRATA_KERNELIR_MBARRIER_OPS
#define STRATA_KERNELIR_MBARRIER_OPS

def KernelIR_MBarrierInitOp : KernelIR_Op<"mbarrier_init", [
    DeclareOpInterfaceMethods<KernelIR_TargetInstructionOpInterface>]> {
  let summary = "Starts an mbarrier's phase 0, expecting `arrivals` arrivals.";
  let description = [{
    An mbarrier is one i64 element of a shared buffer. It counts, per
    phase, the arrivals still pending and the transaction bytes still in
    flight; when both reach zero the phase completes, the next begins and
    the pending arrivals start again at `arrivals` (PTX's
    `mbarrier.init.shared::cta.b64`). One thread initializes it; a
    `kernelir.proxy_fence` and a `kernelir.barrier` after the
    initialization make it visible to the threads and to bulk copies.

    ```mlir
    kernelir.mbarrier_init %full[%c0] arrivals 1
        : memref<2xi64, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "", [MemWrite]>:$barriers,
                       Variadic<Index>:$indices,
                       I64Attr:$arrivals);
  let assemblyFormat = [{
    $barriers `[` $indices `]` `arrivals` $arrivals attr-dict `:`
    type($barriers)
  }];
  let hasVerifier = 1;
}

def KernelIR_MBarrierArriveOp : KernelIR_Op<"mbarrier_arrive", [
    DeclareOpInterfaceMethods<KernelIR_TargetInstructionOpInterface>]> {
  let summary = "This thread arrives at an mbarrier, perhaps expecting bytes.";
  let description = [{
    One of the current phase's pending arrivals (`mbarrier.arrive`). With
    `expect_tx`, the phase first expects that many more transaction bytes
    (`mbarrier.arrive.expect_tx`): the bytes the bulk copies this thread
    started (or is about to start) on this mbarrier will deliver. Release
    semantics: this thread's earlier writes are visible to a thread whose
    `kernelir.mbarrier_wait` sees the phase complete.

    ```mlir
    kernelir.mbarrier_arrive %full[%s] expect_tx 4096
        : memref<2xi64, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "", [MemRead, MemWrite]>:$barriers,
                       Variadic<Index>:$indices,
                       OptionalAttr<I64Attr>:$expectTx);
  let assemblyFormat = [{
    $barriers `[` $indices `]` (`expect_tx` $expectTx^)? attr-dict `:`
    type($barriers)
  }];
  let hasVerifier = 1;
}

def KernelIR_MBarrierWaitOp : KernelIR_Op<"mbarrier_wait", [
    DeclareOpInterfaceMethods<KernelIR_TargetInstructionOpInterface>]> {
  let summary = "Waits until the mbarrier's phase of the given parity completes.";
  let description = [{
    Blocks this thread until the phase whose parity is `parity` (0 for
    phases 0, 2, ...; 1 for 1, 3, ...) has completed, that is until the
    mbarrier's current phase has the other parity
    (`mbarrier.try_wait.parity`, retried until it succeeds). Acquire
    semantics: what the arriving threads wrote before arriving, and what
    the phase's bulk copies delivered, is visible after it. A ring of S
    stages waits on stage s's mbarrier with parity (step / S) mod 2.

    The CPU emulation runs it where every thread of the block waits (it
    becomes a barrier there) and fails, naming the kernel, on a wait whose
    phase cannot have completed: the deadlock a wrong parity or a missing
    arrival or byte would be on the GPU.

    ```mlir
    kernelir.mbarrier_wait %full[%s] parity %p
        : memref<2xi64, #gpu.address_space<workgroup>>
    ```
  }];
  // A write as well as a read: the wait orders this thread's later
  // accesses after the phase (acquire), so it must neither move nor go.
  let arguments = (ins Arg<AnyStaticShapeMemRef, "", [MemRead, MemWrite]>:$barriers,
                       Variadic<Index>:$indices,
                       I1:$parity);
  let assemblyFormat = [{
    $barriers `[` $indices `]` `parity` $parity attr-dict `:` type($barriers)
  }];
  let hasVerifier = 1;
}

def KernelIR_BulkCopyOp : KernelIR_Op<"bulk_copy", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<KernelIR_TargetInstructionOpInterface>]> {
  let summary = "Copies a run of global elements to shared memory, completing "
                "bytes on an mbarrier.";
  let description = [{
    Starts copying `elements` neighbouring elements of the innermost
    dimension of `source` (global memory), from `sourceIndices` on, into
    `dest` (a shared buffer) from `destIndices` on, by the copy engine
    rather than the threads: PTX's
    `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes`.
    When the bytes have landed they complete as many transaction bytes of
    the current phase of the mbarrier `barriers[barrierIndices]`, which
    some thread's `kernelir.mbarrier_arrive ... expect_tx` announced; a
    `kernelir.mbarrier_wait` on that phase then sees them. One thread
    issues it.

    The run is a multiple of 16 bytes and starts at a 16-byte boundary of
    both buffers: both innermost dimensions are multiples of 16 bytes and
    the run stays inside one row of each (verified); the innermost indices
    are multiples of 16 bytes' elements (checked by the CPU emulation's
    bounds check).

    ```mlir
    kernelir.bulk_copy %a[%row, %c0], %stage[%s, %r, %c0] elements 64
        arrives %full[%s]
        : memref<100x64xf16>, memref<2x32x64xf16, #gpu.address_space<workgroup>>,
          memref<2xi64, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "", [MemRead]>:$source,
                       Variadic<Index>:$sourceIndices,
                       Arg<AnyStaticShapeMemRef, "", [MemWrite]>:$dest,
                       Variadic<Index>:$destIndices,
                       I64Attr:$elements,
                       Arg<AnyStaticShapeMemRef, "", [MemRead, MemWrite]>:$barriers,
                       Variadic<Index>:$barrierIndices);
  let assemblyFormat = [{
    $source `[` $sourceIndices `]` `,` $dest `[` $destIndices `]`
    `elements` $elements `arrives` $barriers `[` $barrierIndices `]`
    attr-dict `:` type($source) `,` type($dest) `,` type($barriers)
  }];
  let extraClassDeclaration = [{
    /// The bytes the copy moves (and completes on its mbarrier).
    int64_t getBytes();
  }];
  let hasVerifier = 1;
}

def KernelIR_TmaLoadOp : KernelIR_Op<"tma_load", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<KernelIR_TargetInstructionOpInterface>]> {
  let summary = "Copies a box of a global tensor into a (swizzled) shared "
                "buffer by the tensor memory accelerator.";
  let description = [{
    Starts copying a box of `source` (a global tensor) whose first
    element is `source[sourceIndices]` into `dest`: the box has the shape
    of `dest`'s trailing `rank(source)` dimensions, or `box`'s where
    given: extents of 1 and then `dest`'s trailing dimensions (one
    batch's rows of a batched tensor: `box [1, 128, 64]`). A `box` of
    lower rank than `source` (1 to 5) sees `source`'s leading dimensions
    as one, row-major (a batch of matrices as one matrix of all their
    rows: `box [128, 64]` of a 12 x 1000 x 512 tensor is one of 12000 x
    512), and `sourceIndices` are coordinates of that view; a tensor map
    marked with a view (`{kernelir.tensor_map = array<i64: ...>}`, see
    kernelir.func) is seen in that shape, of the box's rank. The box's
    dimensions in `dest` (all but its leading 1s) have the indices 0 in
    `destIndices` but the first, which may be a constant placing fewer rows
    than `dest` has (a chunk's rows from several boxes) whole swizzle
    periods from its start; the leading ones pick, say, a stage of a ring.
    Elements of the box outside `source` arrive as zeros, so a
    ragged tile needs no guard. The box lands in row-major order, its
    16-byte units permuted within each `swizzle`-byte row when `swizzle`
    is 32, 64 or 128: unit u of row r of 16-byte units goes to unit
    u xor (r mod swizzle / 16) (`kernelir::swizzledOffset`, the layout
    wgmma's swizzled descriptors read). When the bytes have landed they
    complete as many transaction bytes of the current phase of the
    mbarrier `barriers[barrierIndices]` (the whole box's, zeros included).
    One thread issues it: PTX's
    `cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes`,
    through a tensor map of `source`, the box and the swizzle, which the
    GPU lowering asks of the runtime.

    Verified: the box's extents are at most 256, its rows (innermost
    extent) a multiple of 16 bytes and, swizzled, at most `swizzle`
    bytes; the source's rows are a multiple of 16 bytes (the tensor map's
    strides); the box is a whole number of swizzle periods (8 x swizzle
    bytes; 128 bytes unswizzled), so that every box of a ring starts where
    the pattern starts (`dest` is aligned to that, see kernelir.shared).

    ```mlir
    kernelir.tma_load %a[%row, %k], %stage[%s, %c0, %c0] swizzle 128
        arrives %full[%s]
        : memref<1000x512xf16>, memref<3x128x64xf16, #gpu.address_space<workgroup>>,
          memref<3xi64, #gpu.address_space<workgroup>>
    // Batch %n's rows of a batched tensor: a 3-d box of one 2-d chunk.
    kernelir.tma_load %q[%n, %row, %k], %stage[%s, %c0, %c0] box [1, 128, 64]
        swizzle 128 arrives %full[%s]
        : memref<12x1000x512xf16>, memref<3x128x64xf16, #gpu.address_space<workgroup>>,
          memref<3xi64, #gpu.address_space<workgroup>>
    // Rows %row to %row + 127 of all 12 batches' 12000.
    kernelir.tma_load %x[%row, %k], %stage[%s, %c0, %c0] box [128, 64]
        swizzle 128 arrives %full[%s]
        : memref<12x1000x512xf16>, memref<3x128x64xf16, #gpu.address_space<workgroup>>,
          memref<3xi64, #gpu.address_space<workgroup>>
    // Through a view [4][12][1000][64] of a 48 x 1000 x 64 %o: head %h's
    // 64 rows of batch %b from token %t, into rows 64 to 127 of a chunk.
    kernelir.tma_load %o[%b, %h, %t, %c0], %stage[%s, %c64, %c0]
        box [1, 1, 64, 64] swizzle 128 arrives %full[%s]
        : memref<48x1000x64xf16>, memref<3x128x64xf16, #gpu.address_space<workgroup>>,
          memref<3xi64, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "", [MemRead]>:$source,
                       Variadic<Index>:$sourceIndices,
                       Arg<AnyStaticShapeMemRef, "", [MemWrite]>:$dest,
                       Variadic<Index>:$destIndices,
                       DefaultValuedAttr<I64Attr, "0">:$swizzle,
                       Arg<AnyStaticShapeMemRef, "", [MemRead, MemWrite]>:$barriers,
                       Variadic<Index>:$barrierIndices,
                       OptionalAttr<DenseI64ArrayAttr>:$box_shape);
  let assemblyFormat = [{
    $source `[` $sourceIndices `]` `,` $dest `[` $destIndices `]`
    (`box` $box_shape^)? (`swizzle` $swizzle^)?
    `arrives` $barriers `[` $barrierIndices `]`
    attr-dict `:` type($source) `,` type($dest) `,` type($barriers)
  }];
  let extraClassDeclaration = [{
    /// The box's extents: `box_shape`, or `dest`'s trailing rank(source)
    /// dimensions.
    ::llvm::ArrayRef<int64_t> getBox();
    /// The bytes the copy moves (and completes on its mbarrier).
    int64_t getBytes();
    /// The alignment `dest` needs: a swizzle period (8 x swizzle bytes),
    /// or 128 bytes unswizzled.
    int64_t getDestAlignment();
  }];
  let hasVerifier = 1;
}

def KernelIR_TmaStoreOp : KernelIR_Op<"tma_store", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<KernelIR_TargetInstructionOpInterface>]> {
  let summary = "Copies a (swizzled) shared box into a global tensor by the "
                "tensor memory accelerator.";
  let description = [{
    The inverse of `kernelir.tma_load`: starts copying the box that lies
    in `source` (a shared buffer whose trailing `rank(dest)` dimensions
    are the box, or as `box` lies in a tma_load's destination, their
    indices 0, its 16-byte units permuted by `swizzle` as tma_load writes
    them; a `box` of lower rank sees `dest` as tma_load does) into `dest` (a global tensor, a
    `kernelir.tensor_map` argument) from `dest[destIndices]` on. Elements
    of the box outside `dest` are not written, so a ragged tile's
    epilogue needs no guard. The copy belongs to the issuing thread's
    current bulk async-group: `kernelir.bulk_commit` closes the group and
    `kernelir.bulk_wait` waits for it, before the source is written again
    (`read`) and before the kernel ends. The threads' writes to `source`
    reach the copy after a `kernelir.proxy_fence` by the writers and a
    `kernelir.barrier`. One thread issues it: PTX's
    `cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group`.

    ```mlir
    kernelir.tma_store %tile[%c0, %c0], %c[%row, %col] swizzle 128
        : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<1000x520xf16>
    ```
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "", [MemRead]>:$source,
                       Variadic<Index>:$sourceIndices,
                       Arg<AnyStaticShapeMemRef, "", [MemWrite]>:$dest,
                       Variadic<Index>:$destIndices,
                       DefaultValuedAttr<I64Attr, "0">:$swizzle,
                       OptionalAttr<DenseI64ArrayAttr>:$box_shape);
  let assemblyFormat = [{
    $source `[` $sourceIndices `]` `,` $dest `[` $destIndices `]`
    (`box` $box_shape^)? (`swizzle` $swizzle^)? attr-dict `:` type($source)
    `,` type($dest)
  }];
  let extraClassDeclaration = [{
    /// The box's extents: `box_shape`, or `source`'s trailing rank(dest)
    /// dimensions.
    ::llvm::ArrayRef<int64_t> getBox();
    /// The alignment `source` needs (see TmaLoadOp::getDestAlignment).
    int64_t getSourceAlignment();
  }];
  let hasVerifier = 1;
}

def KernelIR_BulkCommitOp : KernelIR_Op<"bulk_commit", [
    DeclareOpInterfaceMethods<KernelIR_TargetInstructionOpInterface>]> {
  let summary = "Closes this thread's bulk async-group of TMA stores.";
  let description = [{
    The `kernelir.tma_store`s this thread issued since its last commit
    form one group (`cp.async.bulk.commit_group`), which
    `kernelir.bulk_wait` waits for.

    ```mlir
    kernelir.bulk_commit
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def KernelIR_BulkWaitOp : KernelIR_Op<"bulk_wait", [
    DeclareOpInterfaceMethods<KernelIR_TargetInstructionOpInterface>]> {
  let summary = "Waits for this thread's bulk async-groups.";
  let description = [{
    Blocks this thread until at most `pending` of its committed bulk
    async-groups are unfinished (`cp.async.bulk.wait_group`), or with
    `read`, until at most that many still read their shared sources
    (`.read`: the sources may then be written again; the global writes
    may still be in flight). Before the kernel ends, wait for 0 with
    `read` at least: shared memory does not outlive the block.

    ```mlir
    kernelir.bulk_wait pending 0 read
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$pending,
                       UnitAttr:$read);
  let assemblyFormat = "`pending` $pending (`read` $read^)? attr-dict";
}

#endif // STRATA_KERNELIR_MBARRIER_OPS
