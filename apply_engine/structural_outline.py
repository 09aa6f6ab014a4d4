"""Outline: a file's lines as a tree of items, by indentation (headings in Markdown).

An item is a header line with the lines indented under it (its children), optional prefix lines
directly above it at the same indent (decorators, attributes, doc comments) and an optional
closer line at its own indent (`}`, `end`, `</div>`). Continuation lines at the same indent
(`} else {`, `elif x:`, `catch (e) {`) stay inside the item and open a child item of their own.

    lead <= start <= header < end;  lines[lead:start] are blank;  children lie in (header, end)
"""

import re
import threading
from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate, pairwise

from apply_engine.indent import ACCESS_LABEL

# (a closing word right before a colon is a key or a label: `done: done ?? this.done,`, `when: manual`;
# one called or assigned is a name, `done()`, `end = len(buf)`; Ruby's `when` continues a `case`,
# Kotlin's `when (x) {` starts a statement)
CONTINUATION = re.compile(
    r"^([{}\])]|</|\.[\w$]|(else|elif|except|finally)\b|"
    r"(end|fi|done|esac)\b(?!:|\s*\(|\s*=[^=])|(elsif|elseif|rescue|ensure|catch|when(?!\s*[({]))\b(?!:))"
)
# a switch's label, which gofmt and many C styles write as deep as the `switch` (no Scala `case x: T =>`)
SWITCH_LABEL = re.compile(r"^(case\b.*|default\s*):(?!.*=>)")
# languages whose blocks never open with a `{` line (there it starts a hash or a dict literal)
NO_BRACE_BLOCKS = frozenset({"python", "ruby", "elixir", "lua", "yaml", "toml", "starlark"})
ENDS_ELEMENT = re.compile(r"(,|[^=]>)\s*$")  # `},`, a JSX element: the `{` below starts the next
RULE = re.compile(r"^\.[\w-]+\s*:(?!:)")  # a Makefile's `.PHONY:`, a CSS `.card:hover {`
PURE_CLOSER = re.compile(r"^([}\])]+[;,)]*|</[\w.:-]+>|end|end;|fi|done|esac|end\s+\w+)$")
COMMENTS = r"//|/\*|#(?![\w\[!]|include|define|if|pragma)"  # `#` but not `#[derive]`, `#include`
# lines joined to the item below them: decorators and annotations (`@app.get("/")`, `#[derive]`,
# `[Fact]`), C++'s `template <typename T>` and comments; in Ruby `@name` starts a statement (an
# instance variable), no decorator
ATTRIBUTES = r"#\[|\[[A-Z]\w*(\(.*\))?\]$|template\s*<[^;{]*>$"
ANNOTATION_NAME = re.compile(r"@[\w.]+")
ATTRIBUTE = re.compile(rf"^(@[\w.]+|{ATTRIBUTES})")  # a decorator or an attribute, no comment
# Elixir's attributes of the function below (`@doc """`, `@spec f(t) :: t`, `@impl true`)
DEF_ATTRIBUTE = re.compile(r"^@(doc|spec|impl|deprecated)\s+\S")
DIRECTIVE = re.compile(r"^#\s*(if|ifdef|ifndef|else|elif|endif|include|define|undef|pragma)\b")  # `#  endif`
DOC_TAG_LINE = re.compile(r"^(?:#|//|\*)\s*@[A-Za-z]+\b")  # a doc tag's line: `# @param name [String]`
DOC_LINE = re.compile(r"^///")  # a line of a doc comment (Rust, C#, Swift, Dart): it documents the item below
PREFIX = re.compile(rf"^(@[\w.]+|{ATTRIBUTES}|{COMMENTS})")
SIGIL_PREFIX = re.compile(rf"^({ATTRIBUTES}|{COMMENTS})")
SIGIL_LANGUAGES = frozenset({"ruby"})
# Julia documents a declaration with a string right above it: `"""` (the item holds the lines up to
# the closing one, see LONG_STRINGS) or `"Area of a circle."`
DOCSTRING_PREFIX = re.compile(rf"^(@[\w.]+|{ATTRIBUTES}|{COMMENTS}|\"\"\"$|\"(?:[^\"\\]|\\.)*\"$)")
DOCSTRING_LANGUAGES = frozenset({"julia"})
# how a block's header shown without its body ends: `f(x) {`, `def f(x):`, `toString () { ... }`
HEADER_END = re.compile(r"([{(\[:]|[}.…])\s*;?\s*$")
# a declaration on one line (`def f(): return 1`, `fun port(): Int = 8080`): its comment is its doc
ONE_LINE_DECLARATION = re.compile(
    r"^(?:[\w@]+\s+)*?(?:def|fun|func|function|fn|class|struct|interface|enum|trait|type)\b"
)
COMMENT = re.compile(rf"^({COMMENTS})")
MARKDOWN_HEADING = re.compile(r"^(#{1,6})\s")
MARKDOWN_FENCE = re.compile(r"^\s*(```|~~~)")
MARKDOWN_CONTENT = 20  # virtual indent of Markdown body text: deeper than any heading
SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)\s*$")  # below a line of text: `Title` over `=====`
NOT_SETEXT_TEXT = re.compile(
    r"^(\s{4}|\s*([-*+>|]|\d+[.)])(\s|$)|#{1,6}\s|\s*(```|~~~))"
)  # code, list, quote, row, heading


