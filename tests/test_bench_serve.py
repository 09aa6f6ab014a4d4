"""`fastapply bench serve` against a real server: it counts every answer once, classifies it against
the expected file, and writes the summary it prints. Figures are not asserted, only consistency."""

from pathlib import Path

import msgspec
import pytest

from apply_engine.bench.serve import Summary, generated_work, main, percentile, workload
from apply_engine.errors import InputError
from apply_engine.fixtures import DEFAULT_ROOT
from apply_engine.server import create_app
from tests.helpers_server import free_port, serve_app


def test_bench_counts_every_answer_and_writes_its_summary(tmp_path: Path) -> None:
    out = tmp_path / "serve.json"
    with serve_app(create_app()) as url:
        printed = main(url=url, clients=2, seconds=1.0, fixtures=DEFAULT_ROOT, json_out=out)
    written = msgspec.json.decode(out.read_bytes(), type=Summary)
    assert written == printed
    assert written.requests > 0
    assert written.errors == 0
    assert sum(written.outcomes.values()) == written.requests
    assert written.ok + written.wrong + written.ambiguous + written.errors == written.requests
    assert written.p50_ms is not None and written.p99_ms is not None
    assert written.p50_ms <= written.p99_ms <= written.max_ms  # type: ignore[operator]


def test_without_fitting_fixtures_the_workload_is_a_generated_300_line_file(tmp_path: Path) -> None:
    work = workload(tmp_path)
    assert [w.name for w in work] == ["generated-300-lines"]
    body = msgspec.json.decode(work[0].body)
    assert body["original"].count("\n") == 300
    assert "... existing code ..." in body["snippet"]
    assert work[0].expected is not None and work[0].expected != body["original"]
    assert work[0].expected.count("\n") == 300


def test_generated_expected_file_changes_only_the_rewritten_function() -> None:
    work = generated_work()
    original = msgspec.json.decode(work.body)["original"].splitlines()
    expected = (work.expected or "").splitlines()
    changed = [i for i, (a, b) in enumerate(zip(original, expected, strict=True)) if a != b]
    assert changed == [30 * 5 + 1]  # `y = x + 30` became `y = x * 30`


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert (percentile(values, 50), percentile(values, 99), percentile(values, 100)) == (50.0, 99.0, 100.0)
    assert percentile([7.0], 99) == 7.0
    assert percentile([], 50) is None


def test_no_server_is_a_clear_input_error() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(InputError, match="no fastapply server"):
        main(url=url, clients=1, seconds=0.1, fixtures=DEFAULT_ROOT, json_out=None)
