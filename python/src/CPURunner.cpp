// Runs a tensor-level function on the CPU: wraps it in a buffer-level entry
// point, lowers a copy of the module, JITs it with MLIR's ExecutionEngine.

#include "Compiler.h"

#include "strata/Dialect/Utils/ElementStorage.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/TargetSelect.h"

#include <mutex>

using namespace mlir;

namespace strata::python {

namespace {
constexpr const char *kEntry = "strata_entry";

/// f32 -> bf16, rounding to nearest even (NaN stays NaN). LLVM turns bf16
/// truncations back into calls to compiler-rt's __truncsfbf2 on chips
/// without bf16 instructions, and the JIT has no compiler-rt: it gets this.
extern "C" __bf16 strataTruncSFBF2(float x) {
  uint32_t bits = __builtin_bit_cast(uint32_t, x);
  uint16_t result;
  if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN: keep it quiet.
    result = (uint16_t)((bits >> 16) | 0x40);
  else
    result = (uint16_t)((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
  return __builtin_bit_cast(__bf16, result);
}

/// @strata_entry(%in..., %out...) { out[i] = copy(entry(in...)[i]) }, with
/// a C interface, so the host passes one descriptor per buffer.
void addEntryWrapper(ModuleOp module, func::FuncOp entry) {
  MLIRContext *ctx = module.getContext();
  // Builders need their dialects loaded; the parsed module may not use them.
  ctx->loadDialect<bufferization::BufferizationDialect, func::FuncDialect,
                   memref::MemRefDialect, LLVM::LLVMDialect>();
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  Location loc = entry.getLoc();
  SmallVector<Type> args;
  auto toBuffer = [](Type t) {
    auto tensor = cast<RankedTensorType>(t);
    return MemRefType::get(tensor.getShape(), tensor.getElementType());
  };
  for (Type t : entry.getArgumentTypes())
    args.push_back(toBuffer(t));
  for (Type t : entry.getResultTypes())
    args.push_back(toBuffer(t));
  auto wrapper = func::FuncOp::create(b, loc, kEntry, b.getFunctionType(args, {}));
  wrapper->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                   b.getUnitAttr());
  Block *body = wrapper.addEntryBlock();
  b.setInsertionPointToStart(body);
  SmallVector<Value> tensors;
  for (auto [i, t] : llvm::enumerate(entry.getArgumentTypes()))
    tensors.push_back(bufferization::ToTensorOp::create(
        b, loc, t, body->getArgument(i), /*restrict=*/true));
  auto call = func::CallOp::create(b, loc, entry, tensors);
  for (auto [i, result] : llvm::enumerate(call.getResults())) {
    Value out = body->getArgument(entry.getNumArguments() + i);
    Value buffer = bufferization::ToBufferOp::create(b, loc, out.getType(),
                                                     result);
    memref::CopyOp::create(b, loc, buffer, out);
  }
  func::ReturnOp::create(b, loc);
}

/// A memref descriptor: allocated and aligned pointers, offset, sizes and
/// row-major strides, as the C interface lays it out.
std::vector<int64_t> descriptor(const HostBuffer &buffer) {
  std::vector<int64_t> d = {(int64_t)(intptr_t)buffer.data,
                            (int64_t)(intptr_t)buffer.data, 0};
  d.insert(d.end(), buffer.shape.begin(), buffer.shape.end());
  std::vector<int64_t> strides(buffer.shape.size(), 1);
  for (int64_t i = (int64_t)buffer.shape.size() - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * buffer.shape[i + 1];
  d.insert(d.end(), strides.begin(), strides.end());
  return d;
}
} // namespace

std::unique_ptr<ExecutionEngine>
Module::compileForCPU(const std::string &entryName,
                      const std::string &pipeline) {
  // Lower a copy, so the caller's module stays at its stage.
  std::unique_ptr<Module> copy = Module::parse(str(/*generic=*/true), "<cpu>");
  addEntryWrapper(copy->op(), copy->op().lookupSymbol<func::FuncOp>(entryName));
  (void)copy->run(pipeline);

  // The options refer to the transformer (a function_ref): it must outlive
  // the engine's creation.
  std::function<llvm::Error(llvm::Module *)> transformer =
      makeOptimizingTransformer(/*optLevel=*/2, /*sizeLevel=*/0, nullptr);
  ExecutionEngineOptions options;
  options.transformer = transformer;
  auto engine = ExecutionEngine::create(copy->op(), options);
  if (!engine)
    throw CompilerError("JIT compilation failed: " +
                        llvm::toString(engine.takeError()));
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    symbols[interner("__truncsfbf2")] = {
        llvm::orc::ExecutorAddr::fromPtr(&strataTruncSFBF2),
        llvm::JITSymbolFlags::Exported};
    return symbols;
  });
  return std::move(*engine);
}

void Module::runOnCPU(const std::string &entryName, const std::string &pipeline,
                      const std::vector<HostBuffer> &inputs,
                      const std::vector<HostBuffer> &outputs) {
  static std::once_flag targetsInitialized;
  std::call_once(targetsInitialized, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  auto entry = op().lookupSymbol<func::FuncOp>(entryName);
  if (!entry)
    throw CompilerError("no function @" + entryName + " in the module");
  if (inputs.size() != entry.getNumArguments() ||
      outputs.size() != entry.getNumResults())
    throw CompilerError("@" + entryName + " takes " +
                        std::to_string(entry.getNumArguments()) +
                        " inputs and gives " +
                        std::to_string(entry.getNumResults()) + " results");
  // A buffer of another shape or element than the signature's would be
  // read or written out of bounds, or reinterpreted.
  auto checkBuffers = [&](TypeRange types,
                          const std::vector<HostBuffer> &buffers,
                          const char *what) {
    for (auto [i, pair] : llvm::enumerate(llvm::zip(types, buffers))) {
      auto [t, buffer] = pair;
      auto tensor = cast<RankedTensorType>(t);
      std::string name = std::string(what) + " " + std::to_string(i) +
                         " of @" + entryName;
      if (tensor.getShape() != ArrayRef(buffer.shape))
        throw CompilerError("the shape of " + name +
                            " does not match its signature");
      Type element = tensor.getElementType();
      // bf16 travels as int16 (numpy has no bf16).
      bool isFloat = isa<FloatType>(element) && !element.isBF16();
      if (buffer.itemBytes != getStorageBits(element) / 8 ||
          buffer.isFloat != isFloat) {
        std::string type;
        llvm::raw_string_ostream os(type);
        os << element;
        throw CompilerError("the element type of " + name +
                            " does not match its signature (" + type + ")");
      }
    }
  };
  checkBuffers(entry.getArgumentTypes(), inputs, "input");
  checkBuffers(entry.getResultTypes(), outputs, "result");

  std::unique_ptr<ExecutionEngine> &engine =
      engines[entryName + "\n" + pipeline];
  if (!engine)
    engine = compileForCPU(entryName, pipeline);
  std::vector<std::vector<int64_t>> descriptors;
  for (const HostBuffer &b : inputs)
    descriptors.push_back(descriptor(b));
  for (const HostBuffer &b : outputs)
    descriptors.push_back(descriptor(b));
  // The C interface takes a pointer to each descriptor; invokePacked takes
  // a pointer to each argument.
  std::vector<void *> pointers, args;
  for (auto &d : descriptors)
    pointers.push_back(d.data());
  for (void *&p : pointers)
    args.push_back(&p);
  if (llvm::Error error = engine->invokePacked(
          std::string("_mlir_ciface_") + kEntry, args))
    throw CompilerError("running on the CPU failed: " +
                        llvm::toString(std::move(error)));
}

} // namespace strata::python
