#ifndef STRATA_TILEIR_PASSES
#define STRATA_TILEIR_PASSES

include "mlir/Pass/PassBase.td"

def TileIRTilePass : Pass<"tileir-tile"> {
  let summary = "Choose the tile each program instance of a kernel owns.";
  let description = [{
    Sets the `tile` of every `tileir.kernel` and retypes its tiles; the
    tile offsets (`tileir.tile_offset`) follow the kernel's tile, so no
    arithmetic changes. Per kind of program:
    - elementwise: innermost dimensions first, powers of two, about
      `tile-elements` (512) elements, so consecutive threads touch
      consecutive addresses;
    - contraction: up to 64 x 64 rows and columns (powers of two), batch
      dimensions 1; up to 128 x 128 for one that will multiply on tensor
      cores (f16 or bf16 operands widened to f32 with `tensor-cores`, f32
      ones with `tf32` too) while such tiles still make 128 program
      instances (measured: docs/runtime.md);
    - generic: like elementwise, 128 points (one per thread, and a point
      may run whole loops);
    - row: the rows per program instance, one per thread group: up to 8
      rows of at most 128 elements (a warp each), a power of two dividing
      the rows along the innermost domain dimension; longer rows one each.

    `tile-sizes` forces the tile (one size per domain dimension, batch
    dimensions of a contraction 1, a row program's dividing the domain). A tile the kernel's threads, chosen
    before, cannot share evenly is an error: run `tileir-map-threads`
    after this pass.

    Before (`convert-loopir-to-tileir` writes one point per program):

    ```mlir
    tileir.kernel ... domain [1000, 37] tile [1, 1] threads 1 {
      %o0 = tileir.tile_offset 0
      %o1 = tileir.tile_offset 1
      %x = tileir.load %in[%o0, %o1] : memref<1000x37xf32> -> !tileir.tile<1x1xf32>
    ```

    After:

    ```mlir
    tileir.kernel ... domain [1000, 37] tile [8, 64] threads 1 {
      %o0 = tileir.tile_offset 0
      %o1 = tileir.tile_offset 1
      %x = tileir.load %in[%o0, %o1] : memref<1000x37xf32> -> !tileir.tile<8x64xf32>
    ```
  }];
  let options = [
    ListOption<"tileSizes", "tile-sizes", "int64_t",
               "Tile size per domain dimension (default: chosen per kernel)">,
    Option<"tileElements", "tile-elements", "int64_t",
           /*default=*/"::strata::kDefaultTileElements",
           "Elements per tile of an elementwise kernel (a power of two)">,
    Option<"tensorCores", "tensor-cores", "bool", /*default=*/"true",
           "Contractions of f16 and bf16 will multiply on tensor cores "
           "(as convert-tileir-to-kernelir's option)">,
    Option<"tf32", "tf32", "bool", /*default=*/"false",
           "f32 contractions will multiply on tensor cores as tf32">
  ];
  let dependentDialects = ["::strata::tileir::TileIRDialect"];
}

def TileIRSplitKPass : Pass<"tileir-split-k"> {
  let summary = "Split the k of contractions with few output tiles.";
  let description = [{
    A contraction kernel with fewer than `min-programs` program instances
    (128 unless given: about what a large GPU runs at once) and a long k
    leaves most of the GPU idle. This pass splits its k into S slices of
    L = floor(k / S): enough for about `min-programs` instances, at most
    16, each at least 256 k long (so the partial sums' traffic stays small
    next to the operands'), and the largest S that divides k where that
    keeps at least half of them (else S, if at least 4: the remainder
    costs a kernel more). The kernel becomes two, or three where S does
    not divide k:

    - a partial kernel over `[S, domain...]` (tile `[1, tile...]`): program
      instance (s, tile) contracts k in `[s L, (s + 1) L)` for its
      tile and stores the partial sums to `workspace[s, ...]`, a tensor it
      returns. Loads indexed by k take the slice into their index map, so
      plain operand rows stay asynchronous copies;
    - where S does not divide k, a partial kernel over `[1, domain...]`
      for the k mod S (fewer than S) left, from S L on: short;
    - an elementwise kernel over the original domain that loads the
      partials of its tile, adds them (in slice order) and runs the
      original epilogue on the sum. It gets the tile `tileir-tile` gives an
      elementwise kernel by default (the contraction's would hold S times
      its register tile at once) and one thread, for `tileir-map-threads`
      to choose.

    `splits` forces S for every contraction (1: never split); more slices
    than k is an error. Run after `tileir-tile` (the tile decides how
    many instances there are) and before `tileir-map-threads`.

    Before (64 x 64 by k = 8192, one program instance):

    ```mlir
    %r = tileir.kernel ins(%a, %b : ...) -> tensor<64x64xf32>
        domain [64, 64] tile [64, 64] threads 1 {
      %c = tileir.contract [%o0, %o1] k 8192 step 1 : <64x64xf32> lhs {
      ^bb0(%i: index, %k: index):
        %x = loopir.load %ab[%i, %k] : memref<64x8192xf32>
        ...
      tileir.store %c, %out[%o0, %o1] : ...
    }
    ```

    After (16 slices of 512):

    ```mlir
    %p = tileir.kernel ins(%a, %b : ...) -> tensor<16x64x64xf32>
        domain [16, 64, 64] tile [1, 64, 64] threads 1 {
      %s = tileir.tile_offset 0
      %c = tileir.contract [%s, %o1, %o2] k 512 step 1 : <1x64x64xf32> lhs {
      ^bb0(%sl: index, %i: index, %kl: index):
        %x = loopir.load %ab[%i, %kl, %sl]
            map affine_map<(d0, d1, d2) -> (d0, d1 + d2 * 512)> : memref<64x8192xf32>
        ...
      tileir.store %c, %ws[%s, %o1, %o2] : ...
    }
    %r = tileir.kernel ins(%p : ...) -> tensor<64x64xf32>
        domain [64, 64] tile [8, 64] threads 1 {
      %p0 = tileir.load %ws[%o0, %o1] map affine_map<(d0, d1) -> (0, d0, d1)> ...
      ... (16 loads)
      %c = tileir.map ins(%p0, ..., %p15 ...) { addf ... }
      tileir.store %c, %out[%o0, %o1] : ...
    }
    ```
  }];
  let options = [
    Option<"splits", "splits", "int64_t", /*default=*/"0",
           "Slices of k for every contraction (0: chosen per kernel, "
           "1: none)">,
    Option<"minPrograms", "min-programs", "int64_t", /*default=*/"128",
           "Split contractions with fewer program instances than this">
  ];
  let dependentDialects = ["::strata::tileir::TileIRDialect",
                           "::strata::loopir::LoopIRDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileIRSplitFoldsPass : Pass<"tileir-split-folds"> {
  let summary = "Split the folds of row programs with few program instances.";
  let description = [{
    A row program with fewer than `min-programs` program instances (128
    unless given) and long folds leaves most of the GPU idle: a sum over a
    whole tensor is one block, decoding attention's online-softmax fold
    over the keys one block per head. This pass splits the points of every
    fold of such a kernel into S slices of ceil(points / S): enough for
    about `min-programs` instances, at most 128, each slice reading at
    least 64 KiB (estimated from the loads of the fold's body), and the
    largest S that divides the longest fold where that keeps at least half
    of them. The kernel becomes two:

    - a partial kernel over `[S, domain...]` (tile `[1, tile...]`):
      program instance (s, rows) folds slice s of each of its rows' folds
      (a point past the fold's end, in the last slice, contributes the
      monoid's identity) and stores the monoid's state, every component,
      to `workspace[s, row..., component]` (one workspace per fold and
      element type);
    - the original kernel, each fold now over the S partial states: they
      are elements of the fold's own monoid, so its combination (the
      composite fold's region, online softmax's rescaling included) joins
      them, and the epilogue runs on the result as before.
      Where the kernel has distributes (a write-back as long as its
      folds: softmax, a norm), its domain gains the slices too: each
      program instance folds its rows' S states (a few loads) and writes
      slice s of every distribute.

    For attention this is split-KV (flash decoding); for a tensor's sum,
    a norm's statistics or an argmax it is the same code. A kernel whose
    folds read another fold's result or a shared loop's cannot be split.

    `splits` forces S for every row program with folds (1: never split);
    more slices than the longest fold has points, or a kernel that cannot
    be split, is an error. Run after `tileir-tile` and before
    `tileir-map-threads` (which gives both kernels their threads).

    Before (a sum of 16M elements, one program instance):

    ```mlir
    %r = tileir.kernel ins(%x : tensor<16777216xf32>) -> tensor<f32>
        domain [1] tile [1] threads 32 {
    ^bb0(%in: memref<16777216xf32>, %out: memref<f32>):
      %s = tileir.fold add(0.0 : f32) (%i) in [16777216] {
        %v = loopir.load %in[%i] : memref<16777216xf32>
        tileir.yield %v : f32
      }
      loopir.store %s, %out[] : memref<f32>
    }
    ```

    After (128 slices of 131072 points):

    ```mlir
    %p = tileir.kernel ins(%x : tensor<16777216xf32>) -> tensor<128x1x1xf32>
        domain [128, 1] tile [1, 1] threads 32 {
    ^bb0(%in: memref<16777216xf32>, %ws: memref<128x1x1xf32>):
      %slice = tileir.point 0
      %s = tileir.fold add(0.0 : f32) (%l) in [131072] {
        %i = ... %slice * 131072 + %l
        %v = loopir.load %in[%i] : memref<16777216xf32>
        tileir.yield %v : f32
      }
      loopir.store %s, %ws[%slice, %row, %c0] : memref<128x1x1xf32>
    }
    %r = tileir.kernel ins(%p : tensor<128x1x1xf32>) -> tensor<f32>
        domain [1] tile [1] threads 32 {
      %s = tileir.fold add(0.0 : f32) (%slice) in [128] {
        %v = loopir.load %ws[%slice, %row, %c0] : memref<128x1x1xf32>
        tileir.yield %v : f32
      }
      loopir.store %s, %out[] : memref<f32>
    }
    ```
  }];
  let options = [
    Option<"splits", "splits", "int64_t", /*default=*/"0",
           "Slices of every row program's folds (0: chosen per kernel, "
           "1: none)">,
    Option<"minPrograms", "min-programs", "int64_t", /*default=*/"128",
           "Split the folds of row programs with fewer program instances "
           "than this">
  ];
  let dependentDialects = ["::strata::tileir::TileIRDialect",
                           "::strata::loopir::LoopIRDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileIRMapThreadsPass : Pass<"tileir-map-threads"> {
  let summary = "Choose how many threads share each kernel's tile.";
  let description = [{
    Sets the `threads` of every `tileir.kernel`. Per kind of program:
    - elementwise: 128 bits of the widest element each (4 f32, 8 f16), at
      most 128 threads;
    - contraction: at least 4 result elements each, at most 256 threads;
    - generic: one point each;
    - row: a power of two with about 4 elements of the longest fold or
      distributed loop each, from one warp to 256 threads; with several
      rows per program instance, one warp per row.

    `threads` forces the count: a row program needs whole warps (its
    combine shuffles across all 32 lanes), the others must split the tile
    evenly; at most 1024. Any violation is an error.

    Before (`convert-loopir-to-tileir` writes one warp for a row program,
    one thread for the others) and after, for softmax on 64 x 4096:

    ```mlir
    tileir.kernel ... domain [64] tile [1] threads 32 {
    tileir.kernel ... domain [64] tile [1] threads 256 {
    ```

    An 8 x 64 elementwise f32 tile goes from `threads 1` to `threads 128`.
  }];
  let options = [
    Option<"threads", "threads", "int64_t", /*default=*/"0",
           "Threads per block (default: chosen per kernel)">
  ];
  let dependentDialects = ["::strata::tileir::TileIRDialect"];
}

def TileIRKTilePass : Pass<"tileir-k-tile"> {
  let summary = "Choose how many k each contraction stages per step.";
  let description = [{
    Sets the `step` of every `tileir.contract` to `k-tile`, or where that
    is 0 (the default) chooses it: for a contraction that will multiply on
    tensor cores (`tensor-cores`, f32 ones with `tf32`) in a block tile of
    128 x 128 or more, 64 for halves (f16, bf16) and 32 for tf32 (measured
    on an H200 against 16: f16 14-21%, tf32 10% faster; tileir-pipeline
    keeps three and two stages for them), else 16. Each step stages an operand chunk of the tile's rows (or columns)
    by `step` in shared memory. Tensor cores need a multiple of their k (16
    for f16 and bf16, 8 for tf32); another step multiplies with fused
    multiply-adds.

    Before and after:

    ```mlir
    %c = tileir.contract [%o0, %o1] k 65 step 1 : !tileir.tile<32x32xf32> ...
    %c = tileir.contract [%o0, %o1] k 65 step 16 : !tileir.tile<32x32xf32> ...
    ```
  }];
  let options = [
    Option<"kTile", "k-tile", "int64_t", /*default=*/"0",
           "How many k a contraction stages in shared memory per step "
           "(0: chosen per contraction)">,
    Option<"tensorCores", "tensor-cores", "bool", /*default=*/"true",
           "Contractions of f16 and bf16 will multiply on tensor cores "
           "(as convert-tileir-to-kernelir's option)">,
    Option<"tf32", "tf32", "bool", /*default=*/"false",
           "f32 contractions will multiply on tensor cores as tf32">
  ];
  let dependentDialects = ["::strata::tileir::TileIRDialect"];
}

def TileIRFuseFoldsPass : Pass<"tileir-fuse-folds"> {
  let summary = "Fold dependent row folds in one pass with a composite monoid.";
  let description = [{
    A row program that folds the maximum m of its contributions x and then
    the sum of exp(x - m) over the same points (softmax, log_softmax,
    logsumexp, attention's normalizer) reads its row twice: the sum needs
    the whole row's maximum first. Online softmax folds both at once with
    the (max, sum) monoid, each partial sum rescaled to the new maximum when
    two partials combine, so the row is read once for both. This pass
    rewrites the pair into one `tileir.composite_fold` of contributions
    (x, 1), where x is computed the same way in both folds; the maximum and
    the sum replace the two folds' results.

    Before:

    ```mlir
    %m = tileir.fold max(0xFF800000 : f32) (%k) in [2049] { ...x... }
    %s = tileir.fold add(0.0 : f32) (%k) in [2049] {
      ...x'... (the same computation)
      %d = arith.subf %x', %m : f32
      %e = math.exp %d : f32
      tileir.yield %e : f32
    }
    ```

    After:

    ```mlir
    %m, %s = tileir.composite_fold (%k) in [2049]
        identity(0xFF800000 : f32, 0.0 : f32) { ...x...; yield %x, 1.0 }
        combine { max, and each sum scaled by exp(its max - the max) }
    ```

    Variance's mean-then-squares likewise (var, std, layer norm): the mean
    a = (fold add x) / n and then the fold of (x' - a)^2 become one fold of
    contributions (1, x, 0) over Welford's (count, mean, squared
    deviations), combined by Chan's rule; the mean and the squared
    deviations replace the mean and the second fold. The combination costs
    a division per contribution where the two passes cost a second read of
    a row the block may already hold, which is the trade this pass makes
    for every row it sees.

    A component of a fold that an earlier fold over the same box already
    folds (the same combiner, its contribution computed the same way) is
    dropped and the earlier result serves: fusion recomputes logsumexp's
    max beside its sum, and only without the duplicate is the sum a plain
    sum of exp(x - max) that online softmax fuses. Likewise a sum of
    exp(x - max) that shares a fold with other components (loop fusion
    gives sibling reductions one loop: SDPA's normalizer beside the count
    of a boolean mask's kept keys) leaves it for a fold of its own, which
    these patterns then fuse with its max; the other components keep their
    fold. Both happen before the fusions below.

    The max may be guarded, exp(x - select(|m| == inf, c, m)) (logsumexp
    as torch 2.x decomposes it): the same composite fold, and the sum is
    the online one where m is finite, inf where m is +inf and 0 where it
    is -inf, what the guarded two passes sum there.

    First of all, attention's output row (a short query's softmax(q.K) V):
    the max m of x, the sum l of exp(x - m) and a fold of sums of
    exp(x - m) * c * w_e (c a row constant such as 1 / l) become one fold
    over (m, l, a_1..a_n) with every sum rescaled, contributions
    (x, 1, w_1, ..., w_n), and the outputs a_e * c: the scores x are
    computed once per point and never stored. Sums whose maximum is
    infinite are NaN, as the two passes compute them.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def TileIRPipelinePass : Pass<"tileir-pipeline"> {
  let summary = "Choose how many steps of k each contraction keeps in flight.";
  let description = [{
    Sets the `stages` of every `tileir.contract`: how many steps' operand
    chunks shared memory holds at once, so that the copies of later steps
    overlap the multiplication of the current one (double buffering with
    2). The depth is the `stages` option (0, the default: 2, or 3 for
    halves in a tensor-core tile of 128 x 128 or more), but no more than the
    contraction's steps of k (more would only hold empty slots) and no more
    than fit in the `shared-memory` budget of a block (48 KiB unless given:
    what any NVIDIA GPU gives a block statically; larger budgets use
    dynamic shared memory, up to 227 KiB on sm_90; every chunk element is
    counted at the width it is staged at (halves where the operands widen
    halves, else the result's element type), its rows padded as
    tensor-core chunks are against bank conflicts); 1 turns pipelining
    off. A contraction that will multiply on tensor cores in a 128 x 128
    tile or larger may take its default depth whatever the budget (tf32,
    two stages of 32 k: 70 KiB; halves, three of 64 k: 108 KiB; both
    dynamic, and measured faster than 16 k in 48 KiB).

    Before (k = 64 in steps of 16, a 64 x 64 tile):

    ```mlir
    %c = tileir.contract [%o0, %o1] k 64 step 16 : !tileir.tile<64x64xf32> ...
    ```

    After `tileir-pipeline{stages=3}`: 3 x 64 x (20 + 20) x 4 bytes = 30 KiB
    (rows of 16 padded to 20).

    ```mlir
    %c = tileir.contract [%o0, %o1] k 64 step 16 stages 3 : !tileir.tile<64x64xf32> ...
    ```
  }];
  let options = [
    Option<"stages", "stages", "int64_t", /*default=*/"0",
           "The pipeline depth wanted (1: no pipeline; 0: chosen per "
           "contraction)">,
    Option<"sharedMemory", "shared-memory", "int64_t",
           /*default=*/"::strata::kStaticSharedMemoryBytes",
           "Bytes of shared memory a block's operand chunks may take">,
    Option<"tensorCores", "tensor-cores", "bool", /*default=*/"true",
           "Contractions of f16 and bf16 will multiply on tensor cores "
           "(as convert-tileir-to-kernelir's option)">,
    Option<"tf32", "tf32", "bool", /*default=*/"false",
           "f32 contractions will multiply on tensor cores as tf32">
  ];
  let dependentDialects = ["::strata::tileir::TileIRDialect"];
}

def TileIRRasterPass : Pass<"tileir-raster"> {
  let summary = "Choose the order in which contraction tiles are taken.";
  let description = [{
    Sets `raster_group` on contraction kernels: the order in which their
    program instances take the tiles of the output (tileir.kernel). Row
    by row, the instances running at once (a wave: about one per
    multiprocessor) share one or two row panels of A but read every column
    panel of B; in bands of G rows, each band column by column, they read G
    row panels and about wave / G column panels, so an operand panel is
    fetched from global memory once per band instead of once per row of
    tiles where the operands outgrow L2. Triton's GROUP_M and CUTLASS's
    threadblock swizzle are this order.

    Per kernel (`group` 0): bands of 8 rows where the output's grid has
    more than `min-programs` tiles (128 unless given: about one wave;
    smaller grids run at once, and their order does not matter), more
    than one row and one column of tiles, and the operand every row of
    tiles sweeps (B: k x n of each product, in the type its chunks are
    staged in) takes more than half of a 50 MB L2 (an H100's or H200's;
    smaller, L2 keeps it while the rows go by, and row-major reads it
    from memory once anyway); otherwise row-major. `group` forces G for
    every contraction kernel (1: row-major; more than the grid's rows of
    tiles: one band of all of them, column-major order). Only the order
    changes: each tile is still taken by exactly one program instance,
    and the kernel's arithmetic is the same. Run after `tileir-tile` and
    `tileir-split-k` (they decide the grid).

    Before (4096 x 4096 halves in 128 x 128 tiles: 32 x 32 instances,
    B 32 MiB):

    ```mlir
    %r = tileir.kernel ins(%a, %b : ...) -> tensor<4096x4096xf16>
        domain [4096, 4096] tile [128, 128] threads 256 {
    ```

    After:

    ```mlir
    %r = tileir.kernel ins(%a, %b : ...) -> tensor<4096x4096xf16>
        domain [4096, 4096] tile [128, 128] threads 256 raster_group 8 {
    ```
  }];
  let options = [
    Option<"group", "group", "int64_t", /*default=*/"0",
           "Rows of tiles per band (1: row-major; 0: chosen per kernel)">,
    Option<"minPrograms", "min-programs", "int64_t", /*default=*/"128",
           "Tiles of the output above which the order is chosen (with "
           "group 0)">
  ];
  let dependentDialects = ["::strata::tileir::TileIRDialect"];
}

def TileIRPersistPass : Pass<"tileir-persist"> {
  let summary = "Make large contraction kernels persistent: one wave of "
                "instances looping over the tiles.";
  let description = [{
    Sets `instances` on contraction kernels (tileir.kernel): N program
    instances are launched and each takes every N-th tile, in the order
    `tileir-raster` chose, one after the other. A grid of one wave has no
    tail wave of a few tiles while the rest of the GPU idles, no launch
    of a block per tile, and sets up once what every tile would (a TMA
    ring's mbarriers). Each tile is still taken exactly once and its
    arithmetic is the same.

    Off unless asked (`sms` and `instances` 0): with `sms` (the target's
    multiprocessors: 132 on an H100 or H200 SXM), a kernel with more tiles
    than a wave takes one wave: `sms` x the blocks of it one SM holds
    (the fewest its threads, its pipelined operand chunks' shared memory
    and an estimate of its registers, twice the accumulators a thread
    holds, allow), marked `wave`: the runtime launches the exact wave,
    which the compiled kernel's registers decide, and the kernel strides
    over the tiles by the blocks launched. `instances` forces N for every
    contraction kernel with more than N tiles (no `wave`: N is launched). Run after `tileir-pipeline` (the chunks' depth) and
    `tileir-raster`.

    Before (4096 x 4096 halves in 128 x 128 tiles: 1024 instances):

    ```mlir
    %r = tileir.kernel ins(%a, %b : ...) -> tensor<4096x4096xf16>
        domain [4096, 4096] tile [128, 128] threads 256 raster_group 8 {
    ```

    After, with `sms=132` (two such blocks per SM):

    ```mlir
    %r = tileir.kernel ins(%a, %b : ...) -> tensor<4096x4096xf16>
        domain [4096, 4096] tile [128, 128] threads 256 raster_group 8
        instances 264 wave {
    ```
  }];
  let options = [
    Option<"sms", "sms", "int64_t", /*default=*/"0",
           "Multiprocessors of the target: kernels with more tiles than a "
           "wave take one (0: none)">,
    Option<"instances", "instances", "int64_t", /*default=*/"0",
           "Instances every contraction kernel with more tiles launches "
           "(0: from sms)">
  ];
  let dependentDialects = ["::strata::tileir::TileIRDialect"];
}

#endif // STRATA_TILEIR_PASSES
