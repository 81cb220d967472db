// Translating a row program (a cooperative tileir.kernel): a thread group
// per row shares the row's folds, scans and loops.

#ifndef STRATA_LIB_CONVERSION_TILEIRTOKERNELIR_ROWPROGRAMTRANSLATOR_H
#define STRATA_LIB_CONVERSION_TILEIRTOKERNELIR_ROWPROGRAMTRANSLATOR_H

#include "BlockCombine.h"
#include "KernelBodyTranslator.h"
#include "strata/Dialect/LoopIR/IR/LoopIR.h"
#include "strata/Dialect/TileIR/Analysis/SharedChunks.h"
#include "strata/Dialect/Utils/LoopBox.h"

namespace strata {
namespace detail {
using namespace mlir;

using strata::delinearize;

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

/// The condition under which a point contributes the monoid's identity:
/// every component the body yields is `select(condition, identity, v)`
/// (or, `whenTrue` false, `select(condition, v, identity)`), one condition
/// for all (attention's masked keys, FlashAccumulate.cpp).
struct IdentityGuard {
  Value condition;
  bool whenTrue;
};
std::optional<IdentityGuard> findIdentityGuard(Block &body,
                                               ArrayRef<TypedAttr> identity);

/// `v` at the builder, where `at` binds the fold's point (and any other
/// value of `fold` given) and the tiled dimensions' tileir.point to a row:
/// the ops it needs that the fold or a row's point compute are cloned,
/// values from outside the fold that every thread group shares (`tiled`
/// says which domain dimensions have several rows) are `outside`'s.
Value evaluateAtRow(OpBuilder &b, Value v, IRMapping &at, Operation *fold,
                    const IRMapping &outside, ArrayRef<bool> tiled);

/// A mapping of `points` (RowProgramTranslator::pointsOf) to `row`.
IRMapping atRow(ArrayRef<Value> points, Value row);

/// Whether `a` and `b` are computed alike: the same value, leaves `leaf`
/// decides, or results of the same op (name, attributes, no regions) over
/// operands computed alike (`memo` holds the pairs compared so far).
bool computedAlike(Value a, Value b,
                   function_ref<std::optional<bool>(Value, Value)> leaf,
                   DenseMap<std::pair<Value, Value>, bool> &memo);

/// How a chunked fold that is attention's online softmax multiplies on
/// tensor cores (TensorCoreFlashFold.cpp): its score is `scoreSum` (q . k,
/// a sum over the head dimension of widened halves: the shared chunk
/// `loads[keyLoad]` and `rowOperand`, which reads the row and the sum's
/// index only), its components the maximum, the sum and the output row's
/// sums (`split.tail`), whose values are the chunks `split.tailLoads`.
struct TensorCoreFlash {
  loopir::ReduceOp scoreSum;
  Value rowOperand;
  unsigned keyLoad;
  ComponentSplit split;
  /// Where the score is -inf (a masked key: no contribution), if a select
  /// says so.
  std::optional<IdentityGuard> mask;
  Type operand; // f16 or bf16
  /// The warps that share a row group of 16 rows, each taking
  /// chunkPoints / keyWarps keys of every chunk.
  int64_t keyWarps;
};

/// Translates a row program: the kernel's threads split into one group per
/// point of the tile (a row), and a group shares its row's folds, scans and
/// loops (group-strided, in runs where the body reads rows as vectors),
/// combining across its threads by shuffles and shared memory.
class RowProgramTranslator : public KernelBodyTranslator {
public:
  using KernelBodyTranslator::KernelBodyTranslator;

private:
  void prepare() override;
  LogicalResult translateProgramOp(Operation &op) override;
  void beforeTopLevelOp(Operation &op) override;

  /// Which domain dimensions have several rows per program instance.
  SmallVector<bool> tiledDims();
  /// The tileir.point ops of `dim` in the kernel (mapped to another row
  /// than this thread's, evaluateAtRow evaluates a fold's value there).
  SmallVector<Value> pointsOf(size_t dim);

  /// Splits the threads into one group per point
  /// of the tile (groupPoint, group, groupThread, groupThreads).
  void assignThreadGroups();

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

  /// A cooperative fold: each thread folds its share of the points in
  /// registers, then the block combines the partial results.
  LogicalResult translateFold(tileir::FoldOp fold);
  LogicalResult translateCompositeFold(tileir::CompositeFoldOp fold);
  /// A cooperative fold of `body`'s contributions over `bounds` with
  /// `monoid`: each thread folds its points in registers, then the block
  /// combines (combineAcrossBlock); every thread gets the results.
  LogicalResult translateCooperativeFold(Operation *fold,
                                         const KernelMonoid &monoid,
                                         Block &body, ArrayRef<int64_t> bounds);

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
  /// Where `guard` (the points that contribute the identity) is an affine
  /// comparison of key and row (causal attention), whether it holds for
  /// every point of the chunk from `first` and every row of the block (an
  /// i1, the same in every thread); null otherwise.
  Value skipsChunk(Operation *fold, const std::optional<IdentityGuard> &guard,
                   ArrayRef<int64_t> bounds, Value first);
  /// How a chunked fold multiplies on tensor cores, where it is attention's
  /// online softmax of halves' scores and values and the kernel's warps
  /// tile its rows by 16 (none otherwise: the fold takes FMAs).
  std::optional<TensorCoreFlash>
  planTensorCoreFlash(Operation *fold, const KernelMonoid &monoid, Block &body,
                      ArrayRef<int64_t> bounds,
                      ArrayRef<tileir::SharedChunkLoad> loads);
  /// Flash attention's Q tile on tensor cores: each warp holds the
  /// fragments of 16 rows' q, and per chunk of keys multiplies its share of
  /// S = Q . K^T and of P . V with kernelir.mma (the chunks in shared
  /// memory, loaded with ldmatrix), folding the rows' maxima and sums
  /// between them; the warps of a row group combine through shared memory,
  /// from where each row's thread group reads its results.
  LogicalResult translateTensorCoreFlash(
      Operation *fold, Block &body, ArrayRef<int64_t> bounds,
      ArrayRef<tileir::SharedChunkLoad> loads, const TensorCoreFlash &plan);
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
  /// Brings the pending results `op` (a top-level op of the kernel, which
  /// every lane runs) uses into place, at the builder.
  void gatherBeforeUse(Operation &op);

  /// Results of folds that live elsewhere than in this thread's registers
  /// (a split fold's tail component in the lane that holds it, a tensor-core
  /// fold's in shared memory): each is brought into place, at the builder,
  /// where the kernel's top level first uses it (mapSplitResults,
  /// translateTensorCoreFlash; bringing a whole row vector at once would
  /// keep it live in every thread).
  DenseMap<Value, std::function<Value(Location)>> pendingResults;
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
