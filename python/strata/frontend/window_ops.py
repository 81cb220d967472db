"""The importer's window ops: convolutions, pooling and unfolding. A mixin
of `Importer` (importer.py).

A convolution is `tensorir.conv` (or `conv_transpose`), which decomposes
into padded windows and one matrix product (an implicit GEMM). Pooling is
built here from views and reductions: the input padded (`tensorir.pad`,
-inf for max and 0 for sums), seen through its windows
(`tensorir.window`) and reduced over the window dimensions; an average
divides by a count per output position computed from iotas, so fusion
folds it into the pooling kernel. Adaptive pooling whose bins are equal is
that; with unequal bins each spatial dimension gathers its widest bin
through an index computed from an iota and masks what lies past the bin.
"""

import math
import operator

import numpy as np

from .capture import is_live
from .elementwise_ops import _is_float, _norm_dim, LT, MAX, SUM
from .index_ops import _Known



def _expand(value, n):
    """A per-dimension parameter: an int, or a list of 1 or n ints."""
    if isinstance(value, int):
        return [value] * n
    value = list(value)
    return value * n if len(value) == 1 else value


def _pooled_size(size, kernel, stride, padding, dilation, ceil_mode):
    """PyTorch's pooling output size: the last window starts inside the
    input or its left padding."""
    span = dilation * (kernel - 1) + 1
    numerator = size + 2 * padding - span
    out = (-(-numerator // stride) if ceil_mode else numerator // stride) + 1
    if ceil_mode and (out - 1) * stride >= size + padding:
        out -= 1
    return out


def _nearest_sources(size, length, scale):
    """The input index each output index of nearest-neighbour resampling
    reads, as PyTorch's CPU kernels compute it (nearest_idx: float32)."""
    if length == size:
        return list(range(length))
    if length == 2 * size:
        return [o >> 1 for o in range(length)]
    return [min(int(math.floor(np.float32(o) * np.float32(scale))), size - 1)
            for o in range(length)]


class WindowOps:
    # -- convolution -------------------------------------------------------
    def convolution(self, x, weight, bias, stride, padding, dilation,
                    transposed, output_padding, groups):
        shape, dtype = self.out()
        n = len(shape) - 2
        if not _is_float(dtype):
            self.error("convolution of %s tensors is not supported" % dtype)
        if isinstance(padding, str):
            self.error("padding=%r reached the importer; expected numbers"
                       % padding)
        return self.b.conv(
            self.cast(self.value(x), dtype), self.cast(self.value(weight), dtype),
            None if bias is None else self.cast(self.value(bias), dtype),
            strides=_expand(stride, n), padding=_expand(padding, n),
            dilations=_expand(dilation, n), groups=int(groups),
            output_padding=_expand(output_padding, n) if transposed else None)

    # -- pooling -----------------------------------------------------------
    def _windows(self, v, kernel, stride, padding, dilation, out_sizes, fill):
        """The windows of the trailing len(kernel) dimensions of `v`, padded
        by `fill` so that `out_sizes` windows fit (ceil mode may need more
        than `padding` on the high side, floor mode less)."""
        shape = self.shape(v)
        n = len(kernel)
        lead = len(shape) - n
        low, high = [0] * len(shape), [0] * len(shape)
        for i in range(n):
            needed = (out_sizes[i] - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1
            low[lead + i] = padding[i]
            high[lead + i] = needed - shape[lead + i] - padding[i]
        v = self.crop(v, high)
        if any(low) or any(h > 0 for h in high):
            v = self.b.pad(v, low, [max(h, 0) for h in high], fill)
        return self.b.window(v, list(kernel), list(stride), list(dilation))

    def crop(self, v, high):
        """`v` without its last -high[d] elements where high[d] < 0."""
        if all(h >= 0 for h in high):
            return v
        shape = [s + min(h, 0) for s, h in zip(self.shape(v), high)]
        return self.b.slice(v, [0] * len(shape), shape, [1] * len(shape))

    def _pool_params(self, x, n, kernel_size, stride, padding, dilation,
                     ceil_mode):
        in_shape = self.shape(self.value(x))
        kernel = _expand(kernel_size, n)
        stride = _expand(stride, n) if stride else list(kernel)
        padding, dilation = _expand(padding, n), _expand(dilation, n)
        spatial = in_shape[len(in_shape) - n:]
        out = [_pooled_size(spatial[i], kernel[i], stride[i], padding[i],
                            dilation[i], ceil_mode) for i in range(n)]
        return kernel, stride, padding, dilation, spatial, out

    def max_pool(self, n):
        def convert(x, kernel_size, stride=(), padding=0, dilation=1,
                    ceil_mode=False):
            shape, dtype = self.out(0)
            kernel, stride, padding, dilation, _, out = self._pool_params(
                x, n, kernel_size, stride, padding, dilation, ceil_mode)
            if not _is_float(dtype):
                self.error("max pooling of %s tensors is not supported" % dtype)
            windows = self._windows(self.value(x), kernel, stride, padding,
                                    dilation, out, -math.inf)
            return self._window_max(
                windows, shape, kernel,
                lambda i, o, k: o * stride[i] - padding[i] + k * dilation[i])
        return convert

    def _indices_read(self):
        """Whether the program reads a pooling's second result (the argmax
        positions, for max_unpool)."""
        return any(u.target is operator.getitem and u.args[1] == 1 and is_live(u)
                   for u in self.node.users)

    def _window_max(self, windows, shape, kernel, coordinate):
        """[values, indices] of max pooling over `windows` (the pooled
        dims, then the window dims): the maximum, and where the program
        reads them, its position in the input's plane (PyTorch's indices:
        the first maximum, row-major over the last len(kernel) dims), from
        the window position through `coordinate(dim, output, k)`."""
        n = len(kernel)
        rank = len(shape)
        if not self._indices_read():
            return [self.b.reduce(MAX, windows, list(range(rank, rank + n)), keepdim=False), None]
        flat = self.b.reshape(windows, shape + [math.prod(kernel)])
        values, position = self.b.arg_reduce(MAX, flat, rank)
        in_sizes = self.shape(self.value(self.node.args[0]))[-n:]
        p = self.expr_of(position)
        index = p * 0
        plane_stride, window_stride = 1, 1
        for i in reversed(range(n)):
            k = (p / window_stride).rem(kernel[i])
            o = self.expr_of(self.b.iota(shape, rank - n + i, "i64"))
            index = index + coordinate(i, o, k) * plane_stride
            plane_stride *= in_sizes[i]
            window_stride *= kernel[i]
        return [values, index.value]

    def _count(self, out_shape, dim, size, kernel, stride, padding, include_pad):
        """The number of elements each window along `dim` averages over
        (PyTorch's divisor: a window past the padded input counts only up
        to it, and without `include_pad` only the input's own elements), as
        an i64 tensor of `out_shape`, varying along `dim`."""
        def splat(value):
            return self.b.splat(float(value), out_shape, "i64")

        iota = self.b.iota(out_shape, dim, "i64")
        start = self.b.sub(self.b.mul(iota, splat(stride)), splat(padding))
        if include_pad:
            end = self.b.min(self.b.add(start, splat(kernel)), splat(size + padding))
            return self.b.sub(end, start)
        end = self.b.min(self.b.add(start, splat(kernel)), splat(size))
        return self.b.sub(end, self.b.max(start, splat(0)))

    def avg_pool(self, n):
        def convert(x, kernel_size, stride=(), padding=0, ceil_mode=False,
                    count_include_pad=True, divisor_override=None):
            shape, dtype = self.out()
            if not _is_float(dtype):
                self.error("average pooling of %s tensors is not supported"
                           % dtype)
            kernel, stride, padding, dilation, spatial, out = self._pool_params(
                x, n, kernel_size, stride, padding, 1, ceil_mode)
            windows = self._windows(self.value(x), kernel, stride, padding,
                                    dilation, out, 0.0)
            rank = len(shape)
            summed = self.b.reduce(SUM, windows, list(range(rank, rank + n)), keepdim=False)
            if divisor_override:
                divisor = self.b.splat(float(divisor_override), shape, dtype)
            else:
                divisor = None
                for i in range(n):
                    count = self._count(shape, rank - n + i, spatial[i], kernel[i],
                                        stride[i], padding[i], count_include_pad)
                    divisor = count if divisor is None else self.b.mul(divisor, count)
                divisor = self.cast(divisor, dtype)
            return self.b.div(summed, divisor)
        return convert

    def adaptive_pool(self, n, kind):
        """Adaptive pooling: bin o of a dimension of size D covers
        [floor(o D / O), ceil((o + 1) D / O))."""
        def convert(x, output_size):
            shape, dtype = self.out(0) if kind == MAX else self.out()
            v = self.value(x)
            in_shape = self.shape(v)
            rank = len(in_shape)
            out = list(shape[rank - n:])
            sizes = in_shape[rank - n:]
            if all(sizes[i] % out[i] == 0 for i in range(n)):
                kernel = [sizes[i] // out[i] for i in range(n)]
                windows = self._windows(v, kernel, kernel, [0] * n, [1] * n, out,
                                        0.0)
                if kind == MAX:
                    return self._window_max(windows, shape, kernel,
                                            lambda i, o, k: o * kernel[i] + k)
                reduced = self.b.reduce(kind, windows, list(range(rank, rank + n)), keepdim=False)
                return self.b.div(reduced, self.b.splat(float(math.prod(kernel)),
                                                      shape, dtype))
            if kind == MAX:
                return self._adaptive_max(v, shape, sizes, out)
            for i in range(n):
                v = self._adaptive_bins(v, rank - n + i, out[i], kind)
            return v
        return convert

    def _adaptive_max(self, v, shape, sizes, out):
        """Adaptive max pooling with unequal bins: each bin's widest window
        gathered per dimension (masked with -inf past the bin's end), the
        window dims last, then _window_max."""
        n = len(sizes)
        dtype = self.dtype(v)
        lead = len(shape) - n
        widths = []
        for i in range(n):
            size, bins = sizes[i], out[i]
            widths.append(max(-(-(o + 1) * size // bins) - o * size // bins
                              for o in range(bins)))
        for i in range(n):
            size, bins, width = sizes[i], out[i], widths[i]
            grid = [bins, width]
            start, end = self._bin_bounds(bins, size, grid)
            j = self.expr_of(self.b.iota(grid, 1, "i64"))
            at = self.expr_of(start) + j
            index = at.minimum(size - 1)
            dim = lead + 2 * i  # Earlier dims already split in two.
            vs = self.shape(v)
            gathered = vs[:dim] + grid + vs[dim + 1:]
            v = self.b.gather(v, index.value, dim)
            inside = self.broadcast_dims((at < self.expr_of(end)).value, gathered,
                                         [dim, dim + 1])
            v = self.select(inside, v, self.b.splat(-math.inf, gathered, dtype))
        # (lead, O1, K1, O2, K2, ...) -> (lead, O..., K...)
        perm = (list(range(lead)) + [lead + 2 * i for i in range(n)]
                + [lead + 2 * i + 1 for i in range(n)])
        vs = self.shape(v)
        windows = self.b.transpose(v, perm)

        def coordinate(i, o, k):
            return (o * sizes[i]) / out[i] + k
        return self._window_max(windows, shape, widths, coordinate)

    def _bin_bounds(self, bins, size, grid):
        """The first and the end index of each of `bins` bins of a dimension
        of `size` (i64 tensors of shape `grid`, the bin along dimension 0)."""
        def splat(value):
            return self.b.splat(float(value), grid, "i64")

        o = self.b.iota(grid, 0, "i64")
        start = self.b.floor_div(self.b.mul(o, splat(size)), splat(bins))
        # ceil((o + 1) D / O) = floor(((o + 1) D + O - 1) / O)
        end = self.b.floor_div(self.b.add(self.b.mul(self.b.add(o, splat(1)),
                                               splat(size)), splat(bins - 1)),
                 splat(bins))
        return start, end

    def _adaptive_bins(self, v, dim, bins, kind):
        """Reduces dimension `dim` of `v` to `bins` unequal bins: gathers the
        widest bin's worth of elements from each bin's start, masks those
        past its end (-inf or 0), reduces and, for averages, divides by the
        bin's length."""
        shape, dtype = self.shape(v), self.dtype(v)
        size = shape[dim]
        width = max(-(-(o + 1) * size // bins) - o * size // bins
                    for o in range(bins))
        grid = [bins, width]
        start, end = self._bin_bounds(bins, size, grid)
        j = self.b.iota(grid, 1, "i64")
        at = self.b.add(start, j)
        index = self.b.min(at, self.b.splat(float(size - 1), grid, "i64"))
        gathered_shape = shape[:dim] + grid + shape[dim + 1:]
        gathered = self.b.gather(v, index, dim)
        inside = self.broadcast_dims(self.cmp(LT, at, end), gathered_shape,
                                     [dim, dim + 1])
        fill = -math.inf if kind == MAX else 0.0
        masked = self.select(inside, gathered,
                             self.b.splat(fill, gathered_shape, dtype))
        reduced_shape = shape[:dim] + [bins] + shape[dim + 1:]
        reduced = self.b.reduce(kind, masked, [dim + 1], keepdim=False)
        if kind == MAX:
            return reduced
        start, end = self._bin_bounds(bins, size, [bins])
        length = self.b.sub(end, start)
        count = self.broadcast_dims(self.cast(length, dtype), reduced_shape, [dim])
        return self.b.div(reduced, count)

    def broadcast_dims(self, v, shape, dims):
        """`v` broadcast to `shape`, its dimension i becoming dims[i]."""
        return self.b.broadcast(v, shape, list(dims))

    # -- unfolding ---------------------------------------------------------
    def unfold(self, x, dim, size, step):
        """Tensor.unfold: dimension `dim` becomes its windows' positions and
        a last dimension holds each window."""
        shape, dtype = self.out()
        v = self.value(x)
        rank = len(self.shape(v))
        if rank == 0:
            return self.b.reshape(v, shape)
        dim = _norm_dim(dim, rank)
        perm = [d for d in range(rank) if d != dim] + [dim]
        moved = self.b.transpose(v, perm)
        windows = self.b.window(moved, [size], [step], [1])
        # Back: the positions to `dim`, the window last.
        back = list(range(rank - 1))
        back.insert(dim, rank - 1)
        back.append(rank)
        return self.b.transpose(windows, back)

    def im2col(self, x, kernel_size, dilation, padding, stride):
        """F.unfold: (N, C, H, W) -> (N, C kh kw, L), every window a column."""
        shape, dtype = self.out()
        v = self.value(x)
        in_shape = self.shape(v)
        kernel, dilation = _expand(kernel_size, 2), _expand(dilation, 2)
        padding, stride = _expand(padding, 2), _expand(stride, 2)
        out = [(in_shape[-2 + i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1)
                - 1) // stride[i] + 1 for i in range(2)]
        windows = self._windows(v, kernel, stride, padding, dilation, out, 0.0)
        lead = in_shape[:-2]  # (N, C) or (C,)
        r = len(lead)
        # (..., C, OH, OW, KH, KW) -> (..., C, KH, KW, OH, OW)
        perm = list(range(r)) + [r + 2, r + 3, r, r + 1]
        moved = self.b.transpose(windows, perm)
        return self.b.reshape(moved, shape)

    def col2im(self, x, output_size, kernel_size, dilation, padding, stride):
        """F.fold, im2col's adjoint: (N, C kh kw, L) -> (N, C, H, W), every
        column's window added in at its place. A sum over the kernel's
        offsets of the columns' values at that offset spread out by the
        stride and shifted to the offset: padded views of one input, which
        fuse into one kernel (no scatter)."""
        shape, dtype = self.out()
        v = self.value(x)
        kernel, dilation = _expand(kernel_size, 2), _expand(dilation, 2)
        padding, stride = _expand(padding, 2), _expand(stride, 2)
        blocks = [(shape[-2 + i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1)
                   - 1) // stride[i] + 1 for i in range(2)]
        lead = shape[:-2]  # (N, C) or (C,)
        in_shape = self.shape(v)
        expected = in_shape[:-2] + [in_shape[-2] // math.prod(kernel)] + list(output_size)
        if list(shape) != expected:
            # torch 1.13's shape rule for col2im errs with some paddings.
            self.error("PyTorch recorded the shape %s for F.fold where its "
                       "arguments give %s" % (list(shape), expected))
        rank = len(lead) + 2
        columns = self.b.reshape(v, lead + kernel + blocks)
        total = None
        for ki in range(kernel[0]):
            for kj in range(kernel[1]):
                offsets = [0] * len(lead) + [ki, kj, 0, 0]
                term = self.b.slice(columns, offsets, lead + [1, 1] + blocks, [1] * (rank + 2))
                term = self.b.reshape(term, lead + blocks)
                for axis, k in ((0, ki), (1, kj)):
                    term = self._spread(term, rank - 2 + axis, stride[axis],
                                        k * dilation[axis] - padding[axis],
                                        shape[-2 + axis])
                total = term if total is None else self.b.add(total, term)
        return total

    def _spread(self, v, dim, stride, offset, length):
        """`v` along `dim` placed at offset + stride * i in `length` zeros
        (positions outside dropped): stride - 1 zeros after each element,
        then padded (or cut) to the offset and the length."""
        shape = self.shape(v)
        n = shape[dim]
        widened = shape[:dim + 1] + [1] + shape[dim + 1:]
        v = self.b.reshape(v, widened)
        pad = [0] * (2 * (len(widened) - dim - 2)) + [0, stride - 1]
        v = self.constant_pad(_Known(v), pad)
        spread = shape[:dim] + [n * stride] + shape[dim + 1:]
        v = self.b.reshape(v, spread)
        pad = [0] * (2 * (len(spread) - dim - 1)) + [offset, length - offset - n * stride]
        return self.constant_pad(_Known(v), pad)

    # -- resampling --------------------------------------------------------
    def _resample_sizes(self, x, n, output_size, scale_factors):
        """The input's and the output's last n sizes, and PyTorch's source
        scale per dimension (1 / scale factor where one is given, else
        in / out), as float32 like its CPU kernels."""
        in_sizes = self.shape(self.value(x))[-n:]
        out_sizes, _ = self.out()
        out_sizes = out_sizes[-n:]
        scales = []
        for i in range(n):
            if scale_factors and scale_factors[i] > 0:
                scales.append(float(np.float32(1.0 / scale_factors[i])))
            else:
                scales.append(float(np.float32(in_sizes[i]) / np.float32(out_sizes[i])))
        return in_sizes, out_sizes, scales

    def _float_index(self, length, scale, offset=0.0):
        """(o + offset) * scale - offset for o in [0, length), in float32."""
        o = self.b.iota([length], 0, "i64")
        v = self.cast(o, "f32")
        if offset:
            v = self.b.add(v, self.b.splat(offset, [length], "f32"))
        v = self.b.mul(v, self.b.splat(scale, [length], "f32"))
        if offset:
            v = self.b.sub(v, self.b.splat(offset, [length], "f32"))
        return v

    def _source_position(self, size, length, scale, align_corners):
        """Each of `length` outputs' source position along an input
        dimension of `size` (f32, unclamped): o (size - 1) / (length - 1)
        with align_corners, else (o + 0.5) scale - 0.5."""
        if align_corners:
            corner_scale = (float(np.float32(size - 1) / np.float32(length - 1))
                            if length > 1 else 0.0)
            return self._float_index(length, corner_scale)
        return self._float_index(length, scale, 0.5)

    def _gather_along(self, v, dim, index):
        shape = self.shape(v)
        shape[dim] = self.shape(index)[0]
        return self.b.gather(v, index, dim)

    def upsample_nearest(self, n):
        """Nearest neighbours: output o reads input floor(o * scale) (at most
        the last). A whole factor k is a view (each element repeated k
        times: a broadcast of a unit dimension, merged), so fusion folds it
        into the consumer's index map; other scales gather through an index
        computed from an iota in float32, as PyTorch computes it."""
        def convert(x, output_size=None, scale_factors=None):
            shape, dtype = self.out()
            in_sizes, out_sizes, scales = self._resample_sizes(
                x, n, output_size, scale_factors)
            v = self.value(x)
            lead = len(shape) - n
            if all(o % i == 0 and
                   _nearest_sources(i, o, s) == [k // (o // i) for k in range(o)]
                   for i, o, s in zip(in_sizes, out_sizes, scales)):
                factors = [o // i for i, o in zip(in_sizes, out_sizes)]
                spread = shape[:lead]
                for i in in_sizes:
                    spread += [i, 1]
                repeated = list(shape[:lead])
                for i, f in zip(in_sizes, factors):
                    repeated += [i, f]
                v = self.b.reshape(v, spread)
                v = self.b.broadcast(v, repeated, list(range(len(repeated))))
                return self.b.reshape(v, shape)
            for i in range(n):
                size, length = in_sizes[i], out_sizes[i]
                if size == length:
                    continue
                index = self.cast(self._floor_index(length, scales[i]), "i64")
                index = self.b.min(index, self.b.splat(float(size - 1), [length], "i64"))
                v = self._gather_along(v, lead + i, index)
            return v
        return convert

    def _floor_index(self, length, scale):
        f = self._float_index(length, scale)
        return self.b.floor(f)

    def upsample_linear(self, n):
        """(Bi/tri)linear interpolation, separably per dimension: output o
        reads the two inputs around its source position (PyTorch's: (o +
        0.5) scale - 0.5 clamped at 0, or o (in - 1) / (out - 1) with
        align_corners), weighted by the distances."""
        def convert(x, output_size, align_corners, scale_factors=None):
            shape, dtype = self.out()
            if not _is_float(dtype):
                self.error("linear interpolation of %s tensors is not supported"
                           % dtype)
            in_sizes, out_sizes, scales = self._resample_sizes(
                x, n, output_size, scale_factors)
            v = self.value(x)
            lead = len(shape) - n
            for i in range(n):
                size, length = in_sizes[i], out_sizes[i]
                dim = lead + i
                source = self._source_position(size, length, scales[i], align_corners)
                if not align_corners:  # Linear clamps at 0; cubic does not.
                    source = self.b.max(source, self.b.splat(0.0, [length], "f32"))
                low = self.cast(self.b.floor(source),
                                "i64")
                low = self.b.min(low, self.b.splat(float(size - 1), [length], "i64"))
                high = self.b.min(self.b.add(low, self.b.splat(1.0, [length], "i64")), self.b.splat(float(size - 1), [length], "i64"))
                w_high = self.b.sub(source, self.cast(low, "f32"))
                w_low = self.b.sub(self.b.splat(1.0, [length], "f32"), w_high)
                a, b = self._gather_along(v, dim, low), self._gather_along(v, dim, high)
                out_shape = self.shape(a)
                weights = [self.broadcast_dims(self.cast(w, dtype), out_shape, [dim])
                           for w in (w_low, w_high)]
                v = self.b.add(self.b.mul(a, weights[0]), self.b.mul(b, weights[1]))
            return v
        return convert

    def upsample_bicubic(self, x, output_size, align_corners, scale_factors=None):
        """Bicubic interpolation as PyTorch's CPU kernel: per dimension,
        output o reads the four inputs around its unclamped source position
        (clamped to the edges), weighted by Keys' cubic convolution with
        A = -0.75."""
        shape, dtype = self.out()
        if not _is_float(dtype):
            self.error("bicubic interpolation of %s tensors is not supported" % dtype)
        in_sizes, out_sizes, scales = self._resample_sizes(x, 2, output_size,
                                                           scale_factors)
        v = self.value(x)
        lead = len(shape) - 2
        a = -0.75
        for i in range(2):
            size, length = in_sizes[i], out_sizes[i]
            dim = lead + i
            source = self.expr_of(self._source_position(size, length, scales[i],
                                                        align_corners))
            floor = source.floor()
            t = source - floor
            low = floor.cast("i64")
            near = lambda d: ((a + 2) * d - (a + 3)) * d * d + 1.0  # |d| <= 1
            far = lambda d: ((a * d - 5 * a) * d + 8 * a) * d - 4 * a  # 1 < |d| < 2
            weights = (far(t + 1.0), near(t), near(1.0 - t), far(2.0 - t))
            total = None
            for k, w in enumerate(weights):
                index = (low + (k - 1)).maximum(0).minimum(size - 1)
                tap = self._gather_along(v, dim, index.value)
                out_shape = self.shape(tap)
                term = self.expr_of(tap) * self.expr_of(
                    self.broadcast_dims(self.cast(w.value, dtype), out_shape, [dim]))
                total = term if total is None else total + term
            v = total.value
        return v

    def _grid_source(self, coord, size, padding_mode, align_corners):
        """A grid coordinate in [-1, 1] as a source position along a
        dimension of `size`, with PyTorch's border (clamped) or reflection
        (mirrored about the edges, then clamped) padding."""
        if align_corners:
            source = (coord + 1.0) * 0.5 * float(size - 1)
        else:
            source = ((coord + 1.0) * float(size) - 1.0) * 0.5
        if padding_mode == 2:  # reflection
            low, high = (0.0, 2.0 * (size - 1)) if align_corners else (-1.0, 2.0 * size - 1.0)
            if low == high:
                source = source * 0.0
            else:
                start, span = low / 2, (high - low) / 2
                distance = (source - start).abs()
                extra = distance.rem(span)
                flips = (distance / span).floor()
                even = (flips - (flips * 0.5).floor() * 2.0).eq(0.0)
                source = (extra + start).where(even, span - extra + start)
        if padding_mode in (1, 2):
            source = source.maximum(0.0).minimum(float(size - 1))
        return source

    def grid_sample(self, x, grid, interpolation_mode, padding_mode, align_corners):
        """F.grid_sample in 2-D: each output point reads the input at its
        grid position (bilinear: the four neighbours weighted by distance;
        nearest: the nearest, halves to even), taps outside reading zeros
        with padding 'zeros'. The taps are gathers from the flattened
        input."""
        shape, dtype = self.out()
        if interpolation_mode not in (0, 1):
            self.error("grid_sample with bicubic interpolation is not supported")
        if not _is_float(dtype):
            self.error("grid_sample of %s tensors is not supported" % dtype)
        v = self.cast(self.value(x), dtype)
        n, c, h, w = self.shape(v)
        g = self.cast(self.value(grid), dtype)
        ho, wo = self.shape(g)[1:3]

        def component(k):
            part = self.b.slice(g, [0, 0, 0, k], [n, ho, wo, 1], [1, 1, 1, 1])
            part = self.b.reshape(part, [n, ho, wo])
            return self.expr_of(self.broadcast_dims(part, shape, [0, 2, 3]))

        ix = self._grid_source(component(0), w, padding_mode, align_corners)
        iy = self._grid_source(component(1), h, padding_mode, align_corners)
        base = (self.iota(shape, 0) * (c * h) + self.iota(shape, 1) * h)

        def tap(yy, xx):
            """The input at integer positions (float expressions), 0 outside."""
            inside = (xx >= 0.0) & (xx <= float(w - 1)) & (yy >= 0.0) & (yy <= float(h - 1))
            col = xx.maximum(0.0).minimum(float(w - 1)).cast("i64")
            row = yy.maximum(0.0).minimum(float(h - 1)).cast("i64")
            value = self.expr_of(self.take_flat(v, (base + row) * w + col))
            return value.where(inside, 0.0)

        if interpolation_mode == 1:
            return tap(iy.round(), ix.round()).value
        x0, y0 = ix.floor(), iy.floor()
        x1, y1 = x0 + 1.0, y0 + 1.0
        out = (tap(y0, x0) * ((x1 - ix) * (y1 - iy)) + tap(y0, x1) * ((ix - x0) * (y1 - iy))
               + tap(y1, x0) * ((x1 - ix) * (iy - y0)) + tap(y1, x1) * ((ix - x0) * (iy - y0)))
        return out.value

    def window_table(self, t):
        t["aten.convolution.default"] = self.convolution
        t["aten.max_pool2d_with_indices.default"] = self.max_pool(2)
        t["aten.max_pool3d_with_indices.default"] = self.max_pool(3)
        t["aten.avg_pool2d.default"] = self.avg_pool(2)
        t["aten.avg_pool3d.default"] = self.avg_pool(3)
        t["aten._adaptive_avg_pool2d.default"] = self.adaptive_pool(2, SUM)
        t["aten._adaptive_avg_pool3d.default"] = self.adaptive_pool(3, SUM)
        t["aten.adaptive_max_pool2d.default"] = self.adaptive_pool(2, MAX)
        t["aten.adaptive_max_pool3d.default"] = self.adaptive_pool(3, MAX)
        t["aten.unfold.default"] = self.unfold
        t["aten.im2col.default"] = self.im2col
        t["aten.col2im.default"] = self.col2im
        for n, name in ((1, "1d"), (2, "2d"), (3, "3d")):
            t["aten.upsample_nearest%s.vec" % name] = self.upsample_nearest(n)
        t["aten.upsample_linear1d.vec"] = self.upsample_linear(1)
        t["aten.upsample_bilinear2d.vec"] = self.upsample_linear(2)
        t["aten.upsample_trilinear3d.vec"] = self.upsample_linear(3)
        t["aten.upsample_bicubic2d.vec"] = self.upsample_bicubic
        # torch 2.x's decompositions give the .default forms: an output
        # size plus a scale per dimension (None: in / out), as .vec's list.
        for n, name in ((1, "1d"), (2, "2d"), (3, "3d")):
            t["aten.upsample_nearest%s.default" % name] = _per_dimension_scales(
                self.upsample_nearest(n), aligns=False)
        for n, name in ((1, "linear1d"), (2, "bilinear2d"), (3, "trilinear3d")):
            t["aten.upsample_%s.default" % name] = _per_dimension_scales(
                self.upsample_linear(n), aligns=True)
        t["aten.upsample_bicubic2d.default"] = _per_dimension_scales(
            self.upsample_bicubic, aligns=True)
        t["aten.grid_sampler_2d.default"] = self.grid_sample


def _per_dimension_scales(convert, aligns):
    """An importer of an upsample's .vec form (x, output_size,
    [align_corners,] scale_factors) as one of its .default form (x,
    output_size, [align_corners,] scales_h=None, scales_w=None, ...)."""
    def call(x, output_size, *rest, **kwargs):
        fixed = list(rest[:1]) if aligns else []
        if aligns and not fixed:
            fixed = [kwargs.pop("align_corners")]
        scales = list(rest[len(fixed):]) + [kwargs[k] for k in sorted(kwargs)
                                            if k.startswith("scales")]
        factors = ([s if s is not None else 0.0 for s in scales]
                   if any(s is not None for s in scales) else None)
        return convert(x, output_size, *fixed, factors)
    return call
