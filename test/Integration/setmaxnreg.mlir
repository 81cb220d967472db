// kernelir.set_max_registers: a warp-specialized kernel's register split
// (the producer warpgroup down to 40, the consumer up to 232). To PTX for
// sm_90a (setmaxnreg, assembled by ptxas), to CUDA (compiled by nvcc for
// sm_90a), and on the CPU, where registers do not exist: the kernel runs
// and stores what it would on the GPU.
// RUN: strata-opt %s '--strata-lower-to-nvvm=chip=sm_90a' | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ strata-opt %s '--strata-lower-to-nvvm=chip=sm_90a format=bin' | FileCheck %s --check-prefix=BIN %}
// RUN: strata-translate --kernelir-to-cuda %s | FileCheck %s --check-prefix=CUDA
// RUN: %if nvcc %{ strata-translate --kernelir-to-cuda %s -o %t.cu && %nvcc -c -gencode arch=compute_90a,code=sm_90a %t.cu -o %t.o %}
// RUN: strata-opt %s --convert-kernelir-to-cpu --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s

// PTX: .target sm_90a
// PTX-SAME: setmaxnreg.dec.sync.aligned.u32 {{(\\09)?}}40;
// PTX-SAME: setmaxnreg.inc.sync.aligned.u32 {{(\\09)?}}232;
// BIN: bin = "\7FELF
// CUDA: asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
// CUDA: asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
// CHECK: out[0] = 0
// CHECK-NEXT: out[255] = 1

kernelir.func @split_registers(%out: memref<256xf32>) attributes {block = array<i64: 256, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %c128 = arith.constant 128 : index
  %t = kernelir.thread_id x
  %producer = arith.cmpi ult, %t, %c128 : index
  %role = scf.if %producer -> f32 {
    kernelir.set_max_registers decrease 40
    %zero = arith.constant 0.0 : f32
    scf.yield %zero : f32
  } else {
    kernelir.set_max_registers increase 232
    %one = arith.constant 1.0 : f32
    scf.yield %one : f32
  }
  kernelir.store %role, %out[%t] : memref<256xf32>
  kernelir.return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c255 = arith.constant 255 : index
  %out = memref.alloc() : memref<256xf32>
  kernelir.launch @split_registers(%out) : memref<256xf32>
  %first = memref.load %out[%c0] : memref<256xf32>
  %last = memref.load %out[%c255] : memref<256xf32>
  vector.print str "out[0] = "
  vector.print %first : f32
  vector.print str "out[255] = "
  vector.print %last : f32
  return
}
