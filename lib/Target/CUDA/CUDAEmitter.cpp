// kernelir -> readable CUDA C++: what people read when a kernel is wrong,
// and what nvcc compiles to check the kernels without MLIR's NVPTX path.
// A translation (strata-translate --kernelir-to-cuda, TranslateRegistration
// below): the kernels' scalar code, memory and control flow here, one
// printOperation per op; the tensor-core and asynchronous-copy ops in
// TensorCoreEmitter.cpp.

#include "Emitter.h"
#include "strata/Support/ParserGuard.h"
#include "strata/Target/CUDA/CUDAEmitter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace strata;
using namespace strata::cuda;

namespace strata::cuda {
namespace {

/// What every rendering starts with: the headers and the helpers the
/// kernels call (zeros, vectors of neighbouring elements, fragment
/// packing, tf32 rounding, wgmma descriptors, bit casts, NaN-propagating
/// max and min).
constexpr const char *kPrelude =
    R"cuda(// CUDA C++ rendering of Strata's kernelir (generated).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>

// N neighbouring elements, aligned to their size: one vector access
// (ld.global.v4 for 4 floats).
template <typename T, int N> struct alignas(sizeof(T) * N) strata_vec {
  T v[N];
};
// A value-initialized T (what a masked-off load reads), for type names of
// several words (`long long{}` does not parse).
template <typename T> __device__ inline T strata_zero() { return T{}; }
template <typename V, typename T> __device__ inline V strata_splat(T x) {
  V r;
  for (auto &e : r.v) e = x;
  return r;
}
// Two 16-bit elements as one 32-bit register of an mma fragment.
template <typename T> __device__ inline unsigned strata_pack(const T *pair) {
  return *reinterpret_cast<const unsigned *>(pair);
}
// An f32 rounded to tf32 (to nearest, ties away), as an mma operand.
__device__ inline unsigned strata_tf32(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}

// A wgmma shared-memory matrix descriptor: the address and the bytes
// between core matrices neighbouring in k (leading) and in rows (stride),
// each in 16-byte units, and the swizzle mode (0 none, 1 128 bytes, 2 64,
// 3 32).
__device__ inline unsigned long long strata_wgmma_descriptor(
    const void *p, unsigned long long leading, unsigned long long stride,
    unsigned long long swizzle = 0) {
  unsigned long long a = __cvta_generic_to_shared(p);
  return ((a & 0x3FFFF) >> 4) | ((leading >> 4) << 16) | ((stride >> 4) << 32) |
         (swizzle << 62);
}

// A TMA tensor map (cuda.h's CUtensorMap: 128 opaque bytes, 64-aligned),
// which the runtime encodes and a kernel takes by value as a grid constant.
struct alignas(64) strata_tensor_map {
  unsigned long long opaque[16];
};

// A value's bits as another type of the same width.
template <typename To, typename From>
__device__ inline To strata_bitcast(From from) {
  To to;
  memcpy(&to, &from, sizeof(To));
  return to;
}

// NaN-propagating max/min, like torch.maximum and arith.maximumf.
__device__ inline float strata_maximumf(float a, float b) {
  return (a != a || b != b) ? NAN : fmaxf(a, b);
}
__device__ inline float strata_minimumf(float a, float b) {
  return (a != a || b != b) ? NAN : fminf(a, b);
}
__device__ inline double strata_maximum(double a, double b) {
  return (a != a || b != b) ? NAN : fmax(a, b);
}
__device__ inline double strata_minimum(double a, double b) {
  return (a != a || b != b) ? NAN : fmin(a, b);
}

)cuda";

/// The C++ integer type of `t`'s width (an index is 64 bits), signed or
/// unsigned (for the unsigned comparisons and extrema); none for other
/// types.
std::optional<std::string> integerTypeName(Type t, bool isUnsigned) {
  if (!t.isIndex() && !t.isInteger())
    return std::nullopt;
  switch (t.isIndex() ? 64 : t.getIntOrFloatBitWidth()) {
  case 64:
    return isUnsigned ? "unsigned long long" : "long long";
  case 32:
    return isUnsigned ? "unsigned" : "int";
  case 16:
    return isUnsigned ? "unsigned short" : "short";
  case 8:
    return isUnsigned ? "unsigned char" : "signed char";
  case 1:
    return "bool";
  default:
    return std::nullopt;
  }
}

/// A scalar constant as a C++ literal.
FailureOr<std::string> literal(Operation *op, Attribute value) {
  std::string out;
  llvm::raw_string_ostream text(out);
  if (auto i = dyn_cast<IntegerAttr>(value)) {
    if (i.getType().isInteger(1))
      text << (i.getValue().isZero() ? "false" : "true");
    else
      text << i.getValue().getSExtValue() << "LL";
    return out;
  }
  if (auto f = dyn_cast<FloatAttr>(value)) {
    double d = f.getValueAsDouble();
    if (std::isinf(d))
      text << (d < 0 ? "-INFINITY" : "INFINITY");
    else if (std::isnan(d))
      text << "NAN";
    else
      text << llvm::format("%.9g", d);
    return out;
  }
  return op->emitError("cannot render this constant as CUDA");
}

/// The flat index of `position` (a prefix of indices) in a row-major
/// vector of `shape`.
int64_t flatIndex(ArrayRef<int64_t> position, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides = computeSuffixProduct(shape);
  return linearize(position, ArrayRef(strides).take_front(position.size()));
}

/// `result = lhs symbol rhs;`
LogicalResult printBinary(CudaEmitter &emitter, Operation *op,
                          StringRef symbol) {
  if (failed(emitter.declare(op, op->getResult(0))))
    return failure();
  emitter.ostream() << emitter.name(op->getOperand(0)) << " " << symbol << " "
                    << emitter.name(op->getOperand(1)) << ";\n";
  return success();
}

/// `result = f(operands...);` with the f32 or the f64 function.
LogicalResult printCall(CudaEmitter &emitter, Operation *op, StringRef f32,
                        StringRef f64) {
  if (failed(emitter.declare(op, op->getResult(0))))
    return failure();
  raw_ostream &os = emitter.ostream();
  os << (op->getResult(0).getType().isF64() ? f64 : f32) << "(";
  llvm::interleaveComma(op->getOperands(), os,
                        [&](Value v) { os << emitter.name(v); });
  os << ");\n";
  return success();
}

/// `result = (type)operand;`
LogicalResult printCast(CudaEmitter &emitter, Operation *op) {
  FailureOr<std::string> type =
      emitter.typeName(op, op->getResult(0).getType());
  if (failed(type) || failed(emitter.declare(op, op->getResult(0))))
    return failure();
  emitter.ostream() << "(" << *type << ")" << emitter.name(op->getOperand(0))
                    << ";\n";
  return success();
}

/// `lhs symbol rhs` on the operands read as unsigned integers.
FailureOr<std::string> unsignedOperation(CudaEmitter &emitter, Operation *op,
                                         StringRef symbol) {
  std::optional<std::string> type =
      integerTypeName(op->getOperand(0).getType(), /*isUnsigned=*/true);
  if (!type)
    return op->emitError("cannot render unsigned ")
           << op->getOperand(0).getType() << " as CUDA";
  return "(" + *type + ")" + emitter.name(op->getOperand(0)) + " " +
         symbol.str() + " (" + *type + ")" + emitter.name(op->getOperand(1));
}

// --- kernelir: ids, memory, shuffles, barriers ------------------------------

LogicalResult printOperation(CudaEmitter &emitter, kernelir::ReturnOp) {
  emitter.line() << "return;\n";
  return success();
}

/// `blockIdx.x`, `threadIdx.y`, ...: CUDA's id of `id`'s dimension.
template <typename IdOp>
LogicalResult printId(CudaEmitter &emitter, IdOp id, StringRef variable) {
  if (failed(emitter.declare(id, id)))
    return failure();
  emitter.ostream() << variable << "." << kernelir::stringifyDim(id.getDim())
                    << ";\n";
  return success();
}

LogicalResult printOperation(CudaEmitter &emitter, kernelir::BlockIdOp id) {
  return printId(emitter, id, "blockIdx");
}

LogicalResult printOperation(CudaEmitter &emitter, kernelir::ThreadIdOp id) {
  return printId(emitter, id, "threadIdx");
}

LogicalResult printOperation(CudaEmitter &emitter, kernelir::GridDimOp id) {
  return printId(emitter, id, "gridDim");
}

/// The lane (or warp) of the thread in the block's linear order.
LogicalResult printLaneOrWarp(CudaEmitter &emitter, Operation *op,
                              bool lane) {
  if (failed(emitter.declare(op, op->getResult(0))))
    return failure();
  emitter.ostream() << "(threadIdx.x + blockDim.x * (threadIdx.y + "
                       "blockDim.y * threadIdx.z)) "
                    << (lane ? "% " : "/ ") << kWarpSize << ";\n";
  return success();
}

LogicalResult printOperation(CudaEmitter &emitter, kernelir::LaneIdOp id) {
  return printLaneOrWarp(emitter, id, /*lane=*/true);
}

LogicalResult printOperation(CudaEmitter &emitter, kernelir::WarpIdOp id) {
  return printLaneOrWarp(emitter, id, /*lane=*/false);
}

LogicalResult printOperation(CudaEmitter &emitter, kernelir::LoadOp load) {
  FailureOr<std::string> type = emitter.typeName(load, load.getType());
  if (failed(type) || failed(emitter.declare(load, load)))
    return failure();
  std::string at = emitter.access(load.getMemref(), load.getIndices(), *type);
  if (load.getPred())
    emitter.ostream() << emitter.name(load.getPred()) << " ? " << at
                      << " : strata_zero<" << *type << ">();\n";
  else
    emitter.ostream() << at << ";\n";
  return success();
}

LogicalResult printOperation(CudaEmitter &emitter, kernelir::StoreOp store) {
  FailureOr<std::string> type =
      emitter.typeName(store, store.getValue().getType());
  if (failed(type))
    return failure();
  raw_ostream &os = emitter.line();
  if (store.getPred())
    os << "if (" << emitter.name(store.getPred()) << ") ";
  os << emitter.access(store.getMemref(), store.getIndices(), *type) << " = "
     << emitter.name(store.getValue()) << ";\n";
  return success();
}

LogicalResult printOperation(CudaEmitter &emitter,
                             kernelir::SharedOp shared) {
  FailureOr<std::string> type =
      emitter.typeName(shared, shared.getType().getElementType());
  if (failed(type))
    return failure();
  auto kernel = shared->getParentOfType<kernelir::FuncOp>();
  auto [offsets, bytes] = kernel.getSharedLayout();
  if (!kernel.usesDynamicSharedMemory()) {
    emitter.line() << "__shared__ __align__(" << shared.getAlignment() << ") "
                   << *type << " " << emitter.name(shared) << "["
                   << shared.getType().getNumElements() << "];\n";
    return success();
  }
  // Beyond static shared memory, or where buffers overlay: views of the
  // dynamic shared memory the launch must request (`bytes`).
  auto buffers = kernel.getBody().front().getOps<kernelir::SharedOp>();
  int64_t i = std::distance(buffers.begin(), llvm::find(buffers, shared));
  if (i == 0) {
    emitter.line() << "extern __shared__ __align__("
                   << kernelir::kSharedAlignment
                   << ") unsigned char strata_dynamic_shared[]; // launch "
                      "with "
                   << bytes << " bytes of dynamic shared memory\n";
    // Buffers aligned beyond the window's alignment (TMA boxes) start
    // from its first address aligned to the most they need.
    emitter.line() << "unsigned char *strata_shared_base = "
                      "strata_dynamic_shared + ((0u - (unsigned)"
                      "__cvta_generic_to_shared(strata_dynamic_shared)) & "
                   << kernel.getSharedAlignment() - 1 << "u);\n";
  }
  emitter.line() << *type << " *" << emitter.name(shared)
                 << " = reinterpret_cast<" << *type
                 << " *>(strata_shared_base + " << offsets[i] << ");\n";
  return success();
}

LogicalResult printOperation(CudaEmitter &emitter, kernelir::BarrierOp) {
  emitter.line() << "__syncthreads();\n";
  return success();
}

/// The whole warp takes part in every shuffle (full mask).
StringRef shuffleFunction(kernelir::ShuffleMode mode) {
  switch (mode) {
  case kernelir::ShuffleMode::XOR:
    return "__shfl_xor_sync";
  case kernelir::ShuffleMode::DOWN:
    return "__shfl_down_sync";
  case kernelir::ShuffleMode::UP:
    return "__shfl_up_sync";
  case kernelir::ShuffleMode::IDX:
    return "__shfl_sync";
  }
  return "__shfl_sync";
}

LogicalResult printOperation(CudaEmitter &emitter,
                             kernelir::ShuffleOp shuffle) {
  if (failed(emitter.declare(shuffle, shuffle)))
    return failure();
  emitter.ostream() << shuffleFunction(shuffle.getMode()) << "(0xffffffffu, "
                    << emitter.name(shuffle.getValue()) << ", "
                    << emitter.name(shuffle.getOffset()) << ");\n";
  return success();
}

// --- vector: the elements of fragments and vector accesses -----------------

LogicalResult printOperation(CudaEmitter &emitter,
                             vector::ExtractOp extract) {
  ArrayRef<int64_t> position = extract.getStaticPosition();
  auto source = llvm::cast<VectorType>(extract.getSource().getType());
  if (llvm::any_of(position, ShapedType::isDynamic) ||
      failed(emitter.declare(extract, extract)))
    return extract.emitError("cannot render this vector.extract as CUDA");
  int64_t first = flatIndex(position, source.getShape());
  auto part = dyn_cast<VectorType>(extract.getType());
  std::string from = emitter.name(extract.getSource());
  if (!part) {
    emitter.ostream() << from << ".v[" << first << "];\n";
    return success();
  }
  // A row of the source (an mma accumulator's pair, say).
  emitter.ostream() << "{};\n";
  for (int64_t i = 0; i < part.getNumElements(); ++i)
    emitter.line() << emitter.name(extract) << ".v[" << i << "] = " << from
                   << ".v[" << first + i << "];\n";
  return success();
}

LogicalResult printOperation(CudaEmitter &emitter,
                             vector::ToElementsOp split) {
  for (auto [i, element] : llvm::enumerate(split.getResults())) {
    if (failed(emitter.declare(split, element)))
      return failure();
    emitter.ostream() << emitter.name(split.getSource()) << ".v[" << i
                      << "];\n";
  }
  return success();
}

LogicalResult printOperation(CudaEmitter &emitter, vector::InsertOp insert) {
  ArrayRef<int64_t> position = insert.getStaticPosition();
  auto dest = llvm::cast<VectorType>(insert.getDest().getType());
  if (llvm::any_of(position, ShapedType::isDynamic) ||
      failed(emitter.declare(insert, insert)))
    return insert.emitError("cannot render this vector.insert as CUDA");
  emitter.ostream() << emitter.name(insert.getDest()) << ";\n";
  int64_t first = flatIndex(position, dest.getShape());
  auto part = dyn_cast<VectorType>(insert.getValueToStoreType());
  std::string value = emitter.name(insert.getValueToStore());
  if (!part) {
    emitter.line() << emitter.name(insert) << ".v[" << first
                   << "] = " << value << ";\n";
    return success();
  }
  for (int64_t i = 0; i < part.getNumElements(); ++i)
    emitter.line() << emitter.name(insert) << ".v[" << first + i
                   << "] = " << value << ".v[" << i << "];\n";
  return success();
}

LogicalResult printOperation(CudaEmitter &emitter,
                             vector::FromElementsOp build) {
  if (failed(emitter.declare(build, build)))
    return failure();
  raw_ostream &os = emitter.ostream();
  os << "{{";
  llvm::interleaveComma(build.getElements(), os,
                        [&](Value v) { os << emitter.name(v); });
  os << "}};\n";
  return success();
}

// --- arith and math ---------------------------------------------------------

LogicalResult printOperation(CudaEmitter &emitter, arith::ConstantOp c) {
  Attribute value = c.getValue();
  std::string splatType;
  // A vector constant is a splat (zero accumulators, fragments).
  if (auto splat = dyn_cast<SplatElementsAttr>(value)) {
    FailureOr<std::string> element =
        emitter.typeName(c, splat.getElementType());
    FailureOr<std::string> type = emitter.typeName(c, c.getType());
    if (failed(element) || failed(type))
      return failure();
    splatType = *type;
    value = splat.getSplatValue<Attribute>();
  }
  FailureOr<std::string> text = literal(c, value);
  if (failed(text) || failed(emitter.declare(c, c)))
    return failure();
  if (!splatType.empty())
    emitter.ostream() << "strata_splat<" << splatType << ">(" << *text
                      << ");\n";
  else
    emitter.ostream() << *text << ";\n";
  return success();
}

LogicalResult printOperation(CudaEmitter &emitter, arith::BitcastOp c) {
  FailureOr<std::string> type = emitter.typeName(c, c.getType());
  if (failed(type) || failed(emitter.declare(c, c.getResult())))
    return failure();
  emitter.ostream() << "strata_bitcast<" << *type << ">("
                    << emitter.name(c.getIn()) << ");\n";
  return success();
}

LogicalResult printOperation(CudaEmitter &emitter, arith::NegFOp n) {
  if (failed(emitter.declare(n, n)))
    return failure();
  emitter.ostream() << "-" << emitter.name(n.getOperand()) << ";\n";
  return success();
}

/// Signed comparisons by the operands' own (signed) types, unsigned ones
/// on the operands read as unsigned.
LogicalResult printOperation(CudaEmitter &emitter, arith::CmpIOp cmp) {
  using P = arith::CmpIPredicate;
  StringRef symbol;
  bool isUnsigned = false;
  switch (cmp.getPredicate()) {
  case P::eq: symbol = "=="; break;
  case P::ne: symbol = "!="; break;
  case P::slt: symbol = "<"; break;
  case P::sle: symbol = "<="; break;
  case P::sgt: symbol = ">"; break;
  case P::sge: symbol = ">="; break;
  case P::ult: symbol = "<"; isUnsigned = true; break;
  case P::ule: symbol = "<="; isUnsigned = true; break;
  case P::ugt: symbol = ">"; isUnsigned = true; break;
  case P::uge: symbol = ">="; isUnsigned = true; break;
  }
  if (!isUnsigned)
    return printBinary(emitter, cmp, symbol);
  FailureOr<std::string> text = unsignedOperation(emitter, cmp, symbol);
  if (failed(text) || failed(emitter.declare(cmp, cmp)))
    return failure();
  emitter.ostream() << *text << ";\n";
  return success();
}

/// The unsigned minimum (or maximum) of two integers (clamps of indices).
template <typename Op>
LogicalResult printUnsignedExtremum(CudaEmitter &emitter, Op op,
                                    StringRef symbol) {
  FailureOr<std::string> test = unsignedOperation(emitter, op, symbol);
  if (failed(test) || failed(emitter.declare(op, op)))
    return failure();
  emitter.ostream() << "(" << *test << ") ? " << emitter.name(op.getLhs())
                    << " : " << emitter.name(op.getRhs()) << ";\n";
  return success();
}

LogicalResult printOperation(CudaEmitter &emitter, arith::MinUIOp op) {
  return printUnsignedExtremum(emitter, op, "<");
}

LogicalResult printOperation(CudaEmitter &emitter, arith::MaxUIOp op) {
  return printUnsignedExtremum(emitter, op, ">");
}

/// An operation on integers read as unsigned: a logical shift right (a
/// swizzle's), unsigned division and remainder (C's `/` and `%` on signed
/// operands would round a negative bit pattern toward zero instead).
LogicalResult printUnsignedBinary(CudaEmitter &emitter, Operation *op,
                                  StringRef symbol) {
  FailureOr<std::string> text = unsignedOperation(emitter, op, symbol);
  if (failed(text) || failed(emitter.declare(op, op->getResult(0))))
    return failure();
  emitter.ostream() << *text << ";\n";
  return success();
}

LogicalResult printOperation(CudaEmitter &emitter, arith::CmpFOp cmp) {
  if (failed(emitter.declare(cmp, cmp)))
    return failure();
  raw_ostream &os = emitter.ostream();
  std::string a = emitter.name(cmp.getLhs()), b = emitter.name(cmp.getRhs());
  using P = arith::CmpFPredicate;
  switch (cmp.getPredicate()) {
  case P::OEQ: os << a << " == " << b; break;
  case P::UNE: os << "!(" << a << " == " << b << ")"; break;
  case P::OLT: os << a << " < " << b; break;
  case P::OLE: os << a << " <= " << b; break;
  case P::OGT: os << a << " > " << b; break;
  case P::OGE: os << a << " >= " << b; break;
  case P::UNO:
    os << "(" << a << " != " << a << " || " << b << " != " << b << ")";
    break;
  case P::ORD:
    os << "(" << a << " == " << a << " && " << b << " == " << b << ")";
    break;
  default:
    return cmp.emitError("cannot render this float comparison as CUDA");
  }
  os << ";\n";
  return success();
}

LogicalResult printOperation(CudaEmitter &emitter, arith::SelectOp s) {
  if (failed(emitter.declare(s, s)))
    return failure();
  emitter.ostream() << emitter.name(s.getCondition()) << " ? "
                    << emitter.name(s.getTrueValue()) << " : "
                    << emitter.name(s.getFalseValue()) << ";\n";
  return success();
}

// --- scf: loops and branches ------------------------------------------------

/// Loop-carried and branch results live in variables declared before the
/// construct; scf.yield assigns them.
LogicalResult declareResults(CudaEmitter &emitter, Operation *op,
                             ValueRange results, ValueRange inits) {
  for (auto [i, r] : llvm::enumerate(results)) {
    FailureOr<std::string> type = emitter.typeName(op, r.getType());
    if (failed(type))
      return failure();
    emitter.line() << *type << " " << emitter.name(r);
    if (!inits.empty())
      emitter.ostream() << " = " << emitter.name(inits[i]);
    emitter.ostream() << ";\n";
  }
  return success();
}

LogicalResult printOperation(CudaEmitter &emitter, scf::ForOp loop) {
  if (failed(declareResults(emitter, loop, loop.getResults(),
                            loop.getInitArgs())))
    return failure();
  // The body's block arguments name the loop-carried variables.
  for (auto [arg, result] :
       llvm::zip(loop.getRegionIterArgs(), loop.getResults()))
    emitter.alias(arg, result);
  std::string iv = emitter.name(loop.getInductionVar());
  emitter.line() << "for (long long " << iv << " = "
                 << emitter.name(loop.getLowerBound()) << "; " << iv << " < "
                 << emitter.name(loop.getUpperBound()) << "; " << iv
                 << " += " << emitter.name(loop.getStep()) << ") {\n";
  emitter.indentMore();
  emitter.pushYieldTargets(loop.getResults());
  LogicalResult result = emitter.emitBlock(*loop.getBody());
  emitter.popYieldTargets();
  emitter.indentLess();
  emitter.line() << "}\n";
  return result;
}

LogicalResult printOperation(CudaEmitter &emitter, scf::IfOp branch) {
  if (failed(declareResults(emitter, branch, branch.getResults(), {})))
    return failure();
  emitter.line() << "if (" << emitter.name(branch.getCondition()) << ") {\n";
  emitter.pushYieldTargets(branch.getResults());
  emitter.indentMore();
  LogicalResult result = emitter.emitBlock(*branch.thenBlock());
  emitter.indentLess();
  if (succeeded(result) && branch.elseBlock()) {
    emitter.line() << "} else {\n";
    emitter.indentMore();
    result = emitter.emitBlock(*branch.elseBlock());
    emitter.indentLess();
  }
  emitter.popYieldTargets();
  emitter.line() << "}\n";
  return result;
}

LogicalResult printOperation(CudaEmitter &emitter, scf::YieldOp yield) {
  for (auto [target, value] :
       llvm::zip(emitter.currentYieldTargets(), yield.getOperands()))
    emitter.line() << emitter.name(target) << " = " << emitter.name(value)
                   << ";\n";
  return success();
}

} // namespace
} // namespace strata::cuda

