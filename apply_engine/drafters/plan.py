"""Aligned copy: follow the structural merge's predicted answer, re-synchronising after divergence.

While the output agrees with the prediction, the drafter proposes the next run of it. When the
target writes something else, the drafter finds where the output rejoins the prediction (the longest
n-gram of the output's tail found in the prediction, preferring the first occurrence ahead of where
it was) and continues from there; until it rejoins it has no guess.
"""

from collections.abc import Sequence

from apply_engine.drafters.lookup import NgramIndex


def advance(plan: Sequence[int], pos: int, new_tokens: Sequence[int]) -> int | None:
    """The plan position after `new_tokens` if they are exactly the plan's next tokens, else None.

    >>> advance([4, 5, 6, 7], 1, [5, 6])
    3
    >>> advance([4, 5, 6, 7], 1, [5, 9]) is None
    True
    """
    end = pos + len(new_tokens)
    return end if list(plan[pos:end]) == list(new_tokens) else None


class PlanDrafter:
    """Proposes plan[pos:pos+k], where pos is where the output currently stands in the plan."""

    name = "plan"

    def __init__(self, plan: Sequence[int], min_n: int = 3, max_n: int = 8) -> None:
        self.index = NgramIndex(plan, min_n, max_n)
        self.plan = self.index.tokens
        self.pos: int | None = 0  # None: lost, waiting for the output to rejoin the plan
        self.seen = 0  # output tokens already accounted for in pos
        self.last_pos = 0  # where the output last stood in the plan: rejoin ahead of it

    def propose(self, context: Sequence[int], k: int) -> list[int]:
        self.sync(context)
        if self.pos is None:
            return []
        return self.plan[self.pos : self.pos + k]

    def sync(self, context: Sequence[int]) -> None:
        new_tokens = context[self.seen :]
        self.seen = len(context)
        if not new_tokens:
            return
        if self.pos is not None:
            self.pos = advance(self.plan, self.pos, new_tokens)
        if self.pos is None:
            self.pos = self.index.lookup(context, prefer=self.last_pos)
        if self.pos is not None:
            self.last_pos = self.pos
