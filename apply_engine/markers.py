"""Lazy-marker detection: is this snippet line an elision such as `// ... existing code ...`?

A pure function of one line and the language's comment syntax. A marker is either

  - a bare ellipsis line: `...`, `…`, `[...]`, `(...)`, or
  - a comment (line comment, `/* */`, JSX `{/* */}`, `<!-- -->`, and in any language `(* *)`,
    `{- -}`, `<# #>` and the template comments `{{-- --}}`, `{{!-- --}}`, `<%# %>`) whose text
    is an ellipsis (`[...]` too) or `snip`, or a few words between two ellipses (`... build URL
    ...`), or contains an ellipsis or is short, and names elided code
    ("existing code", "rest of the file", "unchanged", "same as before", "keep existing",
    "remaining methods", "other functions", ...), or
  - uncommented, as in plain text, a few words between two ellipses that say code is left out
    (`... (steps 1-2 unchanged) ...`).

Whether a marker-shaped line that the original contains verbatim is content is decided by the
aligner, which knows the original.
"""

import re

ELLIPSIS = r"(?:\.{3,}|…|\. \. \.)"
BARE_ELLIPSIS = re.compile(rf"^[\[({{<]?\s*{ELLIPSIS}\s*[\])}}>]?[;,]?$")
HAS_ELLIPSIS = re.compile(ELLIPSIS)
SNIP = re.compile(r"^[\[(<-]*\s*(snip|snipped|etc)\.?\s*[\])>-]*$", re.I)  # `/* snip */`, `# <snip>`
CODE_NOUNS = (
    r"code|file|class|classes|function|functions|method|methods|module|implementation|body|component"
    r"|components|imports?|fields?|properties|props|members|tests?|cases|rules|styles|keys|items|entries"
    r"|config|configuration|content|contents|sections?|lines|logic|statements|declarations|definitions"
    r"|handlers|routes|helpers|exports|elements|markup|dependencies|settings|values|steps|jobs|tasks"
)
PHRASE = re.compile(
    rf"\b((existing|remaining|original|other|previous|more) ({CODE_NOUNS})|rest of|unchanged|"
    rf"same as (before|above|original)|as before|keep(ing)? (the )?(existing|rest|original)|omitted|elided|"
    rf"no changes?|not shown)\b",
    re.IGNORECASE,
)
STOCK_WORDS = (
    "existing remaining original other previous more rest unchanged same before above below keep keeping kept"
    " omitted elided not shown changes change stays stay here the and for with all etc snip"
)
FILLER = frozenset([*CODE_NOUNS.replace("?", "").split("|"), *STOCK_WORDS.split()])  # a marker's stock words
NAMING_WORD = re.compile(r"[A-Za-z_$][\w$]{2,}")
LEADING_PHRASE = re.compile(r"^(existing|remaining|previous) \w+", re.I)  # "existing JSX", "remaining props"
WEAK_PHRASE = re.compile(r"\b(existing|remaining|rest|unchanged|same|keep|other|previous|etc|snip)\b", re.I)
SHORT_COMMENT_WORDS = 9
DOC_COMMENT = ("/**", "///", "//!")  # JSDoc, Javadoc, Rust's and C#'s doc comments
# a longer comment is a marker when it is one sentence saying the rest stays as it is: `The rest of
# addLine() and the remaining methods stay exactly as they are.`
SENTENCE = re.compile(
    r"^(?:the )?(?:(?:rest|remainder) of|remaining|everything (?:else|above|below))\b.*\b(?:unchanged|untouched"
    r"|(?:stays?|remains?|is|are)(?: exactly| kept)? (?:the same|as (?:it is|they are|is|before|it was|they were)))"
    r"\.?$",
    re.IGNORECASE,
)
SENTENCE_WORDS = 16
BLOCK_COMMENT = re.compile(r"^(\{\s*/\*|/\*+)(?P<body>.*?)(\*+/\s*\}|\*+/)$")
HTML_COMMENT = re.compile(r"^<!--(?P<body>.*?)-->$")
BRACKETED = re.compile(rf"^[\[(](?P<body>{ELLIPSIS}.*)[\])]$")  # [... rest of README unchanged ...]
# the block comments of OCaml and F# `(* *)`, Haskell and Elm `{- -}`, PowerShell `<# #>`, and of
# templates: Blade `{{-- --}}`, Handlebars `{{!-- --}}`, ERB `<%# %>` (Jinja's `{# #}` and the like are
# TEMPLATE_COMMENT, below)
PAIRED_COMMENT = re.compile(r"^(?:\(\*|\{-|<#|\{\{!?--|<%#)(?P<body>.*?)(?:\*\)|-\}|#>|--\}\}|%>)$")
# the comments of Jinja and Twig `{# #}`, Go templates `{{/* */}}` (trimmed too: `{{- /* */ -}}`),
# Mustache `{{! }}` and Liquid `{% comment %} {% endcomment %}`: markers to the hunk reader only,
# since the outline knows no `{% for %}` ... `{% endfor %}` blocks to place a snippet by
TEMPLATE_COMMENT = re.compile(
    r"^(?:\{#-?|\{\{-?\s*/\*|\{\{!(?!--)|\{%-?\s*comment\s*-?%\})(?P<body>.*?)"
    r"(?:-?#\}|\*/\s*-?\}\}|(?<!--)\}\}|\{%-?\s*endcomment\s*-?%\})$"
)