std::string CudaEmitter::name(Value v) {
  auto [it, inserted] = names.try_emplace(v, "");
  if (inserted)
    it->second = (isa<BlockArgument>(v) ? "a" : "v") +
                 std::to_string(names.size() - 1);
  return it->second;
}

FailureOr<std::string> CudaEmitter::typeName(Operation *op, Type t) {
  if (std::optional<std::string> integer =
          integerTypeName(t, /*isUnsigned=*/false))
    return *integer;
  if (t.isF32())
    return std::string("float");
  if (t.isF64())
    return std::string("double");
  if (t.isF16())
    return std::string("__half");
  if (t.isBF16())
    return std::string("__nv_bfloat16");
  if (auto vector = dyn_cast<VectorType>(t);
      vector && !vector.isScalable()) { // Flattened, row-major.
    FailureOr<std::string> element = typeName(op, vector.getElementType());
    if (failed(element))
      return failure();
    return "strata_vec<" + *element + ", " +
           std::to_string(vector.getNumElements()) + ">";
  }
  return op->emitError("cannot render type ") << t << " as CUDA";
}

LogicalResult CudaEmitter::declare(Operation *op, Value v) {
  FailureOr<std::string> type = typeName(op, v.getType());
  if (failed(type))
    return failure();
  line() << *type << " " << name(v) << " = ";
  return success();
}

