#ifndef STRATA_PIPELINES_PIPELINES_H
#define STRATA_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "strata/Dialect/Utils/ScheduleModel.h"

namespace strata {

/// The options of the tileir scheduling passes (strata-schedule-tile).
template <typename Derived>
struct TileScheduleOptionsBase : public mlir::PassPipelineOptions<Derived> {
  using Base = mlir::PassPipelineOptions<Derived>;
  typename Base::template ListOption<int64_t> tileSizes{
      *this, "tile-sizes",
      llvm::cl::desc("Tile size per domain dimension (default: per kernel)")};
  typename Base::template Option<int64_t> tileElements{
      *this, "tile-elements",
      llvm::cl::desc("Elements per tile of an elementwise kernel"),
      llvm::cl::init(kDefaultTileElements)};
  typename Base::template Option<int64_t> splitK{
      *this, "split-k",
      llvm::cl::desc("Slices of k per contraction (0: chosen per kernel, "
                     "1: none)"),
      llvm::cl::init(0)};
  typename Base::template Option<int64_t> splitFolds{
      *this, "split-folds",
      llvm::cl::desc("Slices of the folds of row programs with few program "
                     "instances (0: chosen per kernel, 1: none)"),
      llvm::cl::init(0)};
  typename Base::template Option<int64_t> threads{
      *this, "threads",
      llvm::cl::desc("Threads per block (default: per kernel)"),
      llvm::cl::init(0)};
  typename Base::template Option<int64_t> kTile{
      *this, "k-tile",
      llvm::cl::desc("How many k a contraction stages per step (0: chosen "
                     "per contraction)"),
      llvm::cl::init(0)};
  typename Base::template Option<int64_t> stages{
      *this, "stages",
      llvm::cl::desc("Pipeline depth of contractions: steps of k whose "
                     "chunks are in shared memory at once (1: none; 0: "
                     "chosen per contraction)"),
      llvm::cl::init(0)};
  typename Base::template Option<int64_t> sharedMemory{
      *this, "shared-memory",
      llvm::cl::desc("Bytes of shared memory a contraction's pipelined "
                     "chunks may take (beyond 49152: dynamic shared memory)"),
      llvm::cl::init(kStaticSharedMemoryBytes)};
  typename Base::template Option<int64_t> rasterGroup{
      *this, "raster-group",
      llvm::cl::desc("Rows of tiles per band in the order contraction "
                     "tiles are taken (1: row-major; 0: chosen per "
                     "kernel)"),
      llvm::cl::init(0)};
  typename Base::template Option<int64_t> persistentSms{
      *this, "persistent-sms",
      llvm::cl::desc("Multiprocessors of the target: contraction kernels "
                     "with more tiles than a wave launch one wave of "
                     "instances looping over them (0: one instance per "
                     "tile)"),
      llvm::cl::init(0)};
  typename Base::template Option<int64_t> persistentInstances{
      *this, "persistent-instances",
      llvm::cl::desc("Instances every contraction kernel with more tiles "
                     "launches, looping over them (0: from persistent-sms)"),
      llvm::cl::init(0)};
  // Where contractions multiply: kernelir's choice, which tiles follow.
  typename Base::template Option<bool> tensorCores{
      *this, "tensor-cores",
      llvm::cl::desc("Multiply f16 and bf16 contractions on tensor cores "
                     "(kernelir.mma)"),
      llvm::cl::init(true)};
  typename Base::template Option<bool> tf32{
      *this, "tf32",
      llvm::cl::desc("Multiply f32 contractions on tensor cores as tf32 "
                     "(with tensor-cores)"),
      llvm::cl::init(false)};
};

/// Options of strata-schedule-tile.
struct TileScheduleOptions
    : public TileScheduleOptionsBase<TileScheduleOptions> {};

/// The options shared by every pipeline that schedules kernels: the kind of
/// each program and its schedule (with how kernelir multiplies).
template <typename Derived>
struct ScheduleOptionsBase : public TileScheduleOptionsBase<Derived> {
  using Base = mlir::PassPipelineOptions<Derived>;
  typename Base::template Option<std::string> schedule{
      *this, "schedule",
      llvm::cl::desc("auto (per kernel), elementwise, row, contraction or "
                     "generic"),
      llvm::cl::init("auto")};
  // kernelir's choice alone (tiles do not follow it): pipelines that reach
  // kernelir.
  typename Base::template Option<bool> wgmma{
      *this, "wgmma",
      llvm::cl::desc("Multiply f16 and bf16 contractions by warpgroups "
                     "(kernelir.wgmma; with tensor-cores, chip sm_90a)"),
      llvm::cl::init(false)};
  typename Base::template Option<bool> tma{
      *this, "tma",
      llvm::cl::desc("With wgmma, copy the operand chunks of contractions "
                     "by TMA on a ring of mbarriers where the operands "
                     "allow it"),
      llvm::cl::init(false)};
  typename Base::template Option<bool> wgmmaOverlap{
      *this, "wgmma-overlap",
      llvm::cl::desc("With tma, keep each k step's wgmmas in flight while "
                     "the next step's copies are awaited"),
      llvm::cl::init(true)};
  typename Base::template Option<bool> tmaStore{
      *this, "tma-store",
      llvm::cl::desc("With tma, store contraction kernels' result tiles "
                     "through shared memory by TMA where a tensor map "
                     "describes them"),
      llvm::cl::init(false)};
};

/// Options of strata-lower-to-{tile,kernel,gpu}.
struct ScheduleOptions : public ScheduleOptionsBase<ScheduleOptions> {};

/// Options of strata-lower-to-cpu: the schedule's, and how the CPU runs
/// the kernels' blocks and threads.
struct CPUOptions : public ScheduleOptionsBase<CPUOptions> {
  Option<bool> reverseOrder{
      *this, "reverse-order",
      llvm::cl::desc("Run blocks and threads in reverse order (race "
                     "check)"),
      llvm::cl::init(false)};
  Option<bool> shuffledOrder{
      *this, "shuffled-order",
      llvm::cl::desc("Run blocks and threads in a fixed scrambled order "
                     "(race check)"),
      llvm::cl::init(false)};
  Option<int64_t> waveBlocks{
      *this, "wave-blocks",
      llvm::cl::desc("Launch each wave kernel with this many blocks, at "
                     "most its tiles (0: its estimated grid)"),
      llvm::cl::init(0)};
  Option<bool> checkBounds{
      *this, "check-bounds",
      llvm::cl::desc("Abort on an access outside its buffer, naming the "
                     "kernel and the buffer"),
      llvm::cl::init(false)};
};

/// Options of strata-lower-to-nvvm.
struct NVVMOptions : public ScheduleOptionsBase<NVVMOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("Target GPU (sm_80, sm_90, ...)"),
                           llvm::cl::init("sm_90")};
  Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX version as an LLVM feature (+ptx80, ...)"),
      llvm::cl::init("+ptx80")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("What gpu.binary holds: isa (PTX), bin (cubin) or "
                     "fatbin"),
      llvm::cl::init("isa")};
  Option<int> optLevel{*this, "opt-level",
                       llvm::cl::desc("LLVM optimization level of kernels"),
                       llvm::cl::init(3)};
  Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("CUDA toolkit (ptxas and libdevice)"),
      llvm::cl::init("/usr/local/cuda")};
};

