"""Hugging Face transformers' BertModel (not written here), from a config
with random weights (no download): token ids and a padding mask in, the
last hidden states out.

    build/bin/strata compile --file examples/models/hub_bert.py --emit ptx --report

Real size: BERT-base (12 layers, width 768, 12 heads, feed-forward 3072),
8 sequences of 512 tokens. Small: 2 layers, width 64, 4 heads, feed-forward
96, 2 sequences of 13 tokens. Needs `transformers` (installed into
build/venv by tools/dev.sh).
"""
import os
import sys

import torch
from transformers import BertConfig, BertModel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_output import Output  # noqa: E402


def build(size):
    torch.manual_seed(0)
    if size == "small":
        config = BertConfig(hidden_size=64, intermediate_size=96,
                            num_hidden_layers=2, num_attention_heads=4,
                            vocab_size=101, max_position_embeddings=64)
        b, t = 2, 13
    else:
        config, (b, t) = BertConfig(), (8, 512)
    lengths = torch.randint(t // 2, t + 1, (b,))
    mask = (torch.arange(t)[None, :] < lengths[:, None]).long()
    model = Output(BertModel(config).eval(), "last_hidden_state")
    return model, (torch.randint(0, config.vocab_size, (b, t)), mask)


model, inputs = build(os.environ.get("STRATA_MODEL_SIZE", "real"))
