// A model of what each scheduled tile program moves and computes: global
// memory bytes, FLOPs, and the time an H200's roofline allows for them. It
// is a model, not a measurement: caches, coalescing and latency are not in
// it; occupancy only as the share of the multiprocessors a grid keeps busy.

#ifndef STRATA_DIALECT_TILEIR_ANALYSIS_TRAFFICMODEL_H
#define STRATA_DIALECT_TILEIR_ANALYSIS_TRAFFICMODEL_H

#include "strata/Dialect/TileIR/IR/TileIR.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace strata::tileir {

/// The H200 figures the roofline uses: the measured copy bandwidth
/// (docs/runtime.md), the dense peaks of the data sheet, and the
/// multiprocessors they are spread over.
struct Roofline {
  int64_t multiprocessors = 132;
  double bytesPerSecond = 4.3e12;
  double halfFlopsPerSecond = 989e12; // f16/bf16 tensor cores.
  double tf32FlopsPerSecond = 494e12;
  double f32FlopsPerSecond = 67e12; // CUDA cores, FMA.
};

/// Which arithmetic a kernel's FLOPs run on.
enum class MathUnit { F32, TF32, Half };

struct KernelTraffic {
  std::string name;    // The kernelir.func it becomes.
  std::string kind;    // elementwise, row, contraction or generic.
  /// The schedule in brief: the tile, the threads of a program instance
  /// and, in banded order (raster_group), the band, and in a persistent
  /// kernel (instances) the instances: "128x128 t256 r8 p264".
  std::string schedule;
  int64_t programs = 0; // Blocks launched: one per tile, unless persistent.
  /// What the program instances' tiles request: every access once per
  /// tile that makes it (a contraction's operands once per row or column
  /// of tiles), served by L2 or global memory.
  double tileBytesRead = 0, tileBytesWritten = 0;
  /// What global memory must serve at least: each buffer's elements that
  /// the tiles touch, once (an L2 that keeps everything a kernel reuses).
  double bytesRead = 0, bytesWritten = 0;
  double flops = 0;
  MathUnit unit = MathUnit::F32;

  double bytes() const { return bytesRead + bytesWritten; }
  double tileBytes() const { return tileBytesRead + tileBytesWritten; }
  /// The roofline's lower bound on the kernel's time, in seconds: its
  /// global-memory bytes at the copy bandwidth or its FLOPs at its unit's
  /// peak, whichever takes longer, both scaled to the multiprocessors its
  /// blocks occupy (a grid of one block runs on one of 132: a whole
  /// tensor's sum in one block is no 15 us kernel, whatever its bytes).
  double seconds(const Roofline &roofline = {}) const;
};

/// The modeled traffic of one scheduled tile kernel. Every global access is
/// counted once per program instance whose tile makes it, over the part of
/// the domain that tile covers: an access that depends on a domain
/// dimension reads that dimension's extent in total, one that does not is
/// repeated once per program along it (a contraction's lhs once per column
/// of tiles). Equal accesses of one program (a row read by a fold and again
/// by a distribute) count once. `tensorCores` and `tf32` are the schedule's
/// options.
KernelTraffic modelKernel(KernelOp kernel, bool tensorCores, bool tf32);

/// Every tile kernel of `module`, in launch order, named as
/// convert-tileir-to-kernelir names them.
std::vector<KernelTraffic> modelModule(mlir::ModuleOp module,
                                       bool tensorCores, bool tf32);

/// The ideal traffic of the host functions of `module`: every argument and
/// every result moved once.
double idealBytes(mlir::ModuleOp module);

} // namespace strata::tileir

#endif // STRATA_DIALECT_TILEIR_ANALYSIS_TRAFFICMODEL_H
