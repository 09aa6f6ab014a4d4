"""Acceptance rules: greedy keeps the argmax-agreeing prefix; sampling keeps the target distribution."""

import itertools

import pytest
import torch

from apply_engine.drafters.lookup import LookupDrafter
from apply_engine.speculative import plain_decode, speculative_decode
from apply_engine.verify import argmax_rows, greedy_accept, sample_accept
from tests.helpers_models import MarkovTarget

# chi-square critical values at p = 0.001 by degrees of freedom: a correct sampler fails 1 in 1000.
CHI2_CRITICAL = {4: 18.47, 15: 37.70}


def chi_square(counts: torch.Tensor, probs: torch.Tensor) -> float:
    expected = probs * counts.sum()
    return float(((counts - expected) ** 2 / expected).sum())


def test_greedy_accepts_the_agreeing_prefix_and_corrects_the_first_mismatch() -> None:
    assert greedy_accept([3, 4, 5], [3, 4, 1, 2]) == ([3, 4], 1)


def test_greedy_takes_a_bonus_token_when_everything_is_accepted() -> None:
    assert greedy_accept([3, 4], [3, 4, 2]) == ([3, 4], 2)


def test_greedy_with_no_draft_takes_the_target_choice() -> None:
    assert greedy_accept([], [5]) == ([], 5)


@pytest.mark.parametrize("draft_token", [0, 2, 4])
def test_sampled_first_token_follows_the_target_distribution(draft_token: int) -> None:
    target_probs = torch.tensor([[0.1, 0.4, 0.2, 0.25, 0.05], [0.2] * 5])  # [2, vocab]
    generator = torch.Generator().manual_seed(draft_token)
    counts = torch.zeros(5)
    for _ in range(20000):
        accepted, bonus = sample_accept([draft_token], target_probs, generator)
        counts[(accepted or [bonus])[0]] += 1
    assert chi_square(counts, target_probs[0]) < CHI2_CRITICAL[4]


def test_speculative_sampling_matches_plain_sampling_over_two_tokens() -> None:
    """Joint law of the first two tokens of a 4-token Markov chain, drafted by prompt lookup."""
    table = torch.tensor(
        [[0.5, 1.5, 0.0, -1.0], [1.0, 0.0, 1.0, 0.2], [-0.5, 0.3, 0.9, 0.0], [0.0, 0.0, 0.0, 2.0]]
    )
    probs = torch.softmax(table, dim=-1)  # [4, 4]
    exact = torch.tensor([float(probs[0, a] * probs[a, b]) for a, b in itertools.product(range(4), repeat=2)])
    generator = torch.Generator().manual_seed(11)
    counts = torch.zeros(16)
    for _ in range(8000):
        drafter = LookupDrafter([0, 1, 2, 0, 3, 1], min_n=1, max_n=2)
        steps = speculative_decode(
            MarkovTarget(table), [0], drafter, 2, set(), temperature=1.0, generator=generator
        )
        a, b = [t for s in steps for t in s.emitted]
        counts[a * 4 + b] += 1
    assert chi_square(counts, exact) < CHI2_CRITICAL[15]


def test_plain_sampling_is_reproducible_with_a_seed() -> None:
    table = torch.randn(5, 5, generator=torch.Generator().manual_seed(0))

    def run() -> list[int]:
        generator = torch.Generator().manual_seed(3)
        return list(plain_decode(MarkovTarget(table), [0], 20, set(), temperature=0.8, generator=generator))

    assert run() == run()


def test_argmax_rows_breaks_ties_like_torch_argmax() -> None:
    logits = torch.randint(0, 4, (64, 300), generator=torch.Generator().manual_seed(0)).float()  # many ties
    assert argmax_rows(logits) == logits.argmax(dim=-1).tolist()
    assert argmax_rows(logits.bfloat16()) == logits.argmax(dim=-1).tolist()
