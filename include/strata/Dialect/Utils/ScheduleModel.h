// What the loop-level cost model (loopir-fuse) may assume about the tile
// schedules that come after it. One place, so that the scheduler and the
// model it is estimated by cannot drift apart.

#ifndef STRATA_DIALECT_UTILS_SCHEDULEMODEL_H
#define STRATA_DIALECT_UTILS_SCHEDULEMODEL_H

#include <cstdint>

namespace strata {

/// A sum of products over rows x columns (a contraction) is computed in
/// block tiles of up to kContractionBlockTile rows and columns whose operand
/// chunks are staged in shared memory: an operand element is computed once
/// per block tile that reads it, not once per output element.
constexpr int64_t kContractionBlockTile = 64;

/// Fewer rows or columns than this make a matrix-vector product, which the
/// row schedule reduces instead.
constexpr int64_t kMinContractionRowsAndColumns = 8;

/// Threads per block: CUDA's limit on every NVIDIA GPU since sm_20.
constexpr int64_t kMaxThreadsPerBlock = 1024;

/// Shared memory per block: what a block may declare statically on every
/// NVIDIA GPU since sm_20 (the default budget of pipelined operand
/// chunks), and the most any target gives a block (sm_90, dynamically;
/// sm_80's 163 KiB the driver enforces at launch). kernelir's limits are
/// these too.
constexpr int64_t kStaticSharedMemoryBytes = 48 * 1024;
constexpr int64_t kMaxSharedMemoryBytes = 227 * 1024;

} // namespace strata

#endif // STRATA_DIALECT_UTILS_SCHEDULEMODEL_H
