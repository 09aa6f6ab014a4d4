"""Property tests on real files: lazy snippets of random edits to Python stdlib modules merge back
to the edited file (or, rarely, honestly say "ambiguous"); a wrong "ok" never happens.

Edits are located with `ast` (independent of the merge's own outline): a function or method gets a
new last statement, a function is added after another, or a function is deleted between its
neighbours. The snippet shows the edited region between random markers.
"""

import ast
import sysconfig
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apply_engine.fixtures import load_cases
from apply_engine.schemas import render_plan
from apply_engine.structural import merge

STDLIB = Path(sysconfig.get_paths()["stdlib"])
MODULES = [
    "textwrap.py",
    "shlex.py",
    "heapq.py",
    "bisect.py",
    "colorsys.py",
    "getopt.py",
    "fnmatch.py",
    "glob.py",
]
MARKERS = [
    "# ... existing code ...",
    "# ...",
    "...",
    "# rest of the file unchanged",
    "# ... other functions ...",
    "# … unchanged …",
    "# keep existing code",
]
MAX_AMBIGUOUS_SHARE = 0.1  # ambiguous answers allowed per property run; wrong answers: none
EXAMPLES = 30


@dataclass(frozen=True)
class Block:
    """A def or class: 0-based line span [start, end), decorators included; its body's indent."""

    start: int
    end: int
    indent: str
    name: str


@cache
def module_lines(name: str) -> list[str]:
    return (STDLIB / name).read_text(encoding="utf-8").splitlines(keepends=True)


def block_of(node: ast.FunctionDef | ast.ClassDef, lines: list[str]) -> Block:
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
    while start > 0 and lines[start - 1].strip().startswith("#"):
        start -= 1  # a comment directly above a def documents it
    body = lines[node.body[-1].lineno - 1]
    assert node.end_lineno is not None
    end = scan = node.end_lineno
    while scan < len(lines) and (
        not lines[scan].strip() or indent(lines[scan]) > indent(lines[node.lineno - 1])
    ):
        scan += 1  # trailing comments indented into the body belong to it
        end = scan if lines[scan - 1].strip() else end
    return Block(start, end, body[: len(body) - len(body.lstrip())], node.name)


def indent(line: str) -> int:
    return len(line) - len(line.lstrip())


@cache
def functions(name: str) -> list[Block]:
    lines = module_lines(name)
    tree = ast.parse("".join(lines))
    return [block_of(n, lines) for n in tree.body if isinstance(n, ast.FunctionDef)]


@cache
def methods(name: str) -> list[tuple[Block, Block]]:
    """(class, method) pairs."""
    lines = module_lines(name)
    tree = ast.parse("".join(lines))
    return [
        (block_of(c, lines), block_of(m, lines))
        for c in tree.body
        if isinstance(c, ast.ClassDef)
        for m in c.body
        if isinstance(m, ast.FunctionDef)
    ]


def text(lines: list[str]) -> str:
    return "".join(lines)


def check(original: str, snippet: str, expected: str) -> bool:
    """True when merged exactly; False when ambiguous; fails the test on a wrong ok."""
    result = merge(original, snippet, language="python")
    if result.status == "ambiguous":
        return False
    assert result.merged is not None
    assert render_plan(result.plan, original, snippet) == result.merged
    assert result.merged == expected, "a wrong merge was returned as ok"
    return True


class Tally:
    def __init__(self) -> None:
        self.runs = 0
        self.ambiguous = 0

    def add(self, exact: bool) -> None:
        self.runs += 1
        self.ambiguous += not exact

    def assert_rarely_ambiguous(self) -> None:
        assert self.ambiguous <= MAX_AMBIGUOUS_SHARE * self.runs, f"{self.ambiguous}/{self.runs} ambiguous"


