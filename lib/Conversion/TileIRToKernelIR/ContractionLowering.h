// Lowering a contraction kernel's tileir.contract: one lowering per
// instruction family (fused multiply-adds on register tiles, mma.sync,
// wgmma), each deciding which result elements each thread accumulates and
// how it multiplies, over one operand staging through shared memory.

#ifndef STRATA_LIB_CONVERSION_TILEIRTOKERNELIR_CONTRACTIONLOWERING_H
#define STRATA_LIB_CONVERSION_TILEIRTOKERNELIR_CONTRACTIONLOWERING_H

#include "KernelContext.h"
#include "strata/Dialect/LoopIR/IR/LoopIR.h"

#include <memory>

namespace strata {
namespace detail {

/// A K-major operand's tensor map seen as a view that splits the tile
/// coordinate it varies, k, or both, in two (attention's output [b
/// h][s][d] read as rows b s and k h d: [b][h][s][d]): the view's shape
/// and what each of its dimensions takes, the innermost k's (or its
/// inner part's) and before it the varied coordinate's, so that a box
/// [1, .., rows, k] is a chunk's rows; `rowSplit` and `kSplit` are the
/// inner parts' extents (0: not split). Where the rows are split, a
/// tile's rows take boxes of `boxRows` (their gcd with the inner
/// extent), none straddling two outer coordinates.
enum class ViewTerm { Along, AlongOuter, AlongInner, K, KOuter, KInner };
struct TmaView {
  SmallVector<int64_t, 4> shape;
  SmallVector<ViewTerm, 4> terms;
  int64_t rowSplit = 0, kSplit = 0, boxRows = 0;
  bool operator==(const TmaView &other) const {
    return std::tie(shape, terms, rowSplit, kSplit, boxRows) ==
           std::tie(other.shape, other.terms, other.rowSplit, other.kSplit,
                    other.boxRows);
  }
};

/// The lowering of a kernel's tileir.contract ops by one instruction family.
/// Operand chunks are staged in shared memory per step of k (this class);
/// the subclasses multiply from there.
class ContractionLowering {
public:
  virtual ~ContractionLowering() = default;

  /// Gives each thread the result elements it accumulates
  /// (KernelContext::elementCoords), and the widest runs of them its
  /// epilogue may access as one vector (KernelContext::vectorWidth); false
  /// (nothing assigned) where the tile does not split this way, and the
  /// kernel's default assignment of strided elements applies.
  virtual bool assignElements() = 0;

  /// Lowers `contract`: this thread's accumulated elements become the
  /// result's scalars, in elementCoords' order.
  virtual LogicalResult lower(tileir::ContractOp contract) = 0;

  /// Whether the lowering multiplies on tensor cores, its tile's
  /// accumulators held in registers.
  virtual bool onTensorCores() const { return false; }

protected:
  explicit ContractionLowering(KernelContext &ctx)
      : ctx(ctx), b(ctx.b), kernel(ctx.kernel) {}

  /// Elements per 16-byte row of a core matrix where the operand chunks are
  /// in wgmma's layout ([k blocks][rows][w]); 0 for row-major chunks.
  virtual int64_t coreMatrixWidth() const { return 0; }

  /// 2 where the epilogue of a tensor-core tile may load and store its
  /// elements in pairs: each lane's accumulator elements come in pairs of
  /// neighbouring columns at even columns (mma.sync's and wgmma's D
  /// fragments), consecutive in elementCoords, so a pair is one 2-vector
  /// where the access is a row run and the domain's columns are even;
  /// else 1.
  int64_t chooseAccumulatorPairWidth();

  /// The indices of element (r, c) of an operand chunk as stored (c along
  /// k where the chunk has core matrices), in `slot`: chunkIndices, or
  /// with coreMatrixWidth() w, [slot, c / w, r, c mod w].
  SmallVector<Value> storedChunkIndices(Value slot, Value r, Value c);

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

  /// The slot of step `kt` in a pipeline of `stages` (kt mod stages); null
  /// with one stage (the chunks have no slots).
  Value slotOf(Location loc, Value kt, int64_t stages);

  /// In step `kt` of a pipelined loop of `steps`: `stage`s step kt +
  /// stages - 1 (into its slot) where it exists.
  void stageAhead(Location loc, Value kt, int64_t stages, int64_t steps,
                  function_ref<void(Value ahead)> stage);

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

  /// Both operand chunks of a contraction copied by TMA: the kernel's
  /// buffers (the tile program's arguments), the tile dimensions (of
  /// extent 1) whose coordinates index each buffer's leading dimensions (a
  /// batched operand's; none for a 2-d buffer), whether the rhs is
  /// MN-major (a row-major k x n buffer), and the swizzle of the chunks.
  struct TmaCopies {
    BlockArgument lhs, rhs;
    SmallVector<unsigned, 2> lhsBatch, rhsBatch;
    bool rhsMnMajor;
    int64_t swizzle;
    std::optional<TmaView> lhsView, rhsView;
  };

