// Translating the body of one tileir.kernel into its kernelir.func.

#ifndef STRATA_LIB_CONVERSION_TILEIRTOKERNELIR_TILEBODYTRANSLATOR_H
#define STRATA_LIB_CONVERSION_TILEIRTOKERNELIR_TILEBODYTRANSLATOR_H

#include "BlockCombine.h"
#include "strata/Conversion/TileIRToKernelIR/TileIRToKernelIR.h"
#include "strata/Dialect/KernelIR/IR/KernelIR.h"
#include "strata/Dialect/LoopIR/IR/LoopIR.h"
#include "strata/Dialect/TileIR/Analysis/SharedChunks.h"
#include "strata/Dialect/TileIR/IR/TileIR.h"
#include "strata/Dialect/Utils/LoopBox.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace strata {
namespace detail {
using namespace mlir;

using strata::delinearize;

/// The widest global access of one thread, in bits (ld.global.v4.f32).
constexpr int64_t kMaxVectorBits = 128;

/// Whether an access through `map` reads (or writes) `width` neighbouring
/// elements of a row of `buffer` for `width` neighbouring values of the
/// innermost coordinate (the map dimensions `isInnermost` accepts), starting
/// at a multiple of `width`: the innermost buffer index is that coordinate
/// plus an offset free of it that is a multiple of `width`, no other index
/// uses it, and rows are multiples of `width` long.
bool isRowRun(AffineMap map, function_ref<bool(unsigned)> isInnermost,
              MemRefType buffer, int64_t width);

/// The indices of element (r, c) of a contraction's operand chunk in
/// `slot` (null where the chunk has no slots; see stagedLoop).
SmallVector<Value> chunkIndices(Value slot, Value r, Value c);

/// The most elements of a vector access within kMaxVectorBits for every
/// buffer of `buffers` (1 if one has no integer or float elements).
int64_t maxVectorWidth(ArrayRef<MemRefType> buffers);

/// How a chunked fold of a composite monoid splits its components among
/// the lanes of a row (ComponentSplitFold.cpp): every lane folds the
/// `head` components over every point (online softmax's maximum and sum),
/// each lane a share of the `tail` (the output row's sums): tail[s * lanes
/// + l] in slot s of lane l.
struct ComponentSplit {
  /// The lanes that share the fold (a power of two up to a warp's).
  int64_t lanes = 0;
  SmallVector<unsigned> head, tail;
  /// Components of the tail's form folded with the head because they did
  /// not divide among the lanes.
  unsigned joinedHead = 0;
  /// Per tail component, its contribution's shared-chunk load (an index
  /// into the fold's loads).
  SmallVector<unsigned> tailLoads;
};

/// The split of `fold`'s components among `lanes` lanes, where its monoid
/// and contributions allow one: the combine of each tail component reads
/// the head and itself only, alike for all; each tail contribution is a
/// scalar shared-chunk load of its own (among `loads`) and what every
/// other one computes alike (a guard); at least two slots per lane.
std::optional<ComponentSplit>
planComponentSplit(Operation *fold, ArrayRef<tileir::SharedChunkLoad> loads,
                   int64_t lanes);

/// Where a split's tail loads differ: in operand `operand` only, the
/// constant `first` + t for tail component t (the output row's element).
struct TailColumns {
  unsigned operand;
  int64_t first;
};

/// The tail loads' columns, where they are one load at consecutive
/// elements (a split fold without shared chunks reads a slot's element by
/// moving that index).
std::optional<TailColumns>
planTailColumns(const ComponentSplit &split,
                ArrayRef<tileir::SharedChunkLoad> loads);

/// Translates the body of one tileir.kernel into the body of its
/// kernelir.func. A tile value becomes `elementsPerThread` scalars per thread:
/// thread t owns tile elements t, t + threads, t + 2 * threads, ..., or runs
/// of `vectorWidth` neighbouring elements where its accesses can be vectors
/// (see chooseVectorWidth; in a contraction kernel, a register tile instead,
/// see assignRegisterTiles).
class TileBodyTranslator {
public:
  TileBodyTranslator(OpBuilder &b, tileir::KernelOp kernel,
                     MultiplyOptions multiply)
      : b(b), kernel(kernel), multiply(multiply),
        elementsPerThread(kernel.getTileType(b.getF32Type()).getNumElements() /
                          kernel.getThreads()) {}

