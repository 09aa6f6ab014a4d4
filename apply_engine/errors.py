"""Errors every interface maps to a clear message: CLI exit 2, HTTP 4xx, LSP error, batch 'failed'."""


class FastApplyError(Exception):
    """Base class: the message is one line meant for the user."""


class InputError(FastApplyError):
    """The request itself is wrong (empty snippet, binary text, unknown language, ...)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class ModelLoadError(FastApplyError):
    """A model path or alias could not be loaded; the message names the path."""


class GenerationError(FastApplyError):
    """The model's answer could not be turned into a file (truncated, no code block, ...)."""
