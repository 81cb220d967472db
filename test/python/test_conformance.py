"""Conformance on PyTorch's own test data: every module of PyTorch's
ModuleInfo database (torch.testing._internal.common_modules.module_db) in
eval mode, and every op of its OpInfo database
(torch.testing._internal.common_methods_invocations.op_db), each on its
first sample input, in float32 (int64 or bool for ops without float
kernels) and in float16 and bfloat16 where PyTorch has CPU kernels,
compiled by Strata, run through the emulated GPU kernels and compared with
the program's reference (strata.conformance, runner.check).
strata.conformance.run_op(op, dtype, samples=N) runs more samples and
other dtypes.

Ops outside what an ML compiler of static shapes computes are listed with
the reason (OUT_OF_SCOPE); ops not done yet too (NOT_YET). The suite fails
when an unlisted op fails, when a NOT_YET op starts passing (so the list
only shrinks), and when the share of sampled ops in scope that pass falls
below PASS_FLOOR.
"""
import fnmatch

import pytest

torch = pytest.importorskip("torch")
common = pytest.importorskip("torch.testing._internal.common_methods_invocations")

from strata.conformance import (module_database, run_module,  # noqa: E402
                                run_op, variant_name)

OUT_OF_SCOPE = {
    "random sampling: no reference to compare with": [
        "bernoulli", "multinomial", "normal", "normal.*", "rand_like", "randn",
        "randn_like", "randint_like", "uniform", "nn.functional.rrelu",
        "nn.functional.dropout*",
        "nn.functional.feature_alpha_dropout.*",
        "nn.functional.fractional_max_pool*", "svd_lowrank", "pca_lowrank",
        "cauchy", "exponential", "geometric", "log_normal", "randint"],
    "uninitialized memory": ["empty", "empty_like", "new_empty",
                             "new_empty_strided", "empty_permuted",
                             "empty_strided"],
    "complex numbers": ["fft.*", "view_as_complex", "complex", "polar", "chalf",
                        "stft", "istft", "cfloat", "cdouble"],
    "sparse tensors": ["sparse.*", "to_sparse"],
    "factorizations and solvers (pivoting, iteration: not loop nests)": [
        "cholesky", "cholesky_inverse", "cholesky_solve", "symeig", "geqrf", "lu",
        "lu_solve", "lu_unpack", "matrix_exp", "ormqr", "qr", "svd", "pinverse",
        "triangular_solve", "logdet", "norm.nuc", "linalg.cholesky*",
        "linalg.cond", "linalg.det*", "linalg.eig*", "linalg.householder_product",
        "linalg.ldl_*", "linalg.lstsq*", "linalg.qr", "linalg.slogdet",
        "linalg.lu*", "linalg.inv*", "linalg.solve*", "linalg.matrix_rank*",
        "linalg.pinv*", "linalg.svd*", "linalg.tensorinv", "linalg.tensorsolve"],
    "output shapes the values decide": [
        "nonzero", "argwhere", "masked_select", "unique", "unique_consecutive",
        "bincount", "histogram", "histogramdd", "combinations",
        "nn.functional.one_hot", "*segment_reduce.*", "nn.functional.ctc_loss"],
    "PyTorch's implementation branches on values (.item())": [
        "quantile", "nanquantile", "cov", "corrcoef",
        "nn.functional.gaussian_nll_loss"],
    "mutates its inputs (training-mode running statistics, resizing)": [
        "native_batch_norm", "nn.functional.batch_norm",
        "nn.functional.instance_norm", "resize_", "resize_as_",
        "_batch_norm_with_update", "_native_batch_norm_legit"],
    "gradients (Strata compiles inference)": [
        "max_pool2d_with_indices_backward"],
}

# Listed names that only one torch host's database has (the tests run on
# torch 2.x and on Debian's 1.13, tools/dev.sh).
ONE_HOST_ONLY = {"symeig": "torch 1.13 only (removed in 2.x)"}
ONE_HOST_ONLY.update((name, "torch 2.x only") for name in (
    "nn.FractionalMaxPool2d",
    "nn.FractionalMaxPool3d", "nn.CTCLoss", "empty_strided", "empty_permuted",
    "cauchy", "exponential", "geometric", "log_normal", "randint", "cfloat",
    "cdouble", "_batch_norm_with_update", "_native_batch_norm_legit",
    "max_pool2d_with_indices_backward"))