  /// Fills `func`, at the builder, with the kernel's body.
  LogicalResult translate(kernelir::FuncOp func);

  /// Whether the translated kernel multiplies on tensor cores (kernelir.mma
  /// or kernelir.wgmma), its tile's accumulators held in registers.
  bool multipliesOnTensorCores() const { return mma || wgmma; }

  /// The tile's elements each thread holds (its accumulators, in a
  /// contraction kernel).
  int64_t getElementsPerThread() const { return elementsPerThread; }

private:
  LogicalResult translateOps(Block &source);
  LogicalResult translateOp(Operation &op);

  /// In a cooperative kernel, splits the threads into one group per point
  /// of the tile (groupPoint, group, groupThread, groupThreads).
  void assignThreadGroups();

  /// In a kernel with a tileir.contract, gives each thread a register tile
  /// of the block tile (rows x up to 4 columns, interleaved) instead of
  /// strided elements, so that each step of k loads rows + columns values
  /// for rows x columns fused multiply-adds. Returns false (and assigns
  /// nothing) where the tile does not split that way.
  bool assignRegisterTiles();

  /// A scf.for at the builder carrying `init`; `body` fills it (with the
  /// builder inside) and returns the values carried to the next iteration.
  scf::ForOp buildLoop(Location loc, Value lb, Value ub, Value step,
                       ValueRange init,
                       function_ref<SmallVector<Value>(Value, ValueRange)> body);

  /// A loop over `bounds` that the group's threads share (in registers, no
  /// shared memory): the group's threads take the points thread,
  /// thread + threads, ... (row-major, so neighbouring threads touch
  /// neighbouring addresses), or
  /// with `width` > 1 the runs of `width` points starting at width * thread,
  /// width * (thread + threads), ...; `body` gets each point's (each run's
  /// first point's) coordinates and the loop's carried values.
  scf::ForOp groupStridedLoop(
      Location loc, ArrayRef<int64_t> bounds, ValueRange init,
      function_ref<SmallVector<Value>(ValueRange, ValueRange)> body,
      int64_t width = 1);

  /// The widest run (up to kMaxVectorBits) of neighbouring points of a
  /// group-strided loop over `bounds` with `body` for which some top-level
  /// loopir access of the body reads or writes a run of a buffer row as one
  /// aligned vector; 1 where none can.
  int64_t chooseRunWidth(Block &body, ArrayRef<int64_t> bounds);

  /// Clones `body` for the run of `width` points that starts at `first`
  /// (one mapping per point, in order); the body's run accesses become one
  /// vector load or store each (a store after the whole run, unless the
  /// body reads the buffer it writes). With `width` 1, the point itself.
  SmallVector<IRMapping> clonePoints(Block &body, ValueRange first,
                                     int64_t width);
  SmallVector<IRMapping> cloneRun(Block &body, ValueRange first, int64_t width);

  /// A row a kernel's group-strided loops read more than once (softmax reads x
  /// in its max, its sum and its write-back): the first loop that reads a run
  /// also stores it into `buffer` (shaped like the loops' bounds), later
  /// loops read it there. Each thread reads back only what it stored (the
  /// loops have the same bounds and runs, so the same owners): no barrier.
  struct RowCache {
    Value buffer;
    bool filled = false;
  };

  /// Gives the run loads that two or more of the kernel's top-level folds
  /// and distributes repeat (same buffer, map, indices, bounds and runs,
  /// the buffer never written by the kernel) one RowCache, while they fit
  /// in kMaxRowCacheBytes (rowCacheOf).
  void planRowCaches();

  /// How the warps of a contraction kernel share its block tile on tensor
  /// cores: a grid of warpRows x warpCols warps, each owning tilesM x
  /// tilesN mma tiles (16 x 8 outputs each), multiplying operands of
  /// `operand` (f16, bf16, or f32 as tf32).
  struct MmaLayout {
    int64_t warpRows, warpCols, tilesM, tilesN;
    Type operand;
  };

