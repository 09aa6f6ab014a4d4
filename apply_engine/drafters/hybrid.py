"""Try drafters in order (plan, lookup, draft model); size each draft to what pays.

The draft length k is chosen per step from the source's recent acceptance rate and the cost of
verifying k tokens relative to one (`verify_cost`), so a well-synchronised plan drafts long runs and
an unreliable guess drafts a few tokens or none.
"""

from collections.abc import Sequence

from apply_engine.speculative import Drafter

K_CHOICES = (1, 2, 4, 8, 16, 32, 48, 64, 96, 128, 192, 256)


def expected_tokens(rate: float, k: int) -> float:
    """Mean tokens a pass emits with k drafted, each accepted with probability `rate` (bonus included).

    >>> expected_tokens(0.0, 8), expected_tokens(1.0, 8)
    (1.0, 9.0)
    >>> round(expected_tokens(0.5, 2), 2)
    1.75
    """
    if rate >= 1.0:
        return k + 1.0
    return (1.0 - rate ** (k + 1)) / (1.0 - rate)


def choose_k(rate: float, verify_cost: float, max_k: int) -> int:
    """The k in K_CHOICES (up to max_k) with the most tokens per unit of target time.

    The cost of a pass verifying k tokens is 1 + verify_cost * k (one-token pass = 1).

    >>> choose_k(0.99, 0.05, 256)
    48
    >>> choose_k(0.3, 0.05, 256)
    2
    >>> choose_k(0.99, 0.05, 16)
    16
    """
    candidates = [k for k in K_CHOICES if k <= max_k] or [max_k]
    return max(candidates, key=lambda k: expected_tokens(rate, k) / (1.0 + verify_cost * k))


class AcceptanceRate:
    """Per-token acceptance of one source, decayed so recent steps weigh most."""

    def __init__(self, prior: float = 0.9, weight: float = 4.0, decay: float = 0.9) -> None:
        self.accepted, self.rejected = prior * weight, (1 - prior) * weight
        self.decay = decay

    def update(self, accepted: int, drafted: int) -> None:
        self.accepted = self.accepted * self.decay + accepted
        self.rejected = self.rejected * self.decay + (1 if accepted < drafted else 0)

    @property
    def rate(self) -> float:
        return self.accepted / (self.accepted + self.rejected)


class HybridDrafter:
    """The first drafter with a guess wins the step; its acceptance sizes its next draft."""

    name = "hybrid"

    def __init__(self, drafters: Sequence[Drafter], verify_cost: float = 0.05) -> None:
        self.drafters = list(drafters)
        self.verify_cost = verify_cost
        self.rates = {d.name: AcceptanceRate() for d in self.drafters}
        self.last_source: str | None = None
        self.last_drafted = 0

    def propose(self, context: Sequence[int], k: int) -> list[int]:
        self.last_source, self.last_drafted = None, 0
        for drafter in self.drafters:
            size = choose_k(self.rates[drafter.name].rate, self.verify_cost, k) if k > 0 else 0
            tokens = drafter.propose(context, size)[:size]
            if tokens:
                self.last_source, self.last_drafted = drafter.name, len(tokens)
                return tokens
        return []

    def observe(self, num_accepted: int) -> None:
        if self.last_source is not None:
            self.rates[self.last_source].update(num_accepted, self.last_drafted)
