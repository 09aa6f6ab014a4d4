"""Indentation: measure it, detect a file's unit (tab or N spaces), and re-indent snippet lines.

Columns count a tab as TAB_WIDTH; a unit is "\t" or a run of spaces.
"""

import re
from collections import Counter
from collections.abc import Container

TAB_WIDTH = 4
DEFAULT_UNIT = "    "
UNIT_SAMPLE_LINES = 400  # the unit is read from a file's first lines
MIXED_LINES = 5  # lines led by tabs, and by spaces, that make a file's indentation mixed


def leading(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def column(line: str) -> int:
    """Indentation column of `line`; -1 for a blank line."""
    rest = line.lstrip(" \t")
    if not rest or rest.isspace():
        return -1
    width = len(line) - len(rest)
    return width + line.count("\t", 0, width) * (TAB_WIDTH - 1)


def columns(lines: list[str], text: str | None = None) -> list[int]:
    """column() of every line, in one pass; `text`, holding all the lines, tells whether any has a tab."""
    if text is not None and "\t" not in text:
        return [
            -1
            if not (rest := line.lstrip(" ")) or (rest[0].isspace() and rest.isspace())
            else len(line) - len(rest)
            for line in lines
        ]
    found = []
    for line in lines:
        rest = line.lstrip(" \t")
        if not rest or rest.isspace():
            found.append(-1)
        elif len(rest) == len(line):
            found.append(0)
        else:
            width = len(line) - len(rest)
            found.append(width + line.count("\t", 0, width) * (TAB_WIDTH - 1))
    return found


# C++'s `public:`, often half a unit in (Google's style): no step of the file's indentation
ACCESS_LABEL = re.compile(
    r"^\s*(public|protected|private|signals|Q_SIGNALS|(public |protected |private )?(slots|Q_SLOTS))\s*:\s*$"
)


def indent_unit(
    lines: list[str], text: str | None = None, strings: Container[int] = (), prefer: str | None = None
) -> str | None:
    """The file's indentation unit, or None when no line is indented. `text` holds all the lines
    (without a tab in it, the unit is read from the columns alone); `strings` are lines inside
    multi-line strings, whose indentation is the text's own (a JSON document in a Java text block);
    `prefer`: the unit taken when two steps are seen equally often, or when block bodies step by
    it (a snippet's: the original's)."""
    if text is not None and "\t" not in text:
        sample = lines[:UNIT_SAMPLE_LINES]
        widths = [
            -1 if k in strings or ACCESS_LABEL.match(sample[k]) else width
            for k, width in enumerate(columns(sample, text))
        ]
        bodies = {k for k in range(1, len(sample)) if sample[k - 1].rstrip().endswith((":", "{"))}
        return space_unit(widths, bodies, prefer)
    tabs = spaces = 0
    steps: Counter[int] = Counter()
    previous = 0
    for k, line in enumerate(lines[:UNIT_SAMPLE_LINES]):
        if k in strings:
            continue
        rest = line.lstrip(" \t")
        if not rest or rest.isspace():
            continue
        width = len(line) - len(rest)
        if width == 1 and rest[0] == "*":
            continue  # ` * ...` inside a block comment at column 0 (a licence header): no indentation
        if width and line[0] == "\t":
            tabs += 1
            width = previous
        elif width:
            spaces += 1
            if "\t" in line[:width]:
                width = previous
            elif width > previous:
                steps[width - previous] += 1
        previous = width
    if tabs == 0 and spaces == 0:
        return None
    if tabs >= spaces:
        return "\t"
    return most_often(steps, prefer)


def most_often(steps: Counter[int], prefer: str | None) -> str:
    """The plausible step seen most often: on a tie `prefer`'s, else the smaller."""
    plausible = [
        (count, step == len(prefer or ""), -step) for step, count in steps.items() if step in (2, 3, 4, 8)
    ]
    return " " * -max(plausible)[2] if plausible else DEFAULT_UNIT


def steps_by_one_space(lines: list[str]) -> bool:
    """Whether most steps deeper are of one space (a JSON file written one space a level, which
    indent_unit() does not take for a unit: in code a one-space step is a continuation or a
    comment's ` * `)."""
    steps: Counter[int] = Counter()
    previous = 0
    for line in lines[:UNIT_SAMPLE_LINES]:
        if not line.strip():
            continue
        width = len(line) - len(line.lstrip(" "))
        if width > previous:
            steps[width - previous] += 1
        previous = width
    return steps[1] > 2 * sum(steps.values()) / 3


def mixed_indentation(lines: list[str]) -> bool:
    """Whether some lines are indented by tabs and others by spaces alone (Emacs's style: a tab
    for each 8 columns, spaces for the rest), so a tab is no unit of its own."""
    tabs = spaces = 0
    for line in lines[:UNIT_SAMPLE_LINES]:
        tabs += line.startswith("\t")
        spaces += line.startswith("  ") and bool(line.strip()) and not line.lstrip().startswith("*")
    return tabs >= MIXED_LINES and spaces >= MIXED_LINES


def space_unit(widths: list[int], bodies: Container[int] = (), prefer: str | None = None) -> str | None:
    """indent_unit() of lines indented by spaces alone, from their columns (-1: blank). A step
    down to one of `bodies` (a line below one ending in `:` or `{`) counts twice: a block's body
    stands a unit deeper, where a continuation line may stand where it aligns."""
    steps: Counter[int] = Counter()
    body_steps: Counter[int] = Counter()
    previous = indented = 0
    for k, width in enumerate(widths):
        if width < 0:
            continue
        indented += width > 0
        if width > previous:
            steps[width - previous] += 2 if k in bodies else 1
            body_steps[width - previous] += k in bodies
        previous = width
    if not indented:
        return None
    if prefer and +body_steps and most_often(body_steps, prefer) == prefer:
        return prefer  # bodies a unit deeper, as in the original: deeper steps are continuation lines
    return most_often(steps, prefer)


def levels(ws: str, unit: str) -> tuple[int, int]:
    """(whole units, remaining spaces) in a run of leading whitespace."""
    if unit == "\t":
        spaces = len(ws) - ws.count("\t")
        return ws.count("\t") + spaces // TAB_WIDTH, spaces % TAB_WIDTH
    width = len(ws) + ws.count("\t") * (len(unit) - 1)
    return divmod(width, len(unit))


class Reindent:
    """Maps snippet indentation onto the original's: `snippet_base` lands on `original_base`, and
    each snippet unit deeper becomes one original unit deeper."""

    def __init__(self, snippet_base: str, original_base: str, snippet_unit: str, original_unit: str) -> None:
        self.snippet_base = snippet_base
        self.original_base = original_base
        self.snippet_unit = snippet_unit
        self.original_unit = original_unit
        self.identity = snippet_base == original_base and snippet_unit == original_unit

    def deeper(self, indent: str) -> "Reindent":
        """The same mapping onto lines `indent` deeper in the original."""
        return Reindent(self.snippet_base, self.original_base + indent, self.snippet_unit, self.original_unit)

    def apply(self, line: str) -> str:
        if self.identity:
            return line
        ws = leading(line)
        rest = line[len(ws) :]
        if not rest:
            return ""
        depth, extra = levels(ws, self.snippet_unit)
        base_depth, base_extra = levels(self.snippet_base, self.snippet_unit)
        target_depth, target_extra = levels(self.original_base, self.original_unit)
        depth = max(0, target_depth + depth - base_depth)
        extra = max(0, extra - base_extra + target_extra)
        return self.original_unit * depth + " " * extra + rest
