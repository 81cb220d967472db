#ifndef STRATA_CONVERSION_KERNELIRTOCPU_H
#define STRATA_CONVERSION_KERNELIRTOCPU_H

#include "strata/Dialect/KernelIR/IR/KernelIR.h"

#include "mlir/IR/PatternMatch.h"

namespace strata {
/// The order in which the CPU runs the blocks of a grid and the threads of
/// each barrier interval. On the GPU there is none, so a kernel whose result
/// depends on it has a race: running it in several orders is the race check.
enum class ThreadOrder {
  Forward,  // 0, 1, 2, ...
  Reverse,  // last to first
  Shuffled, // a fixed scramble: i -> (a * i + c) mod n, a coprime with n
};

/// Patterns that lower kernelir to loops and calls for the CPU, blocks and
/// threads run in `order`; with `checkBounds`, every access asserts it
/// stays inside its buffer. Kernels with warp shuffles, mma or wgmma need
/// expandShuffles, expandMmas and expandWgmmas first (convert-kernelir-to-cpu
/// runs them).
void populateKernelIRToCPUPatterns(mlir::RewritePatternSet &patterns,
                                   ThreadOrder order = ThreadOrder::Forward,
                                   bool checkBounds = false);
/// Rewrites every warp shuffle of `kernel` as an exchange through a shared
/// scratch buffer: each thread posts its value, a barrier, each reads its
/// source lane's post, a barrier. Exact when the whole block takes part,
/// which the CPU lowering's barrier rules require (and blocks are whole
/// warps: kernelir.shuffle verifies it).
void expandShuffles(mlir::RewriterBase &rewriter, kernelir::FuncOp kernel);
/// Rewrites every tensor-core kernelir.mma of `kernel` as the warp's
/// exchange it stands for: each lane posts its A and B fragment elements at
/// their (row, column) in shared scratch matrices of its warp (the layout of
/// kernelir::getMmaFragmentMap), a barrier, each lane computes its four
/// result elements (half products exact in f32, f32 operands rounded to
/// tf32 first, summed in f32 over k in order), a barrier.
void expandMmas(mlir::RewriterBase &rewriter, kernelir::FuncOp kernel);
/// Rewrites every kernelir.wgmma of `kernel` as each lane's own sums: its
/// accumulator elements (the op's D layout) summed in f32 over k in order
/// from the operands in shared memory, read through the descriptor
/// arithmetic of kernelir::getWgmmaLayout; kernelir.proxy_fence and
/// kernelir.set_max_registers go.
void expandWgmmas(mlir::RewriterBase &rewriter, kernelir::FuncOp kernel);
/// Makes the emulation of `kernel`'s async kernelir.wgmma groups (computed
/// as they are issued) exact or failing: each thread keeps the shared
/// bytes its groups in flight may read, kernelir.wgmma_wait retires them,
/// and a kernelir.tma_load into bytes a group in flight reads fails the
/// run, naming the kernel. Runs before expandMBarriers and expandWgmmas.
void trackWgmmaGroups(mlir::RewriterBase &rewriter, kernelir::FuncOp kernel);

/// Rewrites kernelir's mbarrier ops and bulk copies in `kernel` as the
/// updates of each mbarrier's state (pending arrivals, transaction bytes,
/// phase) kept in its i64 element, and copies done at once; a wait becomes
/// a barrier and a check, failing the run (naming the kernel) where the
/// awaited phase has not completed, the GPU's deadlock. Exact where every
/// thread of the block reaches each wait, which the barrier rules of the
/// thread loops then require.
void expandMBarriers(mlir::RewriterBase &rewriter, kernelir::FuncOp kernel);

/// Replaces each kernelir.ldmatrix of `kernel` by the loads of its lane's
/// fragment elements (what the warp's ldmatrix gives each lane), at the
/// lane kernelir.lane_id names (expandWarpIndices then expands it).
void expandFragmentLoads(mlir::RewriterBase &rewriter, kernelir::FuncOp kernel);

/// Replaces kernelir.lane_id and kernelir.warp_id in `kernel` by this
/// thread's linear index modulo and over 32 (from thread ids, which the
/// thread loops then replace).
void expandWarpIndices(mlir::RewriterBase &rewriter, kernelir::FuncOp kernel);
} // namespace strata

#endif
