"""The client side of `POST /v1/apply`, shared by the language server and `fastapply batch --server-url`.

The transport (sync or async httpx) stays with the caller; this module builds the call and reads the
answer: 200 is the result, a 422 "ambiguous_merge" is an ambiguous result (not an error), a 400 is
the caller's bad input, anything else is a server fault. The bearer token comes from the caller's
setting, else from $FASTAPPLY_API_KEY.
"""

import os

import msgspec

from apply_engine.errors import FastApplyError, InputError
from apply_engine.http_schemas import ErrorBody, ErrorDetail
from apply_engine.languages import detect_language
from apply_engine.schemas import ApplyRequest, ApplyResult

API_KEY_ENV = "FASTAPPLY_API_KEY"


class ApplyCall(msgspec.Struct, frozen=True):
    url: str
    body: bytes
    headers: dict[str, str]


def apply_call(server_url: str, request: ApplyRequest, api_key: str | None = None) -> ApplyCall:
    headers = {"content-type": "application/json"}
    key = api_key or os.environ.get(API_KEY_ENV)
    if key:
        headers["authorization"] = f"Bearer {key}"
    return ApplyCall(server_url.rstrip("/") + "/v1/apply", msgspec.json.encode(request), headers)


def apply_answer(call: ApplyCall, request: ApplyRequest, status: int, content: bytes) -> ApplyResult:
    """The ApplyResult of the server's answer; raises InputError (400) or FastApplyError (others)."""
    if status == 200:
        return msgspec.json.decode(content, type=ApplyResult)
    error = error_detail(content)
    if status == 422 and error is not None and error.type == "ambiguous_merge":
        return ApplyResult(
            merged=None,
            status="ambiguous",
            # The 422 body does not say which engine ran; only an explicit "model" request is known.
            engine="model" if request.engine == "model" else "structural",
            language=detect_language(request.original, language=request.language, path=request.path),
            reasons=error.reasons,
        )
    message = error.message if error is not None else content.decode(errors="replace").strip()[:300]
    if status == 400:
        raise InputError(message, field=error.param if error is not None else None)
    if status == 401:
        message += f" (set the API key in the client's settings or ${API_KEY_ENV})"
    raise FastApplyError(f"the fastapply server at {call.url} answered {status}: {message}")


def error_detail(content: bytes) -> ErrorDetail | None:
    """The server's error body ({"error": {...}}), or None when the answer is not one."""
    try:
        return msgspec.json.decode(content, type=ErrorBody).error
    except msgspec.DecodeError:
        return None
