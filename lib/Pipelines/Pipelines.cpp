#include "strata/Pipelines/Pipelines.h"
#include "strata/Conversion/Passes.h"
#include "strata/Dialect/LoopIR/Transforms/Passes.h"
#include "strata/Dialect/TensorIR/Transforms/Passes.h"
#include "strata/Dialect/KernelIR/Transforms/Passes.h"
#include "strata/Dialect/TileIR/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace strata {

/// Canonicalize and CSE: the cleanup after a lowering.
static void addCleanup(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void buildLowerToLoopPipeline(OpPassManager &pm) {
  pm.addPass(tensorir::createTensorIRDecomposePass());
  pm.addPass(createConvertTensorIRToLoopIRPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(loopir::createLoopIRFusePass());
  // Fusion clones a producer into each consumer; CSE makes the clones one
  // value, so normalization sees equal reductions as equal.
  pm.addPass(createCSEPass());
  pm.addPass(loopir::createLoopIRNormalizePass());
  // Normalization makes the last contractions (sibling products share one
  // reduction); each becomes a batched GEMM nest.
  pm.addPass(loopir::createLoopIRCanonicalizeContractionsPass());
  addCleanup(pm);
}

template <typename Options>
static void addSchedulePasses(OpPassManager &pm, const Options &options) {
  tileir::TileIRTilePassOptions tile;
  tile.tileSizes.assign(options.tileSizes.begin(), options.tileSizes.end());
  tile.tileElements = options.tileElements;
  tile.tensorCores = options.tensorCores;
  tile.tf32 = options.tf32;
  pm.addPass(tileir::createTileIRTilePass(tile));
  tileir::TileIRSplitKPassOptions split;
  split.splits = options.splitK;
  pm.addPass(tileir::createTileIRSplitKPass(split));
  tileir::TileIRSplitFoldsPassOptions splitFolds;
  splitFolds.splits = options.splitFolds;
  pm.addPass(tileir::createTileIRSplitFoldsPass(splitFolds));
  tileir::TileIRMapThreadsPassOptions threads;
  threads.threads = options.threads;
  pm.addPass(tileir::createTileIRMapThreadsPass(threads));
  tileir::TileIRKTilePassOptions kTile;
  kTile.kTile = options.kTile;
  kTile.tensorCores = options.tensorCores;
  kTile.tf32 = options.tf32;
  pm.addPass(tileir::createTileIRKTilePass(kTile));
  tileir::TileIRPipelinePassOptions pipeline;
  pipeline.stages = options.stages;
  pipeline.sharedMemory = options.sharedMemory;
  pipeline.tensorCores = options.tensorCores;
  pipeline.tf32 = options.tf32;
  pm.addPass(tileir::createTileIRPipelinePass(pipeline));
  tileir::TileIRRasterPassOptions raster;
  raster.group = options.rasterGroup;
  pm.addPass(tileir::createTileIRRasterPass(raster));
  tileir::TileIRPersistPassOptions persist;
  persist.sms = options.persistentSms;
  persist.instances = options.persistentInstances;
  pm.addPass(tileir::createTileIRPersistPass(persist));
}

void buildScheduleTilePipeline(OpPassManager &pm,
                               const TileScheduleOptions &options) {
  addSchedulePasses(pm, options);
}

template <typename Options>
static void buildTileStages(OpPassManager &pm, const Options &options) {
  buildLowerToLoopPipeline(pm);
  ConvertLoopIRToTileIRPassOptions kinds;
  kinds.schedule = options.schedule;
  pm.addPass(createConvertLoopIRToTileIRPass(kinds));
  pm.addPass(tileir::createTileIRFuseFoldsPass());
  addSchedulePasses(pm, options);
}
template <typename Options>
static void buildKernelStages(OpPassManager &pm, const Options &options) {
  buildTileStages(pm, options);
  ConvertTileIRToKernelIRPassOptions kernel;
  kernel.tensorCores = options.tensorCores;
  kernel.tf32 = options.tf32;
  kernel.wgmma = options.wgmma;
  kernel.tma = options.tma;
  kernel.wgmmaOverlap = options.wgmmaOverlap;
  kernel.tmaStore = options.tmaStore;
  pm.addPass(createConvertTileIRToKernelIRPass(kernel));
  // Function by function (kernels and host code): the same rewrites as
  // over the module, in about half the time over eight decoder blocks, and
  // in parallel where there are cores.
  addCleanup(pm.nestAny());
  // kernelir's invariants, checked before the GPU and CPU lowerings take
  // them for granted (the pass manager verifies after each pass only when
  // asked).
  pm.addPass(kernelir::createKernelIRVerifyPass());
}

void buildLowerToTilePipeline(OpPassManager &pm,
                              const ScheduleOptions &options) {
  buildTileStages(pm, options);
}

void buildLowerToKernelPipeline(OpPassManager &pm,
                                const ScheduleOptions &options) {
  buildKernelStages(pm, options);
}

/// kernelir to gpu: everything after the kernel stages on the way to PTX.
static void addGPUConversion(OpPassManager &pm) {
  pm.addPass(createConvertKernelIRToGPUPass());
  // Host functions one by one, as above. The gpu.func kernels are cleaned
  // up only where the pipeline ends at them (strata-lower-to-gpu, to be
  // read): on the way to PTX, LLVM does the same rewrites anyway, and
  // doing them here too took 3% of the decoder block's compile time and
  // changed no PTX (docs/architecture.md, Compile time).
  addCleanup(pm.nest<func::FuncOp>());
}

void buildLowerToGPUPipeline(OpPassManager &pm,
                             const ScheduleOptions &options) {
  buildKernelStages(pm, options);
  addGPUConversion(pm);
  addCleanup(pm.nest<gpu::GPUModuleOp>().nest<gpu::GPUFuncOp>());
}

void buildLowerToNVVMPipeline(OpPassManager &pm, const NVVMOptions &options) {
  buildKernelStages(pm, options);
  // What the chip lacks is a diagnostic here; LLVM would stop on it.
  kernelir::KernelIRCheckTargetPassOptions target;
  target.chip = options.chip;
  pm.addPass(kernelir::createKernelIRCheckTargetPass(target));
  addGPUConversion(pm);
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createConvertNVGPUToNVVMPass()); // Tensor-core mma.
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.useBarePtrCallConv = true; // Kernels take plain pointers.
  kernels.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  // Math libdevice does not cover (trunc) as LLVM intrinsics, which the
  // NVPTX backend selects to instructions (cvt.rzi).
  kernels.addPass(createConvertMathToLLVMPass());
  // nvvm ops without an LLVM intrinsic (wgmma.mma_async) as inline PTX.
  kernels.addPass(createConvertNVVMToLLVMPass());
  kernels.addPass(createExternDynamicSharedPass());
  kernels.addPass(createGridConstantTensorMapsPass());
  // No canonicalize or CSE of the llvm.func kernels: LLVM's optimizer does
  // the same rewrites (the PTX is the same without them, in 4% less time).
  kernels.addPass(createReconcileUnrealizedCastsPass());
  GpuNVVMAttachTargetOptions attach;
  attach.chip = options.chip;
  attach.features = options.features;
  attach.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(attach));
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  binary.toolkitPath = options.cudaPath;
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

/// From loops over buffers (scf, memref, arith, math) to the LLVM dialect.
static void buildCPUToLLVMStages(OpPassManager &pm) {
  addCleanup(pm);
  // Math with an LLVM intrinsic (exp, log, sqrt, ...) uses it; the rest
  // (erf, tanh, ...) calls libm.
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  // bf16 conversions as integer arithmetic, so the lowered code needs no
  // compiler-rt (mlir-runner links none). LLVM's optimizer may still turn
  // the pattern back into a __truncsfbf2 call; the Python JIT provides one.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  // Vectors of more than one dimension (tensor-core fragments) unroll into
  // arrays of 1-D vectors, which convert-to-llvm alone does not do.
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void buildLowerToCPUPipeline(OpPassManager &pm, const CPUOptions &options) {
  buildKernelStages(pm, options);
  ConvertKernelIRToCPUPassOptions cpu;
  cpu.reverseOrder = options.reverseOrder;
  cpu.shuffledOrder = options.shuffledOrder;
  cpu.checkBounds = options.checkBounds;
  cpu.waveBlocks = options.waveBlocks;
  pm.addPass(createConvertKernelIRToCPUPass(cpu));
  buildCPUToLLVMStages(pm);
}

void buildLowerLoopToCPUPipeline(OpPassManager &pm) {
  buildLowerToLoopPipeline(pm);
  pm.addPass(createConvertLoopIRToCPUPass());
  buildCPUToLLVMStages(pm);
}

static constexpr LoweringStage kLoweringStages[] = {
    {"loop", "strata-lower-to-loop",
     "Lower tensorir programs to loopir kernels.", true},
    {"tile", "strata-lower-to-tile",
     "Lower tensorir programs to scheduled tileir kernels.", true},
    {"kernel", "strata-lower-to-kernel",
     "Lower tensorir programs to kernelir kernels and launches.", true},
    {"gpu", "strata-lower-to-gpu",
     "Lower tensorir programs to gpu.launch_func and gpu.func kernels in a "
     "gpu.module (upstream gpu, nvgpu and nvvm ops; no binary yet).",
     true},
    {"nvvm", "strata-lower-to-nvvm",
     "Lower tensorir programs to gpu.launch_func and a gpu.binary of PTX or "
     "cubin.",
     false},
    {"cpu", "strata-lower-to-cpu",
     "Lower tensorir programs to the LLVM dialect, running every kernel on "
     "the CPU (runnable by mlir-runner).",
     false},
    {"loop-cpu", "strata-lower-loop-to-cpu",
     "Lower tensorir programs to loop kernels and run those on the CPU "
     "(the LLVM dialect; the reference semantics of Loop IR).",
     false},
};

ArrayRef<LoweringStage> getLoweringStages() { return kLoweringStages; }

/// Registers the pipeline of stage `name` (kLoweringStages) built by
/// `build`.
template <typename Options = EmptyPipelineOptions, typename Build>
static void registerStage(StringRef name, Build build) {
  const LoweringStage *stage = llvm::find_if(
      kLoweringStages, [&](const LoweringStage &s) { return s.name == name; });
  assert(stage != std::end(kLoweringStages) && "not a stage of the table");
  PassPipelineRegistration<Options>(stage->pipeline, stage->summary, build);
}

void registerPipelines() {
  registerStage("loop", buildLowerToLoopPipeline);
  PassPipelineRegistration<TileScheduleOptions>(
      "strata-schedule-tile",
      "Schedule tileir kernels: tile, split-K, threads, k steps and pipeline "
      "depth, one pass each.",
      buildScheduleTilePipeline);
  registerStage<ScheduleOptions>("tile", buildLowerToTilePipeline);
  registerStage<ScheduleOptions>("kernel", buildLowerToKernelPipeline);
  registerStage<ScheduleOptions>("gpu", buildLowerToGPUPipeline);
  registerStage<NVVMOptions>("nvvm", buildLowerToNVVMPipeline);
  registerStage<CPUOptions>("cpu", buildLowerToCPUPipeline);
  registerStage("loop-cpu", buildLowerLoopToCPUPipeline);
}

} // namespace strata
