"""What a verify pass costs: target forward time by the number of tokens it feeds.

Measured once per model and device (`measure_cost_curve`), because its shape decides how long a
draft pays: on a 2-core CPU, over FastTarget's C layers, a 2-token pass of SmolLM2-135M costs ~1.2x
a 1-token pass and a 64-token pass ~7x on AMX tiles, ~13x without (the one-token pass reads
compressed weights and is cheap, the long one is bound by arithmetic); on a GPU passes up to ~100
tokens cost about one.
"""

import bisect
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from apply_engine.models import load_cached, save_cached
from apply_engine.speculative import Target, greedy, prefill

PASS_SIZES = (1, 2, 4, 8, 16, 32, 64, 128)


@dataclass(frozen=True)
class CostCurve:
    """Seconds of a target forward over n tokens, interpolated between measured sizes."""

    sizes: tuple[int, ...]  # ascending, starting at 1
    seconds: tuple[float, ...]  # one per size

    def __call__(self, n: int) -> float:
        """Seconds for an n-token pass; linear between sizes, extended by the last slope.

        >>> curve = CostCurve((1, 2, 4), (1.0, 2.0, 3.0))
        >>> curve(1), curve(3), curve(8)
        (1.0, 2.5, 5.0)
        """
        i = bisect.bisect_left(self.sizes, n)
        if i < len(self.sizes) and self.sizes[i] == n:
            return self.seconds[i]
        i = min(max(i, 1), len(self.sizes) - 1)
        (n0, n1), (s0, s1) = self.sizes[i - 1 : i + 1], self.seconds[i - 1 : i + 1]
        return s0 + (n - n0) * (s1 - s0) / (n1 - n0)

    @classmethod
    def linear(cls, per_token: float, max_n: int = 256) -> "CostCurve":
        """A pass costing 1 + per_token * (n - 1): a stand-in where nothing was measured."""
        return cls((1, max_n), (1.0, 1.0 + per_token * (max_n - 1)))


def measure_cost_curve(
    target: Target, context: Sequence[int], max_n: int = 128, repeats: int = 2
) -> CostCurve:
    """Time greedy verify passes of 1, 2, 4 .. max_n tokens after `context` (the fastest of
    `repeats` each).

    The target's cache is left holding `context`; callers reset it before decoding.
    """
    sizes = (*(n for n in PASS_SIZES if n < max_n), max_n)
    tokens = list(context) or [0]
    target.reset()
    prefill(target, tokens)
    seconds = []
    for n in sizes:
        feed = (tokens * (n // len(tokens) + 1))[:n]
        best = float("inf")
        for _ in range(repeats):
            target.crop(len(tokens))
            start = time.perf_counter()
            greedy(target, feed)
            best = min(best, time.perf_counter() - start)
        seconds.append(best)
    target.crop(len(tokens))
    # Timing noise must not make a longer pass look cheaper than a shorter one.
    for i in range(1, len(seconds)):
        seconds[i] = max(seconds[i], seconds[i - 1])
    return CostCurve(sizes, tuple(seconds))


def load_curve(path: Path) -> CostCurve | None:
    """A curve saved by `save_curve`, or None if there is none (or it is unreadable)."""
    data = load_cached(path)
    try:
        return CostCurve(tuple(data["sizes"]), tuple(data["seconds"]))  # type: ignore[index]
    except (KeyError, TypeError):
        return None


def save_curve(path: Path, curve: CostCurve) -> None:
    save_cached(path, {"sizes": curve.sizes, "seconds": curve.seconds})