std::string CudaEmitter::offset(MemRefType buffer, ValueRange indices) {
  std::string expr;
  int64_t stride = 1;
  SmallVector<std::string> terms;
  for (int64_t d = buffer.getRank() - 1; d >= 0; --d) {
    terms.push_back(stride == 1 ? name(indices[d])
                                : name(indices[d]) + " * " +
                                      std::to_string(stride) + "LL");
    stride *= buffer.getDimSize(d);
  }
  if (terms.empty())
    return "0";
  for (auto it = terms.rbegin(); it != terms.rend(); ++it)
    expr += (expr.empty() ? "" : " + ") + *it;
  return expr;
}

std::string CudaEmitter::access(Value buffer, ValueRange indices,
                                StringRef type) {
  std::string element =
      name(buffer) + "[" +
      offset(llvm::cast<MemRefType>(buffer.getType()), indices) + "]";
  if (!type.starts_with("strata_vec"))
    return element;
  return "*reinterpret_cast<" + type.str() + " *>(&" + element + ")";
}

LogicalResult CudaEmitter::emitBlock(Block &block) {
  for (Operation &op : block)
    if (failed(emitOperation(op)))
      return failure();
  return success();
}

LogicalResult CudaEmitter::emitKernel(kernelir::FuncOp func) {
  os << "extern \"C\" __global__ void __launch_bounds__("
     << func.getNumThreadsPerBlock();
  if (std::optional<int64_t> blocks = func.getMinBlocksPerSm())
    os << ", " << *blocks;
  os << ")\n" << func.getName() << "(";
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    auto buffer = dyn_cast<MemRefType>(arg.getType());
    if (!buffer)
      return func.emitError("cannot render a non-buffer kernel argument");
    os << (i ? ", " : "");
    if (func.getArgAttr(i, kernelir::kTensorMapAttrName) && !arg.use_empty()) {
      os << "const __grid_constant__ strata_tensor_map " << name(arg);
      continue;
    }
    FailureOr<std::string> type = typeName(func, buffer.getElementType());
    if (failed(type))
      return failure();
    os << *type
       << (func.getArgAttr(i, kernelir::kNoAliasAttrName) ? " *__restrict__ "
                                                          : " *")
       << name(arg);
  }
  os << ") {\n";
  indent = 1;
  if (failed(emitBlock(func.getBody().front())))
    return failure();
  os << "}\n\n";
  return success();
}

