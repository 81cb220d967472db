// The composite monoids the Tile IR passes build tileir.composite_fold ops
// over: each is its identity and its combination, emitted at a builder, so
// the pass that recognizes a pattern and the tests that check a monoid use
// one definition.

#ifndef STRATA_DIALECT_TILEIR_IR_COMPOSITEMONOIDS_H
#define STRATA_DIALECT_TILEIR_IR_COMPOSITEMONOIDS_H

#include "strata/Dialect/TileIR/IR/TileIR.h"

#include "mlir/IR/Builders.h"

namespace strata::tileir {

/// How two elements `x` and `y` of a composite monoid combine.
using CombineBuilder = llvm::function_ref<llvm::SmallVector<mlir::Value>(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange x, mlir::ValueRange y)>;
/// The contribution of the point at `ivs`, built in the fold's body.
using ContributionBuilder = llvm::function_ref<llvm::SmallVector<mlir::Value>(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange ivs)>;

/// A tileir.composite_fold over `bounds` with `identities`, its body and
/// combine region built by `contribution` and `combine`, at `b`.
CompositeFoldOp buildCompositeFold(mlir::OpBuilder &b, mlir::Location loc,
                                   llvm::ArrayRef<mlir::TypedAttr> identities,
                                   llvm::ArrayRef<int64_t> bounds,
                                   ContributionBuilder contribution,
                                   CombineBuilder combine);

/// Online softmax's (max m, sums s_1..s_n of w_i * exp(x - m)) over f32:
/// identity (-inf, 0, ..., 0), contribution (x, w_1, ..., w_n); the
/// combination rescales every sum to the larger maximum (by 1 where a
/// maximum is already it, so -inf maxima give sums, not NaN from
/// -inf - -inf). Softmax's statistics are n = 1 with w = 1; attention's
/// output row adds one sum per element of the row, w the value.
llvm::SmallVector<mlir::TypedAttr> onlineSoftmaxIdentity(mlir::Builder &b,
                                                         unsigned sums = 1);
llvm::SmallVector<mlir::Value> combineOnlineSoftmax(mlir::OpBuilder &b,
                                                    mlir::Location loc,
                                                    mlir::ValueRange x,
                                                    mlir::ValueRange y);

/// A sum `s` of an online-softmax fold with maximum `m` as the two passes
/// compute it: NaN where `m` is infinite (the two passes' exp(x - m) is
/// then exp(inf - inf) for the row's extreme points: a row of -inf scores
/// has no softmax), `s` elsewhere.
mlir::Value buildTwoPassSum(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value m, mlir::Value s);

/// Welford's (count n, mean a, sum of squared deviations q) over f32:
/// identity (0, 0, 0), contribution (1, x, 0); two parts combine by Chan's
/// rule, a = a1 + d * n2 / n and q = q1 + q2 + d^2 * n1 * n2 / n with
/// d = a2 - a1 (the weights 0 where both parts are empty).
llvm::SmallVector<mlir::TypedAttr> welfordIdentity(mlir::Builder &b);
llvm::SmallVector<mlir::Value> combineWelford(mlir::OpBuilder &b,
                                              mlir::Location loc,
                                              mlir::ValueRange x,
                                              mlir::ValueRange y);

/// An arg-reduction's (extreme value, i64 position): the larger (`max`) or
/// smaller value wins, a tie goes to the lower position, and a float NaN
/// beats every number (PyTorch's argmax and argmin: the first NaN, else
/// the first extreme). Identity: (-inf or +inf, or the integer extreme;
/// the largest i64 position).
llvm::SmallVector<mlir::TypedAttr>
argExtremeIdentity(mlir::Builder &b, mlir::Type valueType, bool max);
llvm::SmallVector<mlir::Value> combineArgExtreme(mlir::OpBuilder &b,
                                                 mlir::Location loc, bool max,
                                                 mlir::ValueRange x,
                                                 mlir::ValueRange y);

} // namespace strata::tileir

#endif // STRATA_DIALECT_TILEIR_IR_COMPOSITEMONOIDS_H
