// The stock mlir-opt with Strata's plugin parses Strata IR and runs Strata's
// passes and pipelines.
// RUN: %mlir_opt %s --load-dialect-plugin=%strata_plugin \
// RUN:     --load-pass-plugin=%strata_plugin \
// RUN:     --pass-pipeline="builtin.module(strata-lower-to-loop)" \
// RUN: | FileCheck %s --check-prefix=LOOP
// RUN: %mlir_opt %s --load-dialect-plugin=%strata_plugin \
// RUN:     --load-pass-plugin=%strata_plugin \
// RUN:     --pass-pipeline="builtin.module(strata-lower-to-nvvm{chip=sm_90})" \
// RUN: | FileCheck %s --check-prefix=NVVM

// LOOP: loopir.kernel ins(%{{.*}}, %{{.*}} : tensor<1000x37xf32>, tensor<1000x37xf32>) -> tensor<1000x37xf32>
// LOOP: loopir.parallel (%{{.*}}, %{{.*}}) in [1000, 37]
// LOOP: arith.addf

// NVVM: gpu.launch_func @strata_kernels::@program_kernel
// NVVM: gpu.binary @strata_kernels
// NVVM-SAME: .target sm_90

func.func @program(%a: tensor<1000x37xf32>, %b: tensor<1000x37xf32>) -> tensor<1000x37xf32> {
  %r = tensorir.add %a, %b : tensor<1000x37xf32>
  return %r : tensor<1000x37xf32>
}
