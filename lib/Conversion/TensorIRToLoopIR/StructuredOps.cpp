// Lowers the tensorir ops that are not one expression per element:
// reductions, arg-reductions, iota, concat and gather.

#include "LoopKernelBuilder.h"
#include "strata/Dialect/TensorIR/IR/TensorIR.h"
#include "strata/Dialect/Utils/VerifyUtils.h"

#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace strata;

namespace {

loopir::Combiner toCombiner(tensorir::ReduceKind kind, bool arg) {
  switch (kind) {
  case tensorir::ReduceKind::sum:
    return loopir::Combiner::add;
  case tensorir::ReduceKind::prod:
    return loopir::Combiner::mul;
  case tensorir::ReduceKind::max:
    return arg ? loopir::Combiner::argmax : loopir::Combiner::max;
  case tensorir::ReduceKind::min:
    return arg ? loopir::Combiner::argmin : loopir::Combiner::min;
  }
  llvm_unreachable("unknown reduce kind");
}

/// The map from (result indices..., reduction indices...) to input
/// coordinates of a reduction over `axes` of a tensor of rank `rank`.
AffineMap reductionInputMap(MLIRContext *ctx, int64_t rank,
                            ArrayRef<int64_t> axes, bool keepdim) {
  int64_t resultRank = keepdim ? rank : rank - axes.size();
  SmallVector<AffineExpr> exprs;
  int64_t result = 0, reduced = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (llvm::is_contained(axes, d)) {
      exprs.push_back(getAffineDimExpr(resultRank + reduced++, ctx));
      if (keepdim)
        ++result; // The kept size-1 dimension is not an input coordinate.
    } else {
      exprs.push_back(getAffineDimExpr(result++, ctx));
    }
  }
  return AffineMap::get(resultRank + axes.size(), 0, exprs, ctx);
}

/// The type a reduction of `element`s with `combiner` accumulates in: f32
/// for sums and products of halves (rounded once at the end, as PyTorch's
/// kernels and cuBLAS do; summing in bf16 lost a digit in 200 terms), the
/// element itself otherwise (extremes are exact).
Type accumulatorType(Type element, loopir::Combiner combiner) {
  bool sums = combiner == loopir::Combiner::add ||
              combiner == loopir::Combiner::mul;
  if (sums && (element.isF16() || element.isBF16()))
    return Float32Type::get(element.getContext());
  return element;
}

/// Builds `loopir.reduce` over `axes` of `input` at the result indices,
/// accumulating in accumulatorType.
loopir::ReduceOp buildReduce(OpBuilder &b, Location loc, Value input,
                             ArrayRef<int64_t> axes, bool keepdim,
                             loopir::Combiner combiner, ValueRange ivs) {
  auto type = cast<MemRefType>(input.getType());
  SmallVector<int64_t> bounds;
  for (int64_t a : axes)
    bounds.push_back(type.getDimSize(a));
  Type accumulator = accumulatorType(type.getElementType(), combiner);
  SmallVector<Type> results = {accumulator};
  if (combiner == loopir::Combiner::argmax ||
      combiner == loopir::Combiner::argmin)
    results.push_back(b.getI64Type());
  auto reduce = loopir::ReduceOp::create(
      b, loc, results,
      {loopir::CombinerAttr::get(b.getContext(), combiner)}, bounds);
  Block *body = &reduce.getBody().front();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(body);
  SmallVector<Value> indices(ivs);
  llvm::append_range(indices, body->getArguments());
  AffineMap map =
      reductionInputMap(b.getContext(), type.getRank(), axes, keepdim);
  Value x = loopir::LoadOp::create(
      b, loc, input, indices,
      getIndexMapAttr(map));
  if (accumulator != x.getType())
    x = arith::ExtFOp::create(b, loc, accumulator, x);
  loopir::YieldOp::create(b, loc, ValueRange{x});
  return reduce;
}

/// A kernel whose nest over the results holds one loopir.reduce over `axes`
/// of `input`, storing each of its results.
loopir::KernelOp buildReductionKernel(OpBuilder &b, Location loc,
                                      TypeRange resultTypes, Value input,
                                      ArrayRef<int64_t> axes, bool keepdim,
                                      loopir::Combiner combiner) {
  return buildLoopKernel(
      b, loc, resultTypes, input,
      [&](OpBuilder &b, Location loc, ValueRange in, ValueRange out,
          ValueRange ivs) {
        auto reduce = buildReduce(b, loc, in[0], axes, keepdim, combiner, ivs);
        for (auto [result, buffer] : llvm::zip(reduce.getResults(), out)) {
          Type element = cast<MemRefType>(buffer.getType()).getElementType();
          Value v = result;
          if (v.getType() != element) // Rounded once, from the accumulator.
            v = arith::TruncFOp::create(b, loc, element, v);
          loopir::StoreOp::create(b, loc, v, buffer, ivs, AffineMapAttr());
        }
      });
}