class Item:
    """One item of an outline. Its children are outlined when first asked for: an aligner looks
    inside few of an original's items, so most are never expanded."""

    __slots__ = ("_children", "_expand", "closer", "end", "header", "lead", "marker", "removal", "start")

    def __init__(
        self,
        lead: int,
        start: int,
        header: int,
        end: int,
        marker: bool = False,
        removal: bool = False,  # a marker that says the code that stood here is deleted
        closer: bool = False,
        children: "list[Item] | None" = None,
        expand: "tuple[Outliner, int, int] | None" = None,  # outline lines [lo, hi) on demand
    ) -> None:
        self.lead, self.start, self.header, self.end = lead, start, header, end
        self.marker, self.removal, self.closer = marker, removal, closer
        self._children = children if children is not None or expand is not None else []
        self._expand = expand

    @property
    def children(self) -> "list[Item]":
        if self._children is None:
            outliner, lo, hi = self._expand  # type: ignore[misc]
            children = outliner.items(lo, hi)
            with EXPANDING:  # an Analysis is shared between threads: expand once
                if self._children is None:
                    self._children = children
        return self._children

    @property
    def nested(self) -> bool:
        """Whether the item has children, without outlining them."""
        if self._children is not None:
            return bool(self._children)
        outliner, lo, hi = self._expand  # type: ignore[misc]
        return outliner.last_shown[hi] >= lo

    def under(self, lead: int, start: int) -> "Item":
        """This item with prefix lines from `start` (blank lines from `lead`) above its header."""
        return Item(
            lead,
            start,
            self.header,
            self.end,
            closer=self.closer,
            children=self._children,
            expand=self._expand,
        )

    @property
    def prefix(self) -> bool:
        return self.start < self.header

    def __repr__(self) -> str:
        flags = "".join(f" {name}" for name in ("marker", "removal", "closer") if getattr(self, name))
        return f"Item({self.lead}, {self.start}, {self.header}, {self.end}{flags})"


EXPANDING = threading.Lock()


def markdown_columns(lines: list[str], columns: list[int]) -> list[int]:
    """Virtual indentation that nests Markdown sections under their headings. A setext heading's
    underline (`=====` below `1.0.0 / 2024-08-31`) is part of its line, as a string's lines are."""
    virtual = []
    fenced = False
    for k, (line, col) in enumerate(zip(lines, columns, strict=True)):
        heading = MARKDOWN_HEADING.match(line)
        underline = SETEXT_UNDERLINE.match(line)
        if MARKDOWN_FENCE.match(line):
            virtual.append(MARKDOWN_CONTENT + (4 if fenced else 0))
            fenced = not fenced
        elif col < 0:
            virtual.append(-1)
        elif heading and not fenced:
            virtual.append(2 * (len(heading.group(1)) - 1))
        elif underline and not fenced and k > 0 and setext_text(lines[k - 1], virtual[-1]):
            virtual[-1] = 0 if underline.group(1)[0] == "=" else 2  # the heading, as `#` or `##`
            virtual.append(CONTINUED)
        else:
            virtual.append(MARKDOWN_CONTENT + col + (4 if fenced else 0))
    return virtual


