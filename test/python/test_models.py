"""The model zoo (examples/models): each model at a reduced size runs
through the emulated GPU kernels and matches PyTorch; at its real size it
compiles to scheduled kernels where no matrix product runs one output
element per thread (tools/model_zoo.py compiles them to PTX and reports
registers)."""
import importlib.util
import os

import pytest
import torch

from conftest import REPO
import strata
from strata.frontend import capture, import_program
from strata.report import traffic_report
from strata.runner import check

MODELS = ["resnet18", "vit_s16", "gpt2_small", "llama_layer", "bert_layer",
          "unet_block"]


def build(name, size):
    """The model file's build(size): (model, inputs)."""
    path = os.path.join(REPO, "examples", "models", name + ".py")
    spec = importlib.util.spec_from_file_location("zoo_" + name, path)
    module = importlib.util.module_from_spec(spec)
    old = os.environ.get("STRATA_MODEL_SIZE")
    os.environ["STRATA_MODEL_SIZE"] = "small"  # What the file builds on import.
    try:
        spec.loader.exec_module(module)
    finally:
        if old is None:
            del os.environ["STRATA_MODEL_SIZE"]
        else:
            os.environ["STRATA_MODEL_SIZE"] = old
    return module.build(size)


@pytest.mark.parametrize("name", MODELS)
def test_small_model_matches_pytorch(name):
    model, inputs = build(name, "small")
    report = check(model, inputs, via="kernel")
    assert report.passed, report


# Models nobody here wrote (examples/models/hub_*.py), from the libraries
# people take them from, with random weights: the library each needs
# (tools/dev.sh installs them into build/venv, with torch 2.x).
HUB_MODELS = {"hub_gpt2": "transformers", "hub_llama": "transformers",
              "hub_bert": "transformers", "hub_resnet18": "torchvision",
              "hub_vit": "timm", "hub_efficientnet": "torchvision",
              "hub_convnext": "torchvision", "hub_t5": "transformers",
              "hub_bloom": "transformers", "hub_qwen2": "transformers"}


@pytest.mark.parametrize("name", sorted(HUB_MODELS))
def test_small_hub_model_matches_pytorch(name):
    pytest.importorskip(HUB_MODELS[name])
    model, inputs = build(name, "small")
    report = check(model, inputs, via="kernel")
    assert report.passed, report


# A sum over k >= 64 of products is 2 k >= 128 FLOPs per output element.
CONTRACTION_FLOPS_PER_ELEMENT = 128


@pytest.mark.parametrize("name", MODELS)
def test_real_size_products_are_not_computed_per_element(name):
    model, inputs = build(name, "real")
    with torch.no_grad():
        report = traffic_report(capture(model, inputs))
    for kernel in report.kernels:
        # Elements written, counting 4 bytes each (at most as many).
        elements = max(kernel["bytes_written"] / 4, 1)
        if kernel["kind"] == "generic":
            assert kernel["flops"] / elements < CONTRACTION_FLOPS_PER_ELEMENT, kernel


# Real sizes reach the kernels too: every tile kernel of the model becomes
# one kernelir function, and the result verifies. (A translation-order bug
# showed only at real size, in transformers' GPT-2: 2026-12-05.)
@pytest.mark.parametrize("name", MODELS + ["hub_gpt2", "hub_llama", "hub_bert"])
def test_real_size_model_lowers_to_kernels(name):
    if name in HUB_MODELS:
        pytest.importorskip(HUB_MODELS[name])
    model, inputs = build(name, "real")
    with torch.no_grad():
        module = import_program(capture(model, inputs))
    module.run(strata.pipeline("tile"))
    kernels = str(module).count("tileir.kernel ")
    module.run("convert-tileir-to-kernelir")
    assert str(module).count("kernelir.func @") == kernels > 0


@pytest.mark.parametrize("name", ["hub_efficientnet", "hub_convnext"])
def test_batch_one_cnns_keep_their_reductions_parallel(name):
    # At batch 1 a CNN's per-channel and per-pixel reductions (gated
    # depthwise convolutions, layer norms over channels) are few rows: no
    # row or generic kernel may model more than 2 us on fewer than 8
    # program instances (nearly every SM idle, a thread folding a row
    # alone: ConvNeXt-T's channel norms were one block of 49 threads, 9 us
    # each; docs/tile-schedules.md, Row schedule).
    pytest.importorskip(HUB_MODELS[name])
    model, inputs = build(name, "real")
    with torch.no_grad():
        report = traffic_report(capture(model, inputs))
    for kernel in report.kernels:
        if kernel["kind"] in ("row", "generic") and kernel["programs"] < 8:
            assert kernel["seconds"] < 2e-6, kernel