struct ReduceToKernel : OpConversionPattern<tensorir::ReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tensorir::ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto kernel = buildReductionKernel(
        rewriter, op.getLoc(), op->getResultTypes(), adaptor.getInput(),
        op.getAxes(), op.getKeepdim(), toCombiner(op.getKind(), false));
    rewriter.replaceOp(op, kernel.getResults());
    return success();
  }
};

struct ArgReduceToKernel : OpConversionPattern<tensorir::ArgReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tensorir::ArgReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t axis = op.getAxis();
    auto kernel = buildReductionKernel(
        rewriter, op.getLoc(), op->getResultTypes(), adaptor.getInput(),
        {axis}, op.getKeepdim(), toCombiner(op.getKind(), true));
    rewriter.replaceOp(op, kernel.getResults());
    return success();
  }
};

struct IotaToKernel : OpConversionPattern<tensorir::IotaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tensorir::IotaOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = op.getType().getElementType();
    auto kernel = buildLoopKernel(
        rewriter, op.getLoc(), TypeRange{op.getType()}, {},
        [&](OpBuilder &b, Location loc, ValueRange, ValueRange out,
            ValueRange ivs) {
          Value i = ivs[op.getDim()];
          Value v;
          if (isa<FloatType>(element)) {
            Value wide = arith::IndexCastOp::create(b, loc, b.getI64Type(), i);
            v = arith::SIToFPOp::create(b, loc, element, wide);
          } else {
            v = arith::IndexCastOp::create(b, loc, element, i);
          }
          loopir::StoreOp::create(b, loc, v, out[0], ivs, AffineMapAttr());
        });
    rewriter.replaceOp(op, kernel.getResults());
    return success();
  }
};

/// Concatenations of at most this many inputs are one nest over the result
/// (see ConcatToKernel); more would test every input's range per element.
constexpr size_t kMaxSelectedConcatInputs = 4;

