"""GPU timing shared by `strata run --device cuda --bench` and the GPU check
(tools/gpu_check.py). Needs PyTorch with CUDA, not the compiler."""

import statistics

import torch

L2_BYTES = 60e6  # H200; the rotation below covers twice that.


def time_ms(run, input_sets, reps=20, warmup=3):
    """Median of CUDA-event timings of run(inputs), rotating input sets."""
    for i in range(warmup):
        run(input_sets[i % len(input_sets)])
    torch.cuda.synchronize()
    times = []
    for i in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        args = input_sets[i % len(input_sets)]
        start.record()
        run(args)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def rotating_sets(tensors, most=16):
    """Copies of `tensors` whose total exceeds twice the L2, so that timed
    runs read from memory, not from the cache."""
    size = sum(t.numel() * t.element_size() for t in tensors) or 1
    count = min(most, max(2, int(2 * L2_BYTES // size) + 1))
    return [[t.clone() for t in tensors] for _ in range(count)]


def compare(fn, compiled, inputs, min_bytes=0, flops=0, reps=20,
            torch_compile=True):
    """Times `compiled` and eager `fn` (and torch.compile where available) on
    CUDA `inputs`; returns a dict of milliseconds and rates."""
    sets = rotating_sets(inputs)
    with torch.no_grad():
        result = {"strata_ms": time_ms(lambda xs: compiled(*xs), sets, reps),
                  "eager_ms": time_ms(lambda xs: fn(*xs), sets, reps),
                  "compile_ms": float("nan")}
        if torch_compile and hasattr(torch, "compile"):
            try:
                tc = torch.compile(fn)
                result["compile_ms"] = time_ms(lambda xs: tc(*xs), sets, reps)
            except Exception as e:  # Reported by the caller's table as nan.
                result["compile_error"] = str(e)
    seconds = result["strata_ms"] * 1e-3
    result["gbps"] = min_bytes / seconds / 1e9 if min_bytes else float("nan")
    result["tflops"] = flops / seconds / 1e12 if flops else float("nan")
    return result
