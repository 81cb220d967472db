// strata-opt knows Strata's four dialects and five pipelines.
// RUN: strata-opt --show-dialects | FileCheck %s --check-prefix=DIALECTS
// RUN: strata-opt --help | FileCheck %s --check-prefix=HELP

// DIALECTS-DAG: kernelir
// DIALECTS-DAG: loopir
// DIALECTS-DAG: tensorir
// DIALECTS-DAG: tileir

// HELP-DAG: --convert-tensorir-to-loopir
// HELP-DAG: --convert-loopir-to-tileir
// HELP-DAG: --convert-tileir-to-kernelir
// HELP-DAG: --convert-kernelir-to-gpu
// HELP-DAG: --convert-kernelir-to-cpu
// HELP-DAG: --strata-lower-to-loop
// HELP-DAG: --strata-lower-to-tile
// HELP-DAG: --strata-lower-to-kernel
// HELP-DAG: --strata-lower-to-nvvm
// HELP-DAG: --strata-lower-to-cpu
