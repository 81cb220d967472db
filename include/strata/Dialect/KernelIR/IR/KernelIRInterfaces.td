#ifndef STRATA_KERNELIR_INTERFACES
#define STRATA_KERNELIR_INTERFACES

include "mlir/IR/OpBase.td"

def KernelIR_TargetInstructionOpInterface
    : OpInterface<"TargetInstructionOpInterface"> {
  let description = [{
    An op whose instruction some targets lack: the oldest compute
    capability that has it (75 for sm_75, ...), and whether it exists on
    that architecture's specific target alone (sm_90a's wgmma). The chip a
    program is compiled for is checked against them
    (`kernelir-check-target`) before any of them reaches LLVM, which
    cannot select an instruction its target lacks.
  }];
  let cppNamespace = "::strata::kernelir";
  let methods = [
    InterfaceMethod<"The oldest compute capability (major * 10 + minor) "
                    "whose PTX has this op's instruction.",
                    "int64_t", "getMinComputeCapability">,
    InterfaceMethod<"Whether the instruction exists on the architecture-"
                    "specific target of that capability alone (sm_90a).",
                    "bool", "needsArchSpecificTarget", (ins), [{}],
                    [{ return false; }]>,
  ];
}

#endif // STRATA_KERNELIR_INTERFACES
