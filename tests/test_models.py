"""Model loading: the packaged stand-in, a local HF directory, and clear errors for bad paths."""

import subprocess
import sys

import pytest
import torch
from transformers import LlamaConfig, LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM

from apply_engine.errors import ModelLoadError
from apply_engine.models import load_model, resolve_dtype


def test_smollm2_loads_offline_and_generates(smollm2):
    assert smollm2.dtype == torch.float32 and smollm2.device.type == "cpu"
    ids = smollm2.tokenizer("def add(a, b):", return_tensors="pt").input_ids
    out = smollm2.model.generate(ids, max_new_tokens=8, do_sample=False)
    new_tokens = out[0, ids.shape[1] :]
    assert len(new_tokens) == 8
    assert smollm2.tokenizer.decode(new_tokens).strip()


@pytest.mark.parametrize(
    ("config_cls", "model_cls"), [(LlamaConfig, LlamaForCausalLM), (Qwen2Config, Qwen2ForCausalLM)]
)
def test_tiny_random_model_loads_from_directory(tmp_path, smollm2, config_cls, model_cls):
    torch.manual_seed(0)
    config = config_cls(
        vocab_size=len(smollm2.tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
    )
    model_cls(config).save_pretrained(tmp_path)
    smollm2.tokenizer.save_pretrained(tmp_path)

    loaded = load_model(str(tmp_path), device="cpu")
    assert loaded.model.config.model_type == config.model_type
    ids = loaded.tokenizer("x = 1", return_tensors="pt").input_ids
    out = loaded.model.generate(ids, max_new_tokens=4, do_sample=False)
    assert out.shape[1] == ids.shape[1] + 4


@pytest.mark.parametrize("spec", ["/nonexistent/model-dir", "/etc/hostname"])
def test_bad_model_path_names_the_path(spec):
    with pytest.raises(ModelLoadError, match=spec):
        load_model(spec, device="cpu")


def test_directory_without_config_is_rejected(tmp_path):
    with pytest.raises(ModelLoadError, match=r"no config\.json"):
        load_model(str(tmp_path), device="cpu")


def test_corrupt_weights_give_one_clear_error(tmp_path):
    (tmp_path / "config.json").write_text('{"model_type": "llama"')
    with pytest.raises(ModelLoadError, match=str(tmp_path)):
        load_model(str(tmp_path), device="cpu")


def test_default_dtype_is_fp32_on_cpu():
    assert resolve_dtype(None, torch.device("cpu")) == torch.float32
    assert resolve_dtype(None, torch.device("cuda")) == torch.bfloat16


@pytest.mark.parametrize(
    "models, message",
    [
        (["--model", "/nonexistent/merge-model"], "/nonexistent/merge-model"),
        # the target loads first: nothing it leaves behind may add to the one line at exit
        (["--model", "smollm2-135m", "--draft-model", "/nonexistent/draft"], "/nonexistent/draft"),
        # decoding with a draft, nothing from the libraries on stderr either
        (
            ["--model", "smollm2-135m", "--draft-model", "self:1", "--max-new-tokens", "4"],
            "cut off by the token budget",
        ),
    ],
)
def test_cli_model_errors_exit_2_with_one_line(tmp_path, models, message):
    original, snippet = tmp_path / "a.py", tmp_path / "b.py"
    original.write_text("x = 1\n")
    snippet.write_text("x = 2\n")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "apply_engine.cli",
            "apply",
            str(original),
            str(snippet),
            "--engine",
            "model",
            *models,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0, proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
