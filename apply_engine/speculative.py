"""The speculative decoding loop and a plain decoder, over a target that owns its KV cache.

The loop knows nothing of prompts or text: it takes token ids and yields the tokens each target
forward emitted. Invariant: the target's cache holds exactly the prompt and the emitted tokens
except the last one (the "pending" token, fed at the next forward), never a rejected draft token.
"""

import inspect
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import torch

from apply_engine.verify import (
    argmax_rows,
    greedy_accept,
    sample_accept,
    sample_from,
    target_probs_from_logits,
)


class Target(Protocol):
    """A causal LM with a KV cache: forward appends tokens to the cache and returns their logits.
    A target may also have `greedy(tokens) -> list[int]`: the same, returning each position's argmax
    (FastTarget finds them without computing the logits)."""

    def reset(self) -> None: ...
    def forward(self, tokens: list[int]) -> torch.Tensor: ...  # -> [len(tokens), vocab]
    def crop(self, length: int) -> None: ...
    @property
    def length(self) -> int: ...


class Drafter(Protocol):
    name: str

    def propose(self, context: Sequence[int], k: int) -> list[int]: ...


def cache_keyword(model: torch.nn.Module) -> str:
    """The keyword a model's forward takes its KV cache by: `cache` in recent transformers (which warns
    on stderr about `past_key_values`), `past_key_values` in older ones."""
    return "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"


class HFTarget:
    """A transformers causal LM with a DynamicCache."""

    def __init__(self, model: torch.nn.Module) -> None:
        self.model = model
        self.cache_keyword = cache_keyword(model)
        self.device = next(model.parameters()).device
        self.reset()

    def reset(self) -> None:
        from transformers import DynamicCache

        self.cache = DynamicCache(config=self.model.config)
        self.length = 0

    @torch.inference_mode()
    def forward(self, tokens: list[int]) -> torch.Tensor:
        input_ids = torch.tensor([tokens], device=self.device)  # [1, n]
        out = self.model(input_ids=input_ids, use_cache=True, **{self.cache_keyword: self.cache})
        self.length += len(tokens)
        return out.logits[0]  # [n, vocab]

    def crop(self, length: int) -> None:
        if length == 0:
            self.reset()
        elif length < self.length:
            self.cache.crop(length - self.length)  # a negative count: tokens to drop from the end
            self.length = length


@dataclass
class Step:
    """One target forward: the tokens it emitted and what the drafter contributed."""

    emitted: list[int]
    drafted: int
    accepted: int
    source: str | None  # the drafter that proposed, None when nothing was drafted
    draft_s: float
    step_s: float


def speculative_decode(
    target: Target,
    prompt: Sequence[int],
    drafter: Drafter,
    max_new_tokens: int,
    stop_ids: set[int],
    max_k: int = 64,
    temperature: float = 0.0,
    generator: torch.Generator | None = None,
) -> Iterator[Step]:
    """Yield each step's emitted tokens; the concatenation is what plain decoding would produce."""
    # 1. prefill all but the last prompt token, which is the first pending token
    target.reset()
    if len(prompt) > 1:
        prefill(target, prompt[:-1])
    pending, output = prompt[-1], []
    while len(output) < max_new_tokens:
        start = time.perf_counter()
        # 2. draft at most what the budget leaves room for after the bonus token
        k = min(max_k, max_new_tokens - len(output) - 1)
        draft = drafter.propose(output, k)[:k] if k > 0 else []
        drafted_at = time.perf_counter()
        # 3. one target forward over the k+1 positions [pending, *draft]
        base = target.length
        if temperature <= 0:
            accepted, bonus = greedy_accept(draft, greedy(target, [pending, *draft]))
        else:
            probs = target_probs_from_logits(target.forward([pending, *draft]), temperature)  # [k+1, vocab]
            accepted, bonus = sample_accept(draft, probs, generator)
        # 4. keep only the pending token and the accepted drafts in the cache
        target.crop(base + 1 + len(accepted))
        if hasattr(drafter, "observe"):
            drafter.observe(len(accepted))
        emitted = cut_at_stop([*accepted, bonus], stop_ids)
        output += emitted
        pending = bonus
        source = getattr(drafter, "last_source", drafter.name) if draft else None
        now = time.perf_counter()
        yield Step(emitted, len(draft), len(accepted), source, drafted_at - start, now - start)
        if emitted[-1] in stop_ids:
            return


def prefill(target: Target, tokens: Sequence[int]) -> None:
    """Put `tokens` in the cache; a target with a `prefill` of its own skips the logits nobody reads."""
    if hasattr(target, "prefill"):
        target.prefill(list(tokens))
    else:
        target.forward(list(tokens))


def greedy(target: Target, tokens: list[int]) -> list[int]:
    """Append `tokens` to the target's cache; the argmax of its logits at each of their positions."""
    if hasattr(target, "greedy"):
        return target.greedy(tokens)
    return argmax_rows(target.forward(tokens))


def cut_at_stop(tokens: list[int], stop_ids: set[int]) -> list[int]:
    """Tokens up to and including the first stop token.

    >>> cut_at_stop([5, 2, 7], {2})
    [5, 2]
    """
    for i, token in enumerate(tokens):
        if token in stop_ids:
            return tokens[: i + 1]
    return tokens


def plain_decode(
    target: Target,
    prompt: Sequence[int],
    max_new_tokens: int,
    stop_ids: set[int],
    temperature: float = 0.0,
    generator: torch.Generator | None = None,
) -> Iterator[int]:
    """The reference decoder: one token per target forward, the same cache, no drafting."""
    target.reset()
    if len(prompt) > 1:
        prefill(target, prompt[:-1])
    token = prompt[-1]
    for _ in range(max_new_tokens):
        if temperature <= 0:
            token = greedy(target, [token])[0]
        else:
            logits = target.forward([token])[-1]  # [vocab]
            token = sample_from(torch.softmax(logits.float() / temperature, dim=-1), generator)
        yield token
        if token in stop_ids:
            return
