// mbarriers and bulk copies, on the CPU (MBarrierEmulation.cpp) and to PTX
// (MBarrierToNVVM.cpp). @ring is a
// two-stage pipeline of the kind a TMA mainloop is: one thread initializes
// a "full" mbarrier per stage (one arrival, plus the stage's bytes) and an
// "empty" one (every thread's arrival), issues the first two rows, and
// refills a stage once every thread has released it; the threads wait on
// the stage's phase, parity (step / 2) mod 2. Each of the two blocks
// streams its six rows of 64 f32 (256-byte bulk copies) and doubles them:
// a stage or phase confused shows as wrong elements. Forward, reversed and
// shuffled thread orders, with the bounds check.
// RUN: strata-opt %s --convert-kernelir-to-cpu=check-bounds=true --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
// RUN: strata-opt %s --convert-kernelir-to-cpu=reverse-order=true --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
// RUN: strata-opt %s --convert-kernelir-to-cpu=shuffled-order=true --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s
//
// What would hang on the GPU fails here, naming the kernel: waiting on the
// parity of a phase that has not begun, and a phase whose expected bytes
// never all arrive.
// RUN: strata-opt %s --convert-kernelir-to-cpu --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | not --crash stdbuf -o0 mlir-runner -e wrong_parity_main -entry-point-result=void -shared-libs=%mlir_c_runner_utils 2>&1 \
// RUN: | FileCheck %s --check-prefix=PARITY
// RUN: strata-opt %s --convert-kernelir-to-cpu --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | not --crash stdbuf -o0 mlir-runner -e missing_bytes_main -entry-point-result=void -shared-libs=%mlir_c_runner_utils 2>&1 \
// RUN: | FileCheck %s --check-prefix=BYTES

//
// On the GPU (sm_90): mbarrier.init / arrive(.expect_tx) / try_wait.parity
// (retried until the phase completes) and the bulk copy completing its
// bytes on the stage's mbarrier; ptxas assembles it.
// RUN: strata-opt %s '--strata-lower-to-nvvm=chip=sm_90' | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ strata-opt %s '--strata-lower-to-nvvm=chip=sm_90 format=bin' | FileCheck %s --check-prefix=BIN %}

// PTX: gpu.binary @strata_kernels
// PTX-SAME: .entry ring
// PTX-SAME: mbarrier.init.shared.b64
// PTX-SAME: mbarrier.arrive.expect_tx.shared.b64
// PTX-SAME: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX-SAME: mbarrier.try_wait.parity.shared.b64
// PTX-SAME: mbarrier.arrive.shared.b64
// BIN: gpu.binary @strata_kernels
// BIN-SAME: bin = "\7FELF

// CHECK: wrong elements: 0
// CHECK-NEXT: out[7][5] = 906
// PARITY: an mbarrier wait whose phase never completes {{.*}} in kernel wrong_parity
// BYTES: an mbarrier wait whose phase never completes {{.*}} in kernel missing_bytes

kernelir.func @ring(%in: memref<12x64xf32>, %out: memref<12x64xf32>) attributes {block = array<i64: 64, 1, 1>, grid = array<i64: 2, 1, 1>} {
  %buf = kernelir.shared : memref<2x64xf32, #gpu.address_space<workgroup>>
  %full = kernelir.shared : memref<2xi64, #gpu.address_space<workgroup>>
  %empty = kernelir.shared : memref<2xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c6 = arith.constant 6 : index
  %t = kernelir.thread_id x
  %block = kernelir.block_id x
  %first = arith.muli %block, %c6 : index
  %leader = arith.cmpi eq, %t, %c0 : index
  scf.if %leader {
    kernelir.mbarrier_init %full[%c0] arrivals 1 : memref<2xi64, #gpu.address_space<workgroup>>
    kernelir.mbarrier_init %full[%c1] arrivals 1 : memref<2xi64, #gpu.address_space<workgroup>>
    kernelir.mbarrier_init %empty[%c0] arrivals 64 : memref<2xi64, #gpu.address_space<workgroup>>
    kernelir.mbarrier_init %empty[%c1] arrivals 64 : memref<2xi64, #gpu.address_space<workgroup>>
  }
  kernelir.proxy_fence
  kernelir.barrier
  scf.if %leader {
    scf.for %s = %c0 to %c2 step %c1 {
      %row = arith.addi %first, %s : index
      kernelir.mbarrier_arrive %full[%s] expect_tx 256 : memref<2xi64, #gpu.address_space<workgroup>>
      kernelir.bulk_copy %in[%row, %c0], %buf[%s, %c0] elements 64 arrives %full[%s] : memref<12x64xf32>, memref<2x64xf32, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
    }
  }
  scf.for %s = %c0 to %c6 step %c1 {
    %stage = arith.remui %s, %c2 : index
    %round = arith.divui %s, %c2 : index
    %odd = arith.remui %round, %c2 : index
    %parity = arith.cmpi ne, %odd, %c0 : index
    kernelir.mbarrier_wait %full[%stage] parity %parity : memref<2xi64, #gpu.address_space<workgroup>>
    %x = kernelir.load %buf[%stage, %t] : memref<2x64xf32, #gpu.address_space<workgroup>> -> f32
    %y = arith.addf %x, %x : f32
    %row = arith.addi %first, %s : index
    kernelir.store %y, %out[%row, %t] : memref<12x64xf32>
    kernelir.mbarrier_arrive %empty[%stage] : memref<2xi64, #gpu.address_space<workgroup>>
    kernelir.mbarrier_wait %empty[%stage] parity %parity : memref<2xi64, #gpu.address_space<workgroup>>
    %next = arith.addi %s, %c2 : index
    %more = arith.cmpi ult, %next, %c6 : index
    %refill = arith.andi %leader, %more : i1
    scf.if %refill {
      %nrow = arith.addi %first, %next : index
      kernelir.mbarrier_arrive %full[%stage] expect_tx 256 : memref<2xi64, #gpu.address_space<workgroup>>
      kernelir.bulk_copy %in[%nrow, %c0], %buf[%stage, %c0] elements 64 arrives %full[%stage] : memref<12x64xf32>, memref<2x64xf32, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>
    }
  }
  kernelir.return
}

