#ifndef STRATA_TILEIR_OPS
#define STRATA_TILEIR_OPS

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def TileIR_Dialect : Dialect {
  let name = "tileir";
  let cppNamespace = "::strata::tileir";
  let summary = "How a kernel maps onto the GPU: block programs over tiles.";
  let description = [{
    A `tileir.kernel` is a block-level program: every program instance
    (future thread block) handles one tile of the kernel's iteration domain.
    The schedule is explicit on the kernel: the domain, the tile shape and the
    threads per block. Tile loads and stores are masked by the domain, so
    ragged sizes need no special cases. Scalar math stays in `arith`/`math`
    inside `tileir.map`. Reductions are folds over monoids (`tileir.fold`),
    which the block's threads share; a matrix product over a block tile is a
    `tileir.contract` of two operand regions.
  }];
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect"];
}

class TileIR_Op<string mnemonic, list<Trait> traits = []>
    : Op<TileIR_Dialect, mnemonic, traits>;

def TileIR_TileType : TypeDef<TileIR_Dialect, "Tile"> {
  let mnemonic = "tile";
  let summary = "A block-level value of fixed shape.";
  let description = [{
    A tile is distributed over the threads of one program instance; how is
    decided when lowering to kernelir. Example: `!tileir.tile<4x64xf32>`.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getNumElements() const;
  }];
}

