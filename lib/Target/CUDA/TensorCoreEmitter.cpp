// kernelir's tensor-core, asynchronous-copy and mbarrier ops as CUDA: PTX
// in inline assembly (mma.sync, wgmma, ldmatrix, cp.async, mbarrier,
// cp.async.bulk), the operands in the registers and addresses the
// instructions take.

#include "Emitter.h"

using namespace mlir;
using namespace strata;
using namespace strata::cuda;

/// kernelir.mma as PTX: the fragments' registers in order, two halves
/// packed per 32-bit register of A and B (or one f32 rounded to tf32).
LogicalResult cuda::printOperation(CudaEmitter &emitter, kernelir::MmaOp mma) {
  FailureOr<std::string> type = emitter.typeName(mma, mma.getType());
  if (failed(type))
    return failure();
  raw_ostream &os = emitter.ostream();
  emitter.line() << *type << " " << emitter.name(mma) << ";\n";
  Type element = mma.getLhs().getType().getElementType();
  StringRef operands = element.isBF16()  ? "bf16"
                       : element.isF32() ? "tf32"
                                         : "f16";
  emitter.line() << "asm volatile(\"mma.sync.aligned.m16n8k"
                 << kernelir::getMmaK(element) << ".row.col.f32." << operands
                 << "." << operands
                 << ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                    "{%10, %11, %12, %13};\"\n";
  emitter.line() << "    : ";
  for (int i = 0; i < 4; ++i)
    os << (i ? ", " : "") << "\"=f\"(" << emitter.name(mma) << ".v[" << i
       << "])";
  os << "\n";
  // A register: a pair of halves, or one f32 rounded to tf32.
  auto reg = [&](Value fragment, int i) {
    if (element.isF32())
      os << "\"r\"(strata_tf32(" << emitter.name(fragment) << ".v[" << i
         << "]))";
    else
      os << "\"r\"(strata_pack(&" << emitter.name(fragment) << ".v[" << 2 * i
         << "]))";
  };
  emitter.line() << "    : ";
  for (int i = 0; i < 4; ++i) {
    os << (i ? ", " : "");
    reg(mma.getLhs(), i);
  }
  for (int i = 0; i < 2; ++i) {
    os << ", ";
    reg(mma.getRhs(), i);
  }
  for (int i = 0; i < 4; ++i)
    os << ", \"f\"(" << emitter.name(mma.getAcc()) << ".v[" << i << "])";
  os << ");\n";
  return success();
}

/// kernelir.wgmma as PTX (sm_90a): a descriptor per operand and 16 k
/// (strata_wgmma_descriptor), the accumulator's registers in order, read
/// and written ("+f"), between a fence and a wait for none pending.
LogicalResult cuda::printOperation(CudaEmitter &emitter,
                                   kernelir::WgmmaOp mma) {
  FailureOr<std::string> type = emitter.typeName(mma, mma.getType());
  if (failed(type))
    return failure();
  raw_ostream &os = emitter.ostream();
  emitter.line() << *type << " " << emitter.name(mma) << " = "
                 << emitter.name(mma.getAcc()) << ";\n";
  Type element = mma.getLhs().getType().getElementType();
  StringRef operands = element.isBF16() ? "bf16" : "f16";
  int64_t registers = mma.getType().getNumElements();
  // The descriptor of the operand's k16 step at `k`.
  auto address = [&](Value buffer, ValueRange indices, int64_t k,
                     const kernelir::WgmmaLayout &layout) {
    auto type = llvm::cast<MemRefType>(buffer.getType());
    int64_t bytes = type.getElementTypeBitWidth() / 8;
    std::string call = "strata_wgmma_descriptor(&" + emitter.name(buffer) +
                       "[" + emitter.offset(type, indices) + " + " +
                       std::to_string(layout.kOffset(k, bytes) / bytes) +
                       "LL], " + std::to_string(layout.getDescriptorLeading()) +
                       ", " + std::to_string(layout.stride);
    if (layout.swizzle)
      call += ", " + std::to_string(layout.getDescriptorMode());
    return call + ")";
  };
  emitter.line()
      << "asm volatile(\"wgmma.fence.sync.aligned;\" ::: \"memory\");\n";
  for (int64_t k = 0; k < (int64_t)mma.getK() / kernelir::kWgmmaK; ++k) {
    emitter.line() << "asm volatile(\"{ .reg .pred p; setp.ne.b32 p, %"
                   << registers + 2 << ", 0; wgmma.mma_async.sync.aligned.m64n"
                   << mma.getN() << "k16.f32." << operands << "." << operands
                   << " {";
    for (int64_t r = 0; r < registers; ++r)
      os << (r ? ", " : "") << "%" << r;
    os << "}, %" << registers << ", %" << registers + 1 << ", p, 1, 1, 0, "
       << (mma.getRhsMnMajor() ? 1 : 0) << "; }\"\n";
    emitter.line() << "    : ";
    for (int64_t r = 0; r < registers; ++r)
      os << (r ? ", " : "") << "\"+f\"(" << emitter.name(mma) << ".v[" << r
         << "])";
    os << "\n";
    emitter.line() << "    : \"l\"("
                   << address(mma.getLhs(), mma.getLhsIndices(),
                              k * kernelir::kWgmmaK, mma.getLhsLayout())
                   << "), \"l\"("
                   << address(mma.getRhs(), mma.getRhsIndices(),
                              k * kernelir::kWgmmaK, mma.getRhsLayout())
                   << "), \"n\"(1) : \"memory\");\n";
  }
  emitter.line() << "asm volatile(\"wgmma.commit_group.sync.aligned;\" ::: "
                    "\"memory\");\n";
  // An async group's registers are fenced by the wgmma_wait that retires it.
  if (!mma.getAsync())
    emitter.line() << "asm volatile(\"wgmma.wait_group.sync.aligned 0;\" "
                      "::: \"memory\");\n";
  return success();
}

