#ifndef STRATA_KERNELIR_OPS
#define STRATA_KERNELIR_OPS

include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "strata/Dialect/KernelIR/IR/KernelIRInterfaces.td"

def KernelIR_Dialect : Dialect {
  let name = "kernelir";
  let cppNamespace = "::strata::kernelir";
  let summary = "Abstract CUDA: kernels, launches, threads and buffers.";
  let description = [{
    The last Strata stage before a target. Threads and blocks are explicit:
    a `kernelir.func` is a `__global__` function with its launch
    configuration, its body runs once per thread, and the host program
    launches it on buffers with `kernelir.launch`. Hardware-specific choices
    (vector width, tensor-core shapes, shared-memory staging) are made at this
    level, as late as possible. Two lowerings leave it: to `gpu` + `nvvm`, and
    to the CPU, where blocks and threads become loops.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::vector::VectorDialect"];
  // kernelir.noalias on kernelir.func buffer arguments.
  let hasRegionArgAttrVerify = 1;
}

class KernelIR_Op<string mnemonic, list<Trait> traits = []>
    : Op<KernelIR_Dialect, mnemonic, traits>;

def KernelIR_Dim : I32EnumAttr<"Dim", "a dimension of the launch grid", [
    I32EnumAttrCase<"x", 0>, I32EnumAttrCase<"y", 1>, I32EnumAttrCase<"z", 2>
  ]> {
  let cppNamespace = "::strata::kernelir";
}

def KernelIR_FuncOp : KernelIR_Op<"func", [FunctionOpInterface,
    IsolatedFromAbove, AutomaticAllocationScope]> {
  let summary = "A GPU kernel (a `__global__` function) and its launch shape.";
  let description = [{
    The body runs once per thread of a `grid` of blocks of `block` threads
    (both given as x, y, z). Arguments are buffers (and later scalars); a
    kernel returns nothing.

    `min_blocks_per_sm` (optional) asks for that many of the kernel's
    blocks to fit on one SM at once, which bounds each thread's registers
    (the SM's 64K registers shared among them) instead of leaving the
    occupancy to ptxas (`.minnctapersm`, `__launch_bounds__(threads,
    blocks)`); verified against the SM's threads and shared memory.

    `wave_tiles` (optional) makes the grid's x the runtime's to choose: a
    persistent kernel whose blocks stride over `wave_tiles` tiles by the
    blocks launched (`kernelir.grid_dim x`) is launched as one exact wave,
    as many blocks as the GPU's SMs hold at once (the compiled kernel's
    occupancy) and at most `wave_tiles`; `grid` (at most `wave_tiles`,
    y and z 1) is the launch where that is not known (the compiler's
    estimate, the CPU's emulation).

    A buffer argument marked `{kernelir.noalias}` promises that what the
    kernel reads or writes through it is not written through any other
    argument during a launch (C's `restrict`): loads from it may move past
    stores to other buffers, and loads of a buffer the kernel only reads
    take the read-only data path (`__restrict__`, LLVM's `noalias`, PTX
    `ld.global.nc`). A launch may not pass one buffer to a `noalias`
    argument and to another argument unless the kernel writes neither
    (verified).

    A buffer argument marked `{kernelir.tensor_map}` is used by
    `kernelir.tma_load` and `kernelir.tma_store` alone, every one of its
    copies with one box and swizzle (verified): on the GPU it is not the buffer's address but a
    tensor map of it (CUDA's `const __grid_constant__ CUtensorMap`), which
    the runtime encodes for the buffer the launch passes. A kernel that
    also reads the tensor with the threads takes it twice. The mark may
    give the shape the map sees the buffer in (`{kernelir.tensor_map =
    array<i64: 4, 12, 1000, 64>}` of a 48 x 1000 x 64 buffer: its elements
    row-major, rank 1 to 5, rows of a multiple of 16 bytes; verified), so
    that a box may span dimensions the buffer folds together.

    ```mlir
    kernelir.func @exp_kernel(%in: memref<1000xf32> {kernelir.noalias},
                              %out: memref<1000xf32> {kernelir.noalias})
        attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 8, 1, 1>} {
      %c128 = arith.constant 128 : index
      %c1000 = arith.constant 1000 : index
      %b = kernelir.block_id x
      %t = kernelir.thread_id x
      %base = arith.muli %b, %c128 : index
      %i = arith.addi %base, %t : index
      %ok = arith.cmpi ult, %i, %c1000 : index
      %x = kernelir.load %in[%i] if %ok : memref<1000xf32>
      %y = math.exp %x : f32
      kernelir.store %y, %out[%i] if %ok : memref<1000xf32>
      kernelir.return
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       DenseI64ArrayAttr:$grid,
                       DenseI64ArrayAttr:$block,
                       OptionalAttr<I64Attr>:$min_blocks_per_sm,
                       OptionalAttr<I64Attr>:$wave_tiles);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name,
                                 "::mlir::TypeRange":$argTypes,
                                 "::llvm::ArrayRef<int64_t>":$grid,
                                 "::llvm::ArrayRef<int64_t>":$block)>];
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    /// Threads in one block.
    int64_t getNumThreadsPerBlock() {
      return getBlock()[0] * getBlock()[1] * getBlock()[2];
    }
    /// The offset of each top-level kernelir.shared buffer in the block's
    /// shared memory (each at a multiple of its alignment, from a base
    /// aligned to getSharedAlignment()), and the total bytes. Beyond
    /// kSharedAlignment, the total includes the slack that rounds a
    /// window based at a multiple of kSharedAlignment up to that base (a
    /// dynamic shared window is aligned no further).
    ::std::pair<::llvm::SmallVector<int64_t>, int64_t> getSharedLayout();
    /// The largest alignment among the kernel's shared buffers.
    int64_t getSharedAlignment();
    /// Whether the block's shared buffers live in dynamic shared memory,
    /// views of one window the launch requests: beyond what a block may
    /// declare statically, or where one buffer overlays another (static
    /// declarations cannot alias).
    bool usesDynamicSharedMemory();
  }];
}

def KernelIR_ReturnOp : KernelIR_Op<"return", [Pure, Terminator, ReturnLike,
    HasParent<"FuncOp">]> {
  let summary = "Ends a thread's execution of a kernel.";
  let description = "```mlir\nkernelir.return\n```";
  let assemblyFormat = "attr-dict";
}

def KernelIR_LaunchOp : KernelIR_Op<"launch", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Launches a kernel on buffers (host side).";
  let description = [{
    Runs every thread of `kernel`'s grid on `args`, then returns. Launches in
    one host function run in program order.

    ```mlir
    kernelir.launch @exp_kernel(%a, %r) : memref<1000xf32>, memref<1000xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel, Variadic<AnyType>:$args);
  let assemblyFormat = [{
    $kernel `(` $args `)` attr-dict (`:` type($args)^)?
  }];
}

class KernelIR_IdOp<string mnemonic, string what>
    : KernelIR_Op<mnemonic, [Pure]> {
  let summary = "The " # what # " along one grid dimension.";
  let description = "```mlir\n%i = kernelir." # mnemonic # " x\n```";
  let arguments = (ins KernelIR_Dim:$dim);
  let results = (outs Index:$result);
  let builders = [OpBuilder<(ins "Dim":$dim), [{
    build($_builder, $_state, $_builder.getIndexType(), dim);
  }]>];
  let assemblyFormat = "$dim attr-dict";
}

def KernelIR_BlockIdOp : KernelIR_IdOp<"block_id", "index of this block">;
def KernelIR_GridDimOp : KernelIR_IdOp<"grid_dim",
    "number of blocks launched (gridDim; a `wave_tiles` kernel's x is the "
    "runtime's choice)">;
def KernelIR_ThreadIdOp : KernelIR_IdOp<"thread_id",
    "index of this thread within its block">;

class KernelIR_WarpIndexOp<string mnemonic, string what>
    : KernelIR_Op<mnemonic, [Pure]> {
  let summary = "This thread's " # what # ".";
  let description = "Warps are 32 threads of consecutive linear indices in "
    # "the block (x fastest, then y, then z: `x + X * (y + Y * z)`); a "
    # "thread's lane is its linear index modulo 32, its warp the quotient."
    # "\n\n```mlir\n%i = kernelir." # mnemonic # "\n```";
  let results = (outs Index:$result);
  let builders = [OpBuilder<(ins), [{
    build($_builder, $_state, $_builder.getIndexType());
  }]>];
  let assemblyFormat = "attr-dict";
}

def KernelIR_LaneIdOp : KernelIR_WarpIndexOp<"lane_id", "lane in its warp">;
def KernelIR_WarpIdOp : KernelIR_WarpIndexOp<"warp_id",
    "warp's index in its block">;

def KernelIR_LoadOp : KernelIR_Op<"load", [AttrSizedOperandSegments]> {
  let summary = "Reads an element or a vector of a buffer, optionally guarded.";
  let description = [{
    Reads `memref[indices]`. With a guard, the read happens only where
    `pred` is true and the result is zero elsewhere, so out-of-range threads
    never touch memory.

    A vector result `vector<n x T>` reads the `n` elements that start at
    `indices` along the innermost dimension, in one access of up to 128
    bits. The innermost index must be a multiple of `n` (the access is
    aligned to its size, as a GPU's vector access must be); the innermost
    dimension is a multiple of `n`, so a vector never crosses a row
    (verified).

    ```mlir
    %x = kernelir.load %in[%i, %j] if %inside : memref<1000x37xf32>
    %v = kernelir.load %in[%i, %k] : memref<333x20xf32> -> vector<4xf32>
    ```
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "", [MemRead]>:$memref,
                       Variadic<Index>:$indices,
                       Optional<I1>:$pred);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $memref `[` $indices `]` (`if` $pred^)? attr-dict
    custom<AccessTypes>(type($memref), type($result))
  }];
  let builders = [OpBuilder<(ins "::mlir::Value":$memref,
      "::mlir::ValueRange":$indices,
      CArg<"::mlir::Value", "::mlir::Value()">:$pred), [{
    build($_builder, $_state,
          ::llvm::cast<::mlir::MemRefType>(memref.getType()).getElementType(),
          memref, indices, pred);
  }]>];
  let extraClassDeclaration = [{
    /// Elements read: the vector's length, or 1.
    int64_t getWidth();
  }];
  let hasVerifier = 1;
}

def KernelIR_StoreOp : KernelIR_Op<"store", [AttrSizedOperandSegments]> {
  let summary = "Writes an element or a vector of a buffer, optionally guarded.";
  let description = [{
    Writes `value` to `memref[indices]` where `pred` is true (always without
    a guard). A vector value writes neighbouring elements of the innermost
    dimension, as for `kernelir.load`.

    ```mlir
    kernelir.store %y, %out[%i, %j] if %inside : memref<1000x37xf32>
    kernelir.store %v, %out[%i, %k] : memref<333x20xf32> -> vector<4xf32>
    ```
  }];
  let arguments = (ins AnyType:$value,
                       Arg<AnyStaticShapeMemRef, "", [MemWrite]>:$memref,
                       Variadic<Index>:$indices,
                       Optional<I1>:$pred);
  let assemblyFormat = [{
    $value `,` $memref `[` $indices `]` (`if` $pred^)? attr-dict
    custom<AccessTypes>(type($memref), type($value))
  }];
  let builders = [OpBuilder<(ins "::mlir::Value":$value,
      "::mlir::Value":$memref, "::mlir::ValueRange":$indices), [{
    build($_builder, $_state, value, memref, indices, ::mlir::Value());
  }]>];
  let extraClassDeclaration = [{
    /// Elements written: the vector's length, or 1.
    int64_t getWidth();
  }];
  let hasVerifier = 1;
}

def KernelIR_SharedOp : KernelIR_Op<"shared", [HasParent<"FuncOp">]> {
  let summary = "A buffer in the shared memory of each block.";
  let description = [{
    Every block gets its own copy, uninitialized, alive for the block's
    lifetime and visible to all its threads; what one thread writes another
    may read after a `kernelir.barrier`. The buffer lives in the workgroup
    address space and starts at a multiple of 16 bytes (`kSharedAlignment`),
    so aligned vector accesses and copies into it are aligned, or of what
    a `kernelir.tma_load` into it needs (128 bytes, or a swizzle's period:
    up to 1024). It sits at
    the top level of its kernel, which is where a CUDA `__shared__` array is
    declared. A kernel's shared buffers take up to 227 KiB together
    (verified); beyond 48 KiB they are carved out of dynamic shared memory,
    which the launch requests.

    ```mlir
    %partials = kernelir.shared : memref<8xf32, #gpu.address_space<workgroup>>
    ```

    With `overlays %base`, the buffer takes no memory of its own: it starts
    at the first byte of `%base` (a kernelir.shared that overlays nothing,
    at least as large, verified) and sees the same bytes in its own type,
    as a CUDA `reinterpret_cast` of one array would. What one writes
    through either, the other reads; keeping their uses apart in time (a
    barrier between them, every asynchronous reader retired) is the
    kernel's duty. A result tile's staging buffer overlays the operand
    chunks its contraction no longer reads.

    ```mlir
    %staging = kernelir.shared : memref<2x128x64xf16, #gpu.address_space<workgroup>>
        overlays %chunks : memref<3x2x128x64xf16, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins Optional<AnyStaticShapeMemRef>:$base);
  let results = (outs AnyStaticShapeMemRef:$buffer);
  let assemblyFormat =
      "attr-dict `:` type($buffer) (`overlays` $base^ `:` type($base))?";
  let builders = [
    OpBuilder<(ins "::mlir::MemRefType":$type), [{
      build($_builder, $_state, type, ::mlir::Value());
    }]>
  ];
  let extraClassDeclaration = [{
    /// The multiple of bytes the buffer starts at: kSharedAlignment, or
    /// more where a kernelir.tma_load writes it (or, for a buffer others
    /// overlay, writes one of them).
    int64_t getAlignment();
    /// The buffer's bytes.
    int64_t getBytes();
  }];
  let hasVerifier = 1;
}

def KernelIR_BarrierOp : KernelIR_Op<"barrier"> {
  let summary = "Waits for every thread of the block (`__syncthreads()`).";
  let description = [{
    No thread continues until all threads of its block reach the barrier;
    shared-memory writes before it are visible to every thread after it.
    Every thread of the block must reach the same barrier: it may only sit
    in control flow that is uniform across the block.

    ```mlir
    kernelir.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def KernelIR_ShuffleMode : I32EnumAttr<"ShuffleMode",
    "which lane a warp shuffle reads", [
    // C++ names in capitals: `xor` is a C++ keyword.
    I32EnumAttrCase<"XOR", 0, "xor">, I32EnumAttrCase<"DOWN", 1, "down">,
    I32EnumAttrCase<"UP", 2, "up">, I32EnumAttrCase<"IDX", 3, "idx">]> {
  let cppNamespace = "::strata::kernelir";
}

def KernelIR_ShuffleOp : KernelIR_Op<"shuffle", [Pure,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "Reads a value of another lane of the warp.";
  let description = [{
    Every lane of the warp (32 threads) offers `value` and receives that of
    lane `lane ^ offset` (xor), `lane + offset` (down), `lane - offset` (up)
    or `offset` (idx). Where down or up would leave the warp, a lane
    receives its own value. All 32 lanes must execute the shuffle together,
    so a kernel that shuffles has blocks of whole warps (verified). A
    constant every lane offers is what every lane receives: the shuffle
    folds to it.

    ```mlir
    %other = kernelir.shuffle xor %partial, %c16 : f32
    ```
  }];
  let arguments = (ins AnyTypeOf<[I32, I64, F32, F64]>:$value, I32:$offset,
                       KernelIR_ShuffleMode:$mode);
  let results = (outs AnyTypeOf<[I32, I64, F32, F64]>:$result);
  let assemblyFormat = "$mode $value `,` $offset attr-dict `:` type($value)";
  let builders = [OpBuilder<(ins "::mlir::Value":$value,
      "::mlir::Value":$offset, "ShuffleMode":$mode), [{
    build($_builder, $_state, value.getType(), value, offset, mode);
  }]>];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def KernelIR_MmaOp : KernelIR_Op<"mma", [Pure,
    DeclareOpInterfaceMethods<KernelIR_TargetInstructionOpInterface>,
    AllTypesMatch<["acc", "result"]>]> {
  let summary = "A warp's 16x8xK matrix multiply-accumulate on tensor cores.";
  let description = [{
    The 32 lanes of a warp together hold a 16xK matrix A and a Kx8 matrix
    B, both f16, both bf16 (K = 16) or both f32 (K = 8, multiplied as
    tf32), and a 16x8 f32 matrix C, each lane a fragment in the layout of
    PTX's `mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32`
    or `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32`; every lane
    receives its fragment of D = A B + C, in C's layout, the sums in f32.
    Half products are exact; f32 operands are first rounded to tf32 (10
    mantissa bits, to nearest, ties away from zero: `cvt.rna.tf32.f32`).
    With lane = 4 g + t:

    - `lhs` (A, `vector<4x2xf16>` or bf16, a register per row): (g, 2t + i),
      (g + 8, 2t + i), (g, 8 + 2t + i), (g + 8, 8 + 2t + i) for i = 0, 1;
      tf32 (`vector<4x1xf32>`): (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4);
    - `rhs` (B, `vector<2x2xf16>`): (k = 2t + i, n = g), (8 + 2t + i, g);
      tf32 (`vector<2x1xf32>`): (t, g), (t + 4, g);
    - `acc` and the result (`vector<2x2xf32>`): (g, 2t + i), (g + 8, 2t + i).

    `getMmaFragmentMap` gives these maps. All 32 lanes execute the op
    together, so a kernel that uses it has blocks of whole warps (verified),
    and it sits only where control flow is uniform across the warp.

    ```mlir
    %d = kernelir.mma %a, %b, %c : vector<4x2xf16>, vector<2x2xf16> -> vector<2x2xf32>
    %e = kernelir.mma %x, %y, %d : vector<4x1xf32>, vector<2x1xf32> -> vector<2x2xf32>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[2], [F16, BF16, F32]>:$lhs,
                       VectorOfRankAndType<[2], [F16, BF16, F32]>:$rhs,
                       VectorOfRankAndType<[2], [F32]>:$acc);
  let results = (outs VectorOfRankAndType<[2], [F32]>:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` $acc attr-dict `:` type($lhs) `,` type($rhs) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def KernelIR_LdMatrixOp : KernelIR_Op<"ldmatrix", [
    DeclareOpInterfaceMethods<KernelIR_TargetInstructionOpInterface>]> {
  let summary = "Loads a warp's mma fragment from shared memory.";
  let description = [{
    The 32 lanes of a warp together load the `kernelir.mma` fragment of a
    block of a shared buffer, in the layout `kernelir.mma` documents: with
    a `vector<4x2xT>` result (f16, bf16) the A fragment of the 16 x 16
    block whose first element is `memref[indices]` (rows along the
    next-to-innermost dimension, k along the innermost), with
    `vector<4x1xf32>` (tf32) the A fragment of the 16 x 8 block there; with
    `vector<2x2xT>` the B fragment of the 8 x 16 block stored n-major there
    (B's element (k, n) at `[i + n][j + k]`). PTX's
    `ldmatrix.sync.aligned.m8n8.x4` (`.x2`) `.b16`: one instruction instead
    of a 32-bit load per register. Its 8 x 8 matrices of 16-bit elements
    are 8 x 4 matrices of 32-bit ones, which is A's tf32 layout; B's tf32
    fragment would need them transposed, which ldmatrix does only for
    16-bit elements, so f32 loads A fragments only (verified).

    With `transpose`, a `vector<2x2xT>` result (f16, bf16: verified) is the
    B fragment of the 16 x 8 block stored k-major there (B's element
    (k, n) at `[i + k][j + n]`, B as it lies in a row-major buffer), with
    `ldmatrix ... .trans`: its two 8 x 8 matrices are k 0-7 and 8-15, each
    row 8 n of 16 bytes, and the hardware hands lane l the column l / 4
    (n) at rows 2 (l mod 4) and 2 (l mod 4) + 1 (k): the B fragment. So a
    row-major B reaches shared memory in 16-byte runs (cp.async) and still
    loads with one instruction per fragment.

    Every lane of the warp passes the same indices and executes the op
    together (uniform control flow, whole warps: verified). Rows start at
    16-byte boundaries: the innermost dimension is a multiple of 16 bytes
    (verified) and so is the innermost index.

    ```mlir
    %a = kernelir.ldmatrix %chunk[%r, %k] : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    %b = kernelir.ldmatrix %chunk2[%n, %k] : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
    %t = kernelir.ldmatrix %chunk3[%r, %k] : memref<64x20xf32, #gpu.address_space<workgroup>> -> vector<4x1xf32>
    %bt = kernelir.ldmatrix %chunk4[%k, %n] transpose : memref<32x136xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
    ```
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "", [MemRead]>:$memref,
                       Variadic<Index>:$indices, UnitAttr:$transpose);
  let results = (outs VectorOfRankAndType<[2], [F16, BF16, F32]>:$result);
  let assemblyFormat = [{
    $memref `[` $indices `]` (`transpose` $transpose^)? attr-dict `:`
    type($memref) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Which operand's fragment the op loads (Lhs: A, Rhs: B).
    MmaOperand getOperand();
    /// The 8 x 8 matrices loaded, one per register of each lane (x4 or x2).
    int64_t getNumMatrices() { return getType().getDimSize(0); }
    /// How many rows lanes 0, 1, ... address before the next matrices'
    /// rows start one 16-byte row further along: lane l addresses row
    /// l mod getAddressRows() at column
    /// w ((l / getAddressRows()) mod getAddressColumns()),
    /// w = getLdMatrixRowElements (A: 16 rows, then k + w; B: 8, then
    /// k + w; transposed B: its 16 rows of k, at one column).
    int64_t getAddressRows() {
      return getTranspose() ? 16 : 4 * getNumMatrices();
    }
    int64_t getAddressColumns() { return getTranspose() ? 1 : 2; }
  }];
}

def KernelIR_WgmmaOp : KernelIR_Op<"wgmma", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<KernelIR_TargetInstructionOpInterface,
                              ["needsArchSpecificTarget"]>,
    AllTypesMatch<["acc", "result"]>]> {
  let summary = "A warpgroup's 64xNxK multiply-accumulate from shared memory.";
  let description = [{
    The four warps of a warpgroup (128 neighbouring threads) multiply a
    64 x K matrix A and a K x N matrix B, both f16 or both bf16, read
    straight from shared memory, and add the product to a 64 x N f32
    accumulator that its lanes hold in registers: sm_90a's
    `wgmma.mma_async` m64nNk16, K / 16 of them, issued and waited for
    (fence, commit, wait 0) as one op.

    Both operands lie in shared memory in wgmma's core-matrix layout
    without swizzling: the last three dimensions of each buffer are
    [k blocks][rows][w], w = 16 bytes of elements (8 halves), so that 8
    neighbouring rows of one k block are one 8 x 16-byte core matrix, 128
    contiguous bytes. A(r, k) = lhs[..., b + k / w, r0 + r, k mod w] for
    the indices [..., b, r0, 0]; B is stored n-major the same way, B(k, n)
    = rhs[..., b + k / w, n0 + n, k mod w]. The descriptors' strides
    follow from the buffers' shapes (getWgmmaLayout): core matrices
    neighbouring in k lie a k block apart (the leading byte offset, rows
    x 16 bytes), those neighbouring in rows 128 bytes apart (the stride
    byte offset). The indices name a core matrix's first element: a row
    that is a multiple of 8, column 0 (verified where they are constants).

    With `swizzle` (32, 64 or 128 bytes) a row of the buffer is that many
    bytes, w = swizzle / 2 elements ([k blocks][rows][w]: 64 halves for
    128), its 16-byte units permuted as `kernelir.tma_load` with that
    swizzle writes them (`kernelir::swizzledOffset`, from the buffer's
    start, which is aligned to the swizzle's period): groups of 8 rows lie
    8 x swizzle bytes apart, and the descriptors carry the swizzle mode.
    A box that TMA copied feeds wgmma with no thread touching it.

    With `rhs_mn_major` (swizzled alone) B is stored MN-major, the layout
    a TMA box of a row-major k x n matrix writes: [n blocks][k rows][w],
    B(k, n) = rhs[..., b + n / w, k0 + k, n mod w] for the indices [..., b,
    k0, 0], a row w neighbouring columns of one k; N a multiple of w. The
    wgmma reads it transposed (PTX's imm-trans-b), its descriptors' leading
    byte offset the distance between n blocks.

    The accumulator `vector<Jx2x2xf32>` (N = 8 J, at most 256) is the
    lane's fragment in PTX's wgmma D layout: warp q of the warpgroup owns
    rows 16 q to 16 q + 15, and with lane = 4 g + t, element [j][h][i]
    is D(16 q + g + 8 h, 8 j + 2 t + i) — per warp, the accumulators of
    J `kernelir.mma` tiles side by side.

    All 128 threads of the warpgroup execute the op together (uniform
    control flow; blocks of whole warpgroups, verified). Writes to the
    operands by this block's threads reach it only after a
    `kernelir.proxy_fence` by the writers and then a `kernelir.barrier`.

    With `async` the op issues its K / 16 multiplies as one committed
    group and returns at once: its result is in flight, held in the
    accumulator's registers while the group runs and reads its operands,
    until a `kernelir.wgmma_wait` retires the group. Until then nothing
    may read the result but another async wgmma of the warpgroup (as its
    accumulator: the hardware chains them in order), a `kernelir.wgmma_wait`
    or the `scf.yield` that carries it round a loop (verified for direct
    uses), and nothing may write the operands' shared memory (the CPU
    emulation fails a TMA copy into memory an in-flight group reads).

    ```mlir
    %d = kernelir.wgmma %a[%s, %c0, %r, %c0], %b[%s, %c0, %n, %c0], %acc k 32
        : memref<2x4x128x8xf16, #gpu.address_space<workgroup>>,
          memref<2x4x128x8xf16, #gpu.address_space<workgroup>>,
          vector<16x2x2xf32>
    %e = kernelir.wgmma %a[%s, %c0, %r, %c0], %b[%s, %c0, %n, %c0], %acc k 32
        async
        : memref<2x4x128x8xf16, #gpu.address_space<workgroup>>,
          memref<2x4x128x8xf16, #gpu.address_space<workgroup>>,
          vector<16x2x2xf32>
    ```
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "", [MemRead]>:$lhs,
                       Variadic<Index>:$lhsIndices,
                       Arg<AnyStaticShapeMemRef, "", [MemRead]>:$rhs,
                       Variadic<Index>:$rhsIndices,
                       VectorOfRankAndType<[3], [F32]>:$acc,
                       ConfinedAttr<I64Attr, [IntPositive]>:$k,
                       DefaultValuedAttr<I64Attr, "0">:$swizzle,
                       UnitAttr:$rhsMnMajor,
                       UnitAttr:$async);
  let results = (outs VectorOfRankAndType<[3], [F32]>:$result);
  let assemblyFormat = [{
    $lhs `[` $lhsIndices `]` `,` $rhs `[` $rhsIndices `]` `,` $acc `k` $k
    (`swizzle` $swizzle^)? (`rhs_mn_major` $rhsMnMajor^)? (`async` $async^)?
    attr-dict `:`
    type($lhs) `,` type($rhs) `,` type($acc)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// N: the accumulator's columns.
    int64_t getN() { return 8 * getAcc().getType().getDimSize(0); }
    /// The operands' layouts, which their descriptors describe.
    ::strata::kernelir::WgmmaLayout getLhsLayout() {
      return getWgmmaLayout(getLhs().getType(), getSwizzle());
    }
    ::strata::kernelir::WgmmaLayout getRhsLayout() {
      return getWgmmaLayout(getRhs().getType(), getSwizzle(),
                            getRhsMnMajor());
    }
  }];
}

def KernelIR_WgmmaWaitOp : KernelIR_Op<"wgmma_wait", [
    DeclareOpInterfaceMethods<KernelIR_TargetInstructionOpInterface,
                              ["needsArchSpecificTarget"]>,
    RangedTypesMatchWith<"the results are the accumulators", "accs",
                         "results", "$_self">]> {
  let summary = "Waits until at most `pending` of the warpgroup's async wgmma groups run.";
  let description = [{
    Retires the executing warpgroup's `kernelir.wgmma ... async` groups
    in the order they were issued until at most `pending` are still in
    flight (`wgmma.wait_group.sync.aligned pending`), and returns its
    operands, the accumulators those groups write: the results are the
    registers, fenced so that nothing reads them before the wait. A
    retired group has read its shared operands, so their memory may be
    overwritten. With `pending` > 0 the newest groups' results are still
    in flight: the results obey what an async wgmma's result obeys.

    A k loop overlaps step s's multiplies with step s + 1's wait for its
    operands by waiting with `pending` = the step's groups, then refilling
    the slot of step s - 1, retired; after the loop, a wait with `pending`
    0 precedes every other use of the accumulators.

    ```mlir
    %r:2 = kernelir.wgmma_wait %d0, %d1 pending 2
        : vector<16x2x2xf32>, vector<16x2x2xf32>
    ```
  }];
  let arguments = (ins Variadic<VectorOfRankAndType<[3], [F32]>>:$accs,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$pending);
  let results = (outs Variadic<VectorOfRankAndType<[3], [F32]>>:$results);
  let assemblyFormat = [{
    $accs `pending` $pending attr-dict `:` type($accs)
  }];
  let hasVerifier = 1;
}

def KernelIR_ProxyFenceOp : KernelIR_Op<"proxy_fence", [
    DeclareOpInterfaceMethods<KernelIR_TargetInstructionOpInterface>]> {
  let summary = "Orders this thread's shared writes before kernelir.wgmma reads.";
  let description = [{
    `kernelir.wgmma` reads shared memory through the async proxy, which
    ordinary stores and `kernelir.async_copy` (after its wait) do not
    synchronize with: each writing thread fences after its writes, then a
    `kernelir.barrier` makes them visible to the warpgroups
    (`fence.proxy.async.shared::cta`).

    ```mlir
    kernelir.proxy_fence
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def KernelIR_RegisterAction : I32EnumAttr<"RegisterAction",
    "whether kernelir.set_max_registers raises or lowers the budget", [
    I32EnumAttrCase<"increase", 0>, I32EnumAttrCase<"decrease", 1>]> {
  let cppNamespace = "::strata::kernelir";
}

def KernelIR_SetMaxRegistersOp : KernelIR_Op<"set_max_registers", [
    DeclareOpInterfaceMethods<KernelIR_TargetInstructionOpInterface,
                              ["needsArchSpecificTarget"]>]> {
  let summary = "Moves this warpgroup's register budget (setmaxnreg).";
  let description = [{
    Sets the registers per thread of the executing warpgroup to `count`,
    raising (`increase`, waiting until the block's pool has them) or
    lowering (`decrease`, returning them to the pool) its budget:
    sm_90a's `setmaxnreg.{inc,dec}.sync.aligned.u32`. A warp-specialized
    kernel lowers its producer warpgroup's budget so that its consumers
    may raise theirs. `count` is a multiple of 8 from 24 to 256, every
    thread of a warpgroup executes it together, and blocks are whole
    warpgroups (verified). Registers are the GPU's alone: the CPU
    emulation drops it.

    ```mlir
    kernelir.set_max_registers decrease 40
    kernelir.set_max_registers increase 232
    ```
  }];
  let arguments = (ins KernelIR_RegisterAction:$action, I64Attr:$count);
  let assemblyFormat = "$action $count attr-dict";
  let hasVerifier = 1;
}

def KernelIR_AsyncCopyOp : KernelIR_Op<"async_copy", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<KernelIR_TargetInstructionOpInterface>]> {
  let summary = "Starts a copy of global elements into shared memory.";
  let description = [{
    Starts copying `elements` neighbouring elements of the innermost
    dimension of `source` (global memory), from `sourceIndices` on, into
    `dest` (a shared buffer) from `destIndices` on, without waiting for
    them: PTX's `cp.async`, 4, 8 or 16 bytes. With a guard that is false
    the copy writes zeros and reads nothing (the source indices need not
    be in bounds).

    The thread's copies since its last `kernelir.async_commit` form a
    group; `kernelir.async_wait` waits for groups. Until then the
    destination must not be read, and other threads see it only after
    their own wait and a `kernelir.barrier`. Both innermost indices are
    multiples of `elements`, and both buffers are row-major with innermost
    dimensions that are multiples of it (verified), so a copy is aligned
    to its size.

    ```mlir
    kernelir.async_copy %a[%i, %k], %chunk[%s, %r, %c] elements 4 if %inside
        : memref<100x64xf32>, memref<2x64x16xf32, #gpu.address_space<workgroup>>
    kernelir.async_commit
    kernelir.async_wait pending 1
    ```
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "", [MemRead]>:$source,
                       Variadic<Index>:$sourceIndices,
                       Arg<AnyStaticShapeMemRef, "", [MemWrite]>:$dest,
                       Variadic<Index>:$destIndices,
                       I64Attr:$elements,
                       Optional<I1>:$pred);
  let assemblyFormat = [{
    $source `[` $sourceIndices `]` `,` $dest `[` $destIndices `]`
    `elements` $elements (`if` $pred^)? attr-dict `:` type($source) `,`
    type($dest)
  }];
  let extraClassDeclaration = [{
    /// The bytes one copy moves: 4, 8 or 16.
    int64_t getBytes();
  }];
  let hasVerifier = 1;
}

def KernelIR_AsyncCommitOp : KernelIR_Op<"async_commit", [
    DeclareOpInterfaceMethods<KernelIR_TargetInstructionOpInterface>]> {
  let summary = "Closes this thread's group of asynchronous copies.";
  let description = [{
    The `kernelir.async_copy` ops this thread started since its previous
    commit form one group (possibly empty), which `kernelir.async_wait`
    counts: `cp.async.commit_group`.

    ```mlir
    kernelir.async_commit
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def KernelIR_AsyncWaitOp : KernelIR_Op<"async_wait", [
    DeclareOpInterfaceMethods<KernelIR_TargetInstructionOpInterface>]> {
  let summary = "Waits for all but the newest groups of asynchronous copies.";
  let description = [{
    Waits until at most `pending` of this thread's committed groups are
    still in flight: the copies of every older group are complete and
    visible to this thread (`cp.async.wait_group`). Another thread sees
    them after a `kernelir.barrier` that follows this wait.

    ```mlir
    kernelir.async_wait pending 0
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$pending);
  let assemblyFormat = "`pending` $pending attr-dict";
}

include "strata/Dialect/KernelIR/IR/KernelIRMBarrierOps.td"

#endif // STRATA_KERNELIR_OPS
