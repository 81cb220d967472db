// MLIR 22's parser segfaults on a dense array of index (an upstream bug):
// strata-opt rejects it with a diagnostic before parsing, from a file and
// from standard input alike.
// RUN: not strata-opt %s 2>&1 | FileCheck %s
// RUN: not strata-opt < %s 2>&1 | FileCheck %s --check-prefix=STDIN
// RUN: strata-opt %S/../Dialect/TensorIR/ops.mlir > /dev/null

// CHECK: parser-guard.mlir:[[@LINE+3]]:29: error: a dense array of index (array<index: ...>) is not accepted: MLIR 22's parser crashes on it (an upstream bug); use array<i64: ...>
// CHECK-NOT: Stack dump
// STDIN: <stdin>:[[@LINE+1]]:29: error: a dense array of index
module attributes {test.x = array<index: 1, 2>} {}

// strata-translate guards its input the same way.
// RUN: not strata-translate --kernelir-to-cuda %s 2>&1 | FileCheck %s --check-prefix=TRANSLATE
// TRANSLATE: parser-guard.mlir:[[@LINE-4]]:29: error: a dense array of index (array<index: ...>) is not accepted
// TRANSLATE-NOT: Stack dump
