"""Aligned copy: follow the structural merge's predicted answer, re-synchronising after divergence.

While the output agrees with the prediction, the drafter proposes the next run of it. When the
target writes something else, the drafter looks for where the output rejoins the prediction and
continues from there; until it rejoins it has no guess. A rejoin at a line boundary is the likely one
(the model rewrote, skipped or repeated a line, then went on with the file), so when the output has
just ended a line, that whole line found in the plan decides, however short; mid-line, only a longer
n-gram of the output's tail does. Either way the first occurrence ahead of where the output last
stood in the plan wins.
"""

from collections.abc import Sequence

from apply_engine.drafters.lookup import Ngram, NgramIndex, agreement


def advance(plan: Sequence[int], pos: int, new_tokens: Sequence[int]) -> int | None:
    """The plan position after `new_tokens` if they are exactly the plan's next tokens, else None.

    >>> advance([4, 5, 6, 7], 1, [5, 6])
    3
    >>> advance([4, 5, 6, 7], 1, [5, 9]) is None
    True
    """
    end = pos + len(new_tokens)
    return end if list(plan[pos:end]) == list(new_tokens) else None


def last_line(tokens: Sequence[int], newlines: frozenset[int]) -> Ngram:
    """The tokens of the line `tokens` ends with, from the newline that opened it (included).

    A token holding a newline ends a line; the opening newline token is part of the key because it
    also carries the line's indentation when the tokenizer merges the two ("\\n   ").

    >>> last_line([7, 0, 5, 6, 0], frozenset({0}))
    (0, 5, 6, 0)
    >>> last_line([5, 0], frozenset({0}))
    (5, 0)
    """
    start = len(tokens) - 1
    while start > 0 and tokens[start - 1] not in newlines:
        start -= 1
    return tuple(tokens[max(start - 1, 0) :])


def line_index(tokens: Sequence[int], newlines: frozenset[int]) -> dict[Ngram, list[int]]:
    """Each line's key (see `last_line`) -> the positions just past it, in order.

    >>> line_index([5, 0, 6, 0, 5, 0], frozenset({0}))
    {(5, 0): [2], (0, 6, 0): [4], (0, 5, 0): [6]}
    """
    index: dict[Ngram, list[int]] = {}
    start = 0  # where the current line's own tokens begin (just past the previous newline)
    for i, token in enumerate(tokens):
        if token in newlines:
            index.setdefault(tuple(tokens[max(start - 1, 0) : i + 1]), []).append(i + 1)
            start = i + 1
    return index


def first_ahead(ends: list[int], prefer: int) -> int:
    """The first end at or after `prefer`, else the last one before it."""
    return next((end for end in ends if end >= prefer), ends[-1])


class PlanDrafter:
    """Proposes plan[pos:pos+k], where pos is where the output currently stands in the plan.

    `agreement`: how many of the output's last tokens (up to MAX_AGREEMENT) the plan agrees with
    before pos, 0 while lost or before the output has written anything.
    """

    name = "plan"
    cheap = True

    def __init__(
        self, plan: Sequence[int], newlines: frozenset[int] = frozenset(), min_n: int = 3, max_n: int = 8
    ) -> None:
        self.index = NgramIndex(plan, min_n, max_n)
        self.plan = self.index.tokens
        self.newlines = newlines
        self.lines = line_index(self.plan, newlines)
        self.pos: int | None = 0  # None: lost, waiting for the output to rejoin the plan
        self.seen = 0  # output tokens already accounted for in pos
        self.last_pos = 0  # where the output last stood in the plan: rejoin ahead of it
        self.agreement = 0

    def propose(self, context: Sequence[int], k: int) -> list[int]:
        self.sync(context)
        if self.pos is None:
            self.agreement = 0
            return []
        self.agreement = agreement(self.plan, self.pos, context)
        return self.plan[self.pos : self.pos + k]

    def sync(self, context: Sequence[int]) -> None:
        new_tokens = context[self.seen :]
        self.seen = len(context)
        if not new_tokens:
            return
        if self.pos is not None:
            self.pos = advance(self.plan, self.pos, new_tokens)
        if self.pos is None:
            self.pos = self.rejoin(context)
        if self.pos is not None:
            self.last_pos = self.pos

    def rejoin(self, context: Sequence[int]) -> int | None:
        """Where the plan continues after `context`: its last whole line, else its tail n-gram."""
        if context[-1] in self.newlines:
            ends = self.lines.get(last_line(context, self.newlines))
            if ends:
                return first_ahead(ends, self.last_pos)
        return self.index.lookup(context, prefer=self.last_pos)
