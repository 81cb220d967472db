include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "strata/Dialect/TensorIR/IR/TensorIRInterfaces.td"

def Downstream_Dialect : Dialect {
  let name = "downstream";
  let cppNamespace = "::downstream";
}

// An elementwise op of the host compiler that Strata lowers like its own,
// because it implements tensorir's ScalarizableOpInterface.
def Downstream_SquareOp : Op<Downstream_Dialect, "square", [Pure,
    SameOperandsAndResultType,
    DeclareOpInterfaceMethods<TensorIR_ScalarizableOpInterface>]> {
  let arguments = (ins AnyStaticShapeTensor:$input);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}
