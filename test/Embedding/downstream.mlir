// The installed CMake package: install Strata, build a downstream project
// against it (find_package(Strata CONFIG), Strata::Strata, Strata's .td
// files in its own TableGen), and run a Strata pipeline over a mix of its
// own op and Strata's.
// RUN: rm -rf %t && mkdir -p %t
// RUN: cmake --install %strata_obj_root --prefix %t/install > %t/install.log
// RUN: cmake -G Ninja -S %S/downstream -B %t/build %strata_cmake_flags \
// RUN:     -DCMAKE_PREFIX_PATH=%t/install > %t/configure.log
// RUN: cmake --build %t/build > %t/build.log
// RUN: %t/build/downstream-opt %s --strata-lower-to-loop | FileCheck %s

// The square and the exp fuse into one kernel.
// CHECK-LABEL: func.func @mixed
// CHECK: loopir.kernel ins(%{{.*}} : tensor<513xf32>)
// CHECK: %[[X:.*]] = loopir.load
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK-NEXT: math.exp %[[Y]]
// CHECK-NOT: loopir.kernel
// CHECK-NOT: downstream.square
func.func @mixed(%a: tensor<513xf32>) -> tensor<513xf32> {
  %0 = downstream.square %a : tensor<513xf32>
  %1 = tensorir.exp %0 : tensor<513xf32>
  return %1 : tensor<513xf32>
}
