"""Pick, each step, the drafter whose guess pays most, and size the draft to what pays.

Every cheap drafter (plan, lookup) proposes at every step; its proposal is scored against the tokens
the target then emitted, whether or not it was drafted, so each source's acceptance rate stays
current. The step drafts from the source with the most expected tokens per second of verification,
with k chosen from that rate and the measured cost of a pass (`CostCurve`), and, for a source that
is often wrong, no longer than its current run vouches for (`vouched`); k = 0 (decode one token
plainly) wins when no guess is likely enough to pay for the longer pass. The draft model, which
costs a forward per drafted token, is asked only when its expected yield beats the best cheap guess.
"""

import time
from collections.abc import Sequence

from apply_engine.drafters.cost import CostCurve
from apply_engine.drafters.draft_model import common_prefix
from apply_engine.speculative import Drafter

K_CHOICES = (1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256)
MIN_VOUCHED = 2  # tokens a guess may draft before the output has confirmed any of its source
FREE_PASS = 1.25  # a pass costing at most this many one-token passes: drafting is nearly free
TRUSTED_RATE = 0.9  # a source right this often lately is drafted as far as its rate says


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


def tokens_per_second(rate: float, k: int, cost: CostCurve, draft_s: float = 0.0) -> float:
    """Expected emitted tokens per second of a step drafting k tokens (draft_s: seconds per drafted token)."""
    return expected_tokens(rate, k) / (cost(k + 1) + k * draft_s)


def choose_k(rate: float, cost: CostCurve, max_k: int, draft_s: float = 0.0) -> int:
    """The k in 0, K_CHOICES up to max_k, or max_k itself, with the most tokens per second.

    >>> cpu = CostCurve((1, 2, 8, 32, 128), (1.0, 1.75, 2.0, 2.9, 6.2))  # a 2-core CPU, 135M model
    >>> choose_k(0.99, cpu, 256), choose_k(0.9, cpu, 256), choose_k(0.3, cpu, 256)
    (96, 16, 0)
    >>> choose_k(0.999, CostCurve.linear(0.002), 256), choose_k(0.999, CostCurve.linear(0.002), 64)
    (256, 64)
    """
    candidates = [0, *(k for k in K_CHOICES if k < max_k), max_k]
    return max(candidates, key=lambda k: tokens_per_second(rate, k, cost, draft_s))


def vouched(agreement: int, rate: float, cost: CostCurve, max_k: int) -> int:
    """Most tokens worth drafting from a source that agrees with the output's last `agreement` tokens
    and has lately been right at `rate` per token.

    Copied runs are not i.i.d.: a source whose current position has matched the output for L tokens
    tends to go on matching, and the longer the run the surer the next token (on replays of the
    stand-in's outputs a 1-token lookup match was right a third of the time, a 12-token one about
    92%). So a source that is often wrong is trusted for about L more tokens, at least MIN_VOUCHED,
    whatever its rate promises. A reliable source (a merge model following the plan) is drafted as
    far as its rate says: capping it by its run measured ~5% slower on the expected merges. Where
    a longer pass costs next to nothing (a GPU), every guess is worth drafting whole.

    >>> cpu = CostCurve((1, 2, 8, 32, 128), (1.0, 1.75, 2.0, 2.9, 6.2))  # a 2-core CPU, 135M model
    >>> vouched(0, 0.7, cpu, 64), vouched(5, 0.7, cpu, 64), vouched(100, 0.7, cpu, 64), vouched(5, 0.7, cpu, 3)
    (2, 5, 64, 3)
    >>> vouched(0, 0.95, cpu, 64), vouched(0, 0.7, CostCurve.linear(0.001), 64)
    (64, 64)
    """
    if rate >= TRUSTED_RATE or cost(max_k + 1) <= FREE_PASS * cost(1):
        return max_k
    return min(max_k, max(MIN_VOUCHED, agreement))


class AcceptanceRate:
    """Per-token acceptance of one source, decayed so recent steps weigh most."""

    def __init__(self, prior: float = 0.9, weight: float = 4.0, decay: float = 0.8) -> None:
        self.accepted, self.rejected = prior * weight, (1 - prior) * weight
        self.decay = decay

    def update(self, accepted: int, drafted: int) -> None:
        """`accepted` of `drafted` tokens matched; a rejection happened iff accepted < drafted."""
        self.accepted = self.accepted * self.decay + accepted
        self.rejected = self.rejected * self.decay + (1 if accepted < drafted else 0)

    @property
    def rate(self) -> float:
        return self.accepted / (self.accepted + self.rejected)


class HybridDrafter:
    """The source with the most expected tokens per second wins the step; sources learn from every step."""

    name = "hybrid"

    def __init__(self, drafters: Sequence[Drafter], cost: CostCurve, shadow_k: int = 32) -> None:
        self.drafters = list(drafters)
        self.cost = cost
        self.shadow_k = shadow_k  # how far ahead a cheap source's guess is scored
        self.rates = {d.name: AcceptanceRate() for d in self.drafters}
        self.draft_s = {d.name: 0.0 for d in self.drafters}  # seconds per drafted token
        self.guesses: dict[str, tuple[int, list[int]]] = {}  # source -> (context length, guess)
        self.last_source: str | None = None

    def propose(self, context: Sequence[int], k: int) -> list[int]:
        self.score(context)
        self.last_source = None
        if k <= 0:
            return []
        # 1. every cheap source guesses; the one with the best expected yield wins
        best, best_value, best_k = [], tokens_per_second(0.0, 0, self.cost), 0
        for drafter in self.drafters:
            if not getattr(drafter, "cheap", False):
                continue
            guess = self.guess(drafter, context, max(k, self.shadow_k))
            rate = self.rates[drafter.name].rate
            trusted = vouched(getattr(drafter, "agreement", k), rate, self.cost, k)
            size = min(choose_k(rate, self.cost, k), len(guess), trusted)
            value = tokens_per_second(rate, size, self.cost)
            if size > 0 and value > best_value:
                best, best_value, best_k, self.last_source = guess, value, size, drafter.name
        # 2. a costly source (a draft model) is asked only when its expected yield, its own forwards
        # counted, beats that guess (or plain decoding)
        for drafter in self.drafters:
            if getattr(drafter, "cheap", False):
                continue
            rate, draft_s = self.rates[drafter.name].rate, self.draft_s[drafter.name]
            size = choose_k(rate, self.cost, k, draft_s)
            if size > 0 and tokens_per_second(rate, size, self.cost, draft_s) > best_value:
                self.last_source = drafter.name
                return self.guess(drafter, context, size)[:size]
        return best[:best_k]

    def guess(self, drafter: Drafter, context: Sequence[int], k: int) -> list[int]:
        start = time.perf_counter()
        tokens = drafter.propose(context, k)[:k]
        if tokens:
            per_token = (time.perf_counter() - start) / len(tokens)
            self.draft_s[drafter.name] = 0.5 * self.draft_s[drafter.name] + 0.5 * per_token
            self.guesses[drafter.name] = (len(context), tokens)
        return tokens

    def score(self, context: Sequence[int]) -> None:
        """Update each source's rate with how much of its last guess the output then matched."""
        for name, (length, tokens) in self.guesses.items():
            emitted = context[length:]
            drafted = min(len(tokens), len(emitted))
            self.rates[name].update(common_prefix(tokens, emitted), drafted)
        self.guesses.clear()
