"""`fastapply bench merge`: structural-merge accuracy and latency over the golden fixtures.

Each case ends in one outcome:
    exact      status ok and output byte-identical to expected.*
    ambiguous  status ambiguous (the right answer for a case whose expect is "ambiguous")
    wrong      status ok but output differs, or status ok on a case whose expect is "ambiguous"
    error      merge() raised

Percentages: exact_pct and ambiguous_pct are over the mergeable cases (expect "ok"); wrong_pct and
error_pct over all cases; negatives_caught_pct over the cases whose expect is "ambiguous".
Latency, pooled by the original's line count, is reported two ways:
    cold  the first merge of each case, as when an editor applies to a file (grammars are loaded
          beforehand; small cases that share an original with an earlier case may hit a cache)
    warm  `repeats` further merges of the same inputs, as when a server merges into one file again
          (an engine that caches per original text is faster here)
Synthetic 1,000-line Python files are timed on their own: the first merge of each of
SYNTHETIC_VARIANTS distinct files (cold) and SYNTHETIC_REPEATS repeats of one of them (warm).
"""

import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path

import msgspec

from apply_engine.bench.report import print_table, write_json
from apply_engine.fixtures import FixtureCase, load_cases
from apply_engine.schemas import MergeResult

MergeFn = Callable[[str, str, str | None, str | None], MergeResult]
BUCKETS = ((0, 100, "<100"), (100, 300, "100-300"), (300, 1000, "300-1000"), (1000, None, "1000+"))
DEFAULT_REPEATS = 10
SYNTHETIC_LINES = 1000
SYNTHETIC_REPEATS = 100
SYNTHETIC_VARIANTS = 30


class CaseOutcome(msgspec.Struct):
    name: str
    language: str
    lines: int
    expect: str
    outcome: str  # exact | ambiguous | wrong | error
    detail: str  # first reason, the exception, or "" for exact
    first_ms: float | None  # the first (cold) merge; None when merge() raised
    samples_ms: list[float]  # the repeated (warm) merges


class Latency(msgspec.Struct):
    n: int
    p50_ms: float | None
    p99_ms: float | None


class Summary(msgspec.Struct):
    cases: int
    mergeable: int
    negatives: int
    exact_pct: float
    ambiguous_pct: float
    wrong_pct: float
    error_pct: float
    negatives_caught_pct: float
    wrong_cases: list[str]
    error_cases: list[str]
    latency_by_lines: dict[str, Latency]  # warm
    cold_latency_by_lines: dict[str, Latency]
    synthetic_1000: Latency  # warm
    synthetic_1000_cold: Latency
    synthetic_1000_outcomes: dict[str, int]  # outcome -> number of synthetic variants


def line_count(text: str) -> int:
    return len(text.splitlines())


def bucket_of(lines: int) -> str:
    for low, high, label in BUCKETS:
        if lines >= low and (high is None or lines < high):
            return label
    raise AssertionError("buckets cover every non-negative count")