void buildLowerToLoopPipeline(mlir::OpPassManager &pm);
/// tileir-tile, tileir-split-k, tileir-split-folds, tileir-map-threads,
/// tileir-k-tile, tileir-pipeline, tileir-raster, tileir-persist: every
/// scheduling decision, one pass each, on tileir kernels.
void buildScheduleTilePipeline(mlir::OpPassManager &pm,
                               const TileScheduleOptions &options);
void buildLowerToTilePipeline(mlir::OpPassManager &pm,
                              const ScheduleOptions &options);
void buildLowerToKernelPipeline(mlir::OpPassManager &pm,
                                const ScheduleOptions &options);
void buildLowerToGPUPipeline(mlir::OpPassManager &pm,
                             const ScheduleOptions &options);
void buildLowerToNVVMPipeline(mlir::OpPassManager &pm,
                              const NVVMOptions &options);
void buildLowerToCPUPipeline(mlir::OpPassManager &pm,
                             const CPUOptions &options);

/// tensorir -> loopir -> CPU (LLVM dialect), without the GPU schedule.
void buildLowerLoopToCPUPipeline(mlir::OpPassManager &pm);

/// Registers the pipeline of every lowering stage (getLoweringStages) and
/// strata-schedule-tile.
void registerPipelines();

/// A stage a tensorir program lowers to: its name (the Python API's and the
/// CLI's), the pipeline registered for it, what that pipeline does, and
/// whether its result is IR to read (the CLI's --emit; the others end in a
/// GPU binary or in LLVM IR for the CPU).
struct LoweringStage {
  llvm::StringLiteral name, pipeline, summary;
  bool readable;
};

/// Every lowering stage, in the order a program goes through them: the one
/// list registerPipelines registers and Python reads (strata.PIPELINES).
llvm::ArrayRef<LoweringStage> getLoweringStages();

} // namespace strata

#endif // STRATA_PIPELINES_PIPELINES_H