PROPERTY = settings(
    max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


@pytest.mark.parametrize("module", MODULES)
def test_merging_a_module_with_itself_is_the_identity(module: str) -> None:
    original = text(module_lines(module))
    assert check(original, original, original)


@pytest.mark.parametrize("case", load_cases(), ids=lambda case: case.name)
def test_merging_a_fixture_original_with_itself_is_the_identity(case: object) -> None:
    original = case.original  # type: ignore[attr-defined]
    result = merge(original, original, path=case.path)  # type: ignore[attr-defined]
    assert result.status == "ok" and result.merged == original


def test_a_changed_function_between_markers_merges_back() -> None:
    tally = Tally()

    @PROPERTY
    @given(st.sampled_from(MODULES), st.data())
    def changed_function(module: str, data: st.DataObject) -> None:
        lines = module_lines(module)
        block = data.draw(st.sampled_from(functions(module)))
        before, after = data.draw(st.sampled_from(MARKERS)), data.draw(st.sampled_from(MARKERS))
        edited = [*lines[block.start : block.end], f"{block.indent}_probe = {block.start}\n"]
        expected = text([*lines[: block.start], *edited, *lines[block.end :]])
        snippet = f"{before}\n\n{text(edited)}\n{after}\n"
        tally.add(check(text(lines), snippet, expected))

    changed_function()
    tally.assert_rarely_ambiguous()


def test_a_changed_method_with_markers_at_two_levels_merges_back() -> None:
    tally = Tally()

    @PROPERTY
    @given(st.sampled_from([m for m in MODULES if methods(m)]), st.data())
    def changed_method(module: str, data: st.DataObject) -> None:
        lines = module_lines(module)
        owner, method = data.draw(st.sampled_from(methods(module)))
        outer, inner = data.draw(st.sampled_from(MARKERS)), data.draw(st.sampled_from(MARKERS))
        edited = [*lines[method.start : method.end], f"{method.indent}_probe = {method.start}\n"]
        expected = text([*lines[: method.start], *edited, *lines[method.end :]])
        pad = lines[method.start][: len(lines[method.start]) - len(lines[method.start].lstrip())]
        header = lines[
            owner.start : next(k for k in range(owner.start, owner.end) if "class " in lines[k]) + 1
        ]
        snippet = f"{outer}\n{text(header)}{pad}{inner}\n\n{text(edited)}\n{pad}{inner}\n\n{outer}\n"
        tally.add(check(text(lines), snippet, expected))

    changed_method()
    tally.assert_rarely_ambiguous()


def test_an_added_function_lands_after_its_anchor() -> None:
    tally = Tally()

    @PROPERTY
    @given(st.sampled_from(MODULES), st.data())
    def added_function(module: str, data: st.DataObject) -> None:
        lines = module_lines(module)
        block = data.draw(st.sampled_from(functions(module)))
        before, after = data.draw(st.sampled_from(MARKERS)), data.draw(st.sampled_from(MARKERS))
        new = f"def _added_{block.start}(value):\n    return value\n"
        shown = text(lines[block.start : block.end])
        expected = text([*lines[: block.end], "\n\n", new, *lines[block.end :]])
        snippet = f"{before}\n\n{shown}\n\n{new}\n\n{after}\n"
        tally.add(check(text(lines), snippet, expected))

    added_function()
    tally.assert_rarely_ambiguous()


def test_a_function_deleted_between_adjacent_neighbours_merges_back_or_is_ambiguous() -> None:
    @PROPERTY
    @given(st.sampled_from([m for m in MODULES if len(functions(m)) >= 3]), st.data())
    def deleted_function(module: str, data: st.DataObject) -> None:
        lines = module_lines(module)
        blocks = functions(module)
        k = data.draw(st.integers(1, len(blocks) - 2))
        previous, following = blocks[k - 1], blocks[k + 1]
        marker = data.draw(st.sampled_from(MARKERS))
        kept_previous, kept_following = (
            lines[previous.start : previous.end],
            lines[following.start : following.end],
        )
        snippet = f"{marker}\n\n{text(kept_previous)}\n\n{text(kept_following)}\n{marker}\n"
        expected = text([*lines[: previous.end], "\n\n", *lines[following.start :]])
        check(text(lines), snippet, expected)

    deleted_function()


LINE_PIECES = [
    "def f():",
    "    return 1",
    "}",
    "{",
    "  x = 1;",
    "# ...",
    "// ...",
    "",
    "\t\tif (a) {",
    "...",
    "]",
    "- a: 1",
]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.lists(st.sampled_from(LINE_PIECES), max_size=12),
    st.lists(st.sampled_from(LINE_PIECES), max_size=8),
    st.sampled_from(["python", "javascript", "yaml", "markdown", "text"]),
    st.sampled_from(["\n", "\r\n"]),
)
def test_any_input_merges_or_is_ambiguous_and_ok_plans_render(
    original_lines: list[str], snippet_lines: list[str], language: str, eol: str
) -> None:
    original, snippet = eol.join(original_lines), "\n".join(snippet_lines)
    result = merge(original, snippet, language=language)
    assert (result.status == "ok") == (result.merged is not None)
    if result.merged is not None:
        assert render_plan(result.plan, original, snippet) == result.merged
        assert ("\r\n" in result.merged) <= ("\r\n" in original or original == "")
