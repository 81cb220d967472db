// What loopir-fuse weighs (FusionCost.cpp): a producer kernel's shape and
// arithmetic, how often each element a consumer loads would be computed
// once fused and hoisted, and which reductions the schedules take as
// staged contractions or row vectors. Private to the pass: it reads the
// pass's FusionMemo.

#ifndef STRATA_LIB_DIALECT_LOOPIR_TRANSFORMS_FUSIONCOST_H
#define STRATA_LIB_DIALECT_LOOPIR_TRANSFORMS_FUSIONCOST_H

#include "FusionMemo.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace strata::loopir::fusion {

/// A kernel that computes each element of its one result in one parallel
/// nest, with one store at the nest's indices.
struct Producer {
  KernelOp kernel;
  llvm::SmallVector<mlir::Operation *> preamble; // Scalars shared by all.
  ParallelOp nest;
  StoreOp store;
  double work = 0;  // Arithmetic of the whole kernel, invariants hoisted.
  double loads = 0; // Elements the whole kernel loads.
  bool reduces = false;
  unsigned ops = 0; // In the nest, each fused site's clone.
  int64_t elements = 1;
};

int64_t product(llvm::ArrayRef<int64_t> sizes);

/// `kernel` as a Producer, where it is one.
mlir::FailureOr<Producer> analyzeProducer(KernelOp kernel, FusionMemo &memo);

/// The indices a load's map reads.
llvm::SmallVector<mlir::Value> readIndices(LoadOp load, FusionMemo &memo);

/// Whether `unit`, directly inside `nest`, is the sum of products that the
/// contraction schedule stages (see FusionCost.cpp); with `orSumOfLoads`,
/// also a sum over one index of loads, a contraction once its product
/// joins it.
bool isStagedContraction(mlir::Operation *unit, ParallelOp nest,
                         FusionMemo &memo, bool orSumOfLoads = false);

/// The box (k) of a staged contraction directly in `nest`, if there is one
/// (with `orSumOfLoads` as for isStagedContraction).
std::optional<llvm::ArrayRef<int64_t>>
stagedContractionBox(ParallelOp nest, FusionMemo &memo,
                     bool orSumOfLoads = false);

/// The boxes of the staged contractions whose results `kernel` computes
/// with, directly or through kernels without reductions (views and
/// elementwise math not fused yet).
void contractionsFeeding(KernelOp kernel,
                         llvm::SmallVectorImpl<llvm::ArrayRef<int64_t>> &boxes,
                         FusionMemo &memo,
                         llvm::SmallPtrSetImpl<mlir::Operation *> &visited,
                         int depth = 0);

/// Whether the row schedule folds `unit`, directly inside `nest`, as a row
/// vector (a reduction that is no staged contraction, in a nest whose
/// innermost loop is a short row vector, or attention's output row).
bool isRowVectorFold(mlir::Operation *unit, ParallelOp nest, FusionMemo &memo);

/// The outermost parallel nest of `load`'s kernel around it, and the op
/// directly in that nest that holds the load; no nest for a load outside
/// every nest.
std::pair<mlir::Operation *, ParallelOp> outerUnit(LoadOp load);

/// The nest indices each unit's loads and operands depend on, found once
/// per unit while one producer is weighed.
using UnitDependences =
    llvm::DenseMap<mlir::Operation *, llvm::SmallDenseSet<mlir::Value>>;

/// How often the element `load` reads gets computed once fused and hoisted
/// by loopir-normalize (`scalar`: the element is computed by scalar code, no
/// reduction, which a staged contraction stages once per block tile).
double loadWork(LoadOp load, bool scalar, UnitDependences &unitDependences,
                FusionMemo &memo);

} // namespace strata::loopir::fusion

#endif