  /// The tensor-core layout of a contraction kernel whose operands are f16
  /// (or bf16) widened to f32, or f32 with `tf32`, whose block tile splits
  /// into whole mma tiles among its warps and whose k step is a multiple of
  /// the mma's k; none otherwise.
  std::optional<MmaLayout> chooseMmaLayout();

  /// Gives each thread the result elements of its lane in its warp's mma
  /// tiles (elementCoords, tile by tile in the accumulator's layout), and
  /// computes the fragment coordinates of its lane (mmaCoords).
  void assignMmaTiles(const MmaLayout &layout);

  /// A contraction on tensor cores: per step of k, both operand chunks are
  /// staged in shared memory (f16 or bf16 before their widening, or f32),
  /// then each warp loads its A and B fragments and accumulates its tiles
  /// with kernelir.mma.
  LogicalResult translateMmaContract(tileir::ContractOp contract);

  /// How the warpgroups of a contraction kernel share its block tile with
  /// kernelir.wgmma: a grid of groupRows x groupCols warpgroups, each
  /// owning `slabs` slabs of 64 rows by n columns, multiplying operands of
  /// `operand` (f16 or bf16).
  struct WgmmaLayout {
    int64_t groupRows, groupCols, slabs, n;
    Type operand;
  };

  /// The warpgroup layout of a contraction kernel whose operands are f16
  /// or bf16 widened to f32, where wgmma is allowed, the block tile splits
  /// into whole 64-row slabs among whole warpgroups (n a multiple of 8 up
  /// to 256) and the k step is a multiple of 16; none otherwise.
  std::optional<WgmmaLayout> chooseWgmmaLayout();

  /// Gives each thread the result elements of its lane in its warpgroup's
  /// slabs (elementCoords, slab by slab in wgmma's D layout).
  void assignWgmmaTiles(const WgmmaLayout &layout);

  /// A contraction by warpgroups: per step of k, both operand chunks are
  /// staged in shared memory in wgmma's core-matrix layout (B n-major),
  /// fenced for the async proxy, then each warpgroup multiplies its slabs
  /// with one kernelir.wgmma each, straight from the chunks.
  LogicalResult translateWgmmaContract(tileir::ContractOp contract);

  /// The indices of element (r, c) of an operand chunk as stored (c along
  /// k where the chunk has core matrices), in `slot`: chunkIndices, or
  /// with coreMatrixWidth() w, [slot, c / w, r, c mod w].
  SmallVector<Value> storedChunkIndices(Value slot, Value r, Value c);

  /// A cooperative fold: each thread folds its share of the points in
  /// registers, then the block combines the partial results.
  LogicalResult translateFold(tileir::FoldOp fold);
  LogicalResult translateCompositeFold(tileir::CompositeFoldOp fold);
  /// A cooperative fold of `body`'s contributions over `bounds` with
  /// `monoid`: each thread folds its points in registers, then the block
  /// combines (combineAcrossBlock); every thread gets the results.
  LogicalResult translateCooperativeFold(Operation *fold,
                                         const KernelMonoid &monoid,
                                         Block &body,
                                         ArrayRef<int64_t> bounds);

  /// A contraction, staged through shared memory: per step of `step` k,
  /// the threads copy the lhs chunk (tile rows x step) and the rhs chunk
  /// (step x tile columns) into shared buffers, computing each operand
  /// element once (zero outside the domain or past k), a barrier; each
  /// thread accumulates its own elements of the result tile from the
  /// shared chunks; a barrier before the next step overwrites them.
  LogicalResult translateContract(tileir::ContractOp contract);

  /// The shared buffers of a contraction's operand chunks, of `element`:
  /// lhs (tile rows x step) and rhs (step x tile columns, or tile columns x
  /// step with `rhsTransposed`). For tensor-core `fragments` the rows are
  /// padded so that fragment loads have no bank conflicts.
  std::pair<Value, Value> createChunks(tileir::ContractOp contract,
                                       Type element, bool rhsTransposed = false,
                                       bool fragments = false);

