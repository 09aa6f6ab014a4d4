"""Alignment: snippet items -> original items -> a line plan (copy original lines / insert snippet lines).

At each nesting level the snippet's items are a sequence of anchors (items that match an original
sibling), markers and new items. Anchors are matched by exact text or signature key (`def name`,
`"key":`, `app.get("/path"`), unique on both sides first, then unique within the gap between
neighbouring anchors, kept in order (LIS). Between two anchors:

    marker in between     -> the original items of the gap are kept where the marker stands; new
                             items next to an anchor with the signature of the original item there
                             are its edits, the others are insertions
    no marker in between  -> the gap is replaced by the snippet's new items (an explicit deletion,
                             checked against MAX_SILENT_DELETION)
    removal comment       -> the original item it names is deleted
    marker, deeper code   -> a fragment of an elided block: aligned inside the one original block
                             among the elided items whose children it matches; code after it less
                             indented steps out: it stands beside the blocks the fragment ends
    file edge, no marker  -> the omitted head/tail of the file is kept (a function given alone);
                             so is a block's omitted tail when the snippet ends inside that block
                             and elides something in it, and the siblings after a block whose last
                             line is a marker no deeper than its header (TOML, Markdown)

Matched items are copied when equal, recursed into when both have children, else replaced.
Anything unsure (twins, look-alike neighbours, new code between two markers) is reported as a
Reason and the level returns None.
"""

import re
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher
from functools import cached_property
from itertools import islice, pairwise, takewhile

from apply_engine.indent import Reindent, leading, levels
from apply_engine.keys import (
    CONTROL,
    FIRST_WORD_END,
    ROW,
    balanced,
    call_key,
    ends_with_name,
    normalize,
    signature_key,
)
from apply_engine.markers import NAMING_WORD, elided_body, naming_words, removal_head
from apply_engine.schemas import Reason
from apply_engine.structural_outline import COMMENT, PURE_CLOSER, SWITCH_LABEL, Item

MAX_SILENT_DELETION = 8  # non-blank original lines a marker-less gap may drop unreplaced
DELETION_RATIO = 2  # ... and only while it replaces at least 1/DELETION_RATIO as many lines

NAME = re.compile(r"[A-Za-z_$][\w$]*")
PROSE_COMMENT = re.compile(r"^(#|//|--|;)\s*[A-Z][a-z]+(\s+\S+){3}")  # `# If you wish to ...`: a sentence
INNERMOST_BRACKETS = re.compile(r"\([^()\[\]{}]*\)|\[[^()\[\]{}]*\]|\{[^()\[\]{}]*\}")
# a field of a one-line table row: `path: '/orders'`, `want: 2048` (see keys.ROW)
ROW_FIELD = re.compile(r"[\w$\"']+\s*:\s*(?:\"[^\"]*\"|'[^']*'|[^,{}]+?)(?=\s*[,}])")
BINDING = re.compile(
    r"^(?:export\s+(?:(?:const|let|var)\s+)?|(?:const|let|var)\s+)([{\[])"
)  # see bound_names
BINDING_NOISE = frozenset({"as", "type", "default"})
# an import of names from a module path: `import scala.math.{Pi, sqrt}`, `use std::io::Write;`,
# `alias Shop.{Cart, Item}`
PATH_IMPORT = re.compile(r"^(?:import|(?:pub )?use|alias) ([\w.:]+?)(?:\.|::)(?:\{([^{}]*)\}|([\w$]+));?$")
# or a plain list of modules or names: `using LinearAlgebra, Statistics`, `export area, perimeter`
LIST_IMPORT = re.compile(r"^(import|using|export) ([\w.!@]+(?:\s*,\s*[\w.!@]+)*);?$")
# a doc comment's tag: `* @param {string} load`, `/// <param name="max">` (not a decorator: see doc_key)
DOC_TAG = re.compile(
    r"^(?:/\*\*|\*|///|//!|//|#)\s*(?:@(?P<tag>[A-Za-z]+)\b(?P<rest>.*)|<(?P<element>[A-Za-z]+)(?:\s+name=\"(?P<name>[^\"]*)\")?)"
)
HEADER = "\0header"  # the key of an item's own line below its comment (see Aligner.prefix)
DOC_BLANK = re.compile(r"^(?:/?\*+/?|///|//!|//|#)$")  # a doc comment's blank line: ` *`, `///`
# doc tags that name what they document (`@param load`, `@throws IOException`; see doc_key)
NAMED_TAGS = frozenset(
    {"param", "arg", "argument", "property", "prop", "field", "typeparam", "template"}
    | {"throw", "exception", "raise"}
)
WILDCARD_IMPORT = re.compile(r"^import (?:static )?([\w.]+)\.[*_];?$")
# Go's declarations, one to a line or grouped: `import "fmt"`, `const (` ... `)` (see grouped)
GO_DECLARATION = re.compile(
    r"^(import|const|var|type) (?:\(\n(?P<group>.*)\n\)|(?P<one>[^(\n][^\n]*))$", re.S
)
BARE_WORD = re.compile(r"^[^\w(]*\w*[^\w(]*$")  # `fi`, `end`, `} else {`, `});`
CALLBACK_PARAMETERS = re.compile(r"(?:async\s*)?\([^()]*\)\s*=>|\w+\s*=>")  # `(to) =>`, `x =>`
BARE_CALLBACK = re.compile(r"^[\w$.]+\((async )?(\(\) =>|function ?\(\)) \{$")  # `useEffect(() => {`
IMPORT_WORDS = frozenset(
    {"import", "from", "as", "use", "using", "include", "require", "const", "let", "var"}
)
REMOVAL_NOISE = frozenset(
    [
        "remove",
        "removed",
        "delete",
        "deleted",
        "drop",
        "dropped",
        "the",
        "a",
        "an",
        "this",
        "that",
        "old",
        "unused",
        "legacy",
        "function",
        "method",
        "class",
        "field",
        "import",
        "property",
        "block",
        "section",
        "rule",
        "key",
        "entry",
        "line",
        "handler",
        "route",
        "here",
    ]
)
TYPE_DECLARATION = re.compile(r"\b(class|struct|interface|enum|impl|namespace|module|object|trait|record)\b")
DOCSTRING = ('"""', "'''")
# a method after its return type and modifiers: `public static IReadOnlyList<Summary> Top(int days, int n)`
TYPED_METHOD = re.compile(
    r"^((?:[\w$.]+(?:<.*>)?(?:\[\])*\??\s+)+)([A-Za-z_$][\w$]*)\s*(\([^()]*\))\s*(?:\{|throws\b.*)?$"
)
DECLARING = frozenset({"fun", "def", "function", "func", "fn", "sub", "proc", "new", "return"})
DATA_LANGUAGES = frozenset({"json", "yaml", "toml", "xml", "html", "css", "scss", "markdown", "text"})
ONE_PER_FILE = (*DOCSTRING, "#!")  # a docstring (of this level), a shebang
# ... and the file's package (Java, Kotlin, Go), or its namespace when file-scoped (C#'s `namespace A.B;`)
FILE_SCOPE = re.compile(r"^(package\s+[\w.]+;?|namespace\s+[\w.]+;)$")
MIN_INNER_LETTERS = 8  # a line inside a block that tells it from its look-alikes (`name="line2"`)
MIN_KEY_LETTERS = 3  # ... of a block whose own key names something (no bare `{`)
MIN_RENAMED_BODY_LINES = 2  # a shorter identical body proves nothing
MIN_RENAMED_BODY_CHARS = 40  # ... nor does a body of two short lines (`self.close()`, `return self`)
DECLARED_NAME = re.compile(r"[A-Za-z_$][\w$]*$")  # the name a declaration's key ends with: `def parse`
MIN_ELSEWHERE_LINES = 3  # new lines that, standing below the same first line in the original, are it
ELSEWHERE_WINDOW = 12  # ... among the lines after that first line
MIN_WRAPPED_LINES = 2  # elided lines a new block must write out to be taken as wrapping them
MIN_WRAPPED_CHARS = 16  # ... or letters and digits of one line
ARM_LABELS = frozenset({"case", "when"})  # a switch arm is named by its label
ARM_END = re.compile(r"\s*(:|\bthen|=>|->|\{)\s*$")  # `case x:`, `when x then`, `when (x) ->`
ARM_SEPARATOR = re.compile(r",|\s\|\s")  # `case a, b:`, `when a | b`
# a second of these right after the first would be dead code (a Dockerfile keeps only its last CMD)
TERMINATORS = frozenset({"return", "raise", "throw", "CMD", "ENTRYPOINT", "HEALTHCHECK"})
# How alike a new block next to an elided one of the same kind (`if`, `it "..." do`, `{`) must be
# to be its edit; between UNSURE and EDIT it may be an edit or a new look-alike, which is ambiguous.
BLOCK_EDIT_SIMILARITY = 0.8
BLOCK_UNSURE_SIMILARITY = 0.6
# a block under one of these whose condition changed is found by its first line inside, when that
# line has this many letters and digits (see Aligner.condition_body_of)
CONDITIONS = frozenset({"if", "elif", "while", "for", "foreach", "unless", "until"})
CONDITIONS_START = tuple(CONDITIONS)
HANDLERS = frozenset({"except", "catch", "rescue"})  # ... and so is a clause under these
HANDLERS_START = tuple(HANDLERS)
LOG_CALL = re.compile(
    r"^(.*[.:])(trace|debug|info|notice|warn|warning|error|fatal|critical|verbose)(\(.*)$", re.IGNORECASE
)  # `log.debug(...)`, `logger.warn(...)`, `Log::info(...)`: a call by its level
QUOTES = re.compile(r"[\"'`]")
STRING = re.compile(r"""(["'`])(?:\\.|(?!\1).)*\1""")  # a quoted string on one line
DISTINCT_VALUE_SIMILARITY = 0.5  # below it, two quoted values name different things ('PUT', 'GET')
MIN_DISTINCT_WORD = 4  # letters of the part where two quoted values differ, to be a word of its own
CLAUSE = re.compile(
    r"^(\}\s*)?(else|elseif|elif|elsif|except|finally|rescue|ensure|catch|when)\b"
)  # continues a block
# clauses a block has one of, or of which the first after its body is the one a marker above it leaves
ONE_PER_CHAIN = frozenset({"else", "except", "finally", "rescue", "ensure", "catch"})
JSX_CONDITION = re.compile(r"^\{.*(&&|\?) ?\($")  # `{user.isOwner && (`, `{loading ? (`
WRAPPERS = CONDITIONS | {"try", "with", "do", "else", "switch", "begin", "lock", "using", "synchronized"}
BARE_KEYWORD = re.compile(r"^\w+\s*[:{]?$")  # `try:`, `do {`: a header that names nothing
# a call whose last argument opens a function around the lines below: `lock.run(async () => {`,
# `pcall(function()`, `db.Transaction(func(tx *sql.Tx) error {`; or ends in a block passed to it:
# `withContext(Dispatchers.IO) {`, `queue.sync {`, `File.open(path) do |f|`
CALLBACK_OPENER = re.compile(r"(=>\s*\{|\b(function|func)\s*\([^()]*\)[^(){}]*\{?)$")
TRAILING_BLOCK = re.compile(
    r"^((val|var|let|const|return)\s+([\w, ]+=\s*)?)?[\w.:]+(\([^()]*\))?\s*"
    r"(\{(\s*\w+(\s*,\s*\w+)*\s*->)?|do(\s*\|[\w, ]+\|)?)$"
)
NOT_CALLS = frozenset({"fun", "func", "def", "class", "object", "init", "get", "set", "defer", "deinit"})
MIN_CONDITION_BODY = 16
# a condition's block by its first line: `if (a || b) {` -> `a || b`; `while a and b:` -> `a and b`
CONDITION = re.compile(r"^(if|elif|while|unless|until)\b\s*(.*?)\s*(\{|:|then|do)?$")
CONDITION_WORDS = frozenset(
    {"self", "this", "not", "and", "or", "is", "in", "None", "null", "nil", "true", "false"}
)
LOGICAL = re.compile(r"\s+(\|\||&&|and|or)\s+")  # between a condition's operands
# a name in a parameter's place in a signature (`(options: T,`, `, int count)`, `$opts = []`), not
# a type's (`x: int`, `-> int`); and a name used bare, not as a member (`this.options`, `$a->opts`)
PARAMETER = r"(?:^|[(,*&]|\.\.\.|[\w\]]\s|(?<!-)>\s)\s*{}\s*(?:[:,)=?]|\s[\w*&\[(]|$)"
BARE_USE = r"(?<![\w$.])(?<!->)(?<!::){}(?![\w$])"
MIN_RENAMED_VALUE = 10  # letters and digits of a call shown under another key (see `renamed_key`)
ARM = re.compile(r"^(case\b.*:|.*(=>|->) ?\{?)$")  # `case .a:`, `Some(n) => {`, `{:ok, v} ->`
ARM_GUARD = re.compile(r"^(?P<pattern>.+?) (if|where|when) .+?(?P<arrow> ?(=>|->) ?\{?|:)$")
ELEMENTS = re.compile(r"(\w+, )+\w+,?")  # a row of a list of names: `COMMA, DOT, COLON,`
MIN_ROW_NAMES = 2
KEYWORD_ARGUMENT = re.compile(
    r"(?<![\w.=!<>:])(\w+)\s*=(?![=>])"
)  # `workers=`, not `a == b`, `x.y = 1`, `=>`
STATEMENT_CALL = re.compile(
    r"^(?:(?:const|let|var|val|auto)\s+)?(?:[\w$.]+\s*=\s*)?(?:(?:await|return|yield)\s+)?([\w$.]+\()"
)
MIN_CALL_LETTERS = 12  # of a call two statements make alike, to tell them edit and original
CONTINUED = re.compile(r"\s*(;|,|&&|\|\||\+|\band|\bor|\\)$")  # what ends a line the next one continues
LINE_UNSURE_SIMILARITY = 0.75  # the same for two unnamed lines of one kind (`CMD [...]`, `print(...)`)
# a declaration or assignment that binds a statement's value: `let mut n = `, `err := `, `const r = await `
VALUE_BOUND = re.compile(
    r"(?:(?:let|const|var|val|auto|final)\s+)?(?:mut\s+)?[A-Za-z_$][\w$]*(?:\s*:\s*[\w<>\[\], ]+)?"
    r"\s*:?=\s*(?:await\s+|try\s+)?"
)
SIGNATURE_QUALIFIERS = re.compile(r"(?<=\))(?:\s+(?:throws|rethrows|async|const|noexcept|override|final))+$")
MIN_MOVED_LINES = 3  # own lines of deleted code that tell it moved (see Aligner.moved_into_new_code)
MIN_TABLED = 2  # deleted look-alike blocks whose strings a new table may hold (see Aligner.tabled)
DEPRECATED = re.compile(r"deprecat|obsolete|legacy", re.IGNORECASE)  # see Aligner.deprecated
DEPRECATION_LINES = 3  # a declaration's lines from its header on that may say it (a docstring's first)
MEMBER_CHAIN = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|->|::)[A-Za-z_$][\w$]*)+")  # `c.IdleTimeout`, `self.a.b`
CALLED = re.compile(r"([A-Za-z_$][\w$]*)\s*\(")  # a name a call or a declaration opens: `_check_prepared(`
MIN_CALLED_NAME = 3  # letters of a new function's name, to tell a call of it (see Aligner.extracted)
CALLEE = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)*")  # `std::shuffle`, `self.log.info`
SIGNATURE_OPEN = re.compile(r"\((\s*[{\[])?$")  # `def place(`, `function List({` (destructured)
SIGNATURE_CLOSE = re.compile(r"^[}\]]?[^(){}\[\]]*\)")  # `) -> Order:`, `}: Props) {`
SIGNATURE_SPACE = re.compile(r"\s+|,(?=\))")  # what a signature's line breaks add: `(\n a,\n)` is `(a)`
PARAGRAPH = re.compile(r"^[\w\"'(]")
MARKUP_TAG = re.compile(r"^<([A-Za-z][\w.:-]*)")
BARE_CALL = re.compile(r"^(const |new )?[\w$.]+\($")  # `ListTile(`: a call whose arguments follow, one a line
BARE_TAG = re.compile(r"^<([A-Za-z][\w.:-]*)>$")  # `<td>`, `<li>`: an element known by its tag alone
COMMENT_START = re.compile(r"^(/\*|//|#|<!--|\*|--|;)")
NUMBER = re.compile(r"\d+")
CODE_TOKEN = re.compile(r"[A-Za-z_$][\w$]*|\d+|\S")  # a name, a number, or one sign
MAX_WRAP_TOKENS = 6  # tokens of a call put around or after a value (`.map(ident)`: five)
LETTERED = re.compile(r"[A-Za-z]{2,}")  # a word of a comment's text
MIN_WORDS = 2  # words of a comment line that, its numbers changed, stays that line (see renumbered)
IMPORT_LINE = re.compile(
    r"^\s*(import\b|from\s+[\w.]+\s+import\b|use\s+[\w:]+|using\s+[\w.=\s]+;|#\s*include\b|"
    r"(const|let|var)\s+[\w{}\s,]+=\s*require\()"
)
FIRST_ONLY = re.compile(
    r"^\s*(#!|package\b|<\?php|[\"']use (strict|client|server)[\"']|\"\"\"|\'\'\'|r\"\"\")"
)
OPENS_BLOCK = re.compile(r"[{(\[:]\s*$")
UNFOLDS = re.compile(r"(?:[{(\[]|->|=>)\s*$")  # a line that opens what a line of its own could hold
BARE_BLOCK = re.compile(r"^(try|do|begin|loop|unsafe)\s*[{:]?$")  # a block known by its keyword alone
DECORATOR_START = ("@", "#[")  # `@app.get("/")`, `@Override`, Rust's `#[test]`
ASSIGNED_CALL = re.compile(r"^([\w$.]+)\s*=\s*(?:await\s+|try\s+)?([\w$.]+(?:::[\w$]+)*)\(")  # `crc = crc16(`


@dataclass(frozen=True)
class Copy:
    """Original lines [start, end); `indent` goes in front of each non-blank one (elided code
    that new code wraps, one block deeper)."""

    start: int
    end: int
    indent: str = ""


@dataclass(frozen=True)
class Insert:
    """Snippet lines [start, end), re-indented."""

    start: int
    end: int
    reindent: Reindent


Op = Copy | Insert


@dataclass(frozen=True)
class Fragment:
    """Code after a marker indented deeper than the anchors of its level: a piece of some elided
    block, aligned inside the one original block that holds it (see `Aligner.keep`)."""

    items: list[Item]  # the marker before it, its items, and the marker after it if any
    closers: int  # the closers below it: its block ends there, and so do closers - 1 blocks around it
    elided_after: bool  # a marker (or the file's kept tail) follows: what comes after its block is elided
    marker_outside: bool = False  # the marker after it stands below its closers, outside its block

    @property
    def closed(self) -> bool:
        """Shown to its block's end: a closer below it, or the next anchor."""
        return bool(self.closers) or not self.elided_after


@dataclass
class Side:
    """One input's lines with cached item texts and keys."""

    lines: list[str]
    texts: dict[tuple[int, int], str] = field(default_factory=dict)  # by (start, end)
    keys: dict[int, str] = field(default_factory=dict)  # by header line
    normalized_lines: list[str] | None = None  # by line, "" for a blank one; made on first use
    places: dict[str, list[int]] | None = None  # where each normalised line stands; made on first use
    markers: frozenset[int] = frozenset()  # a snippet's marker lines
    language: str = ""  # for the keys of a few languages (see keys.signature_key)
    strings: frozenset[int] = frozenset()  # lines inside multi-line strings
    headed_by: dict[str, int] = field(default_factory=dict)  # see headed

    def string_opener(self, k: int) -> int | None:
        """The line that opens the multi-line string line k stands in; k itself outside one; None
        when a marker above elides the opening."""
        if k not in self.strings:
            return k
        while k > 0 and (k in self.strings or not self.lines[k].strip()):
            k -= 1
        return None if k in self.markers else k

    @property
    def normalized(self) -> list[str]:
        if self.normalized_lines is None:
            self.normalized_lines = [" ".join(line.split()) for line in self.lines]
        return self.normalized_lines

    def where(self, line: str) -> list[int]:
        """The lines that read `line` (normalised)."""
        if self.places is None:
            places: dict[str, list[int]] = defaultdict(list)
            for k, text in enumerate(self.normalized):
                places[text].append(k)
            self.places = places
        return self.places.get(line, [])

    def headed(self, key: str) -> int:
        """How many lines start with `key` as a whole word: the clauses or overloads of a name."""
        found = self.headed_by.get(key)
        if found is None:
            word = re.compile(re.escape(key) + r"(?![\w$])")
            found = self.headed_by[key] = sum(1 for line in self.normalized if word.match(line))
        return found

    def text(self, item: Item) -> str:
        cached = self.texts.get((item.start, item.end))
        if cached is None:
            cached = "\n".join(filter(None, self.normalized[item.start : item.end]))
            self.texts[item.start, item.end] = cached
        return cached

    def key(self, item: Item) -> str:
        """`toString () { ... }` is keyed as its header `toString () {`, the way its original is; an
        import over several lines (`import {` ... `} from "x";`) by its first and last lines; a call
        whose arguments start on the next line as if its first, a string, were on its line."""
        cached = self.keys.get(item.header)
        if cached is None:
            line = self.lines[item.header]
            if item.end - item.header > 1 and line.lstrip().startswith("import") and " from " not in line:
                line = f"{line} {self.lines[item.end - 1].strip()}"
            elif line.rstrip().endswith("(") and item.children:  # `add_argument(` / `"year",`
                first = self.lines[item.children[0].header].strip()
                named = first.startswith(("'", '"', "`")) or self.language == "cmake"  # `fmt` in CMake
                line = line.rstrip() + first if named else line
            cached = self.keys[item.header] = signature_key(elided_body(line) or line, self.language)
        return cached

    def is_comment(self, item: Item) -> bool:
        return COMMENT.match(self.normalized[item.header]) is not None

    def code(self, items: list[Item]) -> list[Item]:
        """The items whose header is code: not blank, no comment."""
        return [item for item in items if self.normalized[item.header] and not self.is_comment(item)]

    def nonblank(self, items: Sequence[Item]) -> int:
        return sum(1 for item in items for line in self.normalized[item.start : item.end] if line)


def longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of (snippet, original) pairs, sorted by snippet index, whose
    original indices increase. E.g. [(0, 2), (1, 0), (2, 1), (3, 3)] -> [(1, 0), (2, 1), (3, 3)]."""
    pairs = sorted(pairs)
    tails: list[int] = []  # tails[k]: original index ending the best chain of length k+1
    tail_at: list[int] = []
    back: list[int] = []
    for n, (_, o) in enumerate(pairs):
        k = bisect_left(tails, o)
        if k == len(tails):
            tails.append(o)
            tail_at.append(n)
        else:
            tails[k] = o
            tail_at[k] = n
        back.append(tail_at[k - 1] if k else -1)
    chain = []
    n = tail_at[-1] if tail_at else -1
    while n >= 0:
        chain.append(pairs[n])
        n = back[n]
    return chain[::-1]


def condition_of(header: str) -> tuple[str, str] | None:
    """A condition's block by its first line: `if (a || b) {` -> ("if", "a || b"); None for any
    other line."""
    found = CONDITION.match(header)
    if found is None:
        return None
    word, condition = found.group(1), found.group(2)
    if condition.startswith("(") and condition.endswith(")") and balanced(condition[1:-1]):
        condition = condition[1:-1].strip()
    return (word, condition) if condition and balanced(condition) else None


def operand_more(header: str, other: str) -> bool:
    """One condition is the other's with operands more after it (`if (a) {`, `if (a || b) {`)."""
    found, other_found = condition_of(header), condition_of(other)
    if found is None or other_found is None or found[0] != other_found[0]:
        return False
    longer, shorter = sorted((found[1], other_found[1]), key=len, reverse=True)
    return longer.startswith(shorter) and LOGICAL.match(longer, len(shorter)) is not None


def body(side: Side, item: Item) -> str:
    """An item's lines below its header, whitespace-normalised."""
    return "\n".join(filter(None, side.normalized[item.header + 1 : item.end]))


def holds(lines: list[str], run: list[str]) -> bool:
    """Whether `run` stands in `lines`, its lines one after another."""
    return any(lines[k : k + len(run)] == run for k in range(len(lines) - len(run) + 1))


def holds_item(op: Op, item: Item) -> bool:
    """Whether the op writes all of the item's lines (of its side)."""
    return op.start <= item.start < item.end <= op.end


def has_marker(item: Item) -> bool:
    return item.marker or any(has_marker(child) for child in item.children)


def bound_names(text: str) -> set[str]:
    """The names an export list or a destructuring declaration binds (`export { a, b as c }`,
    `const [n, setN] =`); none for other code."""
    found = BINDING.match(text)
    if found is None:
        return set()
    inside = text[found.end() : text.find("]" if found.group(1) == "[" else "}", found.end())]
    return set(NAME.findall(inside)) - BINDING_NOISE


def path_import(text: str) -> tuple[str, set[str]] | None:
    """The module and the names of an import from a module path (see PATH_IMPORT), or the keyword
    and the names of a plain list (LIST_IMPORT)."""
    found = PATH_IMPORT.match(text)
    if found is not None:
        module, listed, single = found.groups()
        return module, set(NAME.findall(listed or single)) - BINDING_NOISE
    found = LIST_IMPORT.match(text)
    if found is not None:
        keyword, listed = found.groups()
        return keyword, {name.strip() for name in listed.split(",")}
    return None


def wildcard_package(text: str) -> str | None:
    """The package a wildcard import takes all of: `import java.io.*;` -> "java.io" (Scala: `._`)."""
    found = WILDCARD_IMPORT.match(text)
    return found.group(1) if found else None


def doc_entries(
    lines: Sequence[str], start: int, stop: int, markers: frozenset[int]
) -> list[tuple[int, int, str]]:
    """The entries of the comment lines [start, stop), blank lines and markers left out: (first
    line, past the last, key). A doc tag's line and the lines that go on with it are one entry,
    known by the tag and the name it documents (`@param int $ttl Lifetime...` and the line below
    it: "@param $ttl"; see doc_key); any other line is an entry of its own, as it reads."""
    entries: list[tuple[int, int, str]] = []
    tagged = False
    for k in range(start, stop):
        line = lines[k]
        if k in markers or not line or DOC_BLANK.match(line):
            tagged = False
            if line and k not in markers:
                entries.append((k, k + 1, line))
            continue
        key = doc_key(line)
        if tagged and key == line and not line.endswith("*/"):
            entries[-1] = (entries[-1][0], k + 1, entries[-1][2])  # the tag's text goes on
            continue
        tagged = key != line
        entries.append((k, k + 1, key))
    return entries


def doc_key(line: str) -> str:
    """A doc tag's key: `@param {string} load - ...` -> "@param load", `@param int|null $ttl ...`
    -> "@param $ttl", `@returns ...` -> "@return", `<param name="max">` -> "<param max>"; a line
    with no tag is its own key."""
    found = DOC_TAG.match(line)
    if found is None:
        return line
    if found.group("element"):
        return f"<{found.group('element')} {found.group('name') or ''}>"
    tag = found.group("tag").lower().removesuffix("s")  # `@returns` is `@return`, `@throws` `@throw`
    if tag not in NAMED_TAGS:
        return f"@{tag}"
    words = re.sub(r"\{[^}]*\}", " ", found.group("rest")).split()
    name = next((word for word in words if word.startswith("$")), words[0] if words else "")
    return f"@{tag} {name.strip('[]')}"


def placed_once(shown: list[str], keys: list[str], lo: int, last: bool) -> int | None:
    """Where the fewest entries at one end of `shown` (its last, or its first) that stand once in
    `keys` from lo on, one after another, and tell a place stand there: past their end, or their
    start. Doc tags the original has nowhere (a new `@param`) are left out: they place nothing.
    ` *` above a marker in a docblock stands there often and tells nothing; ` * Issues an
    invoice.`, ` *` together stand once. All of `shown` may tell nothing, found once."""
    known = set(keys[lo:])
    shown = [key for key in shown if key in known or not key.startswith(("@", "<"))]
    for n in range(1, len(shown) + 1):
        run = shown[-n:] if last else shown[:n]
        places = [p for p in range(lo, len(keys) - n + 1) if keys[p : p + n] == run]
        if not places:
            return None
        if len(places) == 1 and (n == len(shown) or any(letters(key) >= MIN_KEY_LETTERS for key in run)):
            return places[0] + n if last else places[0]
    return None


