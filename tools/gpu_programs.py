"""The programs the GPU check compiles, checks and times (issue 8's list).

Shared by tools/gpu-artifacts.sh (on a build machine, with the compiler)
and tools/gpu_check.py (on a GPU host, with the runtime only), so it imports
nothing of Strata. Each program: a callable (a function or an nn.Module made
with a fixed seed), example inputs, and the minimum bytes and flops one run
must move and do, for the achieved GB/s and TFLOP/s.
"""

import functools
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

N = 4096


def _bytes(*tensors):
    return sum(t.numel() * t.element_size() for t in tensors)


def elementwise_chain():
    a, b, c = torch.randn(N, N), torch.randn(N), torch.randn(N, 1)
    fn = lambda a, b, c: (torch.exp(a) * b + c).relu()
    return fn, (a, b, c), _bytes(a, a), 0


def rmsnorm(m=N, n=N):
    x, w = torch.randn(m, n), torch.randn(n)
    fn = lambda x, w: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    return fn, (x, w), _bytes(x, x), 0


def softmax(m=N, n=N):
    x = torch.randn(m, n)
    return (lambda x: F.softmax(x, -1)), (x,), _bytes(x, x), 0


def layer_norm(m=N, n=N, random_affine=False):
    torch.manual_seed(0)
    ln = nn.LayerNorm(n)
    if random_affine:
        with torch.no_grad():
            ln.weight.normal_()
            ln.bias.normal_()
    x = torch.randn(m, n)
    return ln, (x,), _bytes(x, x), 0


def total(m=N, n=N):
    """A whole tensor's sum: one program instance unless its fold is split
    across blocks (tileir-split-folds)."""
    x = torch.randn(m, n)
    return (lambda x: x.sum()), (x,), _bytes(x), 0


def matmul(dtype, m=N, k=N, n=N, batch=()):
    def make():
        a = torch.randn(*batch, m, k).to(dtype)
        b = torch.randn(*batch, k, n).to(dtype)
        outputs = math.prod(batch) * m * n
        return (torch.matmul, (a, b), _bytes(a, b) + outputs * a.element_size(),
                2 * outputs * k)
    return make


def linear(dtype, m=N, k=N, n=N, batch=()):
    """x @ w.T with w [n, k], as nn.Linear multiplies: both operands K-major
    (what TMA copies for wgmma); x [*batch, m, k] folds its batch into the
    rows."""
    def make():
        x, w = torch.randn(*batch, m, k).to(dtype), torch.randn(n, k).to(dtype)
        rows = math.prod(batch) * m
        return ((lambda x, w: x @ w.t()), (x, w),
                _bytes(x, w) + rows * n * x.element_size(), 2 * rows * n * k)
    return make


def heads_projection(dtype, batch=4, heads=12, tokens=1024, head_dim=64,
                     n=768):
    """Attention's output projection: the attention's [b h][s][d] output
    read as rows (b, s) and k (h, d), times w.T: TMA copies it through a
    4-d view [b][h][s][d] of its tensor map (boxes of the gcd of a tile's
    rows and the tokens)."""
    def make():
        o = torch.randn(batch * heads, tokens, head_dim).to(dtype)
        w = torch.randn(n, heads * head_dim).to(dtype)

        def project(o, w):
            y = o.view(batch, heads, tokens, head_dim).transpose(1, 2)
            return y.reshape(batch, tokens, heads * head_dim) @ w.t()
        rows, k = batch * tokens, heads * head_dim
        return (project, (o, w), _bytes(o, w) + rows * n * o.element_size(),
                2 * rows * n * k)
    return make


def swiglu():
    g, u = torch.randn(N, N), torch.randn(N, N)
    return (lambda g, u: F.silu(g) * u), (g, u), _bytes(g, u, g), 0


def attention(batch=1, heads=12, queries=1, keys=1024, head_dim=64):
    """`queries` per head against `keys` keys: the flash fold, one kernel
    (a row per head and query for a decode step; tiles of 64 query rows
    sharing each chunk of keys and values for a prefill), the scores in no
    memory."""
    q = torch.randn(batch, heads, queries, head_dim)
    k, v = (torch.randn(batch, heads, keys, head_dim) for _ in range(2))

    def attend(q, k, v):
        s = torch.matmul(q, k.transpose(-2, -1)) / head_dim ** 0.5
        return torch.matmul(torch.softmax(s, dim=-1), v)
    flops = 4 * batch * heads * queries * keys * head_dim
    return attend, (q, k, v), _bytes(q, k, v, q), flops


