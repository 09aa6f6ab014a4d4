"""`fastapply bench batch` measures correct work: every generated patch merges to the file built for it."""

from pathlib import Path

import msgspec

from apply_engine.bench.batch import BatchBench, main, module, snippet
from apply_engine.structural import merge


def test_each_generated_snippet_merges_into_the_edited_module() -> None:
    for number in (0, 7, 31):
        result = merge(module(number, edited=False), snippet(number), path="mod.py")
        assert result.status == "ok", result.reasons
        assert result.merged == module(number, edited=True)


def test_generated_modules_are_three_hundred_lines_and_the_edit_changes_one_function() -> None:
    old, new = module(3, edited=False).splitlines(), module(3, edited=True).splitlines()
    assert len(old) == len(new) >= 290
    assert 0 < sum(a != b for a, b in zip(old, new, strict=True)) <= 8


def test_bench_applies_every_patch_exactly_then_reruns_unchanged(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    result = main(patches=12, jobs=2, json_out=out)
    assert msgspec.json.decode(out.read_bytes(), type=BatchBench) == result
    cold_one, cold_pool, rerun = result.runs
    assert (cold_one.jobs, cold_pool.jobs, rerun.run) == (1, 2, "rerun")
    for run in (cold_one, cold_pool):
        assert (run.files, run.applied, run.exact, run.failed, run.ambiguous) == (12, 12, 12, 0, 0)
    assert (rerun.unchanged, rerun.applied, rerun.exact) == (12, 0, 12)
