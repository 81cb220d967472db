#ifndef STRATA_CONVERSION_PASSES
#define STRATA_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertTensorIRToLoopIRPass
    : Pass<"convert-tensorir-to-loopir", "::mlir::ModuleOp"> {
  let summary = "Lower every atomic tensorir op to one loopir.kernel.";
  let description = [{
    Each elementwise or layout op becomes a kernel with one parallel loop
    nest over its result. Splat constants feeding an elementwise op become
    scalar constants inside its kernel; other uses of a splat constant get a
    fill kernel. Non-splat constants stay tensors of the host program (kernel
    inputs, like weights). Fusion of the resulting kernels is `loopir-fuse`'s
    job.
  }];
  let dependentDialects = ["::strata::loopir::LoopIRDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def ConvertLoopIRToTileIRPass
    : Pass<"convert-loopir-to-tileir", "::mlir::ModuleOp"> {
  let summary = "Write each loop kernel as a block program over tiles.";
  let description = [{
    Decides what kind of tile program each loop kernel becomes and writes
    its algebra; the schedule (tile, threads, k steps, pipeline depth) is
    left to one pass per decision (`tileir-tile`, `tileir-map-threads`,
    `tileir-k-tile`, `tileir-pipeline`), and until they run every kernel
    has the trivial one: one point per program instance, one thread (a
    warp for a row program), one k per contraction step.

    A kernel made of one parallel loop nest of loads, scalar math and stores
    addressed by its indices (elementwise and layout kernels) becomes a
    `tileir.kernel` whose domain is the loop nest, with tile loads, a
    `tileir.map` and tile stores at the program's tile offset; indices the
    math uses enter the map as `tileir.coordinate` tiles, and loads from
    computed or guarded addresses read point by point in its body, guarded
    to their buffer's bounds. A kernel
    whose loop nest reduces along contiguous rows of at least 32 elements
    (softmax, norms, row sums) becomes a row program: one program instance
    per point of the nest (a row); its reductions become cooperative
    `tileir.fold`s over explicit monoids and its inner loops
    `tileir.distribute`s, both shared by the block's threads. A nest that
    reduces over k a product of a factor free of its columns and one free
    of its rows (matmul, linear, bmm, einsum, with prologue math on either)
    becomes a contraction: the reduction a `tileir.contract`, the rest of
    the body its elementwise epilogue. Every other loop kernel (column
    reductions, arg-reductions, stores to computed addresses, several
    nests) becomes a generic program: a `tileir.for_each_point`
    running the Loop IR body once per point of the domain. `schedule`
    forces a kind, for tests and tuning; a kernel the forced kind cannot
    take is a diagnostic.
  }];
  let options = [
    Option<"schedule", "schedule", "std::string", /*default=*/"\"auto\"",
           "auto (per kernel), elementwise, row, contraction or generic">
  ];
  let dependentDialects = ["::strata::tileir::TileIRDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def ConvertTileIRToKernelIRPass
    : Pass<"convert-tileir-to-kernelir", "::mlir::ModuleOp"> {
  let summary = "Materialize tile programs as kernels and buffers.";
  let description = [{
    Every `tileir.kernel` becomes a `kernelir.func` (one block per tile, each
    thread handling tile/threads elements, guarded by the domain) and a
    `kernelir.launch` on buffers. In a cooperative kernel the threads share
    each `tileir.fold` (a strided fold in registers, an xor-shuffle butterfly
    per warp, one shared-memory post per warp that every warp reads back)
    and each `tileir.distribute` (a strided loop). A `tileir.contract`
    becomes a loop over steps of k that stages both operand chunks in
    shared memory between barriers and accumulates each thread's result
    elements with fused multiply-adds, or, for f16 or bf16 operands widened to f32,
    stages them before the widening and multiplies them warp by warp on tensor cores
    (`kernelir.mma`, 16x8x16), or with `wgmma` (sm_90a) by warpgroups
    straight from the shared chunks (`kernelir.wgmma`, 64xNx16, the
    chunks in its core-matrix layout). Where a tile access reads neighbouring
    elements of a buffer row, each thread owns runs of them and accesses
    each run as one vector of up to 128 bits. The host program is bufferized at the same
    time: tensors become memrefs, kernel results become allocations and
    constant tensors become read-only globals.
  }];
  let dependentDialects = ["::strata::kernelir::KernelIRDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
  let options = [
    Option<"tensorCores", "tensor-cores", "bool", /*default=*/"true",
           "Multiply f16 and bf16 contractions on tensor cores (kernelir.mma, "
           "sm_80 and later) where the block tile splits into warps of "
           "16x8 tiles, and attention's Q-tile online-softmax fold of halves "
           "(Q . K^T and P . V) where its rows split into 16-row warps; "
           "false keeps fused multiply-adds">,
    Option<"tf32", "tf32", "bool", /*default=*/"false",
           "With tensor-cores, multiply f32 contractions on tensor cores too, "
           "their operands rounded to tf32 (10 mantissa bits; sums stay "
           "f32): faster, less exact, so only when asked for">,
    Option<"wgmma", "wgmma", "bool", /*default=*/"false",
           "With tensor-cores, multiply f16 and bf16 contractions by "
           "warpgroups from shared memory (kernelir.wgmma; needs chip "
           "sm_90a) where the block tile has whole 64-row warpgroup slabs; "
           "not yet measured on a GPU, so only when asked for">,
    Option<"tma", "tma", "bool", /*default=*/"false",
           "With wgmma, copy both operand chunks of a contraction by TMA "
           "(kernelir.tma_load into swizzled chunks, one thread issuing, "
           "an mbarrier per stage) where each is a plain load of a 2-d "
           "tensor ([rows][k], or B [k][n], read transposed) with rows of "
           "whole 16-byte units; elsewhere the cp.async staging. Not yet "
           "measured on a GPU, so only when asked for">,
    Option<"wgmmaOverlap", "wgmma-overlap", "bool", /*default=*/"true",
           "With tma, keep each k step's wgmmas in flight while the next "
           "step's copies are awaited (wgmma.wait_group of the step's "
           "groups, the ring refilling the slot of the step before); "
           "false waits for each step's multiplies before the next">,
    Option<"tmaStore", "tma-store", "bool", /*default=*/"false",
           "With tma, store a contraction kernel's result tile through "
           "shared memory by TMA (kernelir.tma_store, swizzled boxes, one "
           "thread issuing) where its buffer is written by that store "
           "alone in whole rows of a tensor map; the tile's staging "
           "buffer adds to the kernel's shared memory. Not yet measured "
           "on a GPU, so only when asked for">,
  ];
}

def ConvertKernelIRToGPUPass
    : Pass<"convert-kernelir-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower kernelir to the upstream gpu dialect.";
  let description = [{
    Kernels move into one `gpu.module @strata_kernels` as `gpu.func` kernels
    with known block sizes; launches become `gpu.launch_func`; guarded
    accesses become `scf.if` around `memref` accesses. The result is ready
    for `convert-gpu-to-nvvm`.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::vector::VectorDialect"];
}

def GridConstantTensorMapsPass
    : Pass<"strata-grid-constant-tensor-maps", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Pass kernels' tensor maps by value, as grid constants.";
  let description = [{
    A kernel's tensor-map parameters (`kernelir.tensor_map` arguments that
    TMA copies use, listed in the kernel's `strata.tensor_maps`)
    are, after `convert-gpu-to-nvvm`, pointers like its buffers. This pass
    makes each a 128-byte parameter passed by value, 64-byte aligned and
    `nvvm.grid_constant` (CUDA's `const __grid_constant__ CUtensorMap`):
    the kernel's pointer is then the parameter's own address, which TMA
    reads, and the launch passes the encoded map itself.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def ExternDynamicSharedPass
    : Pass<"strata-extern-dynamic-shared", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Declare the dynamic shared memory of kernels extern.";
  let description = [{
    `convert-gpu-to-nvvm` gives `gpu.dynamic_shared_memory` an internal
    zero-length global in address space 3. NVPTX then demotes it to a static
    shared variable of its own, and LLVM may treat the accesses past its
    zero length as undefined (and delete them). CUDA declares dynamic shared
    memory `extern __shared__ T x[]`, an external global of unknown extent
    (`.extern .shared` in PTX): this pass gives those globals external
    linkage, after `convert-gpu-to-nvvm`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def ConvertKernelIRToCPUPass
    : Pass<"convert-kernelir-to-cpu", "::mlir::ModuleOp"> {
  let summary = "Run kernels on the CPU: blocks and threads become loops.";
  let description = [{
    Each `kernelir.func` becomes a `func.func` whose body runs inside loops
    over the grid and, for each barrier interval (the code between two
    barriers), over the block's threads; values a thread carries across a
    barrier live in a per-thread buffer and shared buffers are one buffer
    the blocks use in turn. A loop with barriers inside whose bounds every
    thread shares runs at block level, its body's intervals as thread loops
    (the back edge is no barrier: the last interval of an iteration and the
    first of the next share one). Warp shuffles first become exchanges
    through a shared scratch buffer between two barriers, exact where the
    whole block takes part. Barriers and shuffles in other control flow are
    rejected.
    Launches become calls. This gives every generated kernel a CPU reference
    execution. With `reverse-order`, blocks and the threads of every
    interval run last to first, and with `shuffled-order` in a fixed
    scramble: results that change with the order show a race between
    threads (two writing one element, or one reading what
    another writes, such as a missing barrier).
  }];
  let options = [
    Option<"reverseOrder", "reverse-order", "bool", /*default=*/"false",
           "Run blocks and threads in reverse order (race check)">,
    Option<"shuffledOrder", "shuffled-order", "bool", /*default=*/"false",
           "Run blocks and threads in a fixed scrambled order (race check)">,
    Option<"checkBounds", "check-bounds", "bool", /*default=*/"false",
           "Assert that every access stays inside its buffer (cf.assert, "
           "which aborts the run with the kernel's and buffer's names)">,
    Option<"waveBlocks", "wave-blocks", "int64_t", /*default=*/"0",
           "Launch each wave kernel (kernelir.func wave_tiles) with this "
           "many blocks, at most its tiles, as a GPU of another size would "
           "(0: its grid, the compiler's estimate)">
  ];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect"];
}

def ConvertLoopIRToCPUPass
    : Pass<"convert-loopir-to-cpu", "::mlir::ModuleOp"> {
  let summary = "Run loop kernels on the CPU: the reference semantics.";
  let description = [{
    Every `loopir.kernel` is inlined into the host program on buffers:
    results become allocations, parallel nests and reductions become
    `scf.for` nests (reductions carry their accumulator), and loads and
    stores become `memref` accesses through their index maps. The host
    program is bufferized like in `convert-tileir-to-kernelir`. This path
    checks the numbers of Loop IR (and of fusion) independently of the GPU
    schedule.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::affine::AffineDialect"];
}

#endif // STRATA_CONVERSION_PASSES
