"""Minimal TextEdits that turn one text into another, with LSP positions in any negotiated encoding.

The diff is by lines (difflib opcodes); each changed block is then trimmed to the characters that
really differ, so a one-word change sends a one-word edit. All edits refer to the *original* text,
never overlap, and are listed in document order, as `workspace/applyEdit` requires.

Positions count code units of the negotiated encoding: UTF-16 (the LSP default: an astral
character such as an emoji counts 2), UTF-8 (bytes) or UTF-32 (code points). Line breaks are the
LSP's three: "\\n", "\\r\\n" and "\\r"; an offset never falls between "\\r" and "\\n".
"""

import bisect
import difflib
import re

from lsprotocol.types import Position, PositionEncodingKind, Range, TextEdit

LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """Lines with their line breaks kept; "a\\r\\nb" -> ["a\\r\\n", "b"]. Empty text has no lines."""
    lines = []
    start = 0
    for match in LINE_BREAK.finditer(text):
        lines.append(text[start : match.end()])
        start = match.end()
    if start < len(text):
        lines.append(text[start:])
    return lines


def code_units(text: str, encoding: str) -> int:
    """Length of `text` in the code units of a position encoding."""
    if encoding == PositionEncodingKind.Utf8:
        return len(text.encode("utf-8"))
    if encoding == PositionEncodingKind.Utf32:
        return len(text)
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def units_to_chars(line: str, units: int, encoding: str) -> int:
    """Inverse of code_units over one line: the code-point offset that `units` code units reach.

    A count that lands inside a character or past the line's end is clamped, as the LSP asks.
    """
    seen = 0
    for index, char in enumerate(line):
        seen += code_units(char, encoding)
        if char in "\r\n" or seen > units:
            return index
    return len(line)


class LineIndex:
    """Offset <-> Position conversion over one text (offsets are Python str indices)."""

    def __init__(self, text: str, encoding: str = PositionEncodingKind.Utf16) -> None:
        self.text = text
        self.encoding = encoding
        self.starts = [0]
        for match in LINE_BREAK.finditer(text):
            self.starts.append(match.end())

    def position(self, offset: int) -> Position:
        line = bisect.bisect_right(self.starts, offset) - 1
        start = self.starts[line]
        return Position(line=line, character=code_units(self.text[start:offset], self.encoding))

    def offset(self, position: Position) -> int:
        if position.line >= len(self.starts):
            return len(self.text)
        start = self.starts[position.line]
        end = self.starts[position.line + 1] if position.line + 1 < len(self.starts) else len(self.text)
        return start + units_to_chars(self.text[start:end], position.character, self.encoding)


def common_prefix(a: str, b: str) -> int:
    n = 0
    limit = min(len(a), len(b))
    while n < limit and a[n] == b[n]:
        n += 1
    # Never cut a "\r\n" pair in two: a position between them is not a valid LSP position.
    if n > 0 and a[n - 1] == "\r" and a[n : n + 1] == "\n":
        n -= 1
    return n


def common_suffix(a: str, b: str, prefix: int) -> int:
    n = 0
    limit = min(len(a), len(b)) - prefix
    while n < limit and a[len(a) - 1 - n] == b[len(b) - 1 - n]:
        n += 1
    if n > 0 and a[len(a) - n] == "\n" and len(a) - n - 1 >= prefix and a[len(a) - n - 1] == "\r":
        n -= 1
    return n


def line_offsets(lines: list[str]) -> list[int]:
    """Offsets at which each line starts, plus the text's end: len == len(lines) + 1."""
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    return offsets


def diff_edits(old: str, new: str, encoding: str = PositionEncodingKind.Utf16) -> list[TextEdit]:
    """TextEdits (against `old`) that turn `old` into `new`; [] when they are equal."""
    # 1. Line diff: which blocks of whole lines differ.
    old_lines, new_lines = split_lines(old), split_lines(new)
    old_at, new_at = line_offsets(old_lines), line_offsets(new_lines)
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    index = LineIndex(old, encoding)
    edits = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        # 2. Trim each block to the characters that differ.
        start, end = old_at[i1], old_at[i2]
        replaced, inserted = old[start:end], new[new_at[j1] : new_at[j2]]
        prefix = common_prefix(replaced, inserted)
        suffix = common_suffix(replaced, inserted, prefix)
        # 3. Convert offsets to positions in the negotiated encoding.
        edit_range = Range(start=index.position(start + prefix), end=index.position(end - suffix))
        edits.append(TextEdit(range=edit_range, new_text=inserted[prefix : len(inserted) - suffix]))
    return edits


def apply_edits(text: str, edits: list[TextEdit], encoding: str = PositionEncodingKind.Utf16) -> str:
    """Apply non-overlapping TextEdits (all against `text`) as a client does."""
    index = LineIndex(text, encoding)
    spans = sorted(
        ((index.offset(e.range.start), index.offset(e.range.end), e.new_text) for e in edits),
        key=lambda span: span[:2],
    )
    parts = []
    cursor = 0
    for start, end, new_text in spans:
        if start < cursor:
            raise ValueError(f"overlapping edits at offset {start}")
        parts.append(text[cursor:start])
        parts.append(new_text)
        cursor = end
    parts.append(text[cursor:])
    return "".join(parts)
