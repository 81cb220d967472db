"""Checks Strata's artifacts on a GPU against PyTorch eager and times them.

For each program of a set of gpu_programs.SETS (`--set`, default the check's
programs; `--only` picks some): load its artifact, run it on fresh
random inputs, compare with eager (tolerance per dtype), then time it with
CUDA events (warm-up, many repetitions, median, inputs rotated over sets
larger than L2) next to eager and, with torch >= 2, torch.compile. Prints a
row of time, speedup and achieved GB/s and TFLOP/s as each program finishes
(`--no-timing`: the check alone, e.g. under compute-sanitizer). --dry-run
only checks that every artifact loads and binds (no GPU needed).
"""
import argparse
import os
import sys

import torch

import _strata_runtime as rt
import gpu_programs
from strata.bench import rotating_sets, time_ms
from strata.device import TORCH_DTYPE

H200_GBPS, H200_TFLOPS_F32 = 4800.0, 67.0


def load(directory, name):
    with open(os.path.join(directory, name + ".strata"), "rb") as f:
        data = f.read()
    return data, rt.Artifact.parse(data)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("artifacts")
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--no-torch-compile", action="store_true")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--set", default="check", choices=sorted(gpu_programs.SETS),
                        help="the programs to check (gpu_programs.SETS)")
    parser.add_argument("--only", default="",
                        help="comma-separated program names (default: all)")
    parser.add_argument("--no-timing", action="store_true",
                        help="check results only (e.g. under compute-sanitizer)")
    args = parser.parse_args()

    failed = False
    row_format = "%-20s %7d %9.2g %5s %10.3f %10.3f %10.3f %7.2fx %8.0f %8.1f"
    if not args.dry_run:
        print("device:", rt.describe_device())
        print("%-20s %7s %9s %5s %10s %10s %10s %8s %8s %8s" % (
            "program", "kernels", "max err", "check", "strata ms", "eager ms",
            "compile ms", "vs eager", "GB/s", "TFLOP/s"))
    only = set(filter(None, args.only.split(",")))
    programs = gpu_programs.SETS[args.set]
    unknown = only - set(programs)
    if unknown:
        parser.error("unknown programs: " + ", ".join(sorted(unknown)))
    for name, make in programs.items():
        if only and name not in only:
            continue
        torch.manual_seed(0)
        fn, inputs, min_bytes, flops = make()
        data, artifact = load(args.artifacts, name)
        names = [b.name for b in artifact.buffers if b.kind == "argument"]
        tensors = gpu_programs.argument_tensors(fn, inputs, names)
        arguments = [b for b in artifact.buffers if b.kind == "argument"]
        for t, b in zip(tensors, arguments):
            assert list(t.shape) == b.shape, (name, b.name, t.shape, b.shape)
        if args.dry_run:
            print("%-20s binds %d arguments, %d kernels" % (name, len(names), len(artifact.launches)))
            continue

        device = torch.device("cuda")
        program = rt.Program(data)
        # A wave launch's grid is the runtime's (the exact wave): say it.
        for k, launch in enumerate(artifact.launches):
            if launch.wave_tiles:
                print("%s: %s launches %d blocks over %d tiles (estimate %d)"
                      % (name, launch.kernel, program.launched_grid(k)[0],
                         launch.wave_tiles, launch.grid[0]), file=sys.stderr)
        if isinstance(fn, torch.nn.Module):
            fn = fn.to(device)
            tensors = gpu_programs.argument_tensors(fn, [x.to(device) for x in inputs], names)
        else:
            tensors = [t.to(device) for t in tensors]
        tensors = [t.contiguous() for t in tensors]
        outputs = [artifact.buffers[i] for i in artifact.outputs]
        results = [torch.empty(b.shape, dtype=TORCH_DTYPE[b.dtype], device=device)
                   for b in outputs]
        for r in results:
            if r.is_floating_point():
                r.fill_(float("nan"))  # An unwritten element fails.
        stream = torch.cuda.current_stream().cuda_stream
        program.run([t.data_ptr() for t in tensors], [r.data_ptr() for r in results], stream)
        torch.cuda.synchronize()
        user_inputs = [x.to(device) for x in inputs]
        with torch.no_grad():
            expected = fn(*user_inputs)
        expected = list(expected) if isinstance(expected, (list, tuple)) else [expected]
        error, ok = 0.0, True
        for got, want in zip(results, expected):
            scale = max(1.0, float(want.double().abs().max()))
            e = float((got.double() - want.double()).abs().max())
            error = max(error, e)
            tolerance = gpu_programs.PROGRAM_TOLERANCE.get(
                name, gpu_programs.TOLERANCE.get(want.dtype, 1e-4))
            ok &= e <= tolerance * scale
        failed |= not ok
        if args.no_timing:
            print(row_format % ((name, len(artifact.launches), error, "PASS" if ok else "FAIL")
                                + (float("nan"),) * 6))
            continue

        # Rotate over input sets together larger than L2.
        strata_sets = rotating_sets(tensors)
        eager_sets = rotating_sets(user_inputs)

        def run_strata(ts):
            program.run([t.data_ptr() for t in ts], [r.data_ptr() for r in results], stream)

        with torch.no_grad():
            t_strata = time_ms(run_strata, strata_sets, args.reps)
            t_eager = time_ms(lambda xs: fn(*xs), eager_sets, args.reps)
            t_compiled = float("nan")
            if not args.no_torch_compile and hasattr(torch, "compile"):
                try:
                    compiled = torch.compile(fn)
                    t_compiled = time_ms(lambda xs: compiled(*xs), eager_sets, args.reps)
                except Exception as e:  # Reported, not fatal.
                    print("torch.compile failed on %s: %s" % (name, e), file=sys.stderr)
        gbps = min_bytes / (t_strata * 1e-3) / 1e9
        tflops = flops / (t_strata * 1e-3) / 1e12 if flops else float("nan")
        # One row as each program finishes, so a run cut short keeps its rows.
        print(row_format % (name, len(artifact.launches), error, "PASS" if ok else "FAIL",
                            t_strata, t_eager, t_compiled, t_eager / t_strata, gbps, tflops))

    if not args.dry_run:
        print("peaks (H200 data sheet): %.0f GB/s, %.0f TFLOP/s fp32" % (H200_GBPS, H200_TFLOPS_F32))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
