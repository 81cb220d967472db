"""The importer's scans and orderings: cumulative sums, products, maxima
and log-sum-exps, sorting, top-k, k-th values, medians and modes. Each is
written as a pull over the row it reads: an element of a scan reduces the
row's prefix up to it (a mask on the row), and sorting ranks each element
by the elements that go before it (a stable count: smaller, or equal and
earlier), then each sorted position picks the element of its rank. No
data moves through memory between threads, the results are
deterministic, and PyTorch's orders hold (NaN sorts as the largest; ties
keep their order; a cumulative maximum takes the last position of its
maximum). The price is the row's length squared per row, where a scan
or a bitonic network would take the row's length (times its log). Two
cases cost less: the pulls of cumsum, cumprod, cummax and cummin (a sum,
product or extreme masked to the prefix; cummax's positions a second
such extreme; logcumsumexp's sum relative to its prefix's maximum a
composite scan) become cooperative scans in convert-loopir-to-tileir,
which recognizes the mask (n work); and a top-k
of at most 16 from a long row takes k folds of the row (k n work:
sampling from a vocabulary). A mixin of `Importer` (importer.py).
"""
import math

from .elementwise_ops import _is_float, _norm_dim, MAX, MIN, PROD, SUM


# A top-k of at most this many from a row longer than the next takes one
# fold of the row per element (k n) rather than ranking the row (n^2); at
# 64, ranking's n^2 = 4096 is about 16 rounds' work plus their kernels.
_TOPK_BY_ROUNDS_UP_TO = 16
_TOPK_BY_ROUNDS_ABOVE = 64


