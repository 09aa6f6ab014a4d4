"""Lazy-marker detection: a table of lines and whether each stands for elided code."""

import pytest

from apply_engine.languages import has_block_comments, line_comment_prefixes
from apply_engine.markers import (
    elided_body,
    has_inline_marker,
    is_marker,
    is_path_comment,
    is_removal,
    is_template_marker,
    naming_words,
)

MARKERS = [
    ("python", "# ... existing code ..."),
    ("python", "    # ..."),
    ("python", "# rest of the file unchanged"),
    ("python", "# ... remaining methods ..."),
    ("python", "# other functions unchanged"),
    ("python", "..."),
    ("python", "    …"),
    ("ruby", "# ... keep existing code"),
    ("bash", "# ... rest of script ..."),
    ("yaml", "# ... existing keys ..."),
    ("toml", "# ..."),
    ("javascript", "// ... existing code ..."),
    ("typescript", "  /** ... existing options ... */"),  # a doc comment with an ellipsis still is one
    ("javascript", "// ...rest of file"),
    ("javascript", "/* ... */"),
    ("javascript", "{/* ... rest of component ... */}"),
    ("tsx", "      {/* ... existing JSX ... */}"),
    ("tsx", "      {/* existing JSX */}"),
    ("typescript", "// same as before"),
    ("go", "\t// ..."),
    ("rust", "// ... other impls ..."),
    ("java", "// ... existing methods ..."),
    ("c", "/* ... unchanged ... */"),
    ("cpp", "// keep existing includes"),
    ("csharp", "// ... rest of class ..."),
    ("php", "// ... existing code ..."),
    ("php", "# ... existing code ..."),
    ("kotlin", "// ... existing code ..."),
    ("swift", "// ..."),
    ("css", "/* ... existing rules ... */"),
    ("html", "<!-- ... -->"),
    ("html", "  <!-- ... existing items ... -->"),
    ("markdown", "<!-- ... rest unchanged ... -->"),
    ("markdown", "[... rest of README unchanged ...]"),
    ("json", "..."),
    ("text", "// ... existing code ..."),
    ("text", ".. rest of changelog unchanged"),  # a reStructuredText comment
    ("markdown", "... (existing content)"),  # uncommented, as in prose
    ("markdown", "(existing content)"),
    ("text", "… rest of section"),
    ("markdown", "[rest of the README unchanged]"),
    ("python", "# ... imports ..."),
    ("go", "\t// ...other routes..."),
    ("java", "    // ... fields and methods ..."),
    ("go", "// … snip …"),
    ("tsx", "// ... imports and types ..."),
    ("python", "# ... constants and models ..."),
    ("python", "# ... loading data ..."),
    ("csharp", "        // ... ByRegion() ..."),
    ("cpp", "    // ... Bucket, refill(), rate_, burst_, mutex_ ..."),
    ("swift", "// ... build URL ..."),
    ("ruby", "  # ... lets and #add examples ..."),
    ("javascript", "// [...]"),
    ("python", "# [...]"),
    ("c", "/* snip */"),
    ("python", "# <snip>"),
    ("go", "// etc."),
    ("php", "        // The rest of addLine() and the remaining methods stay exactly as they are."),
    ("typescript", "// Everything below this point stays the same"),
    ("php", "{{-- ... header and customer section unchanged ... --}}"),  # Blade
    ("html", "  {{!-- ... other rows ... --}}"),  # Handlebars
    ("ruby", "<%# ... existing fields ... %>"),  # ERB
    ("php", "   * ... docblock unchanged ..."),  # a docblock's own line
    ("java", " * ... (licence text unchanged) ..."),
    ("tsx", "  // ... billing, settings"),  # what it leaves out, named
    ("python", "    # ... load_config(), save_config() ..."),
]

NOT_MARKERS = [
    ("python", "x = compute(1, 2)"),
    ("python", "# compute the totals"),
    ("python", "# TODO: existing bug in parser"),
    ("python", "return ..."),
    ("python", "# Wait for more data..."),
    ("python", ""),
    ("javascript", "const rest = { ...defaults, ...options };"),
    ("javascript", "  ...rest,"),
    ("javascript", "// Keep the timer running while the tab is hidden."),
    ("c", "#include <stdio.h>"),
    ("css", "color: red;"),
    ("html", "<!-- navigation -->"),
    ("markdown", "Some text that trails off..."),
    ("python", "# ... and then it retries once more"),
    ("python", "# other options"),
    ("python", "# Types"),
    ("python", "# snippet"),
    ("javascript", "// etc. are handled below"),
    ("php", "// Append to the existing lines; line numbers are never reused, even"),
    ("c", "/* the rest of the buffer is left unchanged after the copy completes */"),
    ("php", "{{-- order summary --}}"),
    ("svelte", "{#each items as item}"),
    ("text", ".. note:: The rest of the options are unchanged since 2.0."),  # an RST directive
    ("markdown", "... and then it returns"),
    ("markdown", "(see figure 2)"),
    ("markdown", "[the other link]"),
    ("typescript", "  /** Value for the User-Agent header; omitted when not set. */"),  # documentation
    ("rust", "/// Unchanged fields are kept as they are."),
    ("php", "   * ... and then it retries once more."),  # a docblock's prose, trailing off
    ("c", "    * ptr = value; /* ... */"),  # code, its comment at the end
    ("python", " * ... rest unchanged ..."),  # no block comments: a product's continuation?
    ("python", "# ... and then, finally, it stops"),  # prose trailing off, no list of names
]


def detect(language: str, line: str) -> bool:
    return is_marker(line, line_comment_prefixes(language), has_block_comments(language))