def setext_text(line: str, column: int) -> bool:
    """Whether a line (at virtual `column`) is the text of a setext heading when underlined: a
    paragraph's line, not code, a list item, a quote, a table row or a heading."""
    return column >= MARKDOWN_CONTENT and column < CONTINUED and not NOT_SETEXT_TEXT.match(line)


TOML_TABLE = re.compile(r"^\s*\[")
INI_SECTION = re.compile(r"^\[[^\[\]]+\]\s*([#;].*)?$")  # `[section]` of an INI, .cfg or .conf file
TOML_CONTENT = 4  # virtual indent of key lines under a [table] header


def table_columns(lines: list[str], columns: list[int], table: re.Pattern[str] = TOML_TABLE) -> list[int]:
    """Virtual indentation that nests keys under their [table] (TOML) or [section] (INI) headers."""
    virtual = []
    in_table = False
    for line, col in zip(lines, columns, strict=True):
        if col >= 0 and table.match(line) and col == 0:
            in_table = True
            virtual.append(0)
        else:
            virtual.append(col + TOML_CONTENT if in_table and col >= 0 else col)
    return virtual


DDL = re.compile(r"^(CREATE|ALTER|DROP|GRANT|REVOKE|COMMENT ON)\b", re.IGNORECASE)


def statement_columns(lines: list[str], columns: list[int]) -> list[int]:
    """SQL: the lines of a definition written over several lines at its first line's column
    (`CREATE FUNCTION f(text)`, `RETURNS setof record`, ..., `LANGUAGE C STRICT;`) stand one column
    deeper than that first line, so that the statement is one item up to the `;` that ends it. (A
    query's lines stay as they are: a snippet may show a `WITH` query's middle, never its start.)"""
    virtual = list(columns)
    open_at = None  # the column of the statement's first line, until a line ends it
    for k, line in enumerate(lines):
        text = line.strip()
        if columns[k] < 0 or text.startswith("--"):
            continue
        if open_at is None:
            open_at = columns[k] if DDL.match(text) else None
        elif columns[k] <= open_at:
            virtual[k] = open_at + 1
        if text.endswith(";"):
            open_at = None
    return virtual


def label_columns(lines: list[str], columns: list[int]) -> list[int]:
    """C++'s `public:` written at its class's column stands among the members below it, so that
    they stay the class's children."""
    virtual = list(columns)
    following = -1
    for k in range(len(lines) - 1, -1, -1):
        if columns[k] < 0:
            continue
        if following > columns[k] and ACCESS_LABEL.match(lines[k]):
            virtual[k] = following
        else:
            following = columns[k]
    return virtual


SWITCH = re.compile(r"^\s*(switch|select)\b.*\{\s*$")  # `switch self {`, Go's `select {`
CASE_LABEL = re.compile(r"^\s*(case\b|default\s*:|@unknown\s+default\s*:)")


def case_columns(lines: list[str], columns: list[int]) -> list[int]:
    """`case` labels written at their switch's column (the style of Go, Swift and some C) stand
    one column deeper, and the comments among them too: so that the switch holds its cases as any
    block holds its items."""
    virtual = list(columns)
    for k, line in enumerate(lines):
        if columns[k] < 0 or not SWITCH.match(line):
            continue
        at = columns[k]
        for j in range(k + 1, len(lines)):
            if columns[j] < 0 or columns[j] > at:
                continue
            if columns[j] < at or not (CASE_LABEL.match(lines[j]) or COMMENT.match(lines[j].lstrip())):
                break
            virtual[j] = at + 1
    return virtual


