"""The importer's data-movement ops beyond views and slices: flips and
padding. A mixin of `Importer` (importer.py).

Each stays an index map loop fusion can fold into its consumer: a flip is
a slice with stride -1; constant padding is tensorir.pad (read through a
guarded load); reflect and replicate padding gather along each padded
dimension with an index vector computed from an iota, never a table in
memory.
"""

import math

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
        return self.b.slice(self.value(x), offsets, shape, strides)

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
            v = self.b.slice(v, offsets, sliced, [1] * rank)
        if any(low) or any(high):
            v = self.b.pad(v, low, high, float(value))
        return v

    def _source_index(self, mode, size, before, length):
        """The input index each of `length` output positions of a padded
        dimension reads (i64, 1-D)."""
        def splat(value):
            return self.b.splat(float(value), [length], "i64")

        iota = self.b.iota([length], 0, "i64")
        j = self.b.sub(iota, splat(before))
        last = splat(size - 1)
        if mode == "reflect":  # -1 -> 1, size -> size - 2.
            return self.b.sub(last, self.b.abs(self.b.sub(last, self.b.abs(j))))
        if mode == "replicate":
            return self.b.min(self.b.max(j, splat(0)), last)
        return self.b.mod(j, splat(size))  # circular

    def index_pad(self, mode):
        def convert(x, pad):
            v = self.value(x)
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
                v = self.b.gather(v, index, dim)
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


