"""The importer's special functions: gamma-family (lgamma, digamma,
polygamma, mvlgamma), the inverse error function and the normal
distribution's (erfinv, ndtri, log_ndtr, erfcx), and modified Bessel
functions (i0, i1 and their scaled forms), Bessel functions of the first
and second kind (j0, j1, y0, y1) and the modified ones of the second
kind (k0, k1 and scaled). A mixin of `Importer`
(importer.py).

The math dialect has none of these, and libdevice's are GPU-only, so each
is a formula of elementwise tensorir ops (TensorExpr): argument shifts and
reflections to where an asymptotic series or a published polynomial
approximation is accurate in float32, with the poles, zeros and
infinities PyTorch's CPU kernels give selected explicitly. Accuracy is a
few float32 ulps up to about 1e-6 relative (the approximations' published
bounds), not bit-equality with PyTorch's Cephes-derived kernels.
"""
import math

# B_2k / (2k)! for k = 1..6: the Euler-Maclaurin (asymptotic) coefficients.
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730)


def _poly(t, coefficients):
    """sum c_i t^i (Horner), coefficients lowest degree first."""
    r = t.constant(coefficients[-1])
    for c in reversed(coefficients[:-1]):
        r = r * t + c
    return r


def _cot_derivative(n):
    """Q_n with d^n/dx^n cot(pi x) = pi^n Q_n(cot(pi x)), lowest degree
    first: Q_0(c) = c, Q_{k+1}(c) = -(1 + c^2) Q_k'(c)."""
    q = [0.0, 1.0]
    for _ in range(n):
        d = [i * q[i] for i in range(1, len(q))] or [0.0]
        nxt = [0.0] * (len(d) + 2)
        for i, c in enumerate(d):
            nxt[i] -= c
            nxt[i + 2] -= c
        q = nxt
    return q


# Abramowitz & Stegun 9.8.1-9.8.4: I0, I1 on |x| <= 3.75 in t = (x/3.75)^2
# (I1 as x times the series), and sqrt(x) e^-x I0/I1 beyond in t = 3.75/x
# (relative error below 2.2e-7).
_I0_SMALL = (1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.0360768, 0.0045813)
_I0_LARGE = (0.39894228, 0.01328592, 0.00225319, -0.00157565, 0.00916281,
             -0.02057706, 0.02635537, -0.01647633, 0.00392377)
_I1_SMALL = (0.5, 0.87890594, 0.51498869, 0.15084934, 0.02658733, 0.00301532,
             0.00032411)
_I1_LARGE = (0.39894228, -0.03988024, -0.00362018, 0.00163801, -0.01031555,
             0.02282967, -0.02895312, 0.01787654, -0.00420059)

# Abramowitz & Stegun 9.4.1-9.4.6: J0, J1, Y0, Y1 on |x| <= 3 in t = (x/3)^2,
# and beyond in u = 3/x as x^-1/2 f cos(theta) (J) and sin(theta) (Y);
# absolute errors below 1.1e-7.
_J0_SMALL = (1.0, -2.2499997, 1.2656208, -0.3163866, 0.0444479, -0.0039444, 0.0002100)
_Y0_SMALL = (0.36746691, 0.60559366, -0.74350384, 0.25300117, -0.04261214,
             0.00427916, -0.00024846)
_J1_SMALL = (0.5, -0.56249985, 0.21093573, -0.03954289, 0.00443319, -0.00031761,
             0.00001109)
_Y1_SMALL = (-0.6366198, 0.2212091, 2.1682709, -1.3164827, 0.3123951, -0.0400976,
             0.0027873)
_F0 = (0.79788456, -0.00000077, -0.00552740, -0.00009512, 0.00137237, -0.00072805,
       0.00014476)
_THETA0 = (-0.78539816, -0.04166397, -0.00003954, 0.00262573, -0.00054125,
           -0.00029333, 0.00013558)
_F1 = (0.79788456, 0.00000156, 0.01659667, 0.00017105, -0.00249511, 0.00113653,
       -0.00020033)