@pytest.mark.parametrize(("language", "line"), MARKERS)
def test_marker_lines_are_markers(language: str, line: str) -> None:
    assert detect(language, line)


@pytest.mark.parametrize(("language", "line"), NOT_MARKERS)
def test_code_and_ordinary_comments_are_not_markers(language: str, line: str) -> None:
    assert not detect(language, line)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("function load() { /* ... */ }", True),
        ("<ul>{/* ... */}</ul>", True),
        ("x = 1  # rest of the logic below", True),
        ("x = 1  # the counter", False),
        ("a = b // c", False),
        ('url = "http://example.com"', False),
        ("func (s *Server) Start() error { /* unchanged */ }", True),
        ("const merged = { ...defaults };", False),
    ],
)
def test_elision_comments_at_the_end_of_code_lines(line: str, expected: bool) -> None:
    assert has_inline_marker(line) == expected


def test_a_hash_is_not_a_comment_in_javascript() -> None:
    assert not detect("javascript", "# ... existing code ...")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("# removed: legacy_init()", True),
        ("// deleted the parse function", True),
        ("// remove the helper function", True),
        ("# old_handler removed", True),
        ("// legacyFormatDate() removed - the v1 email templates are gone, no callers left", True),
        ("# cmd_prune removed: pruning now runs from the scheduler, once a night", True),
        ("# (removed deprecated load_legacy_config)", True),
        ("// loadLegacyConfig was removed because boot.ts reads the new file format now", True),
        ("# Stale entries removed: the cache is rebuilt on every start of the worker", False),
        ("// token removed from the session when the user logs out, see #412", False),
        ("# Remove duplicates", False),
        ("// delete temp files before exit", False),
        ("x = remove(y)", False),
        ("// (resolveArgs moved up, it used to follow startProxy at the end of the file)", True),
        ("// Delete moved up so it sits with the other write methods.", True),
        ("# moved parse_args() below", True),
        ("// Focus moved to the dialog once it opens", False),
        ("# the cursor is moved up one line", False),
        ("// removed fmtLong() and plural(): only the short format is supported now", True),  # why, after
        ("// (moved find_head_end and parse_header above parse_request)", True),  # two names
        ("// (splitEntity moved to the top; the unimplemented cmd.edit stub is deleted)", True),
        ("# Stale entries removed: the cache is rebuilt on every start of the worker and more", False),
        ("// Focus moved to the top of the list when it opens", False),  # a plain word, no code's name
    ],
)
def test_removal_comments(line: str, expected: bool) -> None:
    assert is_removal(line) == expected


@pytest.mark.parametrize(
    ("line", "header"),
    [
        ("def load(path: Path) -> dict: ...", "def load(path: Path) -> dict:"),
        ("    async def run(self):  # ... existing code ...", "    async def run(self):"),
        ("  constructor(items: string[]) { /* ... */ }", "  constructor(items: string[]) {"),
        ("function f({ a, b }) { // ... }", "function f({ a, b }) {"),
        ("fn new() -> Self { ... }", "fn new() -> Self {"),
        ("if (ready) { start(); }", None),
        ("def f(): return 1", None),
    ],
)
def test_a_body_elided_on_its_header_line_leaves_the_header(line: str, header: str | None) -> None:
    assert elided_body(line) == header


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("// src/todo-store.ts", True),
        ("# File: app/models.py", True),
        ("<!-- index.html -->", True),
        ("# v1.2", False),
        ("// see docs/readme.md for details", False),
        ("# -*- coding: utf-8 -*-", False),
        ("# utils/text.py — remove legacy_clean (no callers left)", True),
        ("// api.ts - add a timeout", True),
        ("# setup.py-like helpers", False),
        ("# PluginManager methods (src/pluggy/_manager.py)", True),
        ("# helpers for the CLI (see cli.py)", False),
        ("# load the config (config.toml)", False),
    ],
)
def test_a_comment_naming_a_file_maybe_with_a_note(line: str, expected: bool) -> None:
    assert is_path_comment(line) == expected


@pytest.mark.parametrize(
    ("line", "words"),
    [
        (
            "// ... row, tap gesture and trailing swipe action unchanged ...",
            {"row", "tap", "gesture", "trailing", "swipe", "action"},
        ),
        ("// ... existing code ...", set()),
        ("# ... rest of the file, imports and tests unchanged ...", set()),
        ("<!-- ... filter buttons ... -->", {"filter", "buttons"}),
        ("// ... validate, apply_discount unchanged ...", {"validate", "apply_discount"}),
    ],
)
def test_the_words_a_marker_names_code_by_leave_its_stock_phrasing_out(line: str, words: set[str]) -> None:
    assert naming_words(line) == words


@pytest.mark.parametrize(
    "line",
    [
        "{# ... #}",
        "{# rest of template unchanged #}",
        "{#- ... existing blocks ... -#}",
        "{{/* ... */}}",
        "{{- /* ... existing rules ... */ -}}",
        "{{! ... }}",
        "{% comment %} ... {% endcomment %}",
    ],
)
def test_template_comments_that_elide_are_template_markers(line: str) -> None:
    assert is_template_marker(line)
    assert not is_marker(line, ("#",))  # to the outline they stay content: it knows no `{% for %}` blocks


@pytest.mark.parametrize(
    "line", ["{{ .Values.image }}", "{# the sidebar needs the user #}", "{{!-- ... --}}", "{% if user %}"]
)
def test_template_lines_that_elide_nothing_are_no_template_markers(line: str) -> None:
    assert not is_template_marker(line)