INLINE_MARKER = re.compile(
    rf"(/\*+|//+|#|<!--|\{{/\*)\s*({ELLIPSIS}|existing code|rest of (the )?\w+|remaining code|unchanged)",
    re.I,
)


def has_inline_marker(line: str) -> bool:
    """A line of code that carries an elision comment (`function f() { /* ... */ }`)."""
    return bool(INLINE_MARKER.search(line))


PYTHON_HEADER = re.compile(r"^\s*(?:async\s+)?(?:def|class)\b")


def elided_body(line: str) -> str | None:
    """The header of a line whose body is elided on the line itself, up to its opening `{` or `:`:
    `count(): number { /* ... */ }` -> `count(): number {`, `def f(x): ...` -> `def f(x):`.
    None for any other line."""
    text = line.rstrip()
    opener = "{"
    if PYTHON_HEADER.match(text):
        opener = ":"
    elif not text.endswith(("}", "};", "},", "*/", "...", "…")) and "//" not in text:
        return None
    position = text.rfind(opener)
    while position > 0:
        body = text[position + 1 :].strip()
        if opener == "{":
            body = body.removesuffix(",").removesuffix(";").removesuffix("}").strip()
        if body and is_marker(body):
            return text[: position + 1]
        position = text.rfind(opener, 0, position)
    return None


REMOVAL = re.compile(
    r"^((removed|deleted)\b|(remove|delete)d?:|(remove|delete|drop) (the )?([\w.()]+ )?"
    r"(function|method|class|field|import|property|block|section|rule|key|entry|line|handler|route)s?\b"
    r"|.*\b(removed|deleted)\W*$)",
    re.I,
)
REMOVAL_WORDS = 10
# code named as removed, then why, at any length: `legacyFormat() removed - no callers left`,
# `cmd_prune removed: ...` (a name with `()`, `_` or a capital inside: no plain word)
CODE_NAME = r"`?(?:[\w.$]+\(\)|[\w.$]*(?:_|[a-z][A-Z])[\w.$]*)`?"  # `parse()`, `parse_args`, `splitEntity`
NAMED_REMOVAL = re.compile(rf"^{CODE_NAME}\s+(?i:was\s+|has\s+been\s+)?(?i:removed|deleted|dropped)\b")

# a note that code moved, where it stood or above it at its new place: `resolveArgs moved up, it
# used to follow startProxy`, `moved parse_args() below` (no prose: `Focus moved to the dialog`)
MOVED_NAMES = r"`?[\w.$]+(?:\(\))?`?(?:(?:,\s*|\s+and\s+)`?[\w.$]+(?:\(\))?`?)*"  # `a`, `a() and b()`
MOVED = re.compile(
    rf"^(?:{MOVED_NAMES}\s+(?:was\s+|were\s+|has\s+been\s+|have\s+been\s+)?moved\s+(?:up|down|above|below|here)"
    rf"|(?-i:{CODE_NAME})\s+(?:was\s+)?moved\s+to\s+the\s+(?:top|bottom|end|start|beginning)"
    rf"|moved\s+{MOVED_NAMES}\s+(?:up|down|above|below|here|to))\b",
    re.I,
)
REMOVAL_FIRST = re.compile(r"(?i)(removed|deleted|dropped)\b")
REASON_AFTER = re.compile(r":\s|\s[-—–]\s")  # where a removal comment goes on to say why