_THETA1 = (-2.35619449, 0.12499612, 0.00005650, -0.00637879, 0.00074348, 0.00079824,
           -0.00029166)
# A&S 9.8.5-9.8.8: K0, K1 on (0, 2] in (x/2)^2 (with the log of I0, I1),
# and sqrt(x) e^x K beyond in 2/x (relative error below 2.2e-7).
_K0_SMALL = (-0.57721566, 0.42278420, 0.23069756, 0.03488590, 0.00262698, 0.00010750,
             0.00000740)
_K0_LARGE = (1.25331414, -0.07832358, 0.02189568, -0.01062446, 0.00587872,
             -0.00251540, 0.00053208)
_K1_SMALL = (1.0, 0.15443144, -0.67278579, -0.18156897, -0.01919402, -0.00110404,
             -0.00004686)
_K1_LARGE = (1.25331414, 0.23498619, -0.03655620, 0.01504268, -0.00780353,
             0.00325614, -0.00068245)

# Giles, "Approximating the erfinv function" (GPU Computing Gems, 2011),
# single precision: erfinv(x) = x p(w), w = -log((1 - x)(1 + x)), one
# polynomial in w - 2.5 below w = 5 and one in sqrt(w) - 3 above.
_ERFINV_CENTRAL = (1.50140941, 0.246640727, -0.00417768164, -0.00125372503,
                   0.00021858087, -4.39150654e-06, -3.5233877e-06,
                   3.43273939e-07, 2.81022636e-08)
_ERFINV_TAIL = (2.83297682, 1.00167406, 0.00943887047, -0.0076224613,
                0.00573950773, -0.00367342844, 0.00134934322, 0.000100950558,
                -0.000200214257)


# The dtype each formula computes in: halves in f32, as PyTorch's CPU
# kernels compute them (the shifted products and powers of the series
# overflow f16: lgamma's z (z + 1) ... (z + 6) passes 65504 at z = 3.3).
_COMPUTED_IN = {"f16": "f32", "bf16": "f32"}


