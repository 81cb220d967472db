#ifndef STRATA_TENSORIR_BASE
#define STRATA_TENSORIR_BASE

include "mlir/IR/OpBase.td"
include "mlir/IR/CommonTypeConstraints.td"

def TensorIR_Dialect : Dialect {
  let name = "tensorir";
  let cppNamespace = "::strata::tensorir";
  let summary = "What the program computes: NumPy-like ops on tensors.";
  let description = [{
    The first Strata stage. Ops take and return builtin `tensor` values with
    static shapes and have value semantics. Broadcasting is explicit: an
    elementwise op requires operands of identical type, and a
    `tensorir.broadcast` states how a smaller operand is expanded. Later issues
    add composite ops (matmul, softmax, ...) that `tensorir-decompose` breaks
    into the atomic ops defined here.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
  let hasConstantMaterializer = 1;
}

class TensorIR_Op<string mnemonic, list<Trait> traits = []>
    : Op<TensorIR_Dialect, mnemonic, traits>;

def TensorIR_Tensor : ConfinedType<TensorOf<[AnyFloat, AnySignlessInteger]>,
    [HasStaticShapePred], "statically shaped tensor of floats or integers">;
def TensorIR_FloatTensor : ConfinedType<TensorOf<[AnyFloat]>,
    [HasStaticShapePred], "statically shaped tensor of floats">;
def TensorIR_IntTensor : ConfinedType<TensorOf<[AnySignlessInteger]>,
    [HasStaticShapePred], "statically shaped tensor of integers or booleans">;

#endif // STRATA_TENSORIR_BASE
