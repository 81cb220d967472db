"""Which aten ops reach the importer: PyTorch's own decompositions break up
the composite and fused ops Strata does not import itself.

torch 2.x: the core ATen decompositions (what torch.export and Inductor
use). torch 1.13 has no core set, and many of its decompositions are
written in prims; the list below names those whose 1.13 form is aten ops
(or the few prims the importer takes). Either way an op the importer takes
as it is stays whole: Strata's composites (softmax, layer norm, matmul, ...)
carry meaning later stages use.
"""

import contextlib
import functools
import math

import torch
from torch.overrides import TorchFunctionMode

# Decomposed on every torch version (when the importer does not take them).
_DECOMPOSED = (
    "addcmul", "addcdiv", "elu", "celu", "selu", "hardswish", "hardsigmoid",
    "leaky_relu", "mish", "softplus", "hardshrink", "softshrink", "threshold",
    "prelu", "glu", "logsumexp", "native_batch_norm", "native_group_norm",
    "mse_loss", "huber_loss", "xlogy", "std_mean", "var_mean",
    "linalg_vector_norm", "norm", "roll", "repeat", "new_zeros", "new_ones",
    "new_full", "new_empty", "empty_like", "logit", "nll_loss_forward",
    # torch 2.x's batch norms (core ATen ops, so not in the core table).
    "_native_batch_norm_legit_no_training", "_native_batch_norm_legit",
    "_native_batch_norm_legit_functional",
    # torch 2.x's recurrent layers (its CPU kernel calls oneDNN's
    # mkldnn_rnn_layer; the decompositions are matrix products).
    "lstm", "gru", "rnn_tanh", "rnn_relu",
)


@functools.lru_cache(maxsize=None)
def decomposition_table():
    """aten op overload -> Python decomposition, for make_fx."""
    from torch._decomp import get_decompositions
    from .importer import Importer, functional_variant
    aten = torch.ops.aten
    table = {}
    core = getattr(torch._decomp, "core_aten_decompositions", None)
    if core is not None:
        table.update(core())
    table.update(get_decompositions(
        [getattr(aten, name) for name in _DECOMPOSED if hasattr(aten, name)]))
    imported = Importer.supported_ops()
    return {op: fn for op, fn in table.items()
            if str(op) not in imported and
            functional_variant(op) not in imported}