/// kernelir.wgmma_wait as PTX's wait inside an asm that reads and writes
/// the first result's registers ("+f", CUTLASS's warpgroup_fence_operand),
/// the other results' registers passed through empty asms the same way:
/// the compiler reads none of them before the wait, nor copies one while
/// its group may still write it.
LogicalResult cuda::printOperation(CudaEmitter &emitter,
                                   kernelir::WgmmaWaitOp wait) {
  raw_ostream &os = emitter.ostream();
  for (auto [acc, result] :
       llvm::zip_equal(wait.getAccs(), wait.getResults())) {
    FailureOr<std::string> type = emitter.typeName(wait, result.getType());
    if (failed(type))
      return failure();
    emitter.line() << *type << " " << emitter.name(result) << " = "
                   << emitter.name(acc) << ";\n";
  }
  bool first = true;
  for (Value result : wait.getResults()) {
    emitter.line() << "asm volatile(\"";
    if (first)
      os << "wgmma.wait_group.sync.aligned " << wait.getPending() << ";";
    os << "\" : ";
    int64_t registers = cast<VectorType>(result.getType()).getNumElements();
    for (int64_t r = 0; r < registers; ++r)
      os << (r ? ", " : "") << "\"+f\"(" << emitter.name(result) << ".v[" << r
         << "])";
    os << " :: \"memory\");\n";
    first = false;
  }
  if (first) // No accumulators: the wait alone.
    emitter.line() << "asm volatile(\"wgmma.wait_group.sync.aligned "
                   << wait.getPending() << ";\" ::: \"memory\");\n";
  return success();
}

/// kernelir.ldmatrix as PTX's ldmatrix: each lane passes the shared
/// address of the 8 x 8 matrix row it contributes (x4: row lane mod 16,
/// column w (lane / 16); x2: row lane mod 8, column w ((lane / 8) mod 2);
/// w the elements of a 16-byte row; transposed x2: row lane mod 16,
/// column 0, with .trans).
LogicalResult cuda::printOperation(CudaEmitter &emitter,
                                   kernelir::LdMatrixOp load) {
  FailureOr<std::string> type = emitter.typeName(load, load.getType());
  if (failed(type))
    return failure();
  raw_ostream &os = emitter.ostream();
  int64_t registers = load.getNumMatrices(),
          rowsPerHalf = load.getAddressRows();
  MemRefType buffer = load.getMemref().getType();
  emitter.line() << *type << " " << emitter.name(load) << ";\n";
  emitter.line() << "{\n";
  emitter.line() << "  unsigned lane;\n";
  emitter.line() << "  asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane));\n";
  emitter.line() << "  unsigned *r = reinterpret_cast<unsigned *>("
                 << emitter.name(load) << ".v);\n";
  emitter.line() << "  unsigned at = (unsigned)__cvta_generic_to_shared(&"
                 << emitter.name(load.getMemref()) << "["
                 << emitter.offset(buffer, load.getIndices()) << " + (lane % "
                 << rowsPerHalf << ") * " << buffer.getShape().back()
                 << "LL + (lane / " << rowsPerHalf << " % "
                 << load.getAddressColumns() << ") * "
                 << kernelir::getLdMatrixRowElements(
                        load.getType().getElementType())
                 << "]);\n";
  emitter.line() << "  asm volatile(\"ldmatrix.sync.aligned.m8n8.x"
                 << registers << (load.getTranspose() ? ".trans" : "")
                 << ".shared.b16 {";
  for (int64_t i = 0; i < registers; ++i)
    os << (i ? ", " : "") << "%" << i;
  os << "}, [%" << registers << "];\"\n";
  emitter.line() << "      : ";
  for (int64_t i = 0; i < registers; ++i)
    os << (i ? ", " : "") << "\"=r\"(r[" << i << "])";
  os << "\n";
  emitter.line() << "      : \"r\"(at));\n";
  emitter.line() << "}\n";
  return success();
}

