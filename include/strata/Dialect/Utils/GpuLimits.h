// What NVIDIA's GPUs are, as the schedules (tileir) and the kernels
// (kernelir) both need it: warps, CUDA's launch limits, shared memory, and
// what one SM holds. Facts of the hardware, not choices: the choices built
// on them are ScheduleModel.h's.

#ifndef STRATA_DIALECT_UTILS_GPULIMITS_H
#define STRATA_DIALECT_UTILS_GPULIMITS_H

#include <cstdint>

namespace strata {

/// Threads per warp: the unit a row program's combine shuffles across, and
/// kernelir.shuffle's, kernelir.mma's and kernelir.ldmatrix's span (so
/// schedules that shuffle give blocks a whole number of warps).
constexpr int64_t kWarpSize = 32;

/// Threads per block: CUDA's limit on every NVIDIA GPU since sm_20.
constexpr int64_t kMaxThreadsPerBlock = 1024;

/// CUDA's limits on each launch dimension (x, y, z) of every GPU since
/// sm_30: the grid's and the block's (whose product is also at most
/// kMaxThreadsPerBlock).
constexpr int64_t kMaxGridSize[3] = {(int64_t(1) << 31) - 1, 65535, 65535};
constexpr int64_t kMaxBlockSize[3] = {1024, 1024, 64};

/// Shared memory per block: what a block may declare statically on every
/// NVIDIA GPU since sm_20 (__shared__ arrays; the default budget of
/// pipelined operand chunks), and the most any target gives a block
/// (sm_90, dynamically at launch; sm_80's 163 KiB the driver enforces at
/// launch).
constexpr int64_t kStaticSharedMemoryBytes = 48 * 1024;
constexpr int64_t kMaxSharedMemoryBytes = 227 * 1024;

/// What one SM of sm_90 holds at once: threads, blocks, 32-bit registers, and
/// shared memory, of which each resident block takes 1 KiB more than it
/// declares (the system's).
constexpr int64_t kMaxThreadsPerSM = 2048;
constexpr int64_t kMaxBlocksPerSM = 32;
constexpr int64_t kRegistersPerSM = 64 * 1024;
constexpr int64_t kSharedBytesPerSM = 228 * 1024;
constexpr int64_t kSharedBytesReservedPerBlock = 1024;

/// The L2 cache of an H100 or H200 (SXM): 50 MB.
constexpr int64_t kL2Bytes = 50 * 1000 * 1000;

} // namespace strata

#endif
