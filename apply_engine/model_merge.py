"""The model engine: prompt -> speculative decoding (structural prediction as the draft) -> file.

stream() yields the merged file's text as tokens are accepted, then one ApplyResult with stats.
"""

import hashlib
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import torch

from apply_engine import cpu_kernels
from apply_engine.config import EngineConfig
from apply_engine.drafters.cost import CostCurve, load_curve, measure_cost_curve, save_curve
from apply_engine.drafters.draft_model import DraftModelDrafter, common_prefix
from apply_engine.drafters.hybrid import HybridDrafter
from apply_engine.drafters.lookup import LookupDrafter
from apply_engine.drafters.plan import PlanDrafter
from apply_engine.drafters.self_draft import first_layers, self_draft_layers
from apply_engine.errors import ModelLoadError
from apply_engine.fast_target import FastTarget, make_target
from apply_engine.models import LoadedModel, cache_root, load_model
from apply_engine.prompt import (
    PromptFormat,
    build_prompt,
    extract_answer,
    pick_format,
    predicted_answer,
)
from apply_engine.schemas import ApplyRequest, ApplyResult, MergeResult, Stats
from apply_engine.speculative import Drafter, HFTarget, Step, Target, speculative_decode

# The longest draft a step may verify. Within it, each step's k comes from the source's acceptance
# and the target's measured cost curve (drafters/cost.py).
MAX_K = {"cpu": 64, "cuda": 256}
# FastTarget cache sizes in tokens (prompt + answer). On CUDA its attention reads the whole cache, so
# a request gets the smallest that fits; a longer one decodes with HFTarget.
FAST_SIZES = (2048, 4096, 8192, 16384)


class NoDrafter:
    """--no-speculation: every step decodes one token plainly."""

    name = "none"

    def propose(self, context: Sequence[int], k: int) -> list[int]:
        return []


class TextStream:
    """Token ids -> text deltas that never split a UTF-8 character and stop before `close`."""

    def __init__(self, tokenizer: object, close: str | None) -> None:
        self.tokenizer = tokenizer
        self.close = close
        self.tokens: list[int] = []
        self.text = ""
        self.sent = 0  # characters of text already yielded
        self.closed = False

    def feed(self, tokens: list[int]) -> str:
        self.tokens += tokens
        text = self.tokenizer.decode(self.tokens, skip_special_tokens=True)
        if not text.endswith("\ufffd"):  # an incomplete multi-byte character waits for its rest
            self.text = text
        end = len(self.text) - held_back(self.text, self.close)
        if self.close is not None and self.close in self.text:
            end, self.closed = self.text.index(self.close), True
        delta, self.sent = self.text[self.sent : end], max(self.sent, end)
        return delta


def newline_tokens(tokenizer: object) -> frozenset[int]:
    """Ids of the tokens whose text holds a newline: where lines end, for the plan's rejoin."""
    texts = tokenizer.batch_decode([[i] for i in range(len(tokenizer))])
    return frozenset(i for i, text in enumerate(texts) if "\n" in text)


def load_draft(spec: str, target: LoadedModel, device: str, dtype: str | None) -> LoadedModel:
    """A draft model with the target's tokenizer, or the target's first layers for "self[:N]"."""
    layers = self_draft_layers(spec, target.model.config.num_hidden_layers)
    if layers is not None:
        model = first_layers(target.model, layers)
        return LoadedModel(f"self:{layers}", model, target.tokenizer, target.device, target.dtype)
    draft = load_model(spec, device, dtype)
    if draft.tokenizer.get_vocab() != target.tokenizer.get_vocab():
        raise ModelLoadError(f"draft model {spec} does not share the target's tokenizer")
    return draft


def forward_kind(target: Target) -> str:
    """Which forward a target runs: its verify cost curve is measured and kept per kind."""
    if isinstance(target, FastTarget):
        if target.native is None:
            return "FastTarget"
        kind = "FastTarget+c-layers+amx" if cpu_kernels.amx() else "FastTarget+c-layers"
        return kind + "+screen" if target.screen is not None else kind
    return type(target).__name__


def cost_curve(loaded: LoadedModel, target: Target, context: list[int]) -> CostCurve:
    """The verify cost by pass size of `target` (a forward over `loaded`), measured once per model,
    forward, device, dtype and thread count (a few seconds on a CPU) and kept in the user cache."""
    device, max_k = loaded.device, MAX_K[loaded.device.type]
    hardware = torch.cuda.get_device_name(device) if device.type == "cuda" else torch.get_num_threads()
    kernels = cpu_kernels.build_id() if device.type == "cpu" else ""  # a kernel change re-measures
    key = f"v4|{loaded.name}|{forward_kind(target)}|{kernels}|{device}|{loaded.dtype}|{hardware}|{max_k}"
    path = cache_root() / "cost" / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.json"
    curve = load_curve(path)
    if curve is None:
        curve = measure_cost_curve(target, context[:512], max_n=max_k)
        save_curve(path, curve)
    return curve


def held_back(text: str, close: str | None) -> int:
    """How many trailing characters of `text` could be the start of `close`.

    >>> held_back("x = 1\\n</upd", "</updated-code>")
    5
    >>> held_back("x = 1\\n", "</updated-code>")
    0
    """
    if not close:
        return 0
    for n in range(min(len(close) - 1, len(text)), 0, -1):
        if close.startswith(text[-n:]):
            return n
    return 0


