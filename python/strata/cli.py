"""The `strata` command line."""

import argparse
import os
import subprocess
import sys

import strata
import _strata_config as config

def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        raise SystemExit("strata: error: cannot read %s: %s"
                         % (path, e.strerror))


def _write(path, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    if path in (None, "-"):
        if isinstance(data, bytes):
            sys.stdout.buffer.write(data)
        else:  # Text ends its last line, so what follows starts a new one.
            sys.stdout.write(data if data.endswith("\n") else data + "\n")
        return
    try:
        with open(path, mode) as f:
            f.write(data)
    except OSError as e:
        raise SystemExit("strata: error: cannot write %s: %s"
                         % (path, e.strerror))


def _nvvm_options(args):
    from strata.api import nvvm_options
    return nvvm_options(args.chip, args.ptx, getattr(args, "options", None))


def cmd_lower(args):
    text = _read(args.file)
    options = _nvvm_options(args) if args.to == "nvvm" else args.options or ""
    module = strata.lower(text, args.to, options, filename=args.file,
                          verify_each=args.verify_each)
    _write(args.output, str(module))
    return 0


def run_on_cpu(text, filename, entry="main"):
    """Lowers a module to the CPU and runs `entry` with mlir-runner; returns
    the runner's output."""
    module = strata.lower(text, "cpu", filename=filename)
    runner = os.path.join(config.LLVM_TOOLS_DIR, "mlir-runner")
    utils = os.path.join(config.MLIR_LIB_DIR, "libmlir_c_runner_utils.so")
    result = subprocess.run(
        [runner, "-e", entry, "-entry-point-result=void",
         "-shared-libs=" + utils],
        input=str(module), capture_output=True, text=True)
    if result.returncode != 0:
        raise strata.CompilerError("mlir-runner failed:\n" + result.stderr)
    return result.stdout


def cmd_stages(args):
    text = _read(args.file)
    print("// ===== tensorir (input) =====")
    print(str(strata.parse(text, args.file)))
    for stage in strata.IR_STAGES:
        module = strata.lower(text, stage, filename=args.file,
                              verify_each=args.verify_each)
        print("// ===== %s =====" % strata.PIPELINES[stage])
        print(str(module))
    print("// ===== %s: PTX for %s =====" % (strata.PIPELINES["nvvm"],
                                             args.chip))
    sys.stdout.write(_ptx(text, args))
    if not args.run:
        return 0
    print("// ===== %s, then mlir-runner: @main =====" % strata.PIPELINES["cpu"])
    output = run_on_cpu(text, args.file)
    sys.stdout.write(output)
    return 0 if "PASS" in output.split() else 1


def _ptx(text, args):
    options = _nvvm_options(args) + " format=isa"
    module = strata.lower(text, "nvvm", options, filename=args.file,
                          verify_each=args.verify_each)
    # A program that computes nothing (its tensors are empty) has no kernels
    # and no PTX.
    return "".join(o.data.decode() for o in module.gpu_objects())


def cmd_ptx(args):
    _write(args.output, _ptx(_read(args.file), args))
    return 0


# What --emit prints: the program as imported, the IR of each readable
# stage, and the CUDA rendering or PTX of its kernels.
EMITS = ["tensor", *strata.IR_STAGES, "cuda", "ptx"]


def _ptxas(ptx, chip, verbose):
    """Assembles PTX with ptxas; returns (seconds, ptxas's report)."""
    import tempfile
    import time
    ptxas = os.path.join(config.CUDA_ROOT, "bin", "ptxas")
    if not os.access(ptxas, os.X_OK):
        raise strata.CompilerError("ptxas not found at %s" % ptxas)
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "kernels.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        start = time.perf_counter()
        r = subprocess.run([ptxas, "-arch=" + chip] + (["-v"] if verbose else [])
                           + [src, "-o", os.path.join(tmp, "kernels.cubin")],
                           capture_output=True, text=True)
        seconds = time.perf_counter() - start
    if r.returncode != 0:
        raise strata.CompilerError("ptxas failed:\n" + r.stderr)
    return seconds, r.stderr


def resource_report(ptxas_output):
    """Per kernel: registers, spill stores/loads (bytes), shared memory."""
    import re
    rows, kernel = [], None
    for line in ptxas_output.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            kernel = {"kernel": m.group(1), "registers": 0, "spill_stores": 0,
                      "spill_loads": 0, "smem": 0}
            rows.append(kernel)
            continue
        if kernel is None:
            continue
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            kernel["spill_stores"], kernel["spill_loads"] = map(int, m.groups())
        m = re.search(r"Used (\d+) registers", line)
        if m:
            kernel["registers"] = int(m.group(1))
        m = re.search(r"(\d+) bytes smem", line)
        if m:
            kernel["smem"] = int(m.group(1))
    return rows


def dynamic_shared_bytes(module, names):
    """Per kernel of a module lowered to PTX: the dynamic shared memory its
    launches request (ptxas counts static shared memory alone), from the
    launch plan."""
    import _strata_runtime
    plan = _strata_runtime.Artifact.parse(module.artifact("forward", names))
    return {l.kernel: l.shared_bytes for l in plan.launches}


def performance_advisories(ptxas_output):
    """ptxas's lines that say a kernel runs slower than written: wgmma
    serialized, waits it injected for wgmma's registers, and the like."""
    return [line.split("ptxas info    : ", 1)[-1].strip()
            for line in ptxas_output.splitlines()
            if "Performance Loss" in line or "is injected" in line]


def cmd_compile(args):
    import time
    # Imported here: torch is slow to import and other commands need none.
    from strata.compile_expr import InputError, from_expression, from_file
    from strata.frontend import FrontendError, capture, import_program
    times = []
    try:
        fn, inputs = (from_expression(args.c) if args.c is not None
                      else from_file(args.file))
        start = time.perf_counter()
        program = capture(fn, inputs)
        times.append(("capture (PyTorch tracing)", time.perf_counter() - start))
        start = time.perf_counter()
        module = import_program(program)
        times.append(("import into tensorir", time.perf_counter() - start))
    except (InputError, FrontendError) as e:
        raise SystemExit("strata: error: %s" % e)
    passes = ""
    if args.report or args.report_html:
        from strata.report import traffic_report
        traffic = traffic_report(program, args.options or "")
        if args.report:
            sys.stderr.write(traffic.text())
        if args.report_html:
            _write(args.report_html, traffic.html(
                "Strata roofline: %s" % (args.file or args.c)))
    if args.output and args.output.endswith(".strata"):
        from strata import cache
        from strata.api import build_artifact
        hits = cache.stats["hits"]
        start = time.perf_counter()
        _write(args.output, build_artifact(str(module),
                                           program.argument_names(), args.chip,
                                           args.ptx, args.options or "",
                                           args.verify_each))
        times.append(("artifact (compile cache hit)"
                      if cache.stats["hits"] > hits else
                      "artifact (PTX, cubin, plan)",
                      time.perf_counter() - start))
        if args.timing:
            for what, seconds in times:
                sys.stderr.write("%-28s %8.1f ms\n" % (what, seconds * 1e3))
        return 0
    schedule = args.options or ""
    if args.emit == "tensor":
        text = str(module)
    elif args.emit == "cuda":
        module.run(strata.pipeline("kernel", schedule),
                   verify_each=args.verify_each)
        text = module.to_cuda()
    elif args.emit == "ptx":
        start = time.perf_counter()
        passes = module.run(strata.pipeline("nvvm", _nvvm_options(args)
                                            + " format=isa"), args.timing,
                            args.verify_each)
        times.append(("tensorir to PTX", time.perf_counter() - start))
        text = "".join(o.data.decode() for o in module.gpu_objects())
    else:
        start = time.perf_counter()
        passes = module.run(strata.pipeline(args.emit, schedule), args.timing,
                            args.verify_each)
        times.append(("tensorir to %s" % args.emit, time.perf_counter() - start))
        text = str(module)
    _write(args.output, text)
    if args.emit == "ptx" and (args.report or args.timing):
        seconds, ptxas_out = (_ptxas(text, args.chip, verbose=True) if text
                              else (0.0, ""))  # No kernels.
        times.append(("ptxas -arch=%s" % args.chip, seconds))
        if args.report:
            dynamic = dynamic_shared_bytes(module, program.argument_names())
            sys.stderr.write("%-32s %9s %12s %11s %10s %10s\n" % (
                "kernel", "registers", "spill stores", "spill loads", "smem",
                "dyn smem"))
            for r in resource_report(ptxas_out):
                sys.stderr.write("%-32s %9d %12d %11d %10d %10d\n" % (
                    r["kernel"], r["registers"], r["spill_stores"],
                    r["spill_loads"], r["smem"], dynamic.get(r["kernel"], 0)))
            for advisory in performance_advisories(ptxas_out):
                sys.stderr.write("ptxas: %s\n" % advisory)
    if args.timing:
        sys.stderr.write(passes)
        for what, seconds in times:
            sys.stderr.write("%-28s %8.1f ms\n" % (what, seconds * 1e3))
    return 0


def cmd_run(args):
    from strata.compile_expr import InputError, from_expression, from_file
    from strata.frontend import FrontendError
    try:
        fn, inputs = (from_expression(args.c) if args.c is not None
                      else from_file(args.file))
        if args.device == "cuda":
            return run_on_cuda(fn, inputs, args)
        from strata.runner import check, check_kernels
        options = "" if args.via == "loop" else args.options
        report = check(fn, inputs, via=args.via, options=options)
        # Each emulated kernel against the same fused loop kernel.
        kernels = ([] if args.via == "loop"
                   else check_kernels(fn, inputs, via=args.via, options=options))
    except (InputError, FrontendError) as e:
        raise SystemExit("strata: error: %s" % e)
    except RuntimeError as e:  # PyTorch's, computing the reference
        raise SystemExit("strata: error: PyTorch cannot compute the "
                         "reference (the program's ops in f64 on the CPU): "
                         "%s" % (str(e).strip().splitlines() or [""])[0])

    def describe(o):
        return ("%s %s: max abs error %.3g (tolerance %.3g)"
                % ("x".join(map(str, o.shape)) or "scalar",
                   str(o.dtype).replace("torch.", ""), o.max_abs_error,
                   o.tolerance))
    print("kernels: %d" % report.kernels)
    for i, o in enumerate(kernels):
        print("kernel result %d %s%s" % (i, describe(o),
                                          "" if o.passed else "  <- FAIL"))
    for i, o in enumerate(report.outputs):
        print("output %d %s" % (i, describe(o)))
    print("max abs error: %.3g" % report.max_abs_error)
    passed = report.passed and all(o.passed for o in kernels)
    print("PASS" if passed else "FAIL")
    return 0 if passed else 1


def run_on_cuda(fn, inputs, args):
    """Runs through the CUDA runtime, checks against eager on the GPU and,
    with --bench, times it against eager and torch.compile (CUDA events,
    inputs rotated past the L2; GB/s counts inputs and outputs once)."""
    import torch
    import _strata_runtime
    from strata.api import compile as compile_
    from strata.runner import as_list, compare
    try:
        print("device: %s" % _strata_runtime.describe_device())
    except _strata_runtime.RuntimeError as e:
        raise SystemExit("strata: error: %s" % e)
    if not torch.cuda.is_available():
        raise SystemExit("strata: error: this PyTorch cannot use the GPU")
    compiled = compile_(fn, inputs, target=args.chip, options=args.options)
    device_inputs = [x.cuda() for x in inputs]
    if isinstance(fn, torch.nn.Module):
        fn = fn.cuda()
    got = compiled(*device_inputs)
    with torch.no_grad():
        want = fn(*device_inputs)
    # The CPU check's comparison (NaN where eager has NaN is exact; an
    # unwritten NaN is not; integers exactly).
    checks = [compare(g.cpu(), w.cpu())
              for g, w in zip(as_list(got), as_list(want))]
    passed = all(c.passed for c in checks)
    print("max abs error: %.3g" % max(c.max_abs_error for c in checks))
    print("PASS" if passed else "FAIL")
    if args.bench:
        from strata.bench import compare as time_against
        t = time_against(fn, compiled, device_inputs, min_bytes=sum(
            x.numel() * x.element_size() for x in device_inputs + got))
        print("%10s %10s %10s %9s %9s" % ("strata ms", "eager ms",
                                           "compile ms", "vs eager", "GB/s"))
        print("%10.3f %10.3f %10.3f %8.2fx %9.0f" % (
            t["strata_ms"], t["eager_ms"], t["compile_ms"],
            t["eager_ms"] / t["strata_ms"], t["gbps"]))
    return 0 if passed else 1


def build_parser():
    parser = argparse.ArgumentParser(
        prog="strata",
        description="Strata: compile machine-learning programs to GPU "
                    "kernels, one MLIR stage at a time.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    def add_target(p):
        p.add_argument("--chip", "--target", dest="chip", default="sm_90",
                       help="target GPU (default: sm_90)")
        p.add_argument("--ptx", default="80",
                       help="PTX ISA version, e.g. 80 for 8.0 (default: 80)")

    def add_verify(p):
        p.add_argument("--verify-each", action="store_true",
                       help="verify the IR after every pass, not only the "
                            "result (slower; names the pass that broke it)")

    p = sub.add_parser("compile", help="capture a PyTorch program and "
                       "compile it to a stage")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("-c", metavar="EXPR",
                        help="a call CALLABLE(ARG, ...) with torch, nn, F "
                             "and math in scope, e.g. "
                             "'F.softmax(torch.randn(32, 2048), -1)'")
    source.add_argument("--file", help="a .py file defining `model` and "
                                       "`inputs`")
    p.add_argument("--emit", choices=EMITS, default="tensor",
                   help="the stage to print (default: tensor)")
    p.add_argument("-o", "--output", help="output file (default: stdout); "
                   "a name ending in .strata gets the program's artifact "
                   "(launch plan, PTX, cubin) for the runtime")
    p.add_argument("--timing", action="store_true",
                   help="print the time of every stage and pass (and of "
                        "ptxas with --emit ptx) on stderr")
    p.add_argument("--report", action="store_true",
                   help="print every kernel's modeled global-memory bytes, "
                        "FLOPs and H200 roofline time, and the program's "
                        "against its ideal, on stderr (a model, not a "
                        "measurement); with --emit ptx also registers, "
                        "spills and shared memory, from ptxas -v")
    p.add_argument("--report-html", metavar="FILE",
                   help="write the program's kernels on an H200 roofline "
                        "chart, with the report's table, to FILE")
    p.add_argument("--options", default="",
                   help="schedule options of the pipelines, e.g. "
                        "'stages=3 tf32=true k-tile=32'")
    add_target(p)
    add_verify(p)
    p.set_defaults(func=cmd_compile)

    p = sub.add_parser("run", help="compile a PyTorch program, run it and "
                       "compare with PyTorch eager")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("-c", metavar="EXPR", help="as for compile")
    source.add_argument("--file", help="as for compile")
    p.add_argument("--via", choices=["kernel", "kernel-reversed",
                                     "kernel-shuffled", "loop"],
                   default="kernel",
                   help="kernel: run the final GPU kernels on the CPU, "
                        "threads emulated (default); kernel-reversed: the "
                        "same with blocks and threads in reverse order (a "
                        "race check) and every access checked against its "
                        "buffer's bounds; kernel-shuffled: threads in a "
                        "scrambled order; loop: run the fused loop kernels")
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu",
                   help="cpu: run on the CPU (default); cuda: run the "
                        "artifact through the CUDA runtime")
    p.add_argument("--bench", action="store_true",
                   help="with --device cuda: time with CUDA events against "
                        "eager")
    p.add_argument("--options", default="",
                   help="schedule options of the pipelines, as for compile "
                        "(not with --via loop, which schedules nothing)")
    add_target(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("lower", help="lower a tensorir .mlir file to a stage")
    p.add_argument("file")
    p.add_argument("--to", required=True, choices=list(strata.PIPELINES),
                   help="the stage to stop at")
    p.add_argument("--options", help="pipeline options, e.g. "
                   "'tile-sizes=4,64 threads=128'")
    p.add_argument("-o", "--output", help="output file (default: stdout)")
    add_target(p)
    add_verify(p)
    p.set_defaults(func=cmd_lower)

    p = sub.add_parser("stages", help="print a tensorir program at every "
                       "stage; --run also runs its @main on the CPU")
    p.add_argument("file")
    p.add_argument("--run", action="store_true",
                   help="lower to the CPU and run @main (which prints PASS "
                        "or FAIL)")
    add_target(p)
    add_verify(p)
    p.set_defaults(func=cmd_stages)

    p = sub.add_parser("ptx", help="write the PTX of a program's kernels")
    p.add_argument("file")
    p.add_argument("-o", "--output", help="output file (default: stdout)")
    add_target(p)
    add_verify(p)
    p.set_defaults(func=cmd_ptx)

    p = sub.add_parser("cache", help="list or empty the compile cache of GPU "
                       "artifacts (STRATA_CACHE_DIR)")
    p.add_argument("action", choices=["list", "clear"])
    p.set_defaults(func=cmd_cache)
    return parser


def cmd_cache(args):
    from strata import cache
    if args.action == "list":
        sys.stdout.write(cache.describe())
    else:
        print("removed %d entries from %s" % (cache.clear(),
                                               cache.directory() or "nothing"))
    return 0


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except strata.CompilerError as e:
        sys.stderr.write("strata: error: %s\n" % e)
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("strata: interrupted\n")
        return 2
    except Exception as e:  # A bug in Strata: one line, not a traceback.
        if os.environ.get("STRATA_TRACEBACK"):
            raise
        first = (str(e).strip().splitlines() or [""])[0]
        sys.stderr.write("strata: internal error: %s: %s (a bug in Strata; "
                         "STRATA_TRACEBACK=1 shows where)\n"
                         % (type(e).__name__, first))
        return 3


if __name__ == "__main__":
    sys.exit(main())
