"""Load a target or draft model: a Hugging Face directory, a .gguf file, or a built-in alias.

Nothing here contacts a model hub. A GGUF file is dequantised once (~20 s) into a safetensors
directory under the user cache, keyed by the file's SHA-256; later loads read that (~0.3 s).
"""

import atexit
import contextlib
import gc
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

import torch

from apply_engine.config import from_name
from apply_engine.errors import ModelLoadError

CACHE_FORMAT = 1  # bump when the cached directory layout changes


@dataclass
class LoadedModel:
    name: str
    model: torch.nn.Module  # a transformers causal LM in eval mode
    tokenizer: object  # a transformers PreTrainedTokenizerFast
    device: torch.device
    dtype: torch.dtype


def resolve_device(device: str) -> torch.device:
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        raise ModelLoadError(
            "device 'cuda' requested but torch sees no CUDA GPU (is the CUDA build installed?)"
        )
    if device not in ("cpu", "cuda"):
        raise ModelLoadError(f"unknown device {device!r}: use cpu, cuda or auto")
    return torch.device(device)


def resolve_dtype(dtype: str | None, device: torch.device) -> torch.dtype:
    if dtype is None:
        # fp32 on CPU: bf16 multi-token passes are not bit-identical to one-token passes.
        return torch.bfloat16 if device.type == "cuda" else torch.float32
    table = {
        "float32": torch.float32,
        "fp32": torch.float32,
        "bfloat16": torch.bfloat16,
        "bf16": torch.bfloat16,
        "float16": torch.float16,
        "fp16": torch.float16,
    }
    if dtype not in table:
        raise ModelLoadError(f"unknown dtype {dtype!r}: use one of {', '.join(sorted(table))}")
    return table[dtype]


def resolve_model_path(spec: str) -> Path:
    """Alias -> packaged file; otherwise a local path that must exist."""
    preset = from_name(spec)
    if preset is not None:
        return preset.locate()
    path = Path(spec).expanduser()
    if not path.exists():
        raise ModelLoadError(
            f"model not found: {path} (give a local model directory, a .gguf file or an alias)"
        )
    if path.is_dir() and not (path / "config.json").is_file():
        raise ModelLoadError(f"not a Hugging Face model directory (no config.json): {path}")
    if path.is_file() and path.suffix != ".gguf":
        raise ModelLoadError(f"unsupported model file (expected .gguf or a directory): {path}")
    return path


def cache_root() -> Path:
    base = os.environ.get("FASTAPPLY_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "fastapply"
    )
    return Path(base)


def load_cached(path: Path) -> object | None:
    """A measurement saved by `save_cached`, or None if there is none (or it is unreadable)."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def save_cached(path: Path, data: object) -> None:
    """Write JSON to a temporary name, then rename: concurrent writers never leave half a file. A
    cache that cannot be written (a read-only home) only means measuring again next time."""
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(data))
        tmp.replace(path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def gguf_to_cached_dir(gguf_path: Path) -> Path:
    """Dequantise a GGUF file once into a safetensors model directory; return that directory."""
    target = cache_root() / "gguf" / f"{file_sha256(gguf_path)[:32]}-v{CACHE_FORMAT}"
    if (target / ".complete").is_file():
        return target
    from transformers import AutoModelForCausalLM, AutoTokenizer

    kwargs = {"gguf_file": gguf_path.name}
    tokenizer = AutoTokenizer.from_pretrained(gguf_path.parent, **kwargs)
    model = AutoModelForCausalLM.from_pretrained(gguf_path.parent, dtype=torch.float32, **kwargs)
    tmp = target.with_name(target.name + f".tmp{os.getpid()}")
    # The weights are already dequantised; drop the GGUF marker so they save as plain safetensors.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(tmp, safe_serialization=True)
    tokenizer.save_pretrained(tmp)
    (tmp / ".complete").write_text(str(gguf_path))
    try:
        tmp.rename(target)
    except OSError:  # another process finished first: its copy is as good as ours
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    return target


def quiet_transformers() -> None:
    """Progress bars and advisory warnings would corrupt CLI output and LSP stdio."""
    from transformers.utils import logging

    logging.set_verbosity_error()
    logging.disable_progress_bar()


def load_model(spec: str, device: str = "auto", dtype: str | None = None) -> LoadedModel:
    """Load a causal LM and its tokenizer, ready for inference. Raises ModelLoadError."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    quiet_transformers()

    path = resolve_model_path(spec)
    torch_device = resolve_device(device)
    torch_dtype = resolve_dtype(dtype, torch_device)
    try:
        directory = gguf_to_cached_dir(path) if path.is_file() else path
        tokenizer = AutoTokenizer.from_pretrained(directory, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(directory, dtype=torch_dtype, local_files_only=True)
    except ModelLoadError:
        raise
    except Exception as exc:  # transformers raises many types; the user needs one line
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelLoadError(f"cannot load model from {path}: {first_line}") from exc
    model.to(torch_device).eval()
    # A loaded model and tokenizer are hundreds of thousands of Python objects that live as long as
    # the process. Left to the cyclic collector, each of its full passes rescans them (~180 ms with
    # the stand-in loaded), stalling whatever decode it interrupts; frozen, they are skipped.
    gc.collect()
    gc.freeze()
    # ...and thawed at exit, so that the last collection frees them: objects still frozen then count
    # as leaked to nanobind (Triton's bindings, imported by transformers), which lists them on stderr
    atexit.unregister(gc.unfreeze)
    atexit.register(gc.unfreeze)
    return LoadedModel(name=spec, model=model, tokenizer=tokenizer, device=torch_device, dtype=torch_dtype)