// Phase 0 completes (one arrival, 256 bytes); the threads then wait for
// phase 1, which nothing will complete.
kernelir.func @wrong_parity(%in: memref<12x64xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %buf = kernelir.shared : memref<64xf32, #gpu.address_space<workgroup>>
  %full = kernelir.shared : memref<1xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %true = arith.constant true
  %t = kernelir.thread_id x
  %leader = arith.cmpi eq, %t, %c0 : index
  scf.if %leader {
    kernelir.mbarrier_init %full[%c0] arrivals 1 : memref<1xi64, #gpu.address_space<workgroup>>
  }
  kernelir.barrier
  scf.if %leader {
    kernelir.mbarrier_arrive %full[%c0] expect_tx 256 : memref<1xi64, #gpu.address_space<workgroup>>
    kernelir.bulk_copy %in[%c0, %c0], %buf[%c0] elements 64 arrives %full[%c0] : memref<12x64xf32>, memref<64xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
  }
  kernelir.mbarrier_wait %full[%c0] parity %true : memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// 512 bytes expected, 256 delivered: phase 0 never completes.
kernelir.func @missing_bytes(%in: memref<12x64xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %buf = kernelir.shared : memref<64xf32, #gpu.address_space<workgroup>>
  %full = kernelir.shared : memref<1xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %false = arith.constant false
  %t = kernelir.thread_id x
  %leader = arith.cmpi eq, %t, %c0 : index
  scf.if %leader {
    kernelir.mbarrier_init %full[%c0] arrivals 1 : memref<1xi64, #gpu.address_space<workgroup>>
  }
  kernelir.barrier
  scf.if %leader {
    kernelir.mbarrier_arrive %full[%c0] expect_tx 512 : memref<1xi64, #gpu.address_space<workgroup>>
    kernelir.bulk_copy %in[%c0, %c0], %buf[%c0] elements 64 arrives %full[%c0] : memref<12x64xf32>, memref<64xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
  }
  kernelir.mbarrier_wait %full[%c0] parity %false : memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c12 = arith.constant 12 : index
  %c64 = arith.constant 64 : index
  %nan = arith.constant 0x7FC00000 : f32
  %in = memref.alloc() : memref<12x64xf32>
  %out = memref.alloc() : memref<12x64xf32>
  // in[r][c] = 64 r + c; out poisoned.
  scf.for %r = %c0 to %c12 step %c1 {
    scf.for %c = %c0 to %c64 step %c1 {
      %r64 = arith.muli %r, %c64 : index
      %e = arith.addi %r64, %c : index
      %ei = arith.index_cast %e : index to i32
      %ef = arith.sitofp %ei : i32 to f32
      memref.store %ef, %in[%r, %c] : memref<12x64xf32>
      memref.store %nan, %out[%r, %c] : memref<12x64xf32>
    }
  }
  kernelir.launch @ring(%in, %out) : memref<12x64xf32>, memref<12x64xf32>
  %wrong = scf.for %r = %c0 to %c12 step %c1 iter_args(%w = %c0) -> index {
    %wr = scf.for %c = %c0 to %c64 step %c1 iter_args(%v = %w) -> index {
      %x = memref.load %in[%r, %c] : memref<12x64xf32>
      %want = arith.addf %x, %x : f32
      %got = memref.load %out[%r, %c] : memref<12x64xf32>
      %ok = arith.cmpf oeq, %got, %want : f32
      %inc = arith.select %ok, %c0, %c1 : index
      %next = arith.addi %v, %inc : index
      scf.yield %next : index
    }
    scf.yield %wr : index
  }
  vector.print str "wrong elements: "
  vector.print %wrong : index
  %probe = memref.load %out[%c7, %c5] : memref<12x64xf32>
  vector.print str "out[7][5] = "
  vector.print %probe : f32
  return
}

func.func @wrong_parity_main() {
  %in = memref.alloc() : memref<12x64xf32>
  kernelir.launch @wrong_parity(%in) : memref<12x64xf32>
  return
}

func.func @missing_bytes_main() {
  %in = memref.alloc() : memref<12x64xf32>
  kernelir.launch @missing_bytes(%in) : memref<12x64xf32>
  return
}
