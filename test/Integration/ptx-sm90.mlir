// The PTX of the bundled example assembles with ptxas for sm_90 (and sm_80)
// without spills.
// REQUIRES: ptxas
// RUN: strata ptx %S/../../examples/elementwise.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas -arch=sm_90 -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: strata ptx %S/../../examples/elementwise.mlir --chip sm_80 --ptx 70 -o %t80.ptx
// RUN: FileCheck %s --check-prefix=PTX80 < %t80.ptx
// RUN: %ptxas -arch=sm_80 %t80.ptx -o %t80.cubin

// PTX: .version 8.0
// PTX: .target sm_90
// PTX-COUNT-1: .visible .entry program_kernel
// PTX-NOT: .visible .entry
// PTX80: .version 7.0
// PTX80: .target sm_80

// PTXAS: 0 bytes spill stores, 0 bytes spill loads
