"""Imports an aten-level FX graph into tensorir, one aten op at a time.

Each aten op maps to one tensorir op (composites such as softmax stay
composite; tensorir-decompose breaks them up later). NumPy broadcasting and
type promotion are made explicit here: the importer inserts
tensorir.broadcast and tensorir.cast where PyTorch does them implicitly.
The IR is built through the C++ ProgramBuilder, never as text.
"""

import math
import operator

import torch

import _strata
from .capture import (FrontendError, Program, functional_variant,
                      in_place_target_problem, is_live, user_source_line)
from .elementwise_ops import (ElementwiseOps, _is_float, _norm_dim, GE, LE, MAX,
                              MIN, NE, PROD, SUM)
from .layout_ops import LayoutOps, StructureOps
from .index_ops import IndexOps
from .linalg_ops import LinalgOps
from .loss_ops import LossOps
from .order_ops import OrderOps
from .math_ops import MathOps
from .special_ops import SpecialOps
from .tensor_expr import TensorExpr
from .window_ops import WindowOps

DTYPES = {
    torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16",
    torch.float64: "f64", torch.int64: "i64", torch.int32: "i32",
    torch.int16: "i16", torch.int8: "i8", torch.bool: "i1",
}


# The ops whose PyTorch CPU kernels take a Python number with a half
# tensor at float precision (the op's "opmath" type) and round the result
# once: x * 0.7 in bf16 multiplies by 0.7, not by bf16(0.7) = 0.6992, and
# floor_divide(2.797, 0.7) is 3, not 4. Measured on torch 2.9.1 against
# each alternative: add, sub, pow, remainder and fmod round the number to
# the tensor's dtype first (and so does Strata for them).
_OPMATH_SCALAR_OPS = ("mul", "div", "floor_div")


class UnsupportedOperation(FrontendError):
    """A PyTorch operation Strata cannot import; names the op and the user's
    source line."""


def _dtype(t):
    if t not in DTYPES:
        raise UnsupportedOperation("unsupported dtype %s" % t)
    return DTYPES[t]


def _meta(node):
    """Shape and dtype of a node's value(s): shape propagation's tensor_meta
    or the (fake) tensor the tracer recorded."""
    meta = node.meta.get("tensor_meta")
    if meta is None:
        val = node.meta.get("val")
        if isinstance(val, (torch.Tensor, tuple, list)):
            return val
    return meta




def _is_dead(node):
    """A call nothing reads that changes nothing (an in-place op is never
    dead: dropping it would be wrong code, so it reaches the table)."""
    schema = getattr(node.target, "_schema", None)
    return not node.users and schema is not None and not schema.is_mutable


def view_of_copy(key):
    """The view op a `*_copy` op copies (`aten.permute_copy.default` ->
    `aten.permute.default`, torch 2.x's functional views): in a functional
    program the two give the same values."""
    namespace, _, rest = key.partition(".")
    name, _, overload = rest.partition(".")
    if not name.endswith("_copy"):
        return None
    return "%s.%s.%s" % (namespace, name[:-len("_copy")], overload)


def _numel(shape):
    return math.prod(shape)


