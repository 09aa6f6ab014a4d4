"""Request and response bodies of the HTTP service, as msgspec structs.

Three dialects of one operation (original + snippet -> merged file):
  native    POST /v1/apply             ApplyBody -> ApplyResponse
  OpenAI    POST /v1/chat/completions  ChatCompletionRequest -> ChatCompletion | ChatCompletionChunk...
  code      POST /v1/code/apply        CodeApplyBody -> CodeApplyResponse
Every error, on every route, is an ErrorBody (the OpenAI error shape, so hosted-API clients parse it).
Unknown fields are ignored: clients of hosted services send options this server has no use for.
The functions at the end translate each dialect to the engine's ApplyRequest and its ApplyResult back.
"""

import re
import time
from typing import Literal

import msgspec

from apply_engine.errors import InputError
from apply_engine.schemas import ApplyRequest, ApplyResult, Reason, Stats, Status

# -- native ------------------------------------------------------------------------------------


class ApplyBody(ApplyRequest, kw_only=True):
    """The engine's ApplyRequest, plus how the answer is sent."""

    stream: bool = False


class ApplyResponse(msgspec.Struct, kw_only=True):
    merged: str
    status: Status
    engine: Literal["structural", "model"]
    language: str
    stats: Stats
    reasons: list[Reason] = msgspec.field(default_factory=list)


class DeltaEvent(msgspec.Struct):
    """One SSE `delta` event of a streamed /v1/apply or /v1/code/apply: the next piece of the file."""

    text: str


# -- errors ------------------------------------------------------------------------------------


class ErrorDetail(msgspec.Struct, kw_only=True, omit_defaults=True):
    message: str
    type: (
        str  # invalid_request_error, ambiguous_merge, authentication_error, overloaded, timeout, server_error
    )
    param: str | None = None  # the request field at fault, when one is
    code: str | None = None
    reasons: list[Reason] = msgspec.field(default_factory=list)  # why a merge was ambiguous


class ErrorBody(msgspec.Struct):
    error: ErrorDetail


# -- OpenAI chat completions -------------------------------------------------------------------


class ContentPart(msgspec.Struct, kw_only=True):
    type: str
    text: str | None = None


class ChatMessage(msgspec.Struct, kw_only=True):
    role: str
    content: str | list[ContentPart] | None = None


class StreamOptions(msgspec.Struct, kw_only=True):
    include_usage: bool = False


class ChatCompletionRequest(msgspec.Struct, kw_only=True):
    """Sampling options (temperature, max_tokens, ...) are ignored: the server's engine settings rule."""

    messages: list[ChatMessage]
    model: str = "auto"
    stream: bool = False
    stream_options: StreamOptions | None = None


