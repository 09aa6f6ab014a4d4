"""Language detection (placeholder until the structural merge lands: extension table only)."""

from pathlib import Path

from apply_engine.errors import InputError

EXTENSIONS = {".py": "python", ".js": "javascript", ".ts": "typescript", ".go": "go", ".rs": "rust", ".java": "java"}
SUPPORTED_LANGUAGES = frozenset(EXTENSIONS.values()) | {"text"}


def detect_language(text: str, language: str | None = None, path: str | None = None) -> str:
    if language is not None:
        if language not in SUPPORTED_LANGUAGES:
            raise InputError(f"unknown language {language!r}", field="language")
        return language
    if path is not None:
        return EXTENSIONS.get(Path(path).suffix.lower(), "text")
    return "text"
