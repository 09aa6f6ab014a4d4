"""bench speed runs every method on fixtures and reports ours as identical to plain greedy."""

import json

from apply_engine.bench.speed import main
from tests.helpers_models import round_weights, smollm2_tokenizer, tiny_model


def test_bench_speed_reports_identical_outputs_and_the_oracle_tau(tmp_path, repo_root) -> None:
    model_dir = tmp_path / "tiny"
    tiny_model("llama", seed=6, init_range=0.3).save_pretrained(model_dir)
    smollm2_tokenizer().save_pretrained(model_dir)
    out = tmp_path / "speed.json"
    result = main(
        model=str(model_dir),
        draft_model=str(model_dir),
        cases=1,
        device="cpu",
        fixtures=repo_root / "fixtures",
        json_out=out,
        max_new_tokens=24,
    )
    summary = json.loads(out.read_text())["summary"]
    assert summary == result["summary"]
    assert summary["identical"] and summary["prompt_lookup_identical"]
    assert result["cases"][0]["assisted_identical"]
    # The scripted oracle emits exactly the expected merge, many tokens per forward.
    assert result["cases"][0]["oracle_exact"]
    assert summary["oracle_tau"] > 2
    assert 0 <= summary["drafting_share"] < 1


def test_bench_speed_keeping_prefixes_over_c_layers_stays_identical(tmp_path, repo_root) -> None:
    model_dir = tmp_path / "tiny-bf16"  # bf16-exact weights: FastTarget runs its C layers
    round_weights(tiny_model("qwen2", seed=6, init_range=0.3), "bf16").save_pretrained(model_dir)
    smollm2_tokenizer().save_pretrained(model_dir)
    result = main(
        model=str(model_dir),
        cases=2,
        device="cpu",
        fixtures=repo_root / "fixtures",
        max_new_tokens=16,
        keep_prefix=True,
    )
    assert result["summary"]["identical"] and result["summary"]["keep_prefix"]
    assert result["summary"]["prefill"] in ("c-layers", "torch")  # whichever path was timed faster here
