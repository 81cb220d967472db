"""The importer's indexing by tensors: gathers (torch.gather, take,
advanced indexing, nll_loss) read through positions computed from the
indices and iotas (tensorir.gather of the flattened input); scatters
(scatter, scatter_add, scatter_reduce, index_put, index_add, index_copy,
index_fill, index_reduce, put, max_unpool, *_scatter) are written the
other way round, as pulls: each output element reduces over the indices
that name it (a comparison, a select, a reduction over the index's
extent). No element is written twice and the result is deterministic
(where several indices name one element, the last one's value wins, as
PyTorch's CPU kernels). A pull costs the output's size times the index's
extent along the scattered dimension: cheap where few indices land in
each row (a KV-cache update, a one-hot), quadratic where many do. A mixin
of `Importer` (importer.py).
"""
import math

from .elementwise_ops import _is_float, _norm_dim, MAX, MIN, PROD, SUM


def selection_layout(rank, indexed):
    """PyTorch's placement of x[indices] for a tensor of `rank` dimensions
    indexed by tensors at `indexed` (sorted): (before, after), the whole
    dimensions that stand before the indices' broadcast dimensions and
    after them. The broadcast dimensions stand in place of the indexed ones
    where those are adjacent, in front otherwise."""
    whole = [d for d in range(rank) if d not in indexed]
    adjacent = indexed == list(range(indexed[0], indexed[-1] + 1))
    before = [d for d in whole if d < indexed[0]] if adjacent else []
    return before, [d for d in whole if d not in before]



class _Known:
    """A value the importer built, passed where a graph node goes (value()
    and operand() take it)."""
    op = "known"

    def __init__(self, value):
        self.value = value


def _strides(shape):
    strides, total = [], 1
    for s in reversed(shape):
        strides.insert(0, total)
        total *= s
    return strides


