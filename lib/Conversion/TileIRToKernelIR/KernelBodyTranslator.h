// Translating the body of one tileir.kernel into its kernelir.func: what
// every kind of tile program shares (the launch shape's indices, the order
// in which the body's ops are emitted, uniform scalar code), and the choice
// of the translator for the program's kind.

#ifndef STRATA_LIB_CONVERSION_TILEIRTOKERNELIR_KERNELBODYTRANSLATOR_H
#define STRATA_LIB_CONVERSION_TILEIRTOKERNELIR_KERNELBODYTRANSLATOR_H

#include "KernelContext.h"

#include <memory>

namespace strata {
namespace detail {
using namespace mlir;

/// Translates the body of one tileir.kernel into the body of its
/// kernelir.func. The program's own tileir ops are its kind's: a tile
/// program's (TileProgramTranslator: thread-owned tile elements,
/// contractions) or a row program's (RowProgramTranslator: cooperative
/// folds, scans and loops of a thread group per row).
class KernelBodyTranslator : public KernelContext {
public:
  using KernelContext::KernelContext;
  virtual ~KernelBodyTranslator() = default;

  /// Fills `func`, at the builder, with the kernel's body.
  LogicalResult translate(kernelir::FuncOp func);

  /// Whether the translated kernel multiplies on tensor cores (kernelir.mma
  /// or kernelir.wgmma), its tile's accumulators held in registers.
  virtual bool multipliesOnTensorCores() const { return false; }

  /// The tile's elements each thread holds (its accumulators, in a
  /// contraction kernel).
  int64_t getElementsPerThread() const { return elementsPerThread; }

protected:
  /// Decides, once the launch shape's indices exist, how the program's
  /// work divides among the threads.
  virtual void prepare() = 0;
  /// Translates one of the program's tileir ops (other than program ids,
  /// points and tile offsets, which every kind maps alike).
  virtual LogicalResult translateProgramOp(Operation &op) = 0;
  /// Runs before each top-level op of the kernel is translated.
  virtual void beforeTopLevelOp(Operation &op) {}

private:
  LogicalResult translateOps(Block &source);
  LogicalResult translateOp(Operation &op);
};

/// The translator for `kernel`'s kind of program.
std::unique_ptr<KernelBodyTranslator>
createKernelBodyTranslator(OpBuilder &b, tileir::KernelOp kernel,
                           MultiplyOptions multiply);

} // namespace detail
} // namespace strata

#endif
