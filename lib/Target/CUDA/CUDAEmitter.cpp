// kernelir -> readable CUDA C++: what people read when a kernel is wrong.

#include "strata/Target/CUDA/CUDAEmitter.h"
#include "strata/Dialect/KernelIR/IR/KernelIR.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"

using namespace mlir;

namespace strata {
namespace {

class Emitter {
public:
  explicit Emitter(raw_ostream &os) : os(os) {}

  LogicalResult emitKernel(kernelir::FuncOp func) {
    os << "extern \"C\" __global__ void __launch_bounds__("
       << func.getNumThreadsPerBlock();
    if (std::optional<int64_t> blocks = func.getMinBlocksPerSm())
      os << ", " << *blocks;
    os << ")\n" << func.getName() << "(";
    for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
      auto buffer = dyn_cast<MemRefType>(arg.getType());
      if (!buffer)
        return func.emitError("cannot render a non-buffer kernel argument");
      std::string type;
      if (failed(typeName(func, buffer.getElementType(), type)))
        return failure();
      os << (i ? ", " : "") << type
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

private:
  std::string name(Value v) {
    auto [it, inserted] = names.try_emplace(v, "");
    if (inserted)
      it->second = (isa<BlockArgument>(v) ? "a" : "v") +
                   std::to_string(names.size() - 1);
    return it->second;
  }

  LogicalResult typeName(Operation *op, Type t, std::string &out) {
    if (t.isIndex() || t.isInteger(64))
      out = "long long";
    else if (t.isInteger(32))
      out = "int";
    else if (t.isInteger(16))
      out = "short";
    else if (t.isInteger(8))
      out = "signed char";
    else if (t.isInteger(1))
      out = "bool";
    else if (t.isF32())
      out = "float";
    else if (t.isF64())
      out = "double";
    else if (t.isF16())
      out = "__half";
    else if (t.isBF16())
      out = "__nv_bfloat16";
    else if (auto vector = dyn_cast<VectorType>(t);
             vector && !vector.isScalable()) { // Flattened, row-major.
      std::string element;
      if (failed(typeName(op, vector.getElementType(), element)))
        return failure();
      out = "strata_vec<" + element + ", " +
            std::to_string(vector.getNumElements()) + ">";
    } else
      return op->emitError("cannot render type ") << t << " as CUDA";
    return success();
  }

  raw_ostream &line() { return os.indent(2 * indent); }

  /// `type name = ` for the result of `op`.
  LogicalResult declare(Operation *op, Value v) {
    std::string type;
    if (failed(typeName(op, v.getType(), type)))
      return failure();
    line() << type << " " << name(v) << " = ";
    return success();
  }

  /// The linear element offset of `indices` in a row-major buffer.
  std::string offset(MemRefType buffer, ValueRange indices) {
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

  /// The element (or vector) of `buffer` at `indices`, as an lvalue of
  /// `type`: a vector reinterprets the buffer at its first element.
  std::string access(Value buffer, ValueRange indices, StringRef type) {
    std::string element =
        name(buffer) + "[" +
        offset(llvm::cast<MemRefType>(buffer.getType()), indices) + "]";
    if (!type.starts_with("strata_vec"))
      return element;
    return "*reinterpret_cast<" + type.str() + " *>(&" + element + ")";
  }

  LogicalResult emitBlock(Block &block) {
    for (Operation &op : block)
      if (failed(emitOp(op)))
        return failure();
    return success();
  }

  LogicalResult binary(Operation &op, StringRef symbol) {
    if (failed(declare(&op, op.getResult(0))))
      return failure();
    os << name(op.getOperand(0)) << " " << symbol << " "
       << name(op.getOperand(1)) << ";\n";
    return success();
  }

  LogicalResult call(Operation &op, StringRef f32, StringRef f64) {
    if (failed(declare(&op, op.getResult(0))))
      return failure();
    bool isF64 = op.getResult(0).getType().isF64();
    os << (isF64 ? f64 : f32) << "(";
    llvm::interleaveComma(op.getOperands(), os,
                          [&](Value v) { os << name(v); });
    os << ");\n";
    return success();
  }

  LogicalResult cast(Operation &op) {
    std::string type;
    if (failed(typeName(&op, op.getResult(0).getType(), type)) ||
        failed(declare(&op, op.getResult(0))))
      return failure();
    os << "(" << type << ")" << name(op.getOperand(0)) << ";\n";
    return success();
  }

  LogicalResult emitOp(Operation &op) {
    return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
        .Case([&](kernelir::ReturnOp) {
          line() << "return;\n";
          return success();
        })
        .Case([&](kernelir::BlockIdOp id) {
          if (failed(declare(&op, id)))
            return failure();
          os << "blockIdx." << kernelir::stringifyDim(id.getDim()) << ";\n";
          return success();
        })
        .Case([&](kernelir::ThreadIdOp id) {
          if (failed(declare(&op, id)))
            return failure();
          os << "threadIdx." << kernelir::stringifyDim(id.getDim()) << ";\n";
          return success();
        })
        .Case<kernelir::LaneIdOp, kernelir::WarpIdOp>([&](auto id) {
          if (failed(declare(&op, id)))
            return failure();
          os << "(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * "
                "threadIdx.z)) "
             << (isa<kernelir::LaneIdOp>(op) ? "% " : "/ ")
             << kernelir::kWarpSize << ";\n";
          return success();
        })
        .Case([&](kernelir::LoadOp load) -> LogicalResult {
          std::string type;
          if (failed(typeName(&op, load.getType(), type)) ||
              failed(declare(&op, load)))
            return failure();
          std::string at = access(load.getMemref(), load.getIndices(), type);
          if (load.getPred())
            os << name(load.getPred()) << " ? " << at << " : " << type
               << "{};\n";
          else
            os << at << ";\n";
          return success();
        })
        .Case([&](kernelir::StoreOp store) -> LogicalResult {
          std::string type;
          if (failed(typeName(&op, store.getValue().getType(), type)))
            return failure();
          line();
          if (store.getPred())
            os << "if (" << name(store.getPred()) << ") ";
          os << access(store.getMemref(), store.getIndices(), type) << " = "
             << name(store.getValue()) << ";\n";
          return success();
        })
        .Case([&](vector::ExtractOp extract) -> LogicalResult {
          ArrayRef<int64_t> position = extract.getStaticPosition();
          auto source = llvm::cast<VectorType>(extract.getSource().getType());
          if (llvm::any_of(position, ShapedType::isDynamic) ||
              failed(declare(&op, extract)))
            return op.emitError("cannot render this vector.extract as CUDA");
          int64_t first = flatIndex(position, source.getShape());
          auto part = dyn_cast<VectorType>(extract.getType());
          if (!part) {
            os << name(extract.getSource()) << ".v[" << first << "];\n";
            return success();
          }
          // A row of the source (an mma accumulator's pair, say).
          os << "{};\n";
          for (int64_t i = 0; i < part.getNumElements(); ++i)
            line() << name(extract) << ".v[" << i
                   << "] = " << name(extract.getSource()) << ".v["
                   << first + i << "];\n";
          return success();
        })
        .Case([&](vector::ToElementsOp split) -> LogicalResult {
          for (auto [i, element] : llvm::enumerate(split.getResults())) {
            if (failed(declare(&op, element)))
              return failure();
            os << name(split.getSource()) << ".v[" << i << "];\n";
          }
          return success();
        })
        .Case([&](vector::InsertOp insert) -> LogicalResult {
          ArrayRef<int64_t> position = insert.getStaticPosition();
          auto dest = llvm::cast<VectorType>(insert.getDest().getType());
          if (llvm::any_of(position, ShapedType::isDynamic) ||
              failed(declare(&op, insert)))
            return op.emitError("cannot render this vector.insert as CUDA");
          os << name(insert.getDest()) << ";\n";
          int64_t first = flatIndex(position, dest.getShape());
          auto part = dyn_cast<VectorType>(insert.getValueToStoreType());
          if (!part) {
            line() << name(insert) << ".v[" << first << "] = "
                   << name(insert.getValueToStore()) << ";\n";
            return success();
          }
          for (int64_t i = 0; i < part.getNumElements(); ++i)
            line() << name(insert) << ".v[" << first + i << "] = "
                   << name(insert.getValueToStore()) << ".v[" << i << "];\n";
          return success();
        })
        .Case([&](kernelir::MmaOp mma) { return emitMma(mma); })
        .Case([&](kernelir::WgmmaOp mma) { return emitWgmma(mma); })
        .Case([&](kernelir::ProxyFenceOp) {
          line() << "asm volatile(\"fence.proxy.async.shared::cta;\" ::: "
                    "\"memory\");\n";
          return success();
        })
        .Case([&](kernelir::LdMatrixOp load) { return emitLdMatrix(load); })
        .Case([&](kernelir::AsyncCopyOp copy) { return emitAsyncCopy(copy); })
        .Case([&](kernelir::AsyncCommitOp) {
          line() << "asm volatile(\"cp.async.commit_group;\" ::: "
                    "\"memory\");\n";
          return success();
        })
        .Case([&](kernelir::AsyncWaitOp wait) {
          line() << "asm volatile(\"cp.async.wait_group %0;\" :: \"n\"("
                 << wait.getPending() << ") : \"memory\");\n";
          return success();
        })
        .Case([&](vector::FromElementsOp build) -> LogicalResult {
          if (failed(declare(&op, build)))
            return failure();
          os << "{{";
          llvm::interleaveComma(build.getElements(), os,
                                [&](Value v) { os << name(v); });
          os << "}};\n";
          return success();
        })
        .Case([&](kernelir::SharedOp shared) -> LogicalResult {
          std::string type;
          if (failed(typeName(&op, shared.getType().getElementType(), type)))
            return failure();
          auto kernel = shared->getParentOfType<kernelir::FuncOp>();
          auto [offsets, bytes] = kernel.getSharedLayout();
          if (bytes <= kernelir::kMaxStaticSharedBytes) {
            line() << "__shared__ __align__(" << kernelir::kSharedAlignment
                   << ") " << type << " " << name(shared) << "["
                   << shared.getType().getNumElements() << "];\n";
            return success();
          }
          // Beyond static shared memory: views of the dynamic shared
          // memory the launch must request (`bytes`).
          auto buffers = kernel.getBody().front().getOps<kernelir::SharedOp>();
          int64_t i = std::distance(buffers.begin(),
                                    llvm::find(buffers, shared));
          if (i == 0)
            line() << "extern __shared__ __align__("
                   << kernelir::kSharedAlignment
                   << ") unsigned char strata_dynamic_shared[]; // launch "
                      "with "
                   << bytes << " bytes of dynamic shared memory\n";
          line() << type << " *" << name(shared) << " = reinterpret_cast<"
                 << type << " *>(strata_dynamic_shared + " << offsets[i]
                 << ");\n";
          return success();
        })
        .Case([&](kernelir::BarrierOp) {
          line() << "__syncthreads();\n";
          return success();
        })
        .Case([&](kernelir::ShuffleOp shuffle) -> LogicalResult {
          if (failed(declare(&op, shuffle)))
            return failure();
          os << shuffleFunction(shuffle.getMode()) << "(0xffffffffu, "
             << name(shuffle.getValue()) << ", " << name(shuffle.getOffset())
             << ");\n";
          return success();
        })
        .Case([&](arith::ConstantOp c) -> LogicalResult {
          Attribute value = c.getValue();
          std::string type;
          // A vector constant is a splat (zero accumulators, fragments).
          if (auto splat = dyn_cast<SplatElementsAttr>(value)) {
            std::string element;
            if (failed(typeName(&op, splat.getElementType(), element)) ||
                failed(typeName(&op, c.getType(), type)))
              return failure();
            value = splat.getSplatValue<Attribute>();
          }
          std::string text;
          if (failed(literal(&op, value, text)) || failed(declare(&op, c)))
            return failure();
          if (!type.empty())
            os << "strata_splat<" << type << ">(" << text << ");\n";
          else
            os << text << ";\n";
          return success();
        })
        .Case<arith::AddIOp, arith::AddFOp>([&](auto) { return binary(op, "+"); })
        .Case<arith::SubIOp, arith::SubFOp>([&](auto) { return binary(op, "-"); })
        .Case<arith::MulIOp, arith::MulFOp>([&](auto) { return binary(op, "*"); })
        .Case<arith::DivSIOp, arith::DivUIOp, arith::DivFOp>(
            [&](auto) { return binary(op, "/"); })
        .Case<arith::RemSIOp, arith::RemUIOp>([&](auto) { return binary(op, "%"); })
        .Case<arith::AndIOp>([&](auto) { return binary(op, "&"); })
        .Case<arith::OrIOp>([&](auto) { return binary(op, "|"); })
        .Case<arith::XOrIOp>([&](auto) { return binary(op, "^"); })
        .Case<arith::ShLIOp>([&](auto) { return binary(op, "<<"); })
        .Case<arith::ShRSIOp>([&](auto) { return binary(op, ">>"); })
        .Case([&](arith::BitcastOp c) -> LogicalResult {
          std::string type;
          if (failed(typeName(&op, c.getType(), type)) ||
              failed(declare(&op, c.getResult())))
            return failure();
          os << "strata_bitcast<" << type << ">(" << name(c.getIn())
             << ");\n";
          return success();
        })
        .Case([&](arith::NegFOp n) {
          if (failed(declare(&op, n)))
            return failure();
          os << "-" << name(n.getOperand()) << ";\n";
          return success();
        })
        .Case([&](arith::CmpIOp cmp) { return binary(op, cmpSymbol(cmp)); })
        .Case([&](arith::CmpFOp cmp) -> LogicalResult {
          if (failed(declare(&op, cmp)))
            return failure();
          std::string a = name(cmp.getLhs()), b = name(cmp.getRhs());
          using P = arith::CmpFPredicate;
          switch (cmp.getPredicate()) {
          case P::OEQ: os << a << " == " << b; break;
          case P::UNE: os << "!(" << a << " == " << b << ")"; break;
          case P::OLT: os << a << " < " << b; break;
          case P::OLE: os << a << " <= " << b; break;
          case P::OGT: os << a << " > " << b; break;
          case P::OGE: os << a << " >= " << b; break;
          case P::UNO: os << "(" << a << " != " << a << " || " << b << " != " << b << ")"; break;
          case P::ORD: os << "(" << a << " == " << a << " && " << b << " == " << b << ")"; break;
          default:
            return op.emitError("cannot render this float comparison as CUDA");
          }
          os << ";\n";
          return success();
        })
        .Case([&](arith::SelectOp s) {
          if (failed(declare(&op, s)))
            return failure();
          os << name(s.getCondition()) << " ? " << name(s.getTrueValue())
             << " : " << name(s.getFalseValue()) << ";\n";
          return success();
        })
        .Case<arith::MaximumFOp>([&](auto) { return call(op, "strata_maximumf", "strata_maximum"); })
        .Case<arith::MinimumFOp>([&](auto) { return call(op, "strata_minimumf", "strata_minimum"); })
        .Case<arith::MaxSIOp>([&](auto) { return call(op, "max", "max"); })
        .Case<arith::MinSIOp>([&](auto) { return call(op, "min", "min"); })
        .Case<arith::IndexCastOp, arith::SIToFPOp, arith::UIToFPOp,
              arith::FPToSIOp, arith::ExtFOp, arith::TruncFOp, arith::ExtSIOp,
              arith::ExtUIOp, arith::TruncIOp>([&](auto) { return cast(op); })
        .Case<math::ExpOp>([&](auto) { return call(op, "expf", "exp"); })
        .Case<math::LogOp>([&](auto) { return call(op, "logf", "log"); })
        .Case<math::SqrtOp>([&](auto) { return call(op, "sqrtf", "sqrt"); })
        .Case<math::RsqrtOp>([&](auto) { return call(op, "rsqrtf", "rsqrt"); })
        .Case<math::TanhOp>([&](auto) { return call(op, "tanhf", "tanh"); })
        .Case<math::ErfOp>([&](auto) { return call(op, "erff", "erf"); })
        .Case<math::ErfcOp>([&](auto) { return call(op, "erfcf", "erfc"); })
        .Case<math::Exp2Op>([&](auto) { return call(op, "exp2f", "exp2"); })
        .Case<math::ExpM1Op>([&](auto) { return call(op, "expm1f", "expm1"); })
        .Case<math::Log2Op>([&](auto) { return call(op, "log2f", "log2"); })
        .Case<math::Log10Op>([&](auto) { return call(op, "log10f", "log10"); })
        .Case<math::Log1pOp>([&](auto) { return call(op, "log1pf", "log1p"); })
        .Case<math::SinOp>([&](auto) { return call(op, "sinf", "sin"); })
        .Case<math::CosOp>([&](auto) { return call(op, "cosf", "cos"); })
        .Case<math::TanOp>([&](auto) { return call(op, "tanf", "tan"); })
        .Case<math::AsinOp>([&](auto) { return call(op, "asinf", "asin"); })
        .Case<math::AcosOp>([&](auto) { return call(op, "acosf", "acos"); })
        .Case<math::AtanOp>([&](auto) { return call(op, "atanf", "atan"); })
        .Case<math::Atan2Op>([&](auto) { return call(op, "atan2f", "atan2"); })
        .Case<math::SinhOp>([&](auto) { return call(op, "sinhf", "sinh"); })
        .Case<math::CoshOp>([&](auto) { return call(op, "coshf", "cosh"); })
        .Case<math::AsinhOp>([&](auto) { return call(op, "asinhf", "asinh"); })
        .Case<math::AcoshOp>([&](auto) { return call(op, "acoshf", "acosh"); })
        .Case<math::AtanhOp>([&](auto) { return call(op, "atanhf", "atanh"); })
        .Case<math::FloorOp>([&](auto) { return call(op, "floorf", "floor"); })
        .Case<math::CeilOp>([&](auto) { return call(op, "ceilf", "ceil"); })
        .Case<math::RoundEvenOp>([&](auto) { return call(op, "rintf", "rint"); })
        .Case<math::TruncOp>([&](auto) { return call(op, "truncf", "trunc"); })
        .Case<arith::RemFOp>([&](auto) { return call(op, "fmodf", "fmod"); })
        .Case<math::AbsFOp>([&](auto) { return call(op, "fabsf", "fabs"); })
        .Case<math::AbsIOp>([&](auto) { return call(op, "llabs", "llabs"); })
        .Case<math::PowFOp>([&](auto) { return call(op, "powf", "pow"); })
        .Case<math::FmaOp>([&](auto) { return call(op, "fmaf", "fma"); })
        .Case([&](scf::ForOp loop) { return emitFor(loop); })
        .Case([&](scf::IfOp branch) { return emitIf(branch); })
        .Case([&](scf::YieldOp yield) {
          for (auto [target, value] :
               llvm::zip(yieldTargets.back(), yield.getOperands()))
            line() << name(target) << " = " << name(value) << ";\n";
          return success();
        })
        .Default([&](Operation *other) {
          return other->emitError("cannot render '")
                 << other->getName() << "' as CUDA";
        });
  }

  /// A scalar constant as a C++ literal.
  LogicalResult literal(Operation *op, Attribute value, std::string &out) {
    llvm::raw_string_ostream text(out);
    if (auto i = dyn_cast<IntegerAttr>(value)) {
      if (i.getType().isInteger(1))
        text << (i.getValue().isZero() ? "false" : "true");
      else
        text << i.getValue().getSExtValue() << "LL";
      return success();
    }
    if (auto f = dyn_cast<FloatAttr>(value)) {
      double d = f.getValueAsDouble();
      if (std::isinf(d))
        text << (d < 0 ? "-INFINITY" : "INFINITY");
      else if (std::isnan(d))
        text << "NAN";
      else
        text << llvm::format("%.9g", d);
      return success();
    }
    return op->emitError("cannot render this constant as CUDA");
  }

  /// The flat index of `position` (a prefix of indices) in a row-major
  /// vector of `shape`.
  static int64_t flatIndex(ArrayRef<int64_t> position,
                           ArrayRef<int64_t> shape) {
    SmallVector<int64_t> strides = computeSuffixProduct(shape);
    return linearize(position, ArrayRef(strides).take_front(position.size()));
  }

  /// kernelir.mma as PTX: the fragments' registers in order, two halves
  /// packed per 32-bit register of A and B (or one f32 rounded to tf32).
  LogicalResult emitMma(kernelir::MmaOp mma) {
    std::string type;
    if (failed(typeName(mma, mma.getType(), type)))
      return failure();
    line() << type << " " << name(mma) << ";\n";
    Type element = mma.getLhs().getType().getElementType();
    StringRef operands = element.isBF16()  ? "bf16"
                         : element.isF32() ? "tf32"
                                           : "f16";
    line() << "asm volatile(\"mma.sync.aligned.m16n8k"
           << kernelir::getMmaK(element) << ".row.col.f32." << operands << "."
           << operands
           << ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, "
              "%12, %13};\"\n";
    line() << "    : ";
    for (int i = 0; i < 4; ++i)
      os << (i ? ", " : "") << "\"=f\"(" << name(mma) << ".v[" << i << "])";
    os << "\n";
    // A register: a pair of halves, or one f32 rounded to tf32.
    auto reg = [&](Value fragment, int i) {
      if (element.isF32())
        os << "\"r\"(strata_tf32(" << name(fragment) << ".v[" << i << "]))";
      else
        os << "\"r\"(strata_pack(&" << name(fragment) << ".v[" << 2 * i
           << "]))";
    };
    line() << "    : ";
    for (int i = 0; i < 4; ++i) {
      os << (i ? ", " : "");
      reg(mma.getLhs(), i);
    }
    for (int i = 0; i < 2; ++i) {
      os << ", ";
      reg(mma.getRhs(), i);
    }
    for (int i = 0; i < 4; ++i)
      os << ", \"f\"(" << name(mma.getAcc()) << ".v[" << i << "])";
    os << ");\n";
    return success();
  }

  /// kernelir.wgmma as PTX (sm_90a): a descriptor per operand and 16 k
  /// (strata_wgmma_descriptor), the accumulator's registers in order, read
  /// and written ("+f"), between a fence and a wait for none pending.
  LogicalResult emitWgmma(kernelir::WgmmaOp mma) {
    std::string type;
    if (failed(typeName(mma, mma.getType(), type)))
      return failure();
    line() << type << " " << name(mma) << " = " << name(mma.getAcc()) << ";\n";
    Type element = mma.getLhs().getType().getElementType();
    StringRef operands = element.isBF16() ? "bf16" : "f16";
    int64_t registers = mma.getType().getNumElements();
    // Where the operand's k block `kBlock` starts.
    auto address = [&](Value buffer, ValueRange indices, int64_t kBlock) {
      auto type = llvm::cast<MemRefType>(buffer.getType());
      kernelir::WgmmaStrides strides = kernelir::getWgmmaStrides(type);
      int64_t bytes = type.getElementTypeBitWidth() / 8;
      return "strata_wgmma_descriptor(&" + name(buffer) + "[" +
             offset(type, indices) + " + " +
             std::to_string(kBlock * strides.leading / bytes) + "LL], " +
             std::to_string(strides.leading) + ", " +
             std::to_string(strides.stride) + ")";
    };
    int64_t blocksPerStep =
        kernelir::kWgmmaK / kernelir::getLdMatrixRowElements(element);
    line() << "asm volatile(\"wgmma.fence.sync.aligned;\" ::: \"memory\");\n";
    for (int64_t k = 0; k < (int64_t)mma.getK() / kernelir::kWgmmaK; ++k) {
      line() << "asm volatile(\"{ .reg .pred p; setp.ne.b32 p, %"
             << registers + 2 << ", 0; wgmma.mma_async.sync.aligned.m64n"
             << mma.getN() << "k16.f32." << operands << "." << operands
             << " {";
      for (int64_t r = 0; r < registers; ++r)
        os << (r ? ", " : "") << "%" << r;
      os << "}, %" << registers << ", %" << registers + 1
         << ", p, 1, 1, 0, 0; }\"\n";
      line() << "    : ";
      for (int64_t r = 0; r < registers; ++r)
        os << (r ? ", " : "") << "\"+f\"(" << name(mma) << ".v[" << r << "])";
      os << "\n";
      line() << "    : \"l\"("
             << address(mma.getLhs(), mma.getLhsIndices(), k * blocksPerStep)
             << "), \"l\"("
             << address(mma.getRhs(), mma.getRhsIndices(), k * blocksPerStep)
             << "), \"n\"(1) : \"memory\");\n";
    }
    line() << "asm volatile(\"wgmma.commit_group.sync.aligned;\" ::: "
              "\"memory\");\n";
    line() << "asm volatile(\"wgmma.wait_group.sync.aligned 0;\" ::: "
              "\"memory\");\n";
    return success();
  }

  /// kernelir.ldmatrix as PTX's ldmatrix: each lane passes the shared
  /// address of the 8 x 8 matrix row it contributes (x4: row lane mod 16,
  /// column w (lane / 16); x2: row lane mod 8, column w ((lane / 8) mod 2);
  /// w the elements of a 16-byte row; transposed x2: row lane mod 16,
  /// column 0, with .trans).
  LogicalResult emitLdMatrix(kernelir::LdMatrixOp load) {
    std::string type;
    if (failed(typeName(load, load.getType(), type)))
      return failure();
    int64_t registers = load.getNumMatrices(),
            rowsPerHalf = load.getAddressRows();
    MemRefType buffer = load.getMemref().getType();
    line() << type << " " << name(load) << ";\n";
    line() << "{\n";
    line() << "  unsigned lane;\n";
    line() << "  asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane));\n";
    line() << "  unsigned *r = reinterpret_cast<unsigned *>(" << name(load)
           << ".v);\n";
    line() << "  unsigned at = (unsigned)__cvta_generic_to_shared(&"
           << name(load.getMemref()) << "["
           << offset(buffer, load.getIndices()) << " + (lane % "
           << rowsPerHalf << ") * " << buffer.getShape().back()
           << "LL + (lane / " << rowsPerHalf << " % "
           << load.getAddressColumns() << ") * "
           << kernelir::getLdMatrixRowElements(load.getType().getElementType())
           << "]);\n";
    line() << "  asm volatile(\"ldmatrix.sync.aligned.m8n8.x" << registers
           << (load.getTranspose() ? ".trans" : "") << ".shared.b16 {";
    for (int64_t i = 0; i < registers; ++i)
      os << (i ? ", " : "") << "%" << i;
    os << "}, [%" << registers << "];\"\n";
    line() << "      : ";
    for (int64_t i = 0; i < registers; ++i)
      os << (i ? ", " : "") << "\"=r\"(r[" << i << "])";
    os << "\n";
    line() << "      : \"r\"(at));\n";
    line() << "}\n";
    return success();
  }

  /// kernelir.async_copy as PTX's cp.async (.cg, bypassing L1, for 16
  /// bytes): a false guard copies 0 bytes from the buffer's start and
  /// zero-fills the destination.
  LogicalResult emitAsyncCopy(kernelir::AsyncCopyOp copy) {
    int64_t bytes = copy.getBytes();
    std::string source = "&" + name(copy.getSource()) + "[" +
                         offset(copy.getSource().getType(),
                                copy.getSourceIndices()) +
                         "]";
    std::string size = std::to_string(bytes);
    if (Value pred = copy.getPred()) {
      source = name(pred) + " ? " + source + " : " + name(copy.getSource());
      size = name(pred) + " ? " + size + " : 0";
    }
    line() << "asm volatile(\"cp.async." << (bytes == 16 ? "cg" : "ca")
           << ".shared.global [%0], [%1], " << bytes << ", %2;\"\n";
    line() << "    :: \"r\"((unsigned)__cvta_generic_to_shared(&"
           << name(copy.getDest()) << "["
           << offset(copy.getDest().getType(), copy.getDestIndices())
           << "])), \"l\"(" << source << "), \"r\"(" << size
           << ") : \"memory\");\n";
    return success();
  }

  /// The whole warp takes part in every shuffle (full mask).
  static StringRef shuffleFunction(kernelir::ShuffleMode mode) {
    switch (mode) {
    case kernelir::ShuffleMode::XOR: return "__shfl_xor_sync";
    case kernelir::ShuffleMode::DOWN: return "__shfl_down_sync";
    case kernelir::ShuffleMode::UP: return "__shfl_up_sync";
    case kernelir::ShuffleMode::IDX: return "__shfl_sync";
    }
    return "__shfl_sync";
  }

  static StringRef cmpSymbol(arith::CmpIOp cmp) {
    using P = arith::CmpIPredicate;
    switch (cmp.getPredicate()) {
    case P::eq: return "==";
    case P::ne: return "!=";
    case P::slt: case P::ult: return "<";
    case P::sle: case P::ule: return "<=";
    case P::sgt: case P::ugt: return ">";
    case P::sge: case P::uge: return ">=";
    }
    return "==";
  }

  /// Loop-carried and branch results live in variables declared before the
  /// construct; scf.yield assigns them.
  LogicalResult declareResults(Operation *op, ValueRange results,
                               ValueRange inits) {
    for (auto [i, r] : llvm::enumerate(results)) {
      std::string type;
      if (failed(typeName(op, r.getType(), type)))
        return failure();
      line() << type << " " << name(r);
      if (!inits.empty())
        os << " = " << name(inits[i]);
      os << ";\n";
    }
    return success();
  }

  LogicalResult emitFor(scf::ForOp loop) {
    if (failed(declareResults(loop, loop.getResults(), loop.getInitArgs())))
      return failure();
    // The body's block arguments name the loop-carried variables.
    for (auto [arg, result] :
         llvm::zip(loop.getRegionIterArgs(), loop.getResults()))
      names[arg] = name(result);
    std::string iv = name(loop.getInductionVar());
    line() << "for (long long " << iv << " = " << name(loop.getLowerBound())
           << "; " << iv << " < " << name(loop.getUpperBound()) << "; " << iv
           << " += " << name(loop.getStep()) << ") {\n";
    ++indent;
    yieldTargets.push_back(SmallVector<Value>(loop.getResults()));
    LogicalResult result = emitBlock(*loop.getBody());
    yieldTargets.pop_back();
    --indent;
    line() << "}\n";
    return result;
  }

  LogicalResult emitIf(scf::IfOp branch) {
    if (failed(declareResults(branch, branch.getResults(), {})))
      return failure();
    line() << "if (" << name(branch.getCondition()) << ") {\n";
    yieldTargets.push_back(SmallVector<Value>(branch.getResults()));
    ++indent;
    LogicalResult result = emitBlock(*branch.thenBlock());
    --indent;
    if (succeeded(result) && branch.elseBlock()) {
      line() << "} else {\n";
      ++indent;
      result = emitBlock(*branch.elseBlock());
      --indent;
    }
    yieldTargets.pop_back();
    line() << "}\n";
    return result;
  }

  raw_ostream &os;
  unsigned indent = 0;
  DenseMap<Value, std::string> names;
  SmallVector<SmallVector<Value>> yieldTargets;
};
} // namespace

LogicalResult renderKernelsAsCUDA(ModuleOp module, raw_ostream &os) {
  os << "// CUDA C++ rendering of Strata's kernelir (generated).\n"
        "#include <cuda_bf16.h>\n#include <cuda_fp16.h>\n#include <math.h>\n\n"
        "// N neighbouring elements, aligned to their size: one vector access\n"
        "// (ld.global.v4 for 4 floats).\n"
        "template <typename T, int N> struct alignas(sizeof(T) * N) strata_vec {\n"
        "  T v[N];\n};\n"
        "template <typename V, typename T> __device__ inline V strata_splat(T x) {\n"
        "  V r;\n  for (auto &e : r.v) e = x;\n  return r;\n}\n"
        "// Two 16-bit elements as one 32-bit register of an mma fragment.\n"
        "template <typename T> __device__ inline unsigned strata_pack(const T *pair) {\n"
        "  return *reinterpret_cast<const unsigned *>(pair);\n}\n"
        "// An f32 rounded to tf32 (to nearest, ties away), as an mma operand.\n"
        "__device__ inline unsigned strata_tf32(float x) {\n"
        "  unsigned r;\n"
        "  asm(\"cvt.rna.tf32.f32 %0, %1;\" : \"=r\"(r) : \"f\"(x));\n"
        "  return r;\n}\n\n"
        "// A wgmma shared-memory matrix descriptor without swizzling: the\n"
        "// address and the bytes between core matrices neighbouring in k\n"
        "// (leading) and in rows (stride), each in 16-byte units.\n"
        "__device__ inline unsigned long long strata_wgmma_descriptor(\n"
        "    const void *p, unsigned long long leading, unsigned long long stride) {\n"
        "  unsigned long long a = __cvta_generic_to_shared(p);\n"
        "  return ((a & 0x3FFFF) >> 4) | ((leading >> 4) << 16) | ((stride >> 4) << 32);\n"
        "}\n\n"
        "// A value's bits as another type of the same width.\n"
        "template <typename To, typename From>\n"
        "__device__ inline To strata_bitcast(From from) {\n"
        "  To to;\n  memcpy(&to, &from, sizeof(To));\n  return to;\n}\n\n"
        "// NaN-propagating max/min, like torch.maximum and arith.maximumf.\n"
        "__device__ inline float strata_maximumf(float a, float b) {\n"
        "  return (a != a || b != b) ? NAN : fmaxf(a, b);\n}\n"
        "__device__ inline float strata_minimumf(float a, float b) {\n"
        "  return (a != a || b != b) ? NAN : fminf(a, b);\n}\n"
        "__device__ inline double strata_maximum(double a, double b) {\n"
        "  return (a != a || b != b) ? NAN : fmax(a, b);\n}\n"
        "__device__ inline double strata_minimum(double a, double b) {\n"
        "  return (a != a || b != b) ? NAN : fmin(a, b);\n}\n\n";
  for (auto func : module.getOps<kernelir::FuncOp>())
    if (failed(Emitter(os).emitKernel(func)))
      return failure();
  return success();
}

} // namespace strata
