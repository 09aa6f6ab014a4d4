"""The last resort for a snippet of several hunks: each run of lines between markers placed by its
own context, as a unified diff without its minus lines would be.

The structural alignment reads a snippet as a tree; a snippet that jumps from deep inside one
function to deep inside another, with one marker between (`if err := cmd.Run(); err != nil {`,
`// ...`, `c.Args[idx] = rurl.String()`), is no tree. Read as hunks it is plain: each hunk opens and
closes on lines of the original (its anchors), what it shows between them replaces what the
original has there, and each marker stands for the original between two hunks.

A hunk may have one anchor only: new code below its context, the marker after it eliding the rest
(`self.unfinished_tasks = 0`, `self.wait_count = 0`, `# ...`), or above it. Such code must be new:
no line of it like the original line beside it, none standing in the original close by.

The reading must be the only one: each hunk goes in exactly one place after the hunk before it, at
the first match of its top anchor; it deletes nothing, and rewrites only a few original lines
between its anchors, each like a line it shows, where no reading as new code fits as well."""

import re
from collections import Counter
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from difflib import SequenceMatcher

from .align import Copy, Insert, Op, letters
from .indent import DEFAULT_UNIT, Reindent, leading
from .markers import naming_words

MAX_OPENINGS = 64  # original lines a hunk may open on: past that its first line says too little
MAX_REWRITTEN = 3  # original lines one hunk may rewrite between its anchors
COPIED_WITHIN = 30  # lines about a one-sided hunk's anchor where the code it adds must not stand,
# nor code like it on its open side
MIN_TELLING = 4  # letters and digits of a line that tells places apart (`}`, `fi`: none)
LIKENESS = 0.6  # how alike a rewritten line and the line that replaces it must be
# anchors agree with the original to the byte, so the new lines between them stand as shown
AS_SHOWN = Reindent("", "", DEFAULT_UNIT, DEFAULT_UNIT)
OPENS = re.compile(r"[{(\[]\s*$|^\s*<[\w.:-]+(\s[^<>]*)?(?<!/)>\s*$")  # `type Pause {`, `<li>`
# `}`, `</li>`, Ruby's `end`, shell's `done` (not `end = width`)
CLOSES = re.compile(r"\s*([})\]]|</|(end|done|fi|esac)\b[\s;),.]*$)")
CLOSING = ",;:)]} "  # what ends a line, and moves to a new last line (a separator, a call's `):`)
# an assignment's target: `tax =`, `val url =`, `if hconn, err =` (not `==`, `=>`, `+=`, a keyword
# argument, a markup attribute)
ASSIGNED = re.compile(r"^(?!\s*<|\s*[\w:.-]+=\")\s*([\w$.\[\]\s,:<>-]+?)\s*(?<![=!<>+\-*/%&|^])=(?![=>])")
# words of an assignment's target that declare, naming nothing assigned (`val`, `let mut`)
DECLARING = {"val", "var", "let", "const", "final", "auto", "my", "our", "local", "static", "mut"}
OPENING_TAG = re.compile(r"<([A-Za-z][\w:.-]*)(?:\s[^<>]*)?(?<!/)>")  # `<tr>`, `<td class="x">`, not `<br/>`
CLOSING_TAG = re.compile(r"</([A-Za-z][\w:.-]*)\s*>")
VOID_TAGS = frozenset(
    ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]
)
RETOUCHED_TOKENS = 12  # tokens of a line long enough that a value changed in it leaves it the same line
MAX_RETOUCHED = 3  # tokens such a change may take
RETOUCHED_KEPT = 0.8  # and the share of the line's tokens it keeps
REWRITTEN_ALONE = 0.8  # how alike a lone hunk's line must be to the one original line it rewrites
REWORDED = 0.75  # how alike a string of prose must stay to be the same message reworded
PROSE_WORDS = 4  # words, apart by spaces, in a string of prose
# a field set in a struct or a mapping: `reason: `, `'retry_after' =>` (PHP, Ruby, Perl)
FIELD = re.compile(r"^\s*[\w$\"'-]+(?::(?!:)|\s*=>)(?=\s+\S)")
CHAIN = 3  # look-alike blocks that make a chain, to which one more is added, not rewritten
COMMENT_LINE = re.compile(r"\s*(#|//|/\*|\*|<!--|--\s)")  # a comment's line, in most languages
WORD = re.compile(r"\w+")
TOKEN = re.compile(r"\w+|\S")
QUOTED = re.compile(r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'""")  # its brackets count for nothing
LITERAL_TOKEN = re.compile(QUOTED.pattern + r"|\w+|\S")  # a quoted string is one token


Rewrite = tuple[list[str], list[str]]  # original lines, and the lines that replace them
# a reading with a bottom anchor: lines it writes, (where that anchor starts, its length), steps, rewrites
Reading = tuple[int, tuple[int, int], list[Copy | range], list[Rewrite]]


@dataclass(frozen=True)
class Placed:
    """A hunk put in the original: it spans original lines [start, end), opens on `top` lines that
    agree with the original, and writes `ops` there."""

    start: int
    end: int
    top: int
    ops: list[Op]
    renamed: tuple[str, str] | None = None  # (old name, new name), where it renames one
    anchor: int | None = None  # where its top anchor starts, where that is not `start`
    one_sided: bool = False  # placed by its top anchor alone, the marker below eliding the rest


def plan_hunks(
    original: Sequence[str], snippet: Sequence[str], markers: set[int], one_run: bool = False
) -> list[Op] | None:
    """Copy and Insert ops that apply each hunk in its one place, or None where any hunk has none
    or several. One run of code is the alignment's to place, unless `one_run`."""
    runs = runs_between(snippet, markers)
    if not runs or (len(runs) < 2 and not one_run):
        return None
    return Hunks(original, snippet).plan(runs)


def runs_between(lines: Sequence[str], markers: set[int]) -> list[range]:
    """The runs of snippet lines between markers, less the blank lines at their edges."""
    runs, start = [], 0
    for k in [*sorted(markers), len(lines)]:
        shown = [j for j in range(start, k) if lines[j].strip()]
        if shown:
            runs.append(range(shown[0], shown[-1] + 1))
        start = k + 1
    return runs


class Hunks:
    """Places hunks in one original, compared line by line less trailing whitespace."""

    def __init__(self, original: Sequence[str], snippet: Sequence[str]) -> None:
        self.lines = [line.rstrip() for line in original]
        self.snippet = snippet
        self.words = set(WORD.findall("\n".join(self.lines)))
        self.shown_words = Counter(word for line in snippet for word in set(WORD.findall(line)))
        self.openers = Counter(opened_by(line) for line in self.lines)
        self.where: dict[str, list[int]] = {}
        for k, line in enumerate(self.lines):
            self.where.setdefault(line, []).append(k)

    def plan(self, runs: list[range]) -> list[Op] | None:
        snippet = self.snippet
        ops: list[Op] = []
        at, marker = 0, None
        renamed: set[tuple[str, str]] = set()
        for run in runs:
            shown = [snippet[k].rstrip() for k in run]
            opening = [p for p in self.where.get(shown[0], []) if p >= at]
            if len(opening) > MAX_OPENINGS:
                return None
            places = [placed for p in opening if (placed := self.place(shown, run, p)) is not None]
            if not opening:
                places = self.topless(shown, run, at)
            if (
                len(places) != 1
                or self.passed_over(at, places[0])
                or self.anchored_twice(shown, opening, places[0])
            ):
                return None
            if marker is not None and self.closes_what_it_left(marker, range(at, places[0].start), shown):
                return None
            ops += [Copy(at, places[0].start), *places[0].ops]
            renamed |= {places[0].renamed} - {None}
            at = places[0].end
            marker = next((line for line in snippet[run.stop :] if line.strip()), None)  # the one below
        if not any(isinstance(op, Insert) for op in ops):
            return None  # nothing new: what the snippet says is what it leaves out (deleted? elided?)
        ops.append(Copy(at, len(self.lines)))
        if renamed and self.kept(renamed, ops):
            return None  # a name renamed in the lines shown, yet kept in lines elided: rename those?
        return ops

    def kept(self, renamed: set[tuple[str, str]], ops: list[Op]) -> bool:
        """Whether a name the hunks rename still stands in the original lines the plan keeps."""
        kept = {
            word
            for op in ops
            if isinstance(op, Copy)
            for k in range(op.start, op.end)
            for word in WORD.findall(self.lines[k])
        }
        return any(old in kept for old, _ in renamed)

    def closes_what_it_left(self, marker: str, elided: range, shown: list[str]) -> bool:
        """Whether a marker read as eliding past the end of the block it stands in (a closer less
        indented than it; not a `) {` that goes on into the body) is followed by a closer at that
        end's depth before any other line as shallow: a `done` the snippet shows closing the loop
        the marker was in, which the reading makes another loop's."""
        depth = len(leading(marker))
        end = next((line for line in self.lines[elided.start : elided.stop] if shallower(line, depth)), None)
        first = next((line for line in shown if line.strip() and len(leading(line)) < depth), None)
        return (
            end is not None and first is not None and ends(first) and len(leading(first)) == len(leading(end))
        )

    def anchored_twice(self, shown: list[str], opening: list[int], placed: Placed) -> bool:
        """Whether a hunk placed by its top anchor alone has that whole anchor in another place
        too: new code below a query and its error check that two functions share goes below
        either (the rules that turn the other place down judge the new code, not where it goes)."""
        top = shown[: placed.top]
        return placed.one_sided and any(
            p != placed.start and self.lines[p : p + len(top)] == top for p in opening
        )

    def passed_over(self, at: int, placed: Placed) -> bool:
        """Whether the hunk's top anchor stands whole between the hunk above and its place: a marker
        read as eliding past the nearest match of the lines shown after it is no reading to rely on."""
        anchor = placed.start if placed.anchor is None else placed.anchor
        top = self.lines[anchor : anchor + placed.top]
        return bool(top) and any(self.lines[k : k + len(top)] == top for k in range(at, placed.start))

    def place(self, shown: list[str], run: range, p: int) -> Placed | None:
        """The hunk `shown` (snippet lines `run`) opening on original line p: its top anchor runs as
        far as it agrees with the original; its bottom anchor is the longest tail of it that the
        original has a few lines further on. Between them the hunk's lines replace the original's.
        With no bottom anchor, what follows the top one is new code."""
        top = 0
        while top < len(shown) and p + top < len(self.lines) and self.lines[p + top] == shown[top]:
            top += 1
        if top == len(shown):
            return Placed(p, p + top, top, [Copy(p, p + top)])
        readings = self.readings(shown, p, top)
        if readings:
            return self.best(readings, shown, run, p, top)
        return self.bottomless(shown, run, p, top)

    def readings(self, shown: list[str], p: int, top: int) -> list[Reading]:
        """The hunk's readings with a bottom anchor: (lines written, bottom anchor, steps, rewrites)."""
        found = []
        for q, tail in self.bottoms(shown, p, top) or self.restated_bottoms(shown, p, top):
            new = shown[top : len(shown) - tail]
            if len(set(self.lines[p + top : q]).difference(new)) > max(MAX_REWRITTEN, (q - p - top) // 2):
                continue  # (a quick look: more original lines than may be rewritten are not shown)
            between = self.interior(range(p + top, q), new)
            if between is None:
                continue
            steps, rewrites = between
            added = [new[j] for step in steps if isinstance(step, range) for j in step]
            found.append((len(added), (q, tail), steps, rewrites))
        return found

    def restated_bottoms(self, shown: list[str], p: int, top: int) -> list[tuple[int, int]]:
        """Where a hunk with no bottom anchor ends on a line that restates an original one a few
        lines below its top anchor (`val values = List(..., InApp)` below a new `case object
        InApp`): the hunk's lines end there, that line written over the original."""
        if any(q >= p + top for q in self.where.get(shown[-1], [])):
            return []  # an original line further on, as it stands: that line, no rewrite of one here
        return [
            (q + 1, 0)
            for q in range(p + top, min(p + len(shown) + MAX_REWRITTEN, len(self.lines)))
            if restated(self.lines[q], shown[-1])
        ]

    def best(self, readings: list[Reading], shown: list[str], run: range, p: int, top: int) -> Placed | None:
        """The reading that keeps the most original lines (a cell added and a `colspan` rewritten,
        not a whole row added above the one it rewrites), unless it rewrites lines that also read
        as a new block (not where all it does is give a literal another value: `if (str.length >
        200) {` over `return;` is the original `if`, not one more)."""
        _, (q, tail), steps, rewrites = min(readings, key=lambda reading: reading[0])
        rename = self.rename_in(rewrites)
        revalued_only = all(
            len(before) == len(after) == 1 and revalued(before[0], after[0]) for before, after in rewrites
        )
        if rewrites and rename is None and not revalued_only and self.reads_as_new(shown, p, top):
            return None  # lines rewritten between anchors, or new code after the top one?
        at = run.start + top
        ops = [
            step if isinstance(step, Copy) else Insert(at + step.start, at + step.stop, AS_SHOWN)
            for step in steps
        ]
        return Placed(p, q + tail, top, [Copy(p, p + top), *ops, Copy(q, q + tail)], rename)

    def bottomless(self, shown: list[str], run: range, p: int, top: int) -> Placed | None:
        """The hunk read as new code right below its top anchor, the marker after it eliding the
        rest, less its first lines where they edit the original's below it (edits_below). The
        original's blank lines that end the anchor stand again below the new code."""
        edited, rename = self.edits_below(shown[top:], p + top, self.named_below(run))
        new = shown[top + edited :]
        if new and not edited and not balanced(new):
            # the new code opens where its brackets balance: a new `<tr>` row after a `</tr>`, not
            # after the next row's `<tr>` the top anchor ran on into
            top = next((t for t in range(top - 1, 0, -1) if balanced(shown[t:])), top)
            new = shown[top:]
        if not telling(shown[:top]) or (
            new
            and (
                self.rewrites(new, range(p + top + edited, p + top + edited + COPIED_WITHIN))
                or self.copies(new, p, appended=self.appended(run, p + top + edited))
            )
        ):
            return None
        blank = next(k for k in range(top, -1, -1) if k == 0 or shown[k - 1].strip())
        again = [Copy(p + blank, p + top)] if blank < top and not edited else []
        return Placed(
            p,
            p + top + edited,
            top,
            [Copy(p, p + top), Insert(run.start + top, run.stop, AS_SHOWN), *again],
            rename,
            one_sided=True,
        )

    def chained(self, line: str) -> bool:
        """Whether the block the line opens is one of a chain of look-alikes in the original (`if o
        in ("-p", "--process"):`, `if o in ("-v", "--verbose"):`, ...), beside which one more
        reads as added, not as a rewrite of the next."""
        return self.openers[opened_by(line)] >= CHAIN

    def named_below(self, run: range) -> set[str]:
        """The words by which the marker right below the run names the code it stands for."""
        marker = next((line for line in self.snippet[run.stop :] if line.strip()), None)
        return naming_words(marker) if marker is not None else set()

    def edits_below(
        self, new: list[str], at: int, named: AbstractSet[str] = frozenset()
    ) -> tuple[int, tuple[str, str] | None]:
        """How many of the first `new` lines are the original lines from `at` as they stand, or
        edited in a plain way: its closing punctuation changed (`business;` to `business,` above a
        new last enum value, `placeholder='...'):` to `placeholder='...',` above a new last
        parameter); the same statement rewritten (restated), unless its block is one of a chain of
        look-alikes (chained); a value changed in place (retouched); a field given another value
        (same_field); or a name renamed throughout (renames), and with it the name renamed. None
        edited, none count. An original line that the marker below names by `named` (see
        marker_names) is no line edited: the marker stands for it."""
        count, rename, edited = 0, None, False
        for line in new:
            if at + count >= len(self.lines):
                break
            old = self.lines[at + count]
            if marker_names(named, old, line):
                break  # the marker below names the original line: it stands for it, this one is new
            if (
                old != line
                and old.rstrip(CLOSING) != line.rstrip(CLOSING)
                and not (restated(old, line) and not self.chained(old))
                and not retouched(old, line)
                and not same_field(old, line)
            ):
                found = renamed(old, line)
                if found is None or rename not in (None, found) or not self.renames(found):
                    break
                rename = found
            edited = edited or old != line
            count += 1
        return (count, rename) if edited else (0, None)

    def topless(self, shown: list[str], run: range, at: int) -> list[Placed]:
        """The places of a hunk that opens on new code, the marker above it eliding what comes
        before: right above each place of the rest of it after the hunk above (placed as a hunk is,
        edits and all), less its last new lines where they edit the original's above it
        (edits_above)."""
        first = next((k for k, line in enumerate(shown) if line.strip() and line in self.where), None)
        if first is None:
            return self.rewritten_alone(shown, run, at)
        rest, found = shown[first:], []
        for p in self.where[rest[0]]:
            placed = self.place(rest, range(run.start + first, run.stop), p) if p >= at else None
            if placed is None:
                continue
            edited = self.edits_above(shown[:first], p, at)
            if not telling(rest) and not (edited and telling(self.lines[p - edited : p])):
                continue  # (`str`, `);` tell no place apart; below the line they restate, they do)
            opened = any(OPENS.search(line) for line in shown[first - edited : first])
            if opened and placed.ops != [Copy(p, p + len(rest))]:
                continue  # a block's opener restated over a body rewritten: the same block, or one more?
            new = shown[: first - edited]
            if self.rewrites(new, range(max(at, p - edited - COPIED_WITHIN), p - edited)) or self.copies(
                new, p
            ):
                continue
            ops = [Insert(run.start, run.start + first, AS_SHOWN), *placed.ops]
            found.append(Placed(p - edited, placed.end, placed.top, ops, placed.renamed, anchor=p))
        return found

    def rewritten_alone(self, shown: list[str], run: range, at: int) -> list[Placed]:
        """A hunk of one line the original lacks, between markers (`assert_eq!(config.pool_size,
        16);`): no anchor places it as new code, so it reads as a rewrite of the one original line
        much like it, as indented, below the hunk above, where the file has one such line only."""
        if len(shown) != 1 or letters(shown[0]) < MIN_TELLING:
            return []
        line = shown[0].strip()
        like = [
            q
            for q, old in enumerate(text.strip() for text in self.lines)
            # (a ratio needs lengths that allow it: a quick look first)
            if 2 * min(len(old), len(line)) >= REWRITTEN_ALONE * (len(old) + len(line))
            and letters(old) >= MIN_TELLING
            and similar(old, line, REWRITTEN_ALONE)
        ]
        if len(like) != 1 or like[0] < at or leading(self.lines[like[0]]) != leading(shown[0]):
            return []
        return [Placed(like[0], like[0] + 1, 0, [Insert(run.start, run.stop, AS_SHOWN)])]

    def edits_above(self, new: list[str], p: int, at: int) -> int:
        """How many of the last `new` lines restate the original lines right above line p, one for
        one (`var match = /.../` with one more unit in the pattern), change a value in them, or set
        their field anew, to be written over them."""
        count = 0
        while (
            count < len(new)
            and p - count - 1 >= at
            and (
                restated(self.lines[p - count - 1], new[-count - 1])
                or retouched(self.lines[p - count - 1], new[-count - 1])
                or same_field(self.lines[p - count - 1], new[-count - 1])
            )
        ):
            count += 1
        return count

    def rewrites(self, new: list[str], there: range) -> bool:
        """Whether a line of code added with an anchor on one side only is like an original line
        on that side, where the marker elides (an edit of that line, not new code?). Lines that
        tell little (`}`, `end`, `Ok(())`) say nothing of it."""
        old = [line.strip() for line in self.lines[there.start : there.stop] if letters(line) >= MIN_TELLING]
        return any(
            alike(line.strip(), other) for line in new if letters(line) >= MIN_TELLING for other in old
        )

    def appended(self, run: range, end: int) -> bool:
        """Whether the run, ending the snippet with no marker below it, adds its new code after the
        original's last line."""
        return end == len(self.lines) and not any(line.strip() for line in self.snippet[run.stop :])

    def copies(self, new: list[str], p: int, appended: bool = False) -> bool:
        """Whether code added with an anchor on one side only stands in the original within
        COPIED_WITHIN lines of that anchor (a line of MIN_TELLING letters and digits, not a `}`):
        moved, copied, or the rest of a block rewritten? Code appended at the file's end rewrites
        nothing below it: there half its lines must stand above to make it a copy (a new YAML
        document names the app and namespace that the one above names, and is no copy of it)."""
        near = {line.strip() for line in self.lines[max(0, p - COPIED_WITHIN) : p + COPIED_WITHIN]}
        telling = [line for line in new if letters(line) >= MIN_TELLING]
        standing = sum(line.strip() in near for line in telling)
        return 2 * standing >= len(telling) if appended and standing else standing > 0

    def bottoms(self, shown: list[str], p: int, top: int) -> list[tuple[int, int]]:
        """Where the hunk's bottom anchor may start in the original, and its length: tails of the
        hunk found a few lines below its top anchor (no more than it shows, and MAX_REWRITTEN),
        longest first, then nearest."""
        lines, last = self.lines, len(shown) - top - 1  # one line at least is new
        found = []
        for end in range(p + top + 1, min(p + len(shown) + MAX_REWRITTEN, len(lines)) + 1):
            length = 0
            while length < last and end - length > p + top and lines[end - length - 1] == shown[-length - 1]:
                length += 1
            found += [
                (end - n, n)
                for n in range(1, length + 1)
                if end - n - (p + top) <= last + 1 - n + MAX_REWRITTEN
            ]
        return sorted(found, key=lambda bottom: (-bottom[1], bottom[0]))

    def interior(self, old: range, new: list[str]) -> tuple[list[Copy | range], list[Rewrite]] | None:
        """How original lines `old` become `new`: original lines kept (Copy) and new lines written
        (a range of `new`), with the original lines they rewrite and what into; None where one would
        be deleted outright, or more than MAX_REWRITTEN rewritten."""
        before = self.lines[old.start : old.stop]
        steps: list[Copy | range] = []
        rewrites: list[Rewrite] = []
        for tag, i1, i2, j1, j2 in SequenceMatcher(None, before, new, autojunk=False).get_opcodes():
            if tag == "equal":
                steps.append(Copy(old.start + i1, old.start + i2))
                continue
            if tag == "delete" or (tag == "replace" and not rewritten_alike(before[i1:i2], new[j1:j2])):
                return None
            if tag == "replace":
                rewrites.append((before[i1:i2], new[j1:j2]))
            steps.append(range(j1, j2))
        rewritten = sum(len(lines) for lines, _ in rewrites)
        kept = sum(step.end - step.start for step in steps if isinstance(step, Copy))
        # (more, one at a time, where as many lines between them stand as they were)
        fits = all(len(lines) <= MAX_REWRITTEN for lines, _ in rewrites) and rewritten <= kept
        return (steps, rewrites) if rewritten <= MAX_REWRITTEN or fits else None

    def rename_in(self, rewrites: list[Rewrite]) -> tuple[str, str] | None:
        """The one name that each rewrite renames, line for line, where that is all they do."""
        if any(len(before) != len(after) for before, after in rewrites):
            return None
        found = {
            renamed(old, new) for before, after in rewrites for old, new in zip(before, after, strict=True)
        }
        rename = found.pop() if len(found) == 1 else None
        return rename if rename is not None and self.renames(rename) else None

    def renames(self, rename: tuple[str, str]) -> bool:
        """Whether a name changed into another in a line is the name renamed throughout: the old one
        nowhere in the snippet, the new one nowhere in the original and on two snippet lines at
        least (`_norm(key)` to `_canonical_key(key)` in a renamed helper's callers; not one key
        renamed, or a new one added?)."""
        old_name, new_name = rename
        return (
            old_name not in self.shown_words
            and new_name not in self.words
            and self.shown_words[new_name] >= 2
        )

    def reads_as_new(self, shown: list[str], p: int, top: int) -> bool:
        """Whether the hunk also reads as a new block put below the first lines of its top anchor,
        the marker after it eliding the rest: its lines after them open a block and close it (a
        `type Pause {` ... `}` beside `type Resume`; not a call rewritten above `return x`). A block
        opened by a line of the top anchor that tells places apart is the original's own (`brotli =
        [` beside `brotli = [` would declare it twice)."""
        for t in range(1, top + 1):
            block = [line for line in shown[t:] if line.strip()]
            if t < top and telling(block[:1]):
                continue
            if balanced(block) and OPENS.search(block[0]) and CLOSES.match(block[-1]):
                return True
        return False


def marker_names(named: AbstractSet[str], old: str, new: str) -> bool:
    """Whether a marker's words name `old` by a word it has and `new` has not (`<!-- ... Payments
    and Settings links ... -->` below a `Reports` link where the `Payments` link stands)."""
    words, old_words = naming_words(new), naming_words(old)
    return bool(named & (old_words - words)) and not named & (words - old_words)


def telling(anchor: list[str]) -> bool:
    """Whether an anchor has a line that tells places apart: not only `}` and `end`."""
    return any(letters(line) >= MIN_TELLING for line in anchor)


def restated(old: str, new: str) -> bool:
    """Whether `new` is `old` rewritten as the same statement, which written beside it would be dead
    or doubled: an assignment to the same target (`tax = ...HALF_UP...` to `tax = ...HALF_EVEN...`),
    or a block opened by the same call or signature (`launch(Dispatchers.IO) {` to
    `launch(ioDispatcher) {`, `def retrbinary(..., blocksize=8192):` given another default)."""
    before, after = ASSIGNED.match(old), ASSIGNED.match(new)
    declared = (
        before is not None
        and after is not None
        and before.group(1).strip() == after.group(1).strip()
        and bool(DECLARING & set(WORD.findall(before.group(1))))
    )
    if not (alike(old.strip(), new.strip()) or (declared and leading(old) == leading(new))):
        return False  # (but a name declared again, `const copy = ...` where it stands, is the same one)
    if before and after:
        target = before.group(1).strip()
        name = target.partition(": ")[0]  # (not its type: `values: List[Channel]`)
        names = set(WORD.findall(name)) - DECLARING
        updates = any(
            names & set(WORD.findall(line[match.end() :])) for line, match in ((old, before), (new, after))
        )
        return target == after.group(1).strip() and not updates  # (`df = df[...]` is one more step)
    opener = opened_by(old)
    return opener is not None and opener == opened_by(new) and letters(opener) > 0


def opened_by(line: str) -> str | None:
    """What opens the block a line opens with a call or a condition: `launch` of `launch(x) {`,
    `if o in` of `if o in ("-v", "--verbose"):`."""
    if "(" not in line or not line.rstrip().endswith(("{", ":")):
        return None
    return line.split("(")[0].strip()


def retouched(old: str, new: str) -> bool:
    """Whether `new` is `old` with a value changed in place: a long line of code that stays the same
    but for a short run of tokens that holds a literal (`date:"d/m/Y"` to `date:"SHORT_DATE_FORMAT"`,
    `--coverage 80` to `--coverage 85`, `"USD"` to `invoice.currency`), or a shorter one whose one
    string is reworded. Not a name renamed (renamed says when that is all), nor a comment reworded
    (a new one above the code it describes?)."""
    if leading(old) != leading(new) or COMMENT_LINE.match(old):
        return False
    before, after = LITERAL_TOKEN.findall(old), LITERAL_TOKEN.findall(new)
    longest = max(len(before), len(after))
    if min(len(before), len(after)) < RETOUCHED_TOKENS:
        # a shorter line, one quoted string in it, words of prose, rewritten much alike (`content="...
        # up to 5 people."` to `... up to 10 people."`): the same message, reworded (not `"GET
        # /healthz"` to `"GET /readyz"`: a route beside it?)
        changed = [(a, b) for a, b in zip(before, after, strict=False) if a != b]
        return (
            len(before) == len(after)
            and len(changed) == 1
            and all(token[0] in "\"'" and len(token.split()) >= PROSE_WORDS for token in changed[0])
            and similar(*changed[0], REWORDED)
        )
    head = 0
    while head < min(len(before), len(after)) and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < min(len(before), len(after)) - head and before[-tail - 1] == after[-tail - 1]:
        tail += 1
    changed = before[head : len(before) - tail] + after[head : len(after) - tail]
    return (
        0 < longest - head - tail <= MAX_RETOUCHED
        and head + tail >= RETOUCHED_KEPT * longest
        and any(token[0] in "\"'" or token[0].isdigit() for token in changed)
    )


def renamed(old: str, new: str) -> tuple[str, str] | None:
    """The name `old` renames to become `new`, where that is all that differs."""
    if old.count(" ") != new.count(" ") or old == new:
        return None  # (a quick look: a name renamed moves no space)
    before, after = TOKEN.findall(old), TOKEN.findall(new)
    if len(before) != len(after) or leading(old) != leading(new):
        return None
    changed = {(a, b) for a, b in zip(before, after, strict=True) if a != b}
    if len(changed) != 1:
        return None
    (a, b) = changed.pop()
    return (a, b) if a.isidentifier() and b.isidentifier() else None


def rewritten_alike(old: list[str], new: list[str]) -> bool:
    """Whether original lines `old` read as rewritten into `new`: each like a new line after the one
    the line before it is like (a call given one more argument, a name changed), or continued by
    it (`case .failed:` to `case .failed, .waitingForNetwork:`, `);` to `).timeout(limit);`)."""
    at = 0
    alone = len(old) == len(new) == 1  # (a field or a name given another value: one line for one)
    for line in old:
        while at < len(new) and not (
            alike(line.strip(), new[at].strip())
            or continued(line, new[at])
            or (alone and (same_field(line, new[at]) or restated(line, new[at]) or revalued(line, new[at])))
        ):
            at += 1
        if at == len(new) or not line.strip():
            return False
        at += 1
    return True


def revalued(old: str, new: str) -> bool:
    """Whether `new` is `old` with one literal given another value (`10` to `16`, `"GET"` to
    `"POST"`), as indented."""
    if leading(old) != leading(new):
        return False
    before, after = LITERAL_TOKEN.findall(old), LITERAL_TOKEN.findall(new)
    if len(before) != len(after):
        return False
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    return len(changed) == 1 and all(token[0] in "\"'" or token[0].isdigit() for token in changed[0])


def same_field(old: str, new: str) -> bool:
    """Whether `new` gives the field `old` sets another value (`reason: "bad scheme".into(),` to
    `reason: format!(...),`), as indented."""
    before, after = FIELD.match(old), FIELD.match(new)
    return bool(before and after) and before.group(0) == after.group(0)


def continued(old: str, new: str) -> bool:
    """Whether `new` is `old` with more written before its closing punctuation."""
    stem = old.strip().rstrip(",;:{")
    return bool(stem) and new.strip().startswith(stem) and len(new.strip()) > len(old.strip())


def alike(a: str, b: str) -> bool:
    return similar(a, b, LIKENESS)


def similar(a: str, b: str, likeness: float) -> bool:
    matcher = SequenceMatcher(None, a, b)
    return (
        matcher.real_quick_ratio() >= likeness
        and matcher.quick_ratio() >= likeness
        and matcher.ratio() >= likeness
    )


def shallower(line: str, depth: int) -> bool:
    """Whether the line ends a block less indented than `depth`."""
    return ends(line) and len(leading(line)) < depth


def ends(line: str) -> bool:
    """Whether the line closes a block and opens none."""
    return CLOSES.match(line) is not None and OPENS.search(line) is None


def balanced(lines: list[str]) -> bool:
    """Whether the lines close every bracket and markup tag they open."""
    text = QUOTED.sub("", "\n".join(lines))
    opened = Counter(tag.lower() for tag in OPENING_TAG.findall(text) if tag.lower() not in VOID_TAGS)
    closed = Counter(tag.lower() for tag in CLOSING_TAG.findall(text))
    brackets = all(text.count(opener) == text.count(closer) for opener, closer in ("()", "[]", "{}"))
    return brackets and opened == closed