class SpecialOps:
    def _float_operand(self, x):
        """`x` as the formulas take it: in the result's float dtype, or f32
        for halves (_COMPUTED_IN); _float_result rounds back."""
        shape, dtype = self._float_out()
        return self.expr(x, shape, _COMPUTED_IN.get(dtype, dtype))

    def _float_result(self, e):
        """A formula's result in the op's dtype (rounded once, for halves)."""
        return self.cast(e.value, self._float_out()[1])

    # -- gamma family --------------------------------------------------------
    @staticmethod
    def _distance_to_integer(v):
        """x - round(x), in [-0.5, 0.5]: sin and tan of pi times it are
        those of pi x, without pi x's rounding for large x."""
        return v - v.round()

    def _lgamma_positive(self, z):
        """lgamma for z > 0: Stirling's series at z + 7 where z < 7, less
        the log of the product z (z + 1) ... (z + 6) shifted over."""
        small = z < 7.0
        a = (z + 7.0).where(small, z)
        product = z
        for j in range(1, 7):
            product = product * (z + float(j))
        ia = a.reciprocal()
        ia2 = ia * ia
        series = ia * _poly(ia2, (1 / 12, -1 / 360, 1 / 1260, -1 / 1680))
        stirling = (a - 0.5) * a.log() - a + 0.5 * math.log(2 * math.pi) + series
        return stirling - product.log().where(small, 0.0)

    def _lgamma(self, v):
        """lgamma(x): the positive series; below zero the reflection
        log(pi / |sin(pi x)|) - lgamma(1 - x); +inf at the poles (zero and
        the negative integers) and at both infinities."""
        r = self._distance_to_integer(v)
        reflected = ((r * math.pi).sin().abs().reciprocal() * math.pi).log() \
            - self._lgamma_positive(1.0 - v)
        out = self._lgamma_positive(v.where(v > 0, 1.0)).where(v > 0, reflected)
        pole = (v <= 0) & r.eq(0.0)
        return out.where(~(pole | v.abs().eq(math.inf)), math.inf)

    def lgamma(self, x):
        return self._float_result(self._lgamma(self._float_operand(x)))

    def mvlgamma(self, x, p):
        """The multivariate log-gamma: p(p - 1)/4 log(pi) + sum_j
        lgamma(x - j/2)."""
        v = self._float_operand(x)
        out = v.constant(p * (p - 1) / 4 * math.log(math.pi))
        for j in range(p):
            out = out + self._lgamma(v - j / 2)
        return self._float_result(out)

    def _polygamma_positive(self, n, z):
        """psi^(n)(z) for z > 0, from the recurrence shifted to a = z + J
        and the asymptotic series there: for n = 0, psi(a) = log a -
        1/(2a) - sum B_2k / (2k a^2k); for n > 0, (-1)^(n+1) n! zeta(n + 1,
        a) with Hurwitz zeta's Euler-Maclaurin tail."""
        shift = 6 + n
        a = z + float(shift)
        ia = a.reciprocal()
        if n == 0:
            terms = [b / (2 * k) for k, b in enumerate(_BERNOULLI[:5], 1)]
            ia2 = ia * ia
            out = a.log() - 0.5 * ia - ia2 * _poly(ia2, terms)
            for j in range(shift):
                out = out - (z + float(j)).reciprocal()
            return out
        s = n + 1
        zeta = ia ** float(s - 1) * (1.0 / (s - 1)) + ia ** float(s) * 0.5
        rising = float(s)  # s (s + 1) ... (s + 2k - 2)
        for k, b in enumerate(_BERNOULLI[:5], 1):
            zeta = zeta + ia ** float(s + 2 * k - 1) * (b / math.factorial(2 * k) * rising)
            rising *= (s + 2 * k - 1) * (s + 2 * k)
        for j in range(shift):
            zeta = zeta + (z + float(j)).reciprocal() ** float(s)
        return zeta * ((-1.0) ** (n + 1) * math.factorial(n))

    def _polygamma(self, n, v):
        """psi^(n)(x). Below zero, the n-th derivative of the reflection
        psi(1 - x) - psi(x) = pi cot(pi x): psi^(n)(x) = (-1)^n psi^(n)(1 - x)
        - pi^(n+1) Q_n(cot(pi x)). At the poles: digamma gives -inf at +0,
        +inf at -0 and NaN at the negative integers (as PyTorch); the higher
        derivatives give the pole's infinity, +inf for odd n, -inf for
        even."""
        r = self._distance_to_integer(v)
        cot = (r * math.pi).tan().reciprocal()
        reflected = self._polygamma_positive(n, 1.0 - v) * float((-1) ** n) \
            - _poly(cot, _cot_derivative(n)) * math.pi ** (n + 1)
        out = self._polygamma_positive(n, v.where(v > 0, 1.0)).where(v > 0, reflected)
        pole = (v <= 0) & r.eq(0.0)
        if n == 0:
            at_zero = v.constant(math.inf).where(self.signbit_of(v), -math.inf)
            out = out.where(~pole, math.nan).where(~v.eq(0.0), at_zero)
            out = out.where(~v.eq(math.inf), math.inf)
            return out.where(~v.eq(-math.inf), math.nan)
        out = out.where(~pole, math.inf if n % 2 else -math.inf)
        return out.where(~v.eq(math.inf), 0.0).where(~v.eq(-math.inf), math.nan)

    def digamma(self, x):
        return self._float_result(self._polygamma(0, self._float_operand(x)))

    def polygamma(self, n, x):
        if not isinstance(n, int) or n < 0:
            self.error("polygamma of order %r: the order must be a "
                       "non-negative integer" % (n,))
        return self._float_result(self._polygamma(n, self._float_operand(x)))

    # -- error function and the normal distribution -------------------------
    def _erfinv(self, x, w):
        """Giles's approximation, from x and w = -log((1 - x)(1 + x)) (the
        caller may compute w without 1 - x's cancellation); +-inf at +-1,
        NaN where w is (outside [-1, 1])."""
        central = _poly(w - 2.5, _ERFINV_CENTRAL)
        tail = _poly(w.where(w >= 5.0, 5.0).sqrt() - 3.0, _ERFINV_TAIL)
        out = x * central.where(w < 5.0, tail)
        out = out.where(~w.isnan(), math.nan)  # |x| > 1, NaN
        return out.where(~x.abs().eq(1.0), x * math.inf)

    def erfinv(self, x):
        v = self._float_operand(x)
        return self._float_result(self._erfinv(v, -((1.0 - v) * (v + 1.0)).log()))

    def ndtri(self, p):
        """The normal quantile sqrt(2) erfinv(2p - 1), with (1 - x)(1 + x) =
        4 p (1 - p) so tails keep their precision."""
        v = self._float_operand(p)
        w = -((v * (1.0 - v)) * 4.0).log()
        return self._float_result((self._erfinv(v * 2.0 - 1.0, w) * math.sqrt(2.0)))

    def _erfcx(self, v):
        """exp(x^2) erfc(x): directly up to 9, beyond it the asymptotic
        series 1/(x sqrt(pi)) (1 - 1/(2x^2) + 3/(4x^4) - ...), whose next
        term is below 2e-8 there."""
        direct = (v * v).exp() * v.erfc()
        big = v.where(v > 9.0, 9.0)
        u = (big * big).reciprocal()
        series = _poly(u, (1.0, -0.5, 0.75, -1.875, 6.5625)) \
            / (big * math.sqrt(math.pi))
        return direct.where(~(v > 9.0), series)

    def erfcx(self, x):
        return self._float_result(self._erfcx(self._float_operand(x)))

    def log_ndtr(self, x):
        """log of the normal CDF, as PyTorch: log(erfcx(-t) / 2) - t^2 below
        x = -1, log1p(-erfc(t) / 2) above (t = x / sqrt(2))."""
        v = self._float_operand(x)
        t = v * math.sqrt(0.5)
        low = (self._erfcx(-t) * 0.5).log() - t * t
        high = (t.erfc() * -0.5).log1p()
        return self._float_result(high.where(~(v < -1.0), low))

    # -- Bessel functions ----------------------------------------------------
    @staticmethod
    def _i_small(order, a):
        """I0 or I1 by the series of A&S 9.8.1/9.8.3 (|a| <= 3.75)."""
        s = a * (1.0 / 3.75)
        out = _poly(s * s, _I0_SMALL if order == 0 else _I1_SMALL)
        return out * a if order == 1 else out

    def _bessel_i(self, order, scaled, x):
        """I0 / I1 (A&S 9.8.1-9.8.4), or e^-|x| times it. I1 is odd."""
        v = self._float_operand(x)
        a = v.abs()
        small = self._i_small(order, v.where(a <= 3.75, 0.0).abs())
        if scaled:
            small = small * (-a).exp()
        big = a.where(a > 3.75, 3.75)
        large = _poly(big.reciprocal() * 3.75, _I0_LARGE if order == 0 else _I1_LARGE) \
            / big.sqrt()
        if not scaled:
            large = large * big.exp()
        out = small.where(~(a > 3.75), large)
        if not scaled:
            out = out.where(~a.eq(math.inf), math.inf)
        if order == 1:
            out = out.where(~(v < 0), -out)
        return self._float_result(out.where(~v.isnan(), v))

    def _bessel_jy(self, kind, order, x):
        """J0, J1 (J1 odd; 0 at the infinities) and Y0, Y1 (-inf at 0, NaN
        below): A&S 9.4.1-9.4.6."""
        v = self._float_operand(x)
        a = v.abs()
        near = a.where(a <= 3.0, 3.0)
        t = near * (1.0 / 3.0)
        t = t * t
        j_near = _poly(t, _J0_SMALL) if order == 0 else _poly(t, _J1_SMALL) * near
        far = a.where(a > 3.0, 3.0)
        u = far.reciprocal() * 3.0
        f = _poly(u, _F0 if order == 0 else _F1) / far.sqrt()
        theta = far + _poly(u, _THETA0 if order == 0 else _THETA1)
        if kind == "j":
            out = j_near.where(~(a > 3.0), f * theta.cos())
            if order == 1:
                out = out.where(~(v < 0), -out)
            # The branches clamp their arguments: NaN is selected back.
            return self._float_result(out.where(~a.eq(math.inf), 0.0).where(~v.isnan(), v))
        log_term = (near * 0.5).log() * (2.0 / math.pi) * j_near
        if order == 0:
            y_near = log_term + _poly(t, _Y0_SMALL)
        else:
            y_near = log_term + _poly(t, _Y1_SMALL) / near
        out = y_near.where(~(v > 3.0), f * theta.sin())
        out = out.where(~v.eq(0.0), -math.inf).where(~(v < 0), math.nan)
        return self._float_result(out.where(~v.eq(math.inf), 0.0).where(~v.isnan(), v))

    def _bessel_k(self, order, scaled, x):
        """K0, K1 (A&S 9.8.5-9.8.8), or e^x times it: inf at 0, NaN below,
        0 at inf (the scaled ones too)."""
        v = self._float_operand(x)
        near = v.where(v < 2.0, 2.0)
        half = near * 0.5
        i = self._i_small(order, near)
        if order == 0:
            k_near = -half.log() * i + _poly(half * half, _K0_SMALL)
        else:
            k_near = (near * half.log() * i + _poly(half * half, _K1_SMALL)) / near
        if scaled:
            k_near = k_near * near.exp()
        far = v.where(v > 2.0, 2.0)
        k_far = _poly(far.reciprocal() * 2.0, _K0_LARGE if order == 0 else _K1_LARGE) \
            / far.sqrt()
        if not scaled:
            k_far = k_far * (-far).exp()
        out = k_near.where(~(v > 2.0), k_far)
        out = out.where(~v.eq(0.0), math.inf).where(~(v < 0), math.nan)
        return self._float_result(out.where(~v.eq(math.inf), 0.0).where(~v.isnan(), v))

    def bessel(self, order, scaled):
        return lambda x: self._bessel_i(order, scaled, x)

    def spherical_bessel_j0(self, x):
        """sin(x) / x: 1 at 0, 0 at the infinities."""
        v = self._float_operand(x)
        out = (v.sin() / v).where(v.ne(0.0), 1.0)
        return self._float_result(out.where(~v.abs().eq(math.inf), 0.0))

    def special_table(self, t):
        t["aten.lgamma.default"] = self.lgamma
        t["aten.mvlgamma.default"] = self.mvlgamma
        t["aten.digamma.default"] = self.digamma
        t["aten.polygamma.default"] = self.polygamma
        t["aten.special_polygamma.default"] = self.polygamma
        t["aten.erfinv.default"] = self.erfinv
        t["aten.special_ndtri.default"] = self.ndtri
        t["aten.special_erfcx.default"] = self.erfcx
        t["aten.special_log_ndtr.default"] = self.log_ndtr
        for name, order, scaled in (("i0", 0, False), ("special_i0e", 0, True),
                                    ("special_i1", 1, False), ("special_i1e", 1, True),
                                    ("special_modified_bessel_i0", 0, False),
                                    ("special_modified_bessel_i1", 1, False)):
            t["aten.%s.default" % name] = self.bessel(order, scaled)
        t["aten.special_spherical_bessel_j0.default"] = self.spherical_bessel_j0
        for order in (0, 1):
            for kind in ("j", "y"):
                t["aten.special_bessel_%s%d.default" % (kind, order)] = (
                    lambda x, kind=kind, order=order: self._bessel_jy(kind, order, x))
            for prefix, scaled in (("", False), ("scaled_", True)):
                t["aten.special_%smodified_bessel_k%d.default" % (prefix, order)] = (
                    lambda x, order=order, scaled=scaled: self._bessel_k(order, scaled, x))
