// Which loop indices the ops of a loop's body depend on. loopir-fuse's cost
// model asks (how often code that normalization hoists runs; whether a
// unit varies in a loop) and loopir-normalize asks (what leaves a loop,
// which reductions depend alike): one walk, the reading of an access's
// indices the caller's.

#ifndef STRATA_DIALECT_LOOPIR_ANALYSIS_INDEXDEPENDENCE_H
#define STRATA_DIALECT_LOOPIR_ANALYSIS_INDEXDEPENDENCE_H

#include "strata/Dialect/LoopIR/IR/LoopIR.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace strata::loopir {

/// How the walk reads the index operands of a loop body's accesses.
struct DependenceReading {
  /// Whether access `op` (a loopir.load or loopir.store) reads its index
  /// `index` (a position among its indices); an index it does not read,
  /// which normalization drops, is no dependence. Null: every index reads.
  llvm::function_ref<bool(mlir::Operation *op, unsigned index)> readsIndex;
  /// Whether a load's read index that is no loop's own index (computed: a
  /// data-dependent address) counts as depending on every index of the
  /// loop, as a cost model assumes, instead of on what it is computed from.
  bool computedAddressReadsAll = false;
};

/// The indices of one loop (a parallel nest or a reduction: the arguments
/// of its body, by number) that ops in its body depend on: the body's
/// arguments they use, and what the body's top-level ops whose values they
/// use depend on; values defined inside the op itself are its own. Memoized
/// per op, so one object serves a walk over a body.
class IndexDependence {
public:
  explicit IndexDependence(mlir::Block &body, DependenceReading reading = {})
      : body(body), reading(reading) {}

  /// The body arguments `op` (in the body, at any depth) depends on.
  llvm::SmallDenseSet<unsigned> of(mlir::Operation *op);
  /// Whether `op` depends on any of them: varies between iterations.
  bool varies(mlir::Operation *op) { return !of(op).empty(); }

private:
  mlir::Block &body;
  DependenceReading reading;
  llvm::DenseMap<mlir::Operation *, llvm::SmallDenseSet<unsigned>> memo;
};

} // namespace strata::loopir

#endif