  /// The loop over steps of k of a staged contraction: stage both chunks
  /// (before their widening with `narrow`; the rhs chunk n x k with
  /// `rhsTransposed`), a barrier, `multiply` the accumulators (`init`
  /// before the first step) from the chunks' `slot`, a barrier. With the
  /// contraction's `stages` > 1, a software pipeline: the chunks have a
  /// slot per stage (a leading dimension; `slot` is null without one), the
  /// chunks of the first stages - 1 steps are staged before the loop, and
  /// step s stages step s + stages - 1 into its slot after one barrier,
  /// then multiplies its own slot. Operands that are plain loads are
  /// copied asynchronously (kernelir.async_copy), so the copies are in
  /// flight while earlier steps multiply.
  scf::ForOp stagedLoop(
      tileir::ContractOp contract, Value lhsChunk, Value rhsChunk, Value zero,
      bool narrow, bool rhsTransposed, ValueRange init,
      function_ref<SmallVector<Value>(ValueRange acc, Value slot)> multiply);

  /// How one operand chunk is staged; see stage().
  struct ChunkShape {
    int64_t rows, cols; // The chunk, before any transposition.
    bool rowIsK;        // Whether its rows (else its columns) run along k.
    size_t dropped;     // The domain dimension the operand does not take.
    bool narrow, transposed;
    /// The chunk as stored.
    int64_t storedRows() const { return transposed ? cols : rows; }
    int64_t storedCols() const { return transposed ? rows : cols; }
    /// Whether the chunk's rows as stored run along k (else along the tile
    /// dimension the operand varies).
    bool storedRowsRunAlongK() const { return rowIsK == transposed; }
  };

  /// The rhs chunk of a step of `contract`: k x columns, stored transposed
  /// (columns x k) with `transposed`.
  ChunkShape rhsChunkShape(tileir::ContractOp contract, bool narrow,
                           bool transposed);

  /// Whether a tensor-core contraction of halves stores its B chunks
  /// n-major (ldmatrix), else k-major (ldmatrix .trans): n-major unless
  /// only the k-major chunk can be copied asynchronously, as a row-major B
  /// (a weight used as `x @ w`) is.
  bool storesRhsNMajor(tileir::ContractOp contract);

  /// An operand chunk copied asynchronously: the operand region's load and
  /// the elements per copy.
  struct AsyncCopy {
    loopir::LoadOp load;
    int64_t width;
  };

  /// How an operand chunk is copied asynchronously: where the operand
  /// region is one load of a kernel buffer (before its widening with
  /// `narrow`) and runs of the chunk's stored rows are aligned runs of that
  /// buffer's rows within the domain and k, in the widest such runs of 4, 8
  /// or 16 bytes; none where the chunk must be computed and stored.
  std::optional<AsyncCopy> planAsyncCopy(Region &operand,
                                         const ChunkShape &shape);

  /// Copies one operand chunk asynchronously into `slot` (see stagedLoop)
  /// in runs of `copy.width` elements of its stored rows, neighbouring
  /// threads taking neighbouring runs; outside the domain or past k the
  /// copies write zeros.
  void stageAsync(Region &operand, ValueRange origin, Value chunk, Value slot,
                  const ChunkShape &shape, Value k0, AsyncCopy copy);

  /// The point of an operand at element (r, c) of its chunk (the region's
  /// coordinates) and whether it lies in the domain and before k (null
  /// where that always holds).
  std::pair<SmallVector<Value>, Value> chunkPoint(Region &operand,
                                                  ValueRange origin,
                                                  const ChunkShape &shape,
                                                  Value k0, Value r, Value c);

  /// Computes one operand chunk and stores it into shared memory:
  /// `shape.rows` x `shape.cols` elements, thread t taking elements t,
  /// t + threads, ... (row-major, so neighbouring threads read neighbouring
  /// addresses of a row-major operand). The operand region takes the
  /// point's coordinates without dimension `shape.dropped`, then k; the
  /// tile dimension it varies is the chunk's column (lhs: rows x k) or row
  /// (rhs: k x columns). With `shape.narrow`, the value staged is the
  /// operand before its widening (the input of the region's final
  /// arith.extf). With `shape.transposed`, element (r, c) of the chunk is
  /// stored at (c, r), in `slot` (see stagedLoop).
  void stage(Region &operand, ValueRange origin, Value chunk, Value slot,
             const ChunkShape &shape, Value k0, Value zero);

