// The traffic model of scheduled tile programs (see TrafficModel.h).
//
// Each global access (a tile load or store at the top of the kernel, a
// scalar loopir.load or loopir.store in one of its regions) reads or writes
// a box: per domain dimension, the whole extent when the access depends on
// it and one tile's worth otherwise, repeated per program along it; per
// inner index (a fold's or distribute's point, a contraction's k, a loop
// nested in a generic program), its extent when the access depends on it.
// FLOPs are counted per float op (a primitive fold's combiner included),
// times the points it runs at.

#include "strata/Dialect/TileIR/Analysis/TrafficModel.h"

#include "strata/Dialect/LoopIR/IR/LoopIR.h"
#include "strata/Dialect/TileIR/IR/CompositeMonoids.h"
#include "strata/Dialect/Utils/ElementStorage.h"
#include "strata/Dialect/Utils/ScheduleModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>

using namespace mlir;
using namespace strata;
using namespace strata::tileir;

double KernelTraffic::seconds(const Roofline &roofline) const {
  double peak = unit == MathUnit::Half   ? roofline.halfFlopsPerSecond
                : unit == MathUnit::TF32 ? roofline.tf32FlopsPerSecond
                                         : roofline.f32FlopsPerSecond;
  double busy = std::clamp<double>(
      (double)programs / (double)roofline.multiprocessors, 1e-9, 1.0);
  return std::max(bytes() / roofline.bytesPerSecond, flops / peak) / busy;
}

namespace {

double typeBytes(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return 0;
  return (double)shaped.getNumElements() *
         llvm::divideCeil(getStorageBits(shaped.getElementType()), 8);
}

/// What an index ranges over: a domain dimension, or an inner index of
/// some extent (identified by its block argument).
struct Source {
  int64_t dim = -1; // >= 0: a domain dimension.
  Value inner;      // Otherwise: an inner index.
  int64_t extent = 1;
  bool operator<(const Source &o) const {
    return std::make_tuple(dim, extent, inner.getAsOpaquePointer()) <
           std::make_tuple(o.dim, o.extent, o.inner.getAsOpaquePointer());
  }
};

/// Whether `fold` is attention's online softmax over a Q tile whose
/// products the kernel takes on tensor cores (TensorCoreFlashFold.cpp
/// decides with the schedule's chunks and warps in view; the model
/// approximates): rows tiled by 16, scores summing products of widened
/// halves, an output row of a multiple of kTensorCoreFlashRowMultiple up to
/// kMaxTensorCoreFlashRowLength.
static bool isTensorCoreFlashFold(CompositeFoldOp fold, KernelOp kernel) {
  unsigned n = fold.getNumResults();
  Builder attrs(fold->getContext());
  SmallVector<TypedAttr> identity;
  for (Attribute a : fold.getIdentities())
    identity.push_back(cast<TypedAttr>(a));
  int64_t width = (int64_t)n - 2;
  int64_t rows = 1;
  for (int64_t t : kernel.getTile())
    rows *= t;
  if (n < 3 || identity != onlineSoftmaxIdentity(attrs, n - 1) ||
      rows % 16 != 0 || !isTensorCoreFlashRow(width))
    return false;
  auto widensHalf = [](Value v) {
    auto ext = v.getDefiningOp<arith::ExtFOp>();
    return ext &&
           (ext.getIn().getType().isF16() || ext.getIn().getType().isBF16());
  };
  for (auto sum : fold.getBody().getOps<loopir::ReduceOp>()) {
    auto product = sum.getBody()
                       .front()
                       .getTerminator()
                       ->getOperand(0)
                       .getDefiningOp<arith::MulFOp>();
    if (product && widensHalf(product.getLhs()) && widensHalf(product.getRhs()))
      return true;
  }
  return false;
}

class KernelModel {
public:
  KernelModel(KernelOp kernel) : kernel(kernel) {
    ArrayRef<int64_t> domain = kernel.getDomain(), tile = kernel.getTile();
    for (auto [d, t] : llvm::zip(domain, tile))
      programsAlong.push_back(llvm::divideCeil(d, t));
  }

