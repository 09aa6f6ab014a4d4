"""Structural merge: original + lazy snippet -> merged file, or "ambiguous" with reasons.

    merge(original, snippet, language, path) -> MergeResult

Steps: split both inputs into lines (CRLF, BOM and the final newline are remembered), find the
snippet's markers, outline both by indentation, align the outlines into a line plan
(apply_engine.align), render the plan as spans over the raw inputs, then check the result: no
marker text in it and no parse errors the original did not have. Never a wrong "ok": when any
step is unsure the result is "ambiguous".
"""

import ast
import re
import threading
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from itertools import accumulate, chain, islice, pairwise, takewhile
from operator import add

from apply_engine.align import (
    BARE_CALL,
    DECLARED_NAME,
    IMPORT_LINE,
    IMPORT_WORDS,
    NAME,
    OPENS_BLOCK,
    Aligner,
    Copy,
    Insert,
    Op,
    Side,
    descent,
    has_marker,
    letters,
    lineage,
    nonblank_from,
    whole_word,
)
from apply_engine.hunks import ASSIGNED, MIN_TELLING, plan_hunks, renamed
from apply_engine.indent import (
    DEFAULT_UNIT,
    Reindent,
    column,
    columns,
    indent_unit,
    leading,
    mixed_indentation,
    steps_by_one_space,
)
from apply_engine.keys import normalize, signature_key
from apply_engine.languages import (
    GRAMMARS,
    detect_language,
    has_block_comments,
    has_parse_errors,
    line_comment_prefixes,
    marker_comments,
)
from apply_engine.markers import (
    INLINE_MARKER,
    elided_body,
    has_inline_marker,
    is_marker,
    is_move_note,
    is_path_comment,
    is_removal,
    is_template_marker,
)
from apply_engine.schemas import CopySpan, InsertSpan, MergeResult, Reason, Span, TextSpan, render_plan
from apply_engine.structural_outline import (
    ACCESS_LABEL,
    ATTRIBUTE,
    CONTINUATION,
    CONTINUED,
    INI_SECTION,
    MARKDOWN_HEADING,
    PURE_CLOSER,
    Item,
    case_columns,
    comment_columns,
    directive_columns,
    label_columns,
    markdown_columns,
    outline,
    statement_columns,
    string_columns,
    table_columns,
)