# Not done yet: op -> why (what the front end or a later stage lacks).
NOT_YET = {
    "byte": "unsupported dtype torch.uint8",
    "igamma": "aten.igamma.default",
    "igammac": "aten.igammac.default",
    "special.airy_ai": "aten.special_airy_ai.default",
    "special.chebyshev_polynomial_t": "aten.special_chebyshev_polynomial_t.default",
    "special.chebyshev_polynomial_u": "aten.special_chebyshev_polynomial_u.default",
    "special.chebyshev_polynomial_v": "aten.special_chebyshev_polynomial_v.default",
    "special.chebyshev_polynomial_w": "aten.special_chebyshev_polynomial_w.default",
    "special.hermite_polynomial_h": "aten.special_hermite_polynomial_h.default",
    "special.hermite_polynomial_he": "aten.special_hermite_polynomial_he.default",
    "special.laguerre_polynomial_l": "aten.special_laguerre_polynomial_l.default",
    "special.legendre_polynomial_p": "aten.special_legendre_polynomial_p.default",
    "special.shifted_chebyshev_polynomial_t": "aten.special_shifted_chebyshev_polynomial_t.default",
    "special.shifted_chebyshev_polynomial_u": "aten.special_shifted_chebyshev_polynomial_u.default",
    "special.shifted_chebyshev_polynomial_v": "aten.special_shifted_chebyshev_polynomial_v.default",
    "special.shifted_chebyshev_polynomial_w": "aten.special_shifted_chebyshev_polynomial_w.default",
    "special.zeta": "aten.special_zeta.default",
}
if int(torch.__version__.split(".")[0]) >= 2:  # torch 2.x's database
    NOT_YET.update({
        "_upsample_bilinear2d_aa": "aten._upsample_bilinear2d_aa.default "
                                   "(antialiased resampling)",
        # (1.13's sample passes.)
        "as_strided_scatter": "tensorir.iota of a 0-d result (a compiler "
                              "error on torch 2.x's sample, a 0-d view)",
        "grid_sampler_3d": "aten.grid_sampler_3d.default",
        "hash_tensor": "aten.hash_tensor.default",
        "nonzero_static": "aten.nonzero_static.default",
    })


def out_of_scope(name):
    return next((reason for reason, patterns in OUT_OF_SCOPE.items()
                 if any(fnmatch.fnmatchcase(name, p) for p in patterns)), None)


OPS = sorted(common.op_db, key=variant_name)
RESULTS = {}  # variant -> [(outcome, detail)]


def results_of(op):
    name = variant_name(op)
    if name not in RESULTS:
        RESULTS[name] = run_op(op, samples=1)
    return RESULTS[name]


@pytest.mark.parametrize("op", [op for op in OPS if not out_of_scope(variant_name(op))],
                         ids=variant_name)
def test_op_matches_pytorch(op):
    name = variant_name(op)
    outcomes = results_of(op)
    failures = [(o, d) for o, d in outcomes if o not in ("pass", "skip")]
    if name in NOT_YET:
        assert failures, ("%s passes now: take it off NOT_YET (%s)"
                          % (name, NOT_YET[name]))
        return
    assert not failures, failures


def test_lists_name_ops_of_the_database():
    names = {variant_name(op) for op in OPS}
    stale = [n for n in NOT_YET if n not in names and n not in ONE_HOST_ONLY]
    assert not stale, stale
    for patterns in OUT_OF_SCOPE.values():
        for p in patterns:
            assert p in ONE_HOST_ONLY or any(
                fnmatch.fnmatchcase(n, p) for n in names), p
    both = [n for n in NOT_YET if out_of_scope(n)]
    assert not both, both


# The share of sampled in-scope ops that pass may not fall below this (467
# of 484 on 2026-12-03; the coverage issue asks for 0.9).
PASS_FLOOR = 0.95


def test_sampled_ops_in_scope_pass_above_the_floor():
    in_scope = [op for op in OPS if not out_of_scope(variant_name(op))]
    outcomes = [results_of(op) for op in in_scope]
    sampled = [o for o in outcomes if any(r != "skip" for r, _ in o)]
    passed = [o for o in sampled if all(r in ("pass", "skip") for r, _ in o)]
    assert len(passed) >= PASS_FLOOR * len(sampled), (len(passed), len(sampled))


# f16 and bf16: every op in scope with CPU kernels in the dtype, on its
# first sample, one test per dtype. Not yet there: (op, dtype) -> why.
TIES = ("PyTorch's sort is not stable: the indices of equal values (many "
        "in %s) come in its own order; Strata's are in index order")
