"""/v1/chat/completions driven by the official `openai` package, as hosted-API clients drive it."""

from collections.abc import Iterator

import openai
import pytest

from apply_engine.server import ServerSettings, create_app
from tests.helpers_server import serve_app

ORIGINAL = "function add(a, b) {\n  return a + b;\n}\n"
UPDATE = "function add(a, b) {\n  return Number(a) + Number(b);\n}\n"
PROMPT = f"<instruction>Coerce to numbers</instruction>\n<code>{ORIGINAL}</code>\n<update>{UPDATE}</update>"
KEY = "test-key-123"


@pytest.fixture(scope="module")
def client() -> Iterator[openai.OpenAI]:
    with serve_app(create_app(settings=ServerSettings(api_key=KEY))) as url:
        yield openai.OpenAI(base_url=f"{url}/v1", api_key=KEY, max_retries=0)


@pytest.mark.parametrize("model", ["auto", "morph-v3-fast", "relace-apply-3", "gpt-4o-mini"])
def test_any_model_name_gets_the_merged_file(client: openai.OpenAI, model: str) -> None:
    completion = client.chat.completions.create(model=model, messages=[{"role": "user", "content": PROMPT}])
    assert completion.choices[0].message.content == UPDATE
    assert completion.choices[0].finish_reason == "stop"
    assert completion.model == model
    assert completion.usage is not None


def test_content_parts_are_joined(client: openai.OpenAI) -> None:
    parts = [{"type": "text", "text": PROMPT[:30]}, {"type": "text", "text": PROMPT[30:]}]
    completion = client.chat.completions.create(model="auto", messages=[{"role": "user", "content": parts}])
    assert completion.choices[0].message.content == UPDATE


def test_streamed_chunks_add_up_to_the_merged_file(client: openai.OpenAI) -> None:
    stream = client.chat.completions.create(
        model="auto",
        messages=[{"role": "user", "content": PROMPT}],
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert text == UPDATE
    assert finishes == ["stop"]
    assert chunks[-1].usage is not None


def test_models_lists_the_served_engine(client: openai.OpenAI) -> None:
    assert [m.id for m in client.models.list()] == ["fastapply-structural"]


def test_a_message_without_tags_is_a_bad_request(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model="auto", messages=[{"role": "user", "content": "hello"}])
    assert caught.value.body["param"] == "messages"  # type: ignore[index]


def test_an_ambiguous_merge_raises_unprocessable_entity(client: openai.OpenAI) -> None:
    snippet = "// ... existing code ...\nfunction sub(a, b) {\n  return a - b;\n}\n"
    prompt = f"<code>{ORIGINAL}</code>\n<update>{snippet}</update>"
    try:
        completion = client.chat.completions.create(
            model="auto", messages=[{"role": "user", "content": prompt}]
        )
    except openai.UnprocessableEntityError as exc:
        assert exc.body["reasons"]  # type: ignore[index]
    else:  # once the structural merge handles markers, the answer must keep both functions
        content = completion.choices[0].message.content or ""
        assert "return a + b;" in content and "return a - b;" in content
        assert "existing code" not in content


def test_a_wrong_api_key_is_an_authentication_error(client: openai.OpenAI) -> None:
    intruder = openai.OpenAI(base_url=str(client.base_url), api_key="wrong", max_retries=0)
    with pytest.raises(openai.AuthenticationError):
        intruder.chat.completions.create(model="auto", messages=[{"role": "user", "content": PROMPT}])