LogicalResult CudaEmitter::emitOperation(Operation &op) {
  auto binary = [&](StringRef symbol) {
    return printBinary(*this, &op, symbol);
  };
  auto call = [&](StringRef f32, StringRef f64) {
    return printCall(*this, &op, f32, f64);
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case<kernelir::ReturnOp, kernelir::BlockIdOp, kernelir::ThreadIdOp,
            kernelir::GridDimOp, kernelir::LaneIdOp, kernelir::WarpIdOp,
            kernelir::LoadOp, kernelir::StoreOp, kernelir::SharedOp,
            kernelir::BarrierOp, kernelir::ShuffleOp, kernelir::MmaOp,
            kernelir::WgmmaOp, kernelir::WgmmaWaitOp, kernelir::LdMatrixOp,
            kernelir::AsyncCopyOp, kernelir::AsyncCommitOp,
            kernelir::AsyncWaitOp, kernelir::ProxyFenceOp,
            kernelir::MBarrierInitOp, kernelir::MBarrierArriveOp,
            kernelir::MBarrierWaitOp, kernelir::BulkCopyOp, kernelir::TmaLoadOp,
            kernelir::TmaStoreOp, kernelir::BulkCommitOp, kernelir::BulkWaitOp,
            kernelir::SetMaxRegistersOp, vector::ExtractOp,
            vector::ToElementsOp, vector::InsertOp, vector::FromElementsOp,
            arith::ConstantOp, arith::BitcastOp, arith::NegFOp, arith::CmpIOp,
            arith::CmpFOp, arith::MinUIOp, arith::MaxUIOp, arith::SelectOp,
            scf::ForOp, scf::IfOp, scf::YieldOp>(
          [&](auto op) { return printOperation(*this, op); })
      .Case<arith::AddIOp, arith::AddFOp>([&](auto) { return binary("+"); })
      .Case<arith::SubIOp, arith::SubFOp>([&](auto) { return binary("-"); })
      .Case<arith::MulIOp, arith::MulFOp>([&](auto) { return binary("*"); })
      .Case<arith::DivSIOp, arith::DivFOp>([&](auto) { return binary("/"); })
      .Case<arith::RemSIOp>([&](auto) { return binary("%"); })
      .Case<arith::DivUIOp>(
          [&](auto) { return printUnsignedBinary(*this, &op, "/"); })
      .Case<arith::RemUIOp>(
          [&](auto) { return printUnsignedBinary(*this, &op, "%"); })
      .Case<arith::ShRUIOp>(
          [&](auto) { return printUnsignedBinary(*this, &op, ">>"); })
      .Case<arith::AndIOp>([&](auto) { return binary("&"); })
      .Case<arith::OrIOp>([&](auto) { return binary("|"); })
      .Case<arith::XOrIOp>([&](auto) { return binary("^"); })
      .Case<arith::ShLIOp>([&](auto) { return binary("<<"); })
      .Case<arith::ShRSIOp>([&](auto) { return binary(">>"); })
      .Case<arith::MaximumFOp>(
          [&](auto) { return call("strata_maximumf", "strata_maximum"); })
      .Case<arith::MinimumFOp>(
          [&](auto) { return call("strata_minimumf", "strata_minimum"); })
      .Case<arith::MaxSIOp>([&](auto) { return call("max", "max"); })
      .Case<arith::MinSIOp>([&](auto) { return call("min", "min"); })
      .Case<arith::IndexCastOp, arith::SIToFPOp, arith::UIToFPOp,
            arith::FPToSIOp, arith::ExtFOp, arith::TruncFOp, arith::ExtSIOp,
            arith::ExtUIOp, arith::TruncIOp>(
          [&](auto) { return printCast(*this, &op); })
      .Case<math::ExpOp>([&](auto) { return call("expf", "exp"); })
      .Case<math::LogOp>([&](auto) { return call("logf", "log"); })
      .Case<math::SqrtOp>([&](auto) { return call("sqrtf", "sqrt"); })
      .Case<math::RsqrtOp>([&](auto) { return call("rsqrtf", "rsqrt"); })
      .Case<math::TanhOp>([&](auto) { return call("tanhf", "tanh"); })
      .Case<math::ErfOp>([&](auto) { return call("erff", "erf"); })
      .Case<math::ErfcOp>([&](auto) { return call("erfcf", "erfc"); })
      .Case<math::Exp2Op>([&](auto) { return call("exp2f", "exp2"); })
      .Case<math::ExpM1Op>([&](auto) { return call("expm1f", "expm1"); })
      .Case<math::Log2Op>([&](auto) { return call("log2f", "log2"); })
      .Case<math::Log10Op>([&](auto) { return call("log10f", "log10"); })
      .Case<math::Log1pOp>([&](auto) { return call("log1pf", "log1p"); })
      .Case<math::SinOp>([&](auto) { return call("sinf", "sin"); })
      .Case<math::CosOp>([&](auto) { return call("cosf", "cos"); })
      .Case<math::TanOp>([&](auto) { return call("tanf", "tan"); })
      .Case<math::AsinOp>([&](auto) { return call("asinf", "asin"); })
      .Case<math::AcosOp>([&](auto) { return call("acosf", "acos"); })
      .Case<math::AtanOp>([&](auto) { return call("atanf", "atan"); })
      .Case<math::Atan2Op>([&](auto) { return call("atan2f", "atan2"); })
      .Case<math::SinhOp>([&](auto) { return call("sinhf", "sinh"); })
      .Case<math::CoshOp>([&](auto) { return call("coshf", "cosh"); })
      .Case<math::AsinhOp>([&](auto) { return call("asinhf", "asinh"); })
      .Case<math::AcoshOp>([&](auto) { return call("acoshf", "acosh"); })
      .Case<math::AtanhOp>([&](auto) { return call("atanhf", "atanh"); })
      .Case<math::FloorOp>([&](auto) { return call("floorf", "floor"); })
      .Case<math::CeilOp>([&](auto) { return call("ceilf", "ceil"); })
      .Case<math::RoundEvenOp>([&](auto) { return call("rintf", "rint"); })
      .Case<math::TruncOp>([&](auto) { return call("truncf", "trunc"); })
      .Case<arith::RemFOp>([&](auto) { return call("fmodf", "fmod"); })
      .Case<math::AbsFOp>([&](auto) { return call("fabsf", "fabs"); })
      .Case<math::AbsIOp>([&](auto) { return call("llabs", "llabs"); })
      .Case<math::PowFOp>([&](auto) { return call("powf", "pow"); })
      .Case<math::FmaOp>([&](auto) { return call("fmaf", "fma"); })
      .Default([&](Operation *other) {
        return other->emitError("cannot render '")
               << other->getName() << "' as CUDA";
      });
}

LogicalResult strata::renderKernelsAsCUDA(ModuleOp module, raw_ostream &os) {
  // Nothing of a module with a kernel CUDA cannot take reaches `os`.
  std::string text = kPrelude;
  llvm::raw_string_ostream rendered(text);
  for (auto func : module.getOps<kernelir::FuncOp>())
    if (failed(CudaEmitter(rendered).emitKernel(func)))
      return failure();
  os << text;
  return success();
}

void strata::registerKernelIRToCUDATranslation() {
  TranslateRegistration registration(
      "kernelir-to-cuda", "Render the kernelir kernels of a module as CUDA C++",
      [](const std::shared_ptr<llvm::SourceMgr> &sources, raw_ostream &os,
         MLIRContext *context) -> LogicalResult {
        // What a module at the kernelir stage holds: kernelir with the
        // arith, math, memref, gpu and vector dialects it depends on
        // (registered too, so that type aliases before the first op
        // parse), scf's loops and the host's func.func.
        DialectRegistry registry;
        registry.insert<kernelir::KernelIRDialect, scf::SCFDialect,
                        func::FuncDialect, arith::ArithDialect,
                        math::MathDialect, memref::MemRefDialect,
                        gpu::GPUDialect, vector::VectorDialect>();
        context->appendDialectRegistry(registry);
        const llvm::MemoryBuffer *input =
            sources->getMemoryBuffer(sources->getMainFileID());
        // The forms upstream's parser crashes on are diagnosed instead.
        if (failed(rejectKnownParserCrashes(input->getBuffer(),
                                            input->getBufferIdentifier(),
                                            context)))
          return failure();
        OwningOpRef<ModuleOp> module =
            parseSourceFile<ModuleOp>(sources, context);
        if (!module || failed(verify(*module)))
          return failure();
        return renderKernelsAsCUDA(*module, os);
      });
}
