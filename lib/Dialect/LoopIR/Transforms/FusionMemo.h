// What loopir-fuse's pattern learns within one run (see the class). Private
// to the pass: populateFusePatterns takes it from loopir-fuse's driver.

#ifndef STRATA_LIB_DIALECT_LOOPIR_TRANSFORMS_FUSIONMEMO_H
#define STRATA_LIB_DIALECT_LOOPIR_TRANSFORMS_FUSIONMEMO_H

#include "strata/Dialect/LoopIR/IR/LoopIR.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallBitVector.h"

namespace strata::loopir {

/// What loopir-fuse's pattern learns and may reuse within one run: the
/// producers it found not worth fusing, remembered until a kernel they feed
/// or the producer itself changes, and the dims each index map reads. The
/// greedy driver revisits every consumer after each fusion; deciding again
/// each time made fusion grow with the cube of a program's kernels (eight
/// decoder blocks: 11 s), and composed index maps are large expression
/// trees to walk. A producer's cost and each consumer's demand for it are
/// remembered too, until that kernel changes: a producer that feeds many
/// kernels (a mask or position table shared by every decoder block) is
/// weighed again after each fusion into one of them, and summing every
/// consumer's demand each time made fusion grow with the square of its
/// consumers. Give the memo to the driver as its listener.
class FusionMemo : public mlir::RewriterBase::Listener {
public:
  bool isRejected(KernelOp producer) const {
    return rejected.contains(producer);
  }
  void reject(KernelOp producer) { rejected.insert(producer); }

  /// A producer's arithmetic (invariants hoisted) and whether it reduces.
  struct ProducerCost {
    double work;
    bool reduces;
    unsigned ops; // In the nest's body, nested ones included.
    bool nestedStore; // A store below the nest's own: no producer.
    double loads;     // Elements the nest loads, all its iterations.
  };
  /// `producer`'s cost, from `compute` the first time.
  ProducerCost cost(KernelOp producer,
                    llvm::function_ref<ProducerCost()> compute);
  /// The elements `consumer` needs of its input `input` (the cost of
  /// fusing a producer that `reduces` there), from `compute` the first time.
  double demand(KernelOp consumer, unsigned input, bool reduces,
                llvm::function_ref<double()> compute);

  /// The ops in `kernel`'s body, from `compute` the first time.
  unsigned ops(KernelOp kernel, llvm::function_ref<unsigned()> compute);

  /// Whether `nest` contracts rows and columns the contraction schedule
  /// tiles (contractionExtents), from `compute` the first time.
  bool isManyRowContraction(ParallelOp nest,
                            llvm::function_ref<bool()> compute);

  /// The box of the staged contraction directly in `nest` (with
  /// `orSumOfLoads`, of a sum of loads to become one), from `compute` the
  /// first time: a walk of the nest's body, asked for every consumer of
  /// every producer weighed.
  std::optional<llvm::ArrayRef<int64_t>>
  stagedBox(ParallelOp nest, bool orSumOfLoads,
            llvm::function_ref<std::optional<llvm::ArrayRef<int64_t>>()>
                compute);

  /// The dims `map` reads (maps are uniqued and immortal: never stale).
  const llvm::SmallBitVector &readDims(mlir::AffineMap map);
  /// `map` without the dims it does not read.
  mlir::AffineMap compressed(mlir::AffineMap map);

  void notifyOperationInserted(mlir::Operation *op,
                               mlir::OpBuilder::InsertPoint) override {
    forget(op);
  }
  void notifyOperationModified(mlir::Operation *op) override { forget(op); }
  void notifyOperationReplaced(mlir::Operation *op, mlir::ValueRange) override {
    forget(op);
  }
  void notifyOperationErased(mlir::Operation *op) override { forget(op); }

private:
  /// Forgets what was learnt of the kernel holding `op` (as a producer and
  /// as a consumer), and the decisions on its producers.
  void forget(mlir::Operation *op);

  llvm::DenseSet<mlir::Operation *> rejected;
  llvm::DenseMap<mlir::Operation *, ProducerCost> costs;
  llvm::DenseMap<mlir::Operation *, unsigned> opCounts;
  /// Per consumer, keyed by 2 * input + reduces.
  llvm::DenseMap<mlir::Operation *, llvm::SmallDenseMap<unsigned, double>>
      demands;
  llvm::DenseMap<mlir::Operation *, bool> contractions; // Per nest.
  /// Per nest and orSumOfLoads.
  llvm::DenseMap<std::pair<mlir::Operation *, unsigned>,
                 std::optional<llvm::ArrayRef<int64_t>>>
      stagedBoxes;
  llvm::DenseMap<mlir::AffineMap, llvm::SmallBitVector> dimsRead;
  llvm::DenseMap<mlir::AffineMap, mlir::AffineMap> compressedMaps;
};

} // namespace strata::loopir

#endif
