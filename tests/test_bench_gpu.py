"""bench gpu runs end to end on CPU with the tiny config; FastTarget and the loop stay lossless."""

import json

from apply_engine.bench.gpu import PacedDrafter, main


def test_bench_gpu_tiny_on_cpu_writes_latencies_and_lossless_checks(tmp_path) -> None:
    out = tmp_path / "gpu.json"
    result = main(sizes="tiny", max_k=8, tau=4, device="cpu", json_out=out, reps=2, new_tokens=24)
    assert json.loads(out.read_text()) == json.loads(json.dumps(result))
    checks = result["fp32_checks"]
    assert checks["hf_lossless"]
    assert {
        name: (c["lossless"], c["max_abs_err"] < 1e-4) for name, c in checks.items() if name != "hf_lossless"
    } == {
        "sdpa": (True, True),
        "matmul": (True, True),
    }
    tiny = result["sizes"]["tiny"]
    assert tiny["floor_ms"] > 0
    for figures in tiny["variants"].values():
        assert sorted(int(k) for k in figures["ms"]) == [1, 2, 4, 8]
        assert figures["logits"]["rel_err_vs_transformers"] < 1e-5  # fp32 on CPU
    assert sorted(int(k) for k in tiny["transformers_static_graph_ms"]) == [1]
    e2e = tiny["end_to_end"]
    assert e2e["exact_script"] and e2e["tokens"] == 24
    assert 3.4 <= e2e["tau"] <= 4  # each step emits 3 drafted + 1 bonus, the last one fewer


def test_paced_drafter_emits_tau_tokens_per_step_on_average() -> None:
    drafter, output, steps = PacedDrafter(list(range(1000)), 19.7), [], 0
    while len(output) < 985:
        draft = drafter.propose(output, 255)
        output += [*draft, len(output) + len(draft)]  # all accepted, then the bonus token
        steps += 1
    assert output[:985] == list(range(985)) and len(output) / steps == 19.7