class StructureOps:
    """Stacking, splitting, rotating, diagonals and strided views: each a
    composition of views (transpose, reshape, slice, pad, concat) or a
    gather through an index computed from iotas, so fusion folds it into
    its consumer. A mixin of `Importer`."""

    def unsqueeze(self, v, dim):
        shape = self.shape(v)
        return self.b.reshape(v, shape[:dim] + [1] + shape[dim:])

    def stack(self, tensors, dim=0):
        shape, dtype = self.out()
        dim = _norm_dim(dim, len(shape))
        return self.stack_values([self.cast(self.value(t), dtype) for t in tensors],
                                 dim)

    def stack_values(self, values, dim):
        """Builder values of one shape and dtype, stacked along a new `dim`."""
        parts = [self.unsqueeze(v, dim) for v in values]
        if len(parts) == 1:
            return parts[0]
        shape = self.shape(parts[0])
        shape[dim] = len(parts)
        return self.b.concat(parts, dim)

    def unbind(self, x, dim=0):
        v = self.value(x)
        shape = self.shape(v)
        dim = _norm_dim(dim, len(shape))
        rest = shape[:dim] + shape[dim + 1:]
        results = []
        for i in range(shape[dim]):
            offsets = [i if d == dim else 0 for d in range(len(shape))]
            one = shape[:dim] + [1] + shape[dim + 1:]
            s = self.b.slice(v, offsets, one, [1] * len(shape))
            results.append(self.b.reshape(s, rest))
        return results

    def narrow(self, x, dim, start, length):
        return self.slice(x, dim, start, start + length)

    def transpose_dims(self, v, perm):
        return self.b.transpose(v, list(perm))

    def rot90(self, x, k=1, dims=(0, 1)):
        """k quarter turns from dims[0] toward dims[1]: flips and a
        transpose."""
        shape, dtype = self.out()
        v = self.value(x)
        rank = len(self.shape(v))
        d0, d1 = (_norm_dim(d, rank) for d in dims)
        k %= 4
        if k == 0:
            return v

        def flip(v, d):
            s = self.shape(v)
            offsets = [max(s[e] - 1, 0) if e == d else 0 for e in range(rank)]
            strides = [-1 if e == d else 1 for e in range(rank)]
            return self.b.slice(v, offsets, s, strides)

        perm = list(range(rank))
        perm[d0], perm[d1] = perm[d1], perm[d0]
        if k == 2:
            return flip(flip(v, d0), d1)
        if k == 1:
            return self.transpose_dims(flip(v, d1), perm)
        return flip(self.transpose_dims(v, perm), d1)

    def pixel_shuffle(self, down):
        """(..., C r^2, H, W) <-> (..., C, H r, W r), through reshapes and a
        transpose."""
        def convert(x, factor):
            shape, dtype = self.out()
            v = self.value(x)
            s = self.shape(v)
            lead, r = s[:-3], factor
            n = len(lead)
            if not down:
                c, h, w = s[-3] // (r * r), s[-2], s[-1]
                v = self.b.reshape(v, lead + [c, r, r, h, w])
                perm = list(range(n)) + [n, n + 3, n + 1, n + 4, n + 2]
            else:
                c, h, w = s[-3], s[-2] // r, s[-1] // r
                v = self.b.reshape(v, lead + [c, h, r, w, r])
                perm = list(range(n)) + [n, n + 2, n + 4, n + 1, n + 3]
            return self.b.reshape(self.transpose_dims(v, perm), shape)
        return convert

    def _diagonal_of(self, v, offset, dim1, dim2):
        """The diagonal of dims (dim1, dim2) of `v`, last: both moved to the
        end and flattened, then a strided slice (a view)."""
        shape = self.shape(v)
        rank = len(shape)
        d1, d2 = _norm_dim(dim1, rank), _norm_dim(dim2, rank)
        rest = [d for d in range(rank) if d not in (d1, d2)]
        moved = self.transpose_dims(v, rest + [d1, d2])
        rows, cols = shape[d1], shape[d2]
        start = offset if offset >= 0 else -offset * cols
        length = max(0, min(rows, cols - offset) if offset >= 0
                     else min(rows + offset, cols))
        lead = [shape[d] for d in rest]
        flat = self.b.reshape(moved, lead + [rows * cols])
        if length == 0:
            return self.b.splat(0.0, lead + [0], self.dtype(v))
        return self.b.slice(flat, [0] * len(lead) + [start], lead + [length], [1] * len(lead) + [cols + 1])

    def diagonal(self, x, offset=0, dim1=0, dim2=1):
        return self._diagonal_of(self.value(x), offset, dim1, dim2)

    def diag_embed(self, x, offset=0, dim1=-2, dim2=-1):
        shape, dtype = self.out()
        return self.embed_diagonal(self.cast(self.value(x), dtype), shape,
                                   offset, dim1, dim2)

    def embed_diagonal(self, v, shape, offset, dim1, dim2):
        """`v`'s last-dimension vectors on the diagonal `offset` of the
        matrices at (dim1, dim2) of `shape`, zeros elsewhere: each vector
        laid along the rows (columns for a negative offset), padded,
        broadcast across, and selected where column - row = offset."""
        rank, dtype = len(shape), self.dtype(v)
        d1, d2 = _norm_dim(dim1, rank), _norm_dim(dim2, rank)
        n = self.shape(v)[-1]
        along, across = (d1, d2) if offset >= 0 else (d2, d1)
        # (lead..., n, 1) -> the vector at `along`, the unit at `across`.
        v = self.unsqueeze(v, rank - 1)
        lead = [d for d in range(rank) if d not in (d1, d2)]
        source = {d: i for i, d in enumerate(lead)}
        source[along], source[across] = rank - 2, rank - 1
        v = self.transpose_dims(v, [source[d] for d in range(rank)])
        high = [0] * rank
        high[along] = shape[along] - n
        if high[along] > 0:
            v = self.b.pad(v, [0] * rank, high, 0.0)
        elif high[along] < 0:
            kept = [shape[along] if d == along else s
                    for d, s in enumerate(self.shape(v))]
            v = self.b.slice(v, [0] * rank, kept, [1] * rank)
        v = self.b.broadcast(v, shape, list(range(rank)))
        rows = self.b.iota(shape, d1, "i64")
        cols = self.b.iota(shape, d2, "i64")
        on = (self.expr_of(cols) - self.expr_of(rows)).eq(offset)
        return self.select(on.value, v, self.b.splat(0.0, shape, dtype))

    def diag(self, x, diagonal=0):
        """A vector's diagonal matrix, or a matrix's diagonal vector."""
        v = self.value(x)
        if len(self.shape(v)) == 2:
            return self._diagonal_of(v, diagonal, 0, 1)
        return self.diag_embed(x, diagonal, 0, 1)

    def block_diag(self, tensors):
        """The matrices on a diagonal: each padded with zeros to the full
        width, concatenated along the rows."""
        shape, dtype = self.out()
        blocks, col = [], 0
        for t in tensors:
            v = self.cast(self.value(t), dtype)
            s = self.shape(v)
            if len(s) == 0:
                s, v = [1, 1], self.b.reshape(v, [1, 1])
            elif len(s) == 1:
                s, v = [1, s[0]], self.b.reshape(v, [1, s[0]])
            blocks.append(self.b.pad(v, [0, col], [0, shape[1] - col - s[1]], 0.0))
            col += s[1]
        return self.b.concat(blocks, 0)

    def as_strided(self, x, size, stride, storage_offset=None):
        """A strided view of the input's elements (row-major): a gather of
        the flattened input at offset + sum(i_k stride_k)."""
        shape, dtype = self.out()
        v = self.value(x)
        total = math.prod(self.shape(v))
        flat = self.b.reshape(v, [total])
        pos = self.expr_of(self.b.splat(float(storage_offset or 0), shape, "i64"))
        for d, st in enumerate(stride):
            coord = self.b.iota(shape, d, "i64")
            pos = pos + self.expr_of(coord) * st
        return self.b.gather(flat, pos.value, 0)

    def repeat_interleave(self, x, repeats, dim=None, output_size=None):
        """Each element `repeats` times along `dim` (the flattened input
        without one): a broadcast of a new unit dimension, merged."""
        shape, dtype = self.out()
        v = self.value(x)
        if dim is None:
            v = self.b.reshape(v, [math.prod(self.shape(v))])
            dim = 0
        s = self.shape(v)
        dim = _norm_dim(dim, len(s))
        spread = s[:dim + 1] + [1] + s[dim + 1:]
        v = self.b.reshape(v, spread)
        repeated = s[:dim + 1] + [repeats] + s[dim + 1:]
        v = self.b.broadcast(v, repeated, list(range(len(repeated))))
        return self.b.reshape(v, shape)

    def structure_table(self, t):
        t["aten.stack.default"] = self.stack
        t["aten.unbind.int"] = self.unbind
        t["aten.narrow_copy.default"] = self.narrow
        t["aten.narrow.default"] = self.narrow
        t["aten.rot90.default"] = self.rot90
        t["aten.pixel_shuffle.default"] = self.pixel_shuffle(False)
        t["aten.pixel_unshuffle.default"] = self.pixel_shuffle(True)
        t["aten.diagonal.default"] = self.diagonal
        t["aten.diag_embed.default"] = self.diag_embed
        t["aten.diag.default"] = self.diag
        t["aten.block_diag.default"] = self.block_diag
        t["aten.as_strided.default"] = self.as_strided
        t["aten.repeat_interleave.self_int"] = self.repeat_interleave
