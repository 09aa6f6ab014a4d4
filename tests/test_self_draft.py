"""The self draft is the target's first N layers (shared weights, own cache) and leaves the target whole."""

import pytest
import torch

from apply_engine.config import EngineConfig
from apply_engine.drafters.self_draft import first_layers, self_draft_layers
from apply_engine.errors import ModelLoadError
from apply_engine.model_merge import ModelMerger
from apply_engine.speculative import HFTarget
from tests.helpers_models import smollm2_tokenizer, tiny_model


@pytest.mark.parametrize("arch", ["llama", "qwen2"])
def test_self_draft_logits_are_the_targets_first_layer_through_norm_and_head(arch: str) -> None:
    target = tiny_model(arch, seed=9, init_range=0.3)
    draft = first_layers(target, 1)
    tokens = torch.tensor([[5, 6, 7, 8]])  # [1, 4]
    with torch.inference_mode():
        hidden = target(tokens, output_hidden_states=True).hidden_states[1]  # [1, 4, hidden]
        expected = target.lm_head(target.model.norm(hidden))  # [1, 4, vocab]
        assert torch.allclose(draft(tokens).logits, expected, atol=1e-5)


def test_self_draft_shares_weights_and_leaves_the_target_whole() -> None:
    target = tiny_model("llama", seed=10, init_range=0.3)
    before = HFTarget(target).forward([1, 2, 3])  # [3, vocab]
    draft = first_layers(target, 1)
    assert draft.model.layers[0] is target.model.layers[0] and draft.lm_head is target.lm_head
    assert len(target.model.layers) == target.config.num_hidden_layers == 2
    assert len(HFTarget(draft).cache.layers) == 1  # its own, shorter cache
    assert torch.equal(HFTarget(target).forward([1, 2, 3]), before)


def test_self_draft_spec_names_a_layer_count_below_the_targets() -> None:
    assert self_draft_layers("self", 30) == 7
    assert self_draft_layers("self:12", 30) == 12
    assert self_draft_layers("models/qwen", 30) is None
    for bad in ("self:0", "self:30", "self:x"):
        with pytest.raises(ModelLoadError):
            self_draft_layers(bad, 30)


def test_draft_model_self_loads_a_view_of_the_target(tmp_path) -> None:
    model_dir = tmp_path / "tiny"
    tiny_model("llama", seed=11).save_pretrained(model_dir)
    smollm2_tokenizer().save_pretrained(model_dir)
    merger = ModelMerger.from_config(EngineConfig(model=str(model_dir), draft_model="self:1", device="cpu"))
    assert merger.draft is not None and merger.draft.name == "self:1"
    assert merger.draft.model.model.layers[0] is merger.target.model.model.layers[0]
    assert len(merger.draft.model.model.layers) == 1
