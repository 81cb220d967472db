// Affine expressions over loop indices of known ranges, simplified with
// those ranges (see AffineRange.h).

#include "strata/Dialect/LoopIR/Analysis/AffineRange.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace strata;
using namespace strata::loopir;

namespace {

/// `l` floordiv (or mod, by `kind`) `c` > 0, simplified where `l` stays
/// within one period of `c`.
AffineRange divideInRange(AffineRange l, int64_t c, AffineExprKind kind) {
  int64_t qlo = llvm::divideFloorSigned(l.lo, c),
          qhi = llvm::divideFloorSigned(l.hi, c);
  if (kind == AffineExprKind::FloorDiv) {
    if (qlo == qhi)
      return {getAffineConstantExpr(qlo, l.expr.getContext()), qlo, qlo};
    return {l.expr.floorDiv(c), qlo, qhi};
  }
  if (qlo == qhi) // One period: the remainder is an offset.
    return {l.expr - qlo * c, l.lo - qlo * c, l.hi - qlo * c};
  return {l.expr % c, 0, c - 1};
}

/// The terms of a sum, in order.
void collectTerms(AffineExpr e, SmallVectorImpl<AffineExpr> &terms) {
  if (e.getKind() == AffineExprKind::Add) {
    auto sum = cast<AffineBinaryOpExpr>(e);
    collectTerms(sum.getLHS(), terms);
    collectTerms(sum.getRHS(), terms);
    return;
  }
  terms.push_back(e);
}

/// `term` / `c` where `term` is a constant or `x * k` with k a multiple
/// of `c`; none otherwise.
std::optional<AffineExpr> exactQuotient(AffineExpr term, int64_t c) {
  if (auto k = dyn_cast<AffineConstantExpr>(term))
    if (k.getValue() % c == 0)
      return getAffineConstantExpr(k.getValue() / c, term.getContext());
  if (term.getKind() == AffineExprKind::Mul) {
    auto product = cast<AffineBinaryOpExpr>(term);
    if (auto k = dyn_cast<AffineConstantExpr>(product.getRHS()))
      if (k.getValue() % c == 0)
        return product.getLHS() * (k.getValue() / c);
  }
  return std::nullopt;
}


/// The constant coefficient of a term: k for `x * k` or a constant k, 1
/// otherwise.
int64_t coefficient(AffineExpr term) {
  if (auto k = dyn_cast<AffineConstantExpr>(term))
    return k.getValue();
  if (term.getKind() == AffineExprKind::Mul)
    if (auto k = dyn_cast<AffineConstantExpr>(
            cast<AffineBinaryOpExpr>(term).getRHS()))
      return k.getValue();
  return 1;
}

/// (f x + r) floordiv (f m) = x floordiv m and (f x + r) mod (f m) =
/// f (x mod m) + r when 0 <= r < f: an index flattened from (x, r) and
/// split at a multiple of r's extent (a [b * h, t, t] view read as
/// [b, h, t, t]: (d0 * 169 + d1 * 13 + d2) floordiv 676 is d0 floordiv 4).
/// Each factor f of c that a term's coefficient shares is tried.
std::optional<AffineRange> divideByCommonFactor(ArrayRef<AffineExpr> terms,
                                           int64_t c, AffineExprKind kind,
                                           ArrayRef<int64_t> bounds) {
  MLIRContext *ctx = terms.front().getContext();
  for (AffineExpr candidate : terms) {
    int64_t f = std::gcd(c, coefficient(candidate));
    if (f <= 1 || f == c)
      continue;
    AffineExpr x = getAffineConstantExpr(0, ctx), r = x;
    for (AffineExpr term : terms) {
      if (std::optional<AffineExpr> q = exactQuotient(term, f))
        x = x + *q;
      else
        r = r + term;
    }
    AffineRange rest = simplifyInRange(r, bounds);
    if (rest.lo < 0 || rest.hi >= f)
      continue;
    AffineRange outer = simplifyInRange(
        kind == AffineExprKind::FloorDiv ? x.floorDiv(c / f) : x % (c / f),
        bounds);
    if (kind == AffineExprKind::FloorDiv)
      return outer;
    return AffineRange{outer.expr * f + rest.expr, outer.lo * f + rest.lo,
                  outer.hi * f + rest.hi};
  }
  return std::nullopt;
}

/// (c q + r) floordiv c = q + r floordiv c and (c q + r) mod c = r mod c:
/// the multiples of c leave the dividend first, so that a flattened index
/// split again (d0 * 1632 + d1 * 96 + d2 with d1 < 17, d2 < 96, divided by
/// 1632) simplifies even where the whole dividend spans several periods;
/// then the rest is divided by a factor it shares with c, or kept.
AffineRange divideTerms(AffineExpr dividend, int64_t c, AffineExprKind kind,
                   ArrayRef<int64_t> bounds) {
  SmallVector<AffineExpr> terms, rest;
  collectTerms(dividend, terms);
  MLIRContext *ctx = dividend.getContext();
  AffineExpr quotient = getAffineConstantExpr(0, ctx);
  for (AffineExpr term : terms) {
    if (std::optional<AffineExpr> q = exactQuotient(term, c))
      quotient = quotient + *q;
    else
      rest.push_back(term);
  }
  std::optional<AffineRange> inner;
  if (!rest.empty())
    inner = divideByCommonFactor(rest, c, kind, bounds);
  if (!inner) {
    AffineExpr sum = getAffineConstantExpr(0, ctx);
    for (AffineExpr term : rest)
      sum = sum + term;
    inner = divideInRange(simplifyInRange(sum, bounds), c, kind);
  }
  if (kind == AffineExprKind::Mod)
    return *inner;
  AffineRange q = simplifyInRange(quotient, bounds);
  return AffineRange{q.expr + inner->expr, q.lo + inner->lo, q.hi + inner->hi};
}

} // namespace