def is_removal(line: str, line_comments: tuple[str, ...] = ("#", "//"), block_comments: bool = True) -> bool:
    """True when `line` says the code that stood here is deleted (`// removed: legacyInit()`) or
    moved (`// (resolveArgs moved up)`): it is never written, and it names what goes."""
    body = comment_body(line, line_comments, block_comments)
    if body is None:
        return False
    if NAMED_REMOVAL.match(body) or says_moved(body):
        return True
    # (opened by `removed`, why may run long after it: `removed fmtLong(): only the short ...`)
    said = removal_head(body) if REMOVAL_FIRST.match(body.lstrip("( ")) else body
    return len(said.split()) <= REMOVAL_WORDS and bool(REMOVAL.match(said.strip(".…() ")))


def removal_head(body: str) -> str:
    """What a removal comment says goes, less the reason after it: `removed fmtLong() and plural()`
    of `removed fmtLong() and plural(): only the short format is supported now` (all of `removed:
    legacy_init()`, whose colon follows the word alone)."""
    head = REASON_AFTER.split(body, maxsplit=1)[0]
    return head if len(NAMING_WORD.findall(head)) > 1 else body


def is_move_note(
    line: str, line_comments: tuple[str, ...] = ("#", "//"), block_comments: bool = True
) -> bool:
    """True when `line` says code moved (`// Delete moved up ...`): above code, it says that code
    moved here, so it describes no code the file keeps."""
    body = comment_body(line, line_comments, block_comments)
    return body is not None and says_moved(body)


def says_moved(body: str) -> bool:
    return MOVED.match(body.lstrip("( ")) is not None


DOC_LINE = re.compile(rf"^\*\s*{ELLIPSIS}")  # ` * ... docblock unchanged ...`: a block comment's line


def comment_body(line: str, line_comments: tuple[str, ...], block_comments: bool = True) -> str | None:
    """The text inside a whole-line comment, or None when the line is not only a comment."""
    text = line.strip()
    for pattern in (BLOCK_COMMENT, HTML_COMMENT, BRACKETED, PAIRED_COMMENT):
        if pattern is BLOCK_COMMENT and not block_comments and not text.startswith("{"):
            continue
        found = pattern.match(text)
        if found:
            return found.group("body").strip(" *-")
    for prefix in sorted(line_comments, key=len, reverse=True):
        if text.startswith(prefix):
            return text[len(prefix) :].lstrip(prefix[0]).strip()
    if block_comments and DOC_LINE.match(text):
        return text[1:].strip()  # a docblock's own line: ` * ... rest of the docblock ...`
    return None


# nouns that name code between ellipses only (`... imports and types ...`): as a comment of their
# own, "other options" is as likely a real comment
ELIDED_NOUNS = (
    r"types?|interfaces|hooks|state|effects|constants|variables|utils|models|schemas|views|columns"
    r"|options|flags|params|parameters|services|stages|targets|setup|declarations|specs|assertions"
)
CODE_NOUN = re.compile(rf"(?:{CODE_NOUNS}|{ELIDED_NOUNS})", re.I)
NOUN_FILLERS = frozenset({"all", "and", "the", "more", "other", "etc"})
MAX_NOUN_WORDS = 3


def names_code(body: str) -> bool:
    """`... imports ...`, `...other routes...`: besides its ellipses, a few words naming code."""
    words = re.findall(r"[A-Za-z]+", HAS_ELLIPSIS.sub(" ", body))
    return 0 < len(words) <= MAX_NOUN_WORDS and all(
        CODE_NOUN.fullmatch(word) or word.lower() in NOUN_FILLERS for word in words
    )


BETWEEN_ELLIPSES = re.compile(rf"^{ELLIPSIS}\s*(?P<words>\S.*?)\s*{ELLIPSIS}$")
# uncommented, as in prose: `... (existing content)`, `… rest of section`, `(existing content)`,
# `[rest of the README unchanged]`
OPENED_BY_ELLIPSIS = re.compile(
    rf"^(?:{ELLIPSIS}\s*\(?(?P<words>[^()]+?)\)?|\((?P<inside>[^()]+)\)|\[(?P<bracketed>[^\[\]]+)\])$"
)
MAX_BETWEEN_WORDS = 10
# an ellipsis, then the names of what it leaves out, two or more: `// ... billing, settings`
NAMES_LISTED = re.compile(rf"^{ELLIPSIS}\s*[\w$.()]+(?:\s*,\s*[\w$.()]+)+\s*{ELLIPSIS}?$")


