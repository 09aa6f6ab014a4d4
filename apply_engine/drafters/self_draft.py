"""Self-speculative draft: the target's own first N layers, final norm and LM head.

The draft shares every weight with the target (no memory, no second tokenizer) and gets its own KV
cache through its own HFTarget. It is the last resort when no draft model is given: `--draft-model
self` (a quarter of the layers) or `self:N`.
"""

import copy

import torch

from apply_engine.errors import ModelLoadError


def self_draft_layers(spec: str, num_layers: int) -> int | None:
    """N from "self" or "self:N"; None if `spec` names a model instead.

    >>> self_draft_layers("self", 30), self_draft_layers("self:6", 30), self_draft_layers("a/b", 30)
    (7, 6, None)
    """
    if spec != "self" and not spec.startswith("self:"):
        return None
    if spec == "self":
        return max(1, num_layers // 4)
    count = spec.removeprefix("self:")
    if not count.isdigit() or not 1 <= int(count) < num_layers:
        raise ModelLoadError(f"--draft-model {spec!r}: N must be a layer count from 1 to {num_layers - 1}")
    return int(count)


def first_layers(model: torch.nn.Module, n: int) -> torch.nn.Module:
    """A view of a transformers causal LM that runs only its first n decoder layers.

    Shallow copies: the modules (and so the weights) are the target's own; only the layer list and
    the config, which sizes the draft's cache, are new.
    """
    body = model.get_decoder()
    if not hasattr(body, "layers"):
        raise ModelLoadError(f"--draft-model self: {type(model).__name__} has no decoder layer list")
    config = copy.deepcopy(model.config)
    config.num_hidden_layers = n
    if getattr(config, "layer_types", None):
        config.layer_types = config.layer_types[:n]
    draft_body = copy.copy(body)
    draft_body._modules = dict(body._modules)  # our own module table, the same modules
    draft_body.layers = torch.nn.ModuleList(list(body.layers[:n]))
    draft_body.config = config
    draft = copy.copy(model)
    draft._modules = dict(model._modules)
    draft.config = config
    for name, module in model._modules.items():
        if module is body:
            draft._modules[name] = draft_body
    return draft
