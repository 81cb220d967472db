"""Shape rules (Meta kernels) for the order ops torch 1.13 gives none.

A fake-tensor trace computes every value's shape and dtype from an op's
Meta kernel. Where an op has none, torch 1.13's fake tensors run its real
CPU kernel on zeros instead, and that fails for the dtypes the CPU kernel
lacks: cummax, cummin, logcumsumexp, kthvalue and median have no
half-precision CPU kernel there, so a program using them on halves could
not be captured at all, though Strata compiles them (docs/frontend.md).
torch 2.x has Meta kernels for all of them; these are registered only for
an op that has none, so they never replace PyTorch's own.
"""

import functools

import torch


def _reduced_shape(x, dim, keepdim):
    shape = list(x.shape)
    if not shape:
        return shape
    dim = dim % len(shape)
    if keepdim:
        shape[dim] = 1
    else:
        del shape[dim]
    return shape


def _values_and_positions(x, shape):
    return (x.new_empty(shape), x.new_empty(shape, dtype=torch.long))


def _prefix_values_and_positions(x, dim):
    return _values_and_positions(x, x.shape)


def _prefix_values(x, dim):
    return x.new_empty(x.shape)


def _kthvalue(x, k, dim=-1, keepdim=False):
    return _values_and_positions(x, _reduced_shape(x, dim, keepdim))


def _median_along(x, dim, keepdim=False):
    return _values_and_positions(x, _reduced_shape(x, dim, keepdim))


def _median(x):
    return x.new_empty(())


# aten schema name -> its shape rule.
_SHAPE_RULES = {
    "cummax": _prefix_values_and_positions,
    "cummin": _prefix_values_and_positions,
    "logcumsumexp": _prefix_values,
    "kthvalue": _kthvalue,
    "median.dim": _median_along,
    "median": _median,
}


@functools.lru_cache(maxsize=None)
def register_missing_meta_kernels():
    """Registers each shape rule whose op has no Meta kernel on this torch.
    Returns the library that holds them (kept alive by the cache)."""
    has_kernel = torch._C._dispatch_has_kernel_for_dispatch_key
    library = torch.library.Library("aten", "IMPL", "Meta")
    for name, rule in _SHAPE_RULES.items():
        if not has_kernel("aten::" + name, "Meta"):
            library.impl(name, rule)
    return library