def between_ellipses(body: str) -> bool:
    """`... ByRegion() ...`, `... build URL ...`, `... Bucket, refill(), rate_ ...`: a few words
    between two ellipses name what is left out. A real comment seldom both opens and closes with an
    ellipsis (10 in CPython's library and this machine's site-packages, all of them elisions in
    examples)."""
    found = BETWEEN_ELLIPSES.match(body)
    return found is not None and len(found.group("words").split()) <= MAX_BETWEEN_WORDS


def is_marker(line: str, line_comments: tuple[str, ...] = ("#", "//"), block_comments: bool = True) -> bool:
    """True when `line` stands for elided original code."""
    text = line.strip()
    if not text:
        return False
    if BARE_ELLIPSIS.match(text):
        return True
    body = comment_body(text, line_comments, block_comments)
    if body is None:
        # uncommented, as in plain text: `... (steps 1-2 unchanged) ...`, `... (existing content)`
        if between_ellipses(text):
            return bool(WEAK_PHRASE.search(text) or PHRASE.search(text))
        found = OPENED_BY_ELLIPSIS.match(text)
        words = found and (found.group("words") or found.group("inside") or found.group("bracketed"))
        return bool(words) and len(words.split()) <= SHORT_COMMENT_WORDS and PHRASE.search(words) is not None
    if BARE_ELLIPSIS.match(body) or SNIP.match(body) or (not body and HAS_ELLIPSIS.search(text)):
        return True
    if HAS_ELLIPSIS.search(body):
        return bool(
            WEAK_PHRASE.search(body)
            or PHRASE.search(body)
            or names_code(body)
            or between_ellipses(body)
            or NAMES_LISTED.match(body)
        )
    if text.startswith(DOC_COMMENT):
        return False  # documentation (`/** Omitted when not set. */`): a marker says `...` there
    words = len(body.split())
    if words <= SENTENCE_WORDS and SENTENCE.match(body):
        return True
    return words <= SHORT_COMMENT_WORDS and bool(PHRASE.search(body) or LEADING_PHRASE.match(body))


def is_template_marker(line: str) -> bool:
    """A template comment that stands for elided code: `{# ... #}`, `{{/* rest unchanged */}}`."""
    found = TEMPLATE_COMMENT.match(line.strip())
    return found is not None and is_marker("# " + found.group("body").strip(" *-"), ("#",))


PATH = re.compile(  # `app/models.py`, `File: app.ts`, `utils/text.py — drop legacy_clean`
    r"^(?:(?:file|filename|filepath|path)\s*:\s*)?[\w@~.-]*(?:/[\w@.-]+)*\.[A-Za-z][A-Za-z0-9]{0,7}"
    r"(?:\s+[—–-]\s+.*)?$",
    re.I,
)
# `PluginManager methods (src/pluggy/_manager.py)`: a few words, then a path with a folder in parentheses
NAMED_PATH = re.compile(r"^[\w .,:-]{1,40}\(\s*[\w@~.-]*(?:/[\w@.-]+)+\.[A-Za-z][A-Za-z0-9]{0,7}\s*\)$")


def is_path_comment(
    line: str, line_comments: tuple[str, ...] = ("#", "//"), block_comments: bool = True
) -> bool:
    """A comment that names a file, maybe with a note after a dash or before the file in
    parentheses: `// src/app.ts`, `# File: app/models.py`, `# utils/text.py — remove legacy_clean`,
    `# PluginManager methods (src/pluggy/_manager.py)`."""
    body = comment_body(line, line_comments, block_comments)
    if body is None or not any(c.isalpha() for c in body):
        return False
    return PATH.match(body) is not None or NAMED_PATH.match(body) is not None


def naming_words(line: str) -> set[str]:
    """The words by which a marker names the code it stands for (`// ... trailing swipe action
    unchanged ...`: trailing, swipe, action), lowercased, its stock phrasing left out."""
    words = {word.lower() for word in NAMING_WORD.findall(line)}
    return {word for word in words if word not in FILLER and word + "s" not in FILLER}