  LogicalResult translateDistribute(tileir::DistributeOp loop);

  /// A cooperative scan: the row in chunks of one point per thread of the
  /// group; each chunk scanned across the threads (scanAcrossBlock) and
  /// offset by the fold of the chunks before it, carried in registers.
  LogicalResult translateScan(tileir::ScanOp scan);
  LogicalResult translateCompositeScan(tileir::CompositeScanOp scan);
  LogicalResult translateCooperativeScan(Operation *scan,
                                         const KernelMonoid &monoid,
                                         Block &body, Block &each,
                                         int64_t length);

  /// The monoid of a composite fold or scan: `identities`, combined by
  /// cloning the `combine` region (which may use kernel-level values).
  KernelMonoid regionMonoid(ArrayAttr identities, Block *combine);
  /// The monoid of a tileir.fold or tileir.scan: its `combiners`' over
  /// `types`, component by component.
  static KernelMonoid combinerMonoid(ArrayRef<tileir::Combiner> combiners,
                                     TypeRange types);

  /// Checks that the group's threads can share a fold or scan `op`: a
  /// power of two below the warp size, or whole warps for a block of one
  /// row.
  LogicalResult verifyCooperativeGroup(Operation *op, StringRef what);

  /// The shared-chunk loads each fold stages, where the kernel has several
  /// rows per program instance and they fit in kMaxSharedChunkBytes with
  /// chunks of at least kMinChunkPoints points (sharedChunks, chunkPoints).
  void planSharedChunks();

  /// A cooperative fold whose rows share some of their loads (the keys and
  /// values of attention's rows, a weight every row of a matrix-vector
  /// product reads): per chunk of `chunkPoints` points, a barrier, the
  /// block's threads copy the chunk of each shared load into shared memory
  /// (each element once, for every row), a barrier, and each thread folds
  /// its share of its row's points of the chunk, reading those loads from
  /// the chunk; then the groups combine as in translateCooperativeFold.
  LogicalResult translateChunkedFold(Operation *fold,
                                     const KernelMonoid &monoid, Block &body,
                                     ArrayRef<int64_t> bounds,
                                     ArrayRef<tileir::SharedChunkLoad> loads);
  /// The copy of one chunk of a chunked fold, from point `first`, into
  /// `chunks` (or, for a load with a `column`, that column of `tailChunk`)
  /// between barriers. Where `skip` (if not null) holds, nothing is
  /// copied.
  void stageChunk(Operation *fold, Block &body, ArrayRef<int64_t> bounds,
                  ArrayRef<tileir::SharedChunkLoad> loads,
                  ArrayRef<Value> chunks,
                  ArrayRef<std::optional<int64_t>> columns, Value tailChunk,
                  Value first, Value skip);
  /// Where `m` holds copies of the shared loads, makes them read their
  /// chunk (those with one) at point `offset` of it.
  void readFromChunks(IRMapping &m, ArrayRef<tileir::SharedChunkLoad> loads,
                      ArrayRef<Value> chunks, Value offset);
  /// One chunk of a chunked fold, from point `first`, its copy made: this
  /// thread's points of it folded into `acc`; the new accumulators. Where
  /// `skip` (if not null) holds, the chunk contributes only identities.
  SmallVector<Value> foldChunk(Operation *fold, const KernelMonoid &monoid,
                               Block &body, ArrayRef<int64_t> bounds,
                               ArrayRef<tileir::SharedChunkLoad> loads,
                               ArrayRef<Value> chunks, Value first,
                               ValueRange acc, Value skip);

  /// The point past this thread group's last of the chunk from `first` of
  /// a fold of `points` points (0 where `skip`, if not null, holds).
  Value chunkEnd(Value first, int64_t points, Value skip);