DIRECTIVE = re.compile(r"^\s*#\s*[a-z]+\b")  # `#ifdef _WIN32`, `#endif`, `#pragma omp parallel`


def directive_columns(lines: list[str], columns: list[int]) -> list[int]:
    """A preprocessor line written at column 0 inside a block (`#ifdef _WIN32` in a function)
    stands among the code around it (see among_code)."""
    return among_code(lines, columns, DIRECTIVE)


def comment_columns(lines: list[str], columns: list[int], prefixes: Sequence[str]) -> list[int]:
    """A comment line less indented than the code above and below it (code commented out at
    column 0 in a function, a CI job commented out between two jobs) stands among that code (see
    among_code): it neither ends the block nor holds the code below as its own."""
    if not prefixes:
        return columns
    return among_code(lines, columns, re.compile(rf"^\s*({'|'.join(map(re.escape, prefixes))})"))


def among_code(lines: list[str], columns: list[int], apart: re.Pattern[str]) -> list[int]:
    """The lines matching `apart`, each as deep as the line below it, or, above a block's closer,
    as the line above it; so that it does not end the block. A line already deeper stays."""
    virtual = list(columns)
    code = [k for k, at in enumerate(columns) if at >= 0 and not apart.match(lines[k])]
    for k, at in enumerate(columns):
        if at < 0 or not apart.match(lines[k]):
            continue
        n = bisect_right(code, k)
        if n == 0 or n == len(code):
            continue
        above, below = code[n - 1], code[n]
        if lines[above].rstrip().endswith("{"):
            inside = columns[below]
        elif PURE_CLOSER.match(lines[below].strip()):
            inside = columns[above]
        else:
            inside = min(columns[above], columns[below])
        virtual[k] = max(at, inside)
    return virtual


CONTINUED = 1 << 20  # virtual indent of lines inside a multi-line string: part of the line above
TRIPLE = ('"""', "'''")
BACKTICK_STRINGS = frozenset({"javascript", "typescript", "tsx"})  # template literals
LONG_STRINGS = {
    "python": re.compile(
        r"#[^\n]*|\"\"\"(?:\\.|[^\\])*?\"\"\"|'''(?:\\.|[^\\])*?'''|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'",
        re.S,  # `.` after a backslash: a line continuation (`"""\` opens many a template)
    ),
    "javascript": re.compile(
        r"//[^\n]*|/\*.*?\*/|`(?:\\.|[^`\\])*`|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'"
        # a regular expression literal (`/[",\n]/.test(s)`) where no division can stand: after `(`,
        # `=`, `,`, an operator, a line's start or `return`
        r"|(?:[(,=:\[!&|?{};\n]|\breturn)\s*/(?![*/])(?:\\.|\[(?:\\.|[^\]\\\n])*\]|[^/\\\n\[])+/",
        re.S,
    ),
}
LONG_STRINGS["typescript"] = LONG_STRINGS["tsx"] = LONG_STRINGS["javascript"]
# triple-quoted strings: Julia docstrings, Elixir heredocs, Java text blocks, C#, Scala, Kotlin,
# Swift, Groovy and Dart raw text
# (only `"` strings besides: a lone `'` is a transpose in Julia, a character elsewhere)
for language in ("julia", "elixir"):
    LONG_STRINGS[language] = re.compile(r"#[^\n]*|\"\"\"(?:\\.|[^\\])*?\"\"\"|\"(?:\\.|[^\"\\\n])*\"", re.S)
for language in ("java", "csharp", "scala", "kotlin", "swift", "groovy", "dart"):
    LONG_STRINGS[language] = re.compile(
        r"//[^\n]*|/\*.*?\*/|\"\"\"(?:\\.|[^\\])*?\"\"\"|'''(?:\\.|[^\\])*?'''|\"(?:\\.|[^\"\\\n])*\"", re.S
    )


