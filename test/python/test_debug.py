"""Debugging aids (strata.debug): a failing pipeline's reproducer, rerun by
strata-opt, and STRATA_DUMP_DIR's dump of every stage."""
import os
import re
import subprocess

import pytest
import torch

import strata
from conftest import BUILD, uninstrumented_env
from test_bindings import PROGRAM


@pytest.fixture
def dump_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("STRATA_DUMP_DIR", str(tmp_path))
    return tmp_path


def test_a_failing_pipeline_names_a_reproducer_strata_opt_reruns(dump_dir):
    with pytest.raises(strata.CompilerError) as info:
        strata.lower(PROGRAM, "tile", "tile-sizes=64 threads=3")
    message = str(info.value)
    assert "cannot be split evenly among 3 threads" in message
    found = re.search(r"reproducer: (\S+) \(rerun: strata-opt (\S+) "
                      r"--run-reproducer\)", message)
    assert found and found.group(1) == found.group(2)
    path = found.group(1)
    assert os.path.dirname(path) == str(dump_dir)
    text = open(path).read()
    # The module as the pipeline got it (tensorir), and the pipeline.
    assert "tensorir.exp" in text and "loopir." not in text
    assert 'pipeline: "builtin.module(strata-lower-to-tile{tile-sizes=64 ' \
        'threads=3})"' in text
    rerun = subprocess.run([os.path.join(BUILD, "bin", "strata-opt"), path,
                            "--run-reproducer"], capture_output=True,
                           text=True, env=uninstrumented_env())
    assert rerun.returncode != 0
    assert "cannot be split evenly among 3 threads" in rerun.stderr


def test_no_reproducer_where_the_pipeline_succeeds(dump_dir):
    strata.lower(PROGRAM, "kernel")
    assert list(dump_dir.iterdir()) == []


def test_no_reproducer_without_a_dump_dir(monkeypatch):
    # A user's impossible option stays a one-line error.
    monkeypatch.delenv("STRATA_DUMP_DIR", raising=False)
    with pytest.raises(strata.CompilerError) as info:
        strata.lower(PROGRAM, "tile", "tile-sizes=64 threads=3")
    assert "reproducer" not in str(info.value)
    assert len(str(info.value).splitlines()) == 1


def test_dump_dir_holds_every_stage_of_each_program(dump_dir):
    f = strata.compile(lambda x: torch.softmax(x, -1) * 3,
                       (torch.randn(5, 7),))
    x = torch.randn(5, 7)
    assert torch.allclose(f(x), torch.softmax(x, -1) * 3, atol=1e-6)
    folders = list(dump_dir.iterdir())
    assert len(folders) == 1 and folders[0].name.startswith("_lambda_-")
    files = sorted(p.name for p in folders[0].iterdir())
    assert files == ["0-tensor.mlir", "1-loop.mlir", "2-tile.mlir",
                     "3-kernel.mlir", "4-gpu.mlir", "5-cpu.mlir"]
    marks = {"0-tensor.mlir": "tensorir.softmax", "1-loop.mlir": "loopir.kernel",
             "2-tile.mlir": "tileir.", "3-kernel.mlir": "kernelir.launch",
             "4-gpu.mlir": "gpu.module", "5-cpu.mlir": "llvm.func"}
    for name, mark in marks.items():
        assert mark in (folders[0] / name).read_text(), name