def grouped(text: str) -> tuple[str, set[str]] | None:
    """The keyword and the declarations of Go's `import`, `const`, `var` or `type`, one or grouped:
    `import "fmt"` -> ("import", {'"fmt"'}); `const (` `a = 1` `b = 2` `)` -> ("const", {"a = 1", "b = 2"})."""
    found = GO_DECLARATION.match(text)
    if found is None:
        return None
    lines = (found.group("group") or found.group("one")).split("\n")
    return found.group(1), {" ".join(line.split()) for line in lines if line.strip()}


def arm_values(header: str) -> set[str]:
    """The values a `case` or `when` arm matches: `case .card, .applePay:` -> {".card", ".applePay"}."""
    label = header.split(maxsplit=1)[1] if " " in header else ""
    label = ARM_END.sub("", label)
    return {value.strip() for value in ARM_SEPARATOR.split(label) if value.strip()}


def tests_another_value(line: str, other: str) -> bool:
    """The same condition but for a quoted value, another word than the other's (`=== 'PUT'`,
    `=== 'GET'`), not the same one mended (`'actve'`, `'active'`)."""
    values, other_values = ([found.group() for found in STRING.finditer(text)] for text in (line, other))
    if len(values) != len(other_values) or STRING.sub('""', line) != STRING.sub('""', other):
        return False
    changed = [(a, b) for a, b in zip(values, other_values, strict=True) if a != b]
    return bool(changed) and all(distinct_values(a[1:-1], b[1:-1]) for a, b in changed)


def distinct_values(value: str, other: str) -> bool:
    """Words unlike each other, or unlike where they differ, each there a word of its own
    (`SERVER_REQUEST_TIMEOUT_SECS`, `SERVER_SHUTDOWN_GRACE_SECS`; not `actve`, `active`)."""
    if similarity(value, other) < DISTINCT_VALUE_SIMILARITY:
        return True
    head = shared_head(value, other)
    tail = shared_head(value[head:][::-1], other[head:][::-1])
    middle, other_middle = value[head : len(value) - tail], other[head : len(other) - tail]
    return (
        min(letters(middle), letters(other_middle)) >= MIN_DISTINCT_WORD
        and similarity(middle, other_middle) < DISTINCT_VALUE_SIMILARITY
    )


def tests_other_names(line: str, other: str) -> bool:
    """Two conditions on no name in common (`self.timeout.is_zero()`, `self.max_bytes < 1024`):
    two checks, not one edited."""
    found, other_found = condition_of(line), condition_of(other)
    if found is None or other_found is None:
        return False
    names, other_names = (tested_names(text) for _, text in (found, other_found))
    return bool(names) and bool(other_names) and not names & other_names


def tested_names(condition: str) -> set[str]:
    """The names a condition tests, but a one-letter receiver (`c.IdleTimeout < 0`: c, as `self`,
    is what every check of a Go method reads)."""
    receivers = {re.split(r"\.|->|::", chain)[0] for chain in MEMBER_CHAIN.findall(condition)}
    return {*NAME.findall(condition)} - CONDITION_WORDS - {name for name in receivers if len(name) == 1}


def tests_another_name(line: str, other: str) -> bool:
    """The same condition but on another name, one that adds or drops a word of its own
    (`Env:_OLD_VIRTUAL_PYTHONPATH` beside `Env:_OLD_VIRTUAL_PATH`; not `usr` mended to `user`)."""
    found, other_found = condition_of(line), condition_of(other)
    if found is None or other_found is None:
        return False
    names, other_names = (NAME.findall(text) for _, text in (found, other_found))
    if len(names) != len(other_names) or NAME.sub("_", found[1]) != NAME.sub("_", other_found[1]):
        return False
    changed = [(a, b) for a, b in zip(names, other_names, strict=True) if a != b]
    if len(changed) != 1:
        return False
    name, other_name = changed[0]
    head = shared_head(name, other_name)
    tail = shared_head(name[head:][::-1], other_name[head:][::-1])
    middle, other_middle = name[head : len(name) - tail], other_name[head : len(other_name) - tail]
    return max(letters(middle), letters(other_middle)) >= MIN_DISTINCT_WORD


def stem(word: str) -> str:
    """A word without a plural `s`/`ies` or a final `y`, so both forms meet: `dependencies`,
    `dependency` -> `dependenc`."""
    return word[:-3] if word.endswith("ies") else word[:-1] if word.endswith(("s", "y")) else word


def similarity(a: str, b: str) -> float:
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


def edited_line(line: str, new: str) -> bool:
    """`new` much like `line`, or `line` extended (`<p>Updated.</p>` by `<p>Updated. <a>...</a></p>`)."""
    return similarity(line, new) >= LINE_UNSURE_SIMILARITY or shared_head(line, new) >= 0.75 * len(line)


def repunctuated(line: str, original: str) -> bool:
    """The same line but for what ends it: `.managerId(id)` for `.managerId(id);`, `a == b &&` for
    `a == b`. Its end moved to a line added below (or from one taken away)."""
    return line != original and CONTINUED.sub("", line) == CONTINUED.sub("", original)


def renumbered(line: str, original: str) -> bool:
    """The same comment line on other numbers: ` * Copyright 2019-2024 ...` for ` * Copyright
    2019-2023 ...`, `# Version 1.5` for `# Version 1.4`. Its words, two at least, tell it apart."""
    if line == original or not COMMENT_START.match(line) or not COMMENT_START.match(original):
        return False
    return NUMBER.sub("0", line) == NUMBER.sub("0", original) and len(LETTERED.findall(line)) >= MIN_WORDS


def relevelled(line: str, original: str) -> bool:
    """The same log call at another level: `log.info("...", host)` for `log.debug("...", host)`."""
    found, o_found = LOG_CALL.match(line), LOG_CALL.match(original)
    return (
        found is not None
        and o_found is not None
        and found.group(2).lower() != o_found.group(2).lower()
        and (found.group(1), found.group(3)) == (o_found.group(1), o_found.group(3))
    )


def requoted(line: str, original: str) -> bool:
    """The same line but for its quotes: `cd "$ROOT"` for `cd $ROOT`, `"a"` for `'a'`."""
    return line != original and QUOTES.sub("", line) == QUOTES.sub("", original)


def argument_added(line: str, original: str) -> bool:
    """`line` is `original` with one argument more in a call: `get(url, token);` for `get(url);`,
    `run(ctx, job)` for `run(job)`; not text added inside a string (`SET paid = 1, at = now()`)."""
    head = shared_head(line, original)
    tail = min(shared_head(line[::-1], original[::-1]), len(original) - head)
    added = line[head : len(line) - tail].strip()
    unclosed = STRING.sub("", original[:head])  # a quote left in it opens the string the change is in
    return (
        len(line) > len(original)
        and "(" in original[: head + 1]
        and not any(quote in unclosed for quote in "\"'`")
        and (added.startswith(",") or added.endswith(","))
        and NAME.search(added) is not None
        and balanced(added)
    )


def call_wrapped(line: str, original: str) -> bool:
    """`line` is `original` with a call put around or after a value in it, and nothing else:
    `${this.columns.map(ident).join(", ")}` for `${this.columns.join(", ")}`, `${ident(this.table)}`
    for `${this.table}`; not a word added to a message, nor text added to SQL."""
    tokens, o_tokens = CODE_TOKEN.findall(line), CODE_TOKEN.findall(original)
    added: list[str] = []
    for tag, _, _, j1, j2 in SequenceMatcher(None, o_tokens, tokens, autojunk=False).get_opcodes():
        if tag == "insert":
            added += tokens[j1:j2]
        elif tag != "equal":
            return False
    return (
        0 < len(added) <= MAX_WRAP_TOKENS
        and "(" in added
        and added.count("(") == added.count(")")
        and all(token in "().," or NAME.fullmatch(token) for token in added)
    )


def elements_added(line: str, original: str) -> bool:
    """A row of a list of names spread over lines, with names added (`COMMA, DOT, COLON, SEMICOLON,
    QUESTION,` for `COMMA, DOT, COLON, SEMICOLON,`): the original's names, two or more, in order
    among the line's."""
    new, old = ELEMENTS.fullmatch(line), ELEMENTS.fullmatch(original)
    if new is None or old is None:
        return False
    names, kept = iter(line.rstrip(",").split(", ")), original.rstrip(",").split(", ")
    return len(kept) >= MIN_ROW_NAMES and len(line) > len(original) and all(name in names for name in kept)


def same_keywords(line: str, original: str) -> bool:
    """Two elements of a list spread over lines (each ends in `,`) that pass the same keyword
    arguments (`args.legacy, workers=min(args.workers, 8),` for `args.legacy, workers=args.workers,`):
    one call cannot take a keyword twice, so it is an edit. Keywords inside brackets are another
    call's (`path("x/", view, name="x"),`: each element a call of its own)."""
    names = set(KEYWORD_ARGUMENT.findall(outside_brackets(line)))
    return (
        bool(names)
        and line.endswith(",")
        and original.endswith(",")
        and names == set(KEYWORD_ARGUMENT.findall(outside_brackets(original)))
    )


def outside_brackets(line: str) -> str:
    """The line without what its brackets enclose, innermost first (`f(a=1), b=2` -> `f, b=2`)."""
    while True:
        bare = INNERMOST_BRACKETS.sub("", line)
        if bare == line:
            return line
        line = bare


def unused_names(line: str, text: str) -> list[re.Pattern[str]]:
    """The names `line` holds (an import's own words aside) that `text` uses nowhere, as patterns."""
    names = [whole_word(name) for name in set(NAME.findall(line)) - IMPORT_WORDS]
    return [name for name in names if not name.search(text)]


def bound_now(text: str, other: str) -> bool:
    """`text` is the statement `other` with its value bound to a name (`let bytes = `, `err := `,
    `const res = await `): the same statement, its result now kept."""
    found = VALUE_BOUND.match(text)
    return found is not None and text[found.end() :] == other and letters(other) >= MIN_CALL_LETTERS


def statement_call(line: str) -> str | None:
    """The call a statement makes, whole: `main(argv)` of `process.exitCode = main(argv);`, of
    `const code = await main(argv)` and of `main(argv).then((code) => {`."""
    found = STATEMENT_CALL.match(line)
    if found is None:
        return None
    depth, start = 0, found.start(1)
    for k in range(found.end(1) - 1, len(line)):
        depth += (line[k] == "(") - (line[k] == ")")
        if depth == 0:
            return line[start : k + 1]
    return None


def attributes_added(line: str, original: str) -> bool:
    """`<Toaster richColors closeButton />` for `<Toaster richColors />`: the same self-closing
    element, the original's attributes kept and more added after them."""
    if not (line.startswith("<") and line.endswith("/>") and original.endswith("/>")):
        return False
    kept = original[:-2].rstrip()
    return line.startswith(kept) and line[len(kept)].isspace()


def dropped_words(line: str, new: str, words: list[str]) -> bool:
    """`new` is `line` with some of `words` and a little around each (quotes, a comma) taken out,
    nothing else (`"rgb_to_yiq","yiq_to_rgb",` out of an `__all__` line)."""
    dropped = [word for word in words if whole_word(word).search(line) and not whole_word(word).search(new)]
    if not 0 < len(line) - len(new) <= sum(len(word) + 4 for word in dropped):
        return False
    rest = iter(line)
    return all(c in rest for c in new)  # `new` a subsequence of `line`


def shared_head(a: str, b: str) -> int:
    """How many characters `a` and `b` start with alike."""
    return next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def letters(text: str) -> int:
    """How many letters and digits `text` has: how much a line can tell apart."""
    return sum(c.isalnum() for c in text)


def header_but_name(side: Side, item: Item) -> tuple[str, str] | None:
    """A declaration's header without the name it declares: what its key says before the name, and
    the header after the key (`private async `, `(): Promise<void> {`); None for no declaration."""
    key = side.key(item)
    name = DECLARED_NAME.search(key)
    header = side.normalized[item.header]
    at = header.find(key)  # (after modifiers the key leaves out: `async ` before `read`)
    if name is None or key == header or at < 0:
        return None
    return header[:at] + key[: name.start()], header[at + len(key) :]


def named_elsewhere(side: Side, item: Item) -> bool:
    """Whether a line other than the item's header names what it declares."""
    name = DECLARED_NAME.search(side.key(item))
    word = whole_word(name.group()) if name else None
    return word is not None and any(
        word.search(line) for k, line in enumerate(side.lines) if k != item.header
    )


def nonblank_from(lines: Sequence[str], k: int, step: int) -> int | None:
    """The nearest line from k (k left out) going by `step` that is not blank."""
    k += step
    while 0 <= k < len(lines):
        if lines[k]:
            return k
        k += step
    return None


def whole_word(name: str, member: bool = True) -> re.Pattern[str]:
    """`name` as a word of code (`sleep`, not `sleepy` or `$sleep`); with `member` false, not as
    a member either (`destroy`, not `createDebug.destroy`)."""
    before = r"[\w$]" if member else r"[\w$.]"
    return re.compile(rf"(?<!{before}){re.escape(name)}(?![\w$])")


def last_descendants(item: Item) -> list[Item]:
    """The item, its last child, that child's last child, and so on."""
    chain = [item]
    while chain[-1].nested:
        chain.append(chain[-1].children[-1])
    return chain


def open_at_marker(item: Item) -> bool:
    """A marker, or a block shown without its closer whose last line is a marker (`other => {`,
    `// ...`): what the snippet shows next follows elided code."""
    while item.nested and not item.closer:
        item = item.children[-1]
    return item.marker


def lineage(items: list[Item], target: Item) -> list[Item]:
    """The items from one of `items` down to `target`, itself one of them or a descendant."""
    for item in items:
        if item is target:
            return [item]
        if item.start <= target.start < item.end and item.nested:
            below = lineage(item.children, target)
            if below:
                return [item, *below]
    return []


def descent(items: list[Item], line: int) -> list[Item]:
    """The items from one of `items` down to the one whose header is `line`; [] when none is."""
    chain: list[Item] = []
    while True:
        item = next((item for item in items if item.start <= line < item.end), None)
        if item is None:
            return []
        chain.append(item)
        if item.header == line:
            return chain
        items = item.children


def hoist_markers(items: list[Item]) -> list[Item]:
    """Trailing markers inside a new item (no closer) elide what follows it: lift them a level up."""
    lifted: list[Item] = []
    for item in items:
        trailing = 0
        while trailing < len(item.children) and item.children[-1 - trailing].marker:
            trailing += 1
        if not trailing or item.closer or trailing == len(item.children):
            lifted.append(item)
            continue
        kept = item.children[:-trailing]
        lifted.append(Item(item.lead, item.start, item.header, kept[-1].end, children=kept))
        lifted.extend(item.children[-trailing:])
    return lifted


