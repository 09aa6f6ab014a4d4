"""Drafters: plan following and re-synchronisation, n-gram lookup, draft model, hybrid sizing."""

import doctest

import pytest

import apply_engine.drafters.cost
import apply_engine.drafters.draft_model
import apply_engine.drafters.hybrid
import apply_engine.drafters.lookup
import apply_engine.drafters.plan
import apply_engine.drafters.self_draft
import apply_engine.model_merge
import apply_engine.speculative
import apply_engine.verify
from apply_engine.drafters.cost import CostCurve
from apply_engine.drafters.draft_model import DraftModelDrafter
from apply_engine.drafters.hybrid import (
    K_CHOICES,
    MIN_VOUCHED,
    TRUSTED_RATE,
    AcceptanceRate,
    HybridDrafter,
    choose_k,
    vouched,
)
from apply_engine.drafters.lookup import LookupDrafter, NgramIndex
from apply_engine.drafters.plan import PlanDrafter
from apply_engine.speculative import HFTarget
from tests.helpers_models import tiny_model


@pytest.mark.parametrize(
    "module",
    [
        apply_engine.drafters.cost,
        apply_engine.drafters.draft_model,
        apply_engine.drafters.hybrid,
        apply_engine.drafters.lookup,
        apply_engine.drafters.plan,
        apply_engine.drafters.self_draft,
        apply_engine.model_merge,
        apply_engine.speculative,
        apply_engine.verify,
    ],
)
def test_docstring_examples_hold(module) -> None:
    assert doctest.testmod(module).failed == 0


def test_plan_drafter_proposes_the_plan_while_the_output_follows_it() -> None:
    drafter = PlanDrafter([10, 11, 12, 13, 14, 15])
    assert drafter.propose([], 3) == [10, 11, 12]
    assert drafter.propose([10, 11], 3) == [12, 13, 14]


def test_plan_drafter_rejoins_after_the_output_diverges() -> None:
    plan = [10, 11, 12, 13, 14, 15, 16, 17]
    drafter = PlanDrafter(plan, min_n=2)
    drafter.propose([], 4)
    # The target wrote 99 instead of 12, then continued with the plan's 13, 14.
    assert drafter.propose([10, 11, 99], 4) == []
    assert drafter.propose([10, 11, 99, 13, 14], 3) == [15, 16, 17]


def test_plan_drafter_prefers_the_occurrence_ahead_of_where_it_was() -> None:
    plan = [1, 2, 3, 7, 1, 2, 3, 8]
    drafter = PlanDrafter(plan, min_n=3)
    drafter.propose([1, 2, 3, 7], 1)  # at position 4
    assert drafter.propose([1, 2, 3, 7, 5, 1, 2, 3], 1) == [8]


def test_lookup_proposes_what_followed_the_tail_in_the_source() -> None:
    drafter = LookupDrafter([5, 6, 7, 8, 9, 1, 2], min_n=2)
    assert drafter.propose([0, 6, 7], 3) == [8, 9, 1]
    assert drafter.propose([0, 6, 7, 3, 4], 3) == []


def test_lookup_guesses_from_the_last_token_when_no_longer_ngram_matches() -> None:
    drafter = LookupDrafter([5, 6, 7, 8])
    assert drafter.propose([0, 6], 2) == [7, 8]
    assert drafter.propose([0, 6, 3], 2) == []  # 3 is nowhere: no guess


def test_lookup_follows_the_occurrence_whose_preceding_tokens_agree_longest() -> None:
    # [2, 3] occurs twice; the output's [4, 2, 3] matches the second, though the first comes first.
    drafter = LookupDrafter([1, 2, 3, 9, 4, 2, 3, 8], max_n=2)
    assert drafter.propose([4, 2, 3], 1) == [8]


def test_lookup_also_finds_earlier_output() -> None:
    drafter = LookupDrafter([], min_n=2)
    assert drafter.propose([4, 5, 6, 9], 2) == []
    assert drafter.propose([4, 5, 6, 9, 4, 5], 2) == [6, 9]


