"""Hugging Face transformers' T5EncoderModel (not written here), from a
config with random weights (no download): token ids in, hidden states out;
relative position buckets added to every layer's attention scores,
unscaled attention, RMS-style layer norm without a mean, ReLU MLP.

    build/bin/strata compile --file examples/models/hub_t5.py --emit ptx --report

Real size: two layers of t5-base's encoder (width 768, 12 heads of 64, MLP
3072, vocabulary 32128), one sequence of 512 tokens. Small: 2 layers,
width 64, 4 heads of 16, MLP 128, vocabulary 101, 2 sequences of 13
tokens. Needs `transformers` (installed into build/venv by tools/dev.sh).
"""
import os
import sys

import torch
from transformers import T5Config, T5EncoderModel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_output import Output  # noqa: E402


def build(size):
    torch.manual_seed(0)
    if size == "small":
        config = T5Config(d_model=64, d_kv=16, d_ff=128, num_layers=2,
                          num_heads=4, vocab_size=101)
        shape = (2, 13)
    else:
        config = T5Config(num_layers=2)
        shape = (1, 512)
    model = Output(T5EncoderModel(config).eval(), "last_hidden_state")
    return model, (torch.randint(0, config.vocab_size, shape),)


model, inputs = build(os.environ.get("STRATA_MODEL_SIZE", "real"))
