"""The model engine streams the merged file, fills stats, and never returns a cut-off file."""

import pytest
import torch

from apply_engine import cpu_kernels
from apply_engine.errors import GenerationError
from apply_engine.fast_target import FastTarget
from apply_engine.model_merge import ModelMerger, TextStream
from apply_engine.models import LoadedModel
from apply_engine.prompt import FASTAPPLY, TAGS, PromptFormat
from apply_engine.schemas import ApplyRequest, ApplyResult, MergeResult
from tests.helpers_models import smollm2_tokenizer, tiny_model

REQUEST = ApplyRequest(original="x = 1\ny = 2\n", snippet="x = 3\n# ... existing code ...\n", engine="model")
PREDICTION = MergeResult(merged="x = 3\ny = 2\n", status="ok", language="python")


def merger(
    model: LoadedModel, speculation: bool, max_new_tokens: int | None = None, fmt: PromptFormat = FASTAPPLY
) -> ModelMerger:
    return ModelMerger(
        target=model,
        draft=None,
        prompt_format=fmt,
        speculation=speculation,
        max_new_tokens=max_new_tokens,
    )


def outcome(m: ModelMerger) -> tuple[list[str], ApplyResult | str]:
    """Streamed deltas and the result, or the error message if generation failed."""
    deltas: list[str] = []
    try:
        for item in m.stream(REQUEST, PREDICTION, "python"):
            if isinstance(item, ApplyResult):
                return deltas, item
            deltas.append(item)
    except GenerationError as exc:
        return deltas, str(exc)
    raise AssertionError("stream ended without a result")


def test_text_stream_never_splits_a_utf8_character() -> None:
    tokenizer = smollm2_tokenizer()
    text = "s = 'héllo → 😀 ünïcode'\n"
    stream = TextStream(tokenizer, None)
    deltas = [stream.feed([t]) for t in tokenizer.encode(text)]
    assert "".join(deltas) == text
    assert not any("\ufffd" in d for d in deltas)


def test_text_stream_holds_back_a_partial_closing_tag_and_stops_at_it() -> None:
    tokenizer = smollm2_tokenizer()
    stream = TextStream(tokenizer, "</updated-code>")
    deltas = [stream.feed([t]) for t in tokenizer.encode("a = 1\n</updated-code>\ntrailing")]
    assert "".join(deltas) == "a = 1\n" and stream.closed


def test_an_answer_cut_off_by_the_budget_is_an_error_not_a_short_file() -> None:
    model = LoadedModel(
        "tiny", tiny_model("llama", seed=8), smollm2_tokenizer(), torch.device("cpu"), torch.float32
    )
    _, result = outcome(merger(model, speculation=True, max_new_tokens=12))
    assert isinstance(result, str) and "token budget" in result


@pytest.mark.parametrize("speculation", [True, False])
def test_smollm2_result_is_the_same_with_and_without_speculation(smollm2, speculation: bool) -> None:
    # The 135M stand-in ends its answer in the tags format within the budget (EOS, no closing tag).
    deltas, result = outcome(merger(smollm2, speculation, 60, TAGS))
    plain_deltas, plain = outcome(merger(smollm2, False, 60, TAGS))
    assert not isinstance(plain, str), plain
    assert result.merged == plain.merged == "".join(deltas) == "".join(plain_deltas)
    stats = result.stats
    assert stats.output_tokens == plain.stats.output_tokens
    assert stats.tau == pytest.approx(stats.output_tokens / stats.target_forwards)
    assert result.engine == "model" and stats.ttft_ms is not None and stats.tok_s > 0
    # the stand-in's GGUF Q4_1/Q8_0 weights all compress: its passes run in the C layers, and with
    # AVX512-VNNI its greedy choices come from the screened q8_0 vocabulary
    expected = "FastTarget+c-layers+amx" if cpu_kernels.amx() else "FastTarget+c-layers"
    expected += "+screen" if cpu_kernels.screens() else ""
    assert stats.forward == (expected if cpu_kernels.library() else "FastTarget")


def tokens_and_text(m: ModelMerger) -> tuple[str, str | None, int | None]:
    """What a merge streamed (the text; how it was cut into deltas follows the draft lengths, which
    follow each forward's measured cost), its file (or error) and its token count."""
    deltas, result = outcome(m)
    if isinstance(result, str):
        return "".join(deltas), result, None
    return "".join(deltas), result.merged, result.stats.output_tokens


@pytest.mark.parametrize("arch", ["llama", "qwen2"])
def test_fast_target_gives_the_same_answer_and_is_reused(arch: str) -> None:
    # FastTarget is the default; it must decode exactly what transformers' forward (HFTarget) does.
    tiny = tiny_model(arch, seed=3)
    model = LoadedModel("tiny", tiny, smollm2_tokenizer(), torch.device("cpu"), torch.float32)
    plain = merger(model, speculation=True, max_new_tokens=24, fmt=TAGS)
    plain.fast_target = False
    fast = merger(model, speculation=True, max_new_tokens=24, fmt=TAGS)
    expected = tokens_and_text(plain)
    assert expected[0], "the tiny model streamed nothing: the comparison would prove little"
    for _ in range(2):
        assert tokens_and_text(fast) == expected
        idle = [target for targets in fast.idle_targets.values() for target in targets]
        assert len(idle) == 1  # back in the pool after each merge, and taken again
        assert isinstance(idle[0], FastTarget)
    assert plain.idle_targets == {}


def test_of_the_idle_targets_the_one_holding_the_prompts_prefix_serves_it() -> None:
    tiny = tiny_model("llama", seed=3)
    m = merger(LoadedModel("tiny", tiny, smollm2_tokenizer(), torch.device("cpu"), torch.float32), False)
    shared = [(7 * i) % 3000 + 5 for i in range(10)]  # a system prompt both requests start with
    first, second = [*shared, 11, 12, 13, 14], [*shared, 21, 22, 23, 24]  # then two files
    for prompt in (first, second):  # each idle target last served one of them
        target = FastTarget(tiny, 2048)
        target.prefill(prompt)
        m.release_target(target)
    for prompt in (second, first):
        target = m.acquire_target(prompt, len(prompt) + 8)
        assert target.cached == prompt
