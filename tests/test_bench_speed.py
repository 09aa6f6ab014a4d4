"""bench speed runs every method on fixtures and reports ours as identical to plain greedy."""

import json

from apply_engine.bench.speed import main
from tests.helpers_models import smollm2_tokenizer, tiny_model


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
