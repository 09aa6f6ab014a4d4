"""Tiny random-weight causal LMs with the SmolLM2 tokenizer, and a Markov-chain target for sampling."""

import numpy as np
import torch
from gguf import GGMLQuantizationType

from apply_engine.models import gguf_to_cached_dir, resolve_model_path

VOCAB = 49152  # SmolLM2's tokenizer


def smollm2_tokenizer():
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(gguf_to_cached_dir(resolve_model_path("smollm2-135m")))


def tiny_model(kind: str = "llama", seed: int = 0, init_range: float = 0.02) -> torch.nn.Module:
    """A 2-layer model of the given architecture over the SmolLM2 vocabulary, fp32, eval mode.

    A larger `init_range` makes its distributions peakier (and its greedy output repetitive).
    """
    from transformers import LlamaConfig, LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM

    common = dict(
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=4096,
        initializer_range=init_range,
        bos_token_id=1,
        eos_token_id=2,
        tie_word_embeddings=True,
    )
    torch.manual_seed(seed)
    if kind == "llama":
        model = LlamaForCausalLM(LlamaConfig(**common))
    else:
        model = Qwen2ForCausalLM(Qwen2Config(**common))
    return model.float().eval()


class MarkovTarget:
    """A target whose next-token logits depend only on the last token: exact probabilities known."""

    def __init__(self, logits_table: torch.Tensor) -> None:
        self.table = logits_table  # [vocab, vocab]: row = last token
        self.tokens: list[int] = []

    @property
    def length(self) -> int:
        return len(self.tokens)

    def reset(self) -> None:
        self.tokens = []

    def forward(self, tokens: list[int]) -> torch.Tensor:
        self.tokens += tokens
        return self.table[tokens]  # [n, vocab]

    def crop(self, length: int) -> None:
        del self.tokens[length:]


def gguf_roundtrip(weight: torch.Tensor, kind: GGMLQuantizationType) -> torch.Tensor:
    """What transformers loads from a .gguf file of this weight: quantised, then dequantised to fp32."""
    from gguf import dequantize, quantize

    data = weight.detach().numpy()
    return torch.from_numpy(dequantize(quantize(data, kind), kind).reshape(data.shape).astype(np.float32))


def round_weights(model: torch.nn.Module, how: str) -> torch.nn.Module:
    """Make every matrix of `model` exactly representable in a compressed form, as loaded models are:
    "bf16" (a bf16 checkpoint read as fp32) or "gguf" (GGUF Q4_1 layers and a Q8_0 embedding,
    quantised and dequantised by the gguf package, as transformers loads a .gguf file)."""
    with torch.no_grad():
        for name, param in model.named_parameters():
            if param.dim() != 2:
                continue
            if how == "bf16":
                param.copy_(param.bfloat16().float())
                continue
            kind = GGMLQuantizationType.Q8_0 if "embed" in name else GGMLQuantizationType.Q4_1
            param.copy_(gguf_roundtrip(param, kind))
    return model
