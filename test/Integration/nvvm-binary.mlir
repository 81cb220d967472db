// strata-lower-to-nvvm ends in a gpu.binary launched by gpu.launch_func.
// RUN: strata-opt %s --strata-lower-to-nvvm | FileCheck %s --check-prefix=ISA
// RUN: strata-opt %s '--strata-lower-to-nvvm=chip=sm_80 features=+ptx75' | FileCheck %s --check-prefix=SM80
// With ptxas, format=bin embeds a cubin.
// RUN: %if ptxas %{ strata-opt %s '--strata-lower-to-nvvm=format=bin' | FileCheck %s --check-prefix=BIN %}
// The stage before: upstream gpu ops, kernels still gpu.func (no binary).
// RUN: strata-opt %s --strata-lower-to-gpu | FileCheck %s --check-prefix=GPU

// ISA: module attributes {gpu.container_module}
// ISA: func.func @program(%{{.*}}: memref<513xf32>, %{{.*}}: memref<513xf32>) -> memref<513xf32>
// ISA: gpu.launch_func @strata_kernels::@program_kernel blocks in
// ISA: gpu.binary @strata_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">
// ISA-SAME: assembly = "
// ISA-SAME: .target sm_90
// ISA-SAME: ld.global
// ISA-SAME: add.rn.f32
// ISA-SAME: st.global

// SM80: chip = "sm_80", features = "+ptx75"
// SM80-SAME: .version 7.5
// SM80-SAME: .target sm_80

// BIN: gpu.binary @strata_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {ISAToBinaryTimeInMs
// BIN-SAME: bin = "\7FELF

// GPU: func.func @program
// GPU: gpu.launch_func @strata_kernels::@program_kernel blocks in
// GPU: gpu.module @strata_kernels {
// GPU-NEXT: gpu.func @program_kernel(
// GPU-SAME: kernel
// GPU: gpu.thread_id x
// GPU: arith.addf
// GPU: gpu.return
// GPU-NOT: kernelir.
// GPU-NOT: gpu.binary

func.func @program(%a: tensor<513xf32>, %b: tensor<513xf32>) -> tensor<513xf32> {
  %r = tensorir.add %a, %b : tensor<513xf32>
  return %r : tensor<513xf32>
}
