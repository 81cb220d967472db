"""Hugging Face transformers' Qwen2ForCausalLM (not written here), from a
config with random weights (no download): token ids in, logits out;
Llama's structure with biases on the query, key and value projections and
grouped-query attention of 7 query heads per key/value head.

    build/bin/strata compile --file examples/models/hub_qwen2.py --emit ptx --report

Real size: two layers of Qwen2-0.5B's shape (width 896, 14 heads over 2
key/value heads, MLP 4864, vocabulary 151936), one sequence of 512
tokens. Small: 2 layers, width 64, 4 heads over 2 key/value heads, MLP
96, vocabulary 101, 2 sequences of 13 tokens. Needs `transformers`
(installed into build/venv by tools/dev.sh).
"""
import os
import sys

import torch
from transformers import Qwen2Config, Qwen2ForCausalLM

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_output import Output  # noqa: E402


def build(size):
    torch.manual_seed(0)
    if size == "small":
        config = Qwen2Config(hidden_size=64, intermediate_size=96,
                             num_hidden_layers=2, num_attention_heads=4,
                             num_key_value_heads=2, vocab_size=101,
                             max_position_embeddings=64)
        shape = (2, 13)
    else:
        config = Qwen2Config(hidden_size=896, intermediate_size=4864,
                             num_hidden_layers=2, num_attention_heads=14,
                             num_key_value_heads=2, vocab_size=151936)
        shape = (1, 512)
    model = Output(Qwen2ForCausalLM(config).eval(), "logits", use_cache=False)
    return model, (torch.randint(0, config.vocab_size, shape),)


model, inputs = build(os.environ.get("STRATA_MODEL_SIZE", "real"))
