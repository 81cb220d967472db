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

def KernelIRVerifyPass : Pass<"kernelir-verify", "::mlir::ModuleOp"> {
  let summary = "Run the verifiers of the kernel stage's ops once.";
  let description = [{
    Fails, with the ops' own diagnostics, where an op of the module does
    not verify. Strata compiles without verifying after every pass (the
    module is verified once, at the end of the pipeline), so a pipeline that
    continues past kernelir to GPU or CPU code would never check kernelir's
    own invariants (a `kernelir.shuffle` in a block of whole warps, a
    `kernelir.mma` fragment's shape, ...): the kernel stages end with this
    pass, and a kernel that breaks one is a diagnostic, not PTX that
    computes something else.
  }];
}

#endif // STRATA_KERNELIR_PASSES
