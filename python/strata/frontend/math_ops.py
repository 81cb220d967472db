"""The importer's formulas: elementwise ops PyTorch computes as a formula of
simpler ones (hypot, logaddexp, lerp, copysign, nextafter, ...), and small
reductions (nansum, aminmax, count_nonzero, dist, renorm). A mixin of
`Importer` (importer.py); each is written with TensorExpr (tensor_expr.py)
the way PyTorch's CPU kernel computes it, so results agree to rounding,
NaN, infinities and signed zeros included.
"""
import math

from .elementwise_ops import _is_float, _norm_dim, MAX, MIN, SUM


# The integer type of a float's width (its bits, through tensorir.bitcast).
_BITS = {"f32": "i32", "f64": "i64", "f16": "i16", "bf16": "i16"}


class MathOps:
    # -- elementwise formulas ----------------------------------------------
    def _float_out(self):
        shape, dtype = self.out()
        if not _is_float(dtype):
            self.error("'%s' of %s tensors is not supported"
                       % (self.node.target, dtype))
        return shape, dtype

    def logaddexp(self, base2):
        """log(exp(a) + exp(b)) (or in base 2): max + log1p(exp(-|a - b|)),
        and a itself where both are the same infinity."""
        def convert(x, y):
            shape, dtype = self._float_out()
            a, b = self.expr(x, shape, dtype), self.expr(y, shape, dtype)
            m = a.maximum(b)
            d = -(a - b).abs()
            tail = ((d.exp2().log1p() / math.log(2)) if base2
                    else d.exp().log1p())
            same_inf = a.eq(b) & (a.abs().eq(math.inf))
            return (m + tail).where(~same_inf, a).value
        return convert

    def hypot(self, x, y):
        """sqrt(a^2 + b^2) without overflow: m sqrt(1 + (n / m)^2) with m
        the larger magnitude; an infinity wins over NaN, as std::hypot."""
        shape, dtype = self._float_out()
        a, b = self.expr(x, shape, dtype).abs(), self.expr(y, shape, dtype).abs()
        m, n = a.maximum(b), a.minimum(b)
        r = n / m
        h = (m * (r * r + 1.0).sqrt()).where(m.ne(0.0), 0.0)
        either_inf = a.eq(math.inf) | b.eq(math.inf)
        return h.where(~either_inf, math.inf).value

    def signbit_of(self, e):
        """The sign bit of a float expression (true for -0.0 and negative
        NaNs), through its bits."""
        bits = self.b.bitcast(e.value, _BITS[e.dtype])
        return self.expr_of(bits) < 0

    def signbit(self, x):
        shape, _ = self.out()
        v = self.value(x)
        if not _is_float(self.dtype(v)):
            return (self.expr_of(v) < 0).value
        return self.signbit_of(self.expr_of(v)).value

    def copysign(self, x, y):
        shape, dtype = self._float_out()
        a, b = self.expr(x, shape, dtype), self.expr(y, shape, dtype)
        return (-a.abs()).where(self.signbit_of(b), a.abs()).value

    def heaviside(self, x, values):
        """0 below zero, 1 above, `values` at zero (NaN is not above)."""
        shape, dtype = self.out()
        v, w = self.expr(x, shape, dtype), self.expr(values, shape, dtype)
        step = v.constant(1.0).where(v > 0, 0.0)
        return w.where(v.eq(0), step).value

    def nan_ignoring(self, kind):
        """fmax/fmin: the other operand where one is NaN."""
        def convert(x, y):
            shape, dtype = self.out()
            a, b = self.expr(x, shape, dtype), self.expr(y, shape, dtype)
            m = a.maximum(b) if kind == MAX else a.minimum(b)
            if not _is_float(dtype):
                return m.value
            return b.where(a.isnan(), a.where(b.isnan(), m)).value
        return convert

    def lerp(self, start, end, weight):
        """start + w (end - start) for w < 0.5, else end - (end - start)
        (1 - w): exact at both ends, as PyTorch."""
        shape, dtype = self._float_out()
        s, e = self.expr(start, shape, dtype), self.expr(end, shape, dtype)
        w = self.expr(weight, shape, dtype)
        d = e - s
        return (s + w * d).where(w.abs() < 0.5, e - d * (1.0 - w)).value

    def sinc(self, x):
        shape, dtype = self._float_out()
        v = self.expr(x, shape, dtype)
        p = v * math.pi
        return (p.sin() / p).where(v.ne(0.0), 1.0).value

    def entr(self, x):
        """-x log x, 0 at 0, -inf below (NaN stays NaN)."""
        shape, dtype = self._float_out()
        v = self.expr(x, shape, dtype)
        inner = (-v * v.log()).where(v > 0, 0.0)
        return inner.where(~(v < 0), -math.inf).value

    def xlog1py(self, x, y):
        """x log1p(y), 0 where x is 0 and y is no NaN."""
        shape, dtype = self._float_out()
        a, b = self.expr(x, shape, dtype), self.expr(y, shape, dtype)
        return (a * b.log1p()).where(~(a.eq(0.0) & ~b.isnan()), 0.0).value

    def scale(self, factor):
        """deg2rad, rad2deg."""
        def convert(x):
            shape, dtype = self._float_out()
            return (self.expr(x, shape, dtype) * factor).value
        return convert

    def scalar_pow(self, base, exponent):
        """pow(Scalar, Tensor): a number to tensor powers."""
        shape, dtype = self._float_out()
        return (self.expr(exponent, shape, dtype).constant(base)
                ** self.expr(exponent, shape, dtype)).value

    def angle(self, x):
        """The angle of a real number: pi below zero, 0 otherwise, NaN for
        NaN."""
        shape, dtype = self._float_out()
        v = self.expr(x, shape, dtype)
        return v.constant(math.pi).where(v < 0, 0.0).where(~v.isnan(), v).value

    def nextafter(self, x, y):
        """The next float after x toward y: its bits plus or minus one (the
        smallest subnormal of y's sign from zero)."""
        shape, dtype = self._float_out()
        a, b = self.expr(x, shape, dtype), self.expr(y, shape, dtype)
        ints = _BITS[dtype]
        bits = self.expr_of(self.b.bitcast(a.value, ints))
        away = (b > a).logical("xor", a < 0)  # Toward larger magnitude.
        step = bits + bits.constant(1).where(away, -1)
        moved = self.expr_of(self.b.bitcast(step.value, dtype))
        tiny = self.expr_of(self.b.bitcast(bits.constant(1).value, dtype))
        from_zero = tiny.where(b > 0, -tiny)
        r = moved.where(a.ne(0.0), from_zero)
        r = b.where(a.eq(b), r)
        return r.where(~(a.isnan() | b.isnan()), math.nan).value

    def frexp(self, x):
        """(mantissa, exponent) with x = mantissa 2^exponent and 0.5 <=
        |mantissa| < 1: the exponent from log2, corrected by one either way
        where log2 rounded across a power of two; zeros, infinities and NaN
        give themselves and 0."""
        shape, dtype = self.out(0)
        v = self.expr(x, shape, dtype)
        finite = v.ne(0.0) & (v.abs() < math.inf)
        safe = v.where(finite, 1.0)
        e = (safe.abs().log2().floor() + 1.0)
        m = safe / e.exp2()
        too_big = m.abs() >= 1.0
        e = (e + 1.0).where(too_big, e)
        m = (m * 0.5).where(too_big, m)
        too_small = m.abs() < 0.5
        e = (e - 1.0).where(too_small, e)
        m = (m * 2.0).where(too_small, m)
        return [m.where(finite, v).value,
                e.where(finite, 0.0).cast("i32").value]

    def shift(self, left):
        """Bit shifts as PyTorch's CPU kernels: a shift outside [0, bits)
        gives 0 (left) or the sign (right)."""
        def convert(x, y):
            shape, dtype = self.out()
            if _is_float(dtype) or dtype == "i1":
                self.error("bit shifts of %s are not defined" % dtype)
            bits = int(dtype[1:])
            a, b = self.expr(x, shape, dtype), self.expr(y, shape, dtype)
            inside = (b >= 0) & (b < bits)
            safe = b.where(inside, 0)
            if left:
                return a._binary("shl", safe).where(inside, 0).value
            sign = a._binary("shr", a.constant(bits - 1))
            return a._binary("shr", safe).where(inside, sign).value
        return convert

    def _gcd(self, a, b, bits):
        """Euclid's algorithm on |a|, |b| (as PyTorch), unrolled to the
        longest run an integer of `bits` bits takes: consecutive Fibonacci
        numbers are the worst case, and F(k+2) > 2^(bits-1) bounds the
        steps by k (92 for int64), so no input needs more."""
        steps, f0, f1 = 0, 1, 1
        while f1 <= 2 ** (bits - 1):
            f0, f1, steps = f1, f0 + f1, steps + 1
        a, b = a.abs(), b.abs()
        for _ in range(steps):
            nonzero = a.ne(0)
            a, b = b.rem(a.where(nonzero, 1)).where(nonzero, 0), a.where(nonzero, b)
        return b

    def _integer_out(self):
        shape, dtype = self.out()
        if _is_float(dtype) or dtype == "i1":
            self.error("'%s' of %s tensors is not supported" % (self.node.target, dtype))
        return shape, dtype

    def gcd(self, x, y):
        shape, dtype = self._integer_out()
        a, b = self.expr(x, shape, dtype), self.expr(y, shape, dtype)
        return self._gcd(a, b, int(dtype[1:])).value

    def lcm(self, x, y):
        """|a / gcd * b|, 0 where the gcd is (as PyTorch), computed in at
        least 32 bits before it wraps to the dtype (C++'s promotion)."""
        shape, dtype = self._integer_out()
        wide = dtype if int(dtype[1:]) >= 32 else "i32"
        a, b = self.expr(x, shape, wide), self.expr(y, shape, wide)
        g = self._gcd(a, b, int(wide[1:]))
        nonzero = g.ne(0)
        out = (a / g.where(nonzero, 1) * b).abs().where(nonzero, 0)
        return out.cast(dtype).value

    # -- small reductions --------------------------------------------------
    def nansum(self, x, dims=None, keepdim=False, dtype=None):
        shape, out_dtype = self.out()
        v = self.expr(x, self.shape(self.value(x)), out_dtype)
        if _is_float(out_dtype):
            v = v.where(~v.isnan(), 0.0)
        return v.reduce(SUM, self._axes(x, dims), keepdim).value

    def aminmax(self, x, dim=None, keepdim=False):
        v = self.expr_of(self.value(x))
        axes = self._axes(x, dim)
        return [v.reduce(MIN, axes, keepdim).value, v.reduce(MAX, axes, keepdim).value]

    def count_nonzero(self, x, dim=None):
        v = self.expr_of(self.value(x))
        nonzero = v.ne(0).cast("i64")
        return nonzero.reduce(SUM, self._axes(x, dim)).value

    def histc(self, x, bins=100, min=0, max=0):
        """Counts of the elements in `bins` equal bins over [min, max] (the
        data's own range where min == max, widened by 1 either way if that
        is one value); elements outside, and NaN, count nowhere; max itself
        counts in the last bin. A pull: each bin counts over every element,
        the element's bin floor((x - min) bins / (max - min)) as PyTorch
        computes it (bins x elements work)."""
        shape, dtype = self._float_out()
        v = self.cast(self.value(x), dtype)
        total = math.prod(self.shape(v))
        e = self.expr_of(self.b.reshape(v, [total]))
        if min == max:
            lo, hi = e.reduce(MIN, [0]), e.reduce(MAX, [0])
            same = lo.eq(hi)
            lo, hi = (lo - 1.0).where(same, lo), (hi + 1.0).where(same, hi)
        else:
            lo = self.expr_of(self.b.splat(float(min), [], dtype))
            hi = self.expr_of(self.b.splat(float(max), [], dtype))
        grid = [bins, total]
        x_b = self.expr_of(self.broadcast_dims(e.value, grid, [1]))
        lo_b = self.expr_of(self.broadcast_dims(lo.value, grid, []))
        hi_b = self.expr_of(self.broadcast_dims(hi.value, grid, []))
        position = ((x_b - lo_b) * float(bins) / (hi_b - lo_b)).floor()
        position = position.where(~x_b.eq(hi_b), float(bins - 1))
        inside = (x_b >= lo_b) & (x_b <= hi_b)
        hit = inside & position.eq(self.iota(grid, 0).cast(dtype))
        return hit.cast(dtype).reduce(SUM, [1]).value

    def _p_norm(self, d, p, axes, keepdim=False):
        """The p-norm of `d` (an expression) over `axes`, as
        torch.linalg.vector_norm: max |d| for inf, min for -inf, the
        nonzero count for 0."""
        a = d.abs()
        if p == math.inf:
            return a.reduce(MAX, axes, keepdim)
        if p == -math.inf:
            return a.reduce(MIN, axes, keepdim)
        if p == 0:
            return a.ne(0.0).cast(d.dtype).reduce(SUM, axes, keepdim)
        if p == 1:
            return a.reduce(SUM, axes, keepdim)
        if p == 2:
            return (a * a).reduce(SUM, axes, keepdim).sqrt()
        return (a ** float(p)).reduce(SUM, axes, keepdim) ** (1.0 / p)

    def dist(self, x, y, p=2):
        shape, dtype = self.out()
        full = list(self.shape_of_broadcast(x, y))
        d = self.expr(x, full, dtype) - self.expr(y, full, dtype)
        return self._p_norm(d, p, list(range(len(full)))).value

    def renorm(self, x, p, dim, maxnorm):
        """Each slice along `dim` whose p-norm exceeds maxnorm scaled to
        it: by maxnorm / (norm + 1e-7), as PyTorch."""
        shape, dtype = self._float_out()
        v = self.expr(x, shape, dtype)
        dim = _norm_dim(dim, len(shape))
        axes = [d for d in range(len(shape)) if d != dim]
        norm = self._p_norm(v, p, axes, keepdim=True)
        factor = (norm.constant(float(maxnorm)) / (norm + 1e-7)).where(
            norm > float(maxnorm), 1.0)
        factor = self.expr_of(self.broadcast(factor.value, shape))
        return (v * factor).value

    def shape_of_broadcast(self, *args):
        """The broadcast shape of the given graph values."""
        import torch
        shapes = [self.shape(self.value(a)) for a in args]
        return torch.broadcast_shapes(*[tuple(s) for s in shapes])

    def extreme(self, kind):
        """prims.amax / amin: a reduction over the given dims."""
        def convert(x, dims, output_dtype=None):
            return self.expr_of(self.value(x)).reduce(kind, self._axes(x, dims)).value
        return convert

    def math_table(self, t):
        t["aten.logaddexp.default"] = self.logaddexp(False)
        t["aten.logaddexp2.default"] = self.logaddexp(True)
        t["aten.hypot.default"] = self.hypot
        t["aten.signbit.default"] = self.signbit
        for overload in ("Tensor", "Scalar"):
            t["aten.copysign." + overload] = self.copysign
        t["aten.heaviside.default"] = self.heaviside
        t["aten.fmax.default"] = self.nan_ignoring(MAX)
        t["aten.fmin.default"] = self.nan_ignoring(MIN)
        t["aten.lerp.Scalar"] = self.lerp
        t["aten.lerp.Tensor"] = self.lerp
        t["aten.sinc.default"] = self.sinc
        t["aten.special_entr.default"] = self.entr
        for overload in ("default", "other_scalar", "self_scalar"):
            t["aten.special_xlog1py." + overload] = self.xlog1py
        t["aten.deg2rad.default"] = self.scale(math.pi / 180.0)
        t["aten.rad2deg.default"] = self.scale(180.0 / math.pi)
        t["aten.pow.Scalar"] = self.scalar_pow
        t["aten.angle.default"] = self.angle
        t["aten.nextafter.default"] = self.nextafter
        t["aten.frexp.Tensor"] = self.frexp
        for overload in ("Tensor", "Tensor_Scalar", "Scalar_Tensor"):
            t["aten.bitwise_left_shift." + overload] = self.shift(True)
            t["aten.bitwise_right_shift." + overload] = self.shift(False)
        for overload in ("Tensor", "Scalar"):
            t["aten.__lshift__." + overload] = self.shift(True)
            t["aten.__rshift__." + overload] = self.shift(False)
        t["aten.histc.default"] = self.histc
        t["aten.gcd.default"] = self.gcd
        t["aten.lcm.default"] = self.lcm
        t["aten.nansum.default"] = self.nansum
        t["aten.aminmax.default"] = self.aminmax
        t["aten.count_nonzero.default"] = self.count_nonzero
        t["aten.count_nonzero.dim_IntList"] = self.count_nonzero
        t["aten.dist.default"] = self.dist
        t["aten.renorm.default"] = self.renorm
        t["prims.amax.default"] = self.extreme(MAX)
        t["prims.amin.default"] = self.extreme(MIN)