  KernelTraffic run(bool tensorCores, bool tf32) {
    KernelTraffic result;
    // A block per tile, or a persistent kernel's instances.
    result.programs = kernel.getNumInstances();
    kernel.getBody().walk([&](Operation *op) { visit(op, result); });
    // Global memory serves each buffer's touched elements once: at most
    // the buffer, at most what the tiles request of it.
    for (auto &[buffer, requested] : requestedRead)
      result.bytesRead += std::min(requested, typeBytes(buffer.getType()));
    for (auto &[buffer, requested] : requestedWritten)
      result.bytesWritten += std::min(requested, typeBytes(buffer.getType()));
    for (ContractOp contract : kernel.getBody().getOps<ContractOp>()) {
      Type operand = contract.getTensorCoreOperandType(tf32);
      if (tensorCores && operand)
        result.unit = operand.isF32() ? MathUnit::TF32 : MathUnit::Half;
    }
    for (auto fold : kernel.getBody().getOps<CompositeFoldOp>())
      if (tensorCores && isTensorCoreFlashFold(fold, kernel))
        result.unit = MathUnit::Half;
    return result;
  }

private:
  /// The points at which ops directly in `block` run, over the whole
  /// domain: every domain point, times the extents of the inner indices
  /// around them.
  double points(Block *block) {
    double n = domainPoints();
    for (Operation *p = block->getParentOp(); p && p != kernel;
         p = p->getParentOp()) {
      if (auto loop = getCooperativeLoop(p))
        n *= product(loop->second); // The combine region runs per point too.
      else if (auto reduce = dyn_cast<loopir::ReduceOp>(p))
        n *= product(reduce.getBounds());
      else if (auto nest = dyn_cast<loopir::ParallelOp>(p))
        n *= product(nest.getBounds());
      else if (auto contract = dyn_cast<ContractOp>(p)) {
        // Each operand element is staged once per program along the
        // dimension the operand lacks.
        size_t rank = programsAlong.size();
        bool lhs = block->getParent() == &contract.getLhs();
        int64_t dropped = lhs ? rank - 1 : rank - 2;
        n = n / kernel.getDomain()[dropped] * programsAlong[dropped] *
            contract.getK();
      }
    }
    return n;
  }

  double domainPoints() { return product(kernel.getDomain()); }

  static double product(ArrayRef<int64_t> values) {
    double n = 1;
    for (int64_t v : values)
      n *= v;
    return n;
  }

  /// What `index` ranges over; computed indices range over everything
  /// their operands do.
  void sources(Value index, std::set<Source> &out) {
    if (auto arg = dyn_cast<BlockArgument>(index)) {
      Operation *owner = arg.getOwner()->getParentOp();
      unsigned n = arg.getArgNumber();
      size_t rank = programsAlong.size();
      if (isa<ForEachPointOp>(owner)) {
        out.insert({(int64_t)n, {}, 1});
      } else if (auto map = dyn_cast<MapOp>(owner)) {
        // An element of an input tile: what that tile's elements range over.
        sources(map.getInputs()[n], out);
      } else if (auto contract = dyn_cast<ContractOp>(owner)) {
        // (dims without the dropped one..., k).
        bool lhs = arg.getParentRegion() == &contract.getLhs();
        int64_t dropped = lhs ? rank - 1 : rank - 2;
        if (n + 1 == rank)
          out.insert({-1, index, (int64_t)contract.getK()});
        else
          out.insert({(int64_t)(n < (unsigned)dropped ? n : n + 1), {}, 1});
      } else if (isa<ScanOp, CompositeScanOp>(owner)) {
        // The point's index, or a prefix (an integer cumsum used as an
        // index): either ranges over the row.
        out.insert({-1, index, getCooperativeLoop(owner)->second[0]});
      } else if (auto loop = getCooperativeLoop(owner)) {
        out.insert({-1, index, loop->second[n]});
      } else if (auto reduce = dyn_cast<loopir::ReduceOp>(owner)) {
        out.insert({-1, index, reduce.getBounds()[n]});
      } else if (auto nest = dyn_cast<loopir::ParallelOp>(owner)) {
        out.insert({-1, index, nest.getBounds()[n]});
      }
      return;
    }
    Operation *def = index.getDefiningOp();
    if (!def)
      return;
    if (auto offset = dyn_cast<TileOffsetOp>(def))
      out.insert({(int64_t)offset.getDim(), {}, 1});
    else if (auto coordinate = dyn_cast<CoordinateOp>(def))
      out.insert({(int64_t)coordinate.getDim(), {}, 1});
    else if (auto point = dyn_cast<PointOp>(def))
      out.insert({(int64_t)point.getDim(), {}, 1});
    else if (auto id = dyn_cast<ProgramIdOp>(def))
      out.insert({(int64_t)id.getDim(), {}, 1});
    else
      for (Value operand : def->getOperands())
        sources(operand, out);
  }

