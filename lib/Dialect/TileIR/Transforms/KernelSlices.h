// What the passes that split a kernel into slices (tileir-split-k,
// tileir-split-folds) share: the partial kernel's copy of the original
// kernel's code, with the slice as a new leading domain dimension.

#ifndef STRATA_LIB_DIALECT_TILEIR_TRANSFORMS_KERNELSLICES_H
#define STRATA_LIB_DIALECT_TILEIR_TRANSFORMS_KERNELSLICES_H

#include "strata/Dialect/TileIR/IR/TileIR.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Operation.h"

namespace strata::tileir {

/// Clones into `b` the top-level ops of `kernel` that the values `used`
/// need, in program order, with domain dimensions shifted by one (the
/// partial kernel's leading dimension is the slice): tile offsets, program
/// ids and points of dimension d become those of d + 1.
void cloneShifted(mlir::OpBuilder &b, KernelOp kernel,
                  llvm::ArrayRef<mlir::Value> used, mlir::IRMapping &mapping);

/// The domain point along `dim` (tileir.point): the one above the
/// builder's insertion point in its block, else a new one.
mlir::Value getOrCreatePoint(mlir::OpBuilder &b, mlir::Location loc,
                             int64_t dim);

/// Makes every load and store under `root` indexed by `point` (= start +
/// slice * length + local) index `local` and `slice` instead, the slice's
/// offset in its index map: an address stays the access's own affine
/// function of the loop's point (a contiguous run the staging can copy or
/// a vector access can move, a chunk rows can share) rather than a
/// computed index.
void sliceAccessIndices(mlir::Operation *root, mlir::Value point,
                        mlir::Value local, mlir::Value slice, int64_t length,
                        int64_t start);

/// The kernel that joins the slices of `kernel`: its results, its inputs
/// and then `workspaces` (the partial kernels' results), its schedule, an
/// empty body block whose arguments `mapping` maps `kernel`'s buffers to.
/// `states` are the workspaces' buffers.
KernelOp createJoinKernel(mlir::OpBuilder &b, KernelOp kernel,
                          mlir::ValueRange workspaces, mlir::IRMapping &mapping,
                          mlir::ValueRange &states);

/// Gives `kernel` (a join kernel, whose work is no longer the original's)
/// tileir-tile's default tile, from `threads`; tileir-map-threads chooses
/// its threads again.
void retileJoinKernel(KernelOp kernel, int64_t threads);

/// The body of a pass that splits kernels into slices: checks its options
/// (`splits` at least 0, `minPrograms` at least 1), then splits every
/// kernel under `root` into the slices `choose` gives it (1: left whole).
/// Fails, reported, where an option or a choice does.
mlir::LogicalResult
splitKernels(mlir::Operation *root, llvm::StringRef pass, int64_t splits,
             int64_t minPrograms,
             llvm::function_ref<mlir::FailureOr<int64_t>(KernelOp)> choose,
             llvm::function_ref<void(mlir::OpBuilder &, KernelOp, int64_t)>
                 split);

/// Drops the inputs whose buffers `kernel`'s body never touches.
void dropUnusedInputs(KernelOp kernel);

} // namespace strata::tileir

#endif // STRATA_LIB_DIALECT_TILEIR_TRANSFORMS_KERNELSLICES_H