HEREDOC = re.compile(r"<<(-?)\s*(['\"]?)([A-Za-z_]\w*)\2")  # `cat <<EOF`, `<<-'END'`


def heredoc_columns(lines: list[str], columns: list[int]) -> list[int]:
    """A shell heredoc's lines, its terminator too, continue the line that opens it (its text has
    no indentation of the script's own)."""
    virtual = list(columns)
    k = 0
    while k < len(lines):
        found = (
            HEREDOC.search(lines[k]) if "<<" in lines[k] and not lines[k].lstrip().startswith("#") else None
        )
        k += 1
        if found is None:
            continue
        word, tabs = found.group(3), found.group(1)
        while k < len(lines):
            line = lines[k].lstrip("\t") if tabs else lines[k]
            virtual[k] = CONTINUED if columns[k] >= 0 else -1
            k += 1
            if line.rstrip() == word:
                break
    return virtual


def string_columns(
    lines: list[str], columns: list[int], language: str, resumed: Sequence[int] = ()
) -> list[int]:
    """Lines inside a multi-line string (docstring, template literal, heredoc) continue the line it
    opens on. A snippet may resume a string whose opening a marker elides: from each line in
    `resumed` up to the string's closing delimiter, the lines are inside it too."""
    if language == "bash":
        return heredoc_columns(lines, columns)
    pattern = LONG_STRINGS.get(language)
    if pattern is None:
        return columns
    text = "\n".join(lines)
    delimiters = ("`",) if language in BACKTICK_STRINGS else TRIPLE
    if not any(quote in text for quote in delimiters):
        return columns
    if resumed:  # not where the string shown above the marker is still open (a docstring's marker)
        plain = string_columns(lines, columns, language)
        resumed = [k for k in resumed if plain[k] != CONTINUED]
    starts = list(accumulate((len(line) + 1 for line in lines), initial=0))
    virtual = list(columns)

    def inside(first: int, last: int) -> None:
        for k in range(first, last + 1):
            virtual[k] = CONTINUED if columns[k] >= 0 else -1

    pieces = sorted({0, *resumed, len(lines)})  # each scanned alone; a resumed one opens in a string
    for lo, hi in pairwise(pieces):
        position, end = starts[lo], starts[hi] - 1
        if lo in resumed:
            closers = [at for at in (text.find(quote, position, end) for quote in delimiters) if at >= 0]
            if not closers:
                continue
            closer = min(closers)
            inside(lo, bisect_right(starts, closer) - 1)
            position = closer + len(next(quote for quote in delimiters if text.startswith(quote, closer)))
        for found in pattern.finditer(text, position, end):
            token = found.group()
            if not token.startswith(delimiters) or "\n" not in token:
                continue
            first, last = bisect_right(starts, found.start()) - 1, bisect_right(starts, found.end() - 1) - 1
            inside(first + 1, last)
    return virtual