class Usage(msgspec.Struct, kw_only=True):
    """Token counts. The structural engine has no tokenizer, so its counts are 0."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0


class AssistantMessage(msgspec.Struct, kw_only=True):
    content: str
    role: Literal["assistant"] = "assistant"


class Choice(msgspec.Struct, kw_only=True):
    message: AssistantMessage
    index: int = 0
    finish_reason: Literal["stop"] = "stop"


class ChatCompletion(msgspec.Struct, kw_only=True):
    id: str
    created: int
    model: str
    choices: list[Choice]
    usage: Usage
    object: Literal["chat.completion"] = "chat.completion"


class ChunkDelta(msgspec.Struct, kw_only=True, omit_defaults=True):
    role: Literal["assistant"] | None = None
    content: str | None = None


class ChunkChoice(msgspec.Struct, kw_only=True):
    delta: ChunkDelta
    index: int = 0
    finish_reason: Literal["stop"] | None = None


class ChatCompletionChunk(msgspec.Struct, kw_only=True, omit_defaults=True):
    id: str
    created: int
    model: str
    choices: list[ChunkChoice]
    usage: Usage | None = None
    object: Literal["chat.completion.chunk"] = "chat.completion.chunk"


# -- /v1/code/apply ----------------------------------------------------------------------------


class CodeApplyBody(msgspec.Struct, kw_only=True):
    """Either spelling of each field is accepted; exactly one of each pair must be given."""

    initial_code: str | None = None
    edit_snippet: str | None = None
    initialCode: str | None = None
    editSnippet: str | None = None
    instruction: str | None = None
    stream: bool = False


class CodeApplyResponse(msgspec.Struct, kw_only=True):
    mergedCode: str
    usage: Usage


# -- models and health -------------------------------------------------------------------------


class ModelCard(msgspec.Struct, kw_only=True):
    id: str
    created: int
    owned_by: str = "fastapply"
    object: Literal["model"] = "model"


class ModelList(msgspec.Struct, kw_only=True):
    data: list[ModelCard]
    object: Literal["list"] = "list"


class Health(msgspec.Struct, kw_only=True):
    status: Literal["ok"]
    engine: Literal["structural", "model"]
    model: str | None


# -- translation between the dialects and ApplyRequest -----------------------------------------

CODE_OPEN = "<code>"
UPDATE_CLOSE = "</update>"
CODE_THEN_UPDATE = re.compile(r"</code>\s*<update>")
INSTRUCTION = re.compile(r"<instruction>(.*?)</instruction>", re.DOTALL)


def strip_one_newline(text: str) -> str:
    """`<code>\\n...` is a common way to write a tag; the newline belongs to the tag, not the file."""
    return text[1:] if text.startswith("\n") else text


def message_text(message: ChatMessage) -> str:
    if isinstance(message.content, list):
        return "".join(part.text or "" for part in message.content if part.type == "text")
    return message.content or ""


def parse_chat(messages: list[ChatMessage]) -> ApplyRequest:
    """The last user message -> ApplyRequest. `<code>` runs to the last `</code>` that is followed by
    `<update>`, so a file that itself contains `</code>` survives."""
    users = [m for m in messages if m.role == "user"]
    if not users:
        raise InputError("no user message", field="messages")
    text = message_text(users[-1])
    start, end = text.find(CODE_OPEN), text.rfind(UPDATE_CLOSE)
    splits = list(CODE_THEN_UPDATE.finditer(text, max(start, 0), max(end, 0)))
    if start < 0 or end < 0 or not splits:
        raise InputError(
            "the user message needs <code>original</code> followed by <update>snippet</update>",
            field="messages",
        )
    split = splits[-1]
    instruction = INSTRUCTION.search(text[:start])
    return ApplyRequest(
        original=strip_one_newline(text[start + len(CODE_OPEN) : split.start()]),
        snippet=strip_one_newline(text[split.end() : end]),
        instruction=instruction.group(1).strip() if instruction else None,
    )


def code_apply_request(body: CodeApplyBody) -> ApplyRequest:
    return ApplyRequest(
        original=either(body.initial_code, body.initialCode, "initial_code"),
        snippet=either(body.edit_snippet, body.editSnippet, "edit_snippet"),
        instruction=body.instruction,
    )


def either(snake: str | None, camel: str | None, field: str) -> str:
    if (snake is None) == (camel is None):
        camel_name = re.sub(r"_(\w)", lambda m: m.group(1).upper(), field)
        raise InputError(f"give exactly one of {field} and {camel_name}", field=field)
    return snake if snake is not None else camel  # type: ignore[return-value]


def native_request(body: ApplyBody) -> ApplyRequest:
    return ApplyRequest(**{name: getattr(body, name) for name in ApplyRequest.__struct_fields__})


def native_response(result: ApplyResult) -> ApplyResponse:
    assert result.merged is not None
    return ApplyResponse(
        merged=result.merged,
        status=result.status,
        engine=result.engine,
        language=result.language,
        stats=result.stats,
        reasons=result.reasons,
    )


def usage_of(result: ApplyResult) -> Usage:
    tokens = result.stats.output_tokens
    return Usage(completion_tokens=tokens, total_tokens=tokens)


def chat_completion(result: ApplyResult, model: str, completion_id: str) -> ChatCompletion:
    assert result.merged is not None
    choice = Choice(message=AssistantMessage(content=result.merged))
    return ChatCompletion(
        id=completion_id, created=int(time.time()), model=model, choices=[choice], usage=usage_of(result)
    )


def code_apply_response(result: ApplyResult) -> CodeApplyResponse:
    assert result.merged is not None
    return CodeApplyResponse(mergedCode=result.merged, usage=usage_of(result))
