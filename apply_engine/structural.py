"""Structural merge (placeholder: whole-file rewrites only; everything else is ambiguous)."""

from apply_engine.schemas import InsertSpan, MergeResult, Reason


def merge(original: str, snippet: str, language: str | None = None, path: str | None = None) -> MergeResult:
    if "..." in snippet or "…" in snippet:
        return MergeResult(merged=None, status="ambiguous", language=language or "text",
                           reasons=[Reason("not_implemented", "lazy markers are not supported yet")])
    return MergeResult(merged=snippet, status="ok", language=language or "text",
                       plan=[InsertSpan(0, len(snippet))])