class Outliner:
    """Builds the item tree of one file; `markers` are line indices that never own children."""

    def __init__(
        self,
        lines: list[str],
        columns: list[int],
        markers: set[int],
        removals: set[int],
        prefix: re.Pattern[str],
        brace_blocks: bool = True,
    ) -> None:
        self.removals = removals
        self.prefix = prefix
        self.brace_blocks = brace_blocks  # whether a `{` line may open the block of the line above
        self.lines = lines
        self.columns = columns
        self.markers = markers
        self.block_end = block_ends(columns)
        self.last_shown = last_shown(columns)

    def items(self, lo: int, hi: int) -> list[Item]:
        items: list[Item] = []
        i = lo
        while i < hi:
            lead = i
            while i < hi and self.columns[i] < 0:
                i += 1
            if i >= hi:
                break
            item = self.item(lead, i, hi)
            items.append(item)
            i = item.end
        return attach_prefixes(items, self.lines, self.columns, self.prefix)

    def item(self, lead: int, i: int, hi: int) -> Item:
        if i in self.markers or i in self.removals:
            return Item(lead, i, i, i + 1, marker=True, removal=i in self.removals)
        base = self.columns[i]
        j = min(self.block_end[i], hi)
        closer = False
        while j < hi and self.columns[j] == base:
            if j in self.markers:
                if not self.elides_steps(i, j, hi):
                    break
                j += 1
                continue
            text = self.lines[j].strip()
            if not CONTINUATION.match(text) or self.starts_anew(i, j, text):
                break
            if PURE_CLOSER.match(text):
                if self.labels_switch_closed(i):
                    break
                closer = True
                j += 1
                break
            j = min(self.block_end[j], hi)
        end = self.last_shown[j] + 1
        body_end = end - 1 if closer else end
        return Item(lead, i, i, end, closer=closer, expand=(self, i + 1, body_end))

    def elides_steps(self, i: int, j: int, hi: int) -> bool:
        """A marker glued below the first step of a chain whose steps stand as deep as it
        (`raw.rename(...)`, `# ... existing steps ...`, `.assign(`): it elides some of the steps,
        so it and the steps below it continue the chain, as in the original."""
        if self.lines[i].lstrip().startswith(".") or self.last_shown[j] != j - 1:
            return False
        k = j + 1
        while k < hi and k in self.markers and self.columns[k] == self.columns[i]:
            k += 1
        return k < hi and self.columns[k] == self.columns[i] and self.lines[k].lstrip().startswith(".")

    def labels_switch_closed(self, i: int) -> bool:
        """Line `i` a `case ...:` label with no block of its own: a `}` as deep as it closes the
        switch around it, not the label."""
        header = self.lines[i].strip()
        return SWITCH_LABEL.match(header) is not None and not header.endswith("{")

    def starts_anew(self, i: int, j: int, text: str) -> bool:
        """A line that looks like a continuation but starts the next item: `{` after `},` or a JSX
        element (the next element or child, not the block of `if (x)`), a clause `{:ok, v} ->`, any `{`
        in a language without brace blocks (a Ruby hash below `response = post(url)`), a template's
        tag (`{% endif %}`), `.PHONY:` or `.chained()`
        after a blank line, or `.chained()` after the chain's first step at item `i` (each step of
        `.id(id)`, `.name(name)` is an item of its own, found by its name)."""
        if text.startswith(("{%", "{{", "{#")):
            return True  # a template's tag (`{% if show_form %}`, Helm's `{{- if .Values.x }}`)
        if text[0] == "{":  # (a clause matching a tuple, `{:error, reason} ->`, is no block's `{`)
            return (
                not self.brace_blocks
                or text.endswith(("->", "=>"))
                or ENDS_ELEMENT.search(self.lines[self.last_shown[j]]) is not None
            )
        if text[0] == ".":
            chained = self.lines[i].lstrip().startswith(".")
            return chained or self.last_shown[j] != j - 1 or RULE.match(text) is not None
        return False


def block_ends(columns: list[int]) -> list[int]:
    """For each line, the next non-blank line indented no deeper (len(columns) if none)."""
    ends = [len(columns)] * len(columns)
    stack: list[int] = []  # non-blank lines below, nearest on top, strictly shallower going down
    for k in range(len(columns) - 1, -1, -1):
        if columns[k] < 0:
            continue
        while stack and columns[stack[-1]] > columns[k]:
            stack.pop()
        if stack:
            ends[k] = stack[-1]
        stack.append(k)
    return ends


def last_shown(columns: list[int]) -> list[int]:
    """For each line index j (and len(columns)), the last non-blank line before j (-1 if none)."""
    found = [-1] * (len(columns) + 1)
    for j in range(1, len(columns) + 1):
        found[j] = j - 1 if columns[j - 1] >= 0 else found[j - 1]
    return found


