// What the loop-level cost model (loopir-fuse) may assume about the tile
// schedules that come after it. One place, so that the scheduler and the
// model it is estimated by cannot drift apart.

#ifndef STRATA_DIALECT_UTILS_SCHEDULEMODEL_H
#define STRATA_DIALECT_UTILS_SCHEDULEMODEL_H

#include "strata/Dialect/Utils/GpuLimits.h"

#include <algorithm>
#include <cstdint>

namespace strata {

/// A sum of products over rows x columns (a contraction) is computed in
/// block tiles of up to kContractionBlockTile rows and columns (larger on
/// tensor cores, below) whose operand chunks are staged in shared memory:
/// an operand element is computed once per block tile that reads it, not
/// once per output element.
constexpr int64_t kContractionBlockTile = 64;

/// A contraction on tensor cores takes block tiles of up to
/// kLargeContractionBlockTile rows and columns where such tiles still make
/// kMinLargeTilePrograms program instances: each staged operand element
/// then serves twice the products. Measured on an H200 (docs/runtime.md),
/// square matmuls from 1536 to 4096: f16 1.2-1.7x and tf32 1.2-1.4x faster
/// than with 64 x 64 tiles; f32 on FMAs was not faster (1536: 0.67x), so it
/// keeps 64 x 64. The fusion model (loopir-fuse) counts operand recompute
/// with kContractionBlockTile, an upper bound for larger tiles.
constexpr int64_t kLargeContractionBlockTile = 128;
constexpr int64_t kMinLargeTilePrograms = 128;

/// A contraction on FMAs whose block tiles of kContractionBlockTile would
/// make fewer than kMinContractionPrograms program instances (a batch-1
/// CNN's 1 x 1 convolutions at 14 x 14 or 7 x 7 pixels: 8 blocks on a GPU
/// of 132 SMs) halves its tile's longer side while that side stays at
/// least kMinContractionBlockTile: more blocks, each reading its operands'
/// chunks again (from L2: such operands are small). Tensor-core tiles stay
/// whole (their warp and warpgroup layouts are built on them). The fusion
/// model's operand recompute (kContractionBlockTile) is then low by up to
/// 2x per halved side, only in such small grids.
constexpr int64_t kMinContractionPrograms = 128;
constexpr int64_t kMinContractionBlockTile = 32;

/// The k a contraction stages per step (tileir-k-tile) and its pipeline
/// depth (tileir-pipeline, unless forced): kContractionStep and
/// kContractionStages; on tensor cores in block tiles of
/// kLargeContractionBlockTile rows and columns, tf32 kLargeTileTensorCoreStep
/// and kContractionStages, halves (f16, bf16) kLargeTileHalfStep and
/// kLargeTileHalfStages, depths that tileir-pipeline keeps whatever its
/// budget: tf32 70 KiB, halves 108 KiB (dynamic shared memory). Measured
/// on an H200 (docs/runtime.md) against 16 k and two stages: tf32 10%
/// faster with 32 k; f16 8% (2048^3) and 15% (4096^3) with 32 k, then
/// another 7% (2048^3: 0.128 -> 0.119 ms) and 6% (4096^3: 0.866 -> 0.815
/// ms) with 64 k in three stages (tf32 lost there).
constexpr int64_t kContractionStep = 16;
constexpr int64_t kContractionStages = 2;
constexpr int64_t kLargeTileTensorCoreStep = 32;
constexpr int64_t kLargeTileHalfStep = 64;
constexpr int64_t kLargeTileHalfStages = 3;

/// Fewer rows or columns than this make a matrix-vector product, which the
/// row schedule reduces instead.
constexpr int64_t kMinContractionRowsAndColumns = 8;

/// A row program folds the sums of an inner parallel loop of at most
/// kMaxRowVectorLength iterations (the row vector: an attention head's
/// output row, a matrix-vector product's columns) in one pass over the
/// reduced row: each thread accumulates every element of the vector, so a
/// contribution's part that does not depend on the vector's index is
/// computed once per point of the row, not once per element of the vector.
/// Each thread holds the whole vector: ptxas for sm_90 gave attention's
/// decode kernel 237 registers at head dimension 64 and spills at 128,
/// before the lanes of its row split the vector (kMaxFlashRowVectorLength,
/// docs/tile-schedules.md); other row vectors keep this limit.
constexpr int64_t kMaxRowVectorLength = 64;

/// Attention's output row (a row vector whose sums are weighted by
/// exponentials normalized by a maximum over the same row: online softmax)
/// may be up to this long where the lanes of a row split the vector, so
/// that no thread holds it whole (ComponentSplitFold.cpp): with at least
/// kMinQTileRows queries (the Q-tile schedule) each of a row's
/// kQTileThreadsPerRow lanes folds every key's maximum and sum and a
/// quarter of the sums; with fewer (a decode step: a warp or more per row)
/// the lanes of a warp, or runs of 16, 8 or 4 of them, each fold every key
/// of their run's and an equal share of the sums (the vector a multiple of
/// kQTileThreadsPerRow either way). Head dimensions 68 to 256 (Llama's 128)
/// take the flash schedule that way.
constexpr int64_t kMaxFlashRowVectorLength = 256;

/// Rows shorter than this keep a thread each (the generic schedule): a
/// block per row would leave most of a warp idle. Likewise a row vector's
/// reduction: folded by a block, it would give each thread less than a
/// point, so its loop is distributed instead; and a prefix scan, which
/// keeps its fold per point (loopir-fuse counts its producers' elements
/// once per row only where the scan schedule takes it).
constexpr int64_t kMinRowLength = 32;

/// The most tile elements one thread of an elementwise or contraction
/// kernel may own: each is straight-line code (one guarded access, its
/// math, registers), so more is no schedule a GPU runs well, and LLVM takes
/// minutes over it (a million elements per thread did not compile in five).
constexpr int64_t kMaxElementsPerThread = 1024;

/// The elements of an elementwise tile unless asked otherwise (tileir-tile's
/// tile-elements): 128 threads of 4 f32.
constexpr int64_t kDefaultTileElements = 512;

/// A row program's threads reading elements at most this many bytes apart
/// count as reading in order: a warp's 32 reads then touch at most 16
/// sectors of 32 bytes where contiguous f32 reads touch 4, and such rows
/// are side inputs in practice (Swin's relative position bias, [49 * 49,
/// heads] read along the keys 12 bytes apart, small enough for L1).
constexpr int64_t kMaxCoalescedStrideBytes = 16;

/// A row whose loads read at most one byte in this many with a stride (a
/// side input: Swin's relative position bias, [49 * 49, heads] beside the
/// keys' 32 elements per point) still counts as read in order: its
/// sectors at most double the row's traffic.
constexpr int64_t kMinShareOfOrderedReads = 8;

/// A nest whose reductions read their rows with a stride (a layer norm over
/// the channels of an NCHW tensor, ConvNeXt's) takes the row schedule anyway
/// when it has fewer rows than this: the generic schedule's thread per row
/// would make fewer than 8 blocks of 128 threads, nearly all of an H200's
/// 132 SMs idle and each thread folding its long row alone (ConvNeXt-T's
/// 7 x 7 x 768 norm: one block, 9.4 us modeled; a block per row: 0.2 us),
/// where a block per row reads each element once, if in a 32-byte sector
/// of its own (neighbouring rows' blocks share those sectors in L2). With
/// more rows the generic schedule's reads, coalesced across rows, are
/// worth its idle SMs: the traffic model counts no sectors, so this bound
/// is a judgement, not a measurement (56 x 56 x 96: 25 blocks against 3136
/// strided rows, about even).
constexpr int64_t kMaxRowsForStridedRowSchedule = 1024;

/// A row program gives each thread about this many elements of its longest
/// row, so a row of up to kWarpSize times as many takes one warp.
constexpr int64_t kRowElementsPerThread = 4;

/// The Q-tile schedule of a row program whose rows share chunks of their
/// folds (attention's keys and values; tileir::sharesFoldChunksAcrossRows):
/// with at least kMinQTileRows rows along the innermost domain dimension, a
/// program instance takes up to kQTileRows of them, kQTileThreadsPerRow
/// threads each (a group of lanes folding a quarter of the row's points,
/// combined by a two-step butterfly), and the block stages each chunk of
/// the shared elements once for all its rows. Fewer rows keep a warp or
/// more per row: there the threads sharing one row are the parallelism.
constexpr int64_t kMinQTileRows = 16;
constexpr int64_t kQTileRows = 64;
constexpr int64_t kQTileThreadsPerRow = 4;
/// The shared memory the chunks of one Q-tiled kernel's folds may take (row
/// caches take what is left of kStaticSharedMemoryBytes), the most points
/// of a chunk, and the fewest worth a pair of barriers: a row program whose
/// shared elements per point do not fit kMinChunkPoints points keeps a warp
/// per row.
constexpr int64_t kMaxSharedChunkBytes = 24 * 1024;
constexpr int64_t kMaxChunkPoints = 64;
constexpr int64_t kMinChunkPoints = 8;

/// Attention in halves (its weights rounded before P . V) is a flash row
/// with many query rows where its output row is a multiple of
/// kTensorCoreFlashRowMultiple up to kMaxTensorCoreFlashRowLength: the Q
/// tile's fold then multiplies Q . K^T and P . V on tensor cores
/// (TensorCoreFlashFold.cpp: 16 is a halves mma's k; a longer row leaves a
/// chunk too few keys for the warps of a row group, 32 at 128).
constexpr int64_t kTensorCoreFlashRowMultiple = 16;
constexpr int64_t kMaxTensorCoreFlashRowLength = 128;
inline bool isTensorCoreFlashRow(int64_t length) {
  return length % kTensorCoreFlashRowMultiple == 0 &&
         length <= kMaxTensorCoreFlashRowLength;
}

/// Tensor-core operand chunks are staged in shared memory with padded
/// rows: the stored row length (in elements of `bytes` bytes, at least `cols`)
/// under which the 32 lanes' 32-bit fragment loads from a chunk hit 32
/// different banks. The loads of an mma fragment register read, across a
/// warp, either 8 rows x 4 neighbouring words (`rowsOfFour`: A, and B
/// stored n x k) or 4 rows x 8 neighbouring words (B of tf32, k x n): with
/// a row stride of W words, banks (W r + c) mod 32 are all different iff W
/// is 4 mod 8, respectively 8 mod 16. Rows stay multiples of 16 bytes
/// (cp.async's runs).
inline int64_t conflictFreeRowLength(int64_t cols, int64_t bytes,
                                     bool rowsOfFour) {
  int64_t elementsPerWord = 4 / std::min<int64_t>(bytes, 4);
  int64_t modulus = rowsOfFour ? 8 : 16, residue = rowsOfFour ? 4 : 8;
  int64_t words = (cols * bytes + 3) / 4;
  words = (words + 3) / 4 * 4;
  while (words % modulus != residue)
    words += 4;
  return words * elementsPerWord;
}

} // namespace strata

#endif // STRATA_DIALECT_UTILS_SCHEDULEMODEL_H