class Importer(ElementwiseOps, MathOps, SpecialOps, LayoutOps, StructureOps,
               WindowOps, LinalgOps, LossOps, IndexOps, OrderOps):
    def __init__(self, program: Program, name="forward"):
        self.program = program
        self.b = _strata.ProgramBuilder(name)
        self.values = {}  # fx node -> value id, or list of ids (tuples)
        self.node = None

    # -- helpers -----------------------------------------------------------
    def error(self, message):
        where = (user_source_line(self.node, self.program.innermost_first)
                 if self.node is not None else None)
        at = " at %s:%d" % where if where else ""
        raise UnsupportedOperation(message + at)

    def out(self, index=None):
        meta = _meta(self.node)
        if index is not None:
            if meta is None:  # A multi-output node: its getitems know.
                for user in self.node.users:
                    if user.target is operator.getitem and user.args[1] == index:
                        meta = _meta(user)
                if meta is None:
                    self.error("no shape is known for output %d of '%s'"
                               % (index, self.node.target))
            else:
                meta = meta[index]
        if meta is None:
            self.error("no shape is known for '%s'" % self.node.target)
        return list(meta.shape), _dtype(meta.dtype)

    def shape(self, v):
        return list(self.b.shape(v))

    def dtype(self, v):
        return self.b.dtype(v)

    def cast(self, v, dtype):
        if self.dtype(v) == dtype:
            return v
        return self.b.cast(v, dtype)

    def broadcast(self, v, shape):
        """NumPy broadcasting of `v` to `shape`, made explicit."""
        have = self.shape(v)
        if have == list(shape):
            return v
        offset = len(shape) - len(have)
        if offset < 0:
            self.error("cannot broadcast %s to %s" % (have, shape))
        dims = list(range(offset, len(shape)))
        return self.b.broadcast(v, shape, dims)

    def operand(self, arg, shape, dtype):
        """A tensor operand of an elementwise op: a graph value or a Python
        scalar, broadcast to `shape` and cast to `dtype`."""
        if isinstance(arg, torch.fx.Node) or getattr(arg, "op", None) == "known":
            return self.broadcast(self.cast(self.value(arg), dtype), shape)
        if isinstance(arg, (bool, int, float)):
            return self.splat(arg, shape, dtype)
        self.error("unsupported operand %r of %s" % (arg, self.node.target))

    def splat(self, value, shape, dtype):
        """A constant tensor of `shape`; a Python integer stays exact (a
        float holds integers only up to 2^53)."""
        if not isinstance(value, int):
            value = float(value)
        return self.b.splat(value, list(shape), dtype)

    def promoted(self, x, y):
        """The dtype PyTorch computes a binary op of `x` and `y` in."""
        def sample(a):
            if isinstance(a, torch.fx.Node):
                m = _meta(a)
                # A 0-d tensor promotes like a scalar, so keep its rank.
                return torch.empty(() if len(m.shape) == 0 else (1,), dtype=m.dtype)
            return a
        return _dtype(torch.result_type(sample(x), sample(y)))

    def expr(self, arg, shape, dtype):
        """`arg` (a graph value or a Python number) as a TensorExpr of
        `shape` and `dtype`, broadcast and cast (tensor_expr.py)."""
        return TensorExpr(self, self.operand(arg, shape, dtype))

    def expr_of(self, value):
        """A TensorExpr of a builder value, as it is."""
        return TensorExpr(self, value)

    def value(self, arg):
        if hasattr(arg, "value") and getattr(arg, "op", None) == "known":
            return arg.value
        if not isinstance(arg, torch.fx.Node):
            self.error("expected a tensor, got %r" % (arg,))
        return self.values[arg]

    # -- conversions -------------------------------------------------------
    def elementwise(self, name, args, compute_dtype=None):
        shape, dtype = self.out()
        compute = compute_dtype or dtype
        if compute_dtype is None and dtype in ("f16", "bf16") and \
                name in _OPMATH_SCALAR_OPS and any(
                    isinstance(a, (int, float)) and not isinstance(a, bool)
                    for a in args):
            compute = "f32"
        ops = [self.operand(a, shape, compute) for a in args]
        result = getattr(self.b, name)(*ops)
        return self.cast(result, dtype)

    def binary(self, name):
        def convert(x, y, alpha=1):
            if alpha != 1:
                if name not in ("add", "sub"):
                    self.error("alpha is only supported for add and sub")
                shape, dtype = self.out()
                y = self.b.mul(self.operand(y, shape, dtype), self.b.splat(float(alpha), shape, dtype))
                return getattr(self.b, name)(self.operand(x, shape, dtype), y)
            return self.elementwise(name, [x, y])
        return convert

    def unary(self, name):
        return lambda x, *rest, **kw: self.elementwise(name, [x])

    def compare(self, predicate):
        def convert(x, y):
            shape, _ = self.out()
            dtype = self.promoted(x, y)
            a, b = self.operand(x, shape, dtype), self.operand(y, shape, dtype)
            return self.b.cmp(predicate, a, b)
        return convert

    def identity(self, x, *rest, **kw):
        return self.value(x)

    def copy_into(self, dst, src, non_blocking=False):
        return self.operand(src, *self.out())

    def to_dtype(self, x, *rest, **kw):
        shape, dtype = self.out()
        return self.cast(self.value(x), dtype)

    def rsub(self, x, y, alpha=1):
        return self.binary("sub")(y, x, alpha)

    def pow(self, x, exponent):
        shape, dtype = self.out()
        if not _is_float(dtype):
            self.error("integer pow is not supported")
        return self.elementwise("pow", [x, exponent])

    def gelu(self, x, approximate="none"):
        shape, dtype = self.out()
        return self.b.gelu(self.value(x), tanh=(approximate == "tanh"))

    def clamp(self, x, min=None, max=None):
        shape, dtype = self.out()
        # tensorir.clamp's bounds are doubles: an integer bound a double
        # does not hold exactly is a constant operand instead.
        if any(isinstance(bound, int) and float(bound) != bound
               for bound in (min, max)):
            return self.clamp_tensors(x, min, max)
        return self.b.clamp(self.cast(self.value(x), dtype),
                            None if min is None else float(min),
                            None if max is None else float(max))

    def hardtanh(self, x, min_val=-1.0, max_val=1.0):
        return self.clamp(x, min_val, max_val)

    def in_place(self, convert):
        """An in-place op (`t.masked_fill_(mask, v)`, `squeeze_`) on a
        tensor the program made, as its functional form `convert`, whose
        result the written tensor is from here on (in_place_target_problem
        says when that is exact). PyTorch's own decompositions and modules
        make these (matmul of a vector, attention masks)."""
        def apply(x, *args, **kwargs):
            problem = in_place_target_problem(self.node)
            if problem:
                self.error("unsupported in-place PyTorch operation '%s': %s"
                           % (self.node.target, problem))
            value = convert(x, *args, **kwargs)
            self.values[x] = value
            return value
        return apply

    def where(self, cond, x, y):
        shape, dtype = self.out()
        c = self.broadcast(self.value(cond), shape)
        return self.b.select(c, self.operand(x, shape, dtype), self.operand(y, shape, dtype))

    def masked_fill(self, x, mask, value):
        return self.where(mask, value, x)

    # Reductions
    def _axes(self, x, dims):
        rank = len(_meta(x).shape)
        # A 0-d tensor's dims (0 or -1) name no axis: reductions of it
        # reduce nothing.
        if dims is None or dims == [] or rank == 0:
            return list(range(rank))
        if isinstance(dims, int):
            dims = [dims]
        return sorted(_norm_dim(d, rank) for d in dims)

    def reduce(self, kind):
        def convert(x, dims=None, keepdim=False, dtype=None):
            shape, out_dtype = self.out()
            v = self.cast(self.value(x), out_dtype)
            return self.b.reduce(kind, v, self._axes(x, dims), keepdim=bool(keepdim))
        return convert

    def reduce_all(self, kind):
        return lambda x, dtype=None: self.reduce(kind)(x, None, False)

    def mean(self, x, dims=None, keepdim=False, dtype=None):
        shape, dtype = self.out()
        return self.b.mean(self.cast(self.value(x), dtype), self._axes(x, dims), keepdim=bool(keepdim))

    def var(self, x, dims=None, unbiased=None, keepdim=False, correction=None):
        shape, dtype = self.out()
        if correction is None:
            correction = 1 if unbiased is None or unbiased else 0
        return self.b.var(self.value(x), self._axes(x, dims), int(correction), keepdim=bool(keepdim))

    def std(self, x, dims=None, unbiased=None, keepdim=False, correction=None):
        shape, dtype = self.out()
        variance = self.var(x, dims, unbiased, keepdim, correction)
        return self.b.sqrt(variance)

    def arg_reduce(self, kind):
        def convert(x, dim, keepdim=False):
            rank = len(_meta(x).shape)
            if rank == 0:  # The extreme of one element, at position 0.
                return [self.value(x), self.b.splat(0.0, [], "i64")]
            return list(self.b.arg_reduce(kind, self.value(x),
                                          _norm_dim(dim, rank), bool(keepdim)))
        return convert

    def any_all(self, kind):
        """any: a count of the true elements, nonzero (0 for none); all: the
        least truth value (1 for none)."""
        def convert(x, dims=None, keepdim=False):
            shape, dtype = self.out()
            truth = self.cast(self.cast(self.value(x), "i1"),
                              "i64" if kind == "any" else "i8")
            reduced = self.b.reduce(SUM if kind == "any" else MIN, truth, self._axes(x, dims), keepdim=bool(keepdim))
            return self.cast(self.cast(reduced, "i1"), dtype)
        return convert

    def arg_index(self, kind):
        """argmax/argmin: the index result of an arg-reduction; without a
        dim, over the flattened tensor."""
        def convert(x, dim=None, keepdim=False):
            if dim is not None:
                return self.arg_reduce(kind)(x, dim, keepdim)[1]
            shape, _ = self.out()
            v = self.value(x)
            flat = self.b.reshape(v, [_numel(self.shape(v))])
            index = self.b.arg_reduce(kind, flat, 0)[1]
            return self.b.reshape(index, shape)
        return convert

    def softmax(self, name):
        def convert(x, dim, half_to_float=False):
            shape, dtype = self.out()
            v = self.cast(self.value(x), dtype)
            if not shape:  # A 0-d tensor's softmax is over its one element.
                row = self.b.reshape(v, [1])
                result = getattr(self.b, name)(row, 0)
                return self.b.reshape(result, [])
            return getattr(self.b, name)(v, _norm_dim(dim, len(shape)))
        return convert

    def layer_norm(self, x, normalized_shape, weight=None, bias=None, eps=1e-5):
        shape, dtype = self.out(0)
        # The weight and bias are optional operands: None where absent.
        weight, bias = [None if t is None else self.value(t) for t in (weight, bias)]
        y = self.b.layer_norm(self.value(x), weight, bias,
                              normalized_rank=len(normalized_shape), eps=float(eps))
        # The saved mean and 1 / std (for autograd) where the program reads
        # them: the statistics over the normalized dims, kept.
        live = {u.args[1] for u in self.node.users
                if u.target is operator.getitem and is_live(u)}
        if not live & {1, 2}:
            return [y, None, None]
        axes = list(range(len(shape) - len(normalized_shape), len(shape)))
        stats_shape, stats_dtype = self.out(1)
        v = self.cast(self.value(x), stats_dtype)
        mean = self.b.mean(v, axes, keepdim=True)
        var = self.b.var(v, axes, 0, keepdim=True)
        rstd = self.expr_of(var) + float(eps)
        return [y, mean, rstd.rsqrt().value]

    # Contractions
    def matmul(self, a, b):
        shape, dtype = self.out()
        return self.b.matmul(self.value(a), self.value(b))

    def addmm(self, bias, a, b, beta=1, alpha=1):
        """beta * bias + alpha * (a @ b) (addmm, baddbmm); with beta = 0
        the bias is not read (its NaNs do not propagate), as in PyTorch."""
        shape, dtype = self.out()
        product = self.b.matmul(self.value(a), self.value(b))
        if alpha != 1:
            product = self.b.mul(product, self.b.splat(float(alpha), shape, dtype))
        if beta == 0:
            return product
        bias = self.operand(bias, shape, dtype)
        if beta != 1:
            bias = self.b.mul(bias, self.b.splat(float(beta), shape, dtype))
        return self.b.add(product, bias)

    def linear(self, x, weight, bias=None):
        shape, dtype = self.out()
        return self.b.linear(self.value(x), self.value(weight),
                             None if bias is None else self.value(bias))

    def einsum(self, equation, operands):
        shape, dtype = self.out()
        return self.b.einsum(equation.replace(" ", ""), [self.value(o) for o in operands])

    # Layout
    def transpose_t(self, x):
        shape, dtype = self.out()
        rank = len(shape)
        if rank < 2:
            return self.value(x)
        return self.b.transpose(self.value(x), [1, 0])

    def transpose(self, x, d0, d1):
        shape, dtype = self.out()
        rank = len(shape)
        perm = list(range(rank))
        d0, d1 = _norm_dim(d0, rank), _norm_dim(d1, rank)
        perm[d0], perm[d1] = perm[d1], perm[d0]
        return self.b.transpose(self.value(x), perm)

    def permute(self, x, dims):
        shape, dtype = self.out()
        perm = [_norm_dim(d, len(shape)) for d in dims]
        return self.b.transpose(self.value(x), perm)

    def reshape(self, x, *rest, **kw):
        shape, dtype = self.out()
        v = self.value(x)
        if self.shape(v) == shape:
            return v
        return self.b.reshape(v, shape)

    def expand(self, x, sizes, implicit=False):
        shape, dtype = self.out()
        return self.broadcast(self.value(x), shape)

    def slice(self, x, dim=0, start=None, end=None, step=1):
        shape, dtype = self.out()
        in_shape = list(_meta(x).shape)
        rank = len(in_shape)
        dim = _norm_dim(dim, rank)
        begin, _, _ = slice(start, end, step).indices(in_shape[dim])
        offsets = [0] * rank
        strides = [1] * rank
        offsets[dim], strides[dim] = begin, step
        if shape == in_shape:
            return self.value(x)
        return self.b.slice(self.value(x), offsets, shape, strides)

    def select_index(self, x, dim, index):
        shape, dtype = self.out()
        in_shape = list(_meta(x).shape)
        rank = len(in_shape)
        dim = _norm_dim(dim, rank)
        index = index + in_shape[dim] if index < 0 else index
        sliced_shape = list(in_shape)
        sliced_shape[dim] = 1
        offsets = [0] * rank
        offsets[dim] = index
        s = self.b.slice(self.value(x), offsets, sliced_shape, [1] * rank)
        return self.b.reshape(s, shape)

    def split(self, x, split_size, dim=0):
        in_shape = list(_meta(x).shape)
        rank = len(in_shape)
        dim = _norm_dim(dim, rank)
        if isinstance(split_size, int):
            sizes = [min(split_size, in_shape[dim] - s)
                     for s in range(0, in_shape[dim], split_size)]
        else:
            sizes = list(split_size)
        results, begin = [], 0
        for size in sizes:
            shape = list(in_shape)
            shape[dim] = size
            offsets = [0] * rank
            offsets[dim] = begin
            results.append(self.b.slice(self.value(x), offsets, shape, [1] * rank))
            begin += size
        return results

    def cat(self, tensors, dim=0):
        shape, dtype = self.out()
        # PyTorch skips 1-D empty tensors whatever the others' rank (legacy
        # torch.cat); if all are such, the result is one of them.
        kept = [t for t in tensors if list(_meta(t).shape) != [0]] or tensors[:1]
        values = [self.cast(self.value(t), dtype) for t in kept]
        return self.b.concat(values, _norm_dim(dim, len(shape)))

    def embedding(self, weight, indices, *rest):
        shape, dtype = self.out()
        return self.b.gather(self.value(weight), self.value(indices), 0)

    def index_select(self, x, dim, index):
        shape, dtype = self.out()
        v, ids = self.value(x), self.value(index)
        if not self.shape(v):  # A 0-d tensor's one element, by a 1-element index.
            v = self.b.reshape(v, [1])
            if self.shape(ids) != [1]:
                ids = self.b.reshape(ids, [1])
            picked = self.b.gather(v, ids, 0)
            return self.b.reshape(picked, shape)
        return self.b.gather(v, ids, _norm_dim(dim, len(self.shape(v))))

    # Generators
    def full(self, size, fill_value, *rest, **kw):
        shape, dtype = self.out()
        return self.splat(fill_value, shape, dtype)

    def full_like(self, x, fill_value, *rest, **kw):
        return self.full(None, fill_value)

    def fill(self, value):
        return lambda *args, **kw: self.full(None, value)

    def scalar_tensor(self, value, *rest, **kw):
        return self.full(None, value)

    def arange(self, start, end=None, step=1, **kw):
        if end is None:
            start, end = 0, start
        shape, dtype = self.out()
        iota = self.b.iota(shape, 0, "i64")
        v = self.cast(iota, dtype)
        if step != 1:
            v = self.b.mul(v, self.b.splat(float(step), shape, dtype))
        if start != 0:
            v = self.b.add(v, self.b.splat(float(start), shape, dtype))
        return v

    def triangle(self, upper):
        def convert(x, diagonal=0):
            shape, dtype = self.out()
            rank = len(shape)
            rows = self.b.iota(shape, rank - 2, "i64")
            cols = self.b.iota(shape, rank - 1, "i64")
            # triu keeps col - row >= diagonal; tril keeps col - row <= diagonal.
            diff = self.b.sub(cols, rows)
            k = self.b.splat(float(diagonal), shape, "i64")
            keep = self.b.cmp(GE if upper else LE, diff, k)
            zero = self.b.splat(0.0, shape, dtype)
            return self.b.select(keep, self.value(x), zero)
        return convert

    def getitem(self, container, index):
        values = self.values[container]
        if not isinstance(values, list):
            self.error("unsupported use of a multi-output operation")
        if values[index] is None and is_live(self.node):
            self.error("output %d of '%s' is not supported"
                       % (index, container.target))
        return values[index]

    # -- the table -----------------------------------------------------------
    def table(self):
        t = {}
        for name in ("add", "sub", "mul"):
            for overload in ("Tensor", "Scalar"):
                t["aten.%s.%s" % (name, overload)] = self.binary(name)
        t["aten.rsub.Scalar"] = self.rsub
        t["aten.rsub.Tensor"] = self.rsub
        t["aten.maximum.default"] = self.binary("max")
        t["aten.minimum.default"] = self.binary("min")
        t["aten.pow.Tensor_Scalar"] = self.pow
        t["aten.pow.Tensor_Tensor"] = self.pow
        for name in ("neg", "abs"):
            t["aten.%s.default" % name] = self.unary(name)
        self.elementwise_table(t)
        self.layout_table(t)
        self.window_table(t)
        self.math_table(t)
        self.special_table(t)
        self.structure_table(t)
        self.linalg_table(t)
        self.loss_table(t)
        self.index_table(t)
        self.order_table(t)
        self.functional_forms_table(t)
        t["aten.relu.default"] = self.unary("relu")
        t["aten.silu.default"] = self.unary("silu")
        t["aten.gelu.default"] = self.gelu
        t["aten.clamp.default"] = self.clamp
        t["aten.hardtanh.default"] = self.hardtanh
        t["aten.clamp_min.default"] = lambda x, m: self.clamp(x, min=m)
        t["aten.clamp_max.default"] = lambda x, m: self.clamp(x, max=m)
        # ATen's comparisons are named as tensorir's predicates.
        for name, predicate in _strata.CmpPredicate.__members__.items():
            t["aten.%s.Tensor" % name] = self.compare(predicate)
            t["aten.%s.Scalar" % name] = self.compare(predicate)
        for overload in ("self", "ScalarSelf", "ScalarOther", "Scalar"):
            t["aten.where." + overload] = self.where
        t["aten.masked_fill.Scalar"] = self.masked_fill
        t["aten.masked_fill.Tensor"] = self.masked_fill
        for name in ("clone", "alias", "detach", "lift_fresh_copy", "contiguous"):
            t["aten.%s.default" % name] = self.identity
        t["aten._to_copy.default"] = self.to_dtype
        # The functional forms of `dst.copy_(src)` (a slice assignment after
        # functionalization) and of `dst.fill_(t)` with a 0-d tensor (torch
        # 1.13's functionalized `x[0] = 3.0`): src broadcast to dst's shape
        # in dst's dtype.
        t["aten.copy.default"] = self.copy_into
        t["aten.fill.Tensor"] = self.copy_into
        t["aten.to.dtype"] = self.to_dtype
        t["aten.sum.dim_IntList"] = self.reduce(SUM)
        t["aten.sum.default"] = self.reduce_all(SUM)
        t["aten.prod.dim_int"] = lambda x, dim, keepdim=False, dtype=None: \
            self.reduce(PROD)(x, [dim], keepdim)
        t["aten.prod.default"] = self.reduce_all(PROD)
        t["aten.amax.default"] = self.reduce(MAX)
        t["aten.amin.default"] = self.reduce(MIN)
        t["aten.max.default"] = self.reduce_all(MAX)
        t["aten.min.default"] = self.reduce_all(MIN)
        t["aten.max.dim"] = self.arg_reduce(MAX)
        t["aten.argmax.default"] = self.arg_index(MAX)
        t["aten.argmin.default"] = self.arg_index(MIN)
        for kind in ("any", "all"):
            for overload in ("default", "dim", "dims"):
                t["aten.%s.%s" % (kind, overload)] = self.any_all(kind)
        t["aten.min.dim"] = self.arg_reduce(MIN)
        t["aten.mean.dim"] = self.mean
        t["aten.mean.default"] = lambda x, dtype=None: self.mean(x)
        t["aten.var.correction"] = lambda x, dims=None, correction=None, keepdim=False: \
            self.var(x, dims, None, keepdim, correction)
        t["aten.var.dim"] = self.var
        t["aten.std.correction"] = lambda x, dims=None, correction=None, keepdim=False: \
            self.std(x, dims, None, keepdim, correction)
        t["aten.std.dim"] = self.std
        t["aten._softmax.default"] = self.softmax("softmax")
        t["aten._log_softmax.default"] = self.softmax("log_softmax")
        t["aten.softmax.int"] = lambda x, dim, dtype=None: \
            self.softmax("softmax")(x, dim)
        t["aten.log_softmax.int"] = lambda x, dim, dtype=None: \
            self.softmax("log_softmax")(x, dim)
        t["aten.native_layer_norm.default"] = self.layer_norm
        t["aten.mm.default"] = self.matmul
        t["aten.bmm.default"] = self.matmul
        t["aten.addmm.default"] = self.addmm
        t["aten.baddbmm.default"] = self.addmm
        t["aten.linear.default"] = self.linear
        t["aten.einsum.default"] = self.einsum
        t["aten.mv.default"] = lambda a, v: self.einsum("ij,j->i", [a, v])
        t["aten.dot.default"] = lambda a, b: self.einsum("i,i->", [a, b])
        t["aten.t.default"] = self.transpose_t
        t["aten.transpose.int"] = self.transpose
        t["aten.permute.default"] = self.permute
        for name in ("view.default", "_unsafe_view.default", "reshape.default",
                     "unsqueeze.default", "squeeze.dim", "squeeze.default",
                     "flatten.using_ints", "view_copy.default",
                     "_reshape_alias.default", "squeeze.dims"):
            t["aten." + name] = self.reshape
        # In-place ops whose functional twin is named otherwise (the rest
        # run: functional_variant).
        t["aten.transpose_.default"] = self.in_place(self.transpose)
        self.prims_table(t)
        t["aten.expand.default"] = self.expand
        t["aten.slice.Tensor"] = self.slice
        t["aten.select.int"] = self.select_index
        t["aten.split.Tensor"] = self.split
        t["aten.split_with_sizes.default"] = self.split
        t["aten.unsafe_split.Tensor"] = self.split  # split without view tracking
        t["aten.unsafe_split_with_sizes.default"] = self.split
        t["aten.cat.default"] = self.cat
        t["aten.embedding.default"] = self.embedding
        t["aten.index_select.default"] = self.index_select
        t["aten.full.default"] = self.full
        t["aten.full_like.default"] = self.full_like
        t["aten.zeros.default"] = self.fill(0)
        t["aten.fill.Scalar"] = lambda x, value: self.full(None, value)
        t["aten.ones.default"] = self.fill(1)
        t["aten.zeros_like.default"] = self.fill(0)
        t["aten.ones_like.default"] = self.fill(1)
        t["aten.scalar_tensor.default"] = self.scalar_tensor
        t["aten.arange.start_step"] = self.arange
        t["aten.arange.start"] = self.arange
        t["aten.arange.default"] = self.arange
        t["aten.triu.default"] = self.triangle(upper=True)
        t["aten.tril.default"] = self.triangle(upper=False)
        return t

    def copy(self, dst, src, *rest, **kw):
        """dst.copy_(src) and prims.copy_to: src, cast and broadcast to
        dst's shape and dtype."""
        shape, dtype = self.out()
        return self.operand(src, shape, dtype)

    def functional_forms_table(self, t):
        """In-place ops PyTorch's decompositions apply to a tensor they made
        (a fresh `empty` filled or copied into) with no functional twin of
        their name in the table (the others: functional_variant)."""
        t["aten.fill_.Tensor"] = self.in_place(
            lambda x, value: self.operand(value, *self.out()))
        t["aten.zero_.default"] = self.in_place(lambda x: self.full(None, 0))
        t["aten.copy_.default"] = self.in_place(self.copy)
        t["prims.copy_to.default"] = self.copy

    def prims_table(self, t):
        """The prims that torch 1.13's decompositions (logsumexp, softplus,
        var_mean, huber_loss, ...) leave in an aten graph."""
        t["prims.where.default"] = self.where
        t["prims.ne.default"] = self.compare(NE)
        t["prims.convert_element_type.default"] = self.to_dtype
        t["prims.sum.default"] = lambda x, dims, output_dtype=None: \
            self.reduce(SUM)(x, dims)
        t["prims.var.default"] = lambda x, dims, correction, output_dtype=None: \
            self.var(x, dims, correction=correction)
        t["prims.div.default"] = self.divide
        # Prims with the meaning of an aten op the importer takes.
        for name in ("sqrt", "expm1", "exp", "log", "log1p", "abs", "neg", "sign",
                     "floor", "ceil", "trunc", "sin", "cos", "tanh", "erf",
                     "isfinite", "bitwise_not", "reciprocal"):
            t["prims.%s.default" % name] = t["aten.%s.default" % name]
        for name in ("add", "sub", "mul", "eq", "lt", "le", "gt", "ge",
                     "bitwise_and", "bitwise_or", "bitwise_xor", "fmod",
                     "remainder"):
            t["prims.%s.default" % name] = t["aten.%s.Tensor" % name]
        for name in ("maximum", "minimum", "atan2"):
            t["prims.%s.default" % name] = t["aten.%s.default" % name]
        t["prims.broadcast_in_dim.default"] = self.broadcast_in_dim

    def broadcast_in_dim(self, x, shape, broadcast_dimensions):
        out_shape, dtype = self.out()
        return self.b.broadcast(self.value(x), out_shape, list(broadcast_dimensions))

    @classmethod
    def supported_ops(cls):
        """The names (str(op)) of the aten and prims ops the importer takes."""
        return frozenset(cls.__new__(cls).table())

    # -- driver --------------------------------------------------------------
    def run(self):
        table = self.table()
        graph = self.program.graph.graph
        outputs = None
        for node in graph.nodes:
            self.node = node
            where = user_source_line(node, self.program.innermost_first)
            self.b.set_location(where[0] if where else "", where[1] if where else 0,
                                str(node.target) if node.op == "call_function" else "")
            if node.op == "placeholder":
                meta = _meta(node)
                self.values[node] = self.b.input(list(meta.shape), _dtype(meta.dtype))
            elif node.op == "call_function":
                if node.target is operator.getitem:
                    self.values[node] = self.getitem(*node.args)
                    continue
                if _is_dead(node):  # Unused outputs of decompositions.
                    continue
                key = str(node.target)
                convert = table.get(key)
                functional = functional_variant(node.target)
                if convert is None and functional in table:
                    convert = self.in_place(table[functional])
                if convert is None:
                    convert = table.get(view_of_copy(key))
                if convert is None:
                    self.error("unsupported PyTorch operation '%s'" % key)
                self.values[node] = convert(*node.args, **node.kwargs)
            elif node.op == "output":
                outputs = node.args[0]
            else:
                self.error("unsupported FX node '%s'" % node.op)
        def leaves(o):  # Nested tuples of results, in order.
            return ([leaf for x in o for leaf in leaves(x)]
                    if isinstance(o, (list, tuple)) else [o])
        flat = leaves(outputs)
        ids = []
        for o in flat:
            if not isinstance(o, torch.fx.Node):
                self.node = None
                raise UnsupportedOperation("the program returns a non-tensor %r" % (o,))
            ids.append(self.values[o])
        return self.b.finish(ids)


def import_program(program: Program, name="forward"):
    """Builds the tensorir module of a captured program."""
    return Importer(program, name).run()
