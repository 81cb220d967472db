// Materializes tile programs as kernels: one block per tile, each thread
// handling tile/threads elements of it, every access guarded by the domain.
// In a cooperative kernel (one point per tile) the threads share the point's
// folds and loops instead.

#include "KernelBodyTranslator.h"
#include "strata/Conversion/HostBufferization/HostBufferization.h"
#include "strata/Conversion/LoopIRCommon/ScalarLoops.h"
#include "strata/Conversion/Passes.h"
#include "strata/Dialect/Utils/ScheduleModel.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Transforms/DialectConversion.h"

namespace strata {
#define GEN_PASS_DEF_CONVERTTILEIRTOKERNELIRPASS
#include "strata/Conversion/Passes.h.inc"
} // namespace strata

using namespace mlir;
using namespace strata;

/// A tensor-core kernel holds its tile's accumulators in registers (64
/// floats a thread in a 128 x 128 tile of 256 threads), and ptxas, left to
/// itself, takes anywhere from 128 to 158 registers for the same main loop
/// (4096^3 f16), which decides between one and two blocks per SM. So a
/// kernel whose shared memory lets exactly two blocks share an SM (the
/// deep pipelines of large tiles) asks for two, where the registers that
/// leaves a thread (the SM's 64K among 2 blocks) are at least twice its
/// accumulators: 128 for 128 x 128 tiles, without spills at 4096^3; a
/// 128 x 256 tile's 128 accumulators would spill. Where shared memory
/// allows more blocks the bound would only license ptxas to take more
/// registers (64 x 64 tiles: 72 instead of 62), so there, as where it
/// allows one, ptxas keeps its own choice.
static constexpr int64_t kTensorCoreBlocksPerSM = 2;

static void boundOccupancy(OpBuilder &b, kernelir::FuncOp func,
                           int64_t accumulatorsPerThread) {
  int64_t shared = func.getSharedLayout().second + kSharedBytesReservedPerBlock;
  int64_t threads = kTensorCoreBlocksPerSM * func.getNumThreadsPerBlock();
  if (kSharedBytesPerSM / shared == kTensorCoreBlocksPerSM &&
      threads <= kMaxThreadsPerSM &&
      kRegistersPerSM / threads >= 2 * accumulatorsPerThread)
    func.setMinBlocksPerSmAttr(b.getI64IntegerAttr(kTensorCoreBlocksPerSM));
}

namespace {

/// tileir.kernel -> kernelir.func + result allocations + kernelir.launch.
struct KernelToLaunch : OpConversionPattern<tileir::KernelOp> {
  KernelToLaunch(TypeConverter &converter, MLIRContext *ctx,
                 MultiplyOptions multiply)
      : OpConversionPattern(converter, ctx), multiply(multiply) {}

  LogicalResult
  matchAndRewrite(tileir::KernelOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto module = op->getParentOfType<ModuleOp>();
    Location loc = op.getLoc();
    // One block per program instance, in a one-dimensional grid (a
    // persistent kernel's instances loop over the tiles).
    int64_t blocks = op.getNumInstances();
    if (blocks > kMaxGridSize[0])
      return op.emitOpError("needs more program instances than a grid "
                            "holds (")
             << kMaxGridSize[0]
             << " blocks): its domain is too large for its tile";
    // Each tile element a thread owns is straight-line code.
    if (!op.isCooperative()) {
      int64_t elements = 1;
      for (int64_t t : op.getTile())
        elements *= t; // Checked by the verifier.
      if (elements / op.getThreads() > kMaxElementsPerThread)
        return op.emitOpError("gives each of its ")
               << op.getThreads() << " threads " << elements / op.getThreads()
               << " tile elements, more than " << kMaxElementsPerThread
               << ": more threads or a smaller tile";
    }

    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToEnd(module.getBody());
    std::string name = tileir::getKernelBaseName(op);
    auto func = kernelir::FuncOp::create(
        rewriter, loc, name, op.getBody().getArgumentTypes(),
        {blocks, 1, 1}, {(int64_t)op.getThreads(), 1, 1});
    SymbolTable(module).insert(func); // Makes the name unique.
    // One exact wave, launched by the runtime; the instances are the
    // estimate.
    if (op.getWave() && blocks < op.getNumTiles())
      func.setWaveTilesAttr(rewriter.getI64IntegerAttr(op.getNumTiles()));
    // The launch below allocates every result buffer for this kernel alone,
    // and the kernel only reads its inputs (tileir.kernel's verifier): nothing
    // it accesses through one argument is written through another.
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
      if (isa<MemRefType>(type))
        func.setArgAttr(i, kernelir::kNoAliasAttrName, rewriter.getUnitAttr());
    rewriter.setInsertionPointToStart(&func.getBody().front());
    std::unique_ptr<strata::detail::KernelBodyTranslator> translator =
        strata::detail::createKernelBodyTranslator(rewriter, op, multiply);
    if (failed(translator->translate(func)))
      return failure();
    kernelir::ReturnOp::create(rewriter, loc);
    if (translator->multipliesOnTensorCores())
      boundOccupancy(rewriter, func, translator->getElementsPerThread());

    rewriter.setInsertionPoint(op);
    SmallVector<Value> args(adaptor.getInputs());
    SmallVector<Value> results;
    for (Type t : op.getResultTypes()) {
      results.push_back(memref::AllocOp::create(
          rewriter, loc, cast<MemRefType>(getTypeConverter()->convertType(t))));
      args.push_back(results.back());
    }
    kernelir::LaunchOp::create(rewriter, loc, func.getSymName(), args);
    rewriter.replaceOp(op, results);
    return success();
  }

  MultiplyOptions multiply;
};

struct ConvertTileIRToKernelIRPass
    : strata::impl::ConvertTileIRToKernelIRPassBase<
          ConvertTileIRToKernelIRPass> {
  using ConvertTileIRToKernelIRPassBase::ConvertTileIRToKernelIRPassBase;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    if (tma && !wgmma) {
      getOperation().emitError("tma=true copies the operands of wgmma: it "
                               "needs wgmma=true");
      return signalPassFailure();
    }
    HostBufferTypeConverter converter;
    ConversionTarget target(*ctx);
    target.addIllegalDialect<tileir::TileIRDialect, loopir::LoopIRDialect>();
    addHostBufferizationLegality(target, converter);
    target.addLegalOp<kernelir::FuncOp>();
    RewritePatternSet patterns(ctx);
    populateTileIRToKernelIRPatterns(
        converter, patterns,
        {tensorCores, tf32, wgmma, tma, wgmmaOverlap, tmaStore});
    populateHostBufferizationPatterns(converter, patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void strata::populateTileIRToKernelIRPatterns(TypeConverter &converter,
                                              RewritePatternSet &patterns,
                                              MultiplyOptions multiply) {
  patterns.add<KernelToLaunch>(converter, patterns.getContext(), multiply);
  // Loop IR of generic schedules: unguarded kernel accesses, in bounds by
  // construction.
  patterns
      .add<LowerLoopLoad<kernelir::LoadOp>, LowerLoopStore<kernelir::StoreOp>>(
          converter, patterns.getContext());
  populateLoopIRScalarLoopPatterns(converter, patterns);
}
