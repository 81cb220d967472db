// strata-translate: mlir-translate with Strata's translations out of MLIR
// (`--kernelir-to-cuda`: the kernels of a kernelir module as CUDA C++).

#include "strata/Target/CUDA/CUDAEmitter.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  strata::registerKernelIRToCUDATranslation();
  return mlir::failed(
             mlir::mlirTranslateMain(argc, argv, "Strata translation driver"))
             ? 1
             : 0;
}
