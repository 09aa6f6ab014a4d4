"""The golden fixtures are well formed, and the structural merge never returns a wrong file on them.

The assertion that matters is `test_structural_merge_is_never_wrong`: an "ok" merge must be
byte-identical to expected.*, and a case whose right answer is "ambiguous" must not merge.
"""

import re
from functools import cache

import msgspec
import pytest

from apply_engine.fixtures import DEFAULT_ROOT, CaseMeta, FixtureCase, load_cases
from apply_engine.schemas import MergeResult
from apply_engine.structural import merge

CASES = load_cases()
BY_NAME = {case.name: case for case in CASES}
NEGATIVES = [case.name for case in CASES if case.expected is None]
MIN_CASES = 120
MIN_LANGUAGES = 15
MIN_REAL_SIZE = 30  # originals of 300+ lines taken from permissively licensed code
REAL_SIZE_LINES = 300
MIN_EXACT_RATE = 0.95

COMMENT_DELIMITERS = re.compile(r"^\s*(#|//|/\*|\{/\*|<!--|--|;)\s*|\s*(\*/\}|\*/|-->)\s*$")
MARKER_WORDS = re.compile(r"\.\.\.|…|keep existing|existing code|unchanged|remaining|rest of", re.IGNORECASE)


@cache
def merged(name: str) -> MergeResult:
    case = BY_NAME[name]
    return merge(case.original, case.snippet, path=case.path)


def marker_lines(case: FixtureCase) -> set[str]:
    """Snippet lines that are lazy markers: a comment mentioning elision, absent from the original."""
    original_lines = {line.strip() for line in case.original.splitlines()}
    found = set()
    for line in case.snippet.splitlines():
        stripped = line.strip()
        is_comment = COMMENT_DELIMITERS.match(line) is not None
        if is_comment and MARKER_WORDS.search(stripped) and stripped not in original_lines:
            found.add(stripped)
    return found


def test_fixture_set_is_large_and_varied() -> None:
    languages = {case.language for case in CASES}
    assert len(CASES) >= MIN_CASES
    assert len(languages) >= MIN_LANGUAGES, sorted(languages)


def test_fixture_set_has_real_size_originals_with_origins() -> None:
    real = [c for c in CASES if len(c.original.splitlines()) >= REAL_SIZE_LINES]
    assert len(real) >= MIN_REAL_SIZE
    assert len({c.language for c in real}) >= 3
    for case in real:
        meta = msgspec.json.decode((DEFAULT_ROOT / case.name / "case.json").read_bytes(), type=CaseMeta)
        assert meta.origin, f"{case.name}: a real-size original names its origin and license"


@pytest.mark.parametrize("name", [c.name for c in CASES if c.expected is not None])
def test_expected_differs_from_original(name: str) -> None:
    case = BY_NAME[name]
    assert case.expected != case.original, "a mergeable case must change the file"


@pytest.mark.parametrize("name", [case.name for case in CASES])
def test_structural_merge_is_never_wrong(name: str) -> None:
    case, result = BY_NAME[name], merged(name)
    if result.status == "ok":
        assert case.expected is not None, "merged a case whose right answer is ambiguous"
        assert result.merged == case.expected


@pytest.mark.parametrize("name", NEGATIVES)
def test_expected_ambiguous_cases_come_back_ambiguous(name: str) -> None:
    result = merged(name)
    assert result.status == "ambiguous"
    assert result.merged is None
    assert result.reasons, "an ambiguous result says why"


@pytest.mark.parametrize("name", [case.name for case in CASES])
def test_no_marker_text_in_ok_output(name: str) -> None:
    result = merged(name)
    if result.status == "ok" and result.merged is not None:
        output_lines = {line.strip() for line in result.merged.splitlines()}
        assert not marker_lines(BY_NAME[name]) & output_lines


def test_marker_lines_are_recognised() -> None:
    case = FixtureCase(
        name="t",
        language="python",
        note="",
        path="t.py",
        original="x = 1\n# ... a comment the file really has ...\n",
        snippet="# ... existing code ...\n# ... a comment the file really has ...\ny = 2\n# keep existing\n",
        expected=None,
    )
    assert marker_lines(case) == {"# ... existing code ...", "# keep existing"}


def test_exact_rate_is_at_least_95_percent() -> None:
    mergeable = [c.name for c in CASES if c.expected is not None]
    exact = [n for n in mergeable if merged(n).status == "ok" and merged(n).merged == BY_NAME[n].expected]
    missed = sorted(set(mergeable) - set(exact))
    assert len(exact) / len(mergeable) >= MIN_EXACT_RATE, f"not exact: {missed}"
