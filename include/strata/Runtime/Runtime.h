// Strata's runtime: loads an artifact through the CUDA driver API and runs
// its launch plan. It needs no LLVM or MLIR, and no CUDA at build time: the
// driver (libcuda.so.1) is loaded when a program is first loaded.
#ifndef STRATA_RUNTIME_RUNTIME_H
#define STRATA_RUNTIME_RUNTIME_H

#include "strata/Runtime/Artifact.h"

#include <memory>

namespace strata::runtime {

/// A CUDA error, naming the call and the kernel or buffer concerned.
class RuntimeError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A device: "NVIDIA H200 (sm_90)". Throws RuntimeError when there is no
/// driver or no device.
std::string describeDevice();

/// A loaded program: its module on the device, its intermediates allocated
/// once and its constants uploaded.
/// The alignment every buffer a program is given must have: kernels make
/// vector accesses of up to 16 bytes.
constexpr uint64_t kBufferAlignment = 16;

class Program {
public:
  explicit Program(Artifact artifact);
  ~Program();
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;

  /// Runs the plan on `stream` (0: the default stream). `arguments` and
  /// `outputs` are device pointers, in the order of the artifact's argument
  /// buffers and outputs, each aligned to kBufferAlignment. No output may
  /// overlap an argument: kernels read their inputs through the read-only
  /// data path (noalias arguments), so an output written in place over an
  /// input would be read stale. Returns without synchronizing.
  void run(const std::vector<uint64_t> &arguments,
           const std::vector<uint64_t> &outputs, uint64_t stream = 0);
  void synchronize();
  /// Whether the module came from the cubin (false: PTX JIT-compiled).
  bool usedCubin() const { return fromCubin; }
  const Artifact &artifact() const { return plan; }
  /// The grid launch `k` takes: its plan's, or a wave launch's exact wave.
  const std::array<unsigned, 3> &launchedGrid(size_t k) const {
    return grids.at(k);
  }

private:
  Artifact plan;
  void *module = nullptr;
  std::vector<void *> functions;    // Per launch.
  std::vector<std::array<unsigned, 3>> grids; // Per launch: as launched.
  std::vector<uint64_t> allocations; // Per buffer (0 for arguments).
  bool fromCubin = false;
};

} // namespace strata::runtime

#endif
