"""The importer's small linear algebra and factories: products written as
Strata's contractions (vdot, addmv, addr, addbmm, bilinear forms, pairwise
distances, attention), traces and cross products, and factories whose
values follow from their shapes (eye, linspace, triangle indices). A mixin
of `Importer` (importer.py).
"""
import math

import numpy as np

from .elementwise_ops import _is_float, _norm_dim, SUM



class LinalgOps:
    def _scaled(self, v, factor):
        if factor == 1:
            return v
        shape, dtype = self.shape(v), self.dtype(v)
        return self.b.mul(v, self.b.splat(float(factor), shape, dtype))

    def _beta_alpha(self, bias, product, beta, alpha):
        """beta * bias + alpha * product (bias not read for beta 0)."""
        shape, dtype = self.out()
        product = self._scaled(product, alpha)
        if beta == 0:
            return product
        bias = self._scaled(self.operand(bias, shape, dtype), beta)
        return self.b.add(product, bias)

    def vdot(self, a, b):
        return self.einsum("i,i->", [a, b])

    def addmv(self, bias, mat, vec, beta=1, alpha=1):
        return self._beta_alpha(bias, self.einsum("ij,j->i", [mat, vec]), beta, alpha)

    def addr(self, bias, v1, v2, beta=1, alpha=1):
        return self._beta_alpha(bias, self.einsum("i,j->ij", [v1, v2]), beta, alpha)

    def addbmm(self, bias, b1, b2, beta=1, alpha=1):
        return self._beta_alpha(bias, self.einsum("bik,bkj->ij", [b1, b2]),
                                beta, alpha)

    def trace(self, x):
        """The sum of the main diagonal (a strided view of the matrix)."""
        diagonal = self._diagonal_of(self.value(x), 0, 0, 1)
        shape, dtype = self.out()
        return self.b.reduce(SUM, self.cast(diagonal, dtype), [0], keepdim=False)

    def cross(self, a, b, dim=-1):
        """a x b along `dim` (of size 3): rotated views multiplied."""
        shape, dtype = self.out()
        dim = _norm_dim(dim, len(shape))
        x, y = self.operand(a, shape, dtype), self.operand(b, shape, dtype)

        def rotated(v, k):  # v[(i + k) mod 3] along dim
            parts = []
            for i in range(3):
                offsets = [((i + k) % 3) if d == dim else 0 for d in range(len(shape))]
                one = [1 if d == dim else s for d, s in enumerate(shape)]
                parts.append(self.b.slice(v, offsets, one, [1] * len(shape)))
            return self.expr_of(self.b.concat(parts, dim))
        return (rotated(x, 1) * rotated(y, 2) - rotated(x, 2) * rotated(y, 1)).value

    def cdist(self, x1, x2, p, compute_mode=None):
        """Distances between the rows of x1 and x2, batched: the p-norm of
        their differences over a broadcast (..., P, R, M)."""
        shape, dtype = self.out()
        a, b = self.value(x1), self.value(x2)
        sa, sb = self.shape(a), self.shape(b)
        lead, m = shape[:-2], sa[-1]
        full = lead + [sa[-2], sb[-2], m]
        n = len(full)
        ea = self.expr_of(self.b.broadcast(self.cast(a, dtype), full, list(range(n - 3)) + [n - 3, n - 1]))
        eb = self.expr_of(self.b.broadcast(self.cast(b, dtype), full, list(range(n - 3)) + [n - 2, n - 1]))
        return self._p_norm(ea - eb, p, [n - 1]).value

    def pdist(self, x, p=2):
        """The distances of each pair i < j of rows, in PyTorch's order:
        the rows gathered by constant index vectors of the pairs."""
        shape, dtype = self.out()
        v = self.cast(self.value(x), dtype)
        n, m = self.shape(v)
        firsts, seconds = np.triu_indices(n, 1)
        if len(firsts) == 0:
            return self.b.splat(0.0, shape, dtype)
        rows = []
        for index in (firsts, seconds):
            ids = self.b.constant(index.astype(np.int64).tobytes(), [len(index)], "i64")
            rows.append(self.expr_of(self.b.gather(v, ids, 0)))
        return self._p_norm(rows[0] - rows[1], p, [1]).value

    def trilinear(self, i1, i2, i3, expand1, expand2, expand3, sumdim,
                  unroll_dim=1):
        """aten._trilinear (F.bilinear): each operand with unit dims at its
        expand positions, multiplied, summed over `sumdim`."""
        shape, dtype = self.out()
        factors = []
        for t, expand in ((i1, expand1), (i2, expand2), (i3, expand3)):
            v = self.cast(self.value(t), dtype)
            for d in sorted(expand):
                v = self.unsqueeze(v, d)
            factors.append(v)
        full = [max(s) for s in zip(*[self.shape(f) for f in factors])]
        product = None
        for f in factors:
            e = self.expr_of(self.b.broadcast(f, full, list(range(len(full))))
                             if self.shape(f) != full else f)
            product = e if product is None else product * e
        if not sumdim:
            return product.value
        return product.reduce(SUM, list(sumdim)).value

    def sdpa(self, q, k, v, attn_mask=None, dropout_p=0.0, need_attn_weights=False,
             is_causal=False):
        """torch 1.13's _scaled_dot_product_attention_forward (eval):
        softmax(q k^T / sqrt(E) + mask) v, through Strata's matmul and
        softmax (so the attention path recognizes it)."""
        if dropout_p:
            self.error("attention dropout is random: not compiled")
        out_shape, dtype = self.out(0)
        qv, kv, vv = (self.value(t) for t in (q, k, v))
        sq, sk = self.shape(qv), self.shape(kv)
        scores_shape = sq[:-1] + [sk[-2]]
        rank = len(sk)
        perm = list(range(rank - 2)) + [rank - 1, rank - 2]
        kt = self.transpose_dims(kv, perm)
        scores = self.b.matmul(qv, kt)
        scores = self._scaled(scores, 1.0 / math.sqrt(sq[-1]))
        if is_causal:
            rows = self.b.iota(scores_shape, len(scores_shape) - 2, "i64")
            cols = self.b.iota(scores_shape, len(scores_shape) - 1, "i64")
            keep = self.expr_of(cols) <= self.expr_of(rows)
            scores = self.select(keep.value, scores,
                                 self.b.splat(-math.inf, scores_shape, dtype))
        if attn_mask is not None:
            mask = self.value(attn_mask)
            if self.dtype(mask) == "i1":
                scores = self.select(self.broadcast(mask, scores_shape), scores,
                                     self.b.splat(-math.inf, scores_shape, dtype))
            else:
                scores = self.b.add(scores, self.operand(
                    attn_mask, scores_shape, dtype))
        weights = self.b.softmax(scores, len(scores_shape) - 1)
        out = self.b.matmul(weights, vv)
        return [out, weights if need_attn_weights else None]

    # -- factories ---------------------------------------------------------
    def eye(self, n, m=None, **kw):
        shape, dtype = self.out()
        rows = self.b.iota(shape, 0, "i64")
        cols = self.b.iota(shape, 1, "i64")
        on = self.expr_of(rows).eq(self.expr_of(cols))
        return on.cast(dtype).value

    def linspace(self, start, end, steps, **kw):
        """PyTorch's: start + i step for the first half, end - (steps - 1 -
        i) step for the second (exact at both ends)."""
        shape, dtype = self.out()
        if steps <= 1:
            return self.b.splat(float(start), shape, dtype)
        compute = dtype if _is_float(dtype) else "f32"
        i = self.expr_of(self.cast(self.b.iota(shape, 0, "i64"), compute))
        step = (float(end) - float(start)) / (steps - 1)
        first = i * step + float(start)
        second = (i - float(steps - 1)) * step + float(end)
        return first.where(i < float(steps // 2), second).cast(dtype).value

    def logspace(self, start, end, steps, base=10.0, **kw):
        shape, dtype = self.out()
        compute = dtype if _is_float(dtype) else "f32"
        exponents = self.expr_of(self.cast(self.linspace(start, end, steps), compute))
        return (exponents.constant(float(base)) ** exponents).cast(dtype).value

    def triangle_indices(self, upper):
        """triu_indices / tril_indices: their values follow from the shape,
        a constant of the program."""
        def convert(row, col, offset=0, **kw):
            shape, dtype = self.out()
            rows, cols = (np.triu_indices(row, offset, col) if upper
                          else np.tril_indices(row, offset, col))
            data = np.stack([rows, cols]).astype(np.int64)
            return self.b.constant(data.tobytes(), shape, "i64")
        return convert

    def linalg_table(self, t):
        t["aten.vdot.default"] = self.vdot
        t["aten.addmv.default"] = self.addmv
        t["aten.addr.default"] = self.addr
        t["aten.addbmm.default"] = self.addbmm
        t["aten.trace.default"] = self.trace
        t["aten.linalg_cross.default"] = self.cross
        t["aten._cdist_forward.default"] = self.cdist
        t["aten._pdist_forward.default"] = self.pdist
        t["aten._trilinear.default"] = self.trilinear
        t["aten._scaled_dot_product_attention_forward.default"] = self.sdpa
        t["aten.eye.default"] = self.eye
        t["aten.eye.m"] = self.eye
        t["aten.linspace.default"] = self.linspace
        t["aten.logspace.default"] = self.logspace
        t["aten.triu_indices.default"] = self.triangle_indices(True)
        t["aten.tril_indices.default"] = self.triangle_indices(False)