  /// A slot's tail value at a point of a split fold: `at` binds the body
  /// at the point (`offset` from the fold's first), `column` is the slot's
  /// tail component.
  using TailRead =
      function_ref<Value(IRMapping &at, Value offset, Value column)>;
  /// This thread's lane among a split's `lanes` (planComponentSplit: the
  /// group's, or aligned runs of a warp's; several runs of a row take turns
  /// over the points and combine at the end).
  Value splitLane(Location loc, int64_t lanes);
  /// A split fold's identity: the head's components, then one per slot.
  SmallVector<Value> splitIdentity(Operation *fold,
                                   const ComponentSplit &split);
  /// Combines two states of a split fold (the head's components, then one
  /// per slot) with the fold's region.
  SmallVector<Value> combineSplit(Operation *fold, const ComponentSplit &split,
                                  ValueRange acc, ValueRange contribution);
  /// The runs of split.lanes lanes a group's threads make (its warps, or
  /// runs of a warp's lanes): their count, this thread's run and the
  /// offset of its groups of points (null with one run).
  struct SplitRuns {
    int64_t count;
    Value run, offset;
  };
  SplitRuns splitRuns(const ComponentSplit &split, Location loc);
  /// The points `first` + [0, end) of a fold split by components, in
  /// groups of split.lanes points, the group's `runs` taking turns: every
  /// lane walks every point of its run's groups; the head's contribution is
  /// computed by one lane per point and shuffled to the others, or, where the
  /// head has a sum of products worth it, by all, a share of the sum each; each
  /// lane folds its slots' values (`readTail`). Shared loads read `chunks`, if
  /// any. The new accumulators (the head's, then one per slot).
  SmallVector<Value> foldByComponents(Operation *fold, Block &body,
                                      ArrayRef<int64_t> bounds,
                                      ArrayRef<tileir::SharedChunkLoad> loads,
                                      ArrayRef<Value> chunks,
                                      const ComponentSplit &split,
                                      TailRead readTail, Value first, Value end,
                                      const SplitRuns &runs, ValueRange acc);
  /// A fold with no shared chunks split by components where its monoid
  /// allows (a decode step's attention: a warp or more per row), reading
  /// each slot's element from the buffer; false (nothing emitted) where it
  /// does not split.
  bool translateSplitFold(Operation *fold, Block &body,
                          ArrayRef<int64_t> bounds);
  /// The split of a fold's components for this kernel's groups: the most
  /// lanes, up to a warp's, that leave the fewest components of the
  /// tail's form in the head (planComponentSplit); none where it does not
  /// split.
  std::optional<ComponentSplit>
  chooseComponentSplit(Operation *fold,
                       ArrayRef<tileir::SharedChunkLoad> loads);
  /// The split folds of a group's runs combined through shared memory:
  /// every run receives the group's (`acc` itself with one run).
  SmallVector<Value> combineSplitRuns(Operation *fold,
                                      const ComponentSplit &split,
                                      ValueRange acc, const SplitRuns &runs);
  /// `sum` (a loopir.reduce add over one index, its body's values bound by
  /// `m`) split among `lanes` lanes (`lane`: this thread's): each adds a
  /// share of the points, and an xor butterfly gives every lane the total
  /// (the same bits in every lane).
  Value sumAcrossLanes(loopir::ReduceOp sum, IRMapping &m, Value lane,
                       int64_t lanes);
  /// Maps a split fold's results to its accumulators: the head's as they
  /// are; each tail component is shuffled from the lane that holds it
  /// before the top-level op that first uses it (gatherBeforeUse).
  void mapSplitResults(Operation *fold, const ComponentSplit &split,
                       ValueRange acc);
  /// The lane in its warp (i32, for kernelir.shuffle idx) of lane `i` of
  /// this thread's run of `lanes` split lanes.
  Value laneOfGroup(Location loc, Value i, int64_t lanes);
  /// Shuffles the pending components `op` (a top-level op of the kernel,
  /// which every lane runs) uses into place, at the builder.
  void gatherBeforeUse(Operation &op);

  /// The widest runs of neighbouring elements (up to kMaxVectorBits) each
  /// thread can own so that some tile access reads or writes a run as one
  /// vector, aligned, with one guard; 1 where none can.
  int64_t chooseVectorWidth();

  /// 2 where the epilogue of a tensor-core tile may load and store its
  /// elements in pairs: each lane's accumulator elements come in pairs of
  /// neighbouring columns at even columns (mma.sync's and wgmma's D
  /// fragments), consecutive in elementCoords, so a pair is one 2-vector
  /// where the access is a row run (runWidth) and the domain's columns are
  /// even; else 1.
  int64_t chooseAccumulatorPairWidth();

