"""Hugging Face transformers' BloomForCausalLM (not written here), from a
config with random weights (no download): token ids in, logits out; ALiBi
position biases (a slope per head times the key's position) instead of
position embeddings, a layer norm on the embeddings, GELU MLP.

    build/bin/strata compile --file examples/models/hub_bloom.py --emit ptx --report

Real size: two layers of bloom-560m's shape (width 1024, 16 heads, MLP
4096, vocabulary 250880), one sequence of 512 tokens. Small: 2 layers,
width 64, 4 heads, vocabulary 101, 2 sequences of 13 tokens. Needs
`transformers` (installed into build/venv by tools/dev.sh).
"""
import os
import sys

import torch
from transformers import BloomConfig, BloomForCausalLM

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_output import Output  # noqa: E402


def build(size):
    torch.manual_seed(0)
    if size == "small":
        config = BloomConfig(hidden_size=64, n_layer=2, n_head=4,
                             vocab_size=101)
        shape = (2, 13)
    else:
        config = BloomConfig(hidden_size=1024, n_layer=2, n_head=16)
        shape = (1, 512)
    model = Output(BloomForCausalLM(config).eval(), "logits", use_cache=False)
    return model, (torch.randint(0, config.vocab_size, shape),)


model, inputs = build(os.environ.get("STRATA_MODEL_SIZE", "real"))