def TileIR_KernelOp : TileIR_Op<"kernel", [IsolatedFromAbove, Pure,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "A scheduled kernel: one program instance per tile.";
  let description = [{
    Like `loopir.kernel`, it takes and returns tensors and its entry block
    has one buffer per input then one per result. The schedule:
    - `domain`: the iteration space (the parallel loop bounds);
    - `tile`: the part of the domain one program instance handles; the grid
      is `ceil(domain / tile)` in every dimension;
    - `threads`: the threads of one program instance. They divide the tile's
      elements evenly; in a cooperative kernel (`tileir.fold`,
      `tileir.distribute`) they split into one equal group per point of
      the tile instead (`tileir.point`);
    - `raster_group` (optional): the order in which program instances
      take their tiles. Without it, row-major over the grid. With G, the
      tiles of the grid's last two dimensions (rows and columns of an
      output) go in bands of G rows, each band column by column, so that
      instances running at once read G row panels and a few column panels
      of the operands instead of one row panel and every column panel: an
      L2-friendly order (Triton's GROUP_M). Leading dimensions (batch,
      split-k slices) still vary slowest; the last band may be shorter.
    - `instances` (optional, tile programs only): a persistent kernel.
      Without it, one program instance per tile. With N, N instances are
      launched (fewer where the grid has fewer tiles), and instance b
      takes tiles b, b + N, b + 2N, ... in the order above, one after
      the other: a grid of one wave, with no launch or tail between its
      tiles, and whatever an instance sets up once (mbarriers) set up
      once.
    - `wave` (with `instances`): N is an estimate of the instances one
      wave of the GPU holds; the launch takes the exact wave instead (as
      many as the GPU's SMs hold at once, from the kernel's registers and
      shared memory, which only the compiled kernel knows; at most the
      tiles), and instance b takes tiles b, b + W, ... for the W launched.

    ```mlir
    %r = tileir.kernel ins(%a : tensor<1000x37xf32>) -> tensor<1000x37xf32>
        domain [1000, 37] tile [4, 64] threads 128 {
    ^bb0(%in: memref<1000x37xf32>, %out: memref<1000x37xf32>):
      %o0 = tileir.tile_offset 0
      %o1 = tileir.tile_offset 1
      %x = tileir.load %in[%o0, %o1] : memref<1000x37xf32> -> !tileir.tile<4x64xf32>
      %y = tileir.map ins(%x : !tileir.tile<4x64xf32>) -> !tileir.tile<4x64xf32> {
      ^bb0(%e: f32):
        %v = math.exp %e : f32
        tileir.yield %v : f32
      }
      tileir.store %y, %out[%o0, %o1] : !tileir.tile<4x64xf32>, memref<1000x37xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyStaticShapeTensor>:$inputs,
                       DenseI64ArrayAttr:$domain,
                       DenseI64ArrayAttr:$tile,
                       I64Attr:$threads,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>
                           :$raster_group,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>
                           :$instances,
                       UnitAttr:$wave);
  let results = (outs Variadic<AnyStaticShapeTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`ins` `(` $inputs^ `:` type($inputs) `)`)? `->` type($results)
    `domain` $domain `tile` $tile `threads` $threads
    (`raster_group` $raster_group^)? (`instances` $instances^)?
    (`wave` $wave^)? attr-dict-with-keyword $body
  }];
  let builders = [
    // Row-major, one instance per tile: tileir-raster and tileir-persist,
    // the last scheduling passes, decide the order and the instances.
    OpBuilder<(ins "::mlir::TypeRange":$results, "::mlir::ValueRange":$inputs,
                   "::mlir::DenseI64ArrayAttr":$domain,
                   "::mlir::DenseI64ArrayAttr":$tile,
                   "::mlir::IntegerAttr":$threads), [{
      build($_builder, $_state, results, inputs, domain, tile, threads,
            /*raster_group=*/nullptr, /*instances=*/nullptr,
            /*wave=*/nullptr);
    }]>
  ];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Program instances per domain dimension: ceil(domain / tile).
    ::llvm::SmallVector<int64_t> getGrid();
    /// The grid's tiles: the product of getGrid().
    int64_t getNumTiles();
    /// Program instances launched: `instances` where it is set and the
    /// grid has more tiles, else one per tile.
    int64_t getNumInstances();
    /// Whether the threads work together on one point (tileir.fold,
    /// tileir.distribute) rather than each on its own tile elements.
    bool isCooperative();
    /// What kind of tile program the body is.
    ProgramKind getProgramKind();
    /// The type every tile of this kernel has, for an element type.
    TileType getTileType(::mlir::Type elementType);
    ::mlir::Block::BlockArgListType getInputBuffers() {
      return getBody().getArguments().take_front(getInputs().size());
    }
    ::mlir::Block::BlockArgListType getOutputBuffers() {
      return getBody().getArguments().drop_front(getInputs().size());
    }
  }];
}

def TileIR_ProgramIdOp : TileIR_Op<"program_id", [Pure,
    HasParent<"KernelOp">]> {
  let summary = "The tile coordinate of this program instance.";
  let description = [{
    The index of this program instance's tile along domain dimension `dim`.

    ```mlir
    %p = tileir.program_id 0
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$dim);
  let results = (outs Index:$result);
  let builders = [OpBuilder<(ins "int64_t":$dim), [{
    build($_builder, $_state, $_builder.getIndexType(), dim);
  }]>];
  let assemblyFormat = "$dim attr-dict";
  let hasVerifier = 1;
}

