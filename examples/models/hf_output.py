"""What the Hugging Face examples (hub_*.py) compile: one tensor of a
transformers model's output (its logits or last hidden state) for token
ids, and an attention mask where the model takes one."""
import torch


class Output(torch.nn.Module):
    """`model(input_ids=ids, attention_mask=mask, **options).<field>`."""

    def __init__(self, model, field, **options):
        super().__init__()
        self.model, self.field, self.options = model, field, options

    def forward(self, ids, mask=None):
        mask = {} if mask is None else {"attention_mask": mask}
        output = self.model(input_ids=ids, **self.options, **mask)
        return getattr(output, self.field)
