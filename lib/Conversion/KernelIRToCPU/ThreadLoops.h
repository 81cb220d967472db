// Running the threads of a kernel as loops, barriers included.

#ifndef STRATA_LIB_CONVERSION_KERNELIRTOCPU_THREADLOOPS_H
#define STRATA_LIB_CONVERSION_KERNELIRTOCPU_THREADLOOPS_H

#include "strata/Conversion/KernelIRCommon/ThreadIndex.h"
#include "strata/Conversion/KernelIRToCPU/KernelIRToCPU.h"
#include "strata/Dialect/KernelIR/IR/KernelIR.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"

namespace strata {

/// This thread's row-major index in its block of `block` threads, in
/// kernelir (from kernelir.thread_id x, y, z).
mlir::Value kernelThreadIndex(mlir::OpBuilder &b, mlir::Location loc,
                              llvm::ArrayRef<int64_t> block);

/// The row-major element offset (index) of `buffer[indices]` for a buffer
/// of `type`.
mlir::Value buildElementOffset(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::MemRefType type, mlir::ValueRange indices);

/// A shared buffer of `shape` x `element` at the start of `kernel`.
mlir::Value createSharedScratch(mlir::OpBuilder &b, kernelir::FuncOp kernel,
                                llvm::ArrayRef<int64_t> shape,
                                mlir::Type element);

/// Builds, before `kernel`, a function that runs it on the CPU: loops over
/// the blocks, and in each block, one loop over the threads per barrier
/// interval (the code between two barriers). Values that live across a
/// barrier are kept per thread; shared buffers are one buffer reused by the
/// blocks in turn. A loop with barriers inside whose bounds every thread
/// shares runs at block level. Blocks and threads run in `order`. Fails (with a
/// diagnostic) on a barrier in other control flow, where the threads may not
/// all reach it.
mlir::FailureOr<mlir::func::FuncOp>
buildThreadLoops(mlir::RewriterBase &rewriter, kernelir::FuncOp kernel,
                 ThreadOrder order);

} // namespace strata

#endif