class WithoutFastPaths(TorchFunctionMode):
    """The torch-function mode of tracing. Being active at all makes modules
    with fused inference fast paths (nn.MultiheadAttention,
    nn.TransformerEncoderLayer) take their composite path: they check
    has_torch_function, which an active mode makes true. It also replaces
    the paddings torch 1.13 writes in place (below); everything else passes
    through."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is torch.constant_pad_nd:
            return _constant_pad(*args, **kwargs)
        if func is _SDPA:
            return _attention_or_sdpa(*args, **kwargs)
        if func is torch.nn.functional.multi_head_attention_forward and _SDPA:
            # Inside it, this mode is off (a torch-function handler runs
            # without it): its call of SDPA is replaced for its duration.
            with _sdpa_as_math():
                return func(*args, **kwargs)
        if func is torch.nn.functional.cross_entropy:
            smoothed = _label_smoothed_cross_entropy(*args, **kwargs)
            if smoothed is not None:
                return smoothed
        if func is torch.Tensor.__setitem__ and _OPTIONAL_INDICES_FAIL:
            index = _indexed_everywhere(args[0], args[1])
            if index is not None:
                args = (args[0], index) + tuple(args[2:])
        if func is torch.nn.functional.pad:
            mode = kwargs.pop("mode", args[2] if len(args) > 2 else "constant")
            if mode in _PAD_MODES:
                return _PAD_MODES[mode](*args[:2], *args[3:], **kwargs)
            kwargs["mode"] = mode
            args = args[:2] + args[3:]
        return func(*args, **kwargs)


_SDPA = getattr(torch.nn.functional, "scaled_dot_product_attention", None)


def _attention_or_sdpa(*args, **kwargs):
    attention = _attention(*args, **kwargs)
    return attention if attention is not None else _SDPA(*args, **kwargs)


@contextlib.contextmanager
def _sdpa_as_math():
    """torch.nn.functional's own calls of SDPA (nn.MultiheadAttention's) as
    _attention."""
    F = torch.nn.functional
    F.scaled_dot_product_attention = _attention_or_sdpa
    try:
        yield
    finally:
        F.scaled_dot_product_attention = _SDPA


def _attention(query, key, value, attn_mask=None, dropout_p=0.0,
               is_causal=False, scale=None, enable_gqa=False):
    """F.scaled_dot_product_attention (torch 2.x) as its math: softmax(q k^T
    scale + mask) v, so the flash-attention schedule finds it in the
    products and the softmax (docs/loop-fusion.md). PyTorch's own
    decomposition ends its softmax in a select (_safe_softmax: a row whose
    keys are all masked gives 0, not NaN) that stands between the softmax
    and P . V; the select depends on the row alone, so it is applied to the
    product instead, with the row's condition read from the mask (no mask,
    no fully masked row). None (PyTorch's path) with dropout."""
    if dropout_p:
        return None
    L, S = query.shape[-2], key.shape[-2]
    if enable_gqa and key.shape[-3] != query.shape[-3]:
        groups = query.shape[-3] // key.shape[-3]
        key = key.repeat_interleave(groups, -3)
        value = value.repeat_interleave(groups, -3)
    if scale is None:
        scale = 1.0 / math.sqrt(query.shape[-1])
    scores = query @ key.transpose(-2, -1) * scale
    masked_rows = None
    if is_causal:
        causal = torch.ones(L, S, dtype=torch.bool, device=query.device).tril()
        scores = scores.masked_fill(~causal, float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            scores = scores.masked_fill(~attn_mask, float("-inf"))
            masked_rows = ~attn_mask.any(-1, keepdim=True)
        else:
            scores = scores + attn_mask
            masked_rows = (attn_mask == float("-inf")).all(-1, keepdim=True)
    out = torch.softmax(scores, -1) @ value
    if masked_rows is not None:
        out = torch.where(masked_rows, torch.zeros_like(out), out)
    return out


def _constant_pad(x, pad, value=None):
    """F.pad in constant mode as slices and concatenations of filled blocks:
    torch 1.13 decomposes it into a write into a slice of an empty tensor,
    which a functional importer cannot take."""
    fill = 0.0 if value is None else value
    for i in range(len(pad) // 2):
        dim = x.dim() - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        if before < 0:
            x = x.narrow(dim, -before, x.shape[dim] + before)
        if after < 0:
            x = x.narrow(dim, 0, x.shape[dim] + after)
        parts = []
        for amount in (before, after):
            shape = list(x.shape)
            shape[dim] = max(amount, 0)
            parts.append(torch.full(shape, fill, dtype=x.dtype, device=x.device))
        x = torch.cat([parts[0], x, parts[1]], dim)
    return x


def _circular_pad(x, pad, value=None):
    """F.pad in circular mode as concatenations of slices (torch 1.13
    writes into slices of an empty tensor)."""
    for i in range(len(pad) // 2):
        dim = x.dim() - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        size = x.shape[dim]
        parts = [x.narrow(dim, size - before, before)] if before > 0 else []
        parts.append(x.narrow(dim, max(-before, 0),
                              size - max(-before, 0) - max(-after, 0)))
        if after > 0:
            parts.append(x.narrow(dim, 0, after))
        x = torch.cat(parts, dim)
    return x


def _label_smoothed_cross_entropy(input, target, weight=None, size_average=None,
                                  ignore_index=-100, reduce=None,
                                  reduction="mean", label_smoothing=0.0):
    """F.cross_entropy with label smoothing of class indices, as PyTorch's
    C++ computes it (cross_entropy_loss_label_smoothing), without its
    masked_select (a shape the values decide) or its value checks; none for
    the other cases, which PyTorch's own path takes."""
    if (not label_smoothing or target.is_floating_point() or
            size_average is not None or reduce is not None):
        return None
    F = torch.nn.functional
    class_dim = 1 if input.dim() > 1 else 0
    classes = input.shape[class_dim]
    log_p = F.log_softmax(input, class_dim)
    nll = F.nll_loss(log_p, target, weight, ignore_index=ignore_index,
                     reduction=reduction)
    kept = target != ignore_index
    if weight is not None:
        shape = [1] * input.dim()
        shape[class_dim] = classes
        smooth = -(log_p * weight.view(shape)).sum(class_dim)
    else:
        smooth = -log_p.sum(class_dim)
    smooth = torch.where(kept, smooth, torch.zeros_like(smooth))
    if reduction == "sum":
        smooth = smooth.sum()
    elif reduction == "mean":
        if weight is not None:
            safe = torch.where(kept, target, torch.zeros_like(target))
            picked = weight.index_select(0, safe.flatten()).view(safe.shape)
            total = torch.where(kept, picked, torch.zeros_like(picked))
        else:
            total = kept.to(input.dtype)
        smooth = smooth.sum() / total.sum()
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / classes)


_PAD_MODES = {"constant": _constant_pad, "circular": _circular_pad}

# torch 1.13's make_fx cannot trace an index_put whose indices leave a
# dimension whole (`y[:, i] = v`: "sym_strides() called on an undefined
# Tensor"); torch 2.x can.
_OPTIONAL_INDICES_FAIL = int(torch.__version__.split(".")[0]) < 2


def _indexed_everywhere(x, index):
    """For `x[index] = v` with index tensors beside whole or sliced
    dimensions: the same positions with every dimension indexed, each
    slice an arange shaped to stand where PyTorch puts that dimension in
    the selection (so the selection and the values keep their shape).
    None where `index` is not made of slices, Ellipsis and integer
    tensors, at least one of each kind."""
    items = list(index) if isinstance(index, tuple) else [index]
    if Ellipsis in items:
        at = items.index(Ellipsis)
        items[at:at + 1] = [slice(None)] * (x.dim() - len(items) + 1)
    items += [slice(None)] * (x.dim() - len(items))
    is_tensor = [isinstance(i, torch.Tensor) for i in items]
    if (len(items) != x.dim() or not any(is_tensor) or all(is_tensor) or
            any(not t and not isinstance(i, slice)
                for i, t in zip(items, is_tensor)) or
            any(t and (i.dtype == torch.bool or i.is_floating_point())
                for i, t in zip(items, is_tensor))):
        return None
    from .index_ops import selection_layout
    indexed = [d for d, t in enumerate(is_tensor) if t]
    broadcast = torch.broadcast_shapes(*[items[d].shape for d in indexed])
    before, after = selection_layout(x.dim(), indexed)
    rank = len(before) + len(broadcast) + len(after)
    layout = {d: k for k, d in enumerate(before)}
    layout.update({d: len(before) + len(broadcast) + k
                   for k, d in enumerate(after)})
    result = []
    for d, item in enumerate(items):
        if d in layout:
            shape = [1] * rank
            positions = torch.arange(*item.indices(x.shape[d]))
            shape[layout[d]] = positions.numel()
            result.append(positions.view(shape))
        else:
            shape = ([1] * (len(before) + len(broadcast) - item.dim()) +
                     list(item.shape) + [1] * len(after))
            result.append(item.view(shape))
    return tuple(result)