def test_lookup_reports_how_many_output_tokens_its_match_agrees_with() -> None:
    drafter = LookupDrafter([5, 6, 7, 8, 9, 1, 2], min_n=1)
    drafter.propose([0, 6, 7], 3)
    assert drafter.agreement == 2  # [6, 7], not the 0 before them
    drafter.propose([0, 6, 7, 3], 3)
    assert drafter.agreement == 0  # 3 is nowhere: no guess


def test_plan_drafter_reports_how_long_the_output_has_followed_it() -> None:
    drafter = PlanDrafter([10, 11, 12, 13, 14, 15])
    drafter.propose([], 2)
    assert drafter.agreement == 0  # nothing written yet: nothing confirmed
    drafter.propose([10, 11, 12], 2)
    assert drafter.agreement == 3
    drafter.propose([10, 11, 12, 99], 2)
    assert drafter.agreement == 0  # lost


def test_ngram_index_grows_incrementally() -> None:
    index = NgramIndex([1, 2], min_n=2, max_n=2)
    index.extend([3])
    assert index.ends == {(1, 2): [2], (2, 3): [3]}


def test_draft_model_proposes_its_own_greedy_continuation() -> None:
    model = tiny_model("llama", seed=5, init_range=0.3)
    prompt = [100, 200, 300]
    drafter = DraftModelDrafter(HFTarget(model), prompt, max_k=4)
    first = drafter.propose([], 4)
    assert len(first) == 4
    # Re-proposing after accepting two tokens continues the same greedy path.
    assert drafter.propose(first[:2], 2) == first[2:4]


CPU = CostCurve((1, 2, 8, 32, 128), (1.0, 1.75, 2.0, 2.9, 6.2))  # measured shape, 2-core CPU


def test_plan_drafter_rejoins_at_the_line_the_output_just_ended() -> None:
    # Lines (0 ends a line): [5 0] [6 6 0] [7 0] [8 8 0] [9 0]
    plan = [5, 0, 6, 6, 0, 7, 0, 8, 8, 0, 9, 0]
    drafter = PlanDrafter(plan, newlines=frozenset({0}))
    drafter.propose([], 2)
    # The model rewrote line [6 6 0] as [4 0], then wrote [7 0] from the plan: one short line
    # (no n-gram of three tokens) is enough to rejoin, and the plan goes on with [8 8 0].
    assert drafter.propose([5, 0, 4, 0], 3) == []
    assert drafter.propose([5, 0, 4, 0, 7, 0], 3) == [8, 8, 0]


def test_plan_drafter_resumes_after_the_model_skips_or_repeats_a_line() -> None:
    plan = [1, 2, 0, 3, 4, 0, 5, 6, 0, 7, 8, 0]
    skipped = PlanDrafter(plan, newlines=frozenset({0}))
    assert skipped.propose([1, 2, 0, 5, 6, 0], 2) == [7, 8]  # line [3 4] skipped
    repeated = PlanDrafter(plan, newlines=frozenset({0}))
    repeated.propose([1, 2, 0, 3, 4, 0], 2)
    assert repeated.propose([1, 2, 0, 3, 4, 0, 3, 4, 0], 2) == [5, 6]  # line [3 4] written twice


def test_plan_drafter_prefers_the_line_ahead_of_where_it_was() -> None:
    # "}" lines ([9 0]) close several blocks: the rejoin takes the next one, not the first.
    plan = [1, 0, 9, 0, 2, 0, 3, 0, 9, 0, 4, 0]
    drafter = PlanDrafter(plan, newlines=frozenset({0}))
    drafter.propose([1, 0, 9, 0, 2, 0, 3, 0], 1)
    assert drafter.propose([1, 0, 9, 0, 2, 0, 3, 0, 5, 0, 9, 0], 2) == [4, 0]


def test_hybrid_falls_through_to_the_next_drafter_and_names_the_source() -> None:
    hybrid = HybridDrafter([PlanDrafter([50, 51, 52]), LookupDrafter([1, 2, 3, 4])], CostCurve.linear(0.05))
    assert hybrid.propose([], 8)[:1] == [50]
    assert hybrid.last_source == "plan"
    assert hybrid.propose([7, 1, 2], 8) == [3, 4]
    assert hybrid.last_source == "lookup"
    assert hybrid.propose([7, 8, 9], 8) == []
    assert hybrid.last_source is None