/// kernelir.async_copy as PTX's cp.async (.cg, bypassing L1, for 16
/// bytes): a false guard copies 0 bytes from the buffer's start and
/// zero-fills the destination.
LogicalResult cuda::printOperation(CudaEmitter &emitter,
                                   kernelir::AsyncCopyOp copy) {
  int64_t bytes = copy.getBytes();
  std::string source =
      "&" + emitter.name(copy.getSource()) + "[" +
      emitter.offset(copy.getSource().getType(), copy.getSourceIndices()) +
      "]";
  std::string size = std::to_string(bytes);
  if (Value pred = copy.getPred()) {
    source = emitter.name(pred) + " ? " + source + " : " +
             emitter.name(copy.getSource());
    size = emitter.name(pred) + " ? " + size + " : 0";
  }
  emitter.line() << "asm volatile(\"cp.async." << (bytes == 16 ? "cg" : "ca")
                 << ".shared.global [%0], [%1], " << bytes << ", %2;\"\n";
  emitter.line() << "    :: \"r\"((unsigned)__cvta_generic_to_shared(&"
                 << emitter.name(copy.getDest()) << "["
                 << emitter.offset(copy.getDest().getType(),
                                   copy.getDestIndices())
                 << "])), \"l\"(" << source << "), \"r\"(" << size
                 << ") : \"memory\");\n";
  return success();
}

LogicalResult cuda::printOperation(CudaEmitter &emitter,
                                   kernelir::AsyncCommitOp) {
  emitter.line() << "asm volatile(\"cp.async.commit_group;\" ::: "
                    "\"memory\");\n";
  return success();
}

LogicalResult cuda::printOperation(CudaEmitter &emitter,
                                   kernelir::AsyncWaitOp wait) {
  emitter.line() << "asm volatile(\"cp.async.wait_group %0;\" :: \"n\"("
                 << wait.getPending() << ") : \"memory\");\n";
  return success();
}

LogicalResult cuda::printOperation(CudaEmitter &emitter,
                                   kernelir::ProxyFenceOp) {
  emitter.line() << "asm volatile(\"fence.proxy.async.shared::cta;\" ::: "
                    "\"memory\");\n";
  return success();
}

LogicalResult cuda::printOperation(CudaEmitter &emitter,
                                   kernelir::SetMaxRegistersOp op) {
  emitter.line() << "asm volatile(\"setmaxnreg."
                 << (op.getAction() == kernelir::RegisterAction::increase
                         ? "inc"
                         : "dec")
                 << ".sync.aligned.u32 " << op.getCount() << ";\");\n";
  return success();
}

/// The shared-window address of `buffer[indices]`, as PTX's .shared
/// operands take it.
static std::string sharedAddress(CudaEmitter &emitter, Value buffer,
                                 ValueRange indices) {
  return "(unsigned)__cvta_generic_to_shared(&" + emitter.name(buffer) + "[" +
         emitter.offset(cast<MemRefType>(buffer.getType()), indices) + "])";
}

LogicalResult cuda::printOperation(CudaEmitter &emitter,
                                   kernelir::MBarrierInitOp init) {
  emitter.line() << "asm volatile(\"mbarrier.init.shared::cta.b64 [%0], %1;\" "
                    ":: \"r\"("
                 << sharedAddress(emitter, init.getBarriers(),
                                  init.getIndices())
                 << "), \"r\"(" << init.getArrivals() << ") : \"memory\");\n";
  return success();
}

LogicalResult cuda::printOperation(CudaEmitter &emitter,
                                   kernelir::MBarrierArriveOp arrive) {
  std::string barrier =
      sharedAddress(emitter, arrive.getBarriers(), arrive.getIndices());
  if (std::optional<int64_t> bytes = arrive.getExpectTx()) {
    emitter.line() << "asm volatile(\"mbarrier.arrive.expect_tx.shared::cta."
                      "b64 _, [%0], %1;\" :: \"r\"("
                   << barrier << "), \"r\"(" << *bytes << ") : \"memory\");\n";
    return success();
  }
  emitter.line() << "asm volatile(\"mbarrier.arrive.shared::cta.b64 _, [%0];\" "
                    ":: \"r\"("
                 << barrier << ") : \"memory\");\n";
  return success();
}

