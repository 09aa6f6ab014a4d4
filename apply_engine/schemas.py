"""Request, result and stats structs shared by the CLI, HTTP server, language server and batch.

Everything that crosses a module edge is one of these msgspec structs (or plain str/int lists), so
the same shapes are encoded to JSON everywhere.
"""

from typing import Literal

import msgspec

EngineName = Literal["auto", "structural", "model"]
Status = Literal["ok", "ambiguous"]


class Reason(msgspec.Struct, frozen=True):
    """Why a merge is not trusted. `code` is machine-readable (e.g. "unmatched_anchor")."""

    code: str
    message: str
    line: int | None = None  # 1-based line in the snippet, when the reason points at one


class CopySpan(msgspec.Struct, frozen=True, tag="copy"):
    """Copy original[start:end] (character offsets) into the output."""

    start: int
    end: int


class InsertSpan(msgspec.Struct, frozen=True, tag="insert"):
    """Copy snippet[start:end] (character offsets) into the output."""

    start: int
    end: int


class TextSpan(msgspec.Struct, frozen=True, tag="text"):
    """Emit text that stands in neither input (re-indented lines, a joining newline, ...)."""

    text: str


Span = CopySpan | InsertSpan | TextSpan


def render_plan(plan: list[Span], original: str, snippet: str) -> str:
    """The text a plan stands for: the plan is the merge, span by span."""
    parts = []
    for span in plan:
        if isinstance(span, CopySpan):
            parts.append(original[span.start : span.end])
        elif isinstance(span, InsertSpan):
            parts.append(snippet[span.start : span.end])
        else:
            parts.append(span.text)
    return "".join(parts)


class MergeResult(msgspec.Struct):
    """Output of the structural merge. `merged` is None when status is "ambiguous"."""

    merged: str | None
    status: Status
    language: str
    plan: list[Span] = msgspec.field(default_factory=list)
    reasons: list[Reason] = msgspec.field(default_factory=list)


class Stats(msgspec.Struct):
    """Per-request figures. Token fields stay 0 for the structural engine."""

    wall_ms: float = 0.0
    ttft_ms: float | None = None
    output_tokens: int = 0
    target_forwards: int = 0
    tau: float | None = None  # mean tokens emitted per target forward
    tok_s: float | None = None
    drafted: dict[str, int] = msgspec.field(default_factory=dict)  # by source: plan, lookup, model
    accepted: dict[str, int] = msgspec.field(default_factory=dict)
    # the forward that verified: FastTarget+c-layers(+amx), FastTarget or HFTarget (transformers'); None: structural
    forward: str | None = None


class ApplyRequest(msgspec.Struct, kw_only=True):
    original: str
    snippet: str
    instruction: str | None = None
    language: str | None = None
    path: str | None = None
    engine: EngineName = "auto"


class ApplyResult(msgspec.Struct, kw_only=True):
    merged: str | None
    status: Status
    engine: Literal["structural", "model"]
    language: str
    reasons: list[Reason] = msgspec.field(default_factory=list)
    stats: Stats = msgspec.field(default_factory=Stats)
