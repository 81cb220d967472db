// The launch plan of a program lowered by strata-lower-to-nvvm: which
// kernels run in which order on which buffers.

#include "Compiler.h"

#include "strata/Conversion/KernelIRToGPU/KernelIRToGPU.h"
#include "strata/Runtime/Artifact.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using strata::runtime::Artifact;
using strata::runtime::Buffer;

namespace strata::python {

namespace {
std::string dtypeOf(Operation *op, Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  if (s != "f32" && s != "f16" && s != "bf16" && s != "f64" && s != "i64" &&
      s != "i32" && s != "i16" && s != "i8" && s != "i1")
    throw CompilerError("a buffer of " + s + " cannot be in an artifact");
  return s;
}

Buffer bufferFor(Operation *op, MemRefType type, Buffer::Kind kind) {
  Buffer b;
  b.kind = kind;
  b.dtype = dtypeOf(op, type.getElementType());
  b.shape.assign(type.getShape().begin(), type.getShape().end());
  return b;
}

unsigned constantIndex(Value v) {
  auto c = v.getDefiningOp<arith::ConstantIndexOp>();
  if (!c)
    throw CompilerError("a launch size is not a constant");
  return c.value();
}
} // namespace

std::string Module::artifact(const std::string &entry,
                             const std::vector<std::string> &argumentNames,
                             const Module *cubin) const {
  Artifact a;
  auto func = op().lookupSymbol<func::FuncOp>(entry);
  if (!func)
    throw CompilerError("no function @" + entry + " in the module");
  DenseMap<Value, int> ids;
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type)
      throw CompilerError("lower the program with strata-lower-to-nvvm "
                          "before making an artifact");
    Buffer b = bufferFor(func, type, Buffer::Kind::Argument);
    b.argument = i;
    if (i < argumentNames.size())
      b.name = argumentNames[i];
    ids[arg] = a.buffers.size();
    a.buffers.push_back(b);
  }
  for (Operation &op : func.getBody().front()) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      ids[alloc] = a.buffers.size();
      a.buffers.push_back(
          bufferFor(alloc, alloc.getType(), Buffer::Kind::Intermediate));
    } else if (auto get = dyn_cast<memref::GetGlobalOp>(op)) {
      auto global = op.getParentOfType<ModuleOp>().lookupSymbol<memref::GlobalOp>(
          get.getName());
      auto value = global ? dyn_cast_or_null<DenseElementsAttr>(
                                global.getInitialValueAttr())
                          : DenseElementsAttr();
      if (!value)
        throw CompilerError("constant @" + get.getName().str() +
                            " has no dense initial value");
      Buffer b = bufferFor(get, get.getType(), Buffer::Kind::Constant);
      if (value.isSplat() || b.dtype == "i1") {
        for (APInt v : value.getValues<APInt>()) { // One value per element.
          uint64_t word = v.getZExtValue();
          b.data.append(reinterpret_cast<const char *>(&word),
                        Artifact::elementBytes(b.dtype));
        }
        if (isa<FloatType>(value.getElementType())) {
          b.data.clear();
          for (APFloat v : value.getValues<APFloat>()) {
            uint64_t word = v.bitcastToAPInt().getZExtValue();
            b.data.append(reinterpret_cast<const char *>(&word),
                          Artifact::elementBytes(b.dtype));
          }
        }
      } else {
        ArrayRef<char> raw = value.getRawData();
        b.data.assign(raw.begin(), raw.end());
      }
      ids[get] = a.buffers.size();
      a.buffers.push_back(b);
    } else if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      strata::runtime::Launch l;
      l.kernel = launch.getKernelName().str();
      gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
      gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
      l.grid = {constantIndex(grid.x), constantIndex(grid.y),
                constantIndex(grid.z)};
      l.block = {constantIndex(block.x), constantIndex(block.y),
                 constantIndex(block.z)};
      if (Value bytes = launch.getDynamicSharedMemorySize()) {
        auto c = bytes.getDefiningOp<arith::ConstantIntOp>();
        if (!c)
          throw CompilerError("a dynamic shared memory size is not a "
                              "constant");
        l.sharedBytes = c.value();
      }
      for (Value arg : launch.getKernelOperands()) {
        auto it = ids.find(arg);
        if (it == ids.end())
          throw CompilerError("a kernel argument is not a program buffer");
        l.args.push_back(it->second);
      }
      // Parameters that are tensor maps (convert-kernelir-to-gpu lists
      // them on the launch).
      if (auto maps = launch->getAttrOfType<ArrayAttr>(kTensorMapsAttrName))
        for (auto map : maps.getAsRange<DictionaryAttr>()) {
          strata::runtime::TensorMap m;
          m.param = cast<IntegerAttr>(map.get("param")).getInt();
          m.swizzle = cast<IntegerAttr>(map.get("swizzle")).getInt();
          auto box = cast<DenseI64ArrayAttr>(map.get("box")).asArrayRef();
          m.box.assign(box.begin(), box.end());
          auto shape = cast<DenseI64ArrayAttr>(map.get("shape")).asArrayRef();
          m.shape.assign(shape.begin(), shape.end());
          l.tensorMaps.push_back(std::move(m));
        }
      // A wave kernel (convert-kernelir-to-gpu marks its launches).
      if (auto tiles = launch->getAttrOfType<IntegerAttr>(kWaveTilesAttrName))
        l.waveTiles = tiles.getInt();
      a.launches.push_back(l);
    } else if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (Value v : ret.getOperands()) {
        auto it = ids.find(v);
        if (it == ids.end())
          throw CompilerError("a result is not a program buffer");
        a.outputs.push_back(it->second);
      }
    } else if (!isa<arith::ConstantOp>(op)) {
      throw CompilerError("cannot put '" + op.getName().getStringRef().str() +
                          "' in a launch plan");
    }
  }
  for (const GpuObject &o : gpuObjects()) {
    a.target = o.chip;
    if (o.format == "isa")
      a.ptx += o.data;
  }
  if (cubin)
    for (const GpuObject &o : cubin->gpuObjects())
      if (o.format == "bin")
        a.cubin = o.data;
  return a.serialize();
}

} // namespace strata::python
