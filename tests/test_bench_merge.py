"""`fastapply bench merge` scores cases correctly and writes the summary JSON (no timing asserts)."""

import json
from pathlib import Path

from apply_engine.bench.merge import bucket_of, main, percentile, run, synthetic_case
from apply_engine.fixtures import load_cases
from apply_engine.schemas import MergeResult

SUMMARY_KEYS = {
    "exact_pct",
    "ambiguous_pct",
    "wrong_pct",
    "wrong_cases",
    "latency_by_lines",
    "cold_latency_by_lines",
    "synthetic_1000",
    "synthetic_1000_cold",
}


def write_case(root: Path, name: str, meta: dict[str, str], files: dict[str, str]) -> None:
    directory = root / name
    directory.mkdir(parents=True)
    (directory / "case.json").write_text(json.dumps(meta))
    for file_name, text in files.items():
        (directory / file_name).write_bytes(text.encode())


def tiny_fixtures(root: Path) -> Path:
    """Two cases: a whole-file rewrite (merge = snippet) and one whose right answer is ambiguous."""
    write_case(
        root,
        "rewrite",
        {"language": "python", "note": "whole file rewritten"},
        {"original.py": "x = 1\n", "snippet.py": "x = 2\n", "expected.py": "x = 2\n"},
    )
    write_case(
        root,
        "lonely-marker",
        {"language": "python", "note": "marker with no neighbours", "expect": "ambiguous"},
        {"original.py": "a = 1\nb = 2\n", "snippet.py": "# ... existing code ...\n"},
    )
    return root


def echo_snippet(original: str, snippet: str, language: str | None, path: str | None) -> MergeResult:
    """A deliberately careless merge: always "ok", output = the snippet."""
    return MergeResult(merged=snippet, status="ok", language="python")


def test_bench_writes_summary_json(tmp_path: Path) -> None:
    out = tmp_path / "out" / "merge.json"
    main(fixtures=tiny_fixtures(tmp_path / "fixtures"), json_out=out, repeats=2)
    report = json.loads(out.read_text())
    assert report["summary"].keys() >= SUMMARY_KEYS
    for key in ("latency_by_lines", "cold_latency_by_lines"):
        assert set(report["summary"][key]) == {"<100", "100-300", "300-1000", "1000+"}
    for key in ("synthetic_1000", "synthetic_1000_cold"):
        assert {"p50_ms", "p99_ms"} <= report["summary"][key].keys()
    assert [c["name"] for c in report["cases"]] == ["lonely-marker", "rewrite"]


def test_ok_on_an_ambiguous_case_counts_as_wrong(tmp_path: Path) -> None:
    cases = load_cases(tiny_fixtures(tmp_path))
    outcomes, summary = run(cases, echo_snippet, repeats=1)
    assert {o.name: o.outcome for o in outcomes} == {"lonely-marker": "wrong", "rewrite": "exact"}
    assert summary.wrong_cases == ["lonely-marker"]
    assert summary.exact_pct == 100.0
    assert summary.wrong_pct == 50.0


def test_a_raising_merge_is_an_error_outcome(tmp_path: Path) -> None:
    def crash(original: str, snippet: str, language: str | None, path: str | None) -> MergeResult:
        raise RuntimeError("boom")

    outcomes, summary = run(load_cases(tiny_fixtures(tmp_path)), crash, repeats=1)
    assert {o.outcome for o in outcomes} == {"error"}
    assert summary.error_pct == 100.0
    assert set(summary.synthetic_1000_outcomes) == {"error"}


def test_synthetic_case_is_a_thousand_lines_with_one_edit() -> None:
    case = synthetic_case()
    assert case.expected is not None
    original, expected = case.original.splitlines(), case.expected.splitlines()
    assert len(original) >= 999
    assert len(original) == len(expected)
    changed = [i for i, (a, b) in enumerate(zip(original, expected, strict=True)) if a != b]
    assert len(changed) == 1
    assert "tripled" in expected[changed[0]]


def test_synthetic_variants_are_distinct_texts() -> None:
    assert synthetic_case(variant=0).original != synthetic_case(variant=1).original


def test_percentile_is_nearest_rank() -> None:
    samples = [float(v) for v in range(1, 101)]
    assert percentile(samples, 50) == 50.0
    assert percentile(samples, 99) == 99.0
    assert percentile([7.0], 99) == 7.0
    assert percentile([], 50) is None


def test_buckets_split_at_100_300_1000_lines() -> None:
    assert [bucket_of(n) for n in (0, 99, 100, 299, 300, 999, 1000, 5000)] == [
        "<100",
        "<100",
        "100-300",
        "100-300",
        "300-1000",
        "300-1000",
        "1000+",
        "1000+",
    ]
