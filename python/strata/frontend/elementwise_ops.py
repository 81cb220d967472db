"""The importer's elementwise math beyond arithmetic: float functions,
rounding, integer division and remainders, bitwise and logical ops, float
classification. A mixin of `Importer` (importer.py), which provides
`elementwise`, `operand`, `out` and the builder.
"""

import math

import torch

from _strata import CmpPredicate, ReduceKind

# Float functions of one operand that map to one tensorir op each (integer
# inputs compute in the float dtype PyTorch gives the result).
FLOAT_FUNCTIONS = (
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
    "erf", "erfc", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
    "cosh", "tanh", "asinh", "acosh", "atanh", "reciprocal", "sigmoid")

ROUNDINGS = ("floor", "ceil", "round", "trunc")

# tensorir's enums, bound from their TableGen definitions (_strata).
EQ, NE, LT, LE, GT, GE = (CmpPredicate.eq, CmpPredicate.ne, CmpPredicate.lt,
                          CmpPredicate.le, CmpPredicate.gt, CmpPredicate.ge)
SUM, PROD, MAX, MIN = (ReduceKind.sum, ReduceKind.prod, ReduceKind.max,
                       ReduceKind.min)

# The overloads of a binary aten op: a tensor or a Python scalar on the right.
_SCALAR_AND_TENSOR = ("Tensor", "Scalar")


def _is_float(dtype):
    return dtype in ("f32", "f16", "bf16", "f64")


def _norm_dim(d, rank):
    return d + rank if d < 0 else d


# Largest finite value per float dtype (nan_to_num's default bounds).
_FLOAT_MAX = {"f32": torch.finfo(torch.float32).max,
              "f16": torch.finfo(torch.float16).max,
              "bf16": torch.finfo(torch.bfloat16).max,
              "f64": torch.finfo(torch.float64).max}


