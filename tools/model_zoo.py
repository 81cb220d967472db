#!/usr/bin/env python3
"""Compiles every model of examples/models at its real size to PTX for
sm_90 and prints what its kernels became: how many of each schedule, the
traffic model's modeled time against the program's ideal, and ptxas's
registers and spills (a script, not a test: the suite compiles the zoo to
tile programs only, test_models.py).

    build/venv/bin/python tools/model_zoo.py [--only resnet18] [--chip sm_90]
        [--options "wgmma=true tma=true tma-store=true" --chip sm_90a]

With --options, the last columns count the kernels on wgmma and those
copying by TMA.

The hub_* models come from transformers, torchvision and timm (in
build/venv, tools/dev.sh); on a Python without them they are skipped.

Run with python/ and build/python on PYTHONPATH (tools/dev.sh's build).
"""
import argparse
import collections
import os
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(REPO, "python"), os.path.join(REPO, "build", "python")]

import torch  # noqa: E402

import strata  # noqa: E402
from strata.api import nvvm_options  # noqa: E402
from strata.cli import _ptxas, resource_report  # noqa: E402
from strata.frontend import capture, import_program  # noqa: E402
from strata.report import traffic_report  # noqa: E402

MODELS = ["resnet18", "vit_s16", "gpt2_small", "llama_layer", "bert_layer",
          "unet_block", "hub_gpt2", "hub_llama", "hub_bert", "hub_resnet18",
          "hub_vit", "hub_efficientnet", "hub_convnext", "hub_t5", "hub_bloom",
          "hub_qwen2"]


def load(name):
    import importlib.util
    path = os.path.join(REPO, "examples", "models", name + ".py")
    spec = importlib.util.spec_from_file_location("zoo_" + name, path)
    module = importlib.util.module_from_spec(spec)
    os.environ.setdefault("STRATA_MODEL_SIZE", "real")
    spec.loader.exec_module(module)
    return module.model, module.inputs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=MODELS)
    parser.add_argument("--chip", default="sm_90")
    parser.add_argument("--options", default="",
                        help="schedule options, as strata compile --options")
    args = parser.parse_args()
    print("%-12s %7s  %-44s %10s %10s %8s %7s %8s" % (
        "model", "kernels", "schedules", "modeled", "ideal", "max regs",
        "spills", "compile"))
    for name in args.only or MODELS:
        try:
            model, inputs = load(name)
        except ImportError as e:  # A hub model's library is missing.
            print("%-12s skipped: %s" % (name, e))
            continue
        start = time.perf_counter()
        with torch.no_grad():
            program = capture(model, inputs)
        report = traffic_report(program)
        module = import_program(program)
        module.run(strata.pipeline(
            "nvvm", nvvm_options(args.chip, "80") + " format=isa " +
            args.options),
            verify_each=False)
        ptx = "".join(o.data.decode() for o in module.gpu_objects())
        _, ptxas_out = _ptxas(ptx, args.chip, verbose=True)
        seconds = time.perf_counter() - start
        resources = resource_report(ptxas_out)
        kinds = collections.Counter(k["kind"] for k in report.kernels)
        entries = ptx.split(".entry ")[1:]
        hopper = "" if not args.options else " %5d wgmma %5d tma" % (
            sum("wgmma.mma_async" in e for e in entries),
            sum("cp.async.bulk.tensor" in e for e in entries))
        print("%-12s %7d  %-44s %8.1f us %7.1f us %8d %7d %7.1f s%s" % (
            name, len(report.kernels),
            ", ".join("%d %s" % (n, kind) for kind, n in sorted(kinds.items())),
            report.seconds * 1e6, report.ideal_seconds * 1e6,
            max((r["registers"] for r in resources), default=0),
            sum(r["spill_stores"] + r["spill_loads"] for r in resources),
            seconds, hopper))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