def attach_prefixes(
    items: list[Item], lines: list[str], columns: list[int], prefix: re.Pattern[str]
) -> list[Item]:
    """Joins decorator, attribute and comment items to the item directly below them. Comments stay
    items of their own above a one-line statement (a config line, commented-out ones around it)
    and where no code follows them, so each is matched on its own. A marker between attributes
    (`[Theory]`, `// ... existing rows ...`, `[InlineData(...)]`) joins them too: it elides some of
    the original's (see `Aligner.prefix`)."""
    runs: list[list[Item]] = []
    for item in items:
        run = runs[-1] if runs else None
        if (
            run is not None
            and item.lead == item.start == run[-1].end
            and columns[run[0].start] == columns[item.start]
            and joins(run, item, lines, prefix)
        ):
            run.append(item)
        else:
            runs.append([item])
    joined: list[Item] = []
    for run in runs:
        code = run[-1]
        if len(run) == 1 or code.marker or prefix_line(lines[code.header].strip(), prefix):
            joined += run
            continue
        first = 0
        line = lines[code.header].strip()
        statement = not code.nested and not HEADER_END.search(line) and not ONE_LINE_DECLARATION.match(line)
        while statement and first < len(run) - 1 and COMMENT.match(lines[run[first].header].strip()):
            first += 1
        joined += run[:first]
        joined.append(code.under(run[first].lead, run[first].start))
    return joined


def annotations_alone(text: str) -> bool:
    """Whether a line that opens with `@` holds annotations and nothing after them (`@Override`,
    `@GetMapping("/x")`, `@app.route(` continued below), not an annotated declaration
    (`@ColumnInfo(name = "x") val x: Int,`, `@Input() name: string;`)."""
    at = 0
    while at < len(text) and text[at] == "@":
        found = ANNOTATION_NAME.match(text, at)
        if found is None:
            return False
        at = found.end()
        if text.startswith("(", at):
            depth = 0
            for end in range(at, len(text)):
                depth += (text[end] == "(") - (text[end] == ")")
                if depth == 0:
                    break
            else:
                return True  # its arguments go on below
            at = end + 1
        while at < len(text) and text[at] == " ":
            at += 1
    return at >= len(text)


def prefix_line(text: str, prefix: re.Pattern[str]) -> bool:
    """Whether a (stripped) line is one that joins the item below it."""
    return prefix.match(text) is not None and (
        not text.startswith("@") or annotations_alone(text) or DEF_ATTRIBUTE.match(text) is not None
    )


def joins(run: list[Item], item: Item, lines: list[str], prefix: re.Pattern[str]) -> bool:
    """Whether `item`, right below the run and as deep, continues a run of prefix lines: a marker
    right after an attribute or a comment's line (the rest of it elided); after such a marker,
    code or an attribute where the marker follows an attribute, a doc comment's line or a doc tag's
    (`# @param currency [String]`), and more of the comment where it follows a plain comment's line (`// Run backs up a tenant.`, `// ...`,
    `// Only one backup runs at a time.`); anything after a prefix line (never after a marker that
    starts a run)."""
    last = run[-1]
    if item.marker:
        text = lines[last.header].strip()
        return not last.marker and (ATTRIBUTE.match(text) or COMMENT.match(text)) is not None
    if last.marker:
        if len(run) < 2:
            return False
        # (after a plain comment's line, the marker elides the rest of that comment: more of it
        # follows, or the marker stands for code)
        above, below = lines[run[-2].header].strip(), lines[item.header].strip()
        return bool(ATTRIBUTE.match(above) or DOC_LINE.match(above) or DOC_TAG_LINE.match(above)) or bool(
            COMMENT.match(below) and not DIRECTIVE.match(below)
        )
    return prefix_line(lines[last.header].strip(), prefix)


def outline(
    lines: list[str],
    columns: list[int],
    markers: set[int],
    removals: frozenset[int] = frozenset(),
    language: str = "",
) -> list[Item]:
    prefix = SIGIL_PREFIX if language in SIGIL_LANGUAGES else PREFIX
    prefix = DOCSTRING_PREFIX if language in DOCSTRING_LANGUAGES else prefix
    brace_blocks = language not in NO_BRACE_BLOCKS
    return Outliner(lines, columns, markers, set(removals), prefix, brace_blocks).items(0, len(lines))