  /// The elements one access through `map` to `buffer` covers: the kernel's
  /// vector width where the run is a vector of the buffer, else 1.
  int64_t runWidth(AffineMap map, Value buffer);

  LogicalResult translateLoad(tileir::LoadOp load);
  /// Each owned element's coordinate along the op's dimension.
  LogicalResult translateCoordinate(tileir::CoordinateOp coordinate);
  LogicalResult translateStore(tileir::StoreOp store);

  LogicalResult translateMap(tileir::MapOp map);

  /// The generic schedule: each owned element is a point that runs the
  /// Loop IR body (lowered to scalar loops by the same conversion) when it
  /// lies inside the domain.
  LogicalResult translatePoints(tileir::ForEachPointOp points);

  /// The buffer indices of element k of a tile at `origin`, and whether the
  /// element lies inside the kernel's domain.
  std::pair<SmallVector<Value>, Value> access(Location loc, ValueRange origin,
                                              AffineMap map, int64_t k);

  OpBuilder &b;
  tileir::KernelOp kernel;
  MultiplyOptions multiply; // The instructions contractions may use.
  int64_t elementsPerThread;
  int64_t vectorWidth = 1; // Neighbouring elements a thread owns in a run.
  IRMapping mapping; // Non-tile values of the tile program -> kernel values.
  DenseMap<Value, SmallVector<Value>> scalars; // Tile -> this thread's scalars.
  SmallVector<Value> programIds;
  Block *entry = nullptr; // The kernel's entry block (shared buffers).
  Value thread;           // This thread's index in its block.
  /// In a cooperative kernel the threads split into one group per point of
  /// the tile: the group's point (domain coordinates), this thread's group
  /// and index in it, and the threads of a group.
  SmallVector<Value> groupPoint;
  Value group, groupThread; // group: null with one group.
  int64_t groups = 1, groupThreads = 0;
  SmallVector<SmallVector<Value>> elementCoords; // Per owned element.
  std::optional<MmaLayout> mma; // Set in a tensor-core contraction kernel.
  std::optional<WgmmaLayout> wgmma; // Set in a warpgroup contraction kernel.
  /// Elements per 16-byte row of a core matrix where the operand chunks are
  /// in wgmma's layout ([k blocks][rows][w]); 0 for row-major chunks.
  int64_t coreMatrixWidth() const {
    return wgmma ? kernelir::getLdMatrixRowElements(wgmma->operand) : 0;
  }
  /// This lane's fragment coordinates, per value of the fragment: of the
  /// accumulator (row, column), and of a tf32 B (k, column), which loads
  /// element by element (the other fragments load with ldmatrix).
  struct MmaLaneCoords {
    SmallVector<std::pair<Value, Value>> accumulator, tf32Rhs;
    SmallVector<std::pair<Value, Value>> &of(kernelir::MmaOperand operand) {
      return operand == kernelir::MmaOperand::Acc ? accumulator : tf32Rhs;
    }
  } mmaCoords;
  /// The origin (row, column) of this warp's tiles in the block tile.
  Value warpRow0, warpCol0;
  /// Where some groups of the last program instance lie past the domain
  /// (a row tile that does not divide it): whether this group's row is in
  /// the domain; null otherwise.
  Value rowInDomain;
  /// Results of split folds not yet shuffled to every lane: the slot that
  /// holds each, the lane of its split that holds it, and the split's lanes
  /// (mapSplitResults).
  struct PendingGather {
    Value slot;
    int64_t lane, lanes;
  };
  DenseMap<Value, PendingGather> pendingGathers;
  /// The loads each chunked fold stages, and the points per chunk.
  DenseMap<Operation *, SmallVector<tileir::SharedChunkLoad>> sharedChunks;
  int64_t chunkPoints = 0, sharedChunkBytes = 0;
  SmallVector<RowCache> rowCaches;
  /// The row cache (index into rowCaches) of each run load that has one.
  DenseMap<Operation *, unsigned> rowCacheOf;
};

} // namespace detail
} // namespace strata

#endif
