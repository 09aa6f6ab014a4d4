"""Prompt lookup: guess the continuation by finding the output's last n tokens in the inputs.

The index is built once over the source tokens (original and snippet) and extended with the
output as it grows, so a proposal costs O(max_n) dictionary probes, never a scan of the context.
"""

import bisect
from collections.abc import Sequence

Ngram = tuple[int, ...]
SEPARATOR = -1  # ends the source in the index: no continuation runs from the source into the output
MAX_AGREEMENT = 64  # tokens compared backwards to tell apart occurrences of a max_n-gram


class NgramIndex:
    """n-gram -> end positions (the index just past the n-gram) in `tokens`, for n in [min_n, max_n]."""

    def __init__(self, tokens: Sequence[int] = (), min_n: int = 2, max_n: int = 6) -> None:
        self.tokens: list[int] = []
        self.min_n, self.max_n = min_n, max_n
        self.ends: dict[Ngram, list[int]] = {}
        self.extend(tokens)

    def extend(self, tokens: Sequence[int]) -> None:
        for token in tokens:
            self.tokens.append(token)
            end = len(self.tokens)
            for n in range(self.min_n, min(self.max_n, end) + 1):
                self.ends.setdefault(tuple(self.tokens[end - n : end]), []).append(end)

    def lookup(self, suffix: Sequence[int], prefer: int = 0) -> int | None:
        """End position of the longest indexed n-gram that `suffix` ends with (see `rejoin`)."""
        return rejoin(self.tokens, self.ends, suffix, self.min_n, self.max_n, prefer)


def rejoin(
    tokens: Sequence[int],
    ends: dict[Ngram, list[int]],
    suffix: Sequence[int],
    min_n: int,
    max_n: int,
    prefer: int = 0,
) -> int | None:
    """Where `tokens` continue after `suffix`: the end of the longest n-gram of `suffix`'s tail in them.

    Among several occurrences, the one whose preceding tokens agree longest with `suffix` wins (only
    a max_n-gram's occurrences can differ there), then the first at or after `prefer` (the output
    moves forward through the source), else the last one before it.

    >>> source = [5, 1, 2, 3, 7, 1, 2, 3, 9]
    >>> index = NgramIndex(source, min_n=2, max_n=3)
    >>> rejoin(source, index.ends, [0, 2, 3], 2, 3)  # [2, 3] ends at 4 and 8; 4 is the first
    4
    >>> rejoin(source, index.ends, [0, 2, 3], 2, 3, prefer=5)
    8
    >>> rejoin(source, index.ends, [7, 1, 2, 3], 2, 3)  # [1, 2, 3] after 7 agrees on four tokens
    8
    >>> rejoin(source, index.ends, [5, 1, 2, 3], 2, 3, prefer=5)  # after 5, though before `prefer`
    4
    >>> rejoin(source, index.ends, [3, 4], 2, 3) is None
    True
    """
    for n in range(min(max_n, len(suffix)), min_n - 1, -1):
        found = ends.get(tuple(suffix[len(suffix) - n :]))
        if found:
            i = bisect.bisect_left(found, prefer)
            if n < max_n:  # each occurrence agrees on exactly n tokens, or a longer n-gram would match
                return found[i] if i < len(found) else found[-1]
            ranked = found[i:] + found[:i][::-1]  # at or after `prefer` in order, then the latest before
            return max(ranked, key=lambda end: agreement(tokens, end, suffix))  # the first of equals
    return None


def agreement(tokens: Sequence[int], end: int, suffix: Sequence[int], cap: int = MAX_AGREEMENT) -> int:
    """How many tokens before `end` equal `suffix`'s last ones, counted back up to `cap`.

    >>> agreement([3, 1, 2, 9], 3, [8, 3, 1, 2]), agreement([3, 1, 2, 9], 3, [8, 1, 2])
    (3, 2)
    """
    n = 0
    while n < min(cap, end, len(suffix)) and tokens[end - 1 - n] == suffix[-1 - n]:
        n += 1
    return n


class LookupDrafter:
    """Proposes what followed the output's last n-gram in the source tokens (or earlier output).

    n goes down to a single token: where nothing longer matches, the last token's continuation is
    still right about half the time (SmolLM2-135M on the bench fixtures), and a pass of 2-8 tokens
    costs little more than one of 1; the hybrid's rates and cost curve decide whether it is drafted.
    `agreement`, which the hybrid reads as how sure the guess is: how many of the output's last
    tokens (up to MAX_AGREEMENT) the source agrees with where the proposal was taken, 0 with none.
    """

    name = "lookup"
    cheap = True

    def __init__(self, source: Sequence[int], min_n: int = 1, max_n: int = 6) -> None:
        self.index = NgramIndex([*source, SEPARATOR], min_n, max_n)
        self.seen = 0  # output tokens already added to the index
        self.last_end = 0  # where the previous match continued: the output reads forward from it
        self.agreement = 0

    def propose(self, context: Sequence[int], k: int) -> list[int]:
        # The output is indexed after the source; the n-gram ending at the output's tail is not
        # indexed yet, so a match always has a continuation. Preferring matches at or after the
        # previous one follows the source in order, and inside a loop the output is writing, the
        # loop's latest turn.
        end = self.index.lookup(context, prefer=self.last_end)
        self.index.extend(context[self.seen :])
        self.seen = len(context)
        if end is None:
            self.agreement = 0
            return []
        self.last_end = end
        self.agreement = agreement(self.index.tokens, end, context)
        proposal = self.index.tokens[end : end + k]
        return proposal[: proposal.index(SEPARATOR)] if SEPARATOR in proposal else proposal
