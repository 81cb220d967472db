"""Hugging Face transformers' GPT2LMHeadModel (not written here), from a
config with random weights (no download): token ids in, logits out.

    build/bin/strata compile --file examples/models/hub_gpt2.py --emit ptx --report

Real size: GPT-2 small (12 layers, width 768, 12 heads, vocabulary 50257),
one sequence of 1024 tokens. Small: 2 layers, width 64, 4 heads,
vocabulary 101, 2 sequences of 13 tokens. Needs `transformers` (installed
into build/venv by tools/dev.sh).
"""
import os
import sys

import torch
from transformers import GPT2Config, GPT2LMHeadModel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_output import Output  # noqa: E402


def build(size):
    torch.manual_seed(0)
    if size == "small":
        config = GPT2Config(n_layer=2, n_embd=64, n_head=4, vocab_size=101,
                            n_positions=64)
        shape = (2, 13)
    else:
        config, shape = GPT2Config(), (1, 1024)
    model = Output(GPT2LMHeadModel(config).eval(), "logits", use_cache=False)
    return model, (torch.randint(0, config.vocab_size, shape),)


model, inputs = build(os.environ.get("STRATA_MODEL_SIZE", "real"))
