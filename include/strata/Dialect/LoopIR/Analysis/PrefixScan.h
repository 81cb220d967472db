// What makes a loop nest a prefix scan: reductions that fold, for each
// point i along one dimension of the nest, the prefix 0..i of a row. The
// scan schedule (convert-loopir-to-tileir) and loopir-fuse's cost of
// recomputing a producer inside it (each row's element once, not once per
// point) both ask.

#ifndef STRATA_DIALECT_LOOPIR_ANALYSIS_PREFIXSCAN_H
#define STRATA_DIALECT_LOOPIR_ANALYSIS_PREFIXSCAN_H

#include "strata/Dialect/LoopIR/IR/LoopIR.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace strata::loopir {

/// A nest whose top-level reductions each fold a prefix: every
/// contribution is `select(k <= i, x, identity)` (or `select(k > i,
/// identity, x)`), k the reduction's one index over as many points as
/// nest dimension `dim` (index i), x free of i, the combiners add, mul,
/// max or min. What the front end writes for cumsum and cumprod, and a
/// hand-written triangular mask alike. The nest's body has no other loop;
/// its other reductions (a softmax's statistics) are the same for every
/// point of the row (free of i), and every store in it varies with i.
///
/// One contribution may depend on i: a sum of `exp(x - m)` (f32), m the
/// prefix of a scanned maximum of the same x (logcumsumexp). Each point's
/// sum is then relative to its own prefix's maximum: a scan of online
/// softmax's (max, sum) monoid, which rescales a sum as its maximum grows.
struct PrefixScan {
  unsigned dim;
  llvm::SmallVector<ReduceOp> reductions; // The scanned ones, in order.
  /// The masking selects, each with its unmasked operand: the contribution.
  llvm::DenseMap<mlir::Operation *, mlir::Value> masks;
  /// The sums relative to a maximum's prefix, each with that maximum.
  llvm::DenseMap<mlir::Operation *, ReduceOp> rescaledSums;
  /// The ops of the nest's body (and of the reductions' bodies) whose
  /// values vary along `dim`; the reductions among them.
  llvm::SmallPtrSet<mlir::Operation *, 16> varying;
};

std::optional<PrefixScan> matchPrefixScan(ParallelOp nest);

} // namespace strata::loopir

#endif