class CountingModel:
    """A costly source (no `cheap`) whose guess, counting up from the last token, always holds."""

    name = "model"

    def propose(self, context: list[int], k: int) -> list[int]:
        return [context[-1] + i for i in range(1, k + 1)]


def test_hybrid_asks_the_draft_model_when_it_beats_a_weak_cheap_guess() -> None:
    # The lookup always has a guess (after each t came 99) and it is always wrong; with free
    # verification even a wrong guess "pays", but the draft model's pays more.
    lookup = LookupDrafter([1, 99, 2, 99, 3, 99, 4, 99])
    hybrid = HybridDrafter([lookup, CountingModel()], CostCurve.linear(0.0))
    context = [1]
    for _ in range(4):
        draft = hybrid.propose(context, 3)
        context = [*context, context[-1] + 1]
    assert hybrid.last_source == "model" and draft == [5, 6, 7]


def test_hybrid_drafts_from_the_source_whose_guesses_hold() -> None:
    # Both sources guess after [1, 2]; the plan guesses wrong every time, the lookup right.
    source = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]
    hybrid = HybridDrafter([PlanDrafter([1, 2, 99] * 8, min_n=2), LookupDrafter(source)], CPU)
    context = [1, 2]
    for _ in range(6):
        draft = hybrid.propose(context, 4)
        context = [*context, context[-1] + 1]  # the target writes the source, one token per step
    assert hybrid.last_source == "lookup" and draft[0] == context[-1]
    assert hybrid.rates["plan"].rate < hybrid.rates["lookup"].rate


def test_draft_length_grows_with_acceptance_and_shrinks_with_cost() -> None:
    assert choose_k(0.999, CPU, 256) > choose_k(0.9, CPU, 256) > choose_k(0.6, CPU, 256)
    assert choose_k(0.99, CostCurve.linear(0.002), 256) > choose_k(0.99, CPU, 256)


@pytest.mark.parametrize("rate", [0.0, 0.2, 0.5, 0.8, 0.95, 0.999, 1.0])
@pytest.mark.parametrize("max_k", [0, 1, 5, 64, 256])
def test_draft_length_stays_within_zero_and_the_cap(rate: float, max_k: int) -> None:
    k = choose_k(rate, CPU, max_k)
    assert 0 <= k <= max_k and k in (0, *K_CHOICES, max_k)


def test_a_hopeless_source_drafts_nothing_where_a_longer_pass_costs_more() -> None:
    # On the CPU curve a 2-token pass costs 1.75 one-token passes: a 30% guess does not pay.
    assert choose_k(0.3, CPU, 64) == 0
    assert choose_k(0.3, CostCurve.linear(0.0), 64) > 0  # free verification: any guess pays


def test_hybrid_never_drafts_past_the_budget_it_is_given() -> None:
    hybrid = HybridDrafter([PlanDrafter(list(range(100, 400)))], CostCurve.linear(0.0))
    assert len(hybrid.propose([], 256)) == 256
    assert len(hybrid.propose(list(range(100, 356)), 3)) == 3
    assert hybrid.propose(list(range(100, 359)), 0) == []


def test_a_short_run_of_an_unreliable_source_vouches_for_a_short_draft() -> None:
    plan = list(range(100, 400))
    hybrid = HybridDrafter([PlanDrafter(plan)], CPU)
    hybrid.rates["plan"] = AcceptanceRate(prior=0.7)  # often wrong lately
    assert len(hybrid.propose([], 64)) <= MIN_VOUCHED  # nothing confirmed yet
    assert len(hybrid.propose(plan[:5], 64)) <= 5  # five tokens followed: about five more trusted
    assert len(hybrid.propose(plan[:200], 64)) > 5


def test_a_reliable_source_or_a_nearly_free_pass_drafts_the_whole_guess_however_short_the_run() -> None:
    assert vouched(0, TRUSTED_RATE, CPU, 64) == 64
    assert vouched(0, 0.5, CostCurve.linear(0.0), 64) == 64
    assert vouched(0, 0.5, CPU, 64) == MIN_VOUCHED and vouched(40, 0.5, CPU, 64) == 40
    hybrid = HybridDrafter([PlanDrafter(list(range(100, 400)))], CPU)  # the prior: 0.9, trusted
    assert len(hybrid.propose([], 64)) > MIN_VOUCHED