/// A concatenation of few inputs is one nest over the result: each element
/// loads from every input through a guard that holds only on that input's
/// part of the axis (the others read no memory), and a chain of selects by
/// position takes the one that holds. So it is an elementwise kernel,
/// which the elementwise schedule takes and which fuses into its consumers
/// (rotary embeddings' rotate_half into its product with sin, a KV cache's
/// concatenation into attention); with more inputs it is one parallel nest
/// per input, each storing into its part of the result (a kernel of
/// several nests, which only the generic schedule takes and which fuses
/// into nothing).
struct ConcatToKernel : OpConversionPattern<tensorir::ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tensorir::ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> inputs;
    for (Value in : adaptor.getInputs())
      if (cast<RankedTensorType>(in.getType()).getNumElements() != 0)
        inputs.push_back(in);
    // (Without an input of elements, the result has none: no nest.)
    auto kernel = !inputs.empty() && inputs.size() <= kMaxSelectedConcatInputs
                      ? selectedConcat(op, inputs, rewriter)
                      : concatByNests(op, inputs, rewriter);
    rewriter.replaceOp(op, kernel.getResults());
    return success();
  }

  /// The map from result coordinates to an input's, whose part of the axis
  /// starts at `offset`, and the guard that holds on that part (none where
  /// the part is the whole axis of `length`).
  static std::pair<AffineMap, IntegerSetAttr>
  inputAccess(int64_t rank, int64_t axis, int64_t offset, int64_t size,
              int64_t length, MLIRContext *ctx) {
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < rank; ++d)
      exprs.push_back(getAffineDimExpr(d, ctx) - (d == axis ? offset : 0));
    // offset <= position <= offset + size - 1, each where it bounds.
    AffineExpr position = getAffineDimExpr(axis, ctx);
    SmallVector<AffineExpr> bounds;
    if (offset > 0)
      bounds.push_back(position - offset);
    if (offset + size < length)
      bounds.push_back(offset + size - 1 - position);
    IntegerSetAttr part;
    if (!bounds.empty())
      part = IntegerSetAttr::get(IntegerSet::get(
          rank, 0, bounds, SmallVector<bool>(bounds.size(), false)));
    return {AffineMap::get(rank, 0, exprs, ctx), part};
  }

  loopir::KernelOp selectedConcat(tensorir::ConcatOp op, ValueRange inputs,
                                  ConversionPatternRewriter &rewriter) const {
    int64_t axis = op.getAxis(), rank = op.getType().getRank();
    int64_t length = op.getType().getShape()[axis];
    Type element = op.getType().getElementType();
    return buildLoopKernel(
        rewriter, op.getLoc(), TypeRange{op.getType()}, inputs,
        [&](OpBuilder &b, Location loc, ValueRange buffers, ValueRange out,
            ValueRange ivs) {
          TypedAttr zero = cast<TypedAttr>(b.getZeroAttr(element));
          SmallVector<Value> parts;
          SmallVector<int64_t> ends;
          int64_t offset = 0;
          for (Value buffer : buffers) {
            int64_t size = cast<MemRefType>(buffer.getType()).getShape()[axis];
            auto [map, part] =
                inputAccess(rank, axis, offset, size, length, b.getContext());
            parts.push_back(loopir::LoadOp::create(
                b, loc, buffer, ivs, AffineMapAttr::get(map), part,
                part ? zero : TypedAttr()));
            offset += size;
            ends.push_back(offset);
          }
          // From the last input back: before input i's end, input i.
          Value x = parts.back();
          for (int64_t i = (int64_t)parts.size() - 2; i >= 0; --i) {
            Value end = arith::ConstantIndexOp::create(b, loc, ends[i]);
            Value before = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::ult, ivs[axis], end);
            x = arith::SelectOp::create(b, loc, before, parts[i], x);
          }
          loopir::StoreOp::create(b, loc, x, out[0], ivs, AffineMapAttr());
        });
  }

  loopir::KernelOp concatByNests(tensorir::ConcatOp op, ValueRange inputs,
                                 ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    OpBuilder::InsertionGuard guard(rewriter);
    auto kernel = buildEmptyLoopKernel(rewriter, loc, TypeRange{op.getType()},
                                       inputs);
    Block *body = &kernel.getBody().front();
    Value out = body->getArguments().back();
    int64_t axis = op.getAxis(), offset = 0;
    int64_t rank = op.getType().getRank();
    for (BlockArgument in : body->getArguments().drop_back()) {
      auto shape = cast<MemRefType>(in.getType()).getShape();
      rewriter.setInsertionPointToEnd(body);
      auto loop = loopir::ParallelOp::create(rewriter, loc, shape);
      rewriter.setInsertionPoint(loop.getBody().front().getTerminator());
      Value x = loopir::LoadOp::create(rewriter, loc, in,
                                       loop.getInductionVars(),
                                       AffineMapAttr());
      SmallVector<AffineExpr> exprs;
      for (int64_t d = 0; d < rank; ++d)
        exprs.push_back(getAffineDimExpr(d, getContext()) +
                        (d == axis ? offset : 0));
      auto map = AffineMap::get(rank, 0, exprs, getContext());
      loopir::StoreOp::create(
          rewriter, loc, x, out, loop.getInductionVars(),
          getIndexMapAttr(map));
      offset += shape[axis];
    }
    rewriter.setInsertionPointToEnd(body);
    loopir::YieldOp::create(rewriter, loc);
    return kernel;
  }
};

/// r[p..., i..., s...] = input[p..., indices[i...], s...]
struct GatherToKernel : OpConversionPattern<tensorir::GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tensorir::GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t axis = op.getAxis();
    int64_t indexRank = op.getIndices().getType().getRank();
    auto kernel = buildLoopKernel(
        rewriter, op.getLoc(), TypeRange{op.getType()},
        ValueRange{adaptor.getInput(), adaptor.getIndices()},
        [&](OpBuilder &b, Location loc, ValueRange in, ValueRange out,
            ValueRange ivs) {
          SmallVector<AffineExpr> select;
          for (int64_t d = 0; d < indexRank; ++d)
            select.push_back(getAffineDimExpr(axis + d, getContext()));
          auto indexMap = AffineMap::get(ivs.size(), 0, select, getContext());
          Value id = loopir::LoadOp::create(b, loc, in[1], ivs,
                                            AffineMapAttr::get(indexMap));
          Value index = arith::IndexCastOp::create(b, loc, b.getIndexType(), id);
          SmallVector<Value> coords(ivs.take_front(axis));
          coords.push_back(index);
          llvm::append_range(coords, ivs.drop_front(axis + indexRank));
          Value x = loopir::LoadOp::create(b, loc, in[0], coords,
                                           AffineMapAttr());
          loopir::StoreOp::create(b, loc, x, out[0], ivs, AffineMapAttr());
        });
    rewriter.replaceOp(op, kernel.getResults());
    return success();
  }
};
} // namespace

void strata::populateStructuredOpToLoopPatterns(RewritePatternSet &patterns) {
  patterns.add<ReduceToKernel, ArgReduceToKernel, IotaToKernel,
               ConcatToKernel, GatherToKernel>(patterns.getContext());
}