class IndexOps:
    def iota(self, shape, dim):
        return self.expr_of(self.b.iota(list(shape), dim, "i64"))

    def take_flat(self, v, positions):
        """v's elements (row-major) at `positions` (an i64 expression), in
        the positions' shape."""
        total = math.prod(self.shape(v))
        flat = self.b.reshape(v, [total])
        return self.b.gather(flat, positions.value, 0)

    def wrapped(self, index, size):
        """An index expression with negative values counted from the end."""
        return (index + size).where(index < 0, index)

    # -- gathers -----------------------------------------------------------
    def gather(self, x, dim, index, sparse_grad=False):
        """out[..., i, ...] = x[..., index[..., i, ...], ...] along `dim`."""
        v = self.value(x)
        xs = self.shape(v)
        ids = self.expr_of(self.cast(self.value(index), "i64"))
        shape = ids.shape
        if not xs:
            return self.take_flat(v, ids * 0)
        dim = _norm_dim(dim, len(xs))
        positions = ids * 0
        for d, stride in enumerate(_strides(xs)):
            coord = ids if d == dim else self.iota(shape, d)
            positions = positions + coord * stride
        return self.take_flat(v, positions)

    def take(self, x, index):
        v = self.value(x)
        ids = self.wrapped(self.expr_of(self.cast(self.value(index), "i64")),
                           math.prod(self.shape(v)))
        return self.take_flat(v, ids)

    def advanced_index(self, x, indices):
        """x[i0, i1, ...] with index tensors (None for whole dimensions)."""
        v = self.value(x)
        indices = list(indices)
        for i in indices:
            if i is not None and self.dtype(self.value(i)) == "i1":
                self.error("indexing with a boolean mask selects a number of "
                           "elements the values decide")
        _, positions = self._indexed_positions(self.shape(v), indices)
        return self.take_flat(v, positions)

    def _indexed_positions(self, xs, indices):
        """(shape, positions): the selection x[indices] of a tensor of shape
        `xs` by index tensors (None for whole dimensions), and the flat
        position in x of each of its elements: the indices broadcast,
        placed as selection_layout says."""
        indices = list(indices) + [None] * (len(xs) - len(indices))
        indexed = [d for d, i in enumerate(indices) if i is not None]
        bshape = list(self.shape_of_broadcast(*[indices[d] for d in indexed]))
        before, after = selection_layout(len(xs), indexed)
        shape = [xs[d] for d in before] + bshape + [xs[d] for d in after]
        b_dims = list(range(len(before), len(before) + len(bshape)))
        positions = self.iota(shape, 0) * 0
        strides = _strides(xs)
        for d in indexed:
            i = self.cast(self.value(indices[d]), "i64")
            i = self.b.broadcast(i, shape, b_dims[len(bshape) - len(self.shape(i)):])
            positions = positions + self.wrapped(self.expr_of(i), xs[d]) * strides[d]
        for k, d in enumerate(before):
            positions = positions + self.iota(shape, k) * strides[d]
        for k, d in enumerate(after):
            positions = positions + self.iota(shape, len(before) + len(bshape) + k) * strides[d]
        return shape, positions

    # -- pulls: scatters the other way round -------------------------------
    def _pull(self, base, dim, index, source, mode, include_self=True):
        """The scatter of `source` into `base` along `dim` by `index` (both
        expressions already of the pull's shape: base's with the index's
        extent K inserted after `dim`), combined by `mode` ("last", "add",
        "prod", "amax", "amin", "mean"). Index values outside [0, base's
        extent) name no element."""
        pull = index.shape
        k_axis = dim + 1
        j = self.iota(pull, dim)
        match = index.eq(j)
        hit = match.cast("i8").reduce(MAX, [k_axis])
        hit = hit.ne(0)
        float_type = _is_float(base.dtype)
        low = -math.inf if float_type else -(2 ** 62)
        high = math.inf if float_type else 2 ** 62
        if mode == "last":
            last = self.iota(pull, k_axis).where(match, -1).reduce(MAX, [k_axis])
            k = self.iota(pull, k_axis)
            last_b = self.expr_of(self.broadcast_dims(last.value, pull,
                                                      [d for d in range(len(pull))
                                                       if d != k_axis]))
            picked = source.where(k.eq(last_b), low).reduce(MAX, [k_axis])
            return picked.where(hit, base)
        if mode in ("add", "mean"):
            total = source.where(match, 0).reduce(SUM, [k_axis])
            if mode == "mean":
                count = match.cast(base.dtype).reduce(SUM, [k_axis])
                if include_self:
                    total, count = total + base, count + 1
                mean = total / count.maximum(1) if float_type else \
                    self.expr_of(self.b.floor_div(total.value, count.maximum(1).value))
                return mean.where(hit, base)
            return (base + total) if include_self else total.where(hit, base)
        if mode == "prod":
            product = source.where(match, 1).reduce(PROD, [k_axis])
            return (base * product) if include_self else product.where(hit, base)
        kind, identity = (MAX, low) if mode == "amax" else (MIN, high)
        extreme = source.where(match, identity).reduce(kind, [k_axis])
        if include_self:
            extreme = extreme.maximum(base) if kind == MAX else extreme.minimum(base)
        return extreme.where(hit, base)

    def _along(self, v, pull, index_dims):
        """`v` broadcast to the pull shape `pull`, its dims at `index_dims`."""
        return self.expr_of(self.b.broadcast(v, pull, index_dims))

    def _scatter(self, mode, src_is_value=False):
        """scatter / scatter_add / scatter_reduce along `dim` by an index of
        the input's rank: the index (and source) padded to the input's
        extent in the other dims with -1 (names nothing)."""
        def convert(x, dim, index, src, reduce=None, include_self=True):
            shape, dtype = self.out()
            how = mode or {"sum": "add", "prod": "prod", "mean": "mean",
                           "amax": "amax", "amin": "amin",
                           "add": "add", "multiply": "prod"}[reduce]
            if not shape:  # One element: as a vector of one.
                return self.as_vector(lambda: convert(
                    self.vector_of(x), 0, self.vector_of(index),
                    self.vector_of(src) if hasattr(src, "op") else src,
                    reduce, include_self))
            base = self.expr(x, shape, dtype)
            dim = _norm_dim(dim, len(shape))
            ids = self.cast(self.value(index), "i64")
            ishape = self.shape(ids)
            if not all(ishape):
                return base.value
            high = [0 if d == dim else shape[d] - ishape[d] for d in range(len(shape))]
            padded = self.b.pad(ids, [0] * len(shape), high, -1.0) if any(high) else ids
            if src_is_value or not hasattr(src, "op"):
                source = self.b.splat(float(src), ishape, dtype)
            else:
                source = self.cast(self.value(src), dtype)
                sshape = self.shape(source)
                if sshape != ishape:
                    source = self.b.slice(source, [0] * len(shape), ishape, [1] * len(shape))
            if any(high):
                source = self.b.pad(source, [0] * len(shape), high, 0.0)
            pull = shape[:dim + 1] + [ishape[dim]] + shape[dim + 1:]
            dims = [d for d in range(len(pull)) if d != dim]
            return self._pull(base, dim, self._along(padded, pull, dims),
                              self._along(source, pull, dims),
                              how, include_self).value
        return convert

    def vector_of(self, arg):
        """A graph value of rank 0 as a vector of one element (a fake node
        whose value the importer knows); others as they are."""
        v = self.value(arg)
        if self.shape(v):
            return arg
        return _Known(self.b.reshape(v, [1]))

    def as_vector(self, compute):
        """`compute()` with the op's 0-d result seen as a vector of one,
        reshaped back."""
        shape, dtype = self.out()
        saved = self.out
        self.out = lambda index=None: ([1], dtype)
        try:
            v = compute()
        finally:
            self.out = saved
        return self.b.reshape(v, shape)

    def _index_along(self, mode):
        """index_add / index_copy / index_fill / index_reduce: a 1-D index
        along `dim` naming slices of the input; the source's slices (or a
        value) combined into them."""
        def convert(x, dim, index, source, *rest, **kw):
            shape, dtype = self.out()
            if not shape:  # One element: as a vector of one.
                return self.as_vector(lambda: convert(
                    self.vector_of(x), 0, index,
                    self.vector_of(source) if hasattr(source, "op") else source,
                    *rest, **kw))
            base = self.expr(x, shape, dtype)
            dim = _norm_dim(dim, len(shape))
            ids = self.cast(self.value(index), "i64")
            if not self.shape(ids):
                ids = self.b.reshape(ids, [1])
            k = self.shape(ids)[0]
            pull = shape[:dim + 1] + [k] + shape[dim + 1:]
            index_b = self._along(ids, pull, [dim + 1])
            index_b = self.wrapped(index_b, shape[dim])
            if mode == "fill":
                src = self.b.splat(float(source) if not hasattr(source, "op") else 0.0,
                                   pull, dtype)
                if hasattr(source, "op"):
                    src = self.broadcast(self.cast(self.value(source), dtype), pull)
                source_b = self.expr_of(src)
            else:
                s = self.cast(self.value(source), dtype)
                ss = self.shape(s)
                if not ss:
                    s = self.b.reshape(s, [1] * len(shape))
                    ss = self.shape(s)
                source_b = self._along(s, pull,
                                       [d for d in range(len(pull)) if d != dim])
            how, include_self = {"add": ("add", True), "copy": ("last", True),
                                 "fill": ("last", True)}.get(mode, (None, None))
            if mode == "add":
                alpha = kw.get("alpha", rest[0] if rest else 1)
                if alpha != 1:
                    source_b = source_b * float(alpha)
            if mode == "reduce":
                how = {"prod": "prod", "mean": "mean", "amax": "amax",
                       "amin": "amin"}[rest[0]]
                include_self = kw.get("include_self", rest[1] if len(rest) > 1 else True)
            return self._pull(base, dim, index_b, source_b, how, include_self).value
        return convert

    def index_put(self, x, indices, values, accumulate=False):
        """x[indices] = values (or +=): positions from the indices as for
        advanced indexing, pulled into the flattened input."""
        shape, dtype = self.out()
        v = self.cast(self.value(x), dtype)
        xs = self.shape(v)
        indices = list(indices) + [None] * (len(xs) - len(indices))
        if any(i is not None and self.dtype(self.value(i)) == "i1"
               for i in indices):
            return self._masked_put(v, indices, values, accumulate)
        sel_shape, positions = self._indexed_positions(xs, indices)
        vals = self.operand(values, sel_shape, dtype)
        return self._put_flat(v, positions, self.expr_of(vals),
                              "add" if accumulate else "last")

    def _masked_put(self, v, indices, values, accumulate):
        """x[mask] = value with one leading boolean mask and one value (the
        masked_fill of PyTorch's own decompositions): a select. Several
        values would be compacted in mask order, which no kernel does."""
        shape, dtype = self.shape(v), self.dtype(v)
        mask = indices[0]
        if mask is None or any(i is not None for i in indices[1:]):
            self.error("index_put with a boolean mask other than one leading "
                       "mask is not supported")
        m = self.value(mask)
        mshape = self.shape(m)
        if mshape != shape[:len(mshape)]:
            self.error("index_put mask of shape %s does not match %s"
                       % (mshape, shape))
        tensor_value = not isinstance(values, (bool, int, float))
        if tensor_value and math.prod(self.shape(self.value(values))) != 1:
            self.error("index_put with a boolean mask and more than one value "
                       "is not supported")
        m = self.b.broadcast(m, shape, list(range(len(mshape))))
        if tensor_value:
            vals = self.b.reshape(self.cast(self.value(values), dtype), [])
            vals = self.broadcast(vals, shape)
        else:
            vals = self.operand(values, shape, dtype)
        if accumulate:
            zero = self.b.splat(0.0, shape, dtype)
            vals = self.b.select(m, vals, zero)
            return self.b.add(v, vals)
        return self.b.select(m, vals, v)

    def _put_flat(self, v, positions, values, how):
        """`values` put at flat `positions` of `v`, pulled."""
        xs = self.shape(v)
        total = math.prod(xs)
        k = math.prod(positions.shape)
        flat_v = self.b.reshape(v, [total])
        flat_p = self.b.reshape(positions.value, [k])
        flat_s = self.b.reshape(values.value, [k])
        pull = [total, k]
        out = self._pull(self.expr_of(flat_v), 0,
                         self._along(flat_p, pull, [1]),
                         self._along(flat_s, pull, [1]), how)
        return self.b.reshape(out.value, xs)

    def as_strided_scatter(self, x, src, size, stride, storage_offset=None):
        """The input with its strided view (offset + sum(i_k stride_k) in
        the row-major elements) replaced by `src`; where the view overlaps
        itself, the last of src's elements there wins (PyTorch leaves that
        case undefined)."""
        shape, dtype = self.out()
        v = self.cast(self.value(x), dtype)
        size = list(size)
        positions = self.iota(size, 0) * 0 + (storage_offset or 0)
        for d, st in enumerate(stride):
            positions = positions + self.iota(size, d) * st
        values = self.expr_of(self.cast(self.value(src), dtype))
        return self._put_flat(v, positions, values, "last")

    def put(self, x, index, source, accumulate=False):
        v = self.value(x)
        total = math.prod(self.shape(v))
        ids = self.wrapped(self.expr_of(self.cast(self.value(index), "i64")), total)
        vals = self.expr_of(self.cast(self.value(source), self.dtype(v)))
        return self._put_flat(v, ids, vals, "add" if accumulate else "last")

    def select_scatter(self, x, src, dim, index):
        shape, dtype = self.out()
        dim = _norm_dim(dim, len(shape))
        index = index + shape[dim] if index < 0 else index
        s = self.unsqueeze(self.cast(self.value(src), dtype), dim)
        s = self.broadcast_dims(s, shape, list(range(len(shape))))
        on = self.iota(shape, dim).eq(index)
        return self.expr_of(s).where(on, self.expr(x, shape, dtype)).value

    def slice_scatter(self, x, src, dim=0, start=None, end=None, step=1):
        """The slice start:end:step of x replaced by src: each element of
        the slice reads src at (j - start) / step (a gather), the others x."""
        shape, dtype = self.out()
        dim = _norm_dim(dim, len(shape))
        begin, stop, step = slice(start, end, step).indices(shape[dim])
        s = self.cast(self.value(src), dtype)
        n = self.shape(s)[dim]
        j = self.iota(shape, dim)
        inside = (j >= begin) & (j < stop) & ((j - begin).rem(step)).eq(0)
        k = ((j - begin) / step).where(inside, 0).minimum(max(n - 1, 0)).maximum(0)
        if n == 0:
            return self.value(x)
        positions = k * 0
        for d, stride in enumerate(_strides(self.shape(s))):
            coord = k if d == dim else self.iota(shape, d)
            positions = positions + coord * stride
        picked = self.expr_of(self.take_flat(s, positions))
        return picked.where(inside, self.expr(x, shape, dtype)).value

    def diagonal_scatter(self, x, src, offset=0, dim1=0, dim2=1):
        """src on the diagonal `offset` of dims (dim1, dim2) of x."""
        shape, dtype = self.out()
        embedded = self.embed_diagonal(self.cast(self.value(src), dtype), shape,
                                       offset, dim1, dim2)
        rank = len(shape)
        d1, d2 = _norm_dim(dim1, rank), _norm_dim(dim2, rank)
        on = (self.iota(shape, d2) - self.iota(shape, d1)).eq(offset)
        return self.expr_of(embedded).where(on, self.expr(x, shape, dtype)).value

    def isin(self, elements, test_elements, assume_unique=False, invert=False):
        """Whether each element equals one of the test elements: an any
        over them."""
        shape, _ = self.out()
        e = self.value(elements)
        t = self.value(test_elements)
        dtype = self.promoted(elements, test_elements)
        n = math.prod(self.shape(t))
        flat_t = self.b.reshape(self.cast(t, dtype), [n])
        pull = shape + [n]
        ee = self.expr_of(self.broadcast_dims(self.cast(e, dtype), pull,
                                               list(range(len(shape)))))
        tt = self.expr_of(self.broadcast_dims(flat_t, pull, [len(shape)]))
        found = ee.eq(tt).cast("i8").reduce(MAX, [len(shape)]).ne(0)
        return (~found if invert else found).value

    def bucketize(self, values, boundaries, out_int32=False, right=False):
        """The number of boundaries below each value (at most it, with
        `right`): its bucket in the sorted boundaries."""
        shape, dtype = self.out()
        b = self.value(boundaries)
        n = self.shape(b)[0]
        compute = self.promoted(values, boundaries)
        pull = shape + [n]
        vv = self.expr_of(self.broadcast_dims(self.cast(self.value(values), compute),
                                               pull, list(range(len(shape)))))
        bb = self.expr_of(self.broadcast_dims(self.cast(b, compute), pull, [len(shape)]))
        below = (bb <= vv) if right else (bb < vv)
        return below.cast(dtype).reduce(SUM, [len(shape)]).value

    def searchsorted(self, sorted_sequence, values, out_int32=False, right=False,
                     side=None, sorter=None):
        """bucketize for each row of a sorted sequence (the last dim)."""
        if sorter is not None:
            self.error("searchsorted with a sorter is not supported")
        right = right or side == "right"
        shape, dtype = self.out()
        seq = self.value(sorted_sequence)
        ss = self.shape(seq)
        if len(ss) == 1:
            return self.bucketize(values, sorted_sequence, out_int32, right)
        n = ss[-1]
        compute = self.promoted(values, sorted_sequence)
        pull = shape + [n]
        lead = list(range(len(shape) - 1))
        vv = self.expr_of(self.broadcast_dims(self.cast(self.value(values), compute),
                                               pull, list(range(len(shape)))))
        bb = self.expr_of(self.broadcast_dims(self.cast(seq, compute), pull,
                                               lead + [len(shape)]))
        below = (bb <= vv) if right else (bb < vv)
        return below.cast(dtype).reduce(SUM, [len(shape)]).value

    def max_unpool(self, n):
        """max_unpool: each value at its index in its (n, c) plane of
        output_size, zeros elsewhere (a pull from the plane's values)."""
        def convert(x, indices, output_size, *rest):
            shape, dtype = self.out()
            lead = len(shape) - n
            v = self.cast(self.value(x), dtype)
            vs = self.shape(v)
            plane = math.prod(shape[lead:])
            k = math.prod(vs[lead:])
            outer = shape[:lead]
            flat_v = self.b.reshape(v, outer + [k])
            ids = self.b.reshape(self.cast(self.value(indices), "i64"), outer + [k])
            pull = outer + [plane, k]
            base = self.expr_of(self.b.splat(0.0, outer + [plane], dtype))
            dims = list(range(lead)) + [lead + 1]
            out = self._pull(base, lead, self._along(ids, pull, dims),
                             self._along(flat_v, pull, dims), "last")
            return self.b.reshape(out.value, shape)
        return convert

    def embedding_bag(self, weight, indices, offsets, scale_grad_by_freq=False,
                      mode=0, sparse=False, per_sample_weights=None,
                      include_last_offset=False, padding_idx=-1):
        """nn.EmbeddingBag: the sum (mode 0), mean (1) or max (2) of the rows
        of each bag, bag b holding the indices from offsets[b] up to the next
        offset (the last bag up to the end, or to the last offset with
        include_last_offset), without those equal to padding_idx; an empty
        bag gives zeros. A pull: each bag folds every index, masked to its
        own (bags x indices x dim work), so bags of any sizes the values
        decide are one loop nest."""
        w = self.value(weight)
        dtype = self.dtype(w)
        ids = self.cast(self.value(indices), "i64")
        offs = self.cast(self.value(offsets), "i64")
        if len(self.shape(ids)) != 1 or len(self.shape(offs)) != 1:
            self.error("embedding_bag takes 1-D indices and offsets")
        n, dim = self.shape(ids)[0], self.shape(w)[1]
        count = self.shape(offs)[0]
        bags = count - 1 if include_last_offset else count
        if mode not in (0, 1, 2):
            self.error("embedding_bag mode %r is not supported" % (mode,))
        if per_sample_weights is not None and mode != 0:
            self.error("embedding_bag takes per_sample_weights only with mode 'sum'")
        rows = self.b.gather(w, ids, 0)
        if per_sample_weights is not None:
            scale = self.cast(self.value(per_sample_weights), dtype)
            scale = self.b.broadcast(scale, [n, dim], [0])
            rows = self.b.mul(rows, scale)
        b = self.iota([bags], 0)
        starts = self.expr_of(self.take_flat(offs, b))
        ends = self.expr_of(self.take_flat(offs, (b + 1).minimum(count - 1)))
        if not include_last_offset:
            ends = ends.where(b < bags - 1, n)
        grid = [bags, n]
        i = self.iota(grid, 1)
        mask = (i >= self._along(starts.value, grid, [0])) & \
            (i < self._along(ends.value, grid, [0]))
        if padding_idx is not None and padding_idx >= 0:
            mask = mask & self._along(ids, grid, [1]).ne(padding_idx)
        pull = [bags, n, dim]
        member = self._along(mask.value, pull, [0, 1])
        source = self._along(rows, pull, [1, 2])
        if mode == 2:
            extreme = source.where(member, -math.inf).reduce(MAX, [1])
            hit = member.cast("i8").reduce(MAX, [1]).ne(0)
            return [extreme.where(hit, 0.0).value, None, None, None]
        total = source.where(member, 0.0).reduce(SUM, [1])
        if mode == 1:
            size = mask.cast(dtype).reduce(SUM, [1]).maximum(1.0)
            total = total / self._along(size.value, [bags, dim], [0])
        return [total.value, None, None, None]

    def nll_loss(self, x, target, weight=None, reduction=1, ignore_index=-100):
        """-w[t] x[t] per sample (0 where t is ignore_index), summed or
        averaged by the weights: (output, total weight)."""
        out_shape, dtype = self.out(0)
        v = self.value(x)
        xs = self.shape(v)
        t = self.expr_of(self.cast(self.value(target), "i64"))
        ignored = t.eq(ignore_index)
        safe = t.where(~ignored, 0)
        class_dim = 0 if len(xs) == 1 else 1
        # x[n, t[n], ...] through positions of the target's shape.
        positions = safe * _strides(xs)[class_dim]
        tshape = safe.shape
        for d, stride in enumerate(_strides(xs)):
            if d == class_dim:
                continue
            td = d if d < class_dim else d - 1
            positions = positions + self.iota(tshape, td) * stride
        picked = self.expr_of(self.take_flat(v, positions))
        if weight is not None:
            w = self.expr_of(self.b.gather(self.cast(self.value(weight), dtype), safe.value, 0))
        else:
            w = picked.constant(1.0)
        w = w.where(~ignored, 0.0)
        losses = -(picked * w)
        axes = list(range(len(tshape)))
        total_weight = w.reduce(SUM, axes) if axes else w
        if reduction == 0:
            return [losses.value, total_weight.value]
        total = losses.reduce(SUM, axes) if axes else losses
        if reduction == 1:
            total = total / total_weight
        return [total.value, total_weight.value]

    def multi_margin_loss(self, x, target, p=1, margin=1, weight=None, reduction=1):
        """sum over classes j != y of max(0, margin - x[y] + x[j])^p
        (weighted by w[y]) / classes, per sample."""
        _, dtype = self.out()
        v = self.value(x)
        given = self.shape(v)
        xs = [1] * (2 - len(given)) + given  # One sample (of one class).
        v = self.b.reshape(v, xs)
        n, c = xs
        t = self.cast(self.value(target), "i64")
        t = self.b.reshape(t, [n])
        te = self.expr_of(t)
        picked = self.expr_of(self.take_flat(v, te + self.iota([n], 0) * c))
        xe = self.expr_of(self.cast(v, dtype))
        pb = self.expr_of(self.broadcast_dims(picked.value, [n, c], [0]))
        z = (pb * -1.0 + float(margin) + xe).maximum(0.0)
        if p == 2:
            z = z * z
        if weight is not None:
            w = self.expr_of(self.b.gather(self.cast(self.value(weight), dtype), t, 0))
            z = z * self.expr_of(self.broadcast_dims(w.value, [n, c], [0]))
        tb = self.expr_of(self.broadcast_dims(t, [n, c], [0]))
        z = z.where(self.iota([n, c], 1).ne(tb), 0.0)
        per_sample = z.reduce(SUM, [1]) / float(c)
        if reduction == 0:
            out_shape, _ = self.out()
            return self.b.reshape(per_sample.value, out_shape)
        total = per_sample.reduce(SUM, [0])
        return (total / float(n)).value if reduction == 1 else total.value

    def index_table(self, t):
        t["aten.gather.default"] = self.gather
        t["aten.take.default"] = self.take
        t["aten.index.Tensor"] = self.advanced_index
        t["aten.scatter.src"] = self._scatter("last")
        t["aten.scatter.value"] = self._scatter("last", src_is_value=True)
        t["aten.scatter.reduce"] = self._scatter(None)
        t["aten.scatter.value_reduce"] = self._scatter(None, src_is_value=True)
        t["aten.scatter_add.default"] = self._scatter("add")
        t["aten.scatter_reduce.two"] = self._scatter(None)
        t["aten.index_add.default"] = self._index_along("add")
        t["aten.index_copy.default"] = self._index_along("copy")
        t["aten.index_fill.int_Scalar"] = self._index_along("fill")
        t["aten.index_fill.int_Tensor"] = self._index_along("fill")
        t["aten.index_reduce.default"] = self._index_along("reduce")
        t["aten.index_put.default"] = self.index_put
        t["aten.put.default"] = self.put
        t["aten.as_strided_scatter.default"] = self.as_strided_scatter
        t["aten.select_scatter.default"] = self.select_scatter
        t["aten.slice_scatter.default"] = self.slice_scatter
        t["aten.diagonal_scatter.default"] = self.diagonal_scatter
        t["aten.isin.Tensor_Tensor"] = self.isin
        t["aten.isin.Tensor_Scalar"] = self.isin
        t["aten.isin.Scalar_Tensor"] = self.isin
        t["aten.bucketize.Tensor"] = self.bucketize
        t["aten.searchsorted.Tensor"] = self.searchsorted
        t["aten.max_unpool2d.default"] = self.max_unpool(2)
        t["aten.max_unpool3d.default"] = self.max_unpool(3)
        t["aten._embedding_bag_forward_only.default"] = self.embedding_bag
        t["aten._embedding_bag.default"] = self.embedding_bag
        t["aten.nll_loss_forward.default"] = self.nll_loss
        t["aten.nll_loss2d_forward.default"] = self.nll_loss
        t["aten.multi_margin_loss.default"] = self.multi_margin_loss
