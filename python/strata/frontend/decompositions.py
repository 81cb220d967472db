"""Which aten ops reach the importer: PyTorch's own decompositions break up
the composite and fused ops Strata does not import itself.

torch 2.x: the core ATen decompositions (what torch.export and Inductor
use). torch 1.13 has no core set, and many of its decompositions are
written in prims; the list below names those whose 1.13 form is aten ops
(or the few prims the importer takes). Either way an op the importer takes
as it is stays whole: Strata's composites (softmax, layer norm, matmul, ...)
carry meaning later stages use.
"""

import functools

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
        if func is torch.nn.functional.cross_entropy:
            smoothed = _label_smoothed_cross_entropy(*args, **kwargs)
            if smoothed is not None:
                return smoothed
        if func is torch.nn.functional.pad:
            mode = kwargs.pop("mode", args[2] if len(args) > 2 else "constant")
            if mode in _PAD_MODES:
                return _PAD_MODES[mode](*args[:2], *args[3:], **kwargs)
            kwargs["mode"] = mode
            args = args[:2] + args[3:]
        return func(*args, **kwargs)


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