def causal_attention_in_halves(dtype, batch, heads, queries, head_dim):
    """A prefill in f16 or bf16 as transformers' eager attention writes it
    (a causal mask from triu, an f32 softmax rounded to the half before
    P . V): the Q-tile flash fold on tensor cores, one kernel. FLOPs count
    the causal half, as FlashAttention's figures do."""
    def make():
        q, k, v = (torch.randn(batch, heads, queries, head_dim).to(dtype)
                   for _ in range(3))

        def attend(q, k, v):
            t = q.shape[-2]
            s = torch.matmul(q, k.transpose(-2, -1)) * head_dim ** -0.5
            future = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
            w = torch.softmax(s.masked_fill(future, float("-inf")), dim=-1,
                              dtype=torch.float32).to(q.dtype)
            return torch.matmul(w, v)
        flops = 2 * batch * heads * queries * queries * head_dim
        return attend, (q, k, v), _bytes(q, k, v, q), flops
    return make


def decoder_example():
    """examples/decoder.py, loaded as a module (model, inputs, DecoderBlock)."""
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "examples", "decoder.py")
    spec = importlib.util.spec_from_file_location("decoder_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def decoder():
    module = decoder_example()
    return module.model, module.inputs, _bytes(*module.inputs) * 2, 0


PROGRAMS = {
    "elementwise_chain": elementwise_chain,
    "rmsnorm_4096": rmsnorm,
    "softmax_4096": softmax,
    "layer_norm_4096": layer_norm,
    "matmul_f32_4096": matmul(torch.float32),
    "matmul_f16_4096": matmul(torch.float16),
    "matmul_tf32_4096": matmul(torch.float32),
    "swiglu_4096": swiglu,
    "decoder_block": decoder,
    # Ragged sizes, multiples of no tile size: the bounds checks, the k
    # tails, split-K, one-warp rows and misaligned rows on the hardware.
    "matmul_f16_issue": matmul(torch.float16, 512, 384, 256),
    "matmul_f16_ragged": matmul(torch.float16, 1000, 333, 517),
    "matmul_bf16_ragged": matmul(torch.bfloat16, 1000, 333, 517),
    "matmul_f32_ragged": matmul(torch.float32, 1000, 333, 517),
    "matmul_tf32_ragged": matmul(torch.float32, 1000, 333, 517),
    "matmul_split_k": matmul(torch.float32, 37, 3000, 45),
    # k = 3001 is prime: 11 slices of 272 and a kernel for the 9 left.
    "matmul_split_k_prime": matmul(torch.float32, 37, 3001, 45),
    # 128 batches: 128 x 128 tensor-core tiles, mostly out of bounds.
    "bmm_f16_large_tiles": matmul(torch.float16, 100, 40, 90, batch=(128,)),
    "attention_decode_gpt2": attention,
    # The same without split-KV (split-folds=1): one block per head.
    "attention_decode_gpt2_unsplit": attention,
    # A decode step's sampling softmax over GPT-2's logits: one row.
    "softmax_logits": functools.partial(softmax, 1, 50257),
    "sum_4096": total,
    "sum_4096_unsplit": total,
    "attention_decode_ragged": functools.partial(attention, 3, 5, 1, 1000, 48),
    "attention_prefill_gpt2": functools.partial(attention, 1, 12, 1024, 1024, 64),
    "attention_prefill_ragged": functools.partial(attention, 2, 5, 333, 1000, 48),
    # Prefill in halves on tensor cores (mma.sync Q . K^T and P . V).
    "attention_prefill_gpt2_f16_causal": causal_attention_in_halves(
        torch.float16, 1, 12, 1024, 64),
    "attention_prefill_llama_bf16_causal": causal_attention_in_halves(
        torch.bfloat16, 1, 32, 4096, 128),
    "attention_prefill_f16_causal_ragged": causal_attention_in_halves(
        torch.float16, 2, 5, 333, 64),
    "softmax_warp_rows": functools.partial(softmax, 1000, 37),
    "softmax_ragged": functools.partial(softmax, 333, 2049),
    "rmsnorm_ragged": functools.partial(rmsnorm, 513, 1023),
    "layer_norm_ragged": functools.partial(layer_norm, 777, 1025, True),
    # The 4096^3 matmuls with the block tiles the defaults do not take
    # (SCHEDULE below), measured slower.
    "matmul_f16_4096_t128x256": matmul(torch.float16),
    "matmul_f32_4096_t128": matmul(torch.float32),
}

# The block-tile sweep (`--set sweep`): square matmuls around the size where
# 128 x 128 block tiles start to pay, each with 64 x 64 and 128 x 128 tiles
# and 16 k per step (as measured; the default now chooses the step).
SWEEP = {}
SWEEP_SCHEDULE = {}
for _n in (1024, 1536, 2048, 3072):
    for _dtype, _name, _options in ((torch.float16, "f16", ""),
                                     (torch.float32, "f32", ""),
                                     (torch.float32, "tf32", "tf32=true ")):
        for _t in (64, 128):
            _key = "sweep_%s_%d_t%d" % (_name, _n, _t)
            SWEEP[_key] = matmul(_dtype, _n, _n, _n)
            SWEEP_SCHEDULE[_key] = _options + "tile-sizes=%d,%d k-tile=16" % (_t, _t)
# Steps of k and pipeline depth for the 128 x 128 tensor-core tiles (shared
# memory beyond 48 KiB is dynamic).
for _n in (2048, 4096):
    for _dtype, _name, _options in ((torch.float16, "f16", ""),
                                     (torch.float32, "tf32", "tf32=true ")):
        for _k, _stages in ((16, 2), (32, 2), (32, 3), (32, 4), (64, 3)):
            _key = "sweep_%s_%d_k%ds%d" % (_name, _n, _k, _stages)
            SWEEP[_key] = matmul(_dtype, _n, _n, _n)
            SWEEP_SCHEDULE[_key] = _options + (
                "tile-sizes=128,128 k-tile=%d stages=%d shared-memory=200000" % (_k, _stages))
# Warpgroup mma (`--set wgmma`, sm_90a): the contractions of the check with
# wgmma=true, ragged ones for the bounds and k tails, next to their
# mma.sync twins compiled in the same run; and the shallower pipeline that
# was the default before (32 k a step, 2 stages).
WGMMA = {
    "wgmma_f16_4096": matmul(torch.float16),
    "wgmma_bf16_4096": matmul(torch.bfloat16),
    "wgmma_f16_2048": matmul(torch.float16, 2048, 2048, 2048),
    "wgmma_f16_4096_k32s2": matmul(torch.float16),
    "wgmma_f16_issue": matmul(torch.float16, 512, 384, 256),
    "wgmma_f16_ragged": matmul(torch.float16, 1000, 333, 517),
    "wgmma_bf16_ragged": matmul(torch.bfloat16, 1000, 333, 517),
    "wgmma_bmm_large_tiles": matmul(torch.float16, 100, 40, 90, batch=(128,)),
    "mma_f16_4096": matmul(torch.float16),
    "mma_f16_2048": matmul(torch.float16, 2048, 2048, 2048),
    # TMA (tma=true): x @ w.T and a @ b (B row-major: MN-major chunks,
    # read transposed), both operands copied by tma_load on a ring of
    # mbarriers; twins on cp.async (wgmma, mma.sync) of the same shapes
    # (wgmma_f16_4096 and mma_f16_4096 for a @ b). The ragged ones have
    # k = 328 (a tensor map needs rows of whole 16-byte units; 333 has
    # none), 517 columns of x @ w.T and 520 of a @ b.
    "wgmma_tma_f16_4096": linear(torch.float16),
    "wgmma_tma_bf16_4096": linear(torch.bfloat16),
    "wgmma_tma_f16_4096_matmul": matmul(torch.float16),
    "wgmma_tma_bf16_4096_matmul": matmul(torch.bfloat16),
    "wgmma_tma_f16_ragged": linear(torch.float16, 1000, 328, 517),
    "wgmma_tma_f16_ragged_matmul": matmul(torch.float16, 1000, 328, 520),
    # Batched operands (3-d tensor maps, boxes [1, rows, S bytes]):
    # attention's products over GPT-2's 4 x 12 heads of 1024 (scores
    # q @ k: k = 64; values p @ v: n = 64), each next to its cp.async twin.
    "wgmma_tma_bmm_f16_scores": matmul(torch.float16, 1024, 64, 1024,
                                       batch=(48,)),
    "wgmma_bmm_f16_scores": matmul(torch.float16, 1024, 64, 1024, batch=(48,)),
    "wgmma_tma_bmm_f16_values": matmul(torch.float16, 1024, 1024, 64,
                                       batch=(48,)),
    "wgmma_bmm_f16_values": matmul(torch.float16, 1024, 1024, 64, batch=(48,)),
    # GPT-2-small's QKV projection on 4 x 1024 tokens, x [4, 1024, 768]:
    # the batch folds into the rows (TMA maps x as 4096 x 768), next to
    # its cp.async twin.
    "wgmma_tma_f16_qkv_3d": linear(torch.float16, 1024, 768, 2304, batch=(4,)),
    "wgmma_f16_qkv_3d": linear(torch.float16, 1024, 768, 2304, batch=(4,)),
    # Wider tiles for the TMA loop: 128 x 256 (two warpgroups of
    # m64n256k16, 154 registers, no spills) in four stages (192 KiB) and
    # three.
    "wgmma_tma_f16_4096_t128x256": matmul(torch.float16),
    "wgmma_tma_f16_4096_t128x256s3": matmul(torch.float16),
    "wgmma_f16_4096_linear": linear(torch.float16),
    "mma_f16_4096_linear": linear(torch.float16),
    # The order of the tiles (tileir-raster): bands of 8 rows by default at
    # these grids (B of 32 MiB and more), each next to its row-major twin
    # (raster-group=1); 8192^3 is where the operands (128 MiB each)
    # outgrow the 50 MB L2.
    "mma_f16_4096_rows": matmul(torch.float16),
    "mma_f16_8192": matmul(torch.float16, 8192, 8192, 8192),
    "mma_f16_8192_rows": matmul(torch.float16, 8192, 8192, 8192),
    "wgmma_tma_f16_8192": linear(torch.float16, 8192, 8192, 8192),
    "wgmma_tma_f16_8192_rows": linear(torch.float16, 8192, 8192, 8192),
    # Persistent kernels (tileir-persist, persistent-sms=132: one wave of
    # instances looping over the banded tiles) against the same schedules
    # launching a block per tile (the names without _persistent).
    "mma_f16_4096_persistent": matmul(torch.float16),
    "mma_f16_8192_persistent": matmul(torch.float16, 8192, 8192, 8192),
    "wgmma_tma_f16_4096_persistent": linear(torch.float16),
    "wgmma_tma_f16_8192_persistent": linear(torch.float16, 8192, 8192, 8192),
    # Each step's wgmmas in flight while the next step's boxes are awaited
    # (the default of tma=true) against the same schedules waiting for
    # every step's multiplies (wgmma-overlap=false, the _waited names).
    "wgmma_tma_f16_4096_waited": linear(torch.float16),
    "wgmma_tma_f16_8192_waited": linear(torch.float16, 8192, 8192, 8192),
    "wgmma_tma_f16_4096_t128x256_waited": matmul(torch.float16),
    "wgmma_tma_f16_qkv_3d_waited": linear(torch.float16, 1024, 768, 2304,
                                          batch=(4,)),
    # GPT-2-small's attention output projection (4 x 12 heads of 1024
    # tokens into 768): through a view of the map, next to its cp.async
    # twin; 1000 tokens a sequence: 8-row boxes (tiles straddle two).
    "wgmma_tma_f16_out_proj": heads_projection(torch.float16),
    "wgmma_f16_out_proj": heads_projection(torch.float16),
    "wgmma_tma_f16_out_proj_ragged": heads_projection(torch.float16,
                                                      tokens=1000),
    # Result tiles out by TMA through a staging buffer (tma-store=true,
    # the _tma_store names) against the threads' stores of the same
    # schedules; the ragged one also under memcheck.
    "wgmma_tma_f16_4096_tma_store": linear(torch.float16),
    "wgmma_tma_f16_qkv_3d_tma_store": linear(torch.float16, 1024, 768, 2304,
                                             batch=(4,)),
    "wgmma_tma_f16_ragged_tma_store": linear(torch.float16, 1000, 328, 520),
}
WGMMA_SCHEDULE = {name: "wgmma=true" for name in WGMMA if name.startswith("wgmma_")}
WGMMA_SCHEDULE["wgmma_f16_4096_k32s2"] += " k-tile=32 stages=2"
for _name in WGMMA_SCHEDULE:
    if _name.startswith("wgmma_tma_"):
        WGMMA_SCHEDULE[_name] += " tma=true"
for _name in ("wgmma_tma_f16_4096_t128x256", "wgmma_tma_f16_4096_t128x256_waited"):
    WGMMA_SCHEDULE[_name] += (
        " tile-sizes=128,256 k-tile=64 stages=4 shared-memory=230000")
WGMMA_SCHEDULE["wgmma_tma_f16_4096_t128x256s3"] += (
    " tile-sizes=128,256 k-tile=64 stages=3")
for _name in WGMMA:
    for _suffix, _option in (("_rows", " raster-group=1"),
                             ("_persistent", " persistent-sms=132"),
                             ("_waited", " wgmma-overlap=false"),
                             ("_tma_store", " tma-store=true")):
        if _name.endswith(_suffix):
            WGMMA_SCHEDULE[_name] = (WGMMA_SCHEDULE.get(_name, "") +
                                     _option).strip()
# LLVM at O2 (`--set llvm_o2`): the row, elementwise and matmul programs
# and the decoder block with opt-level=2, to time against the check's O3
# (O2 is 10-15% cheaper to compile and gives the decoder fewer registers,
# 379 against 447; docs/architecture.md, Compile time).
LLVM_O2 = {name + "_O2": PROGRAMS[name] for name in (
    "elementwise_chain", "rmsnorm_4096", "softmax_4096", "layer_norm_4096",
    "matmul_f32_4096", "matmul_f16_4096", "decoder_block")}
LLVM_O2_SCHEDULE = {name: "opt-level=2" for name in LLVM_O2}
SETS = {"check": PROGRAMS, "sweep": SWEEP, "wgmma": WGMMA, "llvm_o2": LLVM_O2}

# The chip each program is compiled for: sm_90, but wgmma exists on sm_90a
# only (and an sm_90a cubin runs on the H100/H200's sm_90).
TARGET = {name: "sm_90a" for name, options in WGMMA_SCHEDULE.items()
          if "wgmma=true" in options}

# Tolerance relative to max(1, max|ref|), per dtype.
TOLERANCE = {torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 2e-2}

# Schedule options a program is compiled with, and the tolerance it gets
# instead of its dtype's: the f32 matmul once more on tensor cores, its
# operands rounded to tf32 (10 mantissa bits) against eager's full f32.
SCHEDULE = {
    "matmul_tf32_4096": "tf32=true",
    "matmul_tf32_ragged": "tf32=true",
    "matmul_f16_4096_t128x256": "tile-sizes=128,256 k-tile=32 stages=3",
    "matmul_f32_4096_t128": "tile-sizes=128,128",
    "attention_decode_gpt2_unsplit": "split-folds=1",
    "sum_4096_unsplit": "split-folds=1",
}
SCHEDULE.update(SWEEP_SCHEDULE)
SCHEDULE.update(WGMMA_SCHEDULE)
SCHEDULE.update(LLVM_O2_SCHEDULE)
PROGRAM_TOLERANCE = {name: 2e-3 for name, options in SCHEDULE.items()
                     if "tf32=true" in options}


def argument_tensors(program_fn, inputs, names):
    """The tensors bound to an artifact's argument names: the inputs
    (input0, input1, ...) and a module's parameters and buffers by name."""
    named = {}
    if isinstance(program_fn, nn.Module):
        named.update(dict(program_fn.named_parameters()))
        named.update(dict(program_fn.named_buffers()))
    tensors = []
    for name in names:
        if name.startswith("input") and name[5:].isdigit():
            tensors.append(inputs[int(name[5:])])
        elif name in named:
            tensors.append(named[name].detach())
        else:
            raise KeyError("the artifact binds '%s', which the program lacks" % name)
    return tensors