ROUNDING = ("%s off where the reference rounds each of PyTorch's ops to "
            "bf16 and Strata rounds once, at the end")
NOT_YET_LOW_PRECISION = {
    ("argsort", torch.float16): TIES % "f16",
    ("sort", torch.float16): TIES % "f16",
    ("argsort", torch.bfloat16): TIES % "bf16",
    ("sort", torch.bfloat16): TIES % "bf16",
    ("topk", torch.bfloat16): TIES % "bf16",
    ("polygamma.polygamma_n_0", torch.bfloat16):
        "inf where PyTorch's digamma is finite near a pole",
    ("polygamma.polygamma_n_1", torch.bfloat16):
        "inf where PyTorch's trigamma is finite near a pole",
    ("polygamma.polygamma_n_2", torch.bfloat16):
        "inf where PyTorch's polygamma is finite near a pole",
    ("nn.functional._scaled_dot_product_attention", torch.bfloat16):
        ROUNDING % "0.41",
}
# The hosts' samples and references differ (tools/dev.sh tests on torch 2.x
# and on Debian's 1.13): what differs on torch 2.x (2.9.1), measured
# 2026-12-03, not yet understood.
UNDERSTOOD_LATER = "on torch 2.x's sample: max error %s against %s"
if int(torch.__version__.split(".")[0]) >= 2:
    for passing in ("polygamma.polygamma_n_0", "polygamma.polygamma_n_1",
                    "polygamma.polygamma_n_2", "topk"):
        del NOT_YET_LOW_PRECISION[(passing, torch.bfloat16)]
    NOT_YET_LOW_PRECISION.update({
        # Strata counts as PyTorch does; the reference does not: it runs
        # histc in f64, where PyTorch widens a one-value range to
        # [x - 1, x + 1] in f16 (torch 2.x's sample: -1.8369 falls in bin
        # 49 of 100 with f16's bounds, 50 with f64's).
        ("histc", torch.float16): "the f64 reference bins one element "
            "differently from f16 bounds (Strata and PyTorch agree)",
        ("grid_sampler_2d", torch.bfloat16):
            UNDERSTOOD_LATER % ("0.094", "0.037"),
        ("nn.functional.grid_sample", torch.bfloat16):
            UNDERSTOOD_LATER % ("0.031", "0.028"),
    })


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_ops_in_half_precision_match_pytorch(dtype):
    unexpected, fixed = [], []
    for op in OPS:
        name = variant_name(op)
        if (out_of_scope(name) or name in NOT_YET or
                dtype not in op.supported_dtypes("cpu")):
            continue
        outcomes = run_op(op, dtype=dtype, samples=1)
        failed = [(o, d) for o, d in outcomes if o not in ("pass", "skip")]
        listed = (name, dtype) in NOT_YET_LOW_PRECISION
        if failed and not listed:
            unexpected.append((name, failed))
        if listed and not failed:
            fixed.append(name)
    assert not unexpected, unexpected
    assert not fixed, "passing now: take off NOT_YET_LOW_PRECISION: %s" % fixed


# Modules whose eval-mode forward is out of scope, with the reason.
MODULES_OUT_OF_SCOPE = {
    # Its forward checks `torch.any(var < 0)` and raises: a branch on values.
    "nn.GaussianNLLLoss": "PyTorch's forward branches on values",
    # torch 2.x's database only:
    "nn.FractionalMaxPool2d": "random sampling: no reference to compare with",
    "nn.FractionalMaxPool3d": "random sampling: no reference to compare with",
    "nn.CTCLoss": "output shapes the values decide (as nn.functional.ctc_loss)",
}
MODULES = [info for info in module_database()
           if info.name not in MODULES_OUT_OF_SCOPE]


@pytest.mark.parametrize("info", MODULES, ids=lambda info: info.name)
def test_module_matches_pytorch_in_eval_mode(info):
    outcomes = run_module(info, samples=1)
    assert any(o == "pass" for o, _ in outcomes), outcomes
    failures = [(o, d) for o, d in outcomes if o not in ("pass", "skip")]
    assert not failures, failures


def test_module_out_of_scope_list_names_modules_of_the_database():
    names = {info.name for info in module_database()}
    assert set(MODULES_OUT_OF_SCOPE) - set(ONE_HOST_ONLY) <= names