  /// How TMA copies both operand chunks of `contract` (lhs rows x k, rhs
  /// columns x k), multiplied `columns` columns at a time: where each
  /// operand region is one widened load of a kernel buffer [the tile
  /// dimension it varies][k] (or for the rhs [k][columns], MN-major),
  /// after leading dimensions indexed by batch coordinates of the tile
  /// (a box [1, ..., rows, k] each) or, K-major, delinearizing the
  /// varied coordinate (a batch folded into the rows: a box [rows, k] of
  /// the buffer seen as a matrix), indexed by exactly those
  /// coordinates, or, K-major, any buffer whose offsets a TmaView
  /// describes (boxes of its rows and of k within its inner extents),
  /// of the contraction's k (the
  /// box's zeros past the tensor are k's tail and the domain's edge) in
  /// rows of whole 16-byte units (a tensor map's strides), its boxes at
  /// most 256 rows, and the buffer read nowhere else in the kernel but by
  /// these copies (it becomes the tensor map); the swizzle is the widest (128
  /// bytes at most) that a step's row of halves is a multiple of, and with an
  /// MN-major rhs `columns` of halves too. Sibling contractions (a gated pair
  /// reading one x) take TMA together, each buffer copied the same way by
  /// all of them, or none does. None otherwise: the kernel keeps
  /// stagedLoop.
  std::optional<TmaCopies> planTmaCopies(tileir::ContractOp contract,
                                         Type operand, int64_t columns);

  /// How a buffer is copied: its box's rows and order, its swizzle and
  /// its batch dimensions (a tensor map has one box and swizzle).
  struct TmaRole {
    int64_t boxRows;
    bool mnMajor;
    int64_t swizzle;
    SmallVector<unsigned, 2> batch;
    std::optional<TmaView> view;
    bool operator==(const TmaRole &other) const {
      return std::tie(boxRows, mnMajor, swizzle, batch, view) ==
             std::tie(other.boxRows, other.mnMajor, other.swizzle, other.batch,
                      other.view);
    }
  };
  /// One contraction's TMA copies, the loads they replace and how each
  /// operand's buffer is copied: what planTmaCopies asks of each of the
  /// kernel's contractions, whoever else reads their buffers.
  struct TmaPlan {
    TmaCopies copies;
    loopir::LoadOp lhsLoad, rhsLoad;
    TmaRole lhsRole, rhsRole;
  };
  std::optional<TmaPlan> planOwnTmaCopies(tileir::ContractOp contract,
                                          Type operand, int64_t columns);

  /// stagedLoop's twin for TMA: the kernel's arguments for `copies` become
  /// tensor maps; per step, one thread arms the stage's mbarrier with the
  /// step's bytes and copies each block of both chunks as one box ([slot]
  /// [k block][rows][swizzle bytes], or an MN-major rhs [slot][n block][k]
  /// [swizzle bytes]: the layouts swizzled wgmma reads); every thread
  /// waits on the phase, then `multiply`s. With `stages` > 1
  /// the first stages - 1 steps are issued before the loop and step s,
  /// after a barrier (every thread is done with step s - 1), issues step
  /// s + stages - 1 into the slot step s - 1 read. With
  /// `readsInFlight` (stages > 1), `multiply` returns while step s's
  /// reads of the chunks may still run, having waited for step s - 1's:
  /// the barrier and the refill follow it.
  scf::ForOp tmaStagedLoop(
      tileir::ContractOp contract, const TmaCopies &copies, Value lhsChunk,
      Value rhsChunk, ValueRange init,
      function_ref<SmallVector<Value>(ValueRange acc, Value slot)> multiply,
      bool readsInFlight = false);

  KernelContext &ctx;
  OpBuilder &b;
  tileir::KernelOp kernel;
};

/// The tile dimension an operand region varies: the rows for the lhs (its
/// columns are dropped), the columns for the rhs.
size_t variedDim(size_t dropped, size_t rank);

/// The load an operand region stages unchanged: the region is one
/// loopir.load of a buffer of `kernel` (widened by an arith.extf with
/// `narrow`); null otherwise.
loopir::LoadOp plainOperandLoad(tileir::KernelOp kernel, Region &operand,
                                bool narrow);

/// The element offset, row-major in a buffer of `type`, of the indices
/// `map` gives (simplified; in `map`'s dimensions): what TMA staging and
/// the TMA epilogue match views of a buffer against.
AffineExpr rowMajorOffset(AffineMap map, MemRefType type);

/// The extents of a row-major shape of `elements` elements whose strides
/// are `strides` (outermost first): each stride divides the one outside it
/// (the outermost, `elements`), the innermost is 1; none otherwise.
std::optional<SmallVector<int64_t>> rowMajorExtents(ArrayRef<int64_t> strides,
                                                    int64_t elements);

/// The instruction families, each where its layout fits the kernel (null
/// otherwise): wgmma (WgmmaContraction.cpp), mma.sync (MmaContraction.cpp),
/// fused multiply-adds (FmaContraction.cpp, always).
std::unique_ptr<ContractionLowering> createWgmmaContraction(KernelContext &ctx);
std::unique_ptr<ContractionLowering> createMmaContraction(KernelContext &ctx);
std::unique_ptr<ContractionLowering> createFmaContraction(KernelContext &ctx);

/// The lowering of `ctx`'s contractions, if its body has any: wgmma where
/// the options allow it and the tile splits into warpgroup slabs, else
/// mma.sync where the tile splits into warps' mma tiles, else fused
/// multiply-adds.
std::unique_ptr<ContractionLowering>
chooseContractionLowering(KernelContext &ctx);

} // namespace detail
} // namespace strata

#endif
