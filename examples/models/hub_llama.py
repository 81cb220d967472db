"""Hugging Face transformers' LlamaForCausalLM (not written here), from a
config with random weights (no download): token ids in, logits out; RMSNorm,
rotary embeddings, grouped-query attention, SwiGLU.

    build/bin/strata compile --file examples/models/hub_llama.py --emit ptx --report

Real size: two layers of Llama-2-7B's shape (width 4096, 32 heads,
MLP 11008, vocabulary 32000), one sequence of 512 tokens; a whole 7B model
is its 32 layers repeated. Small: 2 layers, width 64, 4 heads over 2
key/value heads, MLP 96, vocabulary 101, 2 sequences of 13 tokens. Needs
`transformers` (installed into build/venv by tools/dev.sh).
"""
import os
import sys

import torch
from transformers import LlamaConfig, LlamaForCausalLM

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_output import Output  # noqa: E402


def build(size):
    torch.manual_seed(0)
    if size == "small":
        config = LlamaConfig(hidden_size=64, intermediate_size=96,
                             num_hidden_layers=2, num_attention_heads=4,
                             num_key_value_heads=2, vocab_size=101,
                             max_position_embeddings=64)
        shape = (2, 13)
    else:
        config = LlamaConfig(num_hidden_layers=2)
        shape = (1, 512)
    model = Output(LlamaForCausalLM(config).eval(), "logits", use_cache=False)
    return model, (torch.randint(0, config.vocab_size, shape),)


model, inputs = build(os.environ.get("STRATA_MODEL_SIZE", "real"))
