"""bench gpu runs end to end on CPU with the tiny config; its loop stays lossless."""

import json

from apply_engine.bench.gpu import main


def test_bench_gpu_tiny_on_cpu_writes_latencies_and_a_lossless_check(tmp_path) -> None:
    out = tmp_path / "gpu.json"
    result = main(sizes="tiny", max_k=8, tau=4, device="cpu", json_out=out, reps=2, new_tokens=24)
    assert json.loads(out.read_text()) == json.loads(json.dumps(result))
    assert result["lossless_fp32"]
    tiny = result["sizes"]["tiny"]
    assert sorted(int(k) for k in tiny["eager_ms"]) == [1, 2, 4, 8]
    assert tiny["floor_ms"] > 0
    e2e = tiny["end_to_end"]
    assert e2e["exact_script"] and e2e["tokens"] == 24
    assert 3 <= e2e["tau"] <= 4  # each step emits 3 drafted + 1 bonus, the last one fewer
