"""Prompt lookup: guess the continuation by finding the output's last n tokens in the inputs.

The index is built once over the source tokens (original and snippet) and extended with the
output as it grows, so a proposal costs O(max_n) dictionary probes, never a scan of the context.
"""

from collections.abc import Sequence

Ngram = tuple[int, ...]
SEPARATOR = -1  # ends the source in the index: no continuation runs from the source into the output


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
        return rejoin(self.ends, suffix, self.min_n, self.max_n, prefer)


def rejoin(
    ends: dict[Ngram, list[int]], suffix: Sequence[int], min_n: int, max_n: int, prefer: int = 0
) -> int | None:
    """Where the source continues after `suffix`: the end of the longest matching n-gram.

    Among several occurrences, the first at or after `prefer` wins (the output moves forward through
    the source), else the last one before it.

    >>> source = [5, 1, 2, 7, 1, 2, 9]
    >>> index = NgramIndex(source, min_n=2, max_n=3)
    >>> rejoin(index.ends, [0, 1, 2], 2, 3)  # [1, 2] ends at 3 and 6; 3 is the first
    3
    >>> rejoin(index.ends, [0, 1, 2], 2, 3, prefer=4)
    6
    >>> rejoin(index.ends, [7, 1, 2], 2, 3)  # the longer [7, 1, 2] decides
    6
    >>> rejoin(index.ends, [3, 4], 2, 3) is None
    True
    """
    for n in range(min(max_n, len(suffix)), min_n - 1, -1):
        found = ends.get(tuple(suffix[len(suffix) - n :]))
        if found:
            return next((end for end in found if end >= prefer), found[-1])
    return None


class LookupDrafter:
    """Proposes what followed the output's last n-gram in the source tokens (or earlier output)."""

    name = "lookup"
    cheap = True

    def __init__(self, source: Sequence[int], min_n: int = 2, max_n: int = 6) -> None:
        self.index = NgramIndex([*source, SEPARATOR], min_n, max_n)
        self.seen = 0  # output tokens already added to the index
        self.last_end = 0  # where the previous match continued: the output reads forward from it

    def propose(self, context: Sequence[int], k: int) -> list[int]:
        # The output is indexed after the source; the n-gram ending at the output's tail is not
        # indexed yet, so a match always has a continuation. Preferring matches at or after the
        # previous one follows the source in order, and inside a loop the output is writing, the
        # loop's latest turn.
        end = self.index.lookup(context, prefer=self.last_end)
        self.index.extend(context[self.seen :])
        self.seen = len(context)
        if end is None:
            return []
        self.last_end = end
        proposal = self.index.tokens[end : end + k]
        return proposal[: proposal.index(SEPARATOR)] if SEPARATOR in proposal else proposal
