"""The same program lowers to the same kernels in every process: no pass
may decide by the addresses of its objects, which differ from run to run
(address-space layout randomization). loopir-fuse once cloned a producer
into its consumer's blocks in the order of the blocks' addresses; the
order of the clones is the order the greedy driver visits them in, so
transformers' ALBERT fused differently in one run of five (18 or 19
kernels), and one of the variants crashed loopir-normalize."""
import os
import subprocess

import pytest
import torch

from conftest import BUILD, uninstrumented_env
from strata.frontend import capture, import_program

RUNS = 10


def albert_program():
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    config = transformers.AlbertConfig(
        vocab_size=50, embedding_size=8, hidden_size=16, num_hidden_layers=2,
        num_attention_heads=2, intermediate_size=24,
        max_position_embeddings=32)
    model = transformers.AlbertModel(config).eval()
    ids = torch.randint(0, 50, (2, 7))
    return str(import_program(capture(
        lambda i: model(input_ids=i).last_hidden_state, (ids,))))


def test_every_process_lowers_a_model_to_the_same_tiles(tmp_path):
    path = tmp_path / "albert.mlir"
    path.write_text(albert_program())
    outputs = set()
    for _ in range(RUNS):
        run = subprocess.run(
            [os.path.join(BUILD, "bin", "strata-opt"), str(path),
             "--strata-lower-to-tile"],
            capture_output=True, text=True, env=uninstrumented_env())
        assert run.returncode == 0, run.stderr
        outputs.add(run.stdout)
    assert len(outputs) == 1