def percentile(samples: list[float], pct: float) -> float | None:
    """Nearest-rank percentile; None for no samples."""
    if not samples:
        return None
    ordered = sorted(samples)
    rank = max(1, -(-len(ordered) * pct // 100))  # ceil(n * pct / 100), at least 1
    return ordered[int(rank) - 1]


def latency(samples: list[float]) -> Latency:
    return Latency(n=len(samples), p50_ms=percentile(samples, 50), p99_ms=percentile(samples, 99))


def pct(part: int, whole: int) -> float:
    return 100.0 * part / whole if whole else 0.0


def classify(case: FixtureCase, result: MergeResult) -> tuple[str, str]:
    """(outcome, detail) of one merge against the case's ground truth."""
    if result.status != "ok":
        reason = result.reasons[0] if result.reasons else None
        return "ambiguous", f"{reason.code}: {reason.message}" if reason else ""
    if case.expected is None:
        return "wrong", "merged a case whose right answer is ambiguous"
    if result.merged != case.expected:
        return "wrong", "output differs from expected"
    return "exact", ""


def timed(merge: MergeFn, case: FixtureCase) -> tuple[MergeResult, float]:
    start = time.perf_counter()
    result = merge(case.original, case.snippet, None, case.path)
    return result, (time.perf_counter() - start) * 1000.0


def time_merge(merge: MergeFn, case: FixtureCase, repeats: int) -> tuple[MergeResult, float, list[float]]:
    """The first merge (scored, and timed as cold), then `repeats` timed warm merges."""
    result, first_ms = timed(merge, case)
    return result, first_ms, [timed(merge, case)[1] for _ in range(repeats)]


def run_case(merge: MergeFn, case: FixtureCase, repeats: int) -> CaseOutcome:
    expect = "ok" if case.expected is not None else "ambiguous"
    lines = line_count(case.original)
    try:
        result, first_ms, samples = time_merge(merge, case, repeats)
    except Exception as exc:  # a crash is an outcome to report, not a reason to stop the bench
        return CaseOutcome(case.name, case.language, lines, expect, "error", repr(exc), None, [])
    outcome, detail = classify(case, result)
    return CaseOutcome(case.name, case.language, lines, expect, outcome, detail, first_ms, samples)


def synthetic_case(lines: int = SYNTHETIC_LINES, variant: int = 0) -> FixtureCase:
    """A `lines`-line Python module of 10-line functions; the snippet rewrites the middle one.

    Each `variant` numbers its functions differently, so variants are distinct texts.
    """
    first = variant * lines
    functions = [synthetic_function(i) for i in range(first, first + lines // 10)]
    middle = len(functions) // 2
    edited = functions[middle].replace("total += value * 2", "total += value * 3  # tripled")
    snippet = f"# ... existing code ...\n\n\n{edited}\n\n# ... existing code ...\n"
    expected = functions.copy()
    expected[middle] = edited
    return FixtureCase(
        name=f"synthetic-{lines}-{variant}",
        language="python",
        note="synthetic module, one function rewritten between two markers",
        path="synthetic.py",
        original="\n\n".join(functions) + "\n",
        snippet=snippet,
        expected="\n\n".join(expected) + "\n",
    )


def synthetic_function(i: int) -> str:
    """Nine lines of code; with the blank separator each function takes ten lines."""
    return (
        f"def step_{i:06d}(values: list[int]) -> int:\n"
        f'    """Sum of step {i}."""\n'
        "    total = 0\n"
        "    for value in values:\n"
        f"        if value % {i % 7 + 2} == 0:\n"
        "            total += value * 2\n"
        "        else:\n"
        f"            total -= {i}\n"
        "    return total"
    )


def by_bucket(outcomes: list[CaseOutcome], cold: bool) -> dict[str, Latency]:
    """Latency per line-count bucket over first merges (cold) or repeated merges (warm)."""
    samples: dict[str, list[float]] = {label: [] for _, _, label in BUCKETS}
    for o in outcomes:
        if not cold:
            samples[bucket_of(o.lines)].extend(o.samples_ms)
        elif o.first_ms is not None:
            samples[bucket_of(o.lines)].append(o.first_ms)
    return {label: latency(values) for label, values in samples.items()}


def summarize(outcomes: list[CaseOutcome], synthetic: list[CaseOutcome]) -> Summary:
    mergeable = [o for o in outcomes if o.expect == "ok"]
    negatives = [o for o in outcomes if o.expect == "ambiguous"]
    return Summary(
        cases=len(outcomes),
        mergeable=len(mergeable),
        negatives=len(negatives),
        exact_pct=pct(count(mergeable, "exact"), len(mergeable)),
        ambiguous_pct=pct(count(mergeable, "ambiguous"), len(mergeable)),
        wrong_pct=pct(count(outcomes, "wrong"), len(outcomes)),
        error_pct=pct(count(outcomes, "error"), len(outcomes)),
        negatives_caught_pct=pct(count(negatives, "ambiguous"), len(negatives)),
        wrong_cases=[o.name for o in outcomes if o.outcome == "wrong"],
        error_cases=[o.name for o in outcomes if o.outcome == "error"],
        latency_by_lines=by_bucket(outcomes, cold=False),
        cold_latency_by_lines=by_bucket(outcomes, cold=True),
        synthetic_1000=latency([ms for o in synthetic for ms in o.samples_ms]),
        synthetic_1000_cold=latency([o.first_ms for o in synthetic if o.first_ms is not None]),
        synthetic_1000_outcomes=dict(Counter(o.outcome for o in synthetic)),
    )


def count(outcomes: Iterable[CaseOutcome], outcome: str) -> int:
    return sum(1 for o in outcomes if o.outcome == outcome)


def language_rows(outcomes: list[CaseOutcome]) -> list[list[str | int | float]]:
    """One row per language, then a total row: cases, exact/ambiguous (of mergeable), wrong, error."""
    groups: dict[str, list[CaseOutcome]] = defaultdict(list)
    for o in outcomes:
        groups[o.language].append(o)
    groups_in_order = [*sorted(groups.items()), ("TOTAL", outcomes)]
    rows: list[list[str | int | float]] = []
    for language, group in groups_in_order:
        mergeable = [o for o in group if o.expect == "ok"]
        rows.append(
            [
                language,
                len(group),
                pct(count(mergeable, "exact"), len(mergeable)),
                pct(count(mergeable, "ambiguous"), len(mergeable)),
                pct(count(group, "wrong"), len(group)),
                pct(count(group, "error"), len(group)),
            ]
        )
    return rows


def latency_rows(summary: Summary) -> list[list[str | int | float | None]]:
    """One row per size bucket, then the synthetic files: cold n/p50/p99, warm n/p50/p99."""
    pairs = [
        (label, summary.cold_latency_by_lines[label], warm)
        for label, warm in summary.latency_by_lines.items()
    ]
    pairs.append((f"synthetic {SYNTHETIC_LINES}", summary.synthetic_1000_cold, summary.synthetic_1000))
    return [[label, c.n, c.p50_ms, c.p99_ms, w.n, w.p50_ms, w.p99_ms] for label, c, w in pairs]


def print_report(outcomes: list[CaseOutcome], summary: Summary) -> None:
    print_table(
        "Structural merge accuracy (exact/ambiguous: % of mergeable; wrong/error: % of all)",
        ["language", "cases", "exact %", "ambiguous %", "wrong %", "error %"],
        language_rows(outcomes),
    )
    print_table(
        "Merge latency by original size in lines (cold: first merge of each case; warm: repeats)",
        ["size", "cold n", "cold p50 ms", "cold p99 ms", "warm n", "warm p50 ms", "warm p99 ms"],
        latency_rows(summary),
    )
    for o in outcomes:
        if o.outcome in ("wrong", "error") or (o.expect == "ok" and o.outcome == "ambiguous"):
            print(f"{o.outcome:9} {o.name}: {o.detail}")
    print(
        f"exact {summary.exact_pct:.1f}% of {summary.mergeable} mergeable, "
        f"wrong {summary.wrong_pct:.1f}% of {summary.cases}, "
        f"negatives caught {summary.negatives_caught_pct:.1f}% of {summary.negatives}, "
        f"synthetic {SYNTHETIC_LINES}-line files: {summary.synthetic_1000_outcomes}"
    )


def warm_up(merge: MergeFn, cases: list[FixtureCase]) -> None:
    """Merge one snippet into itself per language, so that no cold figure includes loading a grammar.

    Snippets, not originals, so no original is cached before its own first (cold) merge.
    """
    first_of_language = {case.language: case for case in reversed(cases)}
    for case in first_of_language.values():
        try:
            merge(case.snippet, case.snippet, None, case.path)
        except Exception:  # a crash here is recorded when the case itself runs
            continue


def run(
    cases: list[FixtureCase], merge: MergeFn, repeats: int = DEFAULT_REPEATS
) -> tuple[list[CaseOutcome], Summary]:
    """0. load each language's parser; 1. score and time every case; 2. time the synthetic files;
    3. summarize."""
    warm_up(merge, cases)
    outcomes = [run_case(merge, case, repeats) for case in cases]
    synthetic = [
        run_case(merge, synthetic_case(variant=v), SYNTHETIC_REPEATS if v == 0 else 0)
        for v in range(SYNTHETIC_VARIANTS)
    ]
    return outcomes, summarize(outcomes, synthetic)


def structural_merge(original: str, snippet: str, language: str | None, path: str | None) -> MergeResult:
    from apply_engine.structural import merge

    return merge(original, snippet, language=language, path=path)


def main(fixtures: Path, json_out: Path | None = None, repeats: int = DEFAULT_REPEATS) -> Summary:
    outcomes, summary = run(load_cases(Path(fixtures)), structural_merge, repeats)
    print_report(outcomes, summary)
    if json_out is not None:
        write_json(json_out, {"summary": summary, "cases": outcomes})
    return summary