def TileIR_TileOffsetOp : TileIR_Op<"tile_offset", [Pure,
    HasParent<"KernelOp">]> {
  let summary = "Where this program instance's tile starts.";
  let description = [{
    The first domain coordinate of this program instance's tile along
    dimension `dim`: `program_id dim` times the kernel's tile size there.
    Tile accesses take it as their origin, so a pass that changes the
    kernel's tile (`tileir-tile`) changes no arithmetic.

    ```mlir
    %o1 = tileir.tile_offset 1
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$dim);
  let results = (outs Index:$result);
  let builders = [OpBuilder<(ins "int64_t":$dim), [{
    build($_builder, $_state, $_builder.getIndexType(), dim);
  }]>];
  let assemblyFormat = "$dim attr-dict";
  let hasVerifier = 1;
}

def TileIR_PointOp : TileIR_Op<"point", [Pure, HasParent<"KernelOp">]> {
  let summary = "The domain point a thread group of a row program works on.";
  let description = [{
    In a cooperative kernel (one with `tileir.fold` or `tileir.distribute`)
    the threads split into one equal group of consecutive threads per point
    of the tile, in row-major order; this is the coordinate along `dim` of
    the point of this thread's group: the tile offset plus the group's
    position in the tile. With a tile of one point it is the tile offset.

    ```mlir
    %row = tileir.point 0
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$dim);
  let results = (outs Index:$result);
  let builders = [OpBuilder<(ins "int64_t":$dim), [{
    build($_builder, $_state, $_builder.getIndexType(), dim);
  }]>];
  let assemblyFormat = "$dim attr-dict";
  let hasVerifier = 1;
}

def TileIR_CoordinateOp : TileIR_Op<"coordinate", [Pure,
    HasParent<"KernelOp">]> {
  let summary = "A tile of domain coordinates along one dimension.";
  let description = [{
    Element `e` of the tile is `offset + e[dim]`: with the tile's offset
    along `dim` as `offset`, each element holds its own domain coordinate
    there. An epilogue that computes with its point's indices (a causal
    mask comparing a row with a column, an address computed from them)
    takes them through this op into a `tileir.map`, so it stays a tile
    program instead of going point by point. Elements outside the domain
    hold coordinates past its end.

    ```mlir
    %o1 = tileir.tile_offset 1
    %j = tileir.coordinate %o1 dim 1 : !tileir.tile<64x64xindex>
    ```
  }];
  let arguments = (ins Index:$offset,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$dim);
  let results = (outs TileIR_TileType:$result);
  let assemblyFormat = "$offset `dim` $dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def TileIR_LoadOp : TileIR_Op<"load", []> {
  let summary = "Loads a tile, masked by the kernel's domain.";
  let description = [{
    Element `e` of the tile is read from `memref[map(origin + e)]` when
    `origin + e` lies inside the kernel's domain; elements outside it are
    undefined and never stored. `origin` is in domain coordinates.

    ```mlir
    %b = tileir.load %bias[%o0, %o1] map affine_map<(d0, d1) -> (d1)>
        : memref<37xf32> -> !tileir.tile<4x64xf32>
    ```
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "", [MemRead]>:$memref,
                       Variadic<Index>:$origin,
                       OptionalAttr<AffineMapAttr>:$map);
  let results = (outs TileIR_TileType:$result);
  let assemblyFormat = [{
    $memref `[` $origin `]` (`map` $map^)? attr-dict `:` type($memref) `->`
    type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::AffineMap getIndexMap();
  }];
}

def TileIR_StoreOp : TileIR_Op<"store", []> {
  let summary = "Stores a tile, masked by the kernel's domain.";
  let description = [{
    Element `e` of the tile is written to `memref[map(origin + e)]` when
    `origin + e` lies inside the kernel's domain.

    ```mlir
    tileir.store %y, %out[%o0, %o1] : !tileir.tile<4x64xf32>, memref<1000x37xf32>
    ```
  }];
  let arguments = (ins TileIR_TileType:$value,
                       Arg<AnyStaticShapeMemRef, "", [MemWrite]>:$memref,
                       Variadic<Index>:$origin,
                       OptionalAttr<AffineMapAttr>:$map);
  let assemblyFormat = [{
    $value `,` $memref `[` $origin `]` (`map` $map^)? attr-dict `:`
    type($value) `,` type($memref)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::AffineMap getIndexMap();
  }];
}

def TileIR_MapOp : TileIR_Op<"map", [RecursiveMemoryEffects]> {
  let summary = "Applies a scalar body to every element of some tiles.";
  let description = [{
    The body takes one scalar per input tile and yields one scalar per result
    tile; all tiles have the same shape.

    ```mlir
    %r = tileir.map ins(%a, %b : !tileir.tile<4x64xf32>, !tileir.tile<4x64xf32>)
        -> !tileir.tile<4x64xf32> {
    ^bb0(%x: f32, %y: f32):
      %s = arith.addf %x, %y : f32
      tileir.yield %s : f32
    }
    ```
  }];
  let arguments = (ins Variadic<TileIR_TileType>:$inputs);
  let results = (outs Variadic<TileIR_TileType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`ins` `(` $inputs^ `:` type($inputs) `)`)? `->` type($results)
    attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
}

def TileIR_ForEachPointOp : TileIR_Op<"for_each_point", [
    HasParent<"KernelOp">, RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "Scalar code run once per point of the program's tile.";
  let description = [{
    The generic schedule: the body runs for every point `origin + e` of this
    program instance's tile that lies inside the kernel's domain, and its
    block arguments are that point's domain coordinates. The body is scalar
    Loop IR (loads, stores, reductions, nested parallel loops, arith/math);
    the threads of the program share the points. It is correct for any loop
    kernel, and the fallback where no cooperative schedule applies.

    ```mlir
    tileir.for_each_point [%o0] (%i) {
      %s = loopir.reduce add (%k) in [2048] : f32 {
        %x = loopir.load %in[%i, %k] : memref<32x2048xf32>
        loopir.yield %x : f32
      }
      loopir.store %s, %out[%i] : memref<32xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<Index>:$origin);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def TileIR_Combiner : I32EnumAttr<"Combiner",
    "the associative operation of a fold's monoid", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"mul", 1>,
    I32EnumAttrCase<"max", 2>, I32EnumAttrCase<"min", 3>]> {
  let cppNamespace = "::strata::tileir";
}

def TileIR_FoldOp : TileIR_Op<"fold", [HasParent<"KernelOp">,
    RecursiveMemoryEffects, SingleBlock]> {
  let summary = "Folds scalar contributions over a box with explicit monoids.";
  let description = [{
    The body runs for every point of `[0, bounds)` and yields one scalar per
    monoid; the results are the folds of those contributions. Each monoid is
    a combiner and its identity, written `combiner(identity)`. Only
    combiners the scheduler knows to be associative exist (add, mul, max,
    min; float max/min propagate NaN), and the identity must be the
    combiner's: 0 for add, 1 for mul, -inf/+inf (the integer extremes) for
    max/min. Associativity is what lets the schedule split the box among the
    block's threads, fold each part in registers and combine the partial
    results across threads (warp shuffles, then shared memory) in any order.

    A fold is cooperative: every thread of the program instance takes part
    and every thread receives the results, so it sits at the top level of a
    kernel whose tile is one point.

    ```mlir
    %s, %q = tileir.fold add(0.0 : f32), add(0.0 : f32) (%k) in [4096] {
      %x = loopir.load %in[%row, %k] : memref<4096x4096xf32>
      %x2 = arith.mulf %x, %x : f32
      tileir.yield %x, %x2 : f32, f32
    }
    ```
  }];
  let arguments = (ins TypedArrayAttrBase<TileIR_Combiner,
                                          "combiners">:$combiners,
                       ArrayAttr:$identities,
                       DenseI64ArrayAttr:$bounds);
  let results = (outs Variadic<AnyTypeOf<[AnySignlessInteger, AnyFloat]>>:
                 $results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let builders = [
    // One monoid per result type, with the combiner's identity; the body
    // gets one index argument per bound and no terminator.
    OpBuilder<(ins "::llvm::ArrayRef<Combiner>":$combiners,
                   "::mlir::TypeRange":$types,
                   "::llvm::ArrayRef<int64_t>":$bounds)>
  ];
  let extraClassDeclaration = [{
    ::mlir::Block::BlockArgListType getInductionVars() {
      return getBody().getArguments();
    }
    ::llvm::SmallVector<Combiner> getCombinerList();
    /// The monoid a combiner folds with.
    static ::strata::MonoidKind getMonoidKind(Combiner combiner);
    /// The identity of `combiner` for scalars of `type`.
    static ::mlir::TypedAttr getIdentity(Combiner combiner, ::mlir::Type type);
  }];
}

def TileIR_CompositeFoldOp : TileIR_Op<"composite_fold", [
    HasParent<"KernelOp">, RecursiveMemoryEffects]> {
  let summary = "Folds tuples over a box with a monoid given as a region.";
  let description = [{
    A fold whose monoid is a tuple of scalars combined as a whole: the
    `combine` region takes two elements of the monoid (the arguments of
    the first, then of the second) and yields their combination; the
    identity is one typed scalar per component. The body runs for every
    point of `[0, bounds)` and yields one element of the monoid (its
    contribution); the results are the fold of all contributions. The
    combination must be associative and the identity neutral, which is
    what lets the schedule split the box among threads, fold each part in
    registers and combine the parts in any order, as for `tileir.fold`.
    The verifier checks the region's shape, and that the identity is
    neutral on sample values wherever the region folds to constants.

    Online softmax's (max, sum of exp(x - max)): a contribution (x, 1), and
    a combination that rescales each sum to the new maximum (a maximum that
    did not move, -inf included, scales by 1):

    ```mlir
    %m, %s = tileir.composite_fold (%k) in [4096]
        identity(0xFF800000 : f32, 0.0 : f32) {
      %x = loopir.load %in[%row, %k] : memref<64x4096xf32>
      %one = arith.constant 1.0 : f32
      tileir.yield %x, %one : f32, f32
    } combine {
    ^bb0(%m1: f32, %s1: f32, %m2: f32, %s2: f32):
      %m = arith.maximumf %m1, %m2 : f32
      ...
      tileir.yield %m, %s : f32, f32
    }
    ```
  }];
  let arguments = (ins ArrayAttr:$identities, DenseI64ArrayAttr:$bounds);
  let results = (outs Variadic<AnyTypeOf<[AnySignlessInteger, AnyFloat]>>:
                 $results);
  let regions = (region SizedRegion<1>:$body, SizedRegion<1>:$combine);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let builders = [
    // One component per identity, of its type; the body gets one index
    // argument per bound, the combine region two elements of the monoid,
    // and neither a terminator.
    OpBuilder<(ins "::llvm::ArrayRef<::mlir::TypedAttr>":$identities,
                   "::llvm::ArrayRef<int64_t>":$bounds)>
  ];
  let extraClassDeclaration = [{
    ::mlir::Block::BlockArgListType getInductionVars() {
      return getBody().getArguments();
    }
  }];
}

def TileIR_ScanOp : TileIR_Op<"scan", [HasParent<"KernelOp">,
    RecursiveMemoryEffects]> {
  let summary = "A fold along a row that yields each of its prefixes.";
  let description = [{
    An inclusive scan: the body runs for every point j of `[0, bound)` and
    yields one contribution per monoid (as in `tileir.fold`: add, mul, max
    or min with its identity); then the `each` region runs once for every
    point i, with i and the fold of the contributions of the points
    `0..i` (one scalar per monoid), and writes it back. Associativity lets
    the schedule fold the row in chunks of the block's threads: a scan of
    each chunk across the threads (warp shuffles, then shared memory),
    offset by the fold of the chunks before it. Like a fold it is
    cooperative: every thread of the program instance takes part, so it
    sits at the top level of a kernel whose tile is one point per row.

    `cumsum` of a row, doubled:

    ```mlir
    tileir.scan add(0.0 : f32) (%j) in [4096] {
      %x = loopir.load %in[%row, %j] : memref<64x4096xf32>
      tileir.yield %x : f32
    } each {
    ^bb0(%i: index, %prefix: f32):
      %y = arith.mulf %prefix, %two : f32
      loopir.store %y, %out[%row, %i] : memref<64x4096xf32>
      tileir.yield
    }
    ```
  }];
  let arguments = (ins TypedArrayAttrBase<TileIR_Combiner,
                                          "combiners">:$combiners,
                       ArrayAttr:$identities,
                       DenseI64ArrayAttr:$bounds);
  let regions = (region SizedRegion<1>:$body, SizedRegion<1>:$each);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let builders = [
    // One monoid per type, with the combiner's identity; the body gets the
    // point's index, the each region the point's index and one prefix per
    // monoid, and neither a terminator.
    OpBuilder<(ins "::llvm::ArrayRef<Combiner>":$combiners,
                   "::mlir::TypeRange":$types, "int64_t":$bound)>
  ];
  let extraClassDeclaration = [{
    ::mlir::Block::BlockArgListType getInductionVars() {
      return getBody().getArguments();
    }
    ::llvm::SmallVector<Combiner> getCombinerList();
    /// The types of the prefixes (of the identities).
    ::llvm::SmallVector<::mlir::Type> getPrefixTypes();
    /// The each region's point index and prefixes.
    ::mlir::BlockArgument getEachIndex() { return getEach().getArgument(0); }
    ::mlir::Block::BlockArgListType getPrefixes() {
      return getEach().getArguments().drop_front();
    }
  }];
}

def TileIR_CompositeScanOp : TileIR_Op<"composite_scan", [
    HasParent<"KernelOp">, RecursiveMemoryEffects]> {
  let summary = "A scan whose monoid is a tuple combined by a region.";
  let description = [{
    `tileir.scan` over a composite monoid, given as `tileir.composite_fold`
    gives it: one typed identity per component and a `combine` region that
    takes two elements (the earlier part's components, then the later
    part's) and yields their combination. The combination must be
    associative and the identity neutral on both sides; it need not
    commute, as the schedule combines parts in the row's order. The body
    yields each point's contribution; the `each` region runs at every
    point i with i and the fold of the contributions of the points 0..i.

    `logcumsumexp` of a row: online softmax's (max, sum of exp(x - max)),
    each prefix's log-sum-exp being m + log(s):

    ```mlir
    tileir.composite_scan (%j) in [4096]
        identity(0xFF800000 : f32, 0.0 : f32) {
      %x = loopir.load %in[%row, %j] : memref<64x4096xf32>
      %one = arith.constant 1.0 : f32
      tileir.yield %x, %one : f32, f32
    } combine {
    ^bb0(%m1: f32, %s1: f32, %m2: f32, %s2: f32):
      ...
      tileir.yield %m, %s : f32, f32
    } each {
    ^bb0(%i: index, %m: f32, %s: f32):
      %log = math.log %s : f32
      %y = arith.addf %m, %log : f32
      loopir.store %y, %out[%row, %i] : memref<64x4096xf32>
      tileir.yield
    }
    ```
  }];
  let arguments = (ins ArrayAttr:$identities, DenseI64ArrayAttr:$bounds);
  let regions = (region SizedRegion<1>:$body, SizedRegion<1>:$combine,
                        SizedRegion<1>:$each);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let builders = [
    // One component per identity, of its type; the body gets the point's
    // index, the combine region two elements of the monoid, the each
    // region the point's index and one prefix per component, and none a
    // terminator.
    OpBuilder<(ins "::llvm::ArrayRef<::mlir::TypedAttr>":$identities,
                   "int64_t":$bound)>
  ];
  let extraClassDeclaration = [{
    ::mlir::Block::BlockArgListType getInductionVars() {
      return getBody().getArguments();
    }
    /// The types of the prefixes (of the identities).
    ::llvm::SmallVector<::mlir::Type> getPrefixTypes();
    /// The each region's point index and prefixes.
    ::mlir::BlockArgument getEachIndex() { return getEach().getArgument(0); }
    ::mlir::Block::BlockArgListType getPrefixes() {
      return getEach().getArguments().drop_front();
    }
  }];
}

def TileIR_DistributeOp : TileIR_Op<"distribute", [HasParent<"KernelOp">,
    RecursiveMemoryEffects, SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "Parallel iterations shared among the block's threads.";
  let description = [{
    Runs the body once for every point of `[0, bounds)`; the iterations are
    independent, and the threads of the program instance share them
    (consecutive threads take consecutive points, innermost index fastest).
    It is the write-back of a cooperative row program: the body is scalar
    Loop IR.

    ```mlir
    tileir.distribute (%j) in [4096] {
      %x = loopir.load %in[%row, %j] : memref<4096x4096xf32>
      %y = arith.mulf %x, %scale : f32
      loopir.store %y, %out[%row, %j] : memref<4096x4096xf32>
    }
    ```
  }];
  let arguments = (ins DenseI64ArrayAttr:$bounds);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::llvm::ArrayRef<int64_t>":$bounds)>];
  let extraClassDeclaration = [{
    ::mlir::Block::BlockArgListType getInductionVars() {
      return getBody().getArguments();
    }
  }];
}

def TileIR_ContractOp : TileIR_Op<"contract", [HasParent<"KernelOp">,
    RecursiveMemoryEffects]> {
  let summary = "A tile of sums of products over a contracted dimension.";
  let description = [{
    Element `e` of the result, at domain point `p = origin + e` (the last
    two domain dimensions are the rows `i` and columns `j` of a matrix
    product, any before them batch dimensions), is

        sum over k in [0, k) of lhs(p without j, k) * rhs(p without i, k)

    accumulated in the result's element type. The operand regions are scalar
    code (loads with their fused prologue math) that take the point's
    coordinates without `j` (lhs) or without `i` (rhs), then `k`, and yield
    one scalar of the result's element type. Elements outside the domain are
    undefined. The schedule: `step` is how many `k` one staging step covers
    (the lowering stages an operand chunk of the tile's rows or columns by
    `step` in shared memory per step), and `stages` (1 unless given) how
    many steps' chunks shared memory holds at once: with more than one the
    copies for step `s + stages - 1` are in flight (asynchronous where the
    chip has them) while step `s` multiplies, a software pipeline.

    ```mlir
    %c = tileir.contract [%o0, %o1] k 65 step 16 : !tileir.tile<32x32xf32> lhs {
    ^bb0(%i: index, %k: index):
      %x = loopir.load %a[%i, %k] : memref<17x65xf32>
      tileir.yield %x : f32
    } rhs {
    ^bb0(%j: index, %k: index):
      %w = loopir.load %b[%j, %k] map affine_map<(d0, d1) -> (d1, d0)> : memref<65x19xf32>
      tileir.yield %w : f32
    }
    ```
  }];
  let arguments = (ins Variadic<Index>:$origin, I64Attr:$k, I64Attr:$step,
                       DefaultValuedAttr<I64Attr, "1">:$stages);
  let results = (outs TileIR_TileType:$result);
  let regions = (region SizedRegion<1>:$lhs, SizedRegion<1>:$rhs);
  let assemblyFormat = [{
    ` ` `[` $origin `]` `k` $k `step` $step (`stages` $stages^)? attr-dict
    `:` type($result)
    `lhs` $lhs `rhs` $rhs
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The half type (f16 or bf16) both operands yield widened to f32, so
    /// their chunks can be staged as halves; null otherwise.
    ::mlir::Type getWidenedHalfType();
    /// Bytes of an operand element as its chunks are staged: a half's
    /// where both operands widen halves (on every path), else the
    /// result's element's.
    int64_t getStagedElementBytes();
    /// The type tensor cores multiply this contraction's operands as: f16
    /// or bf16 where both operands widen the same half type to f32, f32
    /// (as tf32) where `tf32` is asked for and neither does; a null type
    /// where it has no tensor-core form (its result is not f32).
    ::mlir::Type getTensorCoreOperandType(bool tf32);
  }];
}

def TileIR_YieldOp : TileIR_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["KernelOp", "MapOp", "ForEachPointOp", "FoldOp", "CompositeFoldOp",
                 "ScanOp", "CompositeScanOp", "DistributeOp", "ContractOp"]>]> {
  let summary = "Ends a kernel, map, fold or loop body.";
  let description = [{
    In a `tileir.map` it yields the scalars of one element, in a
    `tileir.fold` or a `tileir.scan`'s body the contributions of one
    point, in a `tileir.contract` an operand's element; elsewhere it takes no
    values and is implicit in the printed form.
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{
    build($_builder, $_state, ::mlir::ValueRange());
  }]>];
}

#endif // STRATA_TILEIR_OPS
