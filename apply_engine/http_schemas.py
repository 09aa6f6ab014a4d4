"""Request and response bodies of the HTTP service, as msgspec structs.

Three dialects of one operation (original + snippet -> merged file):
  native    POST /v1/apply             ApplyBody -> ApplyResponse
  OpenAI    POST /v1/chat/completions  ChatCompletionRequest -> ChatCompletion | ChatCompletionChunk...
  code      POST /v1/code/apply        CodeApplyBody -> CodeApplyResponse
Every error, on every route, is an ErrorBody (the OpenAI error shape, so hosted-API clients parse it).
Unknown fields are ignored: clients of hosted services send options this server has no use for.
"""

from typing import Literal

import msgspec

from apply_engine.schemas import EngineName, Reason, Stats, Status

# -- native ------------------------------------------------------------------------------------


class ApplyBody(msgspec.Struct, kw_only=True):
    original: str
    snippet: str
    instruction: str | None = None
    language: str | None = None
    path: str | None = None
    engine: EngineName = "auto"
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
    messages: list[ChatMessage]
    model: str = "auto"
    stream: bool = False
    stream_options: StreamOptions | None = None
    temperature: float | None = None
    max_tokens: int | None = None


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
