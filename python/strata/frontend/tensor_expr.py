"""Elementwise formulas over tensorir values, written as arithmetic: what
the importer uses where PyTorch's op is a formula of atomic ops (hypot,
logaddexp, losses, special functions).

    e = TensorExpr.of(importer, value)      # or importer.expr(arg, shape, dtype)
    r = (e * e + 1.0).sqrt().where(e > 0, 0.0)
    r.value                                  # the builder's value id

Every operand has the shape and dtype of the first (Python numbers become
splat constants); comparisons give booleans. The ops are tensorir's, built
through the importer's builder, never text.
"""

from .elementwise_ops import EQ, NE, LT, LE, GT, GE

_UNARY = ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt",
          "rsqrt", "erf", "erfc", "sin", "cos", "tan", "asin", "acos", "atan",
          "sinh", "cosh", "tanh", "floor", "ceil", "round", "trunc", "abs",
          "neg", "sign", "sigmoid", "reciprocal")


class TensorExpr:
    def __init__(self, importer, value):
        self.i = importer
        self.value = value

    @classmethod
    def of(cls, importer, value):
        return cls(importer, value)

    @property
    def shape(self):
        return self.i.shape(self.value)

    @property
    def dtype(self):
        return self.i.dtype(self.value)

    def _wrap(self, value):
        return TensorExpr(self.i, value)

    def lift(self, other, dtype=None):
        """`other` (an expression or a Python number) as a value of this
        shape (and `dtype`, or this one's)."""
        dtype = dtype or self.dtype
        if isinstance(other, TensorExpr):
            return self.i.cast(other.value, dtype)
        return self.i.splat(other, self.shape, dtype)

    def constant(self, number):
        return self._wrap(self.lift(number))

    def _binary(self, name, other, swap=False):
        a, b = self.value, self.lift(other)
        if swap:
            a, b = b, a
        return self._wrap(getattr(self.i.b, name)(a, b))

    def __add__(self, o): return self._binary("add", o)
    def __radd__(self, o): return self._binary("add", o, True)
    def __sub__(self, o): return self._binary("sub", o)
    def __rsub__(self, o): return self._binary("sub", o, True)
    def __mul__(self, o): return self._binary("mul", o)
    def __rmul__(self, o): return self._binary("mul", o, True)
    def __truediv__(self, o): return self._binary("div", o)
    def __rtruediv__(self, o): return self._binary("div", o, True)
    def __pow__(self, o): return self._binary("pow", o)
    def __neg__(self): return self.apply("neg")

    def maximum(self, o): return self._binary("max", o)
    def minimum(self, o): return self._binary("min", o)
    def rem(self, o): return self._binary("rem", o)

    def apply(self, name):
        """The tensorir elementwise op `name` of this value."""
        return self._wrap(getattr(self.i.b, name)(self.value))

    def __getattr__(self, name):
        if name in _UNARY:
            return lambda: self.apply(name)
        raise AttributeError(name)

    def _compare(self, predicate, other):
        return self._wrap(self.i.b.cmp(predicate, self.value, self.lift(other)))

    def __lt__(self, o): return self._compare(LT, o)
    def __le__(self, o): return self._compare(LE, o)
    def __gt__(self, o): return self._compare(GT, o)
    def __ge__(self, o): return self._compare(GE, o)
    def eq(self, o): return self._compare(EQ, o)
    def ne(self, o): return self._compare(NE, o)

    def isnan(self):
        return self.ne(self)

    def logical(self, name, other):
        """and/or/xor of booleans."""
        return self._wrap(getattr(self.i.b, name)(self.value, self.lift(other, "i1")))

    def __and__(self, o): return self.logical("and", o)
    def __or__(self, o): return self.logical("or", o)

    def __invert__(self):
        return self.logical("xor", True)

    def where(self, condition, otherwise):
        """This value where `condition` holds, `otherwise` elsewhere."""
        return self._wrap(self.i.b.select(condition.value, self.value, self.lift(otherwise)))

    def cast(self, dtype):
        return self._wrap(self.i.cast(self.value, dtype))

    def reduce(self, kind, axes, keepdim=False):
        """tensorir.reduce (a ReduceKind) over `axes`."""
        return self._wrap(self.i.b.reduce(kind, self.value, sorted(axes), keepdim=bool(keepdim)))