class ElementwiseOps:
    def cmp(self, predicate, a, b):
        """tensorir.cmp of two values of one shape and dtype."""
        return self.b.cmp(predicate, a, b)

    def select(self, condition, a, b):
        return self.b.select(condition, a, b)

    def rounding(self, name):
        """floor/ceil/round/trunc: the identity on integers, as in PyTorch."""
        def convert(x, *rest, **kw):
            shape, dtype = self.out()
            if not _is_float(dtype):
                return self.cast(self.value(x), dtype)
            return self.elementwise(name, [x])
        return convert

    def round_decimals(self, x, decimals=0):
        # As PyTorch: nearbyint(x * 10^d) / 10^d, or nearbyint(x / 10^-d)
        # * 10^-d for negative d.
        shape, dtype = self.out()
        if not _is_float(dtype) or decimals == 0:
            return self.rounding("round")(x)
        scale = self.b.splat(10.0 ** abs(decimals), shape, dtype)
        v = self.cast(self.value(x), dtype)
        inward, outward = (("mul", "div") if decimals > 0
                           else ("div", "mul"))
        scaled = getattr(self.b, inward)(v, scale)
        rounded = self.b.round(scaled)
        return getattr(self.b, outward)(rounded, scale)

    def frac(self, x):
        shape, dtype = self.out()
        v = self.cast(self.value(x), dtype)
        return self.b.sub(v, self.b.trunc(v))

    def divide(self, x, y, rounding_mode=None):
        """torch.div: true division, or rounded toward zero ("trunc") or
        down ("floor")."""
        if rounding_mode is None:
            return self.elementwise("div", [x, y])
        shape, dtype = self.out()
        if rounding_mode == "floor":
            return self.elementwise("floor_div", [x, y])
        if rounding_mode != "trunc":
            self.error("division with rounding_mode=%r is not supported"
                       % rounding_mode)
        quotient = self.elementwise("div", [x, y])
        if not _is_float(dtype):  # Signed integer division truncates.
            return quotient
        return self.b.trunc(quotient)

    def bitwise(self, name):
        def convert(x, y):
            shape, dtype = self.out()
            if _is_float(dtype):
                self.error("%s of floats is not defined" % self.node.target)
            return self.elementwise(name, [x, y])
        return convert

    def bitwise_not(self, x):
        shape, dtype = self.out()
        if _is_float(dtype):
            self.error("bitwise_not of floats is not defined")
        ones = self.b.splat(-1.0, shape, dtype)  # All bits set (true for i1).
        return self.b.xor(self.value(x), ones)

    def truth(self, arg, shape):
        """`arg != 0` as booleans of `shape` (a tensor or a Python scalar)."""
        if isinstance(arg, torch.fx.Node):
            return self.broadcast(self.cast(self.value(arg), "i1"), shape)
        return self.b.splat(1.0 if arg else 0.0, shape, "i1")

    def logical(self, name):
        def convert(x, y):
            shape, dtype = self.out()
            result = getattr(self.b, name)(self.truth(x, shape), self.truth(y, shape))
            return self.cast(result, dtype)
        return convert

    def logical_not(self, x):
        shape, dtype = self.out()
        true = self.b.splat(1.0, shape, "i1")
        result = self.b.xor(self.truth(x, shape), true)
        return self.cast(result, dtype)

    def classify(self, kind):
        """isnan, isinf, isposinf, isneginf, isfinite: comparisons; integers
        are never NaN or infinite."""
        def convert(x):
            shape, _ = self.out()
            v = self.value(x)
            dtype = self.dtype(v)
            if not _is_float(dtype):
                return self.b.splat(1.0 if kind == "isfinite" else 0.0, shape, "i1")
            inf = self.b.splat(math.inf, shape, dtype)
            if kind == "isnan":
                return self.cmp(NE, v, v)
            if kind == "isposinf":
                return self.cmp(EQ, v, inf)
            if kind == "isneginf":
                return self.cmp(EQ, v, self.b.splat(-math.inf, shape, dtype))
            magnitude = self.b.abs(v)
            # |x| < inf is false for NaN, as isfinite is.
            return self.cmp(EQ if kind == "isinf" else LT, magnitude, inf)
        return convert

    def nan_to_num(self, x, nan=None, posinf=None, neginf=None):
        shape, dtype = self.out()
        v = self.value(x)
        if not _is_float(dtype):
            return v
        biggest = _FLOAT_MAX[dtype]
        for test, replacement in (
                ("isnan", 0.0 if nan is None else nan),
                ("isposinf", biggest if posinf is None else posinf),
                ("isneginf", -biggest if neginf is None else neginf)):
            hit = self.classify(test)(x)
            v = self.select(hit, self.b.splat(float(replacement), shape, dtype), v)
        return v

    def clamp_tensors(self, x, min=None, max=None):
        """clamp with tensor (or scalar) bounds: min(max(x, lo), hi),
        NaN-propagating."""
        shape, dtype = self.out()
        v = self.operand(x, shape, dtype)
        if min is not None:
            v = self.b.max(v, self.operand(min, shape, dtype))
        if max is not None:
            v = self.b.min(v, self.operand(max, shape, dtype))
        return v

    def log_sigmoid(self, x):
        # min(x, 0) - log1p(exp(-|x|)): no overflow for large |x|.
        shape, dtype = self.out(0)
        v = self.cast(self.value(x), dtype)
        zero = self.b.splat(0.0, shape, dtype)
        smaller = self.b.min(v, zero)
        magnitude = self.b.abs(v)
        negated = self.b.neg(magnitude)
        tail = self.b.log1p(self.b.exp(negated))
        return [self.b.sub(smaller, tail), None]

    def rrelu_with_noise(self, x, noise, lower=0.125, upper=1 / 3,
                         training=False, generator=None):
        """RReLU outside training: a leaky ReLU whose slope is the mean of
        the range it would draw from in training (PyTorch's eval)."""
        if training:
            self.error("rrelu in training draws a random slope per element: "
                       "not compiled")
        shape, dtype = self.out()
        v = self.expr(x, shape, dtype)
        return v.where(v >= 0, v * ((lower + upper) / 2)).value

    def elementwise_table(self, t):
        for name in FLOAT_FUNCTIONS:
            t["aten.%s.default" % name] = self.unary(name)
        for name in ROUNDINGS:
            t["aten.%s.default" % name] = self.rounding(name)
        t["aten.round.decimals"] = self.round_decimals
        t["aten.frac.default"] = self.frac
        t["aten.sign.default"] = self.unary("sign")
        t["aten.sgn.default"] = self.unary("sign")
        t["aten.atan2.default"] = self.binary("atan2")
        for overload in _SCALAR_AND_TENSOR:
            t["aten.fmod." + overload] = self.binary("rem")
            t["aten.remainder." + overload] = self.binary("mod")
            t["aten.floor_divide." + overload] = self.binary("floor_div")
            for name in ("and", "or", "xor"):
                t["aten.bitwise_%s.%s" % (name, overload)] = \
                    self.bitwise(name)
        t["aten.floor_divide.default"] = self.binary("floor_div")
        t["aten.div.Tensor"] = self.divide
        t["aten.div.Scalar"] = self.divide
        t["aten.div.Tensor_mode"] = self.divide
        t["aten.div.Scalar_mode"] = self.divide
        t["aten.bitwise_not.default"] = self.bitwise_not
        for name in ("and", "or", "xor"):
            t["aten.logical_%s.default" % name] = self.logical(name)
        t["aten.logical_not.default"] = self.logical_not
        for kind in ("isnan", "isinf", "isposinf", "isneginf", "isfinite"):
            t["aten.%s.default" % kind] = self.classify(kind)
        t["aten.nan_to_num.default"] = self.nan_to_num
        t["aten.clamp.Tensor"] = self.clamp_tensors
        t["aten.clamp_min.Tensor"] = lambda x, m: self.clamp_tensors(x, min=m)
        t["aten.clamp_max.Tensor"] = lambda x, m: self.clamp_tensors(x, max=m)
        t["aten.log_sigmoid_forward.default"] = self.log_sigmoid
        t["aten.rrelu_with_noise.default"] = self.rrelu_with_noise
