#ifndef STRATA_DIALECT_LOOPIR_TRANSFORMS_PASSES_H
#define STRATA_DIALECT_LOOPIR_TRANSFORMS_PASSES_H

#include "strata/Dialect/LoopIR/IR/LoopIR.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace strata::loopir {

#define GEN_PASS_DECL
#include "strata/Dialect/LoopIR/Transforms/Passes.h.inc"

/// What loopir-fuse's pattern learns and may reuse within one run: the
/// producers it found not worth fusing, remembered until a kernel they feed
/// or the producer itself changes, and the dims each index map reads. The
/// greedy driver revisits every consumer after each fusion; deciding again
/// each time made fusion grow with the cube of a program's kernels (eight
/// decoder blocks: 11 s), and composed index maps are large expression
/// trees to walk. Give it to the driver as its listener.
class FusionMemo : public mlir::RewriterBase::Listener {
public:
  bool isRejected(KernelOp producer) const {
    return rejected.contains(producer);
  }
  void reject(KernelOp producer) { rejected.insert(producer); }

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
  /// Forgets the decisions of the kernel holding `op` (as a producer, and
  /// as a consumer of its producers).
  void forget(mlir::Operation *op);

  llvm::DenseSet<mlir::Operation *> rejected;
  llvm::DenseMap<mlir::AffineMap, llvm::SmallBitVector> dimsRead;
  llvm::DenseMap<mlir::AffineMap, mlir::AffineMap> compressedMaps;
};

/// Fuses producer kernels into consumers (see loopir-fuse). With `memo`
/// (the driver's listener), rejected producers are not weighed again until
/// something they take part in changes.
void populateFusePatterns(mlir::RewritePatternSet &patterns,
                          double maxRecompute, double roundTripCost,
                          FusionMemo *memo = nullptr);

/// Hoists invariants, merges duplicates (see loopir-normalize).
void populateNormalizePatterns(mlir::RewritePatternSet &patterns);

/// pow by the constant exponents PyTorch computes without pow (0, 1, 2, 3,
/// 0.5, -0.5, -1, -2) becomes the same arithmetic (part of
/// populateNormalizePatterns).
void populatePowByConstantPatterns(mlir::RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "strata/Dialect/LoopIR/Transforms/Passes.h.inc"

} // namespace strata::loopir

#endif
