"""Compile-time benchmark: Strata's own time from tensorir to PTX, next to
ptxas's time for the same PTX, on one core.

For each program of gpu_programs.PROGRAMS (the decoder block of the capture
issue last, the headline), and eight decoder blocks in sequence (how compile
time grows with a program): capture it once, then REPS times import it into
tensorir and lower it to PTX (strata-lower-to-nvvm, format=isa), and
assemble that PTX with ptxas. Prints the median of each, the share of
LLVM's NVPTX code generation (gpu-module-to-binary), the first, cold
compile of the process, and the ratio of Strata's time to ptxas's; and the
median time to capture it (PyTorch tracing with fake tensors: the
GPT-2-small block, decoder_gpt2, is the real-size case). A benchmark, not
a test: it asserts nothing.

    tools/compile-benchmark.sh [--reps N] [--only NAME] [--cpu N]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import torch

import gpu_programs
import strata
import _strata_config as config
from strata.frontend import capture, import_program

PIPELINE = "chip=sm_90 features=+ptx80 format=isa"


def lower_to_ptx(program, schedule):
    """(PTX, seconds to PTX, seconds in gpu-module-to-binary)."""
    start = time.perf_counter()
    module = import_program(program)
    # As `strata compile` and strata.compile run it: the result verified,
    # not the IR after every pass.
    timing = module.run(strata.pipeline("nvvm", " ".join(
        filter(None, [PIPELINE, schedule]))), True, verify_each=False)
    seconds = time.perf_counter() - start
    ptx = "".join(o.data.decode() for o in module.gpu_objects())
    m = re.search(r"([0-9.]+) \(\s*[0-9.]+%\)\s+GpuModuleToBinaryPass", timing)
    return ptx, seconds, float(m.group(1)) if m else float("nan")


def ptxas_seconds(ptx):
    ptxas = os.path.join(config.CUDA_ROOT, "bin", "ptxas")
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "kernels.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        start = time.perf_counter()
        subprocess.run([ptxas, "-arch=sm_90", src, "-o",
                        os.path.join(tmp, "kernels.cubin")], check=True)
        return time.perf_counter() - start


def decoder_stack(blocks=8):
    """`blocks` decoder blocks of the example, one after another."""
    example = gpu_programs.decoder_example()
    torch.manual_seed(0)
    model = torch.nn.Sequential(*[example.DecoderBlock() for _ in range(blocks)])
    return model, example.inputs, 0, 0


def decoder_gpt2():
    """The example's block at GPT-2-small dimensions, one sequence of 1024."""
    example = gpu_programs.decoder_example()
    torch.manual_seed(0)
    block = example.DecoderBlock(dim=768, heads=12, hidden=2048)
    return block, (torch.randn(1, 1024, 768),), 0, 0


def capture_seconds(fn, inputs, reps):
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        program = capture(fn, inputs)
        times.append(time.perf_counter() - start)
    return program, statistics.median(times)


PROGRAMS = dict(gpu_programs.PROGRAMS, decoder_x8=decoder_stack,
                decoder_gpt2=decoder_gpt2)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--only", choices=sorted(PROGRAMS),
                        help="one program")
    parser.add_argument("--cpu", type=int, default=None,
                        help="the core to run on (default: the first allowed)")
    args = parser.parse_args()
    cpu = args.cpu if args.cpu is not None else min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})  # ptxas inherits it.
    torch.set_num_threads(1)

    names = [args.only] if args.only else sorted(
        PROGRAMS, key=lambda n: (n.startswith("decoder"), n))
    print("one core (cpu %d), median of %d; ms" % (cpu, args.reps))
    print("%-18s %7s %8s %8s %8s %8s %8s %7s %8s" % (
        "program", "kernels", "to PTX", "LLVM", "ours", "ptxas", "cold",
        "/ptxas", "capture"))
    for name in names:
        torch.manual_seed(0)
        fn, inputs, _, _ = PROGRAMS[name]()
        program, captured = capture_seconds(fn, inputs, args.reps)
        schedule = gpu_programs.SCHEDULE.get(name, "")
        runs = [lower_to_ptx(program, schedule) for _ in range(args.reps + 1)]
        cold, warm = runs[0], runs[1:]
        ptx = warm[0][0]
        total = statistics.median(r[1] for r in warm)
        llvm = statistics.median(r[2] for r in warm)
        ptxas = statistics.median(ptxas_seconds(ptx) for _ in range(args.reps))
        print("%-18s %7d %8.0f %8.0f %8.0f %8.0f %8.0f %7.2f %8.0f" % (
            name, ptx.count(".entry "), total * 1e3, llvm * 1e3,
            (total - llvm) * 1e3, ptxas * 1e3, cold[1] * 1e3, total / ptxas,
            captured * 1e3))
    return 0


if __name__ == "__main__":
    sys.exit(main())
