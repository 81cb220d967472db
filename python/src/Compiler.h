// The C++ side of the Python extension: a thin, exception-based facade over
// MLIR so that the pybind11 file stays free of MLIR details.
#ifndef STRATA_PYTHON_COMPILER_H
#define STRATA_PYTHON_COMPILER_H

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace mlir {
class ExecutionEngine;
class MLIRContext;
class ModuleOp;
class DialectRegistry;
template <typename OpTy>
class OwningOpRef;
} // namespace mlir

namespace strata::python {

/// Raised with the compiler's diagnostics, one per line.
class CompilerError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// One object of a gpu.binary: a PTX file, a cubin or a fatbin.
struct GpuObject {
  std::string module; // The gpu.binary's symbol.
  std::string chip;   // e.g. sm_90.
  std::string format; // offload, isa, bin or fatbin.
  std::string data;
};

/// A contiguous host array the CPU path reads or writes.
struct HostBuffer {
  void *data;
  std::vector<int64_t> shape;
  /// The element: its bytes and whether it is a float (Python buffer
  /// protocol format 'f', 'd', 'e'); bf16 travels as int16.
  int64_t itemBytes;
  bool isFloat;
};

/// Where a pipeline that fails leaves its reproducer: the module as the
/// pipeline got it plus the pipeline, which `strata-opt FILE
/// --run-reproducer` runs again. Empty: none is written. Until this is
/// called, the directory is the environment's STRATA_DUMP_DIR, if any.
void setReproducerDirectory(const std::string &directory);

/// An MLIR module in a context of its own with every Strata dialect.
class Module {
public:
  /// Parses MLIR text; `filename` names it in diagnostics.
  static std::unique_ptr<Module> parse(const std::string &text,
                                       const std::string &filename);
  /// An empty module, for the program builder.
  static std::unique_ptr<Module> create();
  ~Module();

  /// A copy of the module, in the same context: passes run on it leave
  /// this one as it is.
  std::unique_ptr<Module> clone() const;
  /// How many ops named `name` (e.g. "loopir.kernel") the module holds.
  int64_t count(const std::string &name) const;

  mlir::MLIRContext *context() const { return ctx.get(); }
  mlir::ModuleOp op() const;

  /// Runs a pass pipeline: a registered pipeline ("strata-lower-to-loop"), a
  /// comma-separated list of passes, or a full "builtin.module(...)" string.
  /// With `timing`, returns MLIR's report of the time of every pass.
  /// With `verifyEach` the module is verified after every pass (MLIR's
  /// default, and strata-opt's); without, once at the end, which takes a
  /// fifth less of Strata's own time to PTX (docs/architecture.md).
  std::string run(const std::string &pipeline, bool timing = false,
                  bool verifyEach = true);
  void verify();
  std::string str(bool generic) const;
  std::vector<GpuObject> gpuObjects() const;
  /// The artifact of a program lowered by strata-lower-to-nvvm (format=isa):
  /// its launch plan and PTX, plus the cubin of `cubin` (the same program
  /// lowered with format=bin) when given.
  std::string artifact(const std::string &entry,
                       const std::vector<std::string> &argumentNames,
                       const Module *cubin) const;
  /// The kernelir kernels of the module as CUDA C++.
  std::string cuda() const;
  /// The shape and element type (as MLIR spells it: f32, i64, ...) of each
  /// result of the tensor function `entry`.
  std::vector<std::pair<std::vector<int64_t>, std::string>>
  resultTypes(const std::string &entry) const;

  /// Compiles the tensor-level function `entry` through `pipeline` (which
  /// must end in the LLVM dialect, e.g. strata-lower-loop-to-cpu), JITs it
  /// and runs it on `inputs`, writing its results into `outputs`. The
  /// module itself is left unchanged; the machine code is kept for the
  /// next run of the same entry and pipeline (until `run` changes the
  /// module).
  void runOnCPU(const std::string &entry, const std::string &pipeline,
                const std::vector<HostBuffer> &inputs,
                const std::vector<HostBuffer> &outputs);

private:
  Module();
  /// A module in `context` (a clone's).
  explicit Module(std::shared_ptr<mlir::MLIRContext> context);
  /// runOnCPU's machine code: a copy of the module with `entry` wrapped for
  /// buffers, lowered through `pipeline` and JIT-compiled.
  std::unique_ptr<mlir::ExecutionEngine>
  compileForCPU(const std::string &entry, const std::string &pipeline);
  /// Shared with the module's clones.
  std::shared_ptr<mlir::MLIRContext> ctx;
  std::unique_ptr<mlir::OwningOpRef<mlir::ModuleOp>> module;
  /// runOnCPU's JIT-compiled programs, by entry and pipeline.
  std::map<std::string, std::unique_ptr<mlir::ExecutionEngine>> engines;
};

} // namespace strata::python

#endif // STRATA_PYTHON_COMPILER_H