@dataclass
class ModelMerger:
    target: LoadedModel
    draft: LoadedModel | None
    prompt_format: PromptFormat
    speculation: bool = True
    temperature: float = 0.0
    max_new_tokens: int | None = None
    seed: int | None = None
    costs: dict[str, CostCurve] = field(default_factory=dict)  # forward kind -> verify cost by pass size
    newlines: frozenset[int] | None = None
    fast_target: bool = True  # verify on FastTarget where the model allows; False: transformers' forward
    idle_targets: dict[int, list[FastTarget]] = field(default_factory=dict)  # size -> targets not decoding
    lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def from_config(cls, config: EngineConfig) -> "ModelMerger":
        target = load_model(config.model, config.device, config.dtype)
        draft = None
        if config.draft_model is not None:
            draft = load_draft(config.draft_model, target, config.device, config.dtype)
        return cls(
            target=target,
            draft=draft,
            prompt_format=pick_format(config.prompt_format),
            speculation=config.speculation,
            temperature=config.temperature,
            max_new_tokens=config.max_new_tokens,
            seed=config.seed,
        )

    def encode(self, text: str) -> list[int]:
        return self.target.tokenizer.encode(text, add_special_tokens=False)

    def stop_ids(self) -> set[int]:
        ids = self.target.model.generation_config.eos_token_id
        ids = ids if isinstance(ids, list) else [ids]
        return {i for i in [*ids, self.target.tokenizer.eos_token_id] if i is not None}

    def drafter(self, prompt: list[int], prediction: MergeResult, target: Target) -> Drafter:
        """Plan first (when the structural merge has one), then lookup, then the draft model."""
        if not self.speculation:
            return NoDrafter()
        kind = forward_kind(target)
        if kind not in self.costs:  # measured on the request's target, which is reset before decoding
            self.costs[kind] = cost_curve(self.target, target, prompt)
        if self.newlines is None:
            self.newlines = newline_tokens(self.target.tokenizer)
        drafters: list[Drafter] = []
        if prediction.merged is not None:
            plan = self.encode(predicted_answer(self.prompt_format, prediction.merged))
            drafters.append(PlanDrafter(plan, self.newlines))
        drafters.append(LookupDrafter(prompt))  # original and snippet, and the words the model echoes
        if self.draft is not None:
            drafters.append(DraftModelDrafter(HFTarget(self.draft.model), prompt))
        return HybridDrafter(drafters, self.costs[kind])

    def acquire_target(self, prompt: list[int], length: int) -> Target:
        """An idle FastTarget of the smallest size that fits `length` (one is built per concurrent
        request and size, then reused) when the model allows; else transformers' forward. Of the idle
        ones, the one whose cache holds the longest prefix of `prompt` (it prefills only the rest)."""
        size = next((size for size in FAST_SIZES if size >= length), None)
        if not self.fast_target or size is None:
            return HFTarget(self.target.model)
        with self.lock:
            idle = self.idle_targets.get(size)
            if idle:
                best = max(idle, key=lambda t: common_prefix(t.cached, prompt))  # all FastTargets
                idle.remove(best)
                return best
        return make_target(self.target.model, size)

    def release_target(self, target: Target) -> None:
        if isinstance(target, FastTarget):
            with self.lock:
                self.idle_targets.setdefault(target.max_len, []).append(target)

    def budget(self, request: ApplyRequest) -> int:
        if self.max_new_tokens is not None:
            return self.max_new_tokens
        return len(self.encode(request.original)) + len(self.encode(request.snippet)) + 64

    def stream(
        self, request: ApplyRequest, prediction: MergeResult, language: str
    ) -> Iterator[str | ApplyResult]:
        # 1. prompt and drafters
        start = time.perf_counter()
        fmt = self.prompt_format
        prompt_text = build_prompt(
            self.target.tokenizer, fmt, request.original, request.snippet, language, request.instruction
        )
        prompt = self.encode(prompt_text)
        budget, stop_ids = self.budget(request), self.stop_ids()
        generator = torch.Generator().manual_seed(self.seed) if self.seed is not None else None
        target = self.acquire_target(prompt, len(prompt) + budget)
        try:  # the target goes back to the pool also when a client leaves mid-stream
            steps = speculative_decode(
                target,
                prompt,
                self.drafter(prompt, prediction, target),
                budget,
                stop_ids,
                max_k=MAX_K[self.target.device.type],
                temperature=self.temperature,
                generator=generator,
            )
            # 2. decode, streaming text until the closing marker, EOS or the budget
            text = TextStream(self.target.tokenizer, fmt.answer_close)
            stats = Stats(forward=forward_kind(target))
            stopped = False
            for step in steps:
                record(stats, step)
                delta = text.feed([t for t in step.emitted if t not in stop_ids])
                if delta:
                    stats.ttft_ms = stats.ttft_ms or (time.perf_counter() - start) * 1000
                    yield delta
                stopped = text.closed or step.emitted[-1] in stop_ids
                if text.closed:
                    break
            # 3. the file inside the answer; a cut-off answer raises GenerationError
            merged = extract_answer(fmt, text.text, truncated=not stopped)
            if len(merged) > text.sent:
                yield merged[text.sent :]
            finish(stats, start)
            yield ApplyResult(merged=merged, status="ok", engine="model", language=language, stats=stats)
        finally:
            self.release_target(target)


def record(stats: Stats, step: Step) -> None:
    stats.output_tokens += len(step.emitted)
    stats.target_forwards += 1
    if step.source is not None:
        stats.drafted[step.source] = stats.drafted.get(step.source, 0) + step.drafted
        stats.accepted[step.source] = stats.accepted.get(step.source, 0) + step.accepted


def finish(stats: Stats, start: float) -> None:
    stats.wall_ms = (time.perf_counter() - start) * 1000
    stats.tau = stats.output_tokens / stats.target_forwards if stats.target_forwards else None
    stats.tok_s = stats.output_tokens / (stats.wall_ms / 1000) if stats.wall_ms else None
