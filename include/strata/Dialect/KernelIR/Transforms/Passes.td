#ifndef STRATA_KERNELIR_PASSES
#define STRATA_KERNELIR_PASSES

include "mlir/Pass/PassBase.td"

def KernelIRCheckTargetPass
    : Pass<"kernelir-check-target", "::mlir::ModuleOp"> {
  let summary = "Check that the target chip has what the kernels use.";
  let description = [{
    Every op with `TargetInstructionOpInterface` names the oldest compute
    capability whose PTX has its instruction (and whether only that
    architecture's specific target has it): `kernelir.mma` sm_80,
    `kernelir.ldmatrix` sm_75, `kernelir.async_copy` sm_80,
    `kernelir.wgmma` sm_90a alone. A kernel using one the chip lacks, or
    more shared memory than the chip gives a block, is a diagnostic on
    that op: LLVM would otherwise stop on an instruction it cannot select
    (a crash, not a message). `chip` must read `sm_<N>` with an optional
    `a` (architecture-specific) suffix, N at least 75 (the oldest target
    of CUDA 13's ptxas). `strata-lower-to-nvvm` runs it with its `chip`.

    ```
    kernelir.wgmma ... // error with chip=sm_90: 'kernelir.wgmma' exists
                       // on sm_90a alone; the target is sm_90
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "Target GPU (sm_80, sm_90, sm_90a, ...)">,
  ];
}

#endif // STRATA_KERNELIR_PASSES
