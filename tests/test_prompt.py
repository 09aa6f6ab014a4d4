"""Prompts carry the inputs in each format; answers are extracted robustly, never silently short."""

import pytest

from apply_engine.errors import GenerationError, InputError
from apply_engine.prompt import (
    CHAT,
    FASTAPPLY,
    TAGS,
    build_prompt,
    extract_answer,
    pick_format,
    predicted_answer,
)
from tests.helpers_models import smollm2_tokenizer

ORIGINAL = "def f():\n    return {'a': 1}\n"
SNIPPET = "def f():\n    return {'a': 2}\n"


@pytest.fixture(scope="module")
def tokenizer():
    return smollm2_tokenizer()


class NoTemplate:
    chat_template = None


@pytest.mark.parametrize("fmt", [TAGS, FASTAPPLY, CHAT])
def test_prompt_holds_both_inputs_and_ends_with_the_answer_opening(tokenizer, fmt) -> None:
    prompt = build_prompt(tokenizer, fmt, ORIGINAL, SNIPPET, "python", "bump a")
    assert ORIGINAL in prompt and SNIPPET in prompt
    assert prompt.endswith("<|im_start|>assistant\n" + fmt.answer_open.format(language="python"))


def test_tags_format_uses_the_hosted_api_tags(tokenizer) -> None:
    prompt = build_prompt(tokenizer, TAGS, ORIGINAL, SNIPPET, "python", "bump a")
    assert f"<instruction>bump a</instruction>\n<code>{ORIGINAL}</code>\n<update>{SNIPPET}</update>" in prompt


def test_a_tokenizer_without_chat_template_gets_a_plain_prompt() -> None:
    prompt = build_prompt(NoTemplate(), FASTAPPLY, ORIGINAL, SNIPPET, "python")
    assert "<|im_start|>" not in prompt and prompt.endswith("<updated-code>")


def test_auto_is_fastapply_and_unknown_formats_are_input_errors() -> None:
    assert pick_format("auto") is FASTAPPLY
    with pytest.raises(InputError, match="unknown prompt format 'xml'"):
        pick_format("xml")


def test_predicted_answer_is_the_file_then_the_closing_tag() -> None:
    assert predicted_answer(FASTAPPLY, "x\n") == "x\n</updated-code>"
    assert predicted_answer(TAGS, "x\n") == "x\n"


def test_extract_stops_at_the_closing_tag() -> None:
    assert extract_answer(FASTAPPLY, "x = 1\n</updated-code>\nchatter", truncated=False) == "x = 1\n"


def test_a_missing_closing_tag_is_tolerated_when_the_model_stopped() -> None:
    assert extract_answer(FASTAPPLY, "x = 1\n", truncated=False) == "x = 1\n"


def test_a_truncated_answer_is_an_error() -> None:
    with pytest.raises(GenerationError, match="token budget"):
        extract_answer(FASTAPPLY, "x = 1\n", truncated=True)


def test_a_fence_the_model_added_anyway_is_removed() -> None:
    assert extract_answer(TAGS, "```python\nx = 1\n```\n", truncated=False) == "x = 1\n"
    assert extract_answer(CHAT, "x = 1\n```", truncated=False) == "x = 1\n"
