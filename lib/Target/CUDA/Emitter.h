// The state of the kernelir -> CUDA C++ translation, shared by its files:
// value names, the indentation, the variables scf.yield assigns, and the
// helpers every op's printOperation builds on (types, declarations,
// buffer accesses). Shaped like upstream's TranslateToCpp.cpp: one
// printOperation per op, one dispatcher (CudaEmitter::emitOperation).

#ifndef STRATA_LIB_TARGET_CUDA_EMITTER_H
#define STRATA_LIB_TARGET_CUDA_EMITTER_H

#include "strata/Dialect/KernelIR/IR/KernelIR.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace strata::cuda {

class CudaEmitter {
public:
  explicit CudaEmitter(llvm::raw_ostream &os) : os(os) {}

  /// A kernelir.func as an `extern "C" __global__` function.
  mlir::LogicalResult emitKernel(kernelir::FuncOp func);
  /// One op, by its printOperation; a diagnostic on an op without one.
  mlir::LogicalResult emitOperation(mlir::Operation &op);
  mlir::LogicalResult emitBlock(mlir::Block &block);

  llvm::raw_ostream &ostream() { return os; }
  /// The stream at the start of a new line, indented.
  llvm::raw_ostream &line() { return os.indent(2 * indent); }
  void indentMore() { ++indent; }
  void indentLess() { --indent; }

  /// The C++ name of `v` (`a<n>` for block arguments, `v<n>` for results),
  /// given on first use.
  std::string name(mlir::Value v);
  /// Gives `v` the name `other` already has (a loop's iteration argument
  /// is the variable its result lives in).
  void alias(mlir::Value v, mlir::Value other) { names[v] = name(other); }

  /// The CUDA type of `t`; a diagnostic on `op` for a type without one.
  mlir::FailureOr<std::string> typeName(mlir::Operation *op, mlir::Type t);
  /// Starts the line `type name = ` declaring `v`, the result of `op`.
  mlir::LogicalResult declare(mlir::Operation *op, mlir::Value v);
  /// The linear element offset of `indices` in a row-major buffer.
  std::string offset(mlir::MemRefType buffer, mlir::ValueRange indices);
  /// The element (or vector) of `buffer` at `indices`, as an lvalue of
  /// `type`: a vector reinterprets the buffer at its first element.
  std::string access(mlir::Value buffer, mlir::ValueRange indices,
                     llvm::StringRef type);

  /// The variables the scf.yield of the construct being printed assigns.
  void pushYieldTargets(mlir::ValueRange targets) {
    yieldTargets.emplace_back(targets.begin(), targets.end());
  }
  void popYieldTargets() { yieldTargets.pop_back(); }
  llvm::ArrayRef<mlir::Value> currentYieldTargets() const {
    return yieldTargets.back();
  }

private:
  llvm::raw_ostream &os;
  unsigned indent = 0;
  llvm::DenseMap<mlir::Value, std::string> names;
  llvm::SmallVector<llvm::SmallVector<mlir::Value>> yieldTargets;
};

// The tensor-core and asynchronous-copy ops (TensorCoreEmitter.cpp): PTX in
// inline assembly.
mlir::LogicalResult printOperation(CudaEmitter &emitter, kernelir::MmaOp op);
mlir::LogicalResult printOperation(CudaEmitter &emitter, kernelir::WgmmaOp op);
mlir::LogicalResult printOperation(CudaEmitter &emitter,
                                   kernelir::WgmmaWaitOp op);
mlir::LogicalResult printOperation(CudaEmitter &emitter,
                                   kernelir::LdMatrixOp op);
mlir::LogicalResult printOperation(CudaEmitter &emitter,
                                   kernelir::AsyncCopyOp op);
mlir::LogicalResult printOperation(CudaEmitter &emitter,
                                   kernelir::AsyncCommitOp op);
mlir::LogicalResult printOperation(CudaEmitter &emitter,
                                   kernelir::AsyncWaitOp op);
mlir::LogicalResult printOperation(CudaEmitter &emitter,
                                   kernelir::ProxyFenceOp op);
mlir::LogicalResult printOperation(CudaEmitter &emitter,
                                   kernelir::SetMaxRegistersOp op);
// mbarriers and bulk copies (TensorCoreEmitter.cpp): PTX in inline assembly.
mlir::LogicalResult printOperation(CudaEmitter &emitter,
                                   kernelir::MBarrierInitOp op);
mlir::LogicalResult printOperation(CudaEmitter &emitter,
                                   kernelir::MBarrierArriveOp op);
mlir::LogicalResult printOperation(CudaEmitter &emitter,
                                   kernelir::MBarrierWaitOp op);
mlir::LogicalResult printOperation(CudaEmitter &emitter,
                                   kernelir::BulkCopyOp op);
mlir::LogicalResult printOperation(CudaEmitter &emitter,
                                   kernelir::TmaLoadOp op);
mlir::LogicalResult printOperation(CudaEmitter &emitter,
                                   kernelir::TmaStoreOp op);
mlir::LogicalResult printOperation(CudaEmitter &emitter,
                                   kernelir::BulkCommitOp op);
mlir::LogicalResult printOperation(CudaEmitter &emitter,
                                   kernelir::BulkWaitOp op);

} // namespace strata::cuda

#endif