/// try_wait.parity until it succeeds (each try may suspend the thread for
/// a while; the loop is the wait).
LogicalResult cuda::printOperation(CudaEmitter &emitter,
                                   kernelir::MBarrierWaitOp wait) {
  emitter.line() << "asm volatile(\"{\\n .reg .pred done;\\n waiting:\\n "
                    "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], "
                    "%1;\\n @!done bra waiting;\\n}\"\n";
  emitter.line() << "    :: \"r\"("
                 << sharedAddress(emitter, wait.getBarriers(),
                                  wait.getIndices())
                 << "), \"r\"((unsigned)" << emitter.name(wait.getParity())
                 << ") : \"memory\");\n";
  return success();
}

/// A TMA copy's coordinates in its asm: the placeholders ("%3, %4") of
/// the operands from `first` on, and those operands (", \"r\"((int)v7)
/// ..."), innermost first as the tensor map counts dimensions.
static std::pair<std::string, std::string>
tmaCoordinates(CudaEmitter &emitter, ValueRange indices, int64_t first) {
  std::string placeholders, operands;
  for (auto [d, index] : llvm::enumerate(llvm::reverse(indices))) {
    placeholders += (d ? ", %" : "%") + std::to_string(first + d);
    operands += ", \"r\"((int)" + emitter.name(index) + ")";
  }
  return {placeholders, operands};
}

LogicalResult cuda::printOperation(CudaEmitter &emitter,
                                   kernelir::TmaLoadOp copy) {
  auto [coordinates, operands] =
      tmaCoordinates(emitter, copy.getSourceIndices(), 3);
  int64_t rank = copy.getSourceIndices().size();
  emitter.line() << "asm volatile(\"cp.async.bulk.tensor." << rank
                 << "d.shared::cluster.global.tile.mbarrier::complete_tx::"
                    "bytes [%0], [%1, {"
                 << coordinates << "}], [%2];\"\n";
  emitter.line() << "    :: \"r\"("
                 << sharedAddress(emitter, copy.getDest(),
                                  copy.getDestIndices())
                 << "), \"l\"(&" << emitter.name(copy.getSource())
                 << "), \"r\"("
                 << sharedAddress(emitter, copy.getBarriers(),
                                  copy.getBarrierIndices())
                 << ")" << operands << " : \"memory\");\n";
  return success();
}

LogicalResult cuda::printOperation(CudaEmitter &emitter,
                                   kernelir::TmaStoreOp copy) {
  auto [coordinates, operands] =
      tmaCoordinates(emitter, copy.getDestIndices(), 2);
  int64_t rank = copy.getDestIndices().size();
  emitter.line() << "asm volatile(\"cp.async.bulk.tensor." << rank
                 << "d.global.shared::cta.tile.bulk_group [%0, {" << coordinates
                 << "}], [%1];\"\n";
  emitter.line() << "    :: \"l\"(&" << emitter.name(copy.getDest())
                 << "), \"r\"("
                 << sharedAddress(emitter, copy.getSource(),
                                  copy.getSourceIndices())
                 << ")" << operands << " : \"memory\");\n";
  return success();
}

LogicalResult cuda::printOperation(CudaEmitter &emitter,
                                   kernelir::BulkCommitOp) {
  emitter.line()
      << "asm volatile(\"cp.async.bulk.commit_group;\" ::: \"memory\");\n";
  return success();
}

LogicalResult cuda::printOperation(CudaEmitter &emitter,
                                   kernelir::BulkWaitOp wait) {
  emitter.line() << "asm volatile(\"cp.async.bulk.wait_group"
                 << (wait.getRead() ? ".read" : "") << " %0;\" :: \"n\"("
                 << wait.getPending() << ") : \"memory\");\n";
  return success();
}

LogicalResult cuda::printOperation(CudaEmitter &emitter,
                                   kernelir::BulkCopyOp copy) {
  emitter.line() << "asm volatile(\"cp.async.bulk.shared::cluster.global."
                    "mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\"\n";
  emitter.line()
      << "    :: \"r\"("
      << sharedAddress(emitter, copy.getDest(), copy.getDestIndices())
      << "), \"l\"(&" << emitter.name(copy.getSource()) << "["
      << emitter.offset(copy.getSource().getType(), copy.getSourceIndices())
      << "]), \"r\"(" << copy.getBytes() << "), \"r\"("
      << sharedAddress(emitter, copy.getBarriers(), copy.getBarrierIndices())
      << ") : \"memory\");\n";
  return success();
}
