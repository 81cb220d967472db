// The foundation's end-to-end check: the bundled example goes through every
// stage to kernels that run on the CPU, and its harness compares all 37000
// elements with a scalar reference.
// RUN: strata-opt %S/../../examples/elementwise.mlir --strata-lower-to-cpu \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_c_runner_utils \
// RUN: | FileCheck %s
// A forced schedule whose tile overhangs both dimensions.
// RUN: strata-opt %S/../../examples/elementwise.mlir \
// RUN:     '--strata-lower-to-cpu=tile-sizes=3,16 threads=16' \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_c_runner_utils \
// RUN: | FileCheck %s

// CHECK: max abs error over 1000x37 elements: 0{{$}}
// The corners, computed independently with NumPy in float32:
//   a = noise(i), b = noise(5000 + j), r = exp(a) * b + 1.
// CHECK-NEXT: r[0, 0] = 0.8687{{[0-9]*$}}
// CHECK-NEXT: r[999, 36] = 1.5997{{[0-9]*$}}
// CHECK-NEXT: PASS