class OrderOps:
    # -- the pull along a row ----------------------------------------------
    def _pair(self, v, dim):
        """(element, other, i, k): `v` seen as pairs along `dim`, in the
        pull shape (v's, with the row's length again after `dim`): the
        element at position i of the row, the other at position k."""
        shape = self.shape(v)
        pull = shape[:dim + 1] + [shape[dim]] + shape[dim + 1:]
        rank = len(pull)
        element = self.expr_of(self.b.broadcast(v, pull, [d for d in range(rank) if d != dim + 1]))
        other = self.expr_of(self.b.broadcast(v, pull, [d for d in range(rank) if d != dim]))
        return element, other, self.iota(pull, dim), self.iota(pull, dim + 1)

    def _row(self, x, dim):
        """The op's input as a tensor of rank at least 1 (a 0-d input is a
        row of one) and the normalized dim."""
        v = self.value(x)
        if not self.shape(v):
            v = self.b.reshape(v, [1])
        return v, _norm_dim(dim, len(self.shape(v)))

    def _shaped(self, e, shape):
        """An expression reshaped to `shape` (the op's result: a 0-d one)."""
        if e.shape == list(shape):
            return e.value
        return self.b.reshape(e.value, list(shape))

    # -- scans -------------------------------------------------------------
    def _nan_extreme(self, values, kind, axis):
        """max or min over `axis`, NaN-propagating."""
        return values.reduce(kind, [axis])

    def _prefix_pull(self, v, dim, kind):
        """The sums (products, extremes) of each element's prefix along
        `dim`: each element reduces the row masked to k <= i (the monoid's
        identity past it: an extreme's is the infinity, or i64's extreme).
        Written so, the row's length squared per row; the loop-to-tile
        conversion recognizes the mask and scans instead (ScanSchedule)."""
        element, other, i, k = self._pair(v, dim)
        floats = _is_float(self.dtype(v))
        assert floats or kind in (SUM, PROD) or self.dtype(v) == "i64"
        low, high = (-math.inf, math.inf) if floats else (-2 ** 63, 2 ** 63 - 1)
        identity = {SUM: 0, PROD: 1, MAX: low, MIN: high}[kind]
        return other.where(k <= i, identity).reduce(kind, [dim + 1])

    def cumulative(self, kind):
        """cumsum / cumprod: each element the sum (product) of the row's
        prefix up to it, as the pull that convert-loopir-to-tileir
        recognizes and schedules as one cooperative scan per row."""
        def convert(x, dim, dtype=None):
            shape, out_dtype = self.out()
            v, dim = self._row(x, dim)
            # Halves accumulate in f32 and round each prefix once, as
            # PyTorch's kernels do (its accumulate type; an f32 scan is
            # also what the threads can shuffle).
            acc = "f32" if out_dtype in ("f16", "bf16") else out_dtype
            v = self.cast(v, acc)
            e = self._prefix_pull(v, dim, kind)
            return self._shaped(e if acc == out_dtype else e.cast(out_dtype),
                                shape)
        return convert

    def cumulative_extreme(self, kind):
        """cummax / cummin: the prefix's extreme (NaN once a NaN was seen)
        and the last position holding it (of the last NaN). Both are
        prefix scans: the extremes one of the values, the positions one of
        each record's position. A record is a point that holds its own
        prefix's extreme (a NaN, once the prefix has one); the last point
        of a prefix holding its extreme is the prefix's last record, as no
        later point of it holds the extreme without being a record."""
        def convert(x, dim):
            shape, dtype = self.out(0)
            v, dim = self._row(x, dim)
            floats = _is_float(dtype)
            # Integers and booleans scan as i64 (exact; a boolean's i1
            # has no ordered extreme), halves as f32 (exact; what the
            # threads shuffle), each with its monoid's own identity.
            v = self.cast(v, "f32" if dtype in ("f16", "bf16") else
                          dtype if floats else "i64")
            e = self.expr_of(v)
            best = self._prefix_pull(v, dim, kind)
            holds = e.eq(best)
            if floats:
                holds = holds.where(~best.isnan(), e.isnan())
            records = self.iota(e.shape, dim).where(holds, -1)
            last = self._prefix_pull(records.value, dim, MAX)
            return [self._shaped(best.cast(dtype), shape),
                    self._shaped(last, shape)]
        return convert

    def logcumsumexp(self, x, dim):
        """log of the prefix's sum of exp: its maximum m (a scan) plus log
        of the sum of exp(x - m) over the prefix, m itself where it is
        infinite. The sum is relative to each prefix's own maximum: the
        loop-to-tile conversion folds the two as one scan of online
        softmax's (max, sum) monoid, which rescales a sum when its
        maximum grows (ScanSchedule). Halves accumulate in f32."""
        shape, dtype = self.out()
        v, dim = self._row(x, dim)
        acc = "f32" if dtype in ("f16", "bf16") else dtype
        v = self.cast(v, acc)
        m = self._prefix_pull(v, dim, MAX)
        element, other, i, k = self._pair(v, dim)
        pull = element.shape
        m_b = self.expr_of(self.broadcast_dims(
            m.value, pull, [d for d in range(len(pull)) if d != dim + 1]))
        total = (other - m_b).exp().where(k <= i, 0).reduce(SUM, [dim + 1])
        result = (total.log() + m).where(m.abs() < math.inf, m)
        return self._shaped(result.cast(dtype), shape)

    def masked_scatter(self, x, mask, source):
        """Where the mask holds, the source's elements in order: element j
        takes source[(number of mask elements up to j) - 1]."""
        shape, dtype = self.out()
        total = math.prod(shape)
        m = self.cast(self.broadcast(self.value(mask), shape), "i64")
        flat_m = self.b.reshape(m, [total])
        element, other, i, k = self._pair(flat_m, 0)
        before = other.where(k <= i, 0).reduce(SUM, [1])
        s = self.cast(self.value(source), dtype)
        count = math.prod(self.shape(s))
        flat_s = self.b.reshape(s, [count])
        index = (before - 1).maximum(0).minimum(max(count - 1, 0))
        picked = self.expr_of(self.b.gather(flat_s, index.value, 0))
        base = self.expr(x, shape, dtype)
        flat_base = self.expr_of(self.b.reshape(base.value, [total]))
        chosen = picked.where(self.expr_of(flat_m).ne(0), flat_base)
        return self.b.reshape(chosen.value, shape)

    def repeat_interleave_counts(self, repeats, output_size=None):
        """repeat_interleave(repeats): output j is the number of prefix sums
        of the repeats at most j (the index its position belongs to)."""
        shape, dtype = self.out()
        r = self.cast(self.value(repeats), "i64")
        n = self.shape(r)[0]
        element, other, i, k = self._pair(r, 0)
        ends = other.where(k <= i, 0).reduce(SUM, [1])  # Inclusive prefix sums.
        length = shape[0]
        pull = [length, n]
        j = self.iota(pull, 0)
        ends_b = self.expr_of(self.broadcast_dims(ends.value, pull, [1]))
        return (ends_b <= j).cast(dtype).reduce(SUM, [1]).value

    # -- orderings -----------------------------------------------------------
    def _goes_before(self, a, b, descending):
        """Whether `a` sorts before `b` (NaN the largest)."""
        if not _is_float(a.dtype):
            return (a > b) if descending else (a < b)
        if descending:
            return (a > b) | (a.isnan() & ~b.isnan())
        return (a < b) | (b.isnan() & ~a.isnan())

    def _same(self, a, b):
        if not _is_float(a.dtype):
            return a.eq(b)
        return a.eq(b) | (a.isnan() & b.isnan())

    def _ranks(self, v, dim, descending):
        """Each element's position in the stable sort of its row: the
        elements that go before it, and the equal ones before it."""
        element, other, i, k = self._pair(v, dim)
        before = self._goes_before(other, element, descending) | (
            self._same(other, element) & (k < i))
        return before.cast("i64").reduce(SUM, [dim + 1])

    def _pick(self, v, dim, ranks, positions):
        """(values, indices): for each position r < `positions` along `dim`,
        the element of rank r and its index."""
        shape = self.shape(v)
        dtype = self.dtype(v)
        pull = shape[:dim] + [positions, shape[dim]] + shape[dim + 1:]
        rank = len(pull)
        keep = [d for d in range(rank) if d != dim]
        r = self.expr_of(self.b.broadcast(ranks.value, pull, keep))
        x = self.expr_of(self.b.broadcast(v, pull, keep))
        target = self.iota(pull, dim)
        source = self.iota(pull, dim + 1)
        hit = r.eq(target)
        low = -math.inf if _is_float(dtype) else -(2 ** 62)
        values = x.where(hit, low).reduce(MAX, [dim + 1])
        if dtype == "i1":
            values = x.cast("i8").where(hit, 0).reduce(MAX, [dim + 1]).cast("i1")
        indices = source.where(hit, -1).reduce(MAX, [dim + 1])
        return values, indices

    def sort(self, x, dim=-1, descending=False, stable=False):
        shape, dtype = self.out(0)
        v, dim = self._row(x, dim)
        ranks = self._ranks(v, dim, descending)
        values, indices = self._pick(v, dim, ranks, self.shape(v)[dim])
        return [self._shaped(values, shape), self._shaped(indices, shape)]

    def sort_stable(self, x, stable=None, dim=-1, descending=False):
        return self.sort(x, dim, descending)

    def topk(self, x, k, dim=-1, largest=True, sorted=True):
        shape, dtype = self.out(0)
        v, dim = self._row(x, dim)
        if k <= _TOPK_BY_ROUNDS_UP_TO and self.shape(v)[dim] > _TOPK_BY_ROUNDS_ABOVE:
            values, indices = self._topk_by_rounds(v, dim, k, largest)
        else:
            ranks = self._ranks(v, dim, largest)
            values, indices = self._pick(v, dim, ranks, k)
        return [self._shaped(values, shape), self._shaped(indices, shape)]

    def _topk_by_rounds(self, v, dim, k, largest):
        """The k first elements of each row in order, one per round: each
        round folds the row's remaining elements to the first one in the
        order (NaN the largest; the lowest index among equals, as the
        stable sort) and removes it. k n work per row instead of n^2."""
        shape, dtype = self.shape(v), self.dtype(v)
        keep = [d for d in range(len(shape)) if d != dim]
        x = self.expr_of(v)
        j = self.iota(shape, dim)
        floats = _is_float(dtype)
        worst = (-math.inf if largest else math.inf) if floats else \
            (-(2 ** 62) if largest else 2 ** 62)
        nan = x.isnan() if floats else None
        remaining = j.eq(j)
        values, indices = [], []
        for _ in range(k):
            numbers = remaining & ~nan if floats else remaining
            best = x.where(numbers, worst).reduce(MAX if largest else MIN, [dim])
            best_b = self.expr_of(self.broadcast_dims(best.value, shape, keep))
            candidates = numbers & x.eq(best_b)
            value = best
            if floats:
                nans = remaining & nan
                any_nan = nans.cast("i8").reduce(MAX, [dim]).ne(0)
                any_number = numbers.cast("i8").reduce(MAX, [dim]).ne(0)
                # NaN is the largest: first when largest, after every number
                # otherwise.
                take_nan = any_nan if largest else ~any_number
                take_nan_b = self.expr_of(self.broadcast_dims(take_nan.value, shape, keep))
                candidates = nans.where(take_nan_b, candidates)
                value = best.constant(math.nan).where(take_nan, best)
            index = j.where(candidates, shape[dim]).reduce(MIN, [dim])
            index_b = self.expr_of(self.broadcast_dims(index.value, shape, keep))
            remaining = remaining & j.ne(index_b)
            values.append(value)
            indices.append(index)
        return (self.expr_of(self.stack_values([v.value for v in values], dim)),
                self.expr_of(self.stack_values([i.value for i in indices], dim)))

    def _select_rank(self, v, dim, ranks, position, keepdim, shape):
        """(value, index) of the element of rank `position` (a number, or an
        expression of the row's shape with the row reduced) along `dim`."""
        element_shape = self.shape(v)
        if not isinstance(position, int):
            target = self.expr_of(self.broadcast_dims(
                position.value, element_shape,
                [d for d in range(len(element_shape)) if d != dim]))
        else:
            target = position
        hit = ranks.eq(target)
        dtype = self.dtype(v)
        low = -math.inf if _is_float(dtype) else -(2 ** 62)
        x = self.expr_of(v)
        value = x.where(hit, low).reduce(MAX, [dim], keepdim)
        index = self.iota(element_shape, dim).where(hit, -1).reduce(MAX, [dim], keepdim)
        return [self._shaped(value, shape), self._shaped(index, shape)]

    def kthvalue(self, x, k, dim=-1, keepdim=False):
        shape, _ = self.out(0)
        v, dim = self._row(x, dim)
        return self._select_rank(v, dim, self._ranks(v, dim, False), k - 1,
                                 keepdim, shape)

    def median(self, ignore_nan):
        """The lower median of each row (NaN if the row has one, unless
        `ignore_nan`: then of its numbers): the element of rank
        (count - 1) // 2."""
        def convert(x, dim=None, keepdim=False):
            whole = dim is None
            if whole:
                shape, _ = self.out()
                v = self.value(x)
                v = self.b.reshape(v, [math.prod(self.shape(v))])
                dim = 0
            else:
                shape, _ = self.out(0)
                v, dim = self._row(x, dim)
            n = self.shape(v)[dim]
            ranks = self._ranks(v, dim, False)
            e = self.expr_of(v)
            if _is_float(self.dtype(v)) and ignore_nan:
                count = (~e.isnan()).cast("i64").reduce(SUM, [dim])
                position = ((count - 1).maximum(0)) / 2
            elif _is_float(self.dtype(v)):
                # NaN sorts last: the median of a row with a NaN is its first.
                nans = e.isnan().cast("i64").reduce(SUM, [dim])
                position = (nans.constant((n - 1) // 2)).where(nans.eq(0), n - nans)
            else:
                position = (n - 1) // 2
            result = self._select_rank(v, dim, ranks, position, keepdim, shape)
            return result[0] if whole else result
        return convert

    def mode(self, x, dim=-1, keepdim=False):
        """The most frequent value of each row (the smallest of the most
        frequent), and the last position holding it."""
        shape, dtype = self.out(0)
        v, dim = self._row(x, dim)
        element, other, i, k = self._pair(v, dim)
        counts = self._same(other, element).cast("i64").reduce(SUM, [dim + 1])
        row_shape = self.shape(v)
        best = counts.reduce(MAX, [dim])
        best_b = self.expr_of(self.broadcast_dims(
            best.value, row_shape, [d for d in range(len(row_shape)) if d != dim]))
        e = self.expr_of(v)
        floats = _is_float(self.dtype(v))
        high = math.inf if floats else 2 ** 62
        value = e.where(counts.eq(best_b), high).reduce(MIN, [dim])
        value_b = self.expr_of(self.broadcast_dims(
            value.value, row_shape, [d for d in range(len(row_shape)) if d != dim]))
        index = self.iota(row_shape, dim).where(self._same(e, value_b), -1).reduce(
            MAX, [dim])
        return [self._shaped(value, shape), self._shaped(index, shape)]

    def multilabel_margin_loss(self, x, target, reduction=1):
        """Per sample, over its targets (those before the first -1) and the
        other classes j: max(0, 1 - x[target] + x[j]) / classes; with
        is_target, whether each class is a target."""
        out_shape, dtype = self.out(0)
        v = self.value(x)
        given = self.shape(v)
        xs = [1] * (2 - len(given)) + given
        n, c = xs
        v = self.cast(self.b.reshape(v, xs), dtype)
        t = self.b.reshape(self.cast(self.value(target), "i64"), xs)
        te = self.expr_of(t)
        ks = self.iota(xs, 1)
        first_end = ks.where(te.eq(-1), c).reduce(MIN, [1])
        valid = ks < self.expr_of(self.broadcast_dims(first_end.value, xs, [0]))
        # is_target[n, j]: a valid target names j.
        pull = [n, c, c]  # n, j, k
        tj = self.expr_of(self.broadcast_dims(t, pull, [0, 2]))
        vj = self.expr_of(self.broadcast_dims(valid.value, pull, [0, 2]))
        is_target = (tj.eq(self.iota(pull, 1)) & vj).cast("i8").reduce(MAX, [2]).ne(0)
        # x at each valid target, against every class not a target.
        safe = te.where(valid, 0)
        xt = self.expr_of(self.take_flat(v, safe + self.iota(xs, 0) * c))
        xt_b = self.expr_of(self.broadcast_dims(xt.value, pull, [0, 2]))
        xj_b = self.expr_of(self.broadcast_dims(v, pull, [0, 1]))
        margin = (xt_b * -1.0 + 1.0 + xj_b).maximum(0.0)
        counted = vj & ~self.expr_of(self.broadcast_dims(is_target.value, pull, [0, 1]))
        per_sample = margin.where(counted, 0.0).reduce(SUM, [1, 2]) / float(c)
        target_mask = self.b.reshape(is_target.cast(dtype).value, self.out(1)[0])
        if reduction == 0:
            return [self.b.reshape(per_sample.value, out_shape),
                    target_mask]
        total = per_sample.reduce(SUM, [0])
        return [(total / float(n)).value if reduction == 1 else total.value,
                target_mask]

    def order_table(self, t):
        t["aten.cumsum.default"] = self.cumulative(SUM)
        t["aten.cumprod.default"] = self.cumulative(PROD)
        t["aten.cummax.default"] = self.cumulative_extreme(MAX)
        t["aten.cummin.default"] = self.cumulative_extreme(MIN)
        t["aten.logcumsumexp.default"] = self.logcumsumexp
        t["aten.masked_scatter.default"] = self.masked_scatter
        t["aten.repeat_interleave.Tensor"] = self.repeat_interleave_counts
        t["aten.sort.default"] = self.sort
        t["aten.sort.stable"] = self.sort_stable
        t["aten.topk.default"] = self.topk
        t["aten.kthvalue.default"] = self.kthvalue
        t["aten.median.default"] = self.median(False)
        t["aten.median.dim"] = self.median(False)
        t["aten.nanmedian.default"] = self.median(True)
        t["aten.nanmedian.dim"] = self.median(True)
        t["aten.mode.default"] = self.mode
        t["aten.multilabel_margin_loss_forward.default"] = self.multilabel_margin_loss