  /// The bytes an access of `elements`-byte elements moves: its box over
  /// the sources it depends on.
  double accessBytes(const std::set<Source> &used, Type element) {
    double n = llvm::divideCeil(getStorageBits(element), 8);
    ArrayRef<int64_t> domain = kernel.getDomain();
    for (int64_t d = 0, e = domain.size(); d < e; ++d) {
      bool depends =
          llvm::any_of(used, [&](const Source &s) { return s.dim == d; });
      n *= depends ? domain[d] : programsAlong[d];
    }
    for (const Source &s : used)
      if (s.dim < 0)
        n *= s.extent;
    return n;
  }

  /// The sources of the indices `map` reads (all of them without a map).
  std::set<Source> usedSources(ValueRange indices, AffineMap map) {
    std::set<Source> used;
    for (auto [i, index] : llvm::enumerate(indices))
      if (!map || map.isFunctionOfDim(i))
        sources(index, used);
    return used;
  }

  template <typename Access>
  void count(Access access, ValueRange indices, AffineMap map, Type element,
             bool write, KernelTraffic &result) {
    std::set<Source> used = usedSources(indices, map);
    // Equal boxes are the same elements, whichever indices span them (a
    // fold's and a distribute's over one row).
    std::vector<std::pair<int64_t, int64_t>> key;
    for (const Source &source : used)
      key.push_back({source.dim, source.extent});
    // Constant indices pick which elements (a row vector's columns, one
    // access per column).
    for (auto [i, index] : llvm::enumerate(indices)) {
      APInt value;
      if ((!map || map.isFunctionOfDim(i)) &&
          matchPattern(index, m_ConstantInt(&value)))
        key.push_back({std::numeric_limits<int64_t>::min() + (int64_t)i,
                       value.getSExtValue()});
    }
    llvm::sort(key);
    // Each contraction stages its own operands (sibling contractions read
    // a shared input once each).
    auto contract = access->template getParentOfType<ContractOp>();
    auto signature = std::make_tuple(access.getMemref().getAsOpaquePointer(),
                                     map.getAsOpaquePointer(), write,
                                     contract.getOperation());
    auto &seen = accessed[signature];
    if (llvm::is_contained(seen, key))
      return; // The program already moved these elements.
    seen.push_back(key);
    double bytes = accessBytes(used, element);
    (write ? result.tileBytesWritten : result.tileBytesRead) += bytes;
    (write ? requestedWritten : requestedRead)[access.getMemref()] += bytes;
  }

