"""The importer's data-movement ops beyond views and slices: flips and
padding. A mixin of `Importer` (importer.py).

Each stays an index map loop fusion can fold into its consumer: a flip is
a slice with stride -1; constant padding is tensorir.pad (read through a
guarded load); reflect and replicate padding gather along each padded
dimension with an index vector computed from an iota, never a table in
memory.
"""

from .elementwise_ops import _norm_dim


class LayoutOps:
    def flip(self, x, dims):
        shape, dtype = self.out()
        rank = len(shape)
        flipped = {_norm_dim(d, rank) for d in dims}
        offsets = [max(shape[d] - 1, 0) if d in flipped else 0 for d in range(rank)]
        strides = [-1 if d in flipped else 1 for d in range(rank)]
        if not any(shape[d] > 1 for d in flipped):
            return self.value(x)
        return self.op("tensorir.slice", [self.value(x)], shape, dtype,
                       offsets=offsets, strides=strides)

    def _pad_pairs(self, pad, rank):
        """(dim, before, after) per padded dimension: F.pad lists the last
        dimension first."""
        if len(pad) % 2 or len(pad) // 2 > rank:
            self.error("padding %s does not fit a tensor of rank %d"
                       % (list(pad), rank))
        return [(rank - 1 - i, pad[2 * i], pad[2 * i + 1])
                for i in range(len(pad) // 2)]

    def constant_pad(self, x, pad, value=0):
        """tensorir.pad (a view its consumers read through a guarded load),
        after a slice where a pad is negative."""
        v = self.value(x)
        dtype = self.dtype(v)
        shape = self.shape(v)
        rank = len(shape)
        low, high = [0] * rank, [0] * rank
        offsets, sliced = [0] * rank, list(shape)
        for dim, before, after in self._pad_pairs(pad, rank):
            low[dim], high[dim] = max(before, 0), max(after, 0)
            # A negative pad removes elements.
            offsets[dim] = max(-before, 0)
            sliced[dim] -= max(-before, 0) + max(-after, 0)
            if sliced[dim] < 0:
                self.error("padding %s removes more than dimension %d holds"
                           % (list(pad), dim))
        if sliced != shape:
            v = self.op("tensorir.slice", [v], sliced, dtype, offsets=offsets,
                        strides=[1] * rank)
        if any(low) or any(high):
            v = self.b.pad(v, low, high, float(value))
        return v

    def _source_index(self, mode, size, before, length):
        """The input index each of `length` output positions of a padded
        dimension reads (i64, 1-D)."""
        def splat(value):
            return self.b.splat(float(value), [length], "i64")

        def op(name, *operands):
            return self.op("tensorir." + name, list(operands), [length], "i64")

        iota = self.b.op("tensorir.iota", [], [([length], "i64")], {"dim": 0})[0]
        j = op("sub", iota, splat(before))
        last = splat(size - 1)
        if mode == "reflect":  # -1 -> 1, size -> size - 2.
            return op("sub", last, op("abs", op("sub", last, op("abs", j))))
        if mode == "replicate":
            return op("min", op("max", j, splat(0)), last)
        return op("mod", j, splat(size))  # circular

    def index_pad(self, mode):
        def convert(x, pad):
            v = self.value(x)
            dtype = self.dtype(v)
            for dim, before, after in self._pad_pairs(pad, len(self.shape(v))):
                shape = self.shape(v)
                size = shape[dim]
                if mode == "reflect" and (before >= size or after >= size):
                    self.error("reflect padding of %d and %d needs a dimension "
                               "larger than both, not %d" % (before, after, size))
                if size == 0:
                    self.error("cannot pad an empty dimension")
                length = size + before + after
                index = self._source_index(mode, size, before, length)
                shape[dim] = length
                v = self.op("tensorir.gather", [v, index], shape, dtype, axis=dim)
            return v
        return convert

    def pad(self, x, pad, mode="constant", value=None):
        if mode == "constant":
            return self.constant_pad(x, pad, 0 if value is None else value)
        if mode not in ("reflect", "replicate", "circular"):
            self.error("padding mode %r is not supported" % mode)
        return self.index_pad(mode)(x, pad)

    def empty(self, *args, **kwargs):
        """Uninitialized memory (what native_batch_norm's decomposition asks
        for and never reads): zeros, a value as good as any."""
        shape, dtype = self.out()
        return self.b.splat(0.0, shape, dtype)

    def layout_table(self, t):
        t["aten.flip.default"] = self.flip
        t["aten.constant_pad_nd.default"] = self.constant_pad
        t["aten.pad.default"] = self.pad
        for rank in (1, 2, 3):
            t["aten.reflection_pad%dd.default" % rank] = self.index_pad("reflect")
            t["aten.replication_pad%dd.default" % rank] = self.index_pad("replicate")
        t["aten._pad_circular.default"] = self.index_pad("circular")
        for name in ("empty.memory_format", "empty_like.default",
                     "new_empty.default", "empty_strided.default"):
            t["aten." + name] = self.empty
