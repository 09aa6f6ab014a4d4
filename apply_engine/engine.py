"""apply(request) / stream(request): pick the structural or the model engine and gather stats.

engine="auto" uses the model when one is configured, else the structural merge; "model" always
uses the model, with the structural plan as its speculation; "structural" never loads a model.
"""

import time
from collections.abc import Iterator

from apply_engine.config import EngineConfig
from apply_engine.errors import InputError
from apply_engine.languages import detect_language
from apply_engine.schemas import ApplyRequest, ApplyResult, Stats
from apply_engine.structural import merge as structural_merge


def validate(request: ApplyRequest) -> None:
    """Reject input no engine can merge, naming the field."""
    if not request.snippet.strip():
        raise InputError("snippet is empty", field="snippet")
    for field in ("original", "snippet"):
        if "\x00" in getattr(request, field):
            raise InputError(f"{field} contains NUL bytes (binary input is not supported)", field=field)


class Engine:
    """Holds the loaded model (if any) for the life of a process; thread-safe for structural merges."""

    def __init__(self, config: EngineConfig | None = None) -> None:
        self.config = config or EngineConfig()
        self.model_merger = None
        if self.config.model is not None and self.config.engine != "structural":
            from apply_engine.model_merge import ModelMerger

            self.model_merger = ModelMerger.from_config(self.config)

    def pick(self, request: ApplyRequest) -> str:
        engine = request.engine if request.engine != "auto" else self.config.engine
        if engine == "auto":
            return "model" if self.model_merger is not None else "structural"
        if engine == "model" and self.model_merger is None:
            raise InputError(
                "engine 'model' requested but no model is configured (use --model)", field="engine"
            )
        return engine

    def apply(self, request: ApplyRequest) -> ApplyResult:
        result = None
        for item in self.stream(request):
            if isinstance(item, ApplyResult):
                result = item
        assert result is not None
        return result

    def stream(self, request: ApplyRequest) -> Iterator[str | ApplyResult]:
        """Yield merged-text deltas as they are decided, then the final ApplyResult (always last)."""
        validate(request)
        language = detect_language(request.original, language=request.language, path=request.path)
        engine = self.pick(request)
        start = time.perf_counter()
        prediction = structural_merge(request.original, request.snippet, language=language, path=request.path)
        if engine == "structural":
            stats = Stats(wall_ms=(time.perf_counter() - start) * 1000)
            if prediction.status == "ok" and prediction.merged:
                yield prediction.merged
            yield ApplyResult(
                merged=prediction.merged,
                status=prediction.status,
                engine="structural",
                language=language,
                reasons=prediction.reasons,
                stats=stats,
            )
            return
        yield from self.model_merger.stream(request, prediction, language)