BOM = "\ufeff"
FENCE_OPEN = re.compile(r"^\s*(`{3,})([\w+-]*)[^`]*$")  # ```python, ```ts:src/app.ts, ```tsx title="App.tsx"
BRACKETS = {"}": "{", ")": "(", "]": "["}
MARKDOWN_TAGS = frozenset({"markdown", "md"})
# markers at column 0 between indented lines that show a Go snippet's habit (see flush_markers)
FLUSH_HABIT = 2
MIN_UNCOMMENTED = 4  # shorter lines (`end`, `});`) say nothing when they appear commented out too
MAX_PROSE_LINES = 3  # "Here is the updated function:" above a fence, "Done." below it
REWRITE_SHARE = 0.5  # a marker-less snippet this large relative to the original may rewrite all of it
PREAMBLE = re.compile(r"(package|import|@file:)\b")
QUOTED = re.compile(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'")
PREAMBLE_FIRST = frozenset({"kotlin"})  # grammars that want PREAMBLE lines before other code
CHANGED_SHARE = 0.5  # changed parts larger than this share of the merged file: parse it whole
# grammars whose files are sequences of top-level constructs, each of which parses on its own
# (PHP: with `<?php` put back in front; not markup other than Markdown, data, or shell with its
# heredocs)
PARTS_PARSE_ALONE = frozenset(
    {"python", "javascript", "typescript", "tsx", "go", "rust", "java", "c", "cpp", "csharp", "kotlin"}
    | {"swift", "css", "php", "markdown"}
)
PHP_OPEN = "<?php"
# a line that starts with a string (`$"""`, `r"""`, a template's backtick)
STRING_FIRST = re.compile(r"\s*(?:[$@]+|[rRbBfFuU]{1,2})?[\"'`]")
VALUE_FIRST = re.compile(r"[\d\"'-]")  # a number or a string starts so
MIN_RENAMED_USES = 2  # more new lines a renamed name is written on: the rename is threaded
MIN_ANCHOR_LETTERS = 8  # a line with fewer letters and digits (`});`, `end`, `return x`) anchors nothing
MARKUP = frozenset({"html", "xml", "vue", "svelte"})
MAX_SHOWN_HEAD = 3  # lines of an elided item's head that may stand right above the marker keeping it
TWICE_LETTERS = 48  # letters and digits such a run must hold when its first line is short (`keys = {`)
TWICE_RUN = 3  # lines of new code that, as the original has them below a line it has once, are that code
CLOSERS_AHEAD = 3  # lines copied right below a closer shown after a marker, where its original may stand
SQL_END = re.compile(r"(?i)end\b|\$\w*\$;?$")  # `END;`, `END IF;`, `END LOOP;`, a function body's `$$;`
# an id declared in markup: not `data-id=`, a Vue binding (`:id=`) or one made by a template (`{{ }}`)
ELEMENT_ID = re.compile(r"(?<![\w:-])(?:android:)?id=\"(?:@\+id/)?([^\"{}]+)\"")
# CommonJS: the object that replaces a module's exports, and one export assigned by name
EXPORTS_OBJECT = re.compile(r"^\s*module\.exports\s*=\s*\{([^}]*)\}", re.M)
# a call of a method on its own object, by language: Python's `self.f(`, JavaScript's `this.f(`, and
# in Java, C#, Kotlin, C++ and PHP also `f(` alone (`{}`: the method's name)
OWN_CALLS = {
    "python": r"\b(?:self|cls)\.{}\(",
    **dict.fromkeys(("javascript", "typescript", "tsx"), r"\bthis\.{}\("),
    # (alone: where an expression starts, not after a type, `Task<User> Name(`, as a declaration's name is)
    **dict.fromkeys(
        ("java", "csharp", "kotlin", "cpp"),
        r"(?:\bthis\.|(?:^\s*|[(\[{{,=!&|?:+\-*/]\s*|\b(?:return|await|throw|yield|case)\s+)){}\s*\(",
    ),
    "php": r"(?:\$this->|\bself::|\bstatic::){}\(",
}
EXPORTS_NAME = re.compile(r"^\s*(?:module\.)?exports\.([\w$]+)\s*=", re.M)
FILE_HEADS = {  # the line a file of the language opens with, below its comments only
    "go": re.compile(r"package\s+\w+\s*$"),
    "java": re.compile(r"package\s+[\w.]+\s*;"),
    "kotlin": re.compile(r"(?:package\s+[\w.`]+|@file:)"),
    "scala": re.compile(r"package\s+[\w.]+"),
    "groovy": re.compile(r"package\s+[\w.]+"),
    "php": re.compile(r"<\?php\b"),
}


@dataclass(frozen=True)
class Source:
    """A text as lines without line endings; offsets[i] is where line i starts in `raw`."""

    raw: str
    lines: list[str]
    offsets: list[int]
    bom: bool
    eol: str
    final_newline: bool

    @classmethod
    def read(cls, raw: str) -> "Source":
        bom = raw.startswith(BOM)
        body = raw[1:] if bom else raw
        final_newline = body.endswith("\n")
        pieces = body.split("\n")
        if final_newline:
            pieces.pop()
        # offsets[i] = bom + len(pieces[0]) + ... + len(pieces[i-1]) + i (one "\n" after each piece)
        offsets = list(map(add, accumulate(map(len, pieces), initial=int(bom)), range(len(pieces) + 1)))
        offsets[-1] = min(offsets[-1], len(raw))  # the last line may lack its "\n"
        lines = [piece.removesuffix("\r") for piece in pieces] if "\r" in body else pieces
        eol = "\r\n" if pieces and pieces[0].endswith("\r") and (final_newline or len(pieces) > 1) else "\n"
        return cls(raw, lines, offsets, bom, eol, final_newline)

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + ("\n" if self.final_newline else "")

    @cached_property
    def stripped(self) -> frozenset[str]:
        """Its lines, each less the whitespace around it (built on first use)."""
        return frozenset(line.strip() for line in self.lines)

    @cached_property
    def trimmed(self) -> dict[str, list[int]]:
        """Where each line stands, by its text less trailing whitespace (built on first use)."""
        places: dict[str, list[int]] = {}
        for k, line in enumerate(self.lines):
            places.setdefault(line.rstrip(), []).append(k)
        return places

    @cached_property
    def trailing_whitespace(self) -> bool:
        """Whether any of its lines ends in spaces or tabs (built on first use)."""
        return any(line.endswith((" ", "\t")) for line in self.lines)


def ambiguous(language: str, code: str, message: str) -> MergeResult:
    return MergeResult(merged=None, status="ambiguous", language=language, reasons=[Reason(code, message)])


def merge(original: str, snippet: str, language: str | None = None, path: str | None = None) -> MergeResult:
    """The merged file, or "ambiguous" with reasons. InputError only for an unknown `language`."""
    language = detect_language(original, language=language, path=path)
    try:
        return merge_as(language, original, snippet)
    except RecursionError:
        return ambiguous(language, "too_deep", "the snippet or original nests too deeply to align")


def merge_as(language: str, original: str, snippet: str) -> MergeResult:
    edit = Source.read(snippet)
    analysis = analyse(original, language)
    source = analysis.source
    edit = without_fence(edit, source, language)
    if not "".join(edit.lines).strip():
        return ambiguous(language, "empty_snippet", "the snippet is empty")
    edit = without_path_comment(edit, source, language)
    edit = inline_markers_apart(edit, source, language)
    markers = find_markers(edit.lines, source.lines, language, source.raw, analysis.columns)
    if not source.lines or not "".join(source.lines).strip():
        if markers:
            return ambiguous(language, "marker_without_neighbours", "markers but the original is empty")
        return finish(language, analysis, edit, [Insert(0, len(edit.lines), identity())], markers)
    resumed = resumed_strings(edit.lines, markers, analysis)
    heads = string_heads(edit.lines, resumed, analysis, markers)
    if heads:
        whole = StringHeads(heads, edit.lines, source.lines)
        ops, _ = plan_lines(analysis, whole.edit, whole.markers(markers), language)
        ops = ops and whole.unfilled(ops)
        if ops:
            return finish(language, analysis, edit, ops, markers)
    ops, reasons = plan_lines(analysis, edit, markers, language, resumed)
    result = (
        MergeResult(merged=None, status="ambiguous", language=language, reasons=reasons)
        if ops is None
        else finish(language, analysis, edit, ops, markers)
    )
    if result.status == "ok":
        return result
    if (unflat := indented_blocks(edit, analysis)) is not None:
        ops, _ = plan_lines(analysis, unflat, markers, language, resumed)
        retried = ops and finish(language, analysis, unflat, ops, markers)
        if retried and retried.status == "ok":
            return retried
    # last, the hunk reader, to which a template's own comments are markers too (`{# ... #}`); the
    # alignment read them as code, so even one run of code between them is the hunk reader's to place
    hunk_markers = markers | {k for k, line in enumerate(edit.lines) if templated(line, source)}
    ops = plan_hunks(source.lines, edit.lines, hunk_markers, one_run=hunk_markers != markers)
    as_hunks = ops and finish(language, analysis, edit, ops, hunk_markers)
    return as_hunks if as_hunks and as_hunks.status == "ok" else result


def templated(line: str, source: Source) -> bool:
    """Whether the line is a template's own comment standing for elided code (`{# ... #}`), not
    one the original has as it stands."""
    return is_template_marker(line) and line.rstrip() not in source.trimmed


def indented_blocks(edit: Source, analysis: "Analysis") -> Source | None:
    """The snippet with each flat block body indented one unit: a header that ends in `{` over lines
    at its own column (a class's methods pasted at column 0 under `public class X {`), when the
    original has the header with its body deeper. None when the snippet has no such block."""
    lines, unit, changed = list(edit.lines), analysis.unit or DEFAULT_UNIT, False
    headers = {
        line.strip()
        for k, line in enumerate(analysis.source.lines)
        if line.rstrip().endswith("{") and body_is_deeper(analysis.columns, k)
    }
    k = 0
    while k < len(lines):
        if lines[k].rstrip().endswith("{") and lines[k].strip() in headers:
            closer = matching_closer(lines, k)
            body = [j for j in range(k + 1, closer or 0) if lines[j].strip()]
            if (
                body
                and column(lines[body[0]]) == column(lines[k])
                and not lines[body[0]].lstrip().startswith("}")
            ):
                for j in body:
                    lines[j] = unit + lines[j]
                changed, k = True, closer
        k += 1
    return replace(edit, lines=lines) if changed else None


def body_is_deeper(columns: list[int], k: int) -> bool:
    below = next((c for c in islice(columns, k + 1, None) if c >= 0), -1)
    return below > columns[k] >= 0


def matching_closer(lines: list[str], opener: int) -> int | None:
    """The line whose closing brace closes the `{` that ends line `opener` (strings left out)."""
    depth = 0
    for j in range(opener, len(lines)):
        text = QUOTED.sub("", lines[j])
        depth += text.count("{") - text.count("}")
        if depth <= 0:
            return j if j > opener else None
    return None


def nonblank(lines: list[str]) -> int:
    return sum(1 for line in lines if line.strip())


def inline_markers_apart(edit: Source, original: Source, language: str) -> Source:
    """A marker comment after code on its line (`params.push(limit); // ... (unchanged)`) stands on
    a line of its own below that code, one unit deeper where the code opens a block (`function (c)
    { // ... cell padding unchanged`); not on a line the original has. The new lines keep the
    snippet's offsets, so the code is still inserted from it."""
    comments, block = marker_comments(language)
    known = original.trimmed
    lines: list[str] = []
    offsets: list[int] = []
    unit = None
    for k, line in enumerate(edit.lines):
        found = INLINE_MARKER.search(line)
        code = line[: found.start()].rstrip() if found else ""
        comment = line[found.start() :].strip() if found else ""
        if (
            code.strip() in ("", "pass", "...", "…")  # (`pass  # unchanged` stands for a body)
            or line.rstrip() in known
            or is_marker(line, comments, block)  # (`<# ... #>`)
            or not comment.startswith((*comments, *(("/*", "<!--") if block else ())))
            or not is_marker(comment, comments, block)
        ):
            lines.append(line)
            offsets.append(edit.offsets[k])
            continue
        if unit is None:
            unit = indent_unit(edit.lines) or DEFAULT_UNIT
        deeper = unit if code.endswith(("{", "(", "[", ":")) else ""
        lines += [code, leading(line) + deeper + comment]
        offsets += [edit.offsets[k], edit.offsets[k] + len(code)]
    if len(lines) == len(edit.lines):
        return edit
    return replace(edit, lines=lines, offsets=[*offsets, edit.offsets[-1]])


def without_path_comment(edit: Source, original: Source, language: str) -> Source:
    """A first line that only names the file (`// src/app.ts`, `# File: app.py`; in PHP the line
    after `<?php`) is read as blank, unless the original has it."""
    shown = (k for k, line in enumerate(edit.lines) if line.strip())
    first = next(shown, None)
    if first is not None and language == "php" and edit.lines[first].strip() == "<?php":
        first = next(shown, None)
    if first is None:
        return edit
    line = edit.lines[first]
    comments, block = line_comment_prefixes(language), has_block_comments(language)
    if not is_path_comment(line, comments, block) or line.strip() in {
        old.strip() for old in original.lines[:50]
    }:
        return edit
    lines = list(edit.lines)
    lines[first] = ""
    return replace(edit, lines=lines)


def without_fence(edit: Source, original: Source, language: str) -> Source:
    """A snippet wrapped in a Markdown code fence (as chat answers are) is read without it, and
    without the few lines of prose around the fence that the original does not have. In Markdown
    only a fence tagged `markdown` or `md` is a wrapper; others are the file's own."""
    shown = [k for k, line in enumerate(edit.lines) if line.strip()]
    if len(shown) < 3:
        return edit
    opening = FENCE_OPEN.match(edit.lines[shown[0]])
    fences = [shown[0], shown[-1]]  # the whole snippet fenced, fences inside it or not
    if opening is None or edit.lines[shown[-1]].strip() != opening.group(1):
        fences = [k for k in shown if edit.lines[k].lstrip().startswith("```")]
        opening = FENCE_OPEN.match(edit.lines[fences[0]]) if len(fences) == 2 else None
        if opening is None or edit.lines[fences[1]].strip() != opening.group(1):
            return edit
    if language == "markdown" and opening.group(2).lower() not in MARKDOWN_TAGS:
        return edit
    outside = [k for k in shown if k < fences[0] or k > fences[1]]
    known = {line.strip() for line in original.lines}
    if len(outside) > MAX_PROSE_LINES or any(edit.lines[k].strip() in known for k in outside):
        return edit
    lines = list(edit.lines)
    for k in (*fences, *outside):
        lines[k] = ""
    return replace(edit, lines=lines)


def identity() -> Reindent:
    return Reindent("", "", DEFAULT_UNIT, DEFAULT_UNIT)


EMBEDDED_COMMENTS = ("#", "//", "--", ";", "%")  # SQL, shell, Lisp, TeX... in another file's strings


def find_markers(
    snippet_lines: list[str],
    original_lines: list[str],
    language: str,
    original_text: str,
    original_columns: list[int],
) -> set[int]:
    """Snippet lines that stand for elided code. A marker-shaped line is content when the original
    (`original_lines`, joined in `original_text`, with their columns_of()) has it at that place:
    next to the same neighbouring line as in the snippet; or inside a multi-line string, as in the
    snippet (`# ... one line per row ...` in a docstring's example, its neighbours edited)."""
    comments, block = marker_comments(language)
    candidates = {k for k, line in enumerate(snippet_lines) if is_marker(line, comments, block)}
    if not candidates:
        return candidates
    wanted = {snippet_lines[k].strip() for k in candidates}
    places: dict[str, list[int]] = {}
    if any(line in original_text for line in wanted):
        for j, line in enumerate(original_lines):
            if line.strip() in wanted:
                places.setdefault(line.strip(), []).append(j)
    markers = {
        k
        for k in candidates
        if not stands_there(k, snippet_lines, places.get(snippet_lines[k].strip(), []), original_lines)
    }
    in_text = [
        k
        for k in markers
        if any(original_columns[j] == CONTINUED for j in places.get(snippet_lines[k].strip(), []))
    ]
    if in_text:
        snippet_columns = columns_of(snippet_lines, language, "\n".join(snippet_lines))
        markers -= {k for k in in_text if snippet_columns[k] == CONTINUED}
    return markers


def stands_there(k: int, snippet_lines: list[str], places: list[int], original_lines: list[str]) -> bool:
    """Whether snippet line k sits in the original at one of `places`, with the same neighbour."""
    before, after = neighbours(snippet_lines, k)
    for j in places:
        o_before, o_after = neighbours(original_lines, j)
        if (before is not None and before == o_before) or (after is not None and after == o_after):
            return True
    return False


def neighbours(lines: list[str], k: int) -> tuple[str | None, str | None]:
    """The nearest non-blank lines above and below line k, stripped."""
    above = next((lines[i].strip() for i in range(k - 1, -1, -1) if lines[i].strip()), None)
    below = next((lines[i].strip() for i in range(k + 1, len(lines)) if lines[i].strip()), None)
    return above, below


def find_removals(
    snippet_lines: list[str], original_lines: list[str], language: str, markers: set[int]
) -> frozenset[int]:
    """Comments saying the code that stood there is deleted or moved. One directly above code
    describes that code instead (unless it says that code moved here: it names what must go), and
    one the original has is content."""
    comments, block = line_comment_prefixes(language), has_block_comments(language)
    found = set()
    for k, line in enumerate(snippet_lines):
        if k in markers or not is_removal(line, comments, block):
            continue
        below = snippet_lines[k + 1] if k + 1 < len(snippet_lines) else ""
        above_code = below.strip() and column(below) >= column(line) and k + 1 not in markers
        if above_code and not is_move_note(line, comments, block):
            continue
        found.add(k)
    present = {line.strip() for line in original_lines} if found else set()
    return frozenset(k for k in found if snippet_lines[k].strip() not in present)


def columns_of(
    lines: list[str], language: str, text: str | None = None, resumed: Sequence[int] = ()
) -> list[int]:
    """Each line's (virtual) indentation column; `text` holds all the lines; `resumed`: lines
    that resume a multi-line string (see string_columns)."""
    found = string_columns(lines, columns(lines, text), language, resumed)
    if text is None or "switch" in text or "select" in text:
        found = case_columns(lines, found)
    if language == "markdown":
        return markdown_columns(lines, found)
    if language == "toml":
        return table_columns(lines, found)
    if language in ("c", "cpp", "csharp"):
        found = directive_columns(lines, found)
    if language == "sql":
        return statement_columns(lines, found)
    if language == "cpp":
        return label_columns(lines, found)
    return table_columns(lines, found, INI_SECTION) if language == "text" else found


def resumed_strings(lines: list[str], markers: set[int], original: "Analysis") -> list[int]:
    """Snippet lines that resume a multi-line string of the original, its opening elided by a
    marker: the first line shown after a marker (or first of all) that the original has inside its
    strings only (` ORDER BY id`, the line closing a Kotlin raw string; not a bare triple quote,
    which opens strings too)."""
    side = original.side
    if not side.strings:
        return []
    shown = [k for k, line in enumerate(lines) if line.strip()]
    firsts = [k for n, k in enumerate(shown) if k not in markers and (n == 0 or shown[n - 1] in markers)]
    places = {k: side.where(normalize(lines[k])) for k in firsts}  # the Side's cached index, no new one
    return [k for k in firsts if places[k] and all(j in side.strings for j in places[k])]


def string_heads(
    lines: list[str], resumed: list[int], original: "Analysis", markers: set[int]
) -> dict[int, tuple[int, int]]:
    """The snippet lines of `resumed` (see resumed_strings) that resume a multi-line string of the
    original at one place, word for word: {k: (start, end)}, original lines [start, end) being the
    line that opens the string's statement and the lines of it the snippet elides (StringHeads).
    A statement's first line the snippet shows above the marker (`class TracebackException:`, then
    `# ... docstring unchanged ...`) is not put back: the head starts where the string opens."""
    heads = {}
    for k in resumed:
        places = original.side.where(normalize(lines[k]))
        if len(places) == 1 and original.source.lines[places[0]] == lines[k]:
            opener = original.side.string_opener(places[0])
            if opener is not None and opener < places[0]:
                start = statement_start(original.source.lines, opener)
                above = next((j for j in range(k - 1, -1, -1) if lines[j].strip() and j not in markers), None)
                if above is not None and normalize(lines[above]) == normalize(original.source.lines[start]):
                    start = opener
                heads[k] = (start, places[0])
    return heads


def statement_start(lines: list[str], opener: int) -> int:
    """The line that starts the statement whose string opens on line `opener`: that line, unless
    the string stands first on it (`$\"\"\"` below `Header() =>`, `\"\"\"` below `query = (`, a
    docstring below its `def`): then the nearest line above less indented."""
    if not STRING_FIRST.match(lines[opener]):
        return opener
    depth = column(lines[opener])
    return next((k for k in range(opener - 1, -1, -1) if 0 <= column(lines[k]) < depth), opener)


class StringHeads:
    """The snippet with the elided heads of the strings it resumes put back (`string_heads`), so
    that it reads as a whole statement: `val FAILED = \"\"\"` and the lines down to the shown
    `// see runbook` line, above it, then `\"\"\".trimIndent()` closing the string."""

    def __init__(self, heads: dict[int, tuple[int, int]], lines: list[str], original: list[str]) -> None:
        self.filled: list[int | tuple[int]] = []  # a snippet line k, or (j,): original line j
        for k in range(len(lines)):
            start, end = heads.get(k, (0, 0))
            self.filled += [(j,) for j in range(start, end)]
            self.filled.append(k)
        text = [original[at[0]] if isinstance(at, tuple) else lines[at] for at in self.filled]
        self.edit = Source.read("\n".join(text) + "\n")

    def markers(self, markers: set[int]) -> set[int]:
        return {n for n, at in enumerate(self.filled) if at in markers}

    def unfilled(self, ops: list[Op]) -> list[Op] | None:
        """The plan over the filled snippet as a plan over the snippet given: a put-back line
        written as is is the original's line copied; re-indented, there is no such plan (None)."""
        found: list[Op] = []
        for op in ops:
            if isinstance(op, Copy):
                found.append(op)
                continue
            for n in range(op.start, op.end):
                at, last = self.filled[n], found[-1] if found else None
                if isinstance(at, tuple):
                    if op.reindent.apply(self.edit.lines[n]) != self.edit.lines[n]:
                        return None
                    if isinstance(last, Copy) and not last.indent and last.end == at[0]:
                        found[-1] = Copy(last.start, at[0] + 1)
                    else:
                        found.append(Copy(at[0], at[0] + 1))
                elif isinstance(last, Insert) and last.end == at and last.reindent is op.reindent:
                    found[-1] = Insert(last.start, at + 1, op.reindent)
                else:
                    found.append(Insert(at, at + 1, op.reindent))
        return found


def in_strings(columns: list[int]) -> frozenset[int]:
    """The lines that columns_of() found inside multi-line strings."""
    return frozenset(k for k, at in enumerate(columns) if at == CONTINUED)


def marker_columns(
    lines: list[str], columns: list[int], markers: set[int], step: int, language: str
) -> list[int]:
    """Markers written less indented than the block they stand in (`// ... existing code ...` at
    column 0 inside a class): one right below a block's first line, above deeper code, stands in
    that block (one `step` deeper, or as deep as that code); one right above a block's closing
    bracket, below deeper code, is as deep as the block's first line inside. In Go, where a snippet
    writes all its markers flush left, each stands as deep as the code above it (in the block that
    code opens): measured, other languages' snippets lose more merges by that than they gain."""
    found = list(columns)
    code = [k for k, at in enumerate(columns) if at >= 0 and k not in markers]
    flush = language == "go" and flush_markers(code, columns, markers)
    for k in sorted(markers):
        n = bisect_right(code, k)
        if flush and n > 0:  # the marker stands as deep as the code above it, or in the block it opens
            above = code[n - 1]
            found[k] = columns[above] + (step if OPENS_BLOCK.search(lines[above]) else 0)
            continue
        if n == 0 or n == len(code):
            continue
        above, below = code[n - 1], code[n]
        closer = lines[below].strip()
        # (a marker shown deeper between says this one, less deep, ends the block)
        deeper_marker = any(columns[m] > columns[k] for m in markers if above < m < k)
        if (
            OPENS_BLOCK.search(lines[above])
            and columns[k] <= columns[above] < columns[below]
            and not deeper_marker
        ):
            found[k] = min(columns[below], columns[above] + step)
        elif (
            PURE_CLOSER.match(closer)
            and closer[0] in BRACKETS
            and columns[k] <= columns[below] < columns[above]
        ):
            # the line that opens the block: the last one above no deeper than the closer
            inside = next(m for m in range(n - 1, -1, -1) if m == 0 or columns[code[m - 1]] <= columns[below])
            opener = code[inside - 1] if inside > 0 else None
            if (
                opener is not None
                and columns[opener] == columns[below]
                and lines[opener].rstrip().endswith(BRACKETS[closer[0]])
            ):
                found[k] = columns[code[inside]]
    return found


def flush_markers(code: list[int], columns: list[int], markers: set[int]) -> bool:
    """Whether the snippet writes every marker at column 0, two at least between indented lines
    (`\t\treturn true`, `// ... existing code ...`, `\tcase "failed":`): its markers' columns
    then say nothing of their depth."""
    if not markers or any(columns[k] != 0 for k in markers):
        return False
    between = 0
    for k in markers:
        n = bisect_right(code, k)
        between += 0 < n < len(code) and columns[code[n - 1]] > 0 and columns[code[n]] > 0
    return between >= FLUSH_HABIT


def plan_lines(
    original: "Analysis", edit: Source, markers: set[int], language: str, resumed: list[int] | None = None
) -> tuple[list[Op] | None, list[Reason]]:
    """1. outline both sides; 2. align at the top level, or 3. inside the one container that holds
    the snippet's anchors (a method given without its class). A snippet indented deeper than the
    original's top level tries 3 first. `resumed`: resumed_strings(), when known already."""
    source, o_columns, o_tree = original.source, original.columns, original.tree
    if resumed is None:
        resumed = resumed_strings(edit.lines, markers, original)
    s_columns = columns_of(edit.lines, language, edit.raw, resumed)
    s_strings = in_strings(s_columns)
    snippet_unit = (
        indent_unit(edit.lines, edit.raw, s_strings, original.unit) or original.unit or DEFAULT_UNIT
    )
    if language != "markdown":
        s_columns = marker_columns(edit.lines, s_columns, markers, column(f"{snippet_unit}x"), language)
    s_tree = outline(
        edit.lines, s_columns, markers, find_removals(edit.lines, source.lines, language, markers), language
    )
    first = s_tree[0] if s_tree else None
    if first is not None and not first.marker and first.lead < first.start:
        s_tree[0] = first.under(first.start, first.start)  # blank lines opening a snippet say nothing
    original_unit = original.unit or snippet_unit
    if language in ("text", "markdown") and original_unit != "\t":
        # a Dockerfile's continuation lines, a Markdown list item's: as shown; a Makefile's tabs stay
        original_unit = snippet_unit
    if language == "json" and steps_by_one_space(source.lines):
        snippet_unit = original_unit = " "  # JSON written one space a level: as shown
    elif snippet_unit == "\t" and original_unit != "\t" and mixed_indentation(source.lines):
        snippet_unit = original_unit  # tabs and spaces as in the original (Emacs's style): as shown
    units = (snippet_unit, original_unit)
    rewrite = not markers and nonblank(edit.lines) >= REWRITE_SHARE * nonblank(source.lines)
    # (no whole file ends inside a block the original closes: a snippet cut off there)
    cut = bool(s_tree and o_tree) and s_tree[-1].nested and not s_tree[-1].closer and o_tree[-1].closer
    rewrite = rewrite and not cut
    aligner = Aligner(
        original.side,
        Side(edit.lines, markers=frozenset(markers), language=language, strings=s_strings),
        units,
        rewrite,
        prose=language == "markdown",
    )
    attempts = [at_top, inside_container]
    shown = [k for k, item in enumerate(s_tree) if not item.marker]
    if shown and s_columns[s_tree[shown[0]].header] > max(o_columns[item.header] for item in o_tree):
        attempts = [fragment_then_top, tail_then_code, inside_containers, at_top]
        if language == "markdown":
            attempts.insert(0, section_then_siblings)
    # runs of code between markers less indented than they: found in several blocks, each may be
    # in its own
    apart = bool(shown) and any(item.marker for item in s_tree[shown[0] : shown[-1]])
    deferred: list[Reason] = []
    for attempt in attempts:
        aligner.open_gaps = []
        ops = attempt(o_tree, s_tree, aligner, len(source.lines))
        if ops is not None:
            ops = aligner.moved(ops)
        if ops is not None and aligner.loses_last_use(ops):
            ops = None
        if ops is not None:
            return ops, []
        codes = {reason.code for reason in aligner.reasons}
        if codes and (
            attempt in (fragment_then_top, section_then_siblings)
            or (attempt is inside_containers and apart and codes == {"several_candidates"})
        ):
            # a tail that steps out through the closers may read it (`} catch {`, `});`, a route),
            # and runs apart may each be in their own block, aligned from the top
            deferred, aligner.reasons, aligner.crossed = aligner.reasons, [], []
        elif aligner.reasons or deferred:
            return None, deferred or aligner.reasons
    return None, [no_anchor_reason(s_tree)]


@dataclass(frozen=True)
class Analysis:
    """What the merge needs from an original; cached, since servers merge into the same file often."""

    source: Source
    columns: list[int]
    tree: list[Item]  # children are outlined on demand
    unit: str | None
    side: Side


@lru_cache(maxsize=32)
def analyse(raw: str, language: str) -> Analysis:
    source = Source.read(raw)
    # (the original's comments only: a snippet's comment lines are mostly markers, placed as written)
    columns = comment_columns(
        source.lines, columns_of(source.lines, language, source.raw), line_comment_prefixes(language)
    )
    tree = outline(source.lines, columns, set(), language=language)
    strings = in_strings(columns)
    side = Side(source.lines, language=language, strings=strings)
    return Analysis(source, columns, tree, indent_unit(source.lines, source.raw, strings), side)


def at_top(o_tree: list[Item], s_tree: list[Item], aligner: Aligner, size: int) -> list[Op] | None:
    ops = aligner.level(o_tree, s_tree, identity(), top=True, open_end=True)
    return None if ops is None else [*ops, Copy(o_tree[-1].end, size)]


def inside_container(o_tree: list[Item], s_tree: list[Item], aligner: Aligner, size: int) -> list[Op] | None:
    inner = without_outer_closers(s_tree, aligner.snippet.lines)
    code = [item for item in inner if not item.marker]
    depths = [column(aligner.snippet.lines[item.header]) for item in code]
    outer = [item for item, depth in zip(code, depths, strict=True) if depth == depths[0]]
    container = None
    if len(outer) < len(code) and min(depths) == depths[0]:
        # first the block holding the least indented code, not the block of a fragment below it
        reasons = len(aligner.reasons)
        container = aligner.container(o_tree, outer)
        del aligner.reasons[reasons:]
        if container is None:
            return None  # (the block of the deeper code would take the less indented code in too)
    container = container or aligner.container(o_tree, s_tree)
    if container is None or (depths and min(depths) < depths[0]):
        return None  # (code less indented than the snippet's first is outside the container)
    closers = [item for item in s_tree[len(inner) :] if not item.marker]
    if closers and s_tree[-1].marker and (len(closers) > 1 or not ends_container(code, container, aligner)):
        return None  # a closer, then a marker outside: shown to its end, so shown up to its last item
    aligner.rewrite = False
    # below a marker, down to the container's closer: its tail is shown, not elided
    shown_to_end = len(inner) < len(s_tree) and inner[0].marker
    ops = aligner.level(
        container.children, inner, identity(), top=not shown_to_end, open_end=not shown_to_end
    )
    if ops is None:
        return None
    head, tail = Copy(0, container.children[0].lead), Copy(container.children[-1].end, size)
    return [head, *ops, tail]


def inside_containers(o_tree: list[Item], s_tree: list[Item], aligner: Aligner, size: int) -> list[Op] | None:
    """inside_container(); where no one block holds the snippet, in_containers() (the first's
    reasons stand when both fail)."""
    ops = inside_container(o_tree, s_tree, aligner, size)
    if ops is not None or not aligner.reasons:
        return ops
    reasons, crossed = aligner.reasons, aligner.crossed
    aligner.reasons, aligner.crossed = [], []
    ops = in_containers(o_tree, s_tree, aligner, size)
    if ops is None:
        aligner.reasons, aligner.crossed = reasons, crossed
    return ops


def in_containers(o_tree: list[Item], s_tree: list[Item], aligner: Aligner, size: int) -> list[Op] | None:
    """Runs of code between markers that each stand in their own block, neither block's header
    shown (a constant added to one class, then a method using it to the next): each run aligned
    inside the one block that holds it, the blocks apart and in file order. The snippet's ends
    need no marker: the file's head and tail are left out there (`<style>` for the head's, a
    marker, `<script>` for the body's)."""
    lines = aligner.snippet.lines
    shown = [item for item in s_tree if not item.marker]
    if len({column(lines[i.header]) for i in shown}) != 1:
        return None
    # (an end without a marker stands as one just beyond it)
    bounds = [k for k, item in enumerate(s_tree) if item.marker]
    bounds = [*([] if s_tree[0].marker else [-1]), *bounds, *([] if s_tree[-1].marker else [len(s_tree)])]
    groups: list[tuple[Item, int, int]] = []  # (block, first, last marker around its runs)
    for lo, hi in pairwise(bounds):
        if hi == lo + 1:
            continue
        reasons = len(aligner.reasons)
        block = aligner.container(o_tree, s_tree[lo + 1 : hi])
        del aligner.reasons[reasons:]
        if block is None:
            return None
        if groups and groups[-1][0] is block:
            groups[-1] = (block, groups[-1][1], hi)
        else:
            groups.append((block, lo, hi))
    blocks = [block for block, _, _ in groups]
    if len(blocks) < 2 or any(a.children[-1].end > b.children[0].lead for a, b in pairwise(blocks)):
        return None
    aligner.rewrite = False
    ops: list[Op] = []
    kept = 0  # original lines before here are planned
    for block, lo, hi in groups:
        inner = aligner.level(
            block.children, s_tree[max(lo, 0) : hi + 1], identity(), top=True, open_end=True
        )
        if inner is None:
            return None
        ops += [Copy(kept, block.children[0].lead), *inner]
        kept = block.children[-1].end
    return [*ops, Copy(kept, size)]


def fragment_then_top(o_tree: list[Item], s_tree: list[Item], aligner: Aligner, size: int) -> list[Op] | None:
    """`members of a class, its closing brace, then top-level code`: the members are aligned inside
    the one top-level item that holds them, the rest after it."""
    lines = aligner.snippet.lines
    shown = [k for k, item in enumerate(s_tree) if not item.marker]
    # (C++'s `private:` at column 0 stands among the members: see `label_columns`)
    top = [
        k
        for k in shown
        if column(lines[s_tree[k].header]) <= 0 and not ACCESS_LABEL.match(lines[s_tree[k].header])
    ]
    if not top or top[0] == shown[0]:
        return None
    # the members end at a closer, or, where no closer is shown, at a marker as shallow as the top
    # level (a YAML service shown, then `# ...`, then `volumes:`): code after it is top-level
    closed = PURE_CLOSER.match(lines[s_tree[top[0]].header].strip())
    if not (closed or (s_tree[top[0] - 1].marker and column(lines[s_tree[top[0] - 1].header]) <= 0)):
        return None
    fragment, rest = s_tree[: top[0]], s_tree[top[0] + (1 if closed else 0) :]
    container = aligner.container(o_tree, fragment)
    if container is None:
        return None
    # the top-level item that holds it, or that ends with it, one closer ending both (an
    # Allman-style class, its members in the block of its `{` line, then `};`)
    position = next(k for k, item in enumerate(o_tree) if item.start <= container.start < item.end)
    ancestry = lineage(o_tree, container)
    if sum(item.closer for item in ancestry) > 1 or any(
        child is not parent.children[-1] for parent, child in pairwise(ancestry)
    ):
        return None
    aligner.rewrite = False
    # below a marker, down to the container's closer: its tail is shown, not elided
    inner = aligner.level(container.children, fragment, identity(), top=not fragment[0].marker)
    if inner is None:
        return None
    holder = o_tree[position]
    after = o_tree[position + 1 :]
    head, closer = Copy(0, container.children[0].lead), Copy(container.children[-1].end, holder.end)
    if all(item.marker for item in rest):
        return [head, *inner, closer, Copy(holder.end, size)]
    if not after:  # new code after the file's last item
        new = list(takewhile(lambda item: not item.marker, rest))
        if any(has_marker(item) for item in new) or not all(item.marker for item in rest[len(new) :]):
            return None
        return [head, *inner, closer, *aligner.inserts(new, identity()), Copy(holder.end, size)]
    outer = aligner.level(after, rest, identity(), top=True, open_end=True)
    return None if outer is None else [head, *inner, closer, *outer, Copy(o_tree[-1].end, size)]


def heading_level(line: str) -> int | None:
    """A Markdown heading's level (`### Usage`: 3), None for any other line."""
    found = MARKDOWN_HEADING.match(line)
    return len(found.group(1)) if found else None


def section_then_siblings(
    o_tree: list[Item], s_tree: list[Item], aligner: Aligner, size: int
) -> list[Op] | None:
    """Markdown: a subsection shown first (`### On the Nightly toolchain`), then a heading as
    shallow as the section that holds it (`## Limitations`): the subsection is aligned inside that
    section, the rest among the sections after it."""
    lines = aligner.snippet.lines
    shown = [item for item in s_tree if not item.marker]
    first = heading_level(lines[shown[0].header]) if shown else None
    if first is None:
        return None
    top = next(
        (k for k, item in enumerate(s_tree) if (heading_level(lines[item.header]) or first) < first), None
    )
    if top is None:
        return None
    fragment, rest = s_tree[:top], s_tree[top:]
    container = aligner.container(o_tree, fragment)
    if container is None or heading_level(aligner.original.lines[container.header]) != heading_level(
        lines[rest[0].header]
    ):
        return None
    ancestry = lineage(o_tree, container)
    siblings = ancestry[-2].children if len(ancestry) > 1 else o_tree
    after = siblings[siblings.index(container) + 1 :]
    if not after:
        return None
    aligner.rewrite = False
    inner = aligner.level(container.children, fragment, identity(), top=not fragment[0].marker)
    if inner is None:
        return None
    outer = aligner.level(after, rest, identity(), top=True, open_end=True)
    if outer is None:
        return None
    head, tail = Copy(0, container.children[0].lead), Copy(container.children[-1].end, container.end)
    return [head, *inner, tail, *outer, Copy(after[-1].end, size)]


def tail_then_code(o_tree: list[Item], s_tree: list[Item], aligner: Aligner, size: int) -> list[Op] | None:
    """`marker, the last lines of a block, then code less indented` (a new method below the last
    line of the one above it): see `Aligner.stepped_out`."""
    found = aligner.stepped_out(o_tree, s_tree, open_end=True)
    if found is None:
        return None
    aligner.rewrite = False
    block, ops = found
    items = block.children if block is not None else o_tree
    return [Copy(0, items[0].lead), *ops, Copy(items[-1].end, size)]


def ends_container(code: list[Item], container: Item, aligner: Aligner) -> bool:
    """Whether the last code shown is (the edit of) the container's last item."""
    last = container.children[-1] if container.children else None
    return bool(code) and last is not None and aligner.snippet.key(code[-1]) == aligner.original.key(last)


def without_outer_closers(s_tree: list[Item], lines: list[str]) -> list[Item]:
    """Drops trailing `}` lines less indented than the snippet's code: the container's own closer,
    and the markers after it as deep or less (they elide what follows the container)."""
    shown = [column(lines[item.header]) for item in s_tree if not item.marker]
    after = len(s_tree)
    while after and s_tree[after - 1].marker:
        after -= 1
    end = after
    while end and not s_tree[end - 1].marker and PURE_CLOSER.match(lines[s_tree[end - 1].header].strip()):
        if not shown or column(lines[s_tree[end - 1].header]) >= shown[0]:
            break
        end -= 1
    if after == len(s_tree):
        return s_tree[:end]
    closer = column(lines[s_tree[end].header]) if end < after else -1
    outside = all(column(lines[item.header]) <= closer for item in s_tree[after:])
    return s_tree[:end] if end < after and outside else list(s_tree)


def no_anchor_reason(s_tree: list[Item]) -> Reason:
    if all(item.marker for item in s_tree):
        return Reason("marker_without_neighbours", "the snippet has markers but no code to anchor them")
    return Reason("unmatched_anchor", "no part of the snippet matches the original")


LEAVES = re.compile(r"(?:return|raise|throw)\b")  # a statement that leaves the block
MODIFIER = re.compile(r"\s(?:if|unless)\s")  # ... unless a condition follows it (`return if done?`)


def returns_twice(ops: list[Op], original: Side, edit: Source) -> str | None:
    """An original `return` the plan keeps right below a new statement that leaves the block at
    the same depth (`return cls(...)` written over several lines above the one-line `return cls(...)`
    it rewrites): dead code, so the new statement was meant to replace it."""
    for op, after in pairwise(op for op in ops if op.start < op.end):
        if not (isinstance(op, Insert) and isinstance(after, Copy)):
            continue
        kept = nonblank_from(original.normalized, after.start - 1, 1)
        if kept is None or kept >= after.end or not LEAVES.match(original.normalized[kept]):
            continue
        depth = leading(original.lines[kept])
        written = [op.reindent.apply(edit.lines[k]) for k in range(op.start, op.end) if edit.lines[k].strip()]
        last = next(
            (
                line
                for line in reversed(written)
                if len(leading(line)) <= len(depth) and line.lstrip()[0] not in ")]}"
            ),
            None,
        )
        if (
            last is not None
            and leading(last) == depth
            and LEAVES.match(last.lstrip())
            and not MODIFIER.search(last)
            and not MODIFIER.search(original.normalized[kept])
        ):
            return original.normalized[kept]
    return None


# blocks closed by `end` (Ruby, Lua, Elixir, Julia): what opens one, at a line's start or its end
END_OPENS = re.compile(
    r"^\s*(?:def|class|module|if|unless|case|while|until|begin|for|repeat|try|let|macro|quote|struct"
    r"|mutable\s+struct)\b|\b(?:function|fn)\b|\b(?:do|then)(?:\s*\|[^|]*\|)?\s*$"
    r"|=\s*(?:if|unless|case|begin|try)\b"  # `df = try`, `status = case code`
)
END_CLOSES = re.compile(r"^\s*end\b")
END_LANGUAGES = frozenset({"ruby", "lua", "elixir", "julia"})


def surplus_ends(lines: list[str], language: str) -> int:
    """How many more `end` lines the new lines hold than blocks they open, in a language whose
    blocks close with `end`: closers the merge would write with nothing of theirs to close."""
    if language not in END_LANGUAGES:
        return 0
    opened = sum(END_OPENS.search(line) is not None for line in lines)
    return max(0, sum(END_CLOSES.match(line) is not None for line in lines) - opened)


def closer_twice(merged: str, source: Source) -> str | None:
    """A closer line right below the same line, as deep (`    end` over `    end`), where the original
    has no such pair: the snippet's closer written beside the original's (one block cannot close
    twice, and two blocks that close at one column cannot nest). Such a line, else None."""

    def pairs(lines: list[str]) -> set[str]:
        return {a.removesuffix("\r") for a, b in pairwise(lines) if a == b and PURE_CLOSER.match(a.strip())}

    doubled = pairs(merged.split("\n"))
    doubled = doubled and doubled - pairs(source.lines)  # (the original's pairs, only when needed)
    return min(doubled) if doubled else None


# a line that declares one local name: `result = []`, `var req createUserRequest`, `const user =
# await find(id)`, `List<String> names = new ArrayList<>();` (not `self.x =`, `a, b =`, `if err :=`)
LOCAL_DECLARATION = re.compile(
    r"^\s*(?!(?:if|elif|else|for|while|return|case|when|yield)\b)"
    r"(?:var\s+([A-Za-z_]\w*)\s+[\w.*\[\]]+\s*$"
    r"|(?:[\w<>\[\]?,]+\s+)*([A-Za-z_$][\w$]*)\s*(?::\s*[\w<>\[\]?,. |]+)?\s*(?::=|=(?![=>~])))"
)


def without_shown_heads(ops: list[Op], original: Side, edit: Source, markers: set[int]) -> list[Op]:
    """The plan less the new lines right above a marker that are the first lines of the elided code
    it copies next: `[HttpPut("{id:int}")]` shown above `// ... existing code ...` is the head of
    the action the marker keeps, not a second attribute above it."""
    found = []
    for k, (op, after) in enumerate(pairwise(ops)):
        if not (
            isinstance(op, Insert) and isinstance(after, Copy) and op.end in markers and not after.indent
        ):
            continue
        head = nonblank_from(original.normalized, after.start - 1, 1)
        if head is None or head >= after.end:
            continue
        size = next(
            (
                n
                for n in range(min(MAX_SHOWN_HEAD, op.end - op.start), 0, -1)
                if [line.rstrip() for line in edit.lines[op.end - n : op.end]]
                == [line.rstrip() for line in original.lines[head : head + n]]
            ),
            0,
        )
        shown = op.end - size
        while size and shown > op.start and not edit.lines[shown - 1].strip():
            shown -= 1  # (and the blank lines above it: the copy brings its own)
        if size:
            found.append((k, shown))
    for k, shown in reversed(found):
        ops = [*ops[:k], replace(ops[k], end=shown), *ops[k + 1 :]]
    return ops


def with_dropped_declarations(ops: list[Op], source: Source, edit: Source, tree: list[Item]) -> list[Op]:
    """The plan with each local declaration it drops kept, where the snippet shows the lines on
    either side of it together yet still uses the name it declares, and declares it nowhere else:
    `var user = await _users.FindAsync(id, ct);` left out above `if (user is null)`, a line the
    snippet's writer skipped, not one they deleted (the name would be declared by nothing)."""
    lines = source.lines
    copied = [(op.start, op.end) for op in ops if isinstance(op, Copy)]

    def dropped(line: int) -> bool:  # (a line the snippet writes anywhere is moved, not dropped)
        return (
            0 <= line < len(lines)
            and LOCAL_DECLARATION.match(lines[line]) is not None
            and lines[line].strip() not in edit.raw
            and not any(start <= line < end for start, end in copied)
        )

    resumes = [len(lines)] * (len(ops) + 1)  # where the first copy after each op starts
    for k in range(len(ops) - 1, -1, -1):
        op = ops[k]
        resumes[k] = op.start if isinstance(op, Copy) and op.start < op.end else resumes[k + 1]
    at = 0  # the end of the last copy
    for k, op in enumerate(ops):
        # (where the line would go back: above a copy that resumes right below it, or between two
        # new lines that the original has on either side of it, among those the new ones replace)
        splits = []
        if isinstance(op, Copy):
            if op.start != at and not op.indent and dropped(op.start - 1):  # (not right below a copy)
                splits.append((op.start - 1, ops[:k], ops[k:]))
            at = op.end if op.start < op.end else at
        else:
            candidates = [
                line for line in range(at + 1, min(resumes[k + 1], len(lines) - 1)) if dropped(line)
            ]
            around = {
                (edit.lines[j - 1].rstrip(), edit.lines[j].rstrip()): j
                for j in range(op.start + 1, op.end)
                if candidates and edit.lines[j - 1].strip()
            }
            for line in candidates:
                j = around.get((lines[line - 1].rstrip(), lines[line + 1].rstrip()))
                if j is not None:
                    splits.append(
                        (line, [*ops[:k], replace(op, end=j)], [replace(op, start=j), *ops[k + 1 :]])
                    )
        for line, before, after in splits:
            if still_used(line, before, after, source, edit, tree):
                return with_dropped_declarations([*before, Copy(line, line + 1), *after], source, edit, tree)
    return ops


def still_used(
    line: int, before: list[Op], after: list[Op], source: Source, edit: Source, tree: list[Item]
) -> bool:
    """Whether the name the dropped original line declares is used by the lines the plan writes
    below it in the block that held it, declared by none of them first, and named by no other line
    the plan writes there or anywhere new (a field set up in a new `@BeforeEach`: moved there)."""
    container = enclosing(tree, line)
    if container is None:
        return False
    declared = LOCAL_DECLARATION.match(source.lines[line])
    assert declared is not None
    name = whole_word(declared.group(1) or declared.group(2), member=False)
    above, below, inside = written_around(before, after, source, edit, container, line)
    elsewhere = [
        edit.lines[j]
        for op in [*before, *after]
        if isinstance(op, Insert)
        for j in range(op.start, op.end)
        if j not in inside
    ]
    first_use = next((text for text in below if name.search(text)), None)
    return (
        first_use is not None
        and not declares(first_use, name)
        and not any(name.search(text) for text in [*above, *elsewhere])
    )


def enclosing(tree: list[Item], line: int) -> Item | None:
    """The innermost item whose body holds the original line, itself a whole one-line item."""
    chain = descent(tree, line)
    whole = len(chain) > 1 and chain[-1].start == line and chain[-1].end == line + 1
    return chain[-2] if whole else None


def written_around(
    above: list[Op], below: list[Op], source: Source, edit: Source, container: Item, line: int
) -> tuple[list[str], list[str], set[int]]:
    """The lines the plan writes in the container above the dropped original line and below it
    (new lines right above it counted whole, and those below), and the snippet lines among those
    below."""
    before, after, inside, at = [], [], set(), 0
    for k, op in enumerate(above):
        if isinstance(op, Copy):
            before += source.lines[max(op.start, container.start) : min(op.end, line)]
            at = op.end
        elif container.start <= at <= line or k == len(above) - 1:
            before += edit.lines[op.start : op.end]
    at = line + 1
    for op in below:
        if at >= container.end:
            break
        if isinstance(op, Copy):
            after += source.lines[op.start : min(op.end, container.end)]
            at = op.end
        else:
            after += edit.lines[op.start : op.end]
            inside.update(range(op.start, op.end))
    return before, after, inside


# words after which a name is used, not declared (`return user`, `if result`, `not found`)
USING_STATEMENTS = frozenset(
    {"return", "await", "yield", "throw", "raise", "new", "typeof", "delete", "puts"}
)
USING_CONDITIONS = frozenset({"not", "and", "or", "in", "is", "of", "if", "elif", "else", "while", "until"})
USING_WORDS = USING_STATEMENTS | USING_CONDITIONS | {"unless", "case", "when", "print"}
LOOP_START = re.compile(r"\s*(?:for|foreach)\b")  # a loop binds the names it names
TYPED_BEFORE = re.compile(r"(\w+)[>\]?]*\s+$")  # `StatusChangeEvent change`, `catch (IOException e`
ASSIGNED_AFTER = re.compile(r"[^=]*?(?<![=!<>+\-*/%&|^:])(?:=(?![=>~])|:=)")  # `) = current...`, ` := f()`


def declares(line: str, name: re.Pattern[str]) -> bool:
    """Whether a line that names `name` may declare it again: the name left of an assignment (`let
    Some(next) = ...`), after a type (`instanceof StatusChangeEvent change`), or bound by a loop
    or an `as`."""
    if LOOP_START.match(line) or re.search(rf"\bas\s+{name.pattern}", line):
        return True
    for found in name.finditer(line):
        typed = TYPED_BEFORE.search(line, 0, found.start())
        if ASSIGNED_AFTER.match(line, found.end()) or (typed and typed.group(1) not in USING_WORDS):
            return True
    return False


def finish(
    language: str, original: "Analysis", edit: Source, ops: list[Op], markers: set[int]
) -> MergeResult:
    """4. render the plan; 5. check it (marker text, new parse errors)."""
    source, tree = original.source, original.tree
    ops = with_dropped_declarations(
        without_shown_heads(ops, original.side, edit, markers), source, edit, tree
    )
    plan = SpanWriter(source, edit, trim=language not in HARD_BREAKS).write(ops)
    merged = render_plan(plan, source.raw, edit.raw)
    inserted = [k for op in ops if isinstance(op, Insert) for k in range(op.start, op.end)]
    if any(k in markers for k in inserted):
        return ambiguous(language, "marker_in_output", "a marker would be written into the file")
    # (the outline reads a template's own comments as code: `{# ... #}` written out is a marker still)
    written = next((edit.lines[k] for k in inserted if templated(edit.lines[k], source)), None)
    if written is not None:
        return ambiguous(
            language, "marker_in_output", f"a marker would be written into the file: {written.strip()!r}"
        )
    # a marker in an embedded language (`-- ...` in SQL in a Java string) is no marker of the file's
    stray = {edit.lines[k].strip() for k in inserted if is_marker(edit.lines[k], EMBEDDED_COMMENTS)}
    inline = [edit.lines[k].strip() for k in inserted if elides(edit.lines[k], source)]
    if stray or inline:  # each is no marker only where the original has it as code
        known = source.stripped
        if not stray <= known:
            return ambiguous(
                language, "marker_in_output", f"a marker would be written into the file: {min(stray)!r}"
            )
        if not set(inline) <= known:
            return ambiguous(language, "marker_in_output", f"code with an elision comment: {inline[0]!r}")
    unused = unused_in_head(ops, source, edit, markers, merged)
    if unused:
        return ambiguous(
            language, "head_left_unused", f"{unused!r} stays above the snippet, yet its last use is gone"
        )
    used = deleted_yet_used(plan, source, edit, markers, tree, merged)
    if used:
        return ambiguous(
            language, "unexplained_deletion", f"{used!r} would be deleted, yet the file still uses it"
        )
    import_used = import_deleted_yet_used(plan, source, merged, [edit.lines[k] for k in inserted], language)
    if import_used:
        return ambiguous(
            language, "unexplained_deletion", f"{import_used!r} would be deleted, yet the file still uses it"
        )
    gone = called_yet_gone(plan, source, merged, language)
    if gone:
        return ambiguous(
            language, "unexplained_deletion", f"{gone!r} would be gone, yet the file still calls it"
        )
    renamed = renamed_beside_old_call(plan, source, merged)
    if renamed:
        return ambiguous(
            language,
            "unexplained_deletion",
            f"{renamed!r} is renamed, yet a call by its old name stays beside the renamed one",
        )
    beside = renamed_beside_itself(ops, source, edit, merged)
    if beside:
        return ambiguous(
            language,
            "renamed_or_copied",
            f"{beside!r} stands beside the line it renames, whose other uses are renamed: renamed, or added?",
        )
    reassigned = reassigned_beside_itself(ops, source, edit)
    if reassigned:
        return ambiguous(
            language,
            "edit_or_insertion",
            f"{reassigned!r} assigns again what the line kept beside it does: an edit of it, or a new line?",
        )
    repeated = repeated_after_marker(ops, original.side, edit, markers)
    if repeated:
        return ambiguous(
            language,
            "unanchored_insertion",
            f"{repeated!r}, shown after a marker, would stand twice: as new code and as the original",
        )
    copied, declared = written_twice(ops, original.side, edit), declared_twice(merged, source.raw, language)
    if copied or declared:
        twice = f"{copied!r} and the lines below it" if copied else f"id {declared!r}"
        return ambiguous(language, "moved_or_copied", f"{twice} would stand twice: moved, or copied?")
    dropped = exports_dropped(merged, source.raw, language)
    if dropped:
        return ambiguous(
            language,
            "unexplained_deletion",
            f"the new `module.exports = {{...}}` leaves out {dropped!r}, which the file exports by name",
        )
    uncommented = still_commented(ops, source, edit, inserted, language)
    if uncommented:
        return ambiguous(
            language, "still_commented", f"{uncommented!r} is uncommented, yet its commented line stays"
        )
    head = above_file_head(merged, source, language)
    if head:
        return ambiguous(
            language, "above_file_head", f"{head.strip()!r} would be written above the file's first line"
        )
    unreachable = returns_twice(ops, original.side, edit)
    if unreachable:
        return ambiguous(
            language,
            "edit_or_insertion",
            f"{unreachable!r} would stand below a new line that leaves the block: an edit of it?",
        )
    surplus = surplus_ends([edit.lines[k] for k in inserted], language)
    if surplus:
        return ambiguous(
            language, "unbalanced_closers", f"the new lines close {surplus} more `end` blocks than they open"
        )
    doubled = closer_twice(merged, source)
    if doubled:
        return ambiguous(
            language,
            "moved_or_copied",
            f"{doubled.strip()!r} would close the same block twice, one below the other",
        )
    if new_parse_errors(merged.removeprefix(BOM), source, ops, tree, language):
        return ambiguous(
            language, "new_parse_errors", "the merged file has parse errors the original has not"
        )
    if language == "python" and dedents_to_no_block(ops, edit, original.unit, merged, source):
        return ambiguous(
            language, "new_parse_errors", "a line is written at a column no block around it stands at"
        )
    return MergeResult(merged=merged, status="ok", language=language, plan=plan)


def dedents_to_no_block(ops: list[Op], edit: Source, unit: str | None, merged: str, source: Source) -> bool:
    """A Python line written at a column that is no multiple of the file's indent (`audit.record()`
    at 10 spaces, below a block at 12 in a loop at 8), which tree-sitter-python takes without an
    error: Python's own parser, asked only then, says whether it dedents to no block there."""
    if not unit or unit == "\t":
        return False
    odd = any(
        len(leading(line)) % len(unit)
        for op in ops
        if isinstance(op, Insert)
        for line in (op.reindent.apply(edit.lines[k]) for k in range(op.start, op.end))
        if line.strip()
    )
    return odd and indentation_error(merged) and not indentation_error(source.raw.removeprefix(BOM))


def indentation_error(text: str) -> bool:
    """Whether Python's parser rejects `text` for its indentation (other errors, another version's
    syntax or a NUL byte, are for tree-sitter to judge)."""
    try:
        compile(text, "<merged>", "exec", ast.PyCF_ONLY_AST)
    except (SyntaxError, ValueError) as error:
        return isinstance(error, IndentationError)
    return False


def unused_in_head(ops: list[Op], source: Source, edit: Source, markers: set[int], merged: str) -> str | None:
    """A snippet that starts at an import below the file's first lines, no marker above it, keeps
    those lines (it shows the file from where the edit begins); unless an import among them loses
    its last use, when the snippet likely rewrote the imports (`import { sleep }` gone with the only
    caller)."""
    first = next((k for k, line in enumerate(edit.lines) if line.strip()), None)
    if first is None or first in markers or not IMPORT_LINE.match(edit.lines[first]):
        return None  # a function given alone leaves the imports as they were, used or not
    if not ops or not isinstance(ops[0], Copy) or ops[0].start > 0:
        return None
    shown = {line.strip() for line in edit.lines}
    for line in source.lines[: ops[0].end]:
        if not IMPORT_LINE.match(line) or line.strip() in shown:
            continue
        for name in set(NAME.findall(line)) - IMPORT_WORDS:
            word = whole_word(name)
            own = len(word.findall(line))
            if len(word.findall(source.raw)) > own and len(word.findall(merged)) == own:
                return line.strip()
    return None


# a function, and one declared inside another's body (JavaScript's `function destroy() {` in a module
# factory, a nested `def`), whose name is that body's, not a method's that other objects share
LOCAL_FUNCTION = re.compile(r"^(?:function|def|func|fn|fun|sub) [A-Za-z_$][\w$]*$")
DECLARATION_KEY = re.compile(r"^(?!(?:if|else|elif|for|while|switch|match|case|when|return)\b)[A-Za-z_$]")


def not_copied(plan: list[Span], source: Source) -> list[tuple[int, int]]:
    """The original's character ranges that the plan does not copy."""
    copied = sorted((span.start, span.end) for span in plan if isinstance(span, CopySpan))
    found: list[tuple[int, int]] = []
    at = 0
    for start, end in copied:
        if start > at:
            found.append((at, start))
        at = max(at, end)
    return found + ([(at, len(source.raw))] if at < len(source.raw) else [])


# what an import binds: a module used as `name.` (Go's `"encoding/json"`, Python's `import os.path`,
# JavaScript's `import * as fs`), or names used as they are (`from m import A, B as C`, Java's
# `import a.b.C;`, JavaScript's `import X, { a, b as c } from`)
GO_IMPORT = re.compile(r'^(?:import\s+)?(?:(\w+)\s+)?"(?:[^"]*/)?([A-Za-z_]\w*)(?:/v\d+)?"$')
PY_IMPORT = re.compile(r"^import\s+([\w.]+)(?:\s+as\s+(\w+))?$")
PY_FROM = re.compile(r"^from\s+[\w.]+\s+import\s+\(?([\w\s,]+?)\)?$")
JVM_IMPORT = re.compile(r"^import\s+(?:static\s+)?[\w.]+\.([A-Za-z_]\w*);?$")
JS_IMPORT = re.compile(r"^import\s+(?:(\w+)\s*,?\s*)?(?:\*\s+as\s+(\w+)|\{([^}]*)\})?\s*from\s")


def imported(line: str, language: str) -> tuple[list[str], list[str]]:
    """(modules used as `name.`, names used as they are) that an import line binds."""
    text = line.strip()
    if language == "go" and (found := GO_IMPORT.match(text)):
        return [found.group(1) or found.group(2)], []
    if language == "python" and (found := PY_IMPORT.match(text)):
        return [found.group(2) or found.group(1).split(".")[0]], []
    if language == "python" and (found := PY_FROM.match(text)):
        return [], [part.split()[-1] for part in found.group(1).split(",") if part.strip()]
    if language in ("java", "kotlin", "scala") and (found := JVM_IMPORT.match(text)):
        return [], [found.group(1)]
    if language in ("javascript", "typescript", "tsx") and (found := JS_IMPORT.match(text)):
        default, namespace, listed = found.groups()
        names = [part.split()[-1] for part in (listed or "").split(",") if part.strip()]
        return [namespace] if namespace else [], [default, *names] if default else names
    return [], []


def import_deleted_yet_used(
    plan: list[Span], source: Source, merged: str, written: list[str], language: str
) -> str | None:
    """An import the merge deletes (a snippet that shows the import block trimmed, closed up),
    whose module or names the merged file still uses and the lines the snippet writes never name
    (in an import that replaces it, or at all): left out, not meant."""
    offsets = source.offsets
    gone = []  # the original lines not copied, whole
    for lo, hi in not_copied(plan, source):
        k = bisect_left(offsets, lo)
        while k < len(source.lines) and offsets[k + 1] <= hi:
            gone.append(k)
            k += 1
    bindings = [(k, *imported(source.lines[k], language)) for k in gone]
    bindings = [(k, modules, names) for k, modules, names in bindings if modules or names]
    if not bindings:
        return None  # (the common case: no import deleted)
    named = set(NAME.findall("\n".join(written)))
    code = "\n".join(line for line in merged.splitlines() if not IMPORT_LINE.match(line))
    for k, modules, names in bindings:
        modules, names = [n for n in modules if n not in named], [n for n in names if n not in named]
        if any(re.search(rf"\b{re.escape(name)}\.", code) for name in modules) or any(
            re.search(rf"\b{re.escape(name)}\b", code) for name in names
        ):
            return source.lines[k].strip()
    return None


def renamed_beside_old_call(plan: list[Span], source: Source, merged: str) -> str | None:
    """A function or method the merge renames (`void update() {` become `void refill() {`, its old
    name declared nowhere in the merged file), when the merged file calls it by its old name on the
    line right beside the same call by another name (`refill();` above `update();`): the snippet
    showed that call renamed, and the plan kept the original beside it instead of replacing it."""
    offsets, lines = source.offsets, None
    for lo, hi in not_copied(plan, source):
        for k in range(bisect_right(offsets, lo) - 1, bisect_left(offsets, hi)):
            name = declared_function(source.lines[k])
            if name is None:
                continue
            word = whole_word(name)
            lines = lines or merged.splitlines()
            uses = [n for n, use in enumerate(lines) if f"{name}(" in use and word.search(use)]
            if any(declared_function(lines[n]) == name for n in uses):
                continue
            for n in uses:
                other = re.compile(r"[A-Za-z_$][\w$]*".join(map(re.escape, word.split(lines[n]))))
                if any(m != n and other.fullmatch(lines[m]) for m in (n - 1, n + 1) if 0 <= m < len(lines)):
                    return source.lines[k].strip()
    return None


def called_yet_gone(plan: list[Span], source: Source, merged: str, language: str) -> str | None:
    """A method the merge leaves out (its header not copied), declared nowhere in the merged file,
    that the merged file still calls on its own object (`GetActiveUsersAsync(ct)`, `this.load()`,
    `self.flush()`): renamed or deleted where the snippet shows it, yet called from code the
    snippet leaves out."""
    own = OWN_CALLS.get(language)
    if own is None:
        return None
    offsets, lines, declared = source.offsets, merged.splitlines(), None
    for lo, hi in not_copied(plan, source):
        for k in range(bisect_right(offsets, lo) - 1, bisect_left(offsets, hi)):
            name = declared_at(source.lines, k)
            if name is None or name not in merged:
                continue
            call = re.compile(own.format(re.escape(name)))
            if not any(call.search(line) for line in lines if name in line):
                continue  # (the common case: no call left, so no need to read the declarations)
            if declared is None:
                declared = {declared_at(lines, n) for n in range(len(lines))}
            if name in declared:
                continue
            # (declared in a shape `declared_at` knows not: `Task<User> Get(...)` above `=> ...`)
            shape = re.compile(
                rf"^\s*(?!(?:return|await|throw|yield|case)\b)(?:[\w<>\[\],.?]+\s+)+{re.escape(name)}\s*\("
            )
            if not any(shape.match(line) for line in lines):
                return source.lines[k].strip()
    return None


def declared_at(lines: list[str], k: int) -> str | None:
    """The function or method whose declaration line k opens, its brace maybe on the next line."""
    line = lines[k].rstrip()
    if k + 1 < len(lines) and lines[k + 1].strip() == "{":
        line += " {"
    return declared_function(line)


def beside(ops: list[Op], k: int) -> tuple[Op | None, Op | None]:
    """The ops that write something right above and right below op k (empty copies passed over)."""
    above = next((op for op in reversed(ops[:k]) if not isinstance(op, Copy) or op.end > op.start), None)
    below = next((op for op in ops[k + 1 :] if not isinstance(op, Copy) or op.end > op.start), None)
    return above, below


def renamed_beside_itself(ops: list[Op], source: Source, edit: Source, merged: str) -> str | None:
    """A new line the same as an original line kept right beside it but for one name, where the
    merge renames that name elsewhere (fewer lines use it than in the original) and the snippet's
    new code never writes it (`private long rejectedTotal;` above the kept `private long rejected;`,
    every use of `rejected` shown renamed): the plan added the renamed line instead of replacing the
    old. The old name may stand in strings and on lines the original has as they are, where the
    new one is written on more new lines (`"rejected=" + rejectedTotal`, a record's `long rejected`)."""
    written = [line for line in edit.lines if line.strip() not in source.stripped]
    for k, op in enumerate(ops):
        if not isinstance(op, Insert):
            continue
        above, below = beside(ops, k)
        kept = []
        if isinstance(above, Copy):
            kept += source.lines[max(above.start, above.end - 3) : above.end]
        if isinstance(below, Copy):
            kept += source.lines[below.start : min(below.end, below.start + 3)]
        for line in edit.lines[op.start : op.end]:
            for old in kept:
                found = renamed(old, line)
                if found is None or declared_function(old):
                    continue  # (a function beside a like one is a new function as often)
                word, renamed_to = whole_word(found[0]), whole_word(found[1])
                if any(map(word.search, edit.lines)) and (
                    any(word.search(QUOTED.sub("", text)) for text in written)
                    or sum(1 for text in written if text != line and renamed_to.search(text))
                    < MIN_RENAMED_USES
                ):
                    continue  # the snippet writes the old name: both in use, unless only on the
                    # original's own lines and in strings, the new name on more new lines
                if sum(map(bool, map(word.search, merged.splitlines()))) < sum(
                    map(bool, map(word.search, source.lines))
                ):
                    return line.strip()
    return None


def targets(assignment: re.Match[str]) -> set[str]:
    """The names an assignment assigns to (`s, teardown :=`: s and teardown)."""
    return {target.strip() for target in assignment.group(1).rstrip(": ").split(",")}


def directive(line: str) -> tuple[str, ...] | None:
    """A `name argument ... value;` statement's words but its value, a number or a string
    (`client_max_body_size 10m;`: the name); not a declaration (`private String name;`)."""
    words = line.split()
    if len(words) < 2 or not line.rstrip().endswith(";") or not VALUE_FIRST.match(words[-1]):
        return None
    return tuple(words[:-1])


def reassigns(old: str, new: str) -> bool:
    """Whether `new`, as deep as `old`, assigns the same value as it to some of the same names
    (`s := setup(t)` and `s, teardown := setup(t)`), or sets the same directive to another value
    (`client_max_body_size 50m;` and `client_max_body_size 10m;`)."""
    if leading(old) != leading(new):
        return False  # (not `return -errno;` in a guard above `return 0;`)
    if (setting := directive(old)) is not None and setting == directive(new):
        return True
    before, after = ASSIGNED.match(old), ASSIGNED.match(new)
    return (
        before is not None
        and after is not None
        and old[before.end() :].strip() == new[after.end() :].strip()
        and bool(targets(before) & targets(after))
    )


def reassigned_beside_itself(ops: list[Op], source: Source, edit: Source) -> str | None:
    """A new line right beside a kept original line that it reassigns (see `reassigns`): the
    snippet showed the line edited, and the plan kept the original beside it, the name assigned
    twice (`s := setup(t)` above the kept `s, teardown := setup(t)`)."""
    for k, op in enumerate(ops):
        if not isinstance(op, Insert):
            continue
        above, below = beside(ops, k)
        new = [line for line in edit.lines[op.start : op.end] if line.strip()]
        if not new:
            continue
        if isinstance(above, Copy) and reassigns(source.lines[above.end - 1], new[0]):
            return new[0].strip()
        if isinstance(below, Copy) and reassigns(source.lines[below.start], new[-1]):
            return new[-1].strip()
    return None


def declared_function(line: str) -> str | None:
    """The name of the function or method whose declaration `line` opens (`void update() {`)."""
    line = line.strip()
    found = DECLARED_NAME.search(signature_key(line)) if line.endswith(("{", ":")) else None
    return found.group() if found is not None and f"{found.group()}(" in line else None


def deleted_yet_used(
    plan: list[Span], source: Source, edit: Source, markers: set[int], tree: list[Item], merged: str
) -> str | None:
    """A top-level declaration the merge deletes (`def _fmt`), or a function declared in another's
    body (`function destroy() {`), declared nowhere else in the merged file, whose name that file
    still uses: a snippet that shows the code around it closed up, not a deletion it meant (one
    that names it in a removal comment is)."""
    # (top-level items, and functions in a function's body: a method's name is too often another
    # object's, `this.users.get(id)`; see renamed_beside_old_call)
    gone: list[tuple[Item, bool]] = []  # (item, whether a function's body holds it)
    offsets = source.offsets
    for lo, hi in not_copied(plan, source):
        levels = [(tree, False)]
        while levels:
            items, local = levels.pop()
            first = bisect_left(items, lo, key=lambda item: offsets[item.start])
            for item in islice(items, max(first - 1, 0), None):  # (from the one that may hold lo)
                if offsets[item.start] >= hi:
                    break
                if lo <= offsets[item.start] and offsets[item.end] <= hi:
                    gone.append((item, local))
                elif offsets[item.end] > lo and LOCAL_FUNCTION.match(
                    signature_key(source.lines[item.header])
                ):
                    levels.append((item.children, True))  # a function partly deleted: its own functions
    for item, local in gone:
        header = normalize(source.lines[item.header])
        key = signature_key(header)
        name = DECLARED_NAME.search(key)
        if (
            name is None
            or key == header
            or key in merged
            or not DECLARATION_KEY.match(key)
            or not item.nested
            or (local and not LOCAL_FUNCTION.match(key))
        ):
            continue  # (declared as it was: moved, or rewritten whole)
        word = whole_word(name.group(), member=not local)
        if not word.search(merged) or any(word.search(edit.lines[k]) for k in markers):
            continue
        keys = (signature_key(normalize(line)) for line in merged.splitlines())
        # (a function's own name is not declared again by a member set to it: `createDebug.destroy =`)
        declared = (
            found
            for other in keys
            if (found := DECLARED_NAME.search(other)) and not (local and other[: found.start()].endswith("."))
        )
        if not any(found.group() == name.group() for found in declared):
            return key
    return None


def repeated_after_marker(ops: list[Op], original: Side, edit: Source, markers: set[int]) -> str | None:
    """The first line of new code right after a marker, when the original has it once and the plan
    copies it too: shown to anchor what follows (a list's last entry, a block's tail), yet written
    as new code beside its original; not an annotation added above a declaration, nor a bare call's
    head that opens another call (see `opens_another`). Or a closer (`end`, `END;`, `$$;`) that the
    plan copies a few lines below: a closer right after a marker closes what the marker elides,
    unless the plan copies that code one block deeper there (new code wraps it: the closer is the
    wrapper's)."""
    copied = [op for op in ops if isinstance(op, Copy)]
    for n, op in enumerate(ops):
        if not isinstance(op, Insert):
            continue
        first = next((k for k in range(op.start, op.end) if edit.lines[k].strip()), None)
        above = next((k for k in range(op.start - 1, -1, -1) if edit.lines[k].strip()), None)
        if first is None or above not in markers:
            continue
        line = edit.lines[first].strip()
        if attributes_only(op, edit):
            continue
        if PURE_CLOSER.match(line) or SQL_END.match(line):
            wraps = n > 0 and isinstance(ops[n - 1], Copy) and bool(ops[n - 1].indent)
            if not wraps and normalize(line) in copied_next(ops[n + 1 :], original):
                return line
            continue
        at = copied_once(normalize(line), original, copied) if letters(line) >= MIN_ANCHOR_LETTERS else None
        if at is not None and not opens_another(edit.lines[first + 1 : op.end], original, at):
            return line
    return None


def opens_another(below: list[str], original: Side, at: int) -> bool:
    """Whether the line at original line `at` is a bare call's head (`router.post(`), its arguments
    below it, and the new code goes on otherwise than the original does below its own: the head of
    another call (another route), not the original's shown."""
    if not BARE_CALL.match(original.normalized[at]):
        return False
    shown = next((normalize(line) for line in below if line.strip()), None)
    there = next((line for line in original.normalized[at + 1 :] if line), None)
    return shown is not None and shown != there


def attributes_only(op: Insert, edit: Source) -> bool:
    """New lines that are all decorators or attributes (`@Override`, `[HttpGet("{id:int}")]`),
    added above a declaration: the original may have them word for word above others, as it may
    have any of them many times; no sign of its code shown out of place."""
    return all(ATTRIBUTE.match(line.strip()) for line in edit.lines[op.start : op.end] if line.strip())


def copied_once(line: str, original: Side, copied: list[Copy]) -> int | None:
    """Where the original has the normalised `line`, if it has it once and the plan copies it."""
    at = original.where(line)
    return at[0] if len(at) == 1 and any(copy.start <= at[0] < copy.end for copy in copied) else None


def written_twice(ops: list[Op], original: Side, edit: Source) -> str | None:
    """New code that opens with a run of the original's lines, word for word, whose first line
    the original has once, when the plan copies that line too: the original's code (an `elif`
    shown to close up the branches above it), not new code to write beside it. A short first line
    (`keys = {`) needs a run that holds TWICE_LETTERS letters and digits."""
    copied = [op for op in ops if isinstance(op, Copy)]
    for op in ops:
        if not isinstance(op, Insert):
            continue
        if attributes_only(op, edit):
            continue
        shown = (normalize(line) for line in islice(edit.lines, op.start, op.end) if line.strip())
        first = next(shown, "")
        if letters(first) < MIN_ANCHOR_LETTERS:
            ahead = list(islice(shown, TWICE_LETTERS // MIN_TELLING))  # (a short first line: more to say?)
            if letters(first) < MIN_TELLING or sum(map(letters, [first, *ahead])) < TWICE_LETTERS:
                continue
            shown = chain(ahead, shown)
        at = copied_once(first, original, copied)
        if at is None:
            continue
        following = (line for line in islice(original.normalized, at + 1, None) if line)
        same = takewhile(lambda pair: pair[0] == pair[1], zip(shown, following, strict=False))
        run = [first, *(line for line, _ in same)]
        if len(run) >= TWICE_RUN and (
            letters(first) >= MIN_ANCHOR_LETTERS or sum(map(letters, run)) >= TWICE_LETTERS
        ):
            return first
    return None


def copied_next(ops: list[Op], original: Side) -> list[str]:
    """The first few lines the plan copies next, up to new code (normalised, blank lines left out)."""
    found: list[str] = []
    for op in ops:
        if isinstance(op, Insert):
            break
        found += [line for line in original.normalized[op.start : op.end] if line]
        if len(found) >= CLOSERS_AHEAD:
            break
    return found[:CLOSERS_AHEAD]


def declared_twice(merged: str, original: str, language: str) -> str | None:
    """An element id (`id="save"`, Android's `android:id="@+id/save"`) that the merged markup
    declares more often than the original: an element shown inside new markup (a wrapper) whose
    original a marker keeps as well. Ids are unique, so the element moved, or is a copy to rename."""
    if language not in MARKUP or "id=" not in merged:
        return None
    before, after = Counter(ELEMENT_ID.findall(original)), Counter(ELEMENT_ID.findall(merged))
    return next((name for name, count in after.items() if count > before[name] > 0), None)


def exports_dropped(merged: str, original: str, language: str) -> str | None:
    """A `module.exports = {...}` the merge writes new where the original exports name by name
    (`exports.pad = ...`): the object replaces those exports, so one it leaves out (named here) is
    no longer exported. The snippet "updates" an export list the file does not have."""
    if language not in ("javascript", "typescript") or "module.exports" not in merged:
        return None
    if EXPORTS_OBJECT.search(original) or not (exported := EXPORTS_NAME.findall(original)):
        return None
    found = EXPORTS_OBJECT.search(merged)
    listed = set(re.findall(r"[\w$]+", found.group(1))) if found else set(exported)
    return next((name for name in exported if name not in listed), None)


def still_commented(
    ops: list[Op], source: Source, edit: Source, inserted: list[int], language: str
) -> str | None:
    """A new line written right next to a copy of itself commented out (`ports:` written,
    `# ports:` kept below it): the snippet uncommented lines the alignment did not place over
    the comments. A commented-out line elsewhere in the file proves nothing."""
    commented = commented_out(source.raw, language)  # one regex pass, cached per original
    if not commented or not any(normalize(edit.lines[k]) in commented for k in inserted):
        return None  # the common case
    copies = [n for n, op in enumerate(ops) if isinstance(op, Copy) and op.start < op.end]
    for n, op in enumerate(ops):
        if isinstance(op, Copy) or not any(
            normalize(edit.lines[k]) in commented for k in range(op.start, op.end)
        ):
            continue
        k = bisect_right(copies, n)
        neighbours: set[int] = set()
        if k:
            neighbours |= comment_run(source.lines, ops[copies[k - 1]].end - 1, -1, language)
        if k < len(copies):
            neighbours |= comment_run(source.lines, ops[copies[k]].start, 1, language)
        for line in (normalize(edit.lines[j]) for j in range(op.start, op.end)):
            if neighbours & set(commented.get(line, ())):
                return line
    return None


def above_file_head(merged: str, source: Source, language: str) -> str | None:
    """Code written above the line a file must open with (a shebang, `package api`, `<?php`):
    new code shown above a snippet's first anchor is no new head of the file there."""
    if source.raw.lstrip(BOM).startswith("#!"):
        first = merged.lstrip(BOM).partition("\n")[0]
        return None if first.startswith("#!") else first
    pattern = FILE_HEADS.get(language)
    if pattern is None:
        return None
    was = first_code_line(source.raw, language)
    if was is None or not pattern.match(was):
        return None
    now = first_code_line(merged, language)
    return None if now is None or pattern.match(now) else now


def first_code_line(text: str, language: str) -> str | None:
    """The first line of a file that is neither blank nor a comment, stripped."""
    prefixes = line_comment_prefixes(language)
    in_block = False
    for line in text.lstrip(BOM).splitlines():
        stripped = line.strip()
        if in_block:
            in_block = "*/" not in stripped
        elif stripped.startswith("/*"):
            in_block = "*/" not in stripped[2:]
        elif stripped and not stripped.startswith(prefixes):
            return stripped
    return None


def comment_run(lines: list[str], k: int, step: int, language: str) -> set[int]:
    """The comment lines (and blank ones) from k on, going by step, up to the first code line."""
    prefixes = line_comment_prefixes(language)
    found = set()
    while 0 <= k < len(lines) and (not lines[k].strip() or lines[k].lstrip().startswith(prefixes)):
        found.add(k)
        k += step
    return found


@lru_cache(maxsize=32)
def commented_out(raw: str, language: str) -> dict[str, list[int]]:
    """The original's line comments by their text without the comment sign, where that text could
    be code (`# ports:` -> `ports:`), with their line numbers; cached, as `analyse` is."""
    prefixes = line_comment_prefixes(language)
    if not prefixes:
        return {}
    signs = "|".join(map(re.escape, prefixes))
    pattern = re.compile(rf"^[ \t]*(?:{signs})[ \t]*(\S.*?)\r?$", re.M)
    found: dict[str, list[int]] = {}
    line, at = 0, 0
    for comment in pattern.finditer(raw):
        line += raw.count("\n", at, comment.start())
        at = comment.start()
        text = normalize(comment.group(1))
        if len(text) >= MIN_UNCOMMENTED and any(c.isalpha() for c in text):
            found.setdefault(text, []).append(line)
    return found


def elides(line: str, source: Source) -> bool:
    """A line with an elision comment, or a body elided on its header line (`count() { ... }`,
    `def f(x): ...`) in a file whose own lines have none (a stub file writes `...` bodies)."""
    if has_inline_marker(line):
        return True
    return elided_body(line) is not None and not any(elided_body(old) for old in source.lines if "..." in old)


def new_parse_errors(merged: str, source: Source, ops: list[Op], tree: list[Item], language: str) -> bool:
    """Whether the merged file (without BOM) has parse errors the original has not.

    The changed parts are parsed first (see Parts); when they parse cleanly there are no new errors.
    Otherwise the whole merged file is parsed, and the original when the merge has errors."""
    if GRAMMARS.get(language) is None:
        return False
    key = (merged, source.raw, language)  # the answer depends on the two texts alone
    found = CHECKED.get(key)
    if found is None:
        found = check_parse(merged, source, ops, tree, language)
        with CHECKED_LOCK:
            CHECKED[key] = found
            while len(CHECKED) > CHECKED_SIZE:
                del CHECKED[next(iter(CHECKED))]
    return found


CHECKED: dict[tuple[str, str, str], bool] = {}  # the latest answers of new_parse_errors, oldest first
CHECKED_LOCK = threading.Lock()
CHECKED_SIZE = 64


def check_parse(merged: str, source: Source, ops: list[Op], tree: list[Item], language: str) -> bool:
    if language in PARTS_PARSE_ALONE:
        parts = Parts(merged, ops, source, language).texts(tree)
        if parts is not None and not any(parse_errors(part, language) for part in parts):
            return False
    # the original is parsed only when the merge has errors: were they there before?
    return parse_errors(merged, language) and not parse_errors(source.raw.removeprefix(BOM), language)


class Parts:
    """The merged file less the original items it copies whole, as texts that parse on their own.

    A run of top-level items copied whole splits the file into parts: each was a complete
    construct, and so is each part that parses cleanly. Inside a changed item, a run of children
    copied whole is left out of its part (in a Python block a `pass` at its indent stands for it),
    except a child that continues its sibling (`else:`, `} catch {`), and only where brackets,
    quotes and comments (counted naively) stand the same at both its ends and in the original as
    in the merged file: it was complete where it stood and stands in the same place now. So parts
    that parse cleanly mean a merged file without new errors.

    Markdown is cut only at whole sections; PHP parts get `<?php` in front, in a file that is PHP
    throughout. texts() is None, to parse the whole file, when top-level items may sit inside brackets
    (`namespace x {` over items at column 0), a part comes before a `package` or `import` line in
    Kotlin, starts indented after a cut, ends in an open comment or a `\\` continuation, or when
    the parts are most of the file."""

    def __init__(self, merged: str, ops: list[Op], source: Source, language: str) -> None:
        self.lines = merged.split("\n")
        self.source = source
        self.python = language == "python"
        self.php = language == "php"
        self.markdown = language == "markdown"
        self.preamble_first = language in PREAMBLE_FIRST
        self.copies = copied_runs(ops)  # (original start, original end, merged start), by start
        self.copy_starts = [run[0] for run in self.copies]
        self.run_ends = {at + end - start for start, end, at in self.copies}  # merged line after a run
        self.original_state = LexState(source.raw)
        self.merged_state = LexState(merged)
        self.merged_ends: list[int] = []  # merged line k starts at ends[k-1] + k; made on first use
        self.cuts: list[Cut] = []
        self.part_start = 0  # merged line the lexical states count from

    def texts(self, tree: list[Item]) -> list[str] | None:
        if self.php and (not self.source.raw.lstrip(BOM).startswith(PHP_OPEN) or "?>" in self.source.raw):
            return None  # parts are PHP code only where the whole file is
        if not self.top(tree):
            return None
        parts: list[list[str]] = [[]]
        k = 0
        for cut in self.cuts:
            if cut.start < k:
                return None
            parts[-1].extend(self.lines[k : cut.start])
            if cut.stand_in is None:
                parts.append([])
            elif cut.stand_in:
                parts[-1].append(cut.stand_in)
            k = cut.end
        parts[-1].extend(self.lines[k:])
        if sum(map(len, parts)) > CHANGED_SHARE * len(self.lines):
            return None
        texts = []
        for n, part in enumerate(parts):
            shown = [line for line in part if line.strip()]
            if not shown:
                continue
            if (n and shown[0][0] in " \t") or shown[-1].endswith("\\"):
                return None
            text = "\n".join(part)
            if text.count("/*") > text.count("*/"):
                return None
            texts.append(text if not self.php or shown[0].startswith(PHP_OPEN) else f"{PHP_OPEN}\n{text}")
        return texts

    def top(self, tree: list[Item]) -> bool:
        """Cuts between parts at the runs of top-level items copied whole; False when none may be
        cut."""
        if any(opens_block(item, self.source.lines) for item in tree):
            return False
        ends = [item.end for item in tree]
        changed = False  # merged lines before this run are not all copied whole (for Kotlin)
        last_end = n = 0
        while n < len(tree):
            last = self.copied_through(tree, ends, n)
            if last < n:
                changed = True
                if tree[n].nested:
                    self.start_part()
                    self.inside(tree[n])
                n += 1
                continue
            at = self.placed(tree[n])
            assert at is not None
            end = at + tree[last].end - tree[n].start
            if self.preamble_first:
                changed = changed or any(line.strip() for line in self.lines[last_end:at])
                if changed and any(
                    PREAMBLE.match(self.source.lines[item.header]) for item in tree[n : last + 1]
                ):
                    return False
            self.cuts.append(Cut(at, end, None, tree[n].start, tree[last].end))
            last_end, n = end, last + 1
        return True

    def copied_through(self, tree: list[Item], ends: list[int], n: int) -> int:
        """The last of the items from tree[n] on that one run copies whole and that may be cut
        (n - 1 for none). The last one may not when the code after it is inserted and indented."""
        k = self.run_of(tree[n])
        if k is None:
            return n - 1
        start, end, at = self.copies[k]
        last = bisect_right(ends, end, n) - 1
        if self.markdown:
            last = next((m - 1 for m in range(n, last + 1) if not self.cuttable(tree[m])), last)
        next_copied = last + 1 < len(tree) and tree[last + 1].start < end
        if last >= n and not next_copied and self.continued(at + tree[last].end - start):
            last -= 1
        return last

    def start_part(self) -> None:
        """Naive lexical states count from the start of the part (after the last top-level cut):
        the part is parsed on its own."""
        above = self.cuts[-1] if self.cuts else None
        if above is None or above.stand_in is not None or self.part_start == above.end:
            return
        self.part_start = above.end
        self.original_state.restart(self.source.offsets[above.original_end])
        self.merged_state.restart(self.merged_offset(above.end))

    def cuttable(self, item: Item) -> bool:
        """Markdown is cut only at whole sections: a heading starts a block wherever it stands."""
        return not self.markdown or MARKDOWN_HEADING.match(self.source.lines[item.header]) is not None

    def continued(self, line: int) -> bool:
        """Whether the first non-blank merged line from `line` on is indented: code inserted at the
        end of the item above (a method added last to a class). A line copied right after the
        item is the original's next top-level line."""
        if line < len(self.lines) and self.lines[line].strip() and line not in self.run_ends:
            return False
        return self.next_shown(line)[:1] in (" ", "\t")

    def continues_above(self, line: int, indent: int) -> bool:
        """Whether the first non-blank merged line from `line` on continues code at `indent` above
        it: it is indented deeper, or it is `else`, `} catch`, `.then(` (a closer less indented
        closes the parent instead)."""
        shown = self.next_shown(line)
        if shown and column(shown) > indent:
            return True
        if PURE_CLOSER.match(shown.strip()) and column(shown) < indent:
            return False
        return CONTINUATION.match(shown.strip()) is not None

    def next_shown(self, line: int) -> str:
        return next((text for text in islice(self.lines, line, None) if text.strip()), "")

    def inside(self, parent: Item) -> None:
        """Cuts at the children of a changed item that are copied whole. In a Python block (its
        header ends with `:`) a `pass` stands for them; in brackets nothing does."""
        block = self.python and self.source.lines[parent.header].split("#")[0].rstrip().endswith(":")
        for child in parent.children:
            at = self.placed(child)
            if at is None:
                if child.nested:
                    self.inside(child)
            elif self.may_cut(child, at):
                stand_in = leading(self.source.lines[child.start]) + "pass" if block else ""
                self.cut(Cut(at, at + child.end - child.start, stand_in, child.start, child.end))

    def may_cut(self, child: Item, at: int) -> bool:
        """A child copied whole to merged line `at` may be cut: it does not continue the sibling
        above, the line below does not continue it, and it stands alike in both files."""
        header = self.source.lines[child.header]
        if CONTINUATION.match(header.strip()) or not self.cuttable(child):
            return False
        end = at + child.end - child.start
        return not self.continues_above(end, column(header)) and self.stands_alike(child, at)

    def cut(self, cut: "Cut") -> None:
        """Adds a cut, joined to the one above when the same blank lines part them in both files
        and the same stand-in fits both."""
        above = self.cuts[-1] if self.cuts else None
        if (
            above is not None
            and above.stand_in == cut.stand_in
            and cut.start - above.end == cut.original_start - above.original_end
            and not any(line.strip() for line in self.lines[above.end : cut.start])
        ):
            above.end, above.original_end = cut.end, cut.original_end
        else:
            self.cuts.append(cut)

    def stands_alike(self, item: Item, at: int) -> bool:
        """Whether the naive lexical state (from the start of the part) is the same at both ends of
        an item copied to merged line `at`, and the same there as in the original: what follows it
        reads the same without it."""
        offsets = self.source.offsets
        before = self.original_state.at(offsets[item.start])
        after = self.original_state.at(offsets[item.end])
        return before == after == self.merged_state.at(self.merged_offset(at))

    def placed(self, item: Item) -> int | None:
        """The merged line where `item` starts when one run copies all of it, else None."""
        k = self.run_of(item)
        if k is None:
            return None
        start, _, at = self.copies[k]
        return at + item.start - start

    def run_of(self, item: Item) -> int | None:
        """The index of the run that copies all of `item`, or None."""
        k = bisect_right(self.copy_starts, item.start) - 1
        while k >= 0 and self.copies[k][1] <= item.start:
            k -= 1  # a run of blank lines copied again starts later but ends before the item
        return None if k < 0 or self.copies[k][1] < item.end else k

    def merged_offset(self, line: int) -> int:
        self.merged_ends = self.merged_ends or list(accumulate(map(len, self.lines)))
        return self.merged_ends[line - 1] + line if line else 0


@dataclass(slots=True)
class Cut:
    """Merged lines [start, end), copies of original lines [original_start, original_end), left out
    of the parts; stand_in None ends a part there, else the line (or "") that takes their place."""

    start: int
    end: int
    stand_in: str | None
    original_start: int
    original_end: int


def opens_block(item: Item, lines: list[str]) -> bool:
    """A one-line item that opens brackets its unindented followers sit in (`namespace geo {`)."""
    if item.nested or item.closer:
        return False
    line = QUOTED.sub("", lines[item.header])
    return sum(map(line.count, "([{")) > sum(map(line.count, ")]}"))


def copied_runs(ops: list[Op]) -> list[tuple[int, int, int]]:
    """(original start, original end, merged start) of each run of consecutive copied lines, sorted."""
    runs: list[tuple[int, int, int]] = []
    position = 0
    for op in ops:
        if op.start >= op.end:
            continue
        last = runs[-1] if runs else None
        if isinstance(op, Copy) and op.indent:
            pass  # re-indented: no copy of the original's text
        elif (
            isinstance(op, Copy)
            and last is not None
            and last[1] == op.start
            and last[2] + op.start - last[0] == position
        ):
            runs[-1] = (last[0], op.end, last[2])
        elif isinstance(op, Copy):
            runs.append((op.start, op.end, position))
        position += op.end - op.start
    return sorted(runs)


class LexState:
    """Naive lexical state before an offset of a text: open brackets, open `/* */` comments, and
    whether `"`, backticks and `\'\'\'` were seen an odd number of times. Strings and comments are
    not skipped: two texts compare alike only where they hold the same characters."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.base = self.offset = 0
        self.state = (0, 0, 0, 0, 0)

    def restart(self, offset: int) -> None:
        """Count from `offset` on, as from the start of a text."""
        self.base = self.offset = offset
        self.state = (0, 0, 0, 0, 0)

    def at(self, offset: int) -> tuple[int, int, int, int, int]:
        if offset < self.offset:
            self.restart(self.base)
        count, start = self.text.count, self.offset
        brackets, comments, quotes, backticks, triples = self.state
        brackets += count("(", start, offset) + count("[", start, offset) + count("{", start, offset)
        brackets -= count(")", start, offset) + count("]", start, offset) + count("}", start, offset)
        comments += count("/*", start, offset) - count("*/", start, offset)
        quotes ^= (count('"', start, offset) - count('\\"', start, offset)) & 1
        backticks ^= count("`", start, offset) & 1
        triples ^= count("'''", start, offset) & 1
        self.offset, self.state = offset, (brackets, comments, quotes, backticks, triples)
        return self.state


@lru_cache(maxsize=64)
def parse_errors(text: str, language: str) -> bool:
    return has_parse_errors(text, language)


HARD_BREAKS = {"markdown"}  # languages where trailing spaces are text (a line break), kept as written
NEARBY_LINES = 200  # how far below the last original line written a written line is looked for


class SpanWriter:
    """Turns a line plan into spans over the raw inputs, in the original's line-ending style. With
    `trim`, new lines lose the trailing whitespace that chat clients leave on code, where the
    original has none on any line."""

    def __init__(self, source: Source, edit: Source, trim: bool = True) -> None:
        self.source = source
        self.edit = edit
        self.trim = trim
        self.spans: list[Span] = [CopySpan(0, 1)] if source.bom else []
        self.open_line = False  # the last span ends inside a line (no line ending yet)
        self.after_found = -1  # the original line after the last one a written line was found at
        self.next_line = 0  # the original line after the last one copied: where a written line may be

    def write(self, ops: list[Op]) -> list[Span]:
        for op in ops:
            if isinstance(op, Copy) and op.indent:
                self.copy_indented(op)
            elif isinstance(op, Copy):
                self.copy(op.start, op.end)
            else:
                for k in range(op.start, op.end):
                    self.insert(k, op.reindent)
        self.end_file()
        return self.spans

    def add(self, span: Span) -> None:
        last = self.spans[-1] if self.spans else None
        if isinstance(span, CopySpan) and isinstance(last, CopySpan) and last.end == span.start:
            self.spans[-1] = CopySpan(last.start, span.end)
        elif isinstance(span, InsertSpan) and isinstance(last, InsertSpan) and last.end == span.start:
            self.spans[-1] = InsertSpan(last.start, span.end)
        elif isinstance(span, TextSpan) and isinstance(last, TextSpan):
            self.spans[-1] = TextSpan(last.text + span.text)
        else:
            self.spans.append(span)

    def close_line(self) -> None:
        if self.open_line:
            self.add(TextSpan(self.source.eol))
            self.open_line = False

    def copy(self, start: int, end: int) -> None:
        if start >= end:
            return
        self.close_line()
        offsets = self.source.offsets
        self.add(CopySpan(offsets[start], offsets[end]))
        self.open_line = end == len(self.source.lines) and not self.source.final_newline
        self.next_line = end

    def copy_indented(self, op: Copy) -> None:
        for k in range(op.start, op.end):
            self.close_line()
            line = self.source.lines[k]
            self.add(TextSpan(op.indent + line if line.strip() else line))
            self.open_line = True  # its line ending comes with what follows

    def insert(self, k: int, reindent: Reindent) -> None:
        line = self.edit.lines[k]
        text = reindent.apply(line)
        if self.trim and text.endswith((" ", "\t")) and not self.source.trailing_whitespace:
            text = text.rstrip()
        kept = self.nearby(text)
        if kept is not None and self.source.lines[kept] != text:
            # the original's bytes, its trailing spaces as they were (not a copy: the plan goes on below)
            self.close_line()
            self.add(TextSpan(self.source.lines[kept] + self.source.eol))
            return
        self.close_line()
        start = self.edit.offsets[k]
        raw_line = self.edit.raw[start : self.edit.offsets[k + 1]]
        if text == line and raw_line == line + self.source.eol:
            self.add(InsertSpan(start, self.edit.offsets[k + 1]))
        elif text == line and line and raw_line.startswith(line):  # (not a line the merge rewrote)
            self.add(InsertSpan(start, start + len(line)))
            self.add(TextSpan(self.source.eol))
        else:
            self.add(TextSpan(text + self.source.eol))

    def nearby(self, text: str) -> int | None:
        """The first original line a little below the last one copied that reads `text` but for
        trailing whitespace, which chat clients trim from code or add to it. A blank line takes the
        original's next line if that is blank."""
        lines = self.source.lines
        if not text.strip():  # a blank line: the original's next one, if blank (then the one after)
            blank = self.next_line < len(lines) and not lines[self.next_line].strip()
            self.next_line += blank
            if blank:
                return self.next_line - 1
            # or the one below the line just found there (a tab-only line in a function rewritten)
            found, self.after_found = self.after_found, -1
            return found if 0 <= found < len(lines) and not lines[found].strip() else None
        places = self.source.trimmed.get(text.rstrip(), [])
        k = bisect_left(places, self.next_line)
        if k == len(places) or places[k] >= self.next_line + NEARBY_LINES:
            if self.after_found >= 0:
                self.after_found += 1  # an edited line, in place of the original's there
            return None
        self.after_found = places[k] + 1
        return places[k]

    def end_file(self) -> None:
        """The merged file ends with a line ending exactly when the original does (when the
        snippet does, for an empty original)."""
        if self.source.final_newline or (not self.source.raw.strip(BOM) and self.edit.final_newline):
            self.close_line()
            return
        if self.open_line or not self.spans:
            return
        last = self.spans[-1]
        size = len(self.source.eol)
        if isinstance(last, TextSpan):
            self.spans[-1] = TextSpan(last.text[:-size] if last.text.endswith(self.source.eol) else last.text)
        elif isinstance(last, CopySpan):
            end = last.end - (2 if self.source.raw[: last.end].endswith("\r\n") else 1)
            self.spans[-1] = CopySpan(last.start, end)
        else:
            end = last.end - (2 if self.edit.raw[: last.end].endswith("\r\n") else 1)
            self.spans[-1] = InsertSpan(last.start, end)