class Aligner:
    """Aligns one snippet outline to one original outline; collects reasons when unsure."""

    def __init__(
        self, original: Side, snippet: Side, units: tuple[str, str], rewrite: bool, prose: bool = False
    ) -> None:
        self.rewrite = rewrite  # the snippet may be the whole new file (no markers, most of its size)
        self.prose = prose  # Markdown: paragraphs have no signatures
        self.original = original
        self.snippet = snippet
        self.snippet_unit, self.original_unit = units
        self.reasons: list[Reason] = []
        self.crossed: list[tuple[Item, Item, bool]] = []  # pairs out of order, not aligned; tied?
        self.open_gaps: list[list[Item]] = []  # original items right after a block ending in a marker
        self.inside_whole = 0  # how many blocks shown whole the items aligned now stand in (see `pair`)
        self.after_replaced = False  # the item paired now follows new code that replaced the original's

    def fail(self, code: str, message: str, item: Item | None = None) -> None:
        self.reasons.append(Reason(code, message, None if item is None else item.header + 1))

    def loses_last_use(self, ops: list[Op]) -> bool:
        """A declaration right after a block that ends in a marker, the next anchor right below it
        (elided by that marker, or deleted by closing up: see `elides_onward`), kept by the plan,
        whose name the original uses elsewhere and the plan's file nowhere else: the edit took its
        last use (a helper inlined, a wrapper made redundant), so a reader cannot tell whether it
        is kept or meant to go with it (the reason is recorded). Deleted with its last use, it is
        gone as a whole."""
        if not self.open_gaps:
            return False
        copied = [k for op in ops if isinstance(op, Copy) for k in range(op.start, op.end)]
        inserted = [k for op in ops if isinstance(op, Insert) for k in range(op.start, op.end)]
        for o_gap in self.open_gaps:
            lo, hi = o_gap[0].start, o_gap[-1].end
            before = "\n".join(line for k, line in enumerate(self.original.lines) if not lo <= k < hi)
            after = "\n".join(
                [
                    *(self.original.lines[k] for k in copied if not lo <= k < hi),
                    *(self.snippet.lines[k] for k in inserted),
                ]
            )
            for item in o_gap:
                if not any(isinstance(op, Copy) and op.start <= item.header < op.end for op in ops):
                    continue  # deleted
                declared = None if item.marker else NAME.findall(self.original.key(item))
                if not declared or self.original.key(item) == self.original.normalized[item.header]:
                    continue  # no declaration
                name = whole_word(declared[-1])
                if name.search(before) and not name.search(after):
                    self.fail(
                        "elided_or_deleted", f"{declared[-1]!r} loses its last use: kept, or deleted?", item
                    )
                    return True
        return False

    def moved(self, ops: list[Op]) -> list[Op] | None:
        """`ops` without the original copy of each function or class that the snippet shows out of
        the original's order, word for word, when the plan copies it where it stood as well: moved
        (one name declared twice is no edit anyone asks for). One shown there with markers inside
        (`# ... existing code (moved unchanged) ...`), its old place closed up, is moved too: its
        markers filled from the original's. None, the reason recorded, for any other item written
        where it is shown and copied where it stood (moved, or copied?), and when the order as
        shown has no one longest run of anchors (which of two items moved?)."""
        for s_item, o_item, tied in self.crossed:
            copy = next((op for op in ops if isinstance(op, Copy) and holds_item(op, o_item)), None)
            insert = next((op for op in ops if isinstance(op, Insert) and holds_item(op, s_item)), None)
            if insert is None:
                continue
            header = self.snippet.lines[s_item.header]
            declared = s_item.nested and (self.is_function(s_item) or TYPE_DECLARATION.search(header))
            if copy is None:
                if tied or not declared or not has_marker(s_item):
                    continue
                filled = self.pair(o_item, s_item, shown_spacing=True)
                if filled is None:
                    return None
                k, reindent = ops.index(insert), insert.reindent
                before, after = (
                    Insert(insert.start, s_item.lead, reindent),
                    Insert(s_item.end, insert.end, reindent),
                )
                ops = [*ops[:k], *(op for op in (before, *filled, after) if op.start < op.end), *ops[k + 1 :]]
                continue
            if not declared and self.amid_new_lines(s_item, ops):
                continue  # `fig.tight_layout()` in a new cell: a line like one elsewhere, not moved
            if tied or not declared or self.snippet.text(s_item) != self.original.text(o_item):
                self.fail("moved_or_copied", f"{header.strip()[:60]!r} is shown moved and kept where it was")
                return None
            k = ops.index(copy)
            cut = [replace(copy, end=max(copy.start, o_item.lead)), replace(copy, start=o_item.end)]
            ops = [*ops[:k], *(op for op in cut if op.start < op.end), *ops[k + 1 :]]
        return ops

    def amid_new_lines(self, s_item: Item, ops: list[Op]) -> bool:
        """A one-line statement written right below a new line and right above another: a line of
        that new code, though the original has one like it elsewhere."""
        if s_item.nested or s_item.children:
            return False
        above, below = s_item.start - 1, s_item.end
        return all(
            0 <= k < len(self.snippet.lines)
            and self.snippet.normalized[k]
            and k not in self.snippet.markers
            and any(isinstance(op, Insert) and op.start <= k < op.end for op in ops)
            for k in (above, below)
        )

    def mapping(self, s_item: Item, o_item: Item) -> Reindent:
        """From the snippet item's indentation to the original's; a line inside a multi-line string
        moves with the line that opens it (its own indentation is the string's text), and stays as
        shown where the snippet elides that line."""
        s_opener, o_opener = (
            self.snippet.string_opener(s_item.header),
            self.original.string_opener(o_item.header),
        )
        if s_opener is None or o_opener is None:
            shown = leading(self.snippet.lines[s_item.header])
            return Reindent(shown, shown, self.snippet_unit, self.snippet_unit)
        s_ws, o_ws = leading(self.snippet.lines[s_opener]), leading(self.original.lines[o_opener])
        return Reindent(s_ws, o_ws, self.snippet_unit, self.original_unit)

    # 1. matching ---------------------------------------------------------------------------

    def match(
        self, o_items: list[Item], s_items: list[Item], fits: Callable[[Item, Item], bool] | None = None
    ) -> dict[int, int] | None:
        """snippet index -> original index, order-preserving; None when a match is ambiguous.
        `fits`: whether a pair may stand, checked before the order is (a look-alike left in would
        push a true anchor out of order)."""

        def stands(s: int, o: int) -> bool:
            s_item, o_item = s_items[s], o_items[o]
            return (
                not self.other_bare_block(s_item, o_item)
                and not self.other_element(s_item, o_item, o_items)
                and not (s > 0 and self.named_by_marker(s_items[s - 1], s_item, o_item, by_headers=True))
                and not self.other_row(s_item, o_item)
                and (fits is None or fits(s_item, o_item))
            )

        pairs = self.unique_pairs(o_items, s_items, range(len(s_items)), range(len(o_items)))
        pairs = [(s, o) for s, o in pairs if stands(s, o)]
        anchors = longest_increasing(pairs)
        for s, o in set(pairs) - set(anchors):
            around = [(a, b) for a, b in pairs if (a < s and b < o) or (a > s and b > o)]
            # the order left as it is: which of them moved? Either, when two neighbours swapped
            swapped = any(abs(s - a) == 1 and abs(o - b) == 1 and (s - a) * (o - b) < 0 for a, b in anchors)
            tied = len(longest_increasing(around)) + 1 == len(anchors) and not swapped
            self.crossed.append((s_items[s], o_items[o], tied))
        found = dict(anchors)
        bounds = [(-1, -1), *anchors, (len(s_items), len(o_items))]
        for (sa, oa), (sb, ob) in pairwise(bounds):
            if sb - sa < 2 or ob - oa < 2 or all(s_items[s].marker for s in range(sa + 1, sb)):
                continue
            local = self.local_pairs(o_items, s_items, range(sa + 1, sb), range(oa + 1, ob))
            found.update((s, o) for s, o in local.items() if stands(s, o))
        for s, o in found.items():
            after_anchor = found.get(s - 1, -1) == o - 1  # the original's next item after one shown
            if not after_anchor and self.unlike_callback(s_items[s], o_items[o]):
                return None
        return dict(longest_increasing(list(found.items())))

    def named_by_marker(self, marker: Item, s_item: Item, o_item: Item, by_headers: bool = False) -> bool:
        """A marker right beside that names the original's block by a word it has and the block
        shown does not (`// ... trailing swipe action unchanged ...` above
        `.swipeActions(edge: .leading)` where `.swipeActions(edge: .trailing)` stands): the
        marker stands for that block, and the one shown is new. The words are the headers', or
        for a block known by its kind alone (`<li>`, `ListTile(`), shown whole, all of its text (unless
        `by_headers`: an element's tail may stand apart, `>` and `</button>` below `<button`)."""
        if not marker.marker or s_item.marker:
            return False
        said = naming_words(self.snippet.lines[marker.start])
        whole = not by_headers and self.known_by_kind(s_item) and not has_marker(s_item)
        s_text = self.snippet.text(s_item) if whole else self.snippet.normalized[s_item.header]
        o_text = self.original.text(o_item) if whole else self.original.normalized[o_item.header]
        s_words, o_words = naming_words(s_text), naming_words(o_text)
        gone, new = o_words - s_words, s_words - o_words  # a word changed: `trailing` for `leading`
        return bool(gone and new and said & gone) and not said & new

    def other_bare_block(self, s_item: Item, o_item: Item) -> bool:
        """A block under a bare keyword (`try {`, `begin`) known by that alone, whose code shown
        inside (above its clauses) stands nowhere in the original's, but its first line elsewhere
        in the original: another block (a new `try` around other code)."""
        if not BARE_BLOCK.match(self.snippet.normalized[s_item.header]):
            return False
        code = self.code_inside(s_item)
        original = set(self.original.normalized[o_item.header + 1 : o_item.end])
        return bool(code) and not original.intersection(code) and bool(self.original.where(code[0]))

    def other_element(self, s_item: Item, o_item: Item, o_items: list[Item]) -> bool:
        """A markup element known by its bare tag alone (`<td>`), a tag several of the original's
        elements there have, that shows code inside, none of it the original's: another element (a
        new cell beside elided ones)."""
        found = BARE_TAG.match(self.snippet.normalized[s_item.header])
        if found is None:
            return False
        tags = (MARKUP_TAG.match(self.original.normalized[item.header]) for item in o_items)
        if sum(tag is not None and tag.group(1) == found.group(1) for tag in tags) < 2:
            return False  # the one `<footer>`: edited
        code = self.code_inside(s_item)
        return bool(code) and not set(code).intersection(
            self.original.normalized[o_item.header + 1 : o_item.end]
        )

    def code_inside(self, s_item: Item) -> list[str]:
        """The snippet's code lines inside a block, above its clauses: no markers, closers or bare
        words (`}`, `</td>`)."""
        shown = self.snippet.normalized
        return [
            shown[k]
            for child in s_item.children
            if self.depth(child) > self.depth(s_item) and not child.marker
            for k in range(child.start, child.end)
            if shown[k] and not BARE_WORD.match(shown[k]) and k not in self.snippet.markers
        ]

    def unlike_callback(self, s_item: Item, o_item: Item) -> bool:
        """A block that only calls a function on a callback without parameters (`useEffect(() => {`,
        `beforeEach(function () {`) has no name of its own: matched to the original's by that call
        with another body, below a marker, it may edit it or be a new one (the reason is recorded)."""
        line = self.snippet.normalized[s_item.header]
        if not BARE_CALLBACK.search(line) or not s_item.children:
            return False
        if self.snippet.text(s_item) == self.original.text(o_item) or self.same_signature(s_item, o_item):
            return False
        self.unsure(s_item)
        return True

    def unique_pairs(
        self, o_items: list[Item], s_items: list[Item], s_range: range, o_range: range
    ) -> list[tuple[int, int]]:
        pairs: list[tuple[int, int]] = []
        shared: list[int] = []  # original items whose key others share
        for measure in (self.snippet_text_of, self.snippet_key_of):
            o_groups = self.group(o_items, o_range, measure, self.original)
            self.pair_unique(pairs, o_groups, self.group(s_items, s_range, measure, self.snippet))
            if measure == self.snippet_key_of:
                shared = [k for group in o_groups.values() if len(group) > 1 for k in group]
        # overloads share a key (`public int total`), not their whole header line; a name declared
        # (`uint16_t crc;`) and set (`crc = crc16(...)`) shares it, not the call that sets it
        for measure in (self.header_of, self.assigned_call_of) if shared else ():
            o_groups = self.group(o_items, shared, measure, self.original)
            self.pair_unique(pairs, o_groups, self.group(s_items, s_range, measure, self.snippet))
        if shared:
            self.pair_by_inner_line(pairs, o_items, s_items, s_range, shared)
        unpaired = [s for s in s_range if s not in {paired for paired, _ in pairs}]

        def edited(s: int, o: int) -> bool:
            return self.edited_condition(s_items[s], o_items[o]) or self.catches_more(s_items[s], o_items[o])

        def extended(s: int, o: int) -> bool:
            return self.edited_condition(s_items[s], o_items[o], extended=True)

        def operands_added(s: int, o: int) -> bool:
            return self.operands_added(s_items[s], o_items[o])

        def edited_statement(s: int, o: int) -> bool:  # no declaration: the same kind, much alike
            s_item, o_item = s_items[s], o_items[o]
            s_header, o_header = (
                self.snippet.normalized[s_item.header],
                self.original.normalized[o_item.header],
            )
            unnamed = self.snippet.key(s_item) == s_header and self.original.key(o_item) == o_header
            same_kind = s_header.split()[:1] == o_header.split()[:1]
            return unnamed and same_kind and similarity(s_header, o_header) >= BLOCK_UNSURE_SIMILARITY

        def not_paired(s: int, o: int) -> bool:  # an original not paired yet
            return o not in {paired for _, paired in pairs}

        def was_renamed(s: int, o: int) -> bool:  # ... its name gone
            return not_paired(s, o) and self.renamed(o_items[o])

        def renamed_where_called(s: int, o: int) -> bool:  # ... and its calls, shown renamed too
            return was_renamed(s, o) and self.called_elsewhere(s_items[s], o_items[o])

        def renamed_if_called(s: int, o: int) -> bool:  # ... where the original calls it elsewhere
            return was_renamed(s, o) and (
                self.called_elsewhere(s_items[s], o_items[o])
                or not named_elsewhere(self.original, o_items[o])
            )

        # snippet items not paired yet, by weaker measures, each with what a pair must also hold
        later: list[tuple[Callable[[Side, Item], str | None], Callable[[int, int], bool] | None]] = [
            (self.condition_body_of, edited),  # a condition's block, its condition edited
            (self.elided_condition_of, extended),  # the same over a body all elided
            (self.first_operand_of, operands_added),  # a condition with an operand more or less
            (self.decorator_of, None),  # a decorator shown alone, a marker for the rest of its item
            (self.comment_above_of, edited_statement),  # a statement under its comment, edited
            (self.unguarded_arm_of, not_paired),  # a match arm, a guard added or dropped
            (self.name_and_parameters_of, not_paired),  # a method with another return type
            (self.renamed_body_of, was_renamed),  # a declaration renamed?
            (self.renamed_head_of, renamed_if_called),
            (self.renamed_header_of, renamed_where_called),
            (self.renamed_call_of, was_renamed),  # renamed over an edited body, as its calls show
        ]
        for measure, alike in later:
            s_groups = self.group(s_items, unpaired, measure, self.snippet)
            if s_groups:
                o_groups = self.group(o_items, o_range, measure, self.original)
                self.pair_unique(pairs, o_groups, s_groups, alike)
                unpaired = [s for s in unpaired if s not in {paired for paired, _ in pairs}]
        return pairs

    def pair_by_inner_line(
        self,
        pairs: list[tuple[int, int]],
        o_items: list[Item],
        s_items: list[Item],
        s_range: range,
        shared: list[int],
    ) -> None:
        """Adds the pairs of a block whose key several original blocks share (six `<FormField`,
        three Kubernetes `spec:` of Deployments) with the one of them that holds the first line it
        shows inside that is no skeleton line, one the original has several times: that line
        must stand in the original once (`name="line2"`, `image: shop/cart:2.3`). A first such
        line that the original has not says nothing: an edit there, or a new block that copies
        later lines from another (`path="/b"`, then the `element=` line of `path="/a"`)."""
        paired_s, paired_o = {s for s, _ in pairs}, {o for _, o in pairs}
        by_key: dict[str, list[int]] = defaultdict(list)
        for o in shared:
            by_key[self.original.key(o_items[o])].append(o)
        for s in s_range:
            item = s_items[s]
            key = self.snippet.key(item)
            group = by_key.get(key) if item.nested and s not in paired_s else None
            if not group or letters(key) < MIN_KEY_LETTERS:
                continue  # (a bare `{` or `- ` is as likely a new entry beside its look-alike)
            place = self.first_telling_place(range(item.header + 1, item.end))
            holder = [o for o in group if place is not None and o_items[o].header < place < o_items[o].end]
            if holder and holder[0] not in paired_o:
                pairs.append((s, holder[0]))
                paired_o.add(holder[0])

    def first_telling_place(self, lines: Iterable[int]) -> int | None:
        """Where the original has the first of these snippet lines that is no skeleton line (one
        the original has several times, or too short to tell), when it has it once beside the
        same line as in the snippet; None when it has it not (an edit there, or new code), or
        beside other lines (a new line that stands elsewhere too)."""
        for k in lines:
            line = self.snippet.normalized[k]
            places = self.original.where(line)
            if k not in self.snippet.markers and letters(line) >= MIN_INNER_LETTERS and len(places) < 2:
                return places[0] if places and self.same_neighbour(k, places[0]) else None
        return None

    def same_neighbour(self, k: int, j: int) -> bool:
        """Whether snippet line k has the line above or below it (the nearest non-blank ones, no
        marker) as original line j has."""
        s_lines, o_lines = self.snippet.normalized, self.original.normalized
        above = next((n for n in range(k - 1, -1, -1) if s_lines[n]), None)
        below = next((n for n in range(k + 1, len(s_lines)) if s_lines[n]), None)
        # (the comments above a declaration, left out where the snippet shows it, count for none)
        skipped = above is not None and not COMMENT.match(s_lines[above])
        o_above = next(
            (
                o_lines[n]
                for n in range(j - 1, -1, -1)
                if o_lines[n] and not (skipped and COMMENT.match(o_lines[n]))
            ),
            None,
        )
        o_below = next((o_lines[n] for n in range(j + 1, len(o_lines)) if o_lines[n]), None)
        markers = self.snippet.markers
        return (above is not None and above not in markers and s_lines[above] == o_above) or (
            below is not None and below not in markers and s_lines[below] == o_below
        )

    @staticmethod
    def pair_unique(
        pairs: list[tuple[int, int]],
        o_groups: dict[str, list[int]],
        s_groups: dict[str, list[int]],
        alike: Callable[[int, int], bool] | None = None,
    ) -> None:
        """Adds the pairs of items alone in their group on both sides (and `alike`), each snippet
        item once."""
        taken = {s for s, _ in pairs}
        for value, s_list in s_groups.items():
            o_list = o_groups.get(value, [])
            alone = len(s_list) == 1 and len(o_list) == 1 and s_list[0] not in taken
            if alone and (alike is None or alike(s_list[0], o_list[0])):
                pairs.append((s_list[0], o_list[0]))

    def local_pairs(
        self, o_items: list[Item], s_items: list[Item], s_range: range, o_range: range
    ) -> dict[int, int]:
        """Matches within one gap: unique text or key there, or equal runs of repeated text
        (docstring quotes, `}`, `pass`) paired in order."""
        o_text = self.group(o_items, o_range, self.snippet_text_of, self.original)
        o_key = self.group(o_items, o_range, self.snippet_key_of, self.original)
        s_text = self.group(s_items, s_range, self.snippet_text_of, self.snippet)
        found: dict[int, int] = {}
        for s in s_range:
            item = s_items[s]
            if item.marker:
                continue
            text = self.snippet_text_of(self.snippet, item)
            same_text = o_text.get(text, [])
            if len(same_text) > 1 and len(same_text) == len(s_text[text]):
                found[s] = same_text[s_text[text].index(s)]
                continue
            if not same_text and self.bare_call(item):
                continue  # `log.append(...)` by key alone: one of many calls, too weak to anchor on
            candidates = same_text or o_key.get(self.snippet_key_of(self.snippet, item), [])
            if len(candidates) > 1 and item.children:
                candidates = [o for o in candidates if self.same_first_child(item, o_items[o])]
            if len(candidates) > 1 and has_marker(item):
                # look-alikes (an array's objects), this one shown in part: the one holding the
                # first telling line shown inside (`"name": "Debug Worker",`)
                place = self.first_telling_place(range(item.header + 1, item.end))
                candidates = [
                    o for o in candidates if place is not None and o_items[o].start < place < o_items[o].end
                ]
            if len(candidates) == 1 and not same_text and self.by_likeness(item):
                # by its kind alone: not where a marker beside it would be left nothing to stand for
                o = candidates[0]
                marker_after = any(s_items[k].marker for k in range(s + 1, s_range.stop))
                marker_before = any(s_items[k].marker for k in range(s_range.start, s))
                if (marker_after and o == o_range[-1]) or (marker_before and o == o_range[0]):
                    continue
            if len(candidates) == 1:
                found[s] = candidates[0]
        return found

    def bare_call(self, item: Item) -> bool:
        """A line keyed by a call's name alone (no string argument to name what it is about)."""
        key = self.snippet.key(item)
        return (
            not item.children and key[-1:].isalnum() and call_key(self.snippet.normalized[item.header]) == key
        )

    def same_first_child(self, s_item: Item, o_item: Item) -> bool:
        """Twins by header (`[[bin]]`, `- name:`) told apart by their first line inside."""
        if not o_item.children or s_item.children[0].marker:
            return False
        return self.snippet.text(s_item.children[0]) == self.original.text(o_item.children[0])

    @staticmethod
    def group(
        items: list[Item], span: Sequence[int], measure: Callable[[Side, Item], str | None], side: Side
    ) -> dict[str, list[int]]:
        """Items by a measure of them; one the measure says nothing of (None) is in no group."""
        groups: dict[str, list[int]] = defaultdict(list)
        for k in span:
            value = None if items[k].marker else measure(side, items[k])
            if value is not None:
                groups[value].append(k)
        return groups

    @staticmethod
    def header_of(side: Side, item: Item) -> str | None:
        """A header line with its whole parameter list, qualifiers after it aside (`int total(Order
        o, int d) {`, `init(from decoder: Decoder) throws {`); None for any other line (`app.use(`,
        `{`), which is no anchor by itself."""
        line = side.normalized[item.header]
        text = line.rstrip("{: ")  # `int total(Order o, int d) {`, `def f(x):`
        text = SIGNATURE_QUALIFIERS.sub("", text)  # `init(from decoder: Decoder) throws {`
        paren = text.find("(")
        if paren > 0 and text.endswith(")") and ends_with_name(text, paren) and NAME.search(text[paren:]):
            return line
        return None

    def elided_condition_of(self, side: Side, item: Item) -> str | None:
        """A condition's block (`while`) by its kind alone, for one shown edited over a body all
        elided (`while a && b {`, `// ...`, `}`): the one such block there is its original. None
        for any other item."""
        word = FIRST_WORD_END.split(side.normalized[item.header], maxsplit=1)[0]
        if word not in CONDITIONS or not item.children:
            return None
        if side is self.snippet and not all(child.marker for child in item.children):
            return None
        return f"E{word}"

    @staticmethod
    def first_operand_of(side: Side, item: Item) -> str | None:
        """A condition's block by its kind and the first operand of its condition (`key ===
        '__proto__'` in `if (key === '__proto__' || key === 'constructor') {`), for one shown with
        an operand more or less over the same body, a body too short to tell it by; None for any
        other item."""
        header = side.normalized[item.header]
        if not item.children or not header.startswith(CONDITIONS_START):
            return None  # the common case
        found = condition_of(header)
        if found is None:
            return None
        word, condition = found
        first = LOGICAL.split(condition, maxsplit=1)[0]
        return f"O{word} {first}" if balanced(first) else None

    def operands_added(self, s_item: Item, o_item: Item) -> bool:
        """The same body under a condition with an operand more or less."""
        s_header, o_header = self.snippet.normalized[s_item.header], self.original.normalized[o_item.header]
        return body(self.snippet, s_item) == body(self.original, o_item) and operand_more(s_header, o_header)

    @staticmethod
    def comment_above_of(side: Side, item: Item) -> str | None:
        """An item by the comment lines right above it, when they tell one place from another
        (`// Open a tcp connection to the proxy.` over an edited `if hconn, err = net.Dial(...)`)."""
        above = side.normalized[item.start : item.header]
        if not above or not all(COMMENT.match(line) for line in above if line):
            return None
        text = "\n".join(line for line in above if line)
        return f"C{text}" if letters(text) >= MIN_INNER_LETTERS else None

    def decorator_of(self, side: Side, item: Item) -> str | None:
        """An original item by the first line of its decorators (`@PostMapping("/{id}")`); a
        snippet's line that is just a decorator by itself. None for any other item."""
        if side is self.original and item.prefix:
            line = side.normalized[item.start]
        elif (
            side is self.snippet
            and not item.children
            and side.normalized[item.header].startswith(DECORATOR_START)
        ):
            line = side.normalized[item.header]
        else:
            return None
        return None if COMMENT.match(line) else f"D{line}"

    @staticmethod
    def unguarded_arm_of(side: Side, item: Item) -> str | None:
        """A match arm's header without its guard: `Event::Paste(text) => {` for `Event::Paste(text)
        if !text.is_empty() => {`, `case .tick:` for `case .tick where playing:`."""
        header = side.normalized[item.header]
        guarded = ARM_GUARD.match(header)
        if guarded is not None:
            return guarded["pattern"] + guarded["arrow"]
        return header if ARM.match(header) else None

    @staticmethod
    def name_and_parameters_of(side: Side, item: Item) -> str | None:
        """A method declared after its return type (`public List<Summary> Top(int days) {`) by its
        name and parameters, so that one shown with another return type or modifiers finds its
        original; None for any other item."""
        if not item.nested:
            return None
        found = TYPED_METHOD.match(side.normalized[item.header])
        if found is None or found.group(2) in CONTROL or not DECLARING.isdisjoint(found.group(1).split()):
            return None  # (`fun failed(step: String) {` is known by its key already)
        return f"M{found.group(2)}{found.group(3)}"

    @staticmethod
    def assigned_call_of(side: Side, item: Item) -> str | None:
        """A name set by a call (`crc = crc16(&out[1], n);`) by the name and the callee; None for
        any other line."""
        found = ASSIGNED_CALL.match(side.normalized[item.header])
        return None if found is None else f"A{found.group(1)}={found.group(2)}"

    @staticmethod
    def condition_body_of(side: Side, item: Item) -> str | None:
        """A condition's block (`if`, `while`) by its kind and its first lines inside, as many as
        tell one block from another (`case "$opt" in` is not enough alone), so that a block whose
        condition was edited still finds its original; None for any other item, and for lines too
        short to tell (`continue`, `return nil`) before a marker or the block's end."""
        if not item.children:
            return None
        header = side.normalized[item.header].lstrip("} ")  # `} catch (e) {`
        if not header.startswith((*CONDITIONS_START, *HANDLERS_START)):
            return None  # the common case
        word = FIRST_WORD_END.split(header, maxsplit=1)[0]
        if word not in CONDITIONS | HANDLERS:
            return None
        first: list[str] = []
        told = 0
        stack = item.children[::-1]
        while stack and told < MIN_CONDITION_BODY:
            child = stack.pop()
            if child.marker:
                return None
            first.append(side.normalized[child.start])
            told += letters(first[-1])
            stack.extend(child.children[::-1])
        if told < MIN_CONDITION_BODY:
            return None
        return "\n".join([f"B{word}", *first])

    @staticmethod
    def renamed_body_of(side: Side, item: Item) -> str | None:
        """A declaration (`def name(`, `func (s *S) name(`) by what its key says before the name and
        its whole body, so that one shown renamed over the same body finds its original; None for
        any other item, and for a body too short to tell one from another."""
        if not item.nested or has_marker(item):
            return None
        key = side.key(item)
        name = DECLARED_NAME.search(key)
        if name is None or key == side.normalized[item.header]:
            return None  # no declaration
        text = body(side, item)
        if text.count("\n") + 1 < MIN_RENAMED_BODY_LINES or len(text) < MIN_RENAMED_BODY_CHARS:
            return None
        return f"R{key[: name.start()]}\n{text}"

    def renamed_head_of(self, side: Side, item: Item) -> str | None:
        """A declaration by what its key says before the name, the rest of its header and its first
        line inside, for one shown renamed above a marker in its body: new code elides nothing, so
        its original is the one declaration that reads the same but for its name. For an original
        item, the same from its whole body."""
        if not item.nested or item.children[0].marker or (side is self.snippet and not has_marker(item)):
            return None
        parts = header_but_name(side, item)
        if parts is None:
            return None
        before, rest = parts
        first = side.normalized[item.children[0].start]
        return f"H{before}\n{rest}\n{first}" if letters(rest + first) >= MIN_CONDITION_BODY else None

    def renamed_header_of(self, side: Side, item: Item) -> str | None:
        """A declaration by its header but for its name, for one shown renamed over a body all
        elided (`private async drainQueue(): Promise<void> {`, a marker): as new code it would write
        the marker, so its original is the one declaration that reads the same but for its name."""
        if not item.nested or (side is self.snippet and not all(child.marker for child in item.children)):
            return None
        parts = header_but_name(side, item)
        return None if parts is None else "J{}\n{}".format(*parts)

    def renamed_call_of(self, side: Side, item: Item) -> str | None:
        """A declaration by what its key says before the name and the name it had: for one shown
        under a new name over a body edited too, the name that a line the snippet shows calling it
        had in the original (`go p.handleSignals()` where `go p.closeOnSignal()` stands); for an
        original item, its own."""
        if not item.nested:
            return None
        key = side.key(item)
        name = DECLARED_NAME.search(key)
        if name is None or key == side.normalized[item.header]:
            return None
        old = name.group() if side is self.original else self.name_before(item, name.group())
        return None if old is None else f"C{key[: name.start()]}\n{old}"

    def name_before(self, item: Item, new: str) -> str | None:
        """The one name other than `new` that the original has, where the snippet has `new`, in
        lines that read the same but for it, between the same lines, lines the original has there
        only (the snippet's lines outside `item`): a call renamed where it stood, not a new one
        beside look-alikes."""
        pattern, found = whole_word(new), set()
        s_lines, o_lines = self.snippet.normalized, self.original.normalized
        for k, line in enumerate(s_lines):
            if item.start <= k < item.end or k in self.snippet.markers or new not in line:
                continue
            parts = pattern.split(line)
            if len(parts) != 2 or letters(line) - letters(new) < MIN_KEY_LETTERS:
                continue
            above, below = nonblank_from(s_lines, k, -1), nonblank_from(s_lines, k, 1)
            if above is None or below is None:
                continue
            places = [self.original.where(s_lines[at]) for at in (above, below)]
            if len(places[0]) != 1 or len(places[1]) != 1:
                continue  # (lines the original has once tell where the call stood)
            j = nonblank_from(o_lines, places[0][0], 1)
            if j is None or nonblank_from(o_lines, j, 1) != places[1][0] or new in o_lines[j]:
                continue
            match = re.fullmatch(r"([A-Za-z_$][\w$]*)".join(map(re.escape, parts)), o_lines[j])
            if match:
                found.add(match.group(1))
        return found.pop() if len(found) == 1 else None

    def called_elsewhere(self, s_item: Item, o_item: Item) -> bool:
        """Whether the snippet uses the new name of a declaration, and the original its old name,
        outside its header: a rename shown at a call site too, not an anchor the original lacks."""
        return named_elsewhere(self.snippet, s_item) and named_elsewhere(self.original, o_item)

    def renamed(self, o_item: Item) -> bool:
        """The original of a declaration shown over its body with a new name was renamed, unless
        the snippet still names it (the new one may be its copy)."""
        name = DECLARED_NAME.search(self.original.key(o_item))
        assert name is not None
        used = whole_word(name.group())
        return not any(used.search(line) for line in self.snippet.lines)

    def catches_more(self, s_item: Item, o_item: Item) -> bool:
        """A handler that names all the original's do and more (`except OSError as exc:` ->
        `except (OSError, TimeoutError) as exc:`)."""
        s_header = self.snippet.normalized[s_item.header].lstrip("} ")
        o_header = self.original.normalized[o_item.header].lstrip("} ")
        if not o_header.startswith(HANDLERS_START):
            return False
        return set(NAME.findall(o_header)) < set(NAME.findall(s_header))

    def edited_condition(self, s_item: Item, o_item: Item, extended: bool = False) -> bool:
        """A condition much like the original's, or with an operand more or less, over the same
        first line: the condition was edited (the same line under a different condition may be a
        new check). `extended`: or the original's with more after it (`while a {` -> `while a &&
        b {`)."""
        s_header, o_header = self.snippet.normalized[s_item.header], self.original.normalized[o_item.header]
        if extended and s_header.startswith(o_header.rstrip("{: ")):
            return True
        return similarity(s_header, o_header) >= BLOCK_EDIT_SIMILARITY or operand_more(s_header, o_header)

    @staticmethod
    def snippet_text_of(side: Side, item: Item) -> str:
        return "T" + side.text(item)

    @staticmethod
    def snippet_key_of(side: Side, item: Item) -> str:
        return "K" + side.key(item)

    # 2. one level -------------------------------------------------------------------------

    def level(
        self,
        o_items: list[Item],
        s_items: list[Item],
        reindent: Reindent,
        top: bool,
        open_end: bool = False,
        tail_elided: bool = False,
        cut: bool = False,
    ) -> list[Op] | None:
        """`open_end`: the snippet ends inside this block (nothing but markers after it, and no
        closer), so a block that elides anything keeps what it leaves out after its last item;
        `tail_elided`: a marker less indented than the block's header follows it (or one follows it
        with its closer not shown), so it keeps that too when its last line shown is an original one;
        `cut`: the snippet stops inside this block, the closer the original has not shown and no
        marker after it: cut off there, so the block keeps its rest after its last anchor."""
        # a line shown deeper than its match stands (by the mapping of the block around, `outer`;
        # `reindent` becomes the anchors' own below) is a look-alike in some inner block
        outer = reindent
        fits = None if top else lambda s_item, o_item: not self.deeper(s_item, o_item, outer)
        matches = self.match(o_items, s_items, fits)
        if matches is None:
            return None
        if top and not matches and not any(item.removal for item in s_items):
            return (
                self.append(o_items, s_items)
                or self.append_inside(o_items, s_items)
                or self.at_file_start(o_items, s_items, reindent)
                or self.fragments_alone(o_items, s_items, reindent)
            )
        anchors = sorted(matches.items())
        base = None  # the depth of this level's anchors in the snippet
        if anchors:
            s0, o0 = anchors[0]
            reindent = self.mapping(s_items[s0], o_items[o0])
            # (lines above the first marker, deeper than it, continue the header: a signature
            # over several lines; the level stands as deep as that marker)
            first = next((k for k, item in enumerate(s_items) if item.marker), None)
            lead = 0
            if first is not None:
                while lead < first and self.depth(s_items[lead]) > self.depth(s_items[first]):
                    lead += 1
            base = min([self.depth(s_items[s]) for s in matches if s >= lead] or [self.depth(s_items[first])])
        elif not top:
            placed = self.fragments_alone(o_items, s_items, reindent)
            if placed is not None:
                return placed
        # nothing anchored, a tail elided from outside: the item shown may edit the block's head
        edits_head = not anchors and tail_elided and self.edits_open_head(s_items, o_items)
        if not anchors and tail_elided and not edits_head and self.edits_first_line(s_items, o_items):
            return None
        ops: list[Op] = []
        bounds = [(-1, -1), *anchors, (len(s_items), len(o_items))]
        # a whole-file rewrite that starts where the file starts drops what it leaves out at the end
        whole_file = self.rewrite and anchors[:1] == [(0, 0)]
        # the file keeps what the snippet leaves out at its ends; a block does at its end when the
        # snippet ends inside it and elides something in it, else it was shown whole, ends and all
        # (a tail elided from outside stays only after an original line: a marker below new code
        # that ends a rewritten body does not bring the old body back)
        last_shown = next((k for k in range(len(s_items) - 1, -1, -1) if not s_items[k].marker), None)
        keeps_tail = (
            top
            or (cut and bool(anchors))
            or (tail_elided and last_shown in matches)
            or (open_end and any(has_marker(item) for item in s_items))
            or (last_shown in matches and self.left_open(s_items[last_shown], o_items[matches[last_shown]]))
            or (  # the last item shown ends in a marker deep in it (`case .b:`, `// ... rest ...`)
                last_shown == len(s_items) - 1
                and last_shown in matches
                and self.ends_open(s_items[last_shown])
            )
            or (
                open_end
                and last_shown in matches
                and self.stops_in_chain(s_items[last_shown], o_items[matches[last_shown]])
            )
            or (open_end and self.first_items_as_is(o_items, s_items))
        )
        if open_end and not keeps_tail and self.shows_first_items(o_items, s_items, matches):
            return None
        for (sa, oa), (sb, ob) in pairwise(bounds):
            edge = None
            if sa < 0:
                edge = "lead" if top else "tail" if edits_head else None
            elif sb == len(s_items):
                edge = "tail" if keeps_tail and not whole_file else None
            elif self.ends_in_marker(s_items[sa]) or self.left_open(s_items[sa], o_items[oa]):
                # its last marker elides the rest of it, its closer not shown, and what follows
                edge = "elided"
            if sb < len(s_items) and self.new_above_comment(
                s_items[sa + 1 : sb + 1], o_items[max(oa + 1, ob - 1) : ob + 1]
            ):
                return None
            spacing = Copy(o_items[ob].lead, o_items[ob].start) if ob < len(o_items) else None
            s_gap = s_items[sa + 1 : sb]
            if sa >= 0 and self.own_closer(s_items[sa], o_items[oa], s_gap):
                s_gap = [s_gap[0], *s_gap[2:]]  # the anchor's pair keeps its closer already
            # (closed up: shown from the end of one anchor, its last line code, to the next)
            # (or, the snippet's end kept, shown from there to the last marker)
            closed_up = (
                sa >= 0
                and ((sb < len(s_items) and edge is None) or edge == "tail")
                and not self.ends_open(s_items[sa])
            )
            o_gap = o_items[oa + 1 : ob]
            if o_gap and not s_gap and sa >= 0 and edge != "tail" and self.last_shown_elides(s_items[sa]):
                self.open_gaps.append(o_gap)  # elided or deleted, by the reading chosen below
            if (
                not s_gap
                and sa >= 0
                and edge is None
                and (
                    self.marker_spans(s_items[sa], o_gap)
                    or self.elides_onward(s_items[sa], o_gap)
                    or self.registers(s_items[sa], o_gap)
                    or self.comments_after_marker(s_items[sa], o_gap)
                    or self.comment_cut_short(o_items[oa], o_gap)
                )
            ):
                gap = [Copy(o_gap[0].lead, o_gap[-1].end)]
            else:
                gap = self.gap(o_gap, s_gap, reindent, edge, spacing, base, closed_up)
            if gap is None:
                return None
            ops += gap
            # the original's item right above the next anchor replaced by new code shown there (not
            # copied): a comment above that anchor, left out, went with it (a rewritten loop's note)
            replaced = (
                bool(o_gap)
                and any(not item.marker for item in s_gap)
                and not any(isinstance(op, Copy) and op.start <= o_gap[-1].header < op.end for op in gap)
            )
            if sb < len(s_items):
                last = not s_items[sb].closer and all(item.marker for item in s_items[sb + 1 :])
                # its rest is elided by a marker right below it less indented than its header (its
                # closer not shown: one shown closes the rest up), or
                # by one below its last line, the original's closer not shown, or by the marker deep
                # in it that ends what the snippet shows of it (nothing shown after it says deleted)
                item, below = s_items[sb], s_items[sb + 1] if sb + 1 < len(s_items) else None
                elided = (
                    below is not None
                    and below.marker
                    and self.depth(below) < self.depth(item)
                    and not item.closer
                )
                # or by a marker as deep as its header that leads into code deeper than both: the
                # marker skips from its last line shown down into that code (`metadata:` shown
                # with `name:` alone, `# ...`, then `env:` deep in the spec)
                elided = elided or (
                    below is not None and below.marker and self.dives(item, s_items[sb + 2 :])
                )
                # or by a marker right below code it leaves inside brackets (a call's first lines)
                elided = elided or (below is not None and below.marker and self.unclosed(item))
                # or, where no closer shows a block's end (Python), by a marker as deep as its header
                # right below it when it shows an edit (shown word for word, it shows a deletion)
                elided = elided or (
                    below is not None
                    and below.marker
                    and not (o_items[ob].closer or item.closer)
                    and not self.starts_as_is(item, o_items[ob])
                )
                open_block = o_items[ob].closer and not item.closer and item.nested
                elided = elided or (open_block and (below is None or below.marker))
                # a header alone (`void clear(ringbuf_t *rb)`, its `{` on the next line), a marker below,
                # or last where a marker outside elides the tail (`else`, then `# ...` at column 0)
                alone = not item.children and not item.closer and bool(o_items[ob].children)
                elided = elided or (alone and (below.marker if below is not None else tail_elided))
                # or last here, a block no closer ends (Python's, YAML's), a marker outside eliding
                # this block's tail: it elides the item's too (kept only after an original line, see
                # `keeps_tail`), where the snippet writes something (one that only elides shows a
                # deletion, or nothing)
                braced = self.snippet.normalized[item.header].endswith(("{", "(", "["))
                elided = elided or (
                    below is None
                    and tail_elided
                    and not (braced or o_items[ob].closer or item.closer or self.only_elides)
                )
                shown_last = (below is None and tail_elided) or (below is not None and below.marker)
                # (where no closer can show a block's end, a sibling shown below says nothing of it)
                open_ended = shown_last or not (o_items[ob].closer or item.closer)
                elided = elided or (open_ended and self.ends_deep_in_marker(item))
                # shown after a sibling, or first in its block where the original's first items
                # are deleted: the snippet's blank lines above it count
                shown_spacing = not open_at_marker(s_items[sb - 1]) if sb > 0 else (ob > 0 and not top)
                head_elided = top and sa < 0 and not whole_file
                # a clause shown last (`except E:`, then a marker no deeper or the elided rest of
                # its block): the clauses after it are elided too
                chain_elided = (
                    (open_end and last)
                    or (below is None and tail_elided)
                    or (below is not None and below.marker and self.depth(below) <= self.depth(item))
                )
                if sb > 0 and s_items[sb - 1].marker and self.maybe_new_beside_marker(item, o_items[ob]):
                    self.unsure(item)
                    return None
                self.after_replaced = replaced  # (read, and cleared, by this pair alone)
                pair = self.pair(
                    o_items[ob],
                    s_items[sb],
                    shown_spacing,
                    open_end and last,
                    elided,
                    head_elided,
                    chain_elided,
                    cut and last,
                )
                if pair is None:
                    return None
                ops += pair
        return ops

    def unclosed(self, item: Item) -> bool:
        """Whether the item's lines open more brackets than they close (strings on a line aside)."""
        text = STRING.sub("", "\n".join(self.snippet.lines[item.header : item.end]))
        return sum(text.count(c) for c in "([{") > sum(text.count(c) for c in ")]}")

    def dives(self, item: Item, after: list[Item]) -> bool:
        """Whether the code shown next after the marker below `item` (a block shown without its
        closer) stands deeper than `item` does."""
        code = next((x for x in after if not x.marker), None)
        return code is not None and not item.closer and self.depth(code) > self.depth(item)

    def edits_open_head(self, s_items: list[Item], o_items: list[Item]) -> bool:
        """The one item shown, nothing anchored, an edit of the original's first block, left open
        (`if (!line || ...) {` with its test changed, no `}` shown): an original line, edited, so
        a tail elided from outside stays after it."""
        shown = [item for item in s_items if not item.marker]
        if len(shown) != 1 or not o_items:
            return False
        item, o_item = shown[0], o_items[0]
        open_block = o_item.closer and not item.closer and item.nested  # the snippet stops inside it
        return open_block and self.same_signature(item, o_item) is True

    def edits_first_line(self, s_items: list[Item], o_items: list[Item]) -> bool:
        """The one line shown, nothing anchored, much like the block's first line, a tail elided
        from outside (`p.logger().Println(...)` where `log.Println(...)` and `p.ul.Close()` stand):
        an edit of that line, the rest elided, or new code for the whole block? (reason recorded)"""
        shown = [item for item in s_items if not item.marker]
        if len(shown) != 1 or shown[0].nested or len(o_items) < 2 or o_items[0].nested:
            return False
        alike = similarity(self.snippet.text(shown[0]), self.original.text(o_items[0]))
        if alike < BLOCK_EDIT_SIMILARITY:
            return False
        self.fail(
            "elided_or_deleted", "an edit of the block's first line: is its rest elided or deleted?", shown[0]
        )
        return True

    def first_items_as_is(self, o_items: list[Item], s_items: list[Item]) -> bool:
        """A block's first items shown word for word (a docstring under an edited `def`) where the
        snippet ends inside it, and edits something else: its rest is elided (closing up shows
        what follows). In a snippet that edits nothing, deleting the rest is all it could say."""
        n = len(s_items)
        return (
            0 < n < len(o_items)
            and all(
                self.snippet.text(s) == self.original.text(o)
                for s, o in zip(s_items, o_items[:n], strict=True)
            )
            and self.writes_new_lines
        )

    def starts_as_is(self, s_item: Item, o_item: Item) -> bool:
        """Whether the lines shown of `s_item` are the first lines of `o_item`, word for word."""
        shown = [line for line in self.snippet.normalized[s_item.start : s_item.end] if line]
        first = (line for line in self.original.normalized[o_item.start : o_item.end] if line)
        return shown == list(islice(first, len(shown)))

    @cached_property
    def writes_new_lines(self) -> bool:
        """Whether the snippet has a line the original has not (a marker aside)."""
        markers = self.snippet.markers
        return any(
            line and k not in markers and not self.original.where(line)
            for k, line in enumerate(self.snippet.normalized)
        )

    @property
    def only_elides(self) -> bool:
        """The snippet elides code with markers and writes no new line anywhere: a deletion it
        shows by closing up around it is all it could mean."""
        return bool(self.snippet.markers) and not self.writes_new_lines

    def shows_first_items(self, o_items: list[Item], s_items: list[Item], matches: dict[int, int]) -> bool:
        """A block's first items shown, each the original's there by its key (edited or not), new
        code between them or not, where the snippet ends inside it: the rest may be elided (left
        for the marker after it) or deleted; the reason is recorded."""
        n = len(s_items)
        keyed = 0 < n < len(o_items) and all(
            self.snippet.key(s) == self.original.key(o) for s, o in zip(s_items, o_items[:n], strict=True)
        )
        # or the original's first items matched in turn, new code among them, the last one shown
        in_turn = n - 1 in matches and len(matches) < len(o_items)
        in_turn = in_turn and sorted(matches.values()) == list(range(len(matches)))
        if not (keyed or in_turn):
            return False
        self.fail(
            "elided_or_deleted",
            "a block shown up to where the snippet ends: its rest elided or deleted?",
            s_items[-1],
        )
        return True

    def fragments_alone(
        self, o_items: list[Item], s_items: list[Item], reindent: Reindent
    ) -> list[Op] | None:
        """A body shown as markers and code deeper than them only (`# ...`, a line deep in a loop,
        `# ...`): each run of deeper code goes in the one elided block that holds it. None, with
        no reason kept, when that does not place them (new code appended by its closers)."""
        depths = [self.depth(item) for item in s_items if item.marker]
        shown = [item for item in s_items if not item.marker]
        if not depths or not shown:
            return None

        def inside(base: int) -> bool:  # (a closer ends the block a fragment stands in: `}` below rows)
            return all(self.elided_inside(item, base, o_items) or self.closes(item) for item in shown)

        base = min(depths)
        if not inside(base) and all(self.deeper(item, o_items[0], reindent) for item in s_items):
            base -= 1  # markers and code alike deeper than the block's items: all inside one of them
        if not inside(base):
            return None
        reasons = len(self.reasons)
        placed = self.gap(o_items, s_items, reindent, None, None, base)
        del self.reasons[reasons:]
        first = next((op for op in placed or [] if op.end > op.start), None)
        if isinstance(first, Insert):
            return None  # deeper code above the block's first line (a method above `using System;`)
        return placed

    def new_above_comment(self, s_items: list[Item], o_items: list[Item]) -> bool:
        """New code right above an anchor (the last of each list), below a marker, where the
        original has a comment right above that anchor: a new comment may edit it or add one, and
        new code may go between the comment and the code it describes, or above the comment."""
        if len(s_items) < 3 or len(o_items) < 2 or not any(item.marker for item in s_items[:-2]):
            return False
        (s_new, s_anchor), (o_comment, o_anchor) = s_items[-2:], o_items[-2:]
        glued = s_anchor.lead == s_anchor.start and o_anchor.lead == o_anchor.start
        if s_new.marker or not glued or o_comment.children:
            return False
        s_line, o_line = self.snippet.normalized[s_new.header], self.original.normalized[o_comment.header]
        if not COMMENT.match(o_line) or s_line == o_line:
            return False
        what = (
            "the comment above it there" if COMMENT.match(s_line) else "go above or below the comment there"
        )
        self.fail("edit_or_insertion", f"{s_line[:60]!r} may edit {what}", s_new)
        return True

    def comment_left_out(self, o_gap: list[Item], s_gap: list[Item], spacing: Op | None) -> bool:
        """Comments right above an anchor, left out where the code around them is shown: deleted
        (a resolved FIXME), or just not copied out? Not in a rewrite, which shows everything."""
        if s_gap or not o_gap or self.rewrite or spacing is None or spacing.start != spacing.end:
            return False
        glued = all(item.lead == item.start for item in o_gap[1:])
        lines = [self.original.normalized[item.header] for item in o_gap if not item.children]
        if not glued or len(lines) < len(o_gap) or not all(COMMENT.match(line) for line in lines):
            return False
        self.fail("unexplained_deletion", f"{lines[0][:60]!r} is left out: deleted, or not copied?", o_gap[0])
        return True

    def deeper(self, s_item: Item, o_item: Item, reindent: Reindent) -> bool:
        """Whether the snippet shows the item at least one indent unit deeper than the original has
        it, once the snippet's indentation is mapped onto the original's."""
        s_ws, o_ws = leading(self.snippet.lines[s_item.header]), leading(self.original.lines[o_item.header])
        if reindent.identity and len(s_ws) <= len(o_ws):
            return False  # the common case: no deeper as written
        mapped = leading(reindent.apply(self.snippet.lines[s_item.header]))
        unit = self.original_unit
        return levels(mapped, unit)[0] > levels(o_ws, unit)[0]

    def depth(self, item: Item) -> int:
        return len(leading(self.snippet.lines[item.header]))

    def elided_inside(self, item: Item, base: int, o_items: list[Item]) -> bool:
        """Whether a snippet item below a marker at depth `base` goes inside the block the marker
        elides (`o_items` its level's original items): it stands deeper, or it is a clause that
        continues that block (`else:`, `} catch (e) {`), the clauses above it elided, or a `case`
        label as deep as the marker where the level is no switch's (gofmt's labels stand as deep
        as their `switch`)."""
        depth = self.depth(item)
        if depth != base:
            return depth > base
        header = self.snippet.normalized[item.header]
        if CLAUSE.match(header):
            return True
        return SWITCH_LABEL.match(header) is not None and not any(
            SWITCH_LABEL.match(self.original.normalized[o_item.header]) for o_item in o_items
        )

    def fragments(
        self, items: list[Item], o_gap: list[Item], base: int | None, edge: str | None
    ) -> tuple[list[Item], list[Fragment]] | None:
        """Takes the fragments (see `Fragment`) out of a gap's items. A fragment may end in closers
        (`}` closing its block, `}` its parent's...), the last no deeper than `base`; anything else
        after it but a marker leaves it unplaceable."""
        if base is None:
            return items, []
        rest: list[Item] = []
        found: list[Fragment] = []
        k = 0
        while k < len(items):
            rest.append(items[k])
            k += 1
            if not (
                rest[-1].marker
                and k < len(items)
                and not items[k].marker
                and self.elided_inside(items[k], base, o_gap)
            ):
                continue
            end = k
            while end < len(items) and self.elided_inside(items[end], base, o_gap):
                end += 1
            stop = end
            while stop > k and self.closes(items[stop - 1]):
                stop -= 1
            # (after a marker less indented than it, a closer ends some elided block around it)
            stepped_out = items[end - 1].marker and self.depth(items[end - 1]) < self.depth(items[k])
            if end < len(items) and self.closes(items[end]) and not stepped_out:
                end += 1
            if stop == k:
                self.fail(
                    "unanchored_insertion", "code indented deeper than its anchors after a marker", items[k]
                )
                return None
            # a marker after it, its own last one (deeper than the anchors, or the last line of a
            # block it leaves open: `other => {`, `// ...`), or the file's kept tail; code right
            # after it (Python's dedent, no closer shown) ends its block there
            marker_after = end < len(items) and items[end].marker
            last = items[end - 1]
            # (or its level's last, its brackets left open: `} else {` with no `}` below it)
            elided_after = (
                marker_after
                or last.marker
                or (end == len(items) and (edge == "tail" or self.unclosed(last)))
                or open_at_marker(last)
            )
            shown = [rest[-1], *items[k:stop], *items[end : end + marker_after]]
            outside = marker_after and end > stop
            found.append(Fragment(shown, end - stop, elided_after, marker_outside=outside))
            k = end
        return rest, found

    def flat_members(
        self, o_gap: list[Item], items: list[Item], fragments: list[Fragment], edge: str | None
    ) -> tuple[list[Item], list[Fragment]]:
        """Takes out of a gap's items the runs below a marker that are members of one elided block
        whose members stand at its header's column (`dependencies = [...]` of a TOML `[project]`
        table shown without its header): fragments too, though no deeper. One that runs to the
        gap's end (the next anchor) shows its block's end."""
        k, rest, found = 0, [], list(fragments)
        while k < len(items):
            end = k
            while end < len(items) and not items[end].marker:
                end += 1
            run = items[k:end]
            # (members of a flat block stand at column 0: TOML tables, INI sections)
            flat = run and k > 0 and o_gap and self.depth(run[0]) == 0
            if not (flat and self.members_of_flat_block(o_gap, run)):
                rest += items[k : end + 1]
            else:
                elided_after = end < len(items) or edge == "tail"
                found.append(Fragment([items[k - 1], *run, *items[end : end + 1]], 0, elided_after))
                rest += items[end : end + 1]
            k = end + 1
        return rest, sorted(found, key=lambda fragment: fragment.items[0].start)

    def members_of_flat_block(self, o_items: list[Item], run: list[Item]) -> bool:
        """Whether each item of `run` is, by its key, a member at the header's column of the one
        block among `o_items` that holds them (no reason kept when there is none)."""
        reasons = len(self.reasons)
        block = self.container(o_items, run)
        del self.reasons[reasons:]
        if block is None:
            return False
        column = len(leading(self.original.lines[block.header]))
        members = {
            self.original.key(child)
            for child in block.children
            if len(leading(self.original.lines[child.header])) == column
        }
        return all(self.snippet.key(item) in members for item in run)

    def ends_elided(self, s_items: list[Item], o_item: Item) -> bool:
        """Lone closers after a marker that are the last lines of the elided item above them: a Go
        or Swift `case` ends in its switch's `}`, which the snippet shows below the marker."""
        if not all(self.closes(item) for item in s_items) or o_item.end - o_item.header <= len(s_items):
            return False
        closers = [self.snippet.normalized[item.header] for item in s_items]
        return self.original.normalized[o_item.end - len(s_items) : o_item.end] == closers

    def own_closer(self, s_anchor: Item, o_anchor: Item, s_gap: list[Item]) -> bool:
        """Whether the lone closer right below the marker that follows an open block (`def run`,
        its last lines and `# ... rescue unchanged ...` shown, then `end`) is that block's own: at
        its header's column, the original block's last line. The block keeps its elided tail,
        closer included, so the closer is not new."""
        if not (s_anchor.nested and not s_anchor.closer and o_anchor.closer):
            return False
        if len(s_gap) < 2 or not s_gap[0].marker or not self.closes(s_gap[1]):
            return False
        closer = s_gap[1]
        return (
            self.depth(closer) == self.depth(s_anchor)
            and self.snippet.normalized[closer.header] == self.original.normalized[o_anchor.end - 1]
        )

    def closes(self, item: Item) -> bool:
        """A lone closer line: `}`, `end`, `</div>`."""
        if item.marker or item.nested:
            return False
        return PURE_CLOSER.match(self.snippet.lines[item.header].strip()) is not None

    def append(self, o_items: list[Item], s_items: list[Item]) -> list[Op] | None:
        """`marker, new top-level items`: the new items go after the end of the file."""
        new = s_items[1:]
        if not s_items[0].marker or not new or any(has_marker(item) for item in new):
            return None
        if any(leading(self.snippet.lines[item.header]) for item in new):
            return None
        if self.same_signature(new[-1], o_items[-1]) is not False:
            return None  # it may edit the file's last item (`CMD` after `CMD`): not an addition
        reindent = self.mapping(new[0], o_items[0])
        return [Copy(o_items[0].lead, o_items[-1].end), *self.inserts(new, reindent)]

    def append_inside(self, o_items: list[Item], s_items: list[Item]) -> list[Op] | None:
        """`marker, new code, closers`: the code goes at the end of the one block those closers
        end (a method appended to a class, shown with the class's `}` and the namespace's `}`
        below it). A closer matches by its text and indentation; one that ends several blocks
        alike (each Go function's `}`) places nothing."""
        if not s_items[0].marker or s_items[-1].marker or not self.closes(s_items[-1]):
            return None
        stop = len(s_items)
        while self.closes(s_items[stop - 1]):
            stop -= 1
        new, closers = s_items[1:stop], s_items[stop:]
        if not new or any(item.marker for item in new):
            return None
        if any(closer.end != closer.header + 1 for closer in closers):
            return None
        depths = [self.depth(item) for item in closers]  # each closes the block around the one before
        if min(self.depth(item) for item in new) <= depths[0] or depths != sorted(set(depths), reverse=True):
            return None
        found = self.closed_by(o_items, [self.snippet.lines[closer.header].rstrip() for closer in closers])
        if len(found) != 1:
            return None
        members = found[0].children  # an Allman `{` line holds the members of the block above it
        if len(members) == 1 and self.original.normalized[members[0].header] == "{" and members[0].nested:
            members = members[0].children
        reindent = self.mapping(new[0], members[-1])
        inner = self.level(members, [s_items[0], *new], reindent, top=False)
        if inner is None or (self.match(members, new) and not self.shows(new, members[-1])):
            return None
        return [Copy(o_items[0].lead, members[0].lead), *inner, Copy(members[-1].end, o_items[-1].end)]

    def closed_by(self, o_items: list[Item], closers: list[str]) -> list[Item]:
        """The blocks whose closing line is closers[0], directly followed by the closing lines of
        the blocks around them, closers[1:]."""
        found: list[Item] = []
        stack = [(item, ()) for item in o_items]
        while stack:
            item, around = stack.pop()
            if not item.nested:
                continue
            blocks = (*around, item) if item.closer else around  # outermost first
            if item.closer and len(blocks) >= len(closers):
                chain = blocks[len(blocks) - len(closers) :][::-1]  # innermost first, as the closers
                lines = [self.original.lines[block.end - 1].rstrip() for block in chain]
                last = all(inner in last_descendants(outer) for inner, outer in pairwise(chain))
                if lines == closers and last:
                    found.append(item)
            stack.extend((child, blocks) for child in item.children)
        return found

    def at_file_start(self, o_items: list[Item], s_items: list[Item], reindent: Reindent) -> list[Op] | None:
        """`edited first items, marker, ...`: the file's first items are edited in place."""
        shown = list(takewhile(lambda item: not item.marker, s_items))
        if not shown or len(shown) == len(s_items):
            return None
        found = self.positional(o_items, shown)
        if found is None or found[0] or not found[1]:
            return None
        return self.gap(o_items, s_items, reindent, None)

    def gap(
        self,
        o_gap: list[Item],
        s_gap: list[Item],
        reindent: Reindent,
        edge: str | None,
        spacing: Op | None = None,
        base: int | None = None,
        closed_up: bool = False,
    ) -> list[Op] | None:
        """Ops for the snippet items between two anchors and the original items between theirs.
        `spacing`: the next anchor's blank lines in the original;
        `base`: the depth of the level's anchors, below which code after a marker is a fragment;
        `closed_up`: the anchor above ends in code, not a marker (see `replace`)."""
        removals = [item for item in s_gap if item.removal]
        if removals:
            s_gap = [item for item in s_gap if not item.removal]
            return self.remove(o_gap, s_gap, removals, reindent, edge, base)
        s_gap = self.joined_prefix(s_gap, o_gap)
        split = self.fragments(s_gap, o_gap, base, edge)  # before hoisting: a fragment keeps its markers
        if split is None:
            return None
        items, fragments = self.flat_members(o_gap, *split, edge)
        parts: list[list[Item]] = [[]]
        markers: list[Item] = []
        for item in hoist_markers(items):
            if item.marker:
                parts.append([])
                markers.append(item)
            else:
                parts[-1].append(item)
        below = {part[0]: marker for marker, part in zip(markers, parts[1:], strict=True) if part}
        above = {part[-1]: marker for marker, part in zip(markers, parts, strict=False) if part}

        def another(s_item: Item, o_item: Item) -> bool:  # a marker right beside it names that one
            return any(
                s_item in side and self.named_by_marker(side[s_item], s_item, o_item)
                for side in (below, above)
            )

        if o_gap and len(parts) == 1 and edge == "lead":
            rewritten = self.rewritten_doc(o_gap, parts[0], reindent)
            if rewritten is not None:
                return rewritten
        omitted = bool(o_gap) and len(parts) == 1 and edge is not None
        if omitted:
            parts = [*parts, []] if edge == "tail" else [[], *parts]  # an omitted head/tail: a marker
        if len(parts) == 1:
            if self.comment_left_out(o_gap, s_gap, spacing):
                return None
            if o_gap and s_gap and s_gap[-1] is parts[0][-1] and self.shows_only_prefix(s_gap[-1], o_gap[-1]):
                # the comment above the original's last item shown last, not the item: that item,
                # elided (`# wake the successors`, its loop not shown), not replaced by the comment
                above = self.gap(
                    o_gap[:-1], s_gap[:-1], reindent, edge, Copy(o_gap[-1].lead, o_gap[-1].start), base
                )
                last = self.pair(o_gap[-1], s_gap[-1], shown_spacing=True)
                return None if above is None or last is None else above + last
            edited = self.edits_elided_block(o_gap, parts[0])
            wrapper = self.elided_wrapper(o_gap, parts[0]) if edited is None else None
            if wrapper is not None:
                return self.wrap_elided(o_gap, parts[0], wrapper, reindent)
            if edited is not None:
                new = parts[0]
                paired = self.pair(o_gap[0], new[edited], shown_spacing=True)
                if paired is None:
                    return None
                return [
                    *self.inserts(new[:edited], reindent),
                    *paired,
                    *self.inserts(new[edited + 1 :], reindent),
                ]
            return self.replace(o_gap, parts[0], self.inserts(parts[0], reindent), closed_up)
        if o_gap and parts[-1] and self.ends_elided(parts[-1], o_gap[-1]):
            parts[-1] = []
        if len(parts) == 2 and not parts[0] and edge is None:
            wrapped = self.wraps_last(o_gap, parts[1])
            if wrapped is not None:  # a marker, then a new block around the original code after it
                at, k = wrapped
                ops = self.wrap_elided(o_gap[at:], parts[1], k, reindent)
                return None if ops is None else [Copy(o_gap[0].lead, o_gap[at - 1].end), *ops]
        found = self.positional(o_gap, parts[0], marker_beyond=not any(parts[1:]), another=another)
        if found is None:
            return None
        before, head = found
        if head and before + len(head) == len(parts[0]) and parts[0][-1] in above:
            # the last shown above a marker, an edit of the original's there for its kind alone
            s_item, o_item = parts[0][-1], head[-1]
            if another(s_item, o_item):
                head = head[:-1]  # `// ... Contacts and the rest unchanged ...`: that one stays
            elif self.maybe_new_beside_marker(s_item, o_item):
                self.unsure(s_item)
                return None
        rest = o_gap[len(head) :]
        found = (
            self.positional(rest[::-1], parts[-1][::-1], marker_beyond=not any(parts[:-1]))
            if len(parts) > 1
            else (0, [])
        )
        if found is None:
            return None
        after, tail = found[0], found[1][::-1]
        if len(tail) == 1 and after == len(parts[-1]) - 1 and another(parts[-1][0], tail[0]):
            tail = tail[1:]  # the marker right above stands for the original's block: this one is new
        kept = rest[: len(rest) - len(tail)]
        shown_head = parts[0][before : before + len(head)]
        shown_tail = parts[-1][len(parts[-1]) - after - len(tail) : len(parts[-1]) - after]
        paired = [*zip(shown_head, head, strict=True), *zip(shown_tail, tail, strict=True)]
        # (a marker less indented than the blocks elides what follows their block, not one of them)
        shallower = [
            item for item in s_gap if item.marker and all(self.depth(item) < self.depth(s) for s, _ in paired)
        ]
        if not kept and o_gap and len(shallower) < len(parts) - 1 and self.edited_by_likeness(paired):
            return None
        new_first = parts[0][before + len(head) :]
        new_last = parts[-1][: len(parts[-1]) - after - len(tail)]
        middle = [item for part in parts[1:-1] for item in part]
        slot = self.import_slot(new_first, kept) if edge == "lead" and not head and not before else 0
        if edge == "lead" and not parts[0] and len(parts) == 3 and kept and self.import_slot(middle, kept):
            # imports alone between the file's first marker and the next (`# ... existing imports ...`,
            # `from .throttle import RateLimiter`, `# ... existing code ...`): they join the original's
            new_first, middle = middle, []
            slot = self.import_slot(new_first, kept)
        if (
            closed_up
            and new_first
            and markers
            and not (head or before or tail or parts[-1])
            and len(parts) == 2
        ):
            named = self.named_below(kept, markers[-1], new_first)
            if named is not None:  # the new code replaces the items above those the marker names
                elided = [Copy(item.lead, item.end) for item in kept[named:]]
                return self.replace(kept[:named], new_first, [*self.inserts(new_first, reindent), *elided])
        free = [new_first, *parts[1:-1], new_last]  # new code placed by no anchor of its own
        runs = self.wrapped_runs(kept[slot:], free) if kept else [range(0)] * len(free)
        if runs is None:
            return None
        wrapping = [(run, part) for run, part in zip(runs, free, strict=True) if run]
        if wrapping and fragments:
            self.fail(
                "unanchored_insertion", "new code wraps elided code a fragment goes in", wrapping[0][1][0]
            )
            return None
        if middle and kept and not all(runs[1:-1]):
            named_at = None
            if len(parts) == 3 and not (wrapping or fragments or new_first or new_last or slot):
                named_at = self.split_by_names(kept, *markers)
            if named_at is None:
                self.fail(
                    "unanchored_insertion",
                    "new code between two markers has no anchor to place it",
                    middle[0],
                )
                return None
            paired = self.pairs(head, parts[0][before:])
            tail_paired = self.pairs(tail, parts[-1][: len(parts[-1]) - after])
            if paired is None or tail_paired is None:
                return None
            return [
                *self.inserts(parts[0][:before], reindent),
                *paired,
                *(Copy(item.lead, item.end) for item in kept[:named_at]),
                *self.inserts(middle, reindent),
                *(Copy(item.lead, item.end) for item in kept[named_at:]),
                *tail_paired,
                *self.inserts(parts[-1][len(parts[-1]) - after :], reindent),
            ]
        # what wraps elided code goes where that code stood; the rest at the gap's ends
        before_kept = [] if runs[0] else new_first
        after_kept = [*([] if kept else middle), *([] if runs[-1] else new_last)]
        # an elided item the new code beside it calls, moved into a new function: replaced by it
        moved_out = None
        if kept and after_kept and self.extracted(kept[-1], after_kept):
            kept, moved_out = kept[:-1], kept[-1]
        elif kept and before_kept and self.extracted(kept[0], before_kept):
            kept = kept[1:]
        # all a marker stands for, new code on one side of it (an omitted end need stand for nothing)
        lone = len(kept) == 1 and not middle and not omitted
        # (an elided one that a marker beside the new one names is no look-alike: `<!-- ... Payments
        # and Settings links ... -->` below a new `Reports` link, where the `Payments` link stands)
        first_named = bool(before_kept and kept) and another(before_kept[0], kept[0])
        last_named = bool(after_kept and kept) and another(after_kept[-1], kept[-1])
        if (not first_named and self.look_alike(before_kept[:1], kept[:1], lone and not new_last)) or (
            not tail
            and not last_named
            and self.look_alike(after_kept[-1:], kept[-1:], lone and not new_first)
        ):
            return None
        outer = (parts[0][:before], parts[-1][len(parts[-1]) - after :])
        inserted = [*outer[0], *before_kept, *after_kept, *outer[1]]
        # (new code beyond a shown edit of the gap's first or last item edits none of those elided)
        beside_kept = [*([] if head else outer[0]), *before_kept, *after_kept, *([] if tail else outer[1])]
        if (
            self.twin(kept, beside_kept, another)
            or self.repeats_elided(inserted, kept)
            or self.extends_elided(inserted, kept)
            or self.wraps_kept(after_kept, kept)
            or self.lands_on_key(after, kept, after_kept, another)
            or self.shown_from_elsewhere(inserted)
        ):
            return None
        ops = self.inserts(parts[0][:before], reindent)
        paired = self.pairs(head, parts[0][before:])
        if paired is None:
            return None
        ops += paired + [Copy(item.lead, item.end) for item in kept[:slot]]
        if 0 < slot < len(kept) and not IMPORT_LINE.match(self.original.lines[kept[slot - 1].header]):
            ops.append(Copy(kept[slot].lead, kept[slot].start))  # below a docstring: a blank line first
        if wrapping:
            placed = self.wrap(kept[slot:], wrapping, reindent)
        else:
            # new code right below a fragment's closers, above the anchor, takes the place of the
            # elided items after that fragment's block (`};` closing `let current = match ... {`,
            # then `let Some(next) = ... else {` where `let next = current + by;` stood)
            follows = fragments and new_last and not middle and not tail and not after
            follows = follows and fragments[-1].items[-1].end <= new_last[0].start
            placed = self.keep(kept[slot:], fragments, reindent, new_last if follows else [])
            if placed is None:
                return None
        ops += self.inserts(before_kept, reindent)
        if (
            before_kept
            and kept
            and not (slot or head or before)
            and (edge == "lead" or self.first_member(kept[0]))
            and kept[0].lead == kept[0].start
        ):
            # new code above the file's first line or a type's first member: the blank lines the
            # snippet shows below it
            ops += self.blank_lines_below(before_kept[-1], s_gap, reindent)
        ops += placed
        first = after_kept[0] if kept and after_kept else None
        at_anchor = spacing is not None and not tail and not after
        # new lines glued below elided ones that stand glued (`self._nfinished = 0` above), and
        # apart from the anchor below, join the elided ones: no blank lines between
        glued = len(kept) > 1 and all(item.lead == item.start for item in kept[1:])
        apart = (
            bool(after_kept)
            and not self.snippet.normalized[min(after_kept[-1].end, len(self.snippet.lines) - 1)]
        )
        joins = first is not None and first.lead == first.start and at_anchor and glued and apart
        if moved_out is not None and after_kept[0].lead == after_kept[0].start:
            ops.append(Copy(moved_out.lead, moved_out.start))  # the blank lines of what it replaces
        elif first is not None and not joins:
            if first.lead == first.start:
                # no blank lines shown above it: those the original has where it goes, above the
                # next anchor, or else those of its siblings
                ops.append(spacing if at_anchor else Copy(kept[-1].lead, kept[-1].start))
            elif at_anchor and first.start - first.lead < spacing.end - spacing.start:
                # fewer blank lines below a marker than the file has there (one, not PEP 8's two)
                ops.append(spacing)
                after_kept = [first.under(first.start, first.start), *after_kept[1:]]
        ops += self.inserts(after_kept, reindent)
        paired = self.pairs(tail, parts[-1][len(new_last) :], shown=bool(new_last))
        if paired is None:
            return None
        return ops + paired + self.inserts(parts[-1][len(parts[-1]) - after :], reindent)

    def wrap(
        self, kept: list[Item], wrapping: list[tuple[range, list[Item]]], reindent: Reindent
    ) -> list[Op]:
        """The elided items, each run that new code wraps replaced by that code."""
        ops: list[Op] = []
        at = 0
        for run, part in wrapping:
            ops += [Copy(item.lead, item.end) for item in kept[at : run.start]]
            if part[0].lead == part[0].start:  # no blank lines shown above it: those of what it wraps
                ops.append(Copy(kept[run.start].lead, kept[run.start].start))
            ops += self.inserts(part, reindent)
            at = run.stop
        return ops + [Copy(item.lead, item.end) for item in kept[at:]]

    @staticmethod
    def declared_name(side: Side, item: Item) -> str | None:
        """The name an item declares, lowercased (`def _check(self, resp):`: _check); None for an
        import (its key ends in `import`, not a name)."""
        if item.marker or IMPORT_LINE.match(side.normalized[item.header]):
            return None
        declared = NAME.findall(side.key(item))
        return declared[-1].lower() if declared else None

    def named_below(self, kept: list[Item], marker: Item, new: list[Item]) -> int | None:
        """New code right below an anchor, then a marker that names elided items (`async def
        aclose`, `async def __aenter__`, ..., `# ... _check unchanged ...`, where `def close`,
        `def __enter__`, ... and `def _check` stand): the marker stands for the first it names and
        those after it, so when each item above has its counterpart in the new code, a name in
        the other's, the new code takes their place. Where the items it stands for start, or None."""
        said = naming_words(self.snippet.lines[marker.start])
        names = [self.declared_name(self.original, item) for item in kept]
        first = next((k for k, name in enumerate(names) if name in said), None)
        if not first:
            return None
        new_names = {name.strip("_") for item in new if (name := self.declared_name(self.snippet, item))}
        for name in names[:first]:
            bare = name.strip("_") if name else ""
            if not bare or not any(bare in other or other in bare for other in new_names if other):
                return None
        return first

    def split_by_names(self, kept: list[Item], above: Item, below: Item) -> int | None:
        """Where new code between two markers goes among the elided `kept` items when the markers
        name them (`// ... register() and updateEmail() ...`, the new method, `// ... search()
        unchanged ...`): right after the last item the marker above names, which must be right
        above the first one the marker below names. None when the names do not pin one place."""
        said_above = naming_words(self.snippet.lines[above.start])
        said_below = naming_words(self.snippet.lines[below.start])
        named_above, named_below = [], []
        for k, item in enumerate(kept):
            name = self.declared_name(self.original, item)
            if name in said_above:
                named_above.append(k)
            if name in said_below:
                named_below.append(k)
        if not named_above or not named_below or named_above[-1] + 1 != named_below[0]:
            return None
        return named_below[0]

    def wrapped_runs(self, kept: list[Item], parts: list[list[Item]]) -> list[range] | None:
        """For each part of new code, the run of elided items it rewrites in place (wrapped in a
        new block, or a block unwrapped), empty when it writes out no elided code. None (the
        reason recorded) when it writes some out but rewrites no one run, or out of order."""
        runs: list[range] = []
        at = 0
        for part in parts:
            run = self.wrapped_run(kept, at, part) if part else range(0)
            if run is None:
                self.fail("unanchored_insertion", "new code writes out elided original code", part[0])
                return None
            runs.append(run)
            at = run.stop if run else at
        return runs

    def wrapped_run(self, kept: list[Item], at: int, part: list[Item]) -> range | None:
        """kept[i:j], from `at` on, that `part` rewrites in place: the one run of elided items
        (MIN_WRAPPED_LINES lines, or one of MIN_WRAPPED_CHARS) it writes out inside a new control
        block (`if`, `try`, `with`; not a function, which may copy them), or the one elided block
        whose whole body it writes out without the block's header (unwrapped). Empty when `part`
        writes out no elided code; None when it writes out two runs, one not in a new block, or
        other elided lines too (moved? copied?)."""
        lines = self.original.normalized
        elided = set(lines[kept[at].start : kept[-1].end]) if at < len(kept) else set()
        shown = [line for item in part for line in self.snippet.normalized[item.start : item.end] if line]
        shown_set = set(shown)
        runs = []
        i = at
        while i < len(kept):
            j, run = i, []
            while j < len(kept) and lines[kept[j].start] in shown_set:
                longer = run + list(filter(None, lines[kept[j].start : kept[j].end]))
                if not holds(shown, longer):
                    break
                j, run = j + 1, longer
            if self.long_enough(run):
                runs.append((range(i, j), run))
            i = max(j, i + 1)
        if runs and (len(runs) > 1 or not holds(self.inside_new_blocks(part, elided), runs[0][1])):
            return None  # written out twice, or not wrapped
        runs = runs or self.unwrapped(kept, at, shown)
        if len(runs) > 1:
            return None
        if not runs:
            return range(0)
        run, written = runs[0]
        moved = {line for line in (shown_set & elided) - set(written) if not BARE_WORD.match(line)}
        return None if moved else run

    def unwrapped(self, kept: list[Item], at: int, shown: list[str]) -> list[tuple[range, list[str]]]:
        """The elided control blocks, from `at` on, whose whole body `shown` writes out without
        their header, each with its lines."""
        lines, shown_set = self.original.normalized, set(shown)
        code = [line for line in shown if not BARE_WORD.match(line)]
        found = []
        for k in range(at, len(kept)):
            item = kept[k]
            if not self.control_block(self.original, item) or lines[item.header] in shown_set:
                continue
            inside = [
                line for line in lines[item.header + 1 : item.end] if line and not BARE_WORD.match(line)
            ]
            if inside and inside[0] in shown_set and self.long_enough(inside) and holds(code, inside):
                found.append((range(k, k + 1), list(filter(None, lines[item.start : item.end]))))
        return found

    @staticmethod
    def control_block(side: Side, item: Item) -> bool:
        """`if`, `try`, `with`, JSX's `{ready && (` and the like, over lines they can wrap; not a
        function or a class."""
        header = side.normalized[item.header]
        return item.nested and (
            FIRST_WORD_END.split(header, maxsplit=1)[0] in WRAPPERS or bool(JSX_CONDITION.match(header))
        )

    @staticmethod
    def long_enough(run: list[str]) -> bool:
        return len(run) >= MIN_WRAPPED_LINES or (bool(run) and letters(run[0]) >= MIN_WRAPPED_CHARS)

    def inside_new_blocks(self, part: list[Item], elided: set[str]) -> list[str]:
        """The lines inside the new control blocks of `part`, "" between two blocks."""
        inner: list[str] = []
        for item in part:
            if self.control_block(self.snippet, item) and self.snippet.normalized[item.header] not in elided:
                inner += [*filter(None, self.snippet.normalized[item.header + 1 : item.end]), ""]
        return inner

    def rewritten_doc(self, o_gap: list[Item], new: list[Item], reindent: Reindent) -> list[Op] | None:
        """A snippet that opens with a comment right above its first anchor (`// Package x ...` over
        `package x`), where the original has its own comment right above it: the snippet's replaces
        that one; what the original has above it (a licence) is an omitted head and stays."""
        if not new or not all(self.snippet.is_comment(item) for item in new):
            return None
        run: list[Item] = []  # the original's comment lines right above the anchor
        for item in reversed(o_gap):
            if not self.original.is_comment(item):
                break
            run.insert(0, item)
            if item.lead < item.start:
                break
        if not run:
            return None
        o_below, s_below = self.original.normalized[o_gap[-1].end], self.snippet.normalized[new[-1].end]
        glued = bool(o_below and s_below)
        # or both doc blocks set apart by blank lines (`/** ... */`, a blank line, `function f() {`)
        firsts = (self.original.lines[run[0].start], self.snippet.lines[new[0].start])
        spaced = not (o_below or s_below) and len(run) == len(new) == 1
        if not (glued or (spaced and all(line.lstrip().startswith("/**") for line in firsts))):
            return None
        head = [Copy(item.lead, item.end) for item in o_gap[: len(o_gap) - len(run)]]
        return [*head, Copy(run[0].lead, run[0].start), *self.inserts(new, reindent)]

    def keep(
        self, kept: list[Item], fragments: list[Fragment], reindent: Reindent, then: list[Item]
    ) -> list[Op] | None:
        """Copies the elided original items `kept`, each fragment aligned inside the one block
        among them that holds it, in order. `then`: new code shown right below the last fragment,
        above the next anchor; the items kept after that fragment's block give way to it."""
        if not fragments:
            return [Copy(item.lead, item.end) for item in kept]
        placed: list[tuple[Item, list[Op]]] = []
        for fragment in fragments:
            shown = [item for item in fragment.items if not item.marker]
            inner = None
            if not kept:
                container = None
            elif self.steps_out(fragment):
                container, inner = self.stepped_out(kept, fragment.items, not fragment.closed) or (None, None)
            else:
                container = self.container(kept, fragment.items)
            if container is None:
                if not self.reasons:
                    self.fail(
                        "unanchored_insertion", "code after a marker matches no block it elides", shown[0]
                    )
                return None
            if placed and container.children[0].lead < placed[-1][0].children[-1].end:
                self.fail(
                    "unanchored_insertion", "code after a marker is out of order with its block", shown[0]
                )
                return None
            ends_kept = any(item is container for item in last_descendants(kept[-1]))
            if not fragment.elided_after and not ends_kept and then and fragment is fragments[-1]:
                ending = next((k for k, item in enumerate(kept) if container in last_descendants(item)), None)
                if ending is not None and self.replace(kept[ending + 1 :], then, []) is not None:
                    kept, ends_kept = kept[: ending + 1], True
            if not fragment.elided_after and not ends_kept:
                self.fail(
                    "unanchored_insertion",
                    "code shown above an anchor is not in the block above it",
                    shown[0],
                )
                return None
            ending = lineage(kept, container)[-fragment.closers :] if fragment.closers else []
            ends_early = any(child is not parent.children[-1] for parent, child in pairwise(ending))
            # a marker as deep as its last code elides the rest of its block (`// ... more rows ...`, `}`)
            after = fragment.items[fragment.items.index(shown[-1]) + 1 :]
            end_elided = any(item.marker and self.depth(item) >= self.depth(shown[-1]) for item in after)
            shows_end = (
                self.shows(shown, container.children[-1])
                or self.same_signature(shown[-1], container.children[-1]) is not False
                or self.shows_last_line(shown, container.children[-1])
                or (fragment.closers > 0 and self.ends_replaced(shown, container))
            )
            if ends_early or (fragment.closed and not end_elided and not shows_end):
                # shown to its block's end without showing that end: a deletion no one asked for
                self.fail("unexplained_deletion", "code after a marker ends its block early", shown[-1])
                return None
            if inner is None:
                # (a marker below its closers elides nothing of its block, which ends as shown)
                items = fragment.items[:-1] if fragment.marker_outside else fragment.items
                inner = self.level(
                    container.children, items, reindent, top=False, open_end=not fragment.closed
                )
            if inner is None:
                return None
            placed.append((container, inner))
        ops: list[Op] = []
        for item in kept:
            at = item.lead
            while placed and item.lead <= placed[0][0].start < item.end:
                container, inner = placed.pop(0)
                ops += [Copy(at, container.children[0].lead), *inner]
                at = container.children[-1].end
            ops.append(Copy(at, item.end))
        return ops

    def shows_last_line(self, shown: list[Item], block: Item) -> bool:
        """Whether the snippet shows the block's last line, word for word and long enough to tell
        (`return spaced.ToString().Split(...);`, then `}` closing the block: its end shown)."""
        last = last_descendants(block)[-1]
        text = self.original.text(last)
        return letters(text) >= MIN_INNER_LETTERS and any(self.snippet.text(item) == text for item in shown)

    def steps_out(self, fragment: Fragment) -> bool:
        """Whether code in the fragment stands less indented than its first line: not a closer, not
        a clause that continues the block (`} else {`), but code beside a block around it."""
        shown = [item for item in fragment.items if not item.marker]
        return any(
            self.depth(item) < self.depth(shown[0])
            and not self.closes(item)
            and not CLAUSE.match(self.snippet.normalized[item.header])
            for item in shown[1:]
        )

    def stepped_out(
        self, o_items: list[Item], s_items: list[Item], open_end: bool
    ) -> tuple[Item | None, list[Op]] | None:
        """`marker, the last lines of a block, then code less indented` (the end of a loop, then
        the next method): the first lines end a block somewhere among `o_items`, and each run of
        code less indented than the one above it stands beside the block around that one,
        aligned with what follows it. The first line must stand in the original, and only one
        place may fit; the original's lines between a run and the next are deleted, as shown
        closed up. Returns the block whose children the last run stands among (None: `o_items`)
        and the ops over those children, first to last. `open_end`: a marker (or the snippet's
        end) follows, so what the last run does not show of its block is kept."""
        runs = self.runs_out(s_items)
        if runs is None:
            return None
        first = self.snippet.normalized[runs[0][0][0].header]
        places = []
        for line in self.original.where(first):
            chain = descent(o_items, line)
            blocks = self.steps(chain, runs) if len(chain) > 1 else None
            if blocks is not None:
                places.append((chain, blocks))
        if len(places) > 1:  # a first line alike in several (`{` of a list's elements): its item itself
            text = self.snippet.text(runs[0][0][0])
            places = [place for place in places if self.original.text(place[0][-1]) == text] or places
        if len(places) > 1:
            self.fail("several_candidates", f"{len(places)} blocks in the original end with the lines shown")
        if len(places) != 1:
            return None
        chain, blocks = places[0]
        return self.climb(o_items, chain, blocks, runs, open_end)

    def runs_out(self, s_items: list[Item]) -> list[tuple[list[Item], list[Item]]] | None:
        """`marker, code, closers, less indented code, closers, ...` split into runs of code, each
        with the closers below it; the last run takes the rest of the items, markers included,
        unless closers end it (its block's, shown): then only markers may follow them."""
        if len(s_items) < 3 or not s_items[0].marker or s_items[1].marker:
            return None
        runs: list[tuple[list[Item], list[Item]]] = [([s_items[1]], [])]
        for k in range(2, len(s_items)):
            item = s_items[k]
            code, closers = runs[-1]
            if item.marker:
                if closers and not all(item.marker for item in s_items[k:]):
                    return None
                if all(item.marker for item in s_items[k:]) or self.depth(item) < self.depth(code[0]):
                    code += s_items[k:]
                    break
                code.append(item)  # the rest of its block elided, or code between
                continue
            # a clause continues the block around the code above it (`} catch (err) {`); a closer
            # as deep as a switch's label closes the switch (gofmt writes `case` as deep as `switch`)
            label = SWITCH_LABEL.match(self.snippet.normalized[code[0].header]) is not None
            if label and self.closes(item) and self.depth(item) == self.depth(code[0]):
                closers.append(item)
            elif self.depth(item) >= self.depth(code[0]) or CLAUSE.match(
                self.snippet.normalized[item.header]
            ):
                if closers:
                    return None  # code after a closer, as deep as the code above it
                code.append(item)
            elif self.closes(item):
                closers.append(item)
            else:
                runs.append(([item], []))
        return runs if len(runs) > 1 else None

    def steps(self, chain: list[Item], runs: list[tuple[list[Item], list[Item]]]) -> list[int] | None:
        """For each run after the first, the index in `chain` of the block it stands beside; None
        when the runs do not fit the chain. `chain` runs from the top down to the original item
        the first run's first line heads; each run must end its block, and each closer shown must
        be the original's."""
        code, closers = runs[0]
        reindent = self.mapping(code[0], chain[-1])
        # (new lines may end it where a closer shows its end; Python's dedent may only stop showing it)
        replaced = bool(closers) and self.ends_replaced(code, chain[-2])
        ends = code[-1].marker or self.ends(code, chain[-2].children[-1]) or replaced
        if not ends or not self.continues(code, chain[-2], reindent):
            return None  # code less indented follows lines that do not end their block
        inner = len(chain) - 2  # the innermost block still open
        blocks = []
        for (above, closers), (code, _) in pairwise(runs):
            if inner < 0:
                return None
            shown = [self.snippet.normalized[item.header] for item in closers]
            if above[-1].closer and self.depth(above[-1]) < self.depth(above[0]):
                shown.insert(0, self.snippet.normalized[above[-1].end - 1])  # a clause's `}`: its block's
            depth = leading(reindent.apply(self.snippet.lines[code[0].header]))
            fits = []
            for k in range(inner, -1, -1):
                closed = chain[k : inner + 1]
                ends = [self.original.normalized[item.end - 1] for item in closed[::-1] if item.closer]
                # (a marker ending the run above elides the rest of its blocks, closers and all)
                if ends[len(ends) - len(shown) :] != shown if above[-1].marker else ends != shown:
                    continue
                if closers:  # the code stands as deep as the last closer, which closes that block
                    placed = self.depth(code[0]) == self.depth(closers[-1])
                else:
                    placed = leading(self.original.lines[chain[k].header]) == depth
                if placed:
                    fits.append(k)
            if len(fits) > 1:  # blocks closed by no closer of their own (`})()`): the one as deep
                fits = [k for k in fits if leading(self.original.lines[chain[k].header]) == depth]
            if len(fits) != 1:
                return None
            k = fits[0]
            # it steps out again: it must end its block (or be new), unless a marker ends it
            if code is not runs[-1][0] and not code[-1].marker:
                last = chain[k - 1].children[-1] if k else None
                if last is None or (last is not chain[k] and not self.ends(code, last)):
                    return None
            reindent = self.mapping(code[0], chain[k])
            if not self.continues(code, chain[k - 1] if k else None, reindent):
                return None
            blocks.append(k)
            inner = k - 1
        closers = [self.snippet.normalized[item.header] for item in runs[-1][1]]
        if closers and (
            inner < 0
            or not chain[inner].closer
            or closers != [self.original.normalized[chain[inner].end - 1]]
        ):
            return None  # closers below the last run must be those of its block
        return blocks

    def ends(self, code: list[Item], last: Item) -> bool:
        """Whether a run of code shows `last`, its block's last item, as it is or edited."""
        return self.shows(code, last) or self.same_signature(code[-1], last) is True

    def ends_replaced(self, code: list[Item], block: Item) -> bool:
        """Whether a run of code ends in new lines below the last item it shows of its block, which
        has a few lines more: those replaced (`time.Sleep(backoff)` become a timer and a `select`).
        Asked only where a closer below shows the block's end."""
        children = block.children
        shown = [k for k, child in enumerate(children) if self.shows(code, child)]
        if not shown or any(self.shows([code[-1]], child) for child in children):
            return False
        rest = self.original.nonblank(children[shown[-1] + 1 :])
        return 0 < rest <= MAX_SILENT_DELETION

    def continues(self, code: list[Item], parent: Item | None, reindent: Reindent) -> bool:
        """Whether the clauses in a run of code, less indented than its first line, continue the
        block around the run (`} catch (err) {` below the last line of `try`): a clause stands as
        deep as the header of its block."""
        depth = None if parent is None else leading(self.original.lines[parent.header])
        return all(
            leading(reindent.apply(self.snippet.lines[item.header])) == depth
            for item in takewhile(lambda item: not item.marker, code)
            if self.depth(item) < self.depth(code[0])
        )

    def climb(
        self,
        o_items: list[Item],
        chain: list[Item],
        blocks: list[int],
        runs: list[tuple[list[Item], list[Item]]],
        open_end: bool,
    ) -> tuple[Item | None, list[Op]] | None:
        """The plan of `stepped_out` for the runs placed by `steps`."""
        top = chain[-2]
        code, _ = runs[0]
        ops = self.level(
            top.children[top.children.index(chain[-1]) :], code, self.mapping(code[0], chain[-1]), top=False
        )
        if ops is None:
            return None
        inner = len(chain) - 2
        dropped: list[Item] = []  # the original's lines between one run and the next
        for k, ((above, _), (code, _)) in zip(blocks, pairwise(runs), strict=True):
            closed = chain[k : inner + 1]
            if above[-1].marker:  # the rest of the blocks it closes elided
                ops.append(Copy(closed[-1].children[-1].end, closed[0].end))
            else:
                for parent, child in pairwise(closed):
                    dropped += parent.children[parent.children.index(child) + 1 :]
                ops += [
                    Copy(item.children[-1].end, item.end)
                    for item in closed[::-1]
                    if item.children[-1].end < item.end
                ]
            siblings = chain[k - 1].children if k else o_items
            after = siblings[siblings.index(chain[k]) + 1 :]
            # the last run leaves the rest of its block open, unless it shows the block's closer
            still_open = code is runs[-1][0] and open_end and not runs[-1][1]
            marker = above[-1] if above[-1].marker else None
            beside = self.beside(chain[k], after, code, self.mapping(code[0], chain[k]), still_open, marker)
            if beside is None:
                return None
            ops += beside
            inner = k - 1
        blocks_left = [item for item in dropped if item.nested]
        if blocks_left:  # a whole block left behind is more likely elided than deleted
            line = self.original.normalized[blocks_left[0].header]
            self.fail("unexplained_deletion", f"{line[:60]!r} would be deleted: code steps out above it")
            return None
        if dropped and self.replace(dropped, [], []) is None:
            return None
        block = chain[inner] if inner >= 0 else None
        start = block.children[0].lead if block is not None else o_items[0].lead
        return block, [Copy(start, chain[-1].lead), *ops]

    def beside(
        self,
        block: Item,
        after: list[Item],
        code: list[Item],
        reindent: Reindent,
        open_end: bool,
        marker: Item | None = None,
    ) -> list[Op] | None:
        """Ops for code shown right below the last line of `block`, over the siblings `after` it.
        New code with nothing but markers below it goes right after the block, and what follows
        stays (unless the code may be an edit of what follows, or restates some of it); other code
        is aligned with the siblings after the block. `marker`: the last line shown in the block,
        which stands for what follows it up to that code too (`-- ... remaining rows and ON
        CONFLICT clause ...`)."""
        new = list(takewhile(lambda item: not item.marker, code))
        alone = all(item.marker for item in code[len(new) :]) and not any(has_marker(item) for item in new)
        if alone and not after:
            return self.inserts(new, reindent)
        if (
            alone
            and not self.unique_pairs(after, new, range(len(new)), range(len(after)))
            and self.same_signature(new[0], after[0]) is False
            and not self.restates(new, after)
        ):
            if self.edits_next(new[0], after[0]):
                return None
            return [*self.inserts(new, reindent), Copy(block.end, after[-1].end)]
        if not after:
            return None
        shown = code if marker is None else [marker, *code]
        return self.level(after, shown, reindent, top=False, open_end=open_end, tail_elided=open_end)

    def edits_next(self, s_item: Item, o_item: Item) -> bool:
        """New code with no name of its own (no declaration, no key) much like the original item
        right below where it goes (an export line with one more name): an edit of it, or a new
        line? The reason is recorded."""
        line = self.snippet.normalized[s_item.header]
        if self.snippet.key(s_item) != normalize(self.snippet.lines[s_item.header]):
            return False  # named: `same_signature` told it apart from the item below
        if similarity(self.snippet.text(s_item), self.original.text(o_item)) < LINE_UNSURE_SIMILARITY:
            return False
        self.fail("edit_or_insertion", f"{line[:60]!r} may edit the line below it or add one", s_item)
        return True

    def shows(self, s_items: list[Item], o_item: Item) -> bool:
        """Whether one of the snippet items is the original item or an edit of it (same key)."""
        text, key = self.original.text(o_item), self.original.key(o_item)
        return any(self.snippet.text(item) == text or self.snippet.key(item) == key for item in s_items)

    def container(self, o_items: list[Item], s_items: list[Item]) -> Item | None:
        """The one original block, among `o_items` and their descendants, whose children match
        the most snippet items."""
        shown = [item for item in s_items if not item.marker]
        wanted = [(self.snippet.key(item), self.snippet.text(item)) for item in shown]
        first_lines = {text.partition("\n")[0] for _, text in wanted}  # a text starts with its first line
        # blocks whose condition was edited, known by their first lines inside, or by the same body
        # (too short to tell) under an operand more or less; methods by their name and parameters
        measures = (
            (self.condition_body_of, self.edited_condition),
            (self.first_operand_of, self.operands_added),
            (self.name_and_parameters_of, lambda s_item, o_item: True),  # another return type
        )
        conditions = []
        for item in shown:
            for measure, alike in measures:
                value = measure(self.snippet, item)
                if value is not None:
                    conditions.append((item, measure, value, alike))
                    break
        used = {measure for _, measure, _, _ in conditions}
        original = self.original
        best: list[Item] = []
        best_score = 0
        exact: dict[int, int] = {}  # by block header: how many snippet items it holds word for word
        holds: dict[int, set[int]] = {}  # ... and which, where it holds any
        stack = list(o_items)
        while stack:
            item = stack.pop()
            if not item.nested or (
                not self.prose and COMMENT_START.match(self.original.normalized[item.header])
            ):
                continue  # code goes in no comment (a Markdown heading is no comment)
            stack.extend(item.children)
            keys = {original.key(child) for child in item.children}
            texts = {
                original.text(child)
                for child in item.children
                if original.normalized[child.start] in first_lines
            }
            score = sum(key in keys or text in texts for key, text in wanted)  # snippet items, each once
            held = {k for k, (_, text) in enumerate(wanted) if text in texts}
            exact[item.header] = len(held)
            if held:
                holds[item.header] = held
            if conditions:
                known = {
                    (measure, measure(original, child)): child for measure in used for child in item.children
                }
                edited = {
                    s_item.header
                    for s_item, measure, value, alike in conditions
                    if (child := known.get((measure, value))) is not None and alike(s_item, child)
                }
                score += len(edited)
            if score > best_score:
                best, best_score = [item], score
            elif score == best_score and score:
                best.append(item)
        if len(best) > 1:
            best = self.most_shown(best, shown)
        if len(best) > 1:
            best = self.holding_the_lines(best, shown)
        if len(best) > 1:  # look-alikes (three `context` blocks): the one with the first telling line
            place = self.first_telling_place(k for item in shown for k in range(item.start, item.end))
            best = [item for item in best if place is not None and item.start < place < item.end] or best
        if len(best) > 1:
            best = self.holding_lines_once(best, shown)
        if len(best) > 1:
            self.fail("several_candidates", f"{len(best)} places in the original match the snippet")
        elif best and not exact[best[0].header] and any(exact.values()):
            # it holds the snippet's keys only (`font-size:`), another block its lines themselves
            self.fail("several_candidates", "one block has the snippet's keys, another its lines")
            best = []
        elif best and self.holds_what_it_edits(best[0], holds, wanted):
            self.fail("several_candidates", "another block has the lines as shown that this one would edit")
            best = []
        return best[0] if len(best) == 1 else None

    def holds_what_it_edits(
        self, block: Item, holds: dict[int, set[int]], wanted: list[tuple[str, str]]
    ) -> bool:
        """Whether another block holds as many of the snippet's items word for word, among them one
        that the block chosen would edit (holds by its key, not its text): `if err != nil { return
        nil, err }` below `os.Open` in two functions, and only in the third, where it returns `"",
        err`, the `defer f.Close()` shown below it."""
        mine = holds.get(block.header, set())
        others = [
            theirs for other, theirs in holds.items() if other != block.header and len(theirs) >= len(mine)
        ]
        if not others:
            return False
        keys = {self.original.key(child) for child in block.children}
        keyed = {k for k, (key, _) in enumerate(wanted) if key in keys}
        return any((theirs - mine) & keyed for theirs in others)

    def holding_the_lines(self, candidates: list[Item], shown: list[Item]) -> list[Item]:
        """Of tied blocks one inside another (an `if` chain: each `} else if` holds the next), those
        holding the snippet's least indented code, then the one whose children have the snippet's
        lines themselves, not lines of the same key only (`} else if (cmd == "set") {` reads as
        `} else if (cmd == "del") {` by its key); all of them when apart (a line alike in two
        blocks may be either's edit)."""
        spans = sorted((item.start, item.end) for item in candidates)
        if all(end <= start for (_, end), (start, _) in pairwise(spans)):
            return candidates
        # code that steps out of a block (`},` then `extraReducers: {`) is of the block around it
        code = [item for item in shown if not self.closes(item)]
        least = min((self.depth(item) for item in code), default=0)
        outer = [self.snippet.key(item) for item in code if self.depth(item) == least]
        holding = [
            item for item in candidates if set(outer) <= {self.original.key(child) for child in item.children}
        ]
        candidates = holding or candidates
        lines = {self.snippet.normalized[item.header] for item in shown}
        counts = [
            sum(self.original.normalized[child.header] in lines for child in item.children)
            for item in candidates
        ]
        most = max(counts)
        return [item for item, count in zip(candidates, counts, strict=True) if count == most]

    def holding_lines_once(self, candidates: list[Item], shown: list[Item]) -> list[Item]:
        """Of tied blocks (two `match self {`, two tests' `cart.add(`), the one that holds each line
        shown that the original has once and that is long enough to tell (the arm shown beside
        the edited one), each where the snippet shows it: under the same header, or right in that
        block when shown at the top of the snippet's code (two lines at least, then). All of them
        when no such lines are shown, or one stands elsewhere (a line copied into a look-alike)."""
        places = []
        for item in shown:
            for k in range(item.start, item.end):
                line = self.snippet.normalized[k]
                found = self.original.where(line)
                if k not in self.snippet.markers and letters(line) >= MIN_INNER_LETTERS and len(found) == 1:
                    places.append((k, found[0]))
        if len(places) < 2 and not (places and len(descent(shown, places[0][0])) > 1):
            return candidates  # one line alone at the top tells too little: it may be a new copy
        holding = [
            block
            for block in candidates
            if all(self.same_parent(shown, k, block, place) for k, place in places)
        ]
        return holding if len(holding) == 1 else candidates

    def same_parent(self, shown: list[Item], k: int, block: Item, place: int) -> bool:
        """Whether original line `place`, inside `block`, stands under the header snippet line `k`
        stands under, or right in `block` when `k` stands at the top of the snippet's code."""
        if not block.start < place < block.end:
            return False
        s_chain, o_chain = descent(shown, k), descent(block.children, place)
        if len(s_chain) < 2:
            return len(o_chain) == 1
        o_parent = o_chain[-2] if len(o_chain) > 1 else block
        return self.snippet.normalized[s_chain[-2].header] == self.original.normalized[o_parent.header]

    def most_shown(self, candidates: list[Item], shown: list[Item]) -> list[Item]:
        """Of blocks tied on the snippet's items (two CI jobs' `steps:`), the one that holds twice
        as many of the snippet's lines as any other, and 3 more; all of them when none does, or
        when one holds another."""
        spans = sorted((item.start, item.end) for item in candidates)
        if any(end > start for (_, end), (start, _) in pairwise(spans)):
            return candidates
        lines = {line for item in shown for line in self.snippet.normalized[item.start : item.end] if line}
        counts = sorted(
            (
                (len(lines.intersection(self.original.normalized[item.start : item.end])), k)
                for k, item in enumerate(candidates)
            ),
            reverse=True,
        )
        (first, k), (second, _) = counts[:2]
        return [candidates[k]] if first >= 2 * second and first >= second + 3 else candidates

    def lands_on_key(
        self, after: int, kept: list[Item], landing: list[Item], another: Callable[[Item, Item], bool]
    ) -> bool:
        """New `key = value` lines after a marker that land at the end of an elided block holding
        that key already (a TOML table's `dependencies` shown without its `[project]` header):
        its edit, written where this level cannot pair it, would make the key appear twice."""
        if after or not kept or not kept[-1].nested or not landing:
            return False
        keys = {self.original.key(child): child for child in kept[-1].children}
        for item in landing:
            key = self.snippet.key(item)
            if key in keys and key != self.snippet.normalized[item.header] and not another(item, keys[key]):
                self.fail(
                    "several_candidates", f"{key!r} is a key of the elided block above it already", item
                )
                return True
        return False

    def wraps_kept(self, new: list[Item], kept: list[Item]) -> bool:
        """A new block placed right below an elided line that it holds word for word (`if [ -n
        "$KEEP" ]; then`, ..., `else`, `rm -fr "$BUILD"`, `fi` below `rm -fr "$BUILD"`): that line
        moved into the block, or copied there? The reason is recorded."""
        if not new or not kept or not new[0].children or kept[-1].children:
            return False
        line = self.original.normalized[kept[-1].header]
        if (
            letters(line) < MIN_INNER_LETTERS
            or line not in self.snippet.normalized[new[0].header : new[0].end]
        ):
            return False
        self.fail(
            "moved_or_copied",
            f"{line[:60]!r} is shown in a new block below it: moved there, or copied?",
            new[0],
        )
        return True

    def repeats_elided(self, inserted: list[Item], kept: list[Item]) -> bool:
        """New comment lines that the elided original code holds word for word: original code
        shown where this level could not align it (a commented-out `# host = ...` of a TOML table
        shown without its header). Inserting them would write them twice."""
        if not inserted or not kept:
            return False
        elided = set(self.original.normalized[kept[0].lead : kept[-1].end])
        for item in inserted:
            for line in self.snippet.normalized[item.start : item.end]:
                if COMMENT.match(line) and NAME.search(line) and line in elided:
                    self.fail("unanchored_insertion", f"{line[:60]!r} repeats elided original code", item)
                    return True
        return False

    def extends_elided(self, inserted: list[Item], kept: list[Item]) -> bool:
        """A new line that is an elided line with more written after or before it (`unset FORCE
        DRY_RUN` where `unset FORCE` stands, `if (!force) cache[id]?.let { return it }` where
        `cache[id]?.let { return it }` does): that line edited, or a second one added? The reason is
        recorded."""
        # each new one-line item by the lines its first words make (`unset FORCE`), and its last words
        heads: dict[str, Item] = {}
        for item in inserted:
            line = self.snippet.normalized[item.header]
            if not item.children and not COMMENT.match(line):
                words = line.split(" ")
                heads.update((" ".join(words[:k]), item) for k in range(1, len(words)))
                heads.update((" ".join(words[k:]), item) for k in range(1, len(words)))
        if not heads:
            return False
        for o_item in kept:
            old = self.original.normalized[o_item.header]
            item = heads.get(old.rstrip(";"))
            if item and not o_item.children and letters(old) >= MIN_INNER_LETTERS and not COMMENT.match(old):
                line = self.snippet.normalized[item.header]
                self.fail(
                    "edit_or_insertion", f"{line[:60]!r} extends the elided {old[:40]!r}: an edit?", item
                )
                return True
        return False

    def extracted(self, o_item: Item, new: list[Item]) -> bool:
        """The original item stands in the snippet word for word as the body of a new function that
        the new code calls (the guard `if self._ready_nodes is None:` / `raise ValueError(...)`,
        now under `def _check_prepared(self):`, and `self._check_prepared()` shown beside where
        it stood): moved out, the call in its place."""
        lines = [line for line in self.original.normalized[o_item.start : o_item.end] if line]
        if letters("".join(lines)) < MIN_INNER_LETTERS:
            return False
        s_lines, known = self.snippet.normalized, set(self.original.normalized)
        called = "".join(self.snippet.text(item) for item in new)
        for at in self.snippet.where(lines[0]):
            run = [k for k in range(at, len(s_lines)) if s_lines[k]][: len(lines)]
            if [s_lines[k] for k in run] != lines:
                continue
            depth = len(leading(self.snippet.lines[at]))
            header = next(
                (
                    k
                    for k in range(at - 1, -1, -1)
                    if s_lines[k] and len(leading(self.snippet.lines[k])) < depth
                ),
                None,
            )
            if header is None or s_lines[header] in known:
                continue
            names = {name for name in CALLED.findall(s_lines[header]) if len(name) >= MIN_CALLED_NAME}
            if any(re.search(rf"\b{re.escape(name)}\s*\(", called) for name in names):
                return True
        return False

    def restates(self, new: list[Item], o_items: list[Item]) -> bool:
        """A new line much like one of the original items, as an edit of it would be
        (`self.print_topics(..., 15, self.help_width)` where `self.print_topics(..., 15,80)` stands)."""
        return any(
            not (item.children or o_item.children)
            and similarity(self.snippet.text(item), self.original.text(o_item)) >= BLOCK_EDIT_SIMILARITY
            and self.same_signature(item, o_item)
            for item in new
            for o_item in o_items
        )

    def shown_from_elsewhere(self, new: list[Item]) -> bool:
        """A new condition's block (`if`, `while`: the code most often shown out of its place) whose
        first line stands in the original over much the same lines: it may be that block, edited
        and shown out of its place (by a marker that spans the end of the block it stands in),
        rather than a new one (the reason is recorded)."""
        lines = [k for item in new for k in range(item.header, item.end) if self.snippet.normalized[k]]
        for item in new:
            header = self.snippet.normalized[item.header]
            if FIRST_WORD_END.split(header, maxsplit=1)[0] not in CONDITIONS:
                continue
            if letters(header) < MIN_CONDITION_BODY:
                continue
            n = lines.index(item.header)
            shown = {self.snippet.normalized[k] for k in lines[n + 1 : n + ELSEWHERE_WINDOW]}
            shown = {line for line in shown if not BARE_WORD.match(line)}
            if len(shown) < MIN_ELSEWHERE_LINES:
                continue
            for at in self.original.where(header):
                there = set(self.original.normalized[at + 1 : at + 2 * ELSEWHERE_WINDOW])
                if len(shown & there) >= max(MIN_ELSEWHERE_LINES, len(shown) / 2):
                    self.fail(
                        "moved_or_copied", f"{header[:60]!r} stands elsewhere in the original already", item
                    )
                    return True
        return False

    def import_slot(self, new: list[Item], kept: list[Item]) -> int:
        """Where imports shown above a marker at the start of the file go among the original's first
        items: after its own imports, or after what must come first (a docstring, `package`, a
        shebang, `"use client"`), not above them. 0 when `new` holds other code too."""
        if not new or not all(IMPORT_LINE.match(self.snippet.lines[item.header]) for item in new):
            return 0
        slot = first_only = 0
        for k, item in enumerate(kept):
            line = self.original.lines[item.header]
            if IMPORT_LINE.match(line):
                slot = k + 1
            elif FIRST_ONLY.match(line):
                first_only = k + 1
            elif not COMMENT_START.match(line.strip()):
                break
        return slot or first_only

    def pairs(self, o_items: list[Item], s_items: list[Item], shown: bool = True) -> list[Op] | None:
        ops: list[Op] = []
        for n, (s_item, o_item) in enumerate(zip(s_items, o_items, strict=False)):
            paired = self.pair(
                o_item,
                s_item,
                shown or n > 0,
                tail_elided=self.marker_inside_below(s_item),
                chain_elided=self.marker_next_to(s_item),
            )
            if paired is None:
                return None
            ops += paired
        return ops

    def remove(
        self,
        o_gap: list[Item],
        s_gap: list[Item],
        removals: list[Item],
        reindent: Reindent,
        edge: str | None,
        base: int | None,
    ) -> list[Op] | None:
        """`// removed: name` deletes the original item it names; without markers around, the
        whole gap is the explicit deletion."""
        said = [removal_head(self.snippet.lines[item.header].strip()) for item in removals]
        names = {word for text in said for word in NAME.findall(text)} - REMOVAL_NOISE
        named = [item for item in o_gap if names & set(NAME.findall(self.original.lines[item.header]))]
        if not any(item.marker for item in s_gap) and edge is None and (named or not names):
            return self.inserts(s_gap, reindent)
        if not named or not self.each_named_once(named, names):
            self.fail(
                "unmatched_removal", "a removal comment names no single original item here", removals[0]
            )
            return None
        # (a comment standing right above an item named, a blank line between, goes with it)
        gone = {id(item) for item in named}
        gone |= {
            id(above)
            for above, item in pairwise(o_gap)
            if id(item) in gone and self.original.is_comment(above) and above.end == item.lead
        }
        kept = [item for item in o_gap if id(item) not in gone]
        return self.gap(kept, s_gap, reindent, edge, base=base)

    def each_named_once(self, named: list[Item], names: set[str]) -> bool:
        """Whether each item a removal comment names is named by a word that names it alone
        (`removed fmtLong() and plural()`: `fmtLong` one item, `plural` another)."""
        words = [names & set(NAME.findall(self.original.lines[item.header])) for item in named]
        return all(any(sum(word in other for other in words) == 1 for word in own) for own in words)

    def positional(
        self,
        o_items: list[Item],
        s_items: list[Item],
        marker_beyond: bool = False,
        another: Callable[[Item, Item], bool] | None = None,
    ) -> tuple[int, list[Item]] | None:
        """(k, modified): snippet items from k on edit the original items from the start, pairwise,
        each with the signature of the original item there; items before k are insertions. None
        when an item may as well be an edit as a new look-alike (the reason is recorded).
        `marker_beyond`: a marker stands for the original items past those edited; when there is
        only one, a look-alike that might edit it is new, the marker standing for it. `another`: a
        marker beside the item names the original's, so the item is new."""
        if not o_items:
            return 0, []
        start = None

        def same_signature(s_item: Item, o_item: Item) -> bool | None:
            same = self.same_signature(s_item, o_item)
            # (a marker beside it that names the original's says this one is new)
            return False if same is None and another is not None and another(s_item, o_item) else same

        for k, item in enumerate(s_items):
            same = same_signature(item, o_items[0])
            if same is None and marker_beyond and len(o_items) == 1:
                continue
            if same is None and any(self.edits_line(later, o_items[0]) for later in s_items[k + 1 :]):
                continue  # new, the line that edits the original's there shown after it
            if same is None:
                self.unsure(item)
                return None
            if same:
                start = k
                break
        if start is None:
            return 0, []
        found = []
        for s_item, o_item in zip(s_items[start:], o_items, strict=False):
            same = same_signature(s_item, o_item)
            if same is None:
                self.unsure(s_item)
                return None
            if not same:
                break
            found.append(o_item)
        return start, found

    def condition_rewritten(self, s_item: Item, o_item: Item) -> bool:
        """A condition's block over the same first lines as the original's there, its condition
        testing a name the original's tests (`if isinstance(longopts, str):` where `if
        type(longopts) == type(""):` stands, both over `longopts = [longopts]`): the condition
        rewritten, not a second check that does the same."""
        body = self.condition_body_of(self.snippet, s_item)
        if body is None or body != self.condition_body_of(self.original, o_item):
            return False
        found = condition_of(self.snippet.normalized[s_item.header])
        o_found = condition_of(self.original.normalized[o_item.header])
        if found is None or o_found is None:
            return False
        return bool(tested_names(found[1]) & tested_names(o_found[1]))

    def edited_by_likeness(self, pairs: list[tuple[Item, Item]]) -> bool:
        """Blocks paired as edits of the original ones there only for looking like them (`<li>`,
        `if`), where that leaves a marker of the gap nothing to stand for: each may as well be new,
        the marker standing for the original (the reason is recorded)."""
        for s_item, o_item in pairs:
            if self.by_likeness(s_item) and self.snippet.text(s_item) != self.original.text(o_item):
                self.unsure(s_item)
                return True
        return False

    def maybe_new_beside_marker(self, s_item: Item, o_item: Item) -> bool:
        """A block right beside a marker, paired with the original's for its kind alone (`<button`,
        `ListTile(`) or for a chained call on other arguments (`.swipeActions(edge: .leading)` where
        `.swipeActions(edge: .trailing)` stands), too little of it like the original's inside: the
        marker may stand for that block too, this one new beside it. Inside, what counts is the
        lines that tell the original's apart: for markup, a third kept, edited or not; for a call,
        half kept as they were."""
        if not s_item.children or has_marker(s_item):
            return False
        s_header, o_header = self.snippet.normalized[s_item.header], self.original.normalized[o_item.header]
        chained = self.snippet.key(s_item).startswith(".") and s_header != o_header
        called = chained or (self.bare_call_block(s_item) and s_header == o_header)
        if not (called or (s_header.startswith("<") and self.by_likeness(s_item))):
            return False
        telling = [
            line
            for line in self.original.normalized[o_item.header + 1 : o_item.end]
            if letters(line) >= MIN_INNER_LETTERS
        ]
        if not telling:
            return False
        shown = self.snippet.normalized[s_item.header + 1 : s_item.end]
        if called:
            return 2 * len(set(telling) & set(shown)) <= len(telling)
        kept = [line for line in telling if any(edited_line(line, new) for new in shown)]
        return 3 * len(kept) <= len(telling)

    def known_by_kind(self, item: Item) -> bool:
        """A block with no name of its own: `<li>`, `if (x) {`, or a call's name alone (`ListTile(`)."""
        return self.by_likeness(item) or self.bare_call_block(item)

    def bare_call_block(self, item: Item) -> bool:
        """A call known by its name alone, its arguments on the lines below (`ListTile(`); one keyed
        by its first argument (`FetchContent_Declare(` over `fmt`) has a name of its own."""
        header = self.snippet.normalized[item.header]
        return BARE_CALL.match(header) is not None and self.snippet.key(item) == header.removesuffix("(")

    def by_likeness(self, item: Item) -> bool:
        """A block with no name of its own (`<li>`, `if (x) {`) but its kind."""
        header = normalize(self.snippet.lines[item.header])
        return (
            bool(item.children) and self.snippet.key(item) == header and not header.startswith(ONE_PER_FILE)
        )

    def unsure(self, item: Item) -> None:
        header = normalize(self.snippet.lines[item.header])
        self.fail(
            "edit_or_insertion", f"{header[:60]!r} may edit the elided original code there or add to it", item
        )

    def same_signature(self, s_item: Item, o_item: Item) -> bool | None:
        """Same named signature, or the same kind of block (`if`, `<div>`) with similar text; None
        when too alike to be new and too different to be sure it is an edit."""
        s_header, o_header = (
            normalize(self.snippet.lines[s_item.header]),
            normalize(self.original.lines[o_item.header]),
        )
        s_text, o_text = self.snippet.text(s_item), self.original.text(o_item)
        if self.shows_only_prefix(s_item, o_item) or s_text == o_text:
            return True  # the original's item itself (a YAML `---` next to an anchor)
        if self.edits_line(s_item, o_item):
            return True
        if self.refolded(s_item, o_item) or self.refolded(o_item, s_item, original_first=True):
            return True  # `.onSuccess { notes ->` ... `}` where `.onSuccess { notes -> ... }` stands
        if bound_now(s_text, o_text) or bound_now(o_text, s_text):
            return True  # `let bytes = fs::copy(...)?;` where `fs::copy(...)?;` stands: its result kept
        if bound_names(s_text) & bound_names(o_text):
            return True  # `export { a, b }` where `export { a }` stands: new, it would bind `a` twice
        imported, o_imported = path_import(s_text), path_import(o_text)
        if imported and o_imported and imported[0] == o_imported[0] and imported[1] & o_imported[1]:
            return True  # `import scala.math.{Pi, sqrt}` where `import scala.math.Pi` stands, likewise
        declared, o_declared = grouped(s_text), grouped(o_text)
        if declared and o_declared and declared[0] == o_declared[0] and declared[1] & o_declared[1]:
            return True  # Go's `import (` `"fmt"` `"os"` `)` where `import "fmt"` stands, likewise
        if imported and imported[0] == wildcard_package(o_text):
            return True  # `import java.io.Writer;` where `import java.io.*;` stands: made explicit
        if (
            imported
            and o_imported
            and s_header.startswith("import ")
            and len(imported[1]) == len(o_imported[1]) == 1
            and imported != o_imported
        ):
            return False  # Java's and Kotlin's `import a.b.Icon` beside `import a.b.Text`: a new one
        if FILE_SCOPE.match(s_header) and FILE_SCOPE.match(o_header):
            return True  # a package where the original has one
        clause, o_clause = CLAUSE.match(s_header), CLAUSE.match(o_header)
        if (
            clause
            and o_clause
            and clause.group(2) == o_clause.group(2) in ONE_PER_CHAIN
            and self.after_deeper_marker(s_item)
            and not self.original.where(s_header)
        ):
            return True  # `} catch (IOException e) {` below a marker in the `try`'s body: its handler
        key, o_key = self.snippet.key(s_item), self.original.key(o_item)
        if key != s_header:
            # the same call on other text (`log.info("rendering")`), or a like-named call on much the
            # same arguments (`std::shuffle` for `std::random_shuffle`): an edit, or a new line?
            if (
                key != o_key
                and self.renamed_key(key, o_key, s_item, o_item)
                and self.renamed_in_use(s_item, o_item)
            ):
                return True  # renamed where it is used too: an edit
            if key != o_key and (
                self.same_call_on_text(key, o_key, s_item, o_item)
                or self.same_arguments(key, o_key, s_item, o_item)
                or self.renamed_key(key, o_key, s_item, o_item)
            ):
                return None
            if key == o_key and s_header != o_header and self.original.headed(o_key) > 1:
                # one of several clauses or overloads of a name (`def handle_call({:put, ...})`), its
                # header telling it apart: under another header, an edit only if much alike
                alike = similarity(s_text, o_text)
                return (
                    True
                    if alike >= BLOCK_EDIT_SIMILARITY
                    else None
                    if alike >= BLOCK_UNSURE_SIMILARITY
                    else False
                )
            return key == o_key and not self.other_row(s_item, o_item)
        if s_header.startswith(ONE_PER_FILE) and o_header.startswith(ONE_PER_FILE):
            return True  # a docstring or a shebang where the original has one
        s_word, o_word = s_header.split()[:1], o_header.split()[:1]
        if s_word and s_word == o_word and s_word[0] in TERMINATORS:
            return True  # a second `return` or `CMD` next to the first: an edit
        if not s_word or s_word != o_word or COMMENT_START.match(s_header):
            return False
        if (
            s_word[0] in ARM_LABELS
            and s_header != o_header
            and not arm_values(s_header) & arm_values(o_header)
        ):
            # `case "release":` is another arm than `case "pull_request":`, as a name is; not
            # `case .card, .applePay:` than `case .card, .applePay, .paypal:`
            return False
        body_elided = all(child.marker for child in s_item.children)
        if body_elided and not s_item.closer and o_item.children and self.opens_block(s_item):
            # a block's header shown alone, its body elided (`for (...; page <= total; ...) {`, then
            # a marker as deep, or one inside it): the header edited, where the original's there is
            # much like it
            if s_word[0] in CONDITIONS and tests_another_value(s_header, o_header):
                return False
            return similarity(s_header, o_header) >= BLOCK_EDIT_SIMILARITY
        if bool(s_item.children) != bool(o_item.children):
            return False
        if self.condition_rewritten(s_item, o_item):
            return True
        if s_header == o_header and any(child.marker for child in s_item.children):
            return True  # it elides part of itself, so it is not new: the block of its kind there
        chain = self.clauses(self.original, o_item)
        if chain and not self.clauses(self.snippet, s_item) and self.marker_next_to(s_item):
            # (the clauses after it elided by the marker below: alike or not by its first branch)
            o_text = "\n".join(filter(None, self.original.normalized[o_item.start : chain[0].start]))
        alike = similarity(s_text, o_text)
        if s_word[0] in CONDITIONS and operand_more(s_header, o_header) and alike >= BLOCK_UNSURE_SIMILARITY:
            return True  # `if not line or line.startswith('#'):` where `if not line:` stands
        if not s_item.children:
            if attributes_added(s_header, o_header):
                return True
            return None if alike >= LINE_UNSURE_SIMILARITY and NAME.search(s_header) else False
        # `if (req.method === 'PUT')` beside `=== 'GET'`: another branch as much as an edit
        other_value = s_word[0] in CONDITIONS and (
            tests_another_value(s_header, o_header)
            or tests_other_names(s_header, o_header)
            or tests_another_name(s_header, o_header)
        )
        if alike >= BLOCK_EDIT_SIMILARITY and not self.unlike_elements(s_item, o_item):
            if not other_value:
                return True
            # `cfg.timeout = ...` under `"TIMEOUT"` where `cfg.grace = ...` stands under `"GRACE"`
            return False if self.other_keys_inside(s_item, o_item) else None
        if other_value:
            return False  # and its body differs too: another branch, as a `case` with another label
        return None if alike >= BLOCK_UNSURE_SIMILARITY else False

    def edits_line(self, s_item: Item, o_item: Item) -> bool:
        """One line shown as the original's with its end moved to a line added below
        (`.managerId(id)` for `.managerId(id);`), quoted anew (`cd "$ROOT"`), logged at another
        level (`log.info(...)` for `log.debug(...)`), with an argument more (`get(url, token)`), with
        names added to a row of them (`DOT, COLON, QUESTION,`) or with the same keyword arguments on
        other values (`workers=min(n, 8),`)."""
        lines = self.one_liners(s_item, o_item)
        if lines is None:
            return False
        return (
            repunctuated(*lines)
            or requoted(*lines)
            or relevelled(*lines)
            or argument_added(*lines)
            or elements_added(*lines)
            or same_keywords(*lines)
            or renumbered(*lines)
            or call_wrapped(*lines)
        )

    def other_row(self, s_item: Item, o_item: Item) -> bool:
        """Two one-line table rows known by one first field (`{ method: 'POST', ... }`) that share
        fewer than half of the original row's fields: another row, not that one edited (a route
        `/orders/:id/refund` beside `/orders/:id/cancel`; an edit of a test row keeps its name)."""
        lines = self.one_liners(s_item, o_item)
        if lines is None or not all(ROW.match(line) for line in lines):
            return False
        fields, o_fields = (set(ROW_FIELD.findall(line)) for line in lines)
        return 2 * len(fields & o_fields) < len(o_fields)

    def refolded(self, block: Item, line: Item, original_first: bool = False) -> bool:
        """A block over several lines whose first line opens what the other item writes on one
        line (`.onSuccess { notes ->` ... `}` for `.onSuccess { notes -> render(notes) }`): the same
        statement, written out over lines (or folded up onto one, the items swapped)."""
        sides = (self.original, self.snippet) if original_first else (self.snippet, self.original)
        if block.end - block.start < 2 or line.end - line.start != 1 or line.children:
            return False
        header, whole = sides[0].normalized[block.header], sides[1].normalized[line.header]
        return (
            UNFOLDS.search(header) is not None
            and letters(header) >= MIN_INNER_LETTERS
            and len(whole) > len(header)
            and whole.startswith(header)
        )

    def one_liners(self, s_item: Item, o_item: Item) -> tuple[str, str] | None:
        """The normalised lines of two items of one line each, no block; None for others."""
        if (
            s_item.children
            or o_item.children
            or s_item.end - s_item.start > 1
            or o_item.end - o_item.start > 1
        ):
            return None
        return self.snippet.normalized[s_item.header], self.original.normalized[o_item.header]

    def other_keys_inside(self, s_item: Item, o_item: Item) -> bool:
        """Blocks shown whole whose lines inside have other keys."""
        if has_marker(s_item):
            return False
        keys = [self.snippet.key(child) for child in s_item.children]
        return keys != [self.original.key(child) for child in o_item.children]

    def same_arguments(self, key: str, o_key: str, s_item: Item, o_item: Item) -> bool:
        """One statement calling a like-named function on much the same arguments (names among
        them): `std::shuffle(v.begin(), v.end(), rng);` where `std::random_shuffle(v.begin(),
        v.end());` stands may replace it or be new."""
        lines = self.one_liners(s_item, o_item)
        if lines is None:
            return False
        s_line, o_line = lines
        callee, o_callee = key.partition("(")[0], o_key.partition("(")[0]
        if not (CALLEE.fullmatch(callee) and CALLEE.fullmatch(o_callee)):
            return False  # not both statements that are calls (`"stop" => Some(...)`)
        if not (s_line.startswith(callee + "(") and o_line.startswith(o_callee + "(")):
            return False
        arguments, o_arguments = s_line[len(callee) :], o_line[len(o_callee) :]
        if not (NAME.search(arguments) and NAME.search(o_arguments)):
            return False
        # a like name too (`log(item)` above `seen.add(item)` is a new call on the same value)
        return (
            similarity(arguments, o_arguments) >= LINE_UNSURE_SIMILARITY
            and similarity(callee, o_callee) >= BLOCK_UNSURE_SIMILARITY
        )

    def unlike_elements(self, s_item: Item, o_item: Item) -> bool:
        """Two list elements (`{`, `- {`: no name in the header) whose first lines differ: nothing
        says that one is the other."""
        if NAME.search(self.snippet.lines[s_item.header]) or not (s_item.children and o_item.children):
            return False
        return self.snippet.text(s_item.children[0]) != self.original.text(o_item.children[0])

    def renamed_key(self, key: str, o_key: str, s_item: Item, o_item: Item) -> bool:
        """`displayName: String(raw.user_name ?? ""),` where `userName: String(raw.user_name ??
        ""),` stands: the same computed value under another key, renamed or copied?"""
        s_header = normalize(self.snippet.lines[s_item.header])
        value = s_header.removeprefix(key)
        return (
            not (s_item.children or o_item.children)
            and value.lstrip()[:1] in (":", "=")
            and s_header.startswith(key)
            and value == normalize(self.original.lines[o_item.header]).removeprefix(o_key)
            and "(" in value
            and letters(value) >= MIN_RENAMED_VALUE
        )

    def renamed_in_use(self, s_item: Item, o_item: Item) -> bool:
        """The snippet shows a line of the original that uses the original's name, with the new
        name in its place (`"poll": POLL_INTERVAL_SECONDS,` for `"poll": POLL_SECS,`): renamed."""
        name, o_name = (
            DECLARED_NAME.search(self.snippet.key(s_item)),
            DECLARED_NAME.search(self.original.key(o_item)),
        )
        if name is None or o_name is None:
            return False
        return any(
            j != s_item.header
            for _, renamed in self.uses_renamed(
                o_name.group(), name.group(), range(o_item.header, o_item.header + 1)
            )
            for j in self.snippet.where(renamed)
        )

    def uses_renamed(self, old: str, new: str, skip: range) -> Iterator[tuple[int, str]]:
        """Each original line outside `skip` that uses the name `old`, with `new` in its place."""
        pattern = whole_word(old)
        for k, line in enumerate(self.original.normalized):
            if k not in skip and pattern.search(line):
                yield k, pattern.sub(new, line)

    @staticmethod
    def same_call_on_text(key: str, o_key: str, s_item: Item, o_item: Item) -> bool:
        """`db.execute("UPDATE ...")` by `db.execute("UPDATE ... now() ...")`: one statement calling
        the same function on different text (a space in it: SQL, a message, not a route or a name)."""
        callee, paren, argument = key.partition("(")
        o_callee, _, o_argument = o_key.partition("(")
        return (
            bool(paren)
            and callee == o_callee
            and " " in argument + o_argument
            and not (s_item.children or o_item.children)
        )

    def part_of_prefix_changed(self, s_item: Item, o_item: Item) -> bool:
        """Below a marker, a comment above the item that is part of the original's, changed (fewer
        lines and not its last ones, or some of its lines but not its first): which lines does it
        edit, and are the others elided or deleted? (A marker among them says: see `prefix`.)"""
        if any(k in self.snippet.markers for k in range(s_item.start, s_item.header)):
            return False
        shown = [
            line for line in self.snippet.normalized[s_item.start : s_item.header] if COMMENT.match(line)
        ]
        prefix = [
            line for line in self.original.normalized[o_item.start : o_item.header] if COMMENT.match(line)
        ]
        if not shown or not prefix or shown == prefix or prefix[len(prefix) - len(shown) :] == shown:
            return False
        if len(shown) >= len(prefix) and (prefix[0] in shown or not set(shown) & set(prefix)):
            return False  # all of it shown, or none of it: a new comment in its place
        self.fail(
            "edit_or_insertion", "the comment above it may edit part of the original's or replace it", s_item
        )
        return True

    def elided_comment(self, s_item: Item, o_item: Item) -> int:
        """How many comment lines open the original's prefix, when the snippet's prefix has none."""
        if any(COMMENT.match(line) for line in self.snippet.normalized[s_item.start : s_item.header]):
            return 0
        prefix = self.original.normalized[o_item.start : o_item.header]
        return len(list(takewhile(COMMENT.match, prefix)))

    def shows_prefix_tail(self, s_item: Item, o_item: Item) -> bool:
        """The snippet shows the last lines of the original's comment above the item, below a
        marker that elides its first lines (not below code: there the lines left out are deleted)."""
        shown = self.snippet.normalized[s_item.start : s_item.header]
        prefix = self.original.normalized[o_item.start : o_item.header]
        above = nonblank_from(self.snippet.normalized, s_item.start, -1)
        return (
            len(shown) < len(prefix)
            and prefix[len(prefix) - len(shown) :] == shown
            and (above is None or above in self.snippet.markers)
        )

    def prefix(self, o_item: Item, s_item: Item, reindent: Reindent) -> list[Op] | None:
        """The snippet's decorators and comments above an item. A marker among them (a
        `parametrize` list shown as `# ... existing cases ...`, ` * ... rest of the docblock ...`)
        stands for the original's lines between the shown lines around it, each side placed by
        the fewest of its entries that stand there once (see doc_entries, placed_once)."""
        markers = [k for k in range(s_item.start, s_item.header) if k in self.snippet.markers]
        header = (o_item.header, o_item.header + 1, HEADER)  # the item's own line ends both sides
        o_entries = [*doc_entries(self.original.normalized, o_item.start, o_item.header, frozenset()), header]
        o_keys = [key for _, _, key in o_entries]
        ops: list[Op] = []
        at, o_at = s_item.start, 0
        for n, k in enumerate(markers):
            stop = markers[n + 1] if n + 1 < len(markers) else s_item.header
            above = [key for _, _, key in doc_entries(self.snippet.normalized, at, k, self.snippet.markers)]
            below = [
                key for _, _, key in doc_entries(self.snippet.normalized, k + 1, stop, self.snippet.markers)
            ]
            below += [HEADER] if stop == s_item.header else []
            e_from = placed_once(above, o_keys, o_at, last=True) if above else o_at
            e_to = None if e_from is None or not below else placed_once(below, o_keys, e_from, last=False)
            if e_from is None or e_to is None:
                self.fail(
                    "unanchored_insertion", "a marker above an item has no shown lines around it", s_item
                )
                return None
            o_from = o_entries[e_from - 1][1] if e_from else o_item.start
            ops += [Insert(at, k, reindent), Copy(o_from, o_entries[e_to][0])]
            at, o_at = k + 1, e_to
        return [*ops, Insert(at, s_item.header, reindent)]

    def joined_prefix(self, s_gap: list[Item], o_gap: list[Item]) -> list[Item]:
        """Comment lines shown above a marker (`// leave the existing value`, `// unchanged.`,
        `// ... existing code ...`), or last in the gap (a banner shown above the end of a snippet):
        where they are the first lines of the comment above the original's first item of the gap,
        one item, as that comment is (each line is an item of its own where no code follows)."""
        if not o_gap or not o_gap[0].prefix:
            return s_gap
        run: list[Item] = []
        for k, item in enumerate([*s_gap, None]):
            if (item is None or item.marker) and len(run) > 1:
                joined = run[-1].under(run[0].lead, run[0].start)
                if self.shows_only_prefix(joined, o_gap[0]):
                    return [*s_gap[: k - len(run)], joined, *s_gap[k:]]
            if item is None:
                break
            adjacent = not run or item.lead == item.start == run[-1].end
            comment = not item.marker and not item.nested and self.snippet.is_comment(item)
            run = [*run, item] if comment and adjacent else [item] if comment else []
        return s_gap

    def shows_only_prefix(self, s_item: Item, o_item: Item) -> bool:
        """The snippet shows just the comment or the decorators above an original item, or their
        first lines (a marker elides the rest)."""
        if s_item.children or not o_item.prefix:
            return False
        prefix = "\n".join(normalize(line) for line in self.original.lines[o_item.start : o_item.header])
        return f"{prefix}\n".startswith(f"{self.snippet.text(s_item)}\n")

    def look_alike(self, s_items: list[Item], o_items: list[Item], lone: bool = False) -> bool:
        """A new markup element next to an elided one with the same tag, or a comment line next to
        one much like it (`# usage: tool [--dry-run] FILE`): an edit or an insertion? `lone`: the
        elided one is all a marker stands for, so one not close to it is new (as its edit, it would
        leave the marker nothing)."""
        if not s_items or not o_items:
            return False
        if lone and (
            similarity(self.snippet.text(s_items[0]), self.original.text(o_items[0])) < BLOCK_EDIT_SIMILARITY
        ):
            return False
        s_line, o_line = (
            self.snippet.lines[s_items[0].header].strip(),
            self.original.lines[o_items[0].header].strip(),
        )
        if self.prose and PARAGRAPH.match(s_line) and PARAGRAPH.match(o_line):
            self.fail(
                "edit_or_insertion",
                "a new paragraph next to an elided one: an edit or an addition?",
                s_items[0],
            )
            return True
        if (
            s_items[0].end - s_items[0].start == o_items[0].end - o_items[0].start == 1
            and COMMENT.match(s_line)
            and COMMENT.match(o_line)
            and s_line != o_line
            and letters(o_line) >= MIN_INNER_LETTERS
            and similarity(s_line, o_line) >= BLOCK_UNSURE_SIMILARITY
        ):
            self.fail(
                "edit_or_insertion", "a new comment next to an elided one much like it: an edit?", s_items[0]
            )
            return True
        call = statement_call(s_line)
        if call and s_line != o_line and call == statement_call(o_line) and letters(call) >= MIN_CALL_LETTERS:
            # `main(argv).then((code) => {` new above `process.exitCode = main(argv);`
            self.fail(
                "edit_or_insertion",
                f"{call[:60]!r} is called as the elided code next to it calls it: an edit?",
                s_items[0],
            )
            return True
        if s_line != o_line and CALLBACK_PARAMETERS.sub("() =>", s_line) == CALLBACK_PARAMETERS.sub(
            "() =>", o_line
        ):
            # `onBeforeRouteLeave((to) => {` new beside `onBeforeRouteLeave(() => {`
            self.fail(
                "edit_or_insertion",
                f"{s_line[:60]!r} passes a callback as the elided code next to it does: an edit?",
                s_items[0],
            )
            return True
        s_tag, o_tag = MARKUP_TAG.match(s_line), MARKUP_TAG.match(o_line)
        if s_tag is None or o_tag is None or s_tag.group(1) != o_tag.group(1):
            return False
        self.fail(
            "edit_or_insertion",
            f"<{s_tag.group(1)}> may edit the original element there or add one",
            s_items[0],
        )
        return True

    def twin(self, kept: list[Item], new: list[Item], another: Callable[[Item, Item], bool]) -> bool:
        """A new item whose signature an elided original item shares: an edit of which one?
        (`another`: a marker beside it names one of them, so it is another.)"""
        if not new:
            return False
        keys: dict[str, list[Item]] = defaultdict(list)
        for item in kept:
            keys[self.original.key(item)].append(item)
        for item in new:
            key = self.snippet.key(item)
            twins = keys.get(key, [])
            named = any(another(item, twin) for twin in twins)
            # (one more clause or overload of a name, unlike each of those there: another)
            named = named or (
                self.original.headed(key) > 1
                and all(self.same_signature(item, twin) is False for twin in twins)
            )
            named = named or (bool(twins) and all(self.other_row(item, twin) for twin in twins))
            if key in keys and key != normalize(self.snippet.lines[item.header]) and not named:
                self.fail("several_candidates", f"{key!r} may edit an elided original item or add one", item)
                return True
        shown = [body(self.snippet, item) if item.nested else "" for item in new]
        if all(text.count("\n") + 1 < MIN_RENAMED_BODY_LINES for text in shown):
            return False
        bodies = {body(self.original, item) for item in kept if item.nested}
        for item, text in zip(new, shown, strict=True):
            if text.count("\n") + 1 < MIN_RENAMED_BODY_LINES:
                continue
            if text in bodies or any(self.renamed_throughout(old, text) for old in kept if old.nested):
                self.fail(
                    "renamed_or_copied", "a new item has the body of an elided one: renamed or copied?", item
                )
                return True
        return False

    def renamed_throughout(self, o_item: Item, text: str) -> bool:
        """A new body much like the elided item's but for names the snippet renames elsewhere too
        (`zip_code` become `postal_code` in a column list it shows, the old name gone from the
        snippet): that item with the rename carried into it (or a copy beside it?), not code that
        is new for sure."""
        o_text = body(self.original, o_item)
        # (the ratio is at most what the shorter text's share allows: most elided bodies fail here)
        if 2 * min(len(o_text), len(text)) < BLOCK_EDIT_SIMILARITY * (len(o_text) + len(text)):
            return False
        if similarity(o_text, text) < BLOCK_EDIT_SIMILARITY:
            return False
        names, o_names = set(NAME.findall(text)), set(NAME.findall(o_text))
        removed, added = o_names - names, names - o_names
        if not removed or not added:
            return False
        snippet = "\n".join(self.snippet.normalized)
        gone = [name for name in removed if not whole_word(name).search(snippet)]  # renamed everywhere
        shown = set(self.snippet.normalized)
        # (a line shown as it stands beside the renamed one says a look-alike was added)
        return any(
            self.original.normalized[k] not in shown and self.stands_in_place(k, j)
            for name in gone
            for new in added
            for k, renamed in self.uses_renamed(name, new, range(o_item.start, o_item.end))
            for j in self.snippet.where(renamed)
        )

    def stands_in_place(self, k: int, j: int) -> bool:
        """Whether snippet line j has the same line right above it, or right below it, as original
        line k, a line the original has there only (`COLUMNS =` above the column list)."""
        o_lines, s_lines = self.original.normalized, self.snippet.normalized
        for step in (-1, 1):
            o, s = k + step, j + step
            inside = 0 <= o < len(o_lines) and 0 <= s < len(s_lines)
            if (
                inside
                and o_lines[o]
                and o_lines[o] == s_lines[s]
                and len(self.original.where(o_lines[o])) == 1
            ):
                return True
        return False

    def elided_wrapper(self, o_gap: list[Item], new: list[Item]) -> int | None:
        """The one new control block between two anchors that elides code inside it (`try:` over
        `# ... existing code ...`, then `except E:`): the original code there, wrapped."""
        # (a header the original has once is that block, shown; one it has never or often, or one
        # that names nothing, `try:`, is new here)
        wrappers = [
            k
            for k in self.eliding_control_blocks(new)
            if BARE_KEYWORD.match(header := self.snippet.normalized[new[k].header])
            or len(self.original.where(header)) != 1
        ]
        if not o_gap or len(wrappers) != 1 or self.edits_one_of(new[wrappers[0]], o_gap):
            return None
        return wrappers[0]

    def wraps_last(self, o_gap: list[Item], new: list[Item]) -> tuple[int, int] | None:
        """`marker, try { switch (event.type) { // ... } } catch ...`: the one control block that
        elides code inside it, whose first line inside reads as the header of one original item
        in the gap, not its first (the marker stands for those above), and much like none from
        there on. Returns where in `o_gap` the wrapped items start and the wrapper's index in
        `new`."""
        wrappers = self.eliding_control_blocks(new)
        if len(wrappers) != 1 or not new[wrappers[0]].children or new[wrappers[0]].children[0].marker:
            return None
        wrapper = new[wrappers[0]]
        first = self.snippet.normalized[wrapper.children[0].header]
        places = [at for at, item in enumerate(o_gap) if self.original.normalized[item.header] == first]
        if len(places) != 1 or places[0] == 0 or self.edits_one_of(wrapper, o_gap[places[0] :]):
            return None
        return places[0], wrappers[0]

    def eliding_control_blocks(self, new: list[Item]) -> list[int]:
        """The new control blocks (`if`, `try`, `with`) and calls around a block (see `wrapping_call`)
        that elide code inside them."""
        return [
            k
            for k, item in enumerate(new)
            if has_marker(item) and (self.control_block(self.snippet, item) or self.wrapping_call(item))
        ]

    def wrapping_call(self, item: Item) -> bool:
        """A call that passes the lines below it as a function or block (`mutex.runExclusive(async ()
        => {`, `queue.sync {`): around code as a control block is."""
        header = self.snippet.normalized[item.header]
        if not item.nested or FIRST_WORD_END.split(header, maxsplit=1)[0] in NOT_CALLS:
            return False
        if CALLBACK_OPENER.search(header):
            return header.count("(") > header.count(")")
        return bool(TRAILING_BLOCK.match(header))

    def edits_one_of(self, s_item: Item, o_items: list[Item]) -> bool:
        """Whether a new block's header is much like one of the original items' (an edit of it,
        maybe, rather than a new block around them)."""
        header = self.snippet.normalized[s_item.header]
        return any(
            similarity(header, self.original.normalized[item.header]) >= BLOCK_UNSURE_SIMILARITY
            for item in o_items
        )

    def wrap_elided(self, o_gap: list[Item], new: list[Item], k: int, reindent: Reindent) -> list[Op] | None:
        """`new[k]`'s body aligned with the original items it wraps, each copied one block deeper;
        its clauses (`except E:`, `} catch {`) and the other new items as shown around them."""
        wrapper = new[k]
        body = [child for child in wrapper.children if self.depth(child) > self.depth(wrapper)]
        clauses = wrapper.children[len(body) :]
        shown = leading(reindent.apply(self.snippet.lines[body[0].header])) if body else ""
        if body and body[0].marker:  # (a marker's own indentation is often loose: one unit in)
            shown = leading(reindent.apply(self.snippet.lines[wrapper.header])) + self.original_unit
        kept = leading(self.original.lines[o_gap[0].header])
        if not body or len(shown) <= len(kept) or not shown.startswith(kept):
            self.fail("unanchored_insertion", "new code wraps elided code at no deeper level", wrapper)
            return None
        # aligned as if shown at the original's depth, then all of it one block deeper
        at_kept = self.mapping(body[0], o_gap[0])
        first = o_gap[0].under(o_gap[0].start, o_gap[0].start)  # the wrapper has the blank lines above
        inner = self.level([first, *o_gap[1:]], body, at_kept, top=False)
        if inner is None:
            return None
        indent = shown[len(kept) :]
        deeper = [
            replace(op, indent=indent + op.indent)
            if isinstance(op, Copy)
            else replace(op, reindent=op.reindent.deeper(indent))
            for op in inner
        ]
        closer = [Insert(wrapper.end - 1, wrapper.end, reindent)] if wrapper.closer else []
        return [
            *self.inserts(new[:k], reindent),
            Insert(wrapper.lead, wrapper.header + 1, reindent),
            *deeper,
            *self.inserts(clauses, reindent),
            *closer,
            *self.inserts(new[k + 1 :], reindent),
        ]

    def edits_elided_block(self, o_gap: list[Item], new: list[Item]) -> int | None:
        """The one block between two anchors, shown edited: the one new item that elides code
        inside it, under a header much like the block's (`{visible.map((todo) => (` over
        `{/* ... */}` where `{todos.map(...` stands; `s := &Server{` with `// ... existing fields
        ...` deep inside, where `return &Server{` stands). Code elided inside it was there before,
        so it is that block, edited; the other new items go around it."""
        if len(o_gap) != 1 or not o_gap[0].children:
            return None
        eliding = [k for k, item in enumerate(new) if item.children and has_marker(item)]
        if len(eliding) != 1:
            return None
        s_item, o_item = new[eliding[0]], o_gap[0]
        s_header, o_header = self.snippet.normalized[s_item.header], self.original.normalized[o_item.header]
        alike = similarity(s_header, o_header) >= BLOCK_UNSURE_SIMILARITY or self.condition_rewritten(
            s_item, o_item
        )
        return eliding[0] if alike else None

    def replace(
        self, o_gap: list[Item], new: list[Item], ops: list[Op], closed_up: bool = False
    ) -> list[Op] | None:
        """`ops`, which write `new` where `o_gap` stands, unless that deletes many more lines than it
        writes with nothing to say it is meant (the reason recorded). `closed_up`: the gap lies
        between two anchors, the one above ending in code; there a snippet that only elides (see
        `only_elides`) means the deletion."""
        if self.deletes_unsaid(o_gap, new, closed_up):
            line = self.original.lines[o_gap[0].header].strip()
            deleted = self.original.nonblank(o_gap)
            self.fail(
                "unexplained_deletion", f"{deleted} original lines from {line!r} would be deleted", None
            )
            return None
        return ops

    def deletes_unsaid(self, o_gap: list[Item], new: list[Item], closed_up: bool = False) -> bool:
        """Writing `new` over `o_gap` deletes many more lines than it writes, and nothing says it is
        meant (see `replace`)."""
        deleted = self.original.nonblank(o_gap)
        return (
            deleted > MAX_SILENT_DELETION
            and deleted > DELETION_RATIO * self.snippet.nonblank(new)
            and not self.drops_its_ties(o_gap)
            and not self.moved_away(o_gap, new)
            and not self.named_out(o_gap)
            and not self.tabled(o_gap)
            and not self.moved_into_new_code(o_gap)
            and not (closed_up and not new and (self.only_elides or self.deprecated(o_gap)))
            and not self.inside_whole
        )

    def moved_away(self, o_gap: list[Item], new: list[Item]) -> bool:
        """Deleted code each of whose items the snippet shows elsewhere than in its place (`new`),
        header and all, more often than the rest of the original has that header: moved, not lost."""
        lines, s_lines = self.original.normalized, self.snippet.normalized
        lo, hi = o_gap[0].start, o_gap[-1].end
        rest = Counter(line for k, line in enumerate(lines) if not lo <= k < hi)
        here = {k for item in new for k in range(item.start, item.end)}
        shown = Counter(line for k, line in enumerate(s_lines) if k not in here)
        headers = [lines[item.header] for item in o_gap if not item.marker and lines[item.header]]
        return bool(headers) and all(shown[header] > rest[header] for header in headers)

    def named_out(self, o_gap: list[Item]) -> bool:
        """Deleted declarations each shown dropped from a line elsewhere that names it (`__all__ =
        [..., 'LifoQueue', ...]` shown without `'LifoQueue', `): the deletion is meant."""
        lines = self.original.normalized
        lo, hi = o_gap[0].start, o_gap[-1].end
        known = set(lines)
        edited = [line for line in self.snippet.normalized if line and line not in known]
        named = self.original.code(o_gap)
        keys = [self.original.key(item) for item in named]
        # (declarations only, named by their keys: `class LifoQueue`, not `if "X" in env:`)
        if any(
            key == lines[item.header] or not NAME.search(key) for key, item in zip(keys, named, strict=True)
        ):
            return False
        names = sorted({NAME.findall(key)[-1] for key in keys})
        for word in names:
            name = whole_word(word)
            naming = [line for k, line in enumerate(lines) if not lo <= k < hi and name.search(line)]
            if not any(
                not name.search(new) and dropped_words(line, new, names) for line in naming for new in edited
            ):
                return False
        return bool(named)

    def moved_into_new_code(self, o_gap: list[Item]) -> bool:
        """Deleted code most of whose own statements (long enough to tell, standing nowhere else
        in the original; no entries of a list, which a re-wrapped signature shows again) the
        snippet writes, as new code or beside it (`const filtered = products.filter(...)` gone, its
        lines now in a new `useMemo`; a branch unwrapped): moved, the deletion meant."""
        lines = self.original.normalized
        lo, hi = o_gap[0].start, o_gap[-1].end
        rest = {line for k, line in enumerate(lines) if not lo <= k < hi}
        own = {
            line
            for line in lines[lo:hi]
            if letters(line) >= MIN_INNER_LETTERS and line not in rest and not line.endswith(",")
        }
        return len(own) >= MIN_MOVED_LINES and 2 * len(own & set(self.snippet.normalized)) >= len(own)

    def tabled(self, o_gap: list[Item]) -> bool:
        """Several deleted blocks each of which names a string the snippet writes on a new line
        (`if "APP_BIND_PORT" in env:` blocks, each gone, and `("APP_BIND_PORT", "bind_port"),` rows
        in a new table): copy-pasted code made a loop over a table, the deletion meant."""
        lines = self.original.normalized
        known = set(lines)
        written = "\n".join(line for line in self.snippet.normalized if line and line not in known)
        named = self.original.code(o_gap)
        if len(named) < MIN_TABLED or not written:
            return False
        return all(
            any(
                letters(value) >= MIN_INNER_LETTERS and value in written
                for line in lines[item.start : item.end]
                for value in (found.group() for found in STRING.finditer(line))
            )
            for item in named
        )

    def deprecated(self, o_gap: list[Item]) -> bool:
        """Code each of whose items says above or in its first lines that it is deprecated
        (`@deprecated`, `[Obsolete]`, `#[deprecated]`, `// Deprecated: ...`, a `legacy` name):
        shown closed up, whole neighbours adjacent, its deletion is meant."""
        lines = self.original.normalized
        named = self.original.code(o_gap)
        return (
            bool(named)
            and all(
                any(DEPRECATED.search(line) for line in lines[item.start : item.header + DEPRECATION_LINES])
                for item in named
            )
            and not self.keeps_its_ties(o_gap)
        )

    def keeps_its_ties(self, o_gap: list[Item]) -> bool:
        """An import the snippet shows kept whose names only the code in `o_gap` uses (`import
        warnings` above a shown function, the deleted one the only that warned): that code may
        have been left out by mistake."""
        lines = self.original.normalized
        lo, hi = o_gap[0].start, o_gap[-1].end
        inside = "\n".join(lines[lo:hi])
        rest = "\n".join(
            line for k, line in enumerate(lines) if not lo <= k < hi and not IMPORT_LINE.match(line)
        )
        return any(
            any(name.search(inside) for name in unused_names(line, rest))
            for line in set(self.snippet.normalized) & set(lines)
            if IMPORT_LINE.match(line)
        )

    def drops_its_ties(self, o_gap: list[Item]) -> bool:
        """Deleted code tied by a name to a line elsewhere that the snippet deletes too: its own
        import, the lines around it shown (`import warnings` gone with the only function that
        warned); or, for each deleted item, a constant only it reads or the one call to it, the
        lines around that shown closed up. The deletion is meant."""
        lines, shown = self.original.normalized, set(self.snippet.normalized)
        lo, hi = o_gap[0].start, o_gap[-1].end
        items = ["\n".join(lines[item.start : item.end]) for item in o_gap]
        code = [k for k, line in enumerate(lines) if line and not lo <= k < hi]
        closed_up = set(pairwise(line for line in self.snippet.normalized if line))
        for n, k in enumerate(code):
            if lines[k] in shown:
                continue
            around = tuple(lines[j] for j in code[max(n - 1, 0) : n + 2] if j != k)
            is_import = IMPORT_LINE.match(lines[k]) is not None
            if not (all(line in shown for line in around) if is_import else around in closed_up):
                continue  # elided with its neighbours (or edited): not shown deleted
            ties = unused_names(lines[k], "\n".join(lines[j] for j in code if j != k))
            uses = [any(name.search(item) for name in ties) for item in items]
            if all(uses) or (is_import and any(uses)):
                return True
        return False

    def inserts(self, items: list[Item], reindent: Reindent) -> list[Op]:
        return [Insert(item.lead, item.end, reindent) for item in items]

    def first_member(self, item: Item) -> bool:
        """Whether the item stands first in a type's body: right below `final class Message extends
        BaseMessage {`, or below the `{` of `public partial class CustomerViewModel` (Allman)."""
        above = item.lead - (2 if item.lead > 1 and self.original.normalized[item.lead - 1] == "{" else 1)
        header = self.original.normalized[above] if above >= 0 else ""
        return TYPE_DECLARATION.search(header) is not None and not header.endswith(";")

    def blank_lines_below(self, item: Item, s_items: list[Item], reindent: Reindent) -> list[Op]:
        """The blank lines the snippet shows between `item` and a marker right below it."""
        k = next((n for n, other in enumerate(s_items) if other.start >= item.end), len(s_items))
        if k < len(s_items) and s_items[k].marker and s_items[k].lead < s_items[k].start:
            return [Insert(s_items[k].lead, s_items[k].start, reindent)]
        return []

    # 3. one matched pair -----------------------------------------------------------------

    def pair(
        self,
        o_item: Item,
        s_item: Item,
        shown_spacing: bool,
        open_end: bool = False,
        tail_elided: bool = False,
        head_elided: bool = False,
        chain_elided: bool = False,
        cut: bool = False,
    ) -> list[Op] | None:
        """`shown_spacing`: the snippet shows this item after a sibling, so its blank lines count;
        `open_end`, `tail_elided`: see `level`; `head_elided`: the snippet starts at this item and
        leaves out the file above it (with the comment above it, even in a rewrite);
        `chain_elided`: the clauses that continue the original item (`except`, `else`) are kept
        when the snippet shows none of them; `cut`: the block around was cut off (see `level`)."""
        after_replaced, self.after_replaced = self.after_replaced, False  # (see `level`)
        reindent = self.mapping(s_item, o_item)
        head: list[Op] = [Copy(o_item.lead, o_item.start)]
        if shown_spacing:
            head = [Insert(s_item.lead, s_item.start, reindent)]
        if self.original.text(o_item) == self.snippet.text(s_item):
            return [*head, *self.same(o_item, s_item, reindent)]
        if self.shows_only_prefix(s_item, o_item):
            return [*head, Copy(o_item.start, o_item.end)]
        below_comment = o_item.under(o_item.header, o_item.header)
        if not s_item.prefix and self.original.text(below_comment) == self.snippet.text(s_item):
            # shown as it stands but for the comment above it: that stays (see below), unless the
            # snippet closes up around it
            if (not (self.rewrite or after_replaced) or head_elided) and not self.prefix_closed_up(
                o_item, s_item
            ):
                head.append(Copy(o_item.start, o_item.header))
            return [*head, *self.same(below_comment, s_item, reindent)]
        if not shown_spacing and self.part_of_prefix_changed(s_item, o_item):
            return None
        if s_item.prefix and not (not shown_spacing and self.shows_prefix_tail(s_item, o_item)):
            if not shown_spacing:  # a marker above elides the comment above changed decorators
                head.append(Copy(o_item.start, o_item.start + self.elided_comment(s_item, o_item)))
            prefix = self.prefix(o_item, s_item, reindent)
            if prefix is None:
                return None
            head += prefix
        elif not (self.rewrite or after_replaced) or head_elided:
            # the comment above an item shown without it stays, but not in a rewrite that shows
            # where it stood
            head.append(Copy(o_item.start, o_item.header))
        if not s_item.children and elided_body(self.snippet.lines[s_item.header]) is not None:
            kept = self.kept_body(o_item, s_item)  # the original item, so its spacing too
            return None if kept is None else [Copy(o_item.lead, o_item.start), *head[1:], kept]
        same_header = normalize(self.original.lines[o_item.header]) == normalize(
            self.snippet.lines[s_item.header]
        )
        header: Op = Copy(o_item.header, o_item.header + 1)
        if not same_header:
            header = Insert(s_item.header, s_item.header + 1, reindent)
        if s_item.closer and not has_marker(s_item) and self.is_function(s_item):
            return [*head, Insert(s_item.header, s_item.end, reindent)]  # a whole function, braces and all
        # `- name: Test`, a marker below; a header the snippet ends on, cut off there
        opens = self.opens_block(s_item) or (
            same_header and (tail_elided or self.ends_snippet(s_item) or self.marker_below(s_item))
        )
        opens = opens and not self.falls_through(s_item)
        if not s_item.children and not s_item.closer and o_item.children and opens:
            return [*head, header, Copy(o_item.header + 1, o_item.end)]  # header shown, body elided
        if not s_item.children or not o_item.children:
            if self.nests_what_follows(o_item, s_item):
                return None
            body = self.replace([o_item], [s_item], [Insert(s_item.header, s_item.end, reindent)])
            return None if body is None else head + body
        s_close, o_close = (
            self.signature_close(self.snippet, s_item),
            self.signature_close(self.original, o_item),
        )
        s_body, o_body = s_item.children, o_item.children
        if o_close is not None and s_close is None and same_header and self.elides_signature(o_close, s_item):
            # `class ProfileViewModel(`, then a marker, then members: the marker elides the rest of
            # the signature (its parameters, `) : ViewModel() {`) and the head of the body
            header = Copy(o_item.header, o_close.header + 1)
            s_body, o_body = s_item.children, o_close.children
        elif (s_close is None) != (o_close is None):  # a signature over several lines on one side only
            header, s_body, o_body = self.signature(o_item, s_item, o_close, s_close, reindent)
        inserted = self.clause_inserted(o_item, s_item)
        if inserted is not None:  # the original's clause, shown nested in new ones above it
            new, shown = inserted
            inner = self.level(o_body[:-1], s_body[:-1], reindent, False)
            clause = self.pair(o_body[-1], shown, True, open_end, tail_elided)
            if inner is None or clause is None:
                return None
            above = Insert(new.lead, shown.lead, reindent)  # the new clauses, down to the original's
            return [*head, header, *inner, above, *clause, *self.tail(o_item, s_item, reindent)]
        chain = self.clauses(self.original, o_item) if chain_elided else []
        if chain and not self.clauses(self.snippet, s_item) and len(chain) < len(o_body):
            inner = self.level(o_body[: -len(chain)], s_body, reindent, False, open_end, tail_elided)
            if inner is None:
                return None
            return [*head, header, *inner, Copy(chain[0].lead, o_item.end)]
        added = self.clauses_added(o_item, s_item, chain)
        if added and len(chain) < len(o_body) and len(added) < len(s_body):
            # new clauses shown right below the body, a marker below them: added above the chain
            inner = self.level(o_body[: -len(chain)], s_body[: -len(added)], reindent, False)
            if inner is None:
                return None
            new = Insert(added[0].lead, s_item.end, reindent)
            return [*head, header, *inner, new, Copy(chain[0].lead, o_item.end)]
        # cut off in it, or in the block around whose closer it leads to (`}: Props) {` of a
        # signature over several lines, the function's `});` below)
        cut = open_end and (o_item.closer or cut) and not s_item.closer and self.ends_snippet(s_item)
        # a function shown whole, no marker in it and code after it (where no closer shows its
        # end), its last line new, is rewritten: what it leaves out of the original's is deleted,
        # however much (a loop become a comprehension), as where a closer shows it (above); shown
        # up to one of its own lines, it may have lost a marker there
        whole = not has_marker(s_item) and (
            (
                self.is_function(s_item)
                and self.followed_by_code(s_item)
                and self.ends_in_new_code(s_item, o_item)
            )
            or (s_item.closer and self.mostly_new(s_item, o_item))
        )
        self.inside_whole += whole
        # its clauses shown, the rest of the chain elided (`except ValueError:` edited, a marker
        # below): the original's clauses after the last one shown are kept
        tail_elided = tail_elided or (chain_elided and bool(self.clauses(self.snippet, s_item)))
        inner = self.level(o_body, s_body, reindent, False, open_end, tail_elided, cut)
        self.inside_whole -= whole
        if inner is None or self.renamed_yet_kept(o_item, s_item, o_close, s_close, inner):
            return None
        return [*head, header, *inner, *self.tail(o_item, s_item, reindent)]

    def renamed_yet_kept(
        self, o_item: Item, s_item: Item, o_close: Item | None, s_close: Item | None, inner: list[Op]
    ) -> bool:
        """A signature shown with one parameter renamed (`options: SyncOptions` -> `opts:
        SyncOptions`), the rest of it as it was, while a line the merge keeps from the elided body
        still uses the old name: the elided uses renamed too, or left to break?"""
        s_end = s_close.header + 1 if s_close else s_item.header + 1
        o_end = o_close.header + 1 if o_close else o_item.header + 1
        s_text = " ".join(self.snippet.normalized[s_item.header : s_end])
        o_text = " ".join(self.original.normalized[o_item.header : o_end])
        gone = set(NAME.findall(o_text)) - set(NAME.findall(s_text))
        new = set(NAME.findall(s_text)) - set(NAME.findall(o_text))
        if len(gone) != 1 or len(new) != 1:
            return False
        (old,), (name,) = gone, new
        if whole_word(old).sub(name, o_text) != s_text:
            return False
        if not re.search(PARAMETER.format(re.escape(old)), o_text):
            return False  # (a type changed: `x: int` -> `x: float`)
        used = re.compile(BARE_USE.format(re.escape(old)))
        if any(used.search(line) for line in self.snippet.lines[s_end : s_item.end]):
            return False  # the snippet still uses it, or binds it anew (`const options = ...`)
        kept = (k for op in inner if isinstance(op, Copy) for k in range(op.start, op.end))
        if not any(k >= o_end and used.search(self.original.lines[k]) for k in kept):
            return False
        self.fail(
            "renamed_yet_kept", f"{old!r} renamed to {name!r}, yet elided code still uses {old!r}", s_item
        )
        return True

    def nests_what_follows(self, o_item: Item, s_item: Item) -> bool:
        """The snippet shows lines under the item that the original has after it, at its level
        (the text of a heredoc or a docstring, shown without the line that opens it): nested by
        the snippet's indentation, they would be written twice."""
        shown = {self.snippet.normalized[child.header] for child in s_item.children if not child.marker}
        after = islice((line for line in self.original.normalized[o_item.end :] if line), len(shown))
        if o_item.children or not shown.intersection(after):
            return False
        self.fail("unanchored_insertion", "lines shown inside the item follow it in the original", s_item)
        return True

    def clause_inserted(self, o_item: Item, s_item: Item) -> tuple[Item, Item] | None:
        """New clauses shown above the clause the original has next (`} else if len(out) == 0 {`
        above `} else if s := string(out); s != label {`): as each clause nests the next, the
        original's is nested in the new ones. (The first new clause, the original's as shown.)"""
        if not (o_item.children and s_item.children):
            return None
        o_chain, s_chain = self.clauses(self.original, o_item), self.clauses(self.snippet, s_item)
        if len(o_chain) != 1 or len(s_chain) != 1 or o_chain[0] is not o_item.children[-1]:
            return None
        line = self.original.normalized[o_chain[0].header]
        if self.snippet.normalized[s_chain[0].header] == line:
            return None
        nested = self.nested_clauses(self.snippet, s_chain)[1:]
        found = next((clause for clause in nested if self.snippet.normalized[clause.header] == line), None)
        return None if found is None else (s_chain[0], found)

    def clauses_added(self, o_item: Item, s_item: Item, chain: list[Item]) -> list[Item]:
        """The snippet's clauses of a block with no closer (`except TimeoutError:` in Python), where
        none of them is one of the original's `chain` of clauses, which the marker below elides, nor
        opens its body with a line much like one's (`except (SyntaxError, ValueError) as err:` over
        the body of `except Exception as err:` is that clause narrowed)."""
        if not chain or o_item.closer or s_item.closer:
            return []
        added = self.clauses(self.snippet, s_item)
        known = self.nested_clauses(self.original, chain)
        shown = self.nested_clauses(self.snippet, added)
        keys = {self.original.key(clause) for clause in known}
        bodies = [self.original.normalized[clause.header + 1] for clause in known if clause.children]
        for clause in shown:
            body = self.snippet.normalized[clause.header + 1] if clause.children else ""
            if self.snippet.key(clause) in keys or any(
                similarity(body, other) >= LINE_UNSURE_SIMILARITY for other in bodies
            ):
                return []
        return added

    @classmethod
    def nested_clauses(cls, side: Side, chain: list[Item]) -> list[Item]:
        """The clauses of a chain with those nested in its last one (`except E:` holds the `except`
        below it)."""
        found = list(chain)
        while found and (more := cls.clauses(side, found[-1])):
            found += more
        return found

    @staticmethod
    def clauses(side: Side, item: Item) -> list[Item]:
        """The clauses that continue a block (`else:`, `except E:`, `rescue`), each nested in the
        one before it: the last children, as deep as the block's header."""
        depth = leading(side.lines[item.header])
        chain = takewhile(
            lambda child: (
                leading(side.lines[child.header]) == depth and CLAUSE.match(side.normalized[child.header])
            ),
            item.children[::-1],
        )
        return list(chain)[::-1]

    @staticmethod
    def signature_close(side: Side, item: Item) -> Item | None:
        """The line that closes a signature written over several lines (`def place(`, one parameter
        a line, `) -> Order:`; `function List({`, ..., `}: Props) {`), the body under it; None for
        a header on one line."""
        if len(item.children) < 2 or not SIGNATURE_OPEN.search(side.normalized[item.header]):
            return None
        close = item.children[-1]
        if not SIGNATURE_CLOSE.match(side.normalized[close.header]):
            return None
        if not close.children and (item.closer or not OPENS_BLOCK.search(side.normalized[close.header])):
            return None  # (no body, or one the snippet leaves out: `)  ) {`, then a marker)
        if any(child.children for child in item.children[:-1]):
            return None
        return close

    def signature(
        self, o_item: Item, s_item: Item, o_close: Item | None, s_close: Item | None, reindent: Reindent
    ) -> tuple[Op, list[Item], list[Item]]:
        """A signature on one line on one side and over several on the other: the header lines
        (the original's where they say the same, else the snippet's), then the bodies to align."""
        s_end = s_close.header + 1 if s_close else s_item.header + 1
        o_end = o_close.header + 1 if o_close else o_item.header + 1
        s_text = "".join(self.snippet.normalized[s_item.header : s_end])
        o_text = "".join(self.original.normalized[o_item.header : o_end])
        same = SIGNATURE_SPACE.sub("", s_text) == SIGNATURE_SPACE.sub("", o_text)
        header: Op = Copy(o_item.header, o_end) if same else Insert(s_item.header, s_end, reindent)
        s_body = s_close.children if s_close else s_item.children
        o_body = o_close.children if o_close else o_item.children
        return header, s_body, o_body

    def elides_signature(self, o_close: Item, s_item: Item) -> bool:
        """A header shown alone over a marker, the signature's parameters not shown, and below the
        marker an item of the body that `o_close` opens (not a parameter shown after the marker)."""
        children = s_item.children
        if len(children) < 2 or not children[0].marker:
            return False
        shown = next((item for item in children if not item.marker), None)
        if shown is None:
            return False
        key = self.snippet.key(shown)
        return any(self.original.key(item) == key for item in o_close.children)

    def prefix_closed_up(self, o_item: Item, s_item: Item) -> bool:
        """The comment above an original item deleted by closing up: the snippet shows the line
        above that comment right above the item, and only elides (see `only_elides`)."""
        o_above = nonblank_from(self.original.normalized, o_item.start, -1)
        s_above = nonblank_from(self.snippet.normalized, s_item.start, -1)
        return (
            o_above is not None
            and s_above is not None
            and s_above not in self.snippet.markers
            and self.snippet.normalized[s_above] == self.original.normalized[o_above]
            and self.only_elides
        )

    def same(self, o_item: Item, s_item: Item, reindent: Reindent) -> list[Op]:
        """An item shown as it stands but for spacing: the original's lines, except those whose inner
        spaces the snippet changed (gofmt re-aligning a struct's fields after one is added). A tab
        inside an original line is kept: assistants write spaces for it."""
        o_lines = self.original.lines[o_item.start : o_item.end]
        s_lines = self.snippet.lines[s_item.start : s_item.end]
        if len(o_lines) != len(s_lines) or o_lines == s_lines:
            return [Copy(o_item.start, o_item.end)]
        ops: list[Op] = []
        for k, (o_line, s_line) in enumerate(zip(o_lines, s_lines, strict=True)):
            o_text = o_line.strip()
            if o_text == s_line.strip() or "\t" in o_text:
                ops.append(Copy(o_item.start + k, o_item.start + k + 1))
            else:
                ops.append(Insert(s_item.start + k, s_item.start + k + 1, reindent))
        return ops

    def kept_body(self, o_item: Item, s_item: Item) -> Op | None:
        """`def f(x): ...`, `count(): number { /* ... */ }`: the original's header and body, when
        the snippet's header is the original's; a changed header over an elided body is unsure."""
        shown = elided_body(self.snippet.lines[s_item.header]) or ""
        if (
            normalize(shown).removesuffix("{").rstrip()
            == normalize(self.original.lines[o_item.header]).removesuffix("{").rstrip()
        ):
            return Copy(o_item.header, o_item.end)
        self.fail(
            "elided_body",
            "a header with its body elided on the same line differs from the original's",
            s_item,
        )
        return None

    @staticmethod
    def left_open(s_item: Item, o_item: Item) -> bool:
        """A block shown without the closer the original has, its last line a marker (`for ... {`,
        `if ... {`, `// ... existing code ...`, then the closer of the block around them): the
        marker elides the rest of it and what follows it in that block, up to the closer shown."""
        return s_item.nested and not s_item.closer and o_item.closer and last_descendants(s_item)[-1].marker

    def stops_in_chain(self, s_item: Item, o_item: Item) -> bool:
        """The snippet ends inside a statement of several clauses (`if unit is not None:` and its
        first line, its `else:` not shown): it stopped showing the block there, so what follows the
        statement in the block is elided too, as its clauses are."""
        return bool(self.clauses(self.original, o_item)) and not self.clauses(self.snippet, s_item)

    def mostly_new(self, s_item: Item, o_item: Item) -> bool:
        """Whether most lines inside a block of code (not a type's body, an element or a data
        object, where showing part may leave the rest out) shown with its closer under the original's
        header are none of the original block's: its body rewritten (a `switch` become a lookup),
        not cut short."""
        header = self.snippet.normalized[s_item.header]
        if (
            header != self.original.normalized[o_item.header]
            or TYPE_DECLARATION.search(header)
            or header.startswith("<")
            or self.snippet.language in DATA_LANGUAGES
        ):
            return False
        kinds = {FIRST_WORD_END.split(self.original.key(child), maxsplit=1)[0] for child in o_item.children}
        if any(
            FIRST_WORD_END.split(self.snippet.key(child), maxsplit=1)[0] in kinds for child in s_item.children
        ):
            return False  # one more `it(...)` among the original's: it adds, or cuts the rest short
        inside = [line for line in self.snippet.normalized[s_item.header + 1 : s_item.end - 1] if line]
        known = set(self.original.normalized[o_item.start : o_item.end])
        return 2 * sum(line in known for line in inside) < len(inside)

    def ends_in_new_code(self, s_item: Item, o_item: Item) -> bool:
        """Whether the item's last line shown is none of the original item's lines."""
        last = next(line for line in reversed(self.snippet.normalized[s_item.start : s_item.end]) if line)
        return last not in self.original.normalized[o_item.start : o_item.end]

    def shown_below(self, item: Item) -> int | None:
        """The snippet's next non-blank line after the item, if any."""
        return next((k for k in range(item.end, len(self.snippet.lines)) if self.snippet.normalized[k]), None)

    def followed_by_code(self, item: Item) -> bool:
        """The snippet's next line after the item is code no deeper than its header: its end shown."""
        below = self.shown_below(item)
        return (
            below is not None
            and below not in self.snippet.markers
            and leading(self.snippet.lines[below]) <= leading(self.snippet.lines[item.header])
        )

    def after_deeper_marker(self, item: Item) -> bool:
        """The line shown right above the item is a marker deeper than its header, which continues
        a block whose opener the original has once (`try (var stream = Files.list(dir)) {`, `//
        ... loop unchanged ...`, `} catch (...) {`): the marker elides the end of that block's
        body, not a clause at the item's own depth."""
        lines, depth = self.snippet.normalized, self.depth(item)
        above = next((k for k in range(item.header - 1, -1, -1) if lines[k]), None)
        if above not in self.snippet.markers or len(leading(self.snippet.lines[above])) <= depth:
            return False
        opener = next(
            (
                k
                for k in range(above - 1, -1, -1)
                if lines[k] and k not in self.snippet.markers and len(leading(self.snippet.lines[k])) <= depth
            ),
            None,
        )
        return opener is not None and len(self.original.where(lines[opener])) == 1

    def marker_below(self, item: Item) -> bool:
        """The next line shown below the item is a marker, at any depth (`- name: Restart
        postgresql`, then `# ... rest unchanged ...`): its elided lines go on from there."""
        return self.shown_below(item) in self.snippet.markers

    def marker_inside_below(self, item: Item) -> bool:
        """The next line shown below the item is a marker deeper than its header, as deep as its
        body: it elides the rest of the item (`# ... rest unchanged ...` below an inner `if`)."""
        below = self.shown_below(item)
        return below in self.snippet.markers and len(leading(self.snippet.lines[below])) > self.depth(item)

    def marker_next_to(self, item: Item) -> bool:
        """The next line shown below the item is a marker no deeper than its header: it elides what
        follows the item at its depth, the clauses that continue it (`else:`) among them."""
        below = self.shown_below(item)
        return below in self.snippet.markers and len(leading(self.snippet.lines[below])) <= self.depth(item)

    def ends_snippet(self, item: Item) -> bool:
        """Nothing but blank lines follows the item in the snippet, not even a marker."""
        return self.shown_below(item) is None

    def ends_deep_in_marker(self, item: Item) -> bool:
        """A block without a closer whose last line is a marker in a block inside it."""
        chain = last_descendants(item)
        return len(chain) > 2 and chain[-1].marker and not item.closer

    def ends_open(self, item: Item) -> bool:
        """A block whose last line shown is a marker, at any depth, with no closer to end it."""
        chain = last_descendants(item)
        return chain[-1].marker and not any(block.closer for block in chain)

    @staticmethod
    def last_shown_elides(item: Item) -> bool:
        """A block whose last line shown is a marker, at any depth, its closer shown or not."""
        return last_descendants(item)[-1].marker

    def elides_onward(self, s_item: Item, o_gap: list[Item]) -> bool:
        """A block whose last line shown is a marker deep inside it (`# ... rest of the function
        ...`), the next anchor right below it: the marker elides the original's items between them
        too, none is deleted, where no closer is shown after it (the block left open: what it
        elides runs on to the next line shown), unless the snippet shows one of them elsewhere
        (moved); and, its closer shown, where they are many more than a deletion goes unsaid for
        (see `replace`), or each is still called by the snippet. Not in a snippet that only elides,
        where that deletion is all it can mean."""
        return (
            bool(o_gap)
            and not self.only_elides
            and (
                (self.ends_open(s_item) and not self.shown_elsewhere(o_gap))
                or (
                    self.last_shown_elides(s_item)
                    and (self.deletes_unsaid(o_gap, []) or self.called_in_snippet(o_gap))
                )
            )
        )

    def shown_elsewhere(self, o_gap: list[Item]) -> bool:
        """Whether the snippet shows the header of one of the items somewhere (moved there?)."""
        return any(
            self.snippet.where(self.original.normalized[item.header]) for item in o_gap if not item.marker
        )

    def called_in_snippet(self, o_gap: list[Item]) -> bool:
        """Declarations, each the one of its name and shown nowhere in the snippet, whose names lines
        the snippet shows use (`path("articles/<slug>/", article_detail)`): code the snippet still
        calls is not deleted."""
        items = [item for item in o_gap if not item.marker]
        if not items:
            return False
        for item in items:
            key = self.original.key(item)
            declared = NAME.findall(key)
            if not declared or key == self.original.normalized[item.header] or self.original.headed(key) != 1:
                return False  # no declaration, or one of several of its name (overloads, clauses)
            lines = self.snippet.normalized
            if any(line.startswith(key) for line in lines):
                return False  # shown elsewhere: moved there
            name = whole_word(declared[-1])
            if not any(name.search(line) for line in lines):
                return False
        return True

    def registers(self, s_item: Item, o_gap: list[Item]) -> bool:
        """A function shown ending in a marker, then the next anchor, where the original has only
        lines that name that function between them (`tests.append(test_rgb)` below `def
        test_rgb`): its registration goes with the function the marker keeps, not deleted."""
        if not o_gap or not self.last_shown_elides(s_item):
            return False
        declared = NAME.findall(self.snippet.key(s_item))
        if not declared or not self.is_function(s_item):
            return False
        name = whole_word(declared[-1])
        lines = self.original.normalized
        return all(
            not item.nested and any(name.search(line) for line in lines[item.header : item.end])
            for item in o_gap
        )

    def marker_spans(self, s_item: Item, o_gap: list[Item]) -> bool:
        """A block whose last line shown is a marker deep inside it that names each of the items
        after it (`- name: Set up Python`, `# ... setup and dependency steps unchanged ...`, above
        the step `Install dependencies`): it elides those too, none is deleted."""
        if not o_gap or not self.ends_open(s_item):
            return False
        said = {stem(word) for word in naming_words(self.snippet.lines[last_descendants(s_item)[-1].start])}
        return all(
            said & {stem(word.lower()) for word in NAMING_WORD.findall(self.original.normalized[item.header])}
            for item in o_gap
        )

    def comments_after_marker(self, s_item: Item, o_gap: list[Item]) -> bool:
        """A block whose last line shown is a marker deep inside it, the next item shown right
        below it, nothing but comments between them in the original (`# Internal: get a response
        ...` above `def _getresp(self):`): the snippet left them out, it did not delete them."""
        return (
            bool(o_gap) and self.ends_open(s_item) and all(self.original.is_comment(item) for item in o_gap)
        )

    def comment_cut_short(self, o_item: Item, o_gap: list[Item]) -> bool:
        """A comment's first sentence shown last (`# If you wish to specify custom queries, ...`),
        the lines glued below it in the original more of that comment: left out, not deleted. (A
        commented-out line, `# "B",`, is code put aside, and may be deleted with what follows.)"""
        line = self.original.normalized[o_item.header]
        return (
            bool(o_gap)
            and self.original.is_comment(o_item)
            and PROSE_COMMENT.match(line) is not None
            and all(self.original.is_comment(item) and item.lead == item.start for item in o_gap)
        )

    def ends_in_marker(self, item: Item) -> bool:
        """A block without a closer whose last line is a marker no deeper than its header (TOML's
        `[table]` ... `# ...`, a Markdown section): the marker may elide the rest of the block or the
        siblings after it, so it stands for both."""
        last = item
        while last.children and not last.closer:
            last = last.children[-1]
        return last is not item and last.marker and self.depth(last) <= self.depth(item)

    def is_function(self, item: Item) -> bool:
        """A function or method declaration (not a class, a control block or a call with a callback)."""
        header = normalize(self.snippet.lines[item.header]).lstrip("} ")  # `} catch (e) {` is no function
        first = re.split(r"[^\w$]", header, maxsplit=1)[0]
        name, paren, arguments = header.partition("(")
        if not paren or first in CONTROL or TYPE_DECLARATION.search(name) or "=" in name or "=>" in header:
            return False
        return not arguments.lstrip().startswith(("'", '"', "`"))  # `describe("...", () => {` is a call

    def falls_through(self, item: Item) -> bool:
        """A switch label right above another (`case LZMA_MEM_ERROR:`, `case LZMA_MEMLIMIT_ERROR:`):
        its body is empty, falling through to the next, not elided."""
        lines = self.snippet.normalized
        below = item.header + 1
        return (
            SWITCH_LABEL.match(lines[item.header]) is not None
            and below < len(lines)
            and SWITCH_LABEL.match(lines[below]) is not None
        )

    def opens_block(self, item: Item) -> bool:
        """`def f(x):`, `if (x) {`, and an opening tag that is not closed on its line (`<th
        class="num">`)."""
        line = self.snippet.normalized[item.header]
        if OPENS_BLOCK.search(line):
            return True
        tag = MARKUP_TAG.match(line)
        return (
            tag is not None
            and line.endswith(">")
            and not line.endswith("/>")
            and f"</{tag.group(1)}" not in line
        )

    def tail(self, o_item: Item, s_item: Item, reindent: Reindent) -> list[Op]:
        """Blank lines after the last child and the closer line (the snippet's if it changed)."""
        after = o_item.children[-1].end
        if not o_item.closer:
            return [Copy(after, o_item.end)]
        closer = o_item.end - 1
        ops: list[Op] = [Copy(after, closer)]
        s_closer = self.snippet.lines[s_item.end - 1]
        if s_item.closer and normalize(s_closer) != normalize(self.original.lines[closer]):
            return [*ops, Insert(s_item.end - 1, s_item.end, reindent)]
        return [*ops, Copy(closer, o_item.end)]
