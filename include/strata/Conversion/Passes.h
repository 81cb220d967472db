#ifndef STRATA_CONVERSION_PASSES_H
#define STRATA_CONVERSION_PASSES_H

#include "strata/Conversion/KernelIRToCPU/KernelIRToCPU.h"
#include "strata/Conversion/KernelIRToGPU/KernelIRToGPU.h"
#include "strata/Conversion/LoopIRToCPU/LoopIRToCPU.h"
#include "strata/Conversion/LoopIRToTileIR/LoopIRToTileIR.h"
#include "strata/Conversion/TensorIRToLoopIR/TensorIRToLoopIR.h"
#include "strata/Conversion/TileIRToKernelIR/TileIRToKernelIR.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "strata/Dialect/KernelIR/IR/KernelIR.h"
#include "strata/Dialect/LoopIR/IR/LoopIR.h"
#include "strata/Dialect/TileIR/IR/TileIR.h"

namespace strata {

#define GEN_PASS_DECL
#include "strata/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "strata/Conversion/Passes.h.inc"

} // namespace strata

#endif // STRATA_CONVERSION_PASSES_H