AffineRange strata::loopir::simplifyInRange(AffineExpr e,
                                             ArrayRef<int64_t> bounds) {
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return {e, 0, bounds[d.getPosition()] - 1};
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return {e, c.getValue(), c.getValue()};
  auto bin = cast<AffineBinaryOpExpr>(e);
  AffineRange l = simplifyInRange(bin.getLHS(), bounds);
  AffineRange r = simplifyInRange(bin.getRHS(), bounds);
  switch (e.getKind()) {
  case AffineExprKind::Add:
    return {l.expr + r.expr, l.lo + r.lo, l.hi + r.hi};
  case AffineExprKind::Mul: {
    int64_t a = l.lo * r.lo, b = l.lo * r.hi, c = l.hi * r.lo, d = l.hi * r.hi;
    return {l.expr * r.expr, std::min({a, b, c, d}), std::max({a, b, c, d})};
  }
  case AffineExprKind::FloorDiv:
  case AffineExprKind::Mod: {
    auto divisor = dyn_cast<AffineConstantExpr>(r.expr);
    if (!divisor || divisor.getValue() <= 0)
      break;
    return divideTerms(l.expr, divisor.getValue(), e.getKind(), bounds);
  }
  default:
    break;
  }
  // Ceildiv and non-constant divisors: keep, without a useful range.
  return {e, INT64_MIN / 4, INT64_MAX / 4};
}

std::optional<SmallVector<int64_t>>
strata::loopir::loopBounds(ValueRange indices) {
  SmallVector<int64_t> bounds;
  for (Value index : indices) {
    auto iv = dyn_cast<BlockArgument>(index);
    std::optional<ArrayRef<int64_t>> box =
        getLoopBox(iv ? iv.getOwner()->getParentOp() : nullptr);
    if (!box)
      return std::nullopt;
    bounds.push_back((*box)[iv.getArgNumber()]);
  }
  return bounds;
}

AffineMap strata::loopir::simplifyWithLoopBounds(AffineMap map,
                                                 ValueRange indices) {
  std::optional<SmallVector<int64_t>> bounds = loopBounds(indices);
  if (!bounds)
    return map;
  return simplifyWithBounds(map, *bounds);
}

AffineMap strata::loopir::simplifyWithBounds(AffineMap map,
                                             ArrayRef<int64_t> bounds) {
  SmallVector<AffineExpr> exprs;
  for (AffineExpr e : map.getResults())
    exprs.push_back(simplifyAffineExpr(simplifyInRange(e, bounds).expr,
                                       map.getNumDims(), 0));
  return AffineMap::get(map.getNumDims(), 0, exprs, map.getContext());
}