  void visit(Operation *op, KernelTraffic &result) {
    if (auto load = dyn_cast<LoadOp>(op))
      return count(load, load.getOrigin(), load.getIndexMap(),
                   load.getMemref().getType().getElementType(), false, result);
    if (auto store = dyn_cast<StoreOp>(op))
      return count(store, store.getOrigin(), store.getIndexMap(),
                   store.getMemref().getType().getElementType(), true, result);
    if (auto load = dyn_cast<loopir::LoadOp>(op))
      return count(load, load.getIndices(), load.getIndexMap(),
                   load.getType(), false, result);
    if (auto store = dyn_cast<loopir::StoreOp>(op))
      return count(store, store.getIndices(), store.getIndexMap(),
                   store.getValue().getType(), true, result);
    if (auto contract = dyn_cast<ContractOp>(op)) {
      result.flops += 2 * domainPoints() * contract.getK();
      return;
    }
    // A primitive monoid's combiner (an add, a max) is no op of the body:
    // it runs once per point and float result (uncounted, a fold of
    // products counted half the FLOPs of the same contraction).
    if (isa<FoldOp, loopir::ReduceOp>(op)) {
      for (Type type : op->getResultTypes())
        if (isa<FloatType>(type))
          result.flops += points(&op->getRegion(0).front());
      return;
    }
    if (auto scan = dyn_cast<ScanOp>(op)) {
      for (Type type : scan.getPrefixTypes())
        if (isa<FloatType>(type))
          result.flops += points(&scan.getBody().front());
      return;
    }
    if (op->getNumResults() != 1 || !isa<FloatType>(op->getResult(0).getType()))
      return;
    if (op->getDialect()->getNamespace() != "arith" &&
        op->getDialect()->getNamespace() != "math")
      return;
    if (isa<arith::ConstantOp, arith::SelectOp, arith::ExtFOp,
            arith::TruncFOp, arith::SIToFPOp, arith::UIToFPOp>(op))
      return;
    result.flops += (isa<math::FmaOp>(op) ? 2 : 1) * points(op->getBlock());
  }

  KernelOp kernel;
  SmallVector<int64_t> programsAlong;
  llvm::MapVector<Value, double> requestedRead, requestedWritten;
  std::map<std::tuple<const void *, const void *, bool, Operation *>,
           std::vector<std::vector<std::pair<int64_t, int64_t>>>>
      accessed;
};

std::string kindName(ProgramKind kind) {
  switch (kind) {
  case ProgramKind::Elementwise:
    return "elementwise";
  case ProgramKind::Row:
    return "row";
  case ProgramKind::Contraction:
    return "contraction";
  case ProgramKind::Generic:
    return "generic";
  }
  return "unknown";
}

} // namespace

KernelTraffic strata::tileir::modelKernel(KernelOp kernel, bool tensorCores,
                                          bool tf32) {
  KernelTraffic result = KernelModel(kernel).run(tensorCores, tf32);
  result.kind = kindName(kernel.getProgramKind());
  llvm::raw_string_ostream schedule(result.schedule);
  llvm::interleave(kernel.getTile(), schedule, "x");
  schedule << " t" << kernel.getThreads();
  if (std::optional<uint64_t> group = kernel.getRasterGroup())
    schedule << " r" << *group;
  if (kernel.getNumInstances() < kernel.getNumTiles())
    schedule << " p" << kernel.getNumInstances();
  return result;
}

std::vector<KernelTraffic> strata::tileir::modelModule(ModuleOp module,
                                                       bool tensorCores,
                                                       bool tf32) {
  std::vector<KernelTraffic> kernels;
  llvm::StringMap<int> seen; // As SymbolTable makes names unique.
  module.walk([&](KernelOp kernel) {
    KernelTraffic traffic = modelKernel(kernel, tensorCores, tf32);
    std::string base = getKernelBaseName(kernel);
    int &count = seen[base];
    traffic.name = count == 0 ? base : base + "_" + std::to_string(count - 1);
    ++count;
    kernels.push_back(std::move(traffic));
  });
  return kernels;
}

double strata::tileir::idealBytes(ModuleOp module) {
  double bytes = 0;
  module.walk([&](func::FuncOp func) {
    for (Type type : func.getArgumentTypes())
      bytes += typeBytes(type);
    for (Type type : func.getResultTypes())
      bytes += typeBytes(type);
  });
  return bytes;
}
