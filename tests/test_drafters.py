"""Drafters: plan following and re-synchronisation, n-gram lookup, draft model, hybrid sizing."""

import doctest

import pytest

import apply_engine.drafters.draft_model
import apply_engine.drafters.hybrid
import apply_engine.drafters.lookup
import apply_engine.drafters.plan
import apply_engine.model_merge
import apply_engine.speculative
import apply_engine.verify
from apply_engine.drafters.draft_model import DraftModelDrafter
from apply_engine.drafters.hybrid import HybridDrafter, choose_k
from apply_engine.drafters.lookup import LookupDrafter, NgramIndex
from apply_engine.drafters.plan import PlanDrafter
from apply_engine.speculative import HFTarget
from tests.helpers_models import tiny_model


@pytest.mark.parametrize(
    "module",
    [
        apply_engine.drafters.draft_model,
        apply_engine.drafters.hybrid,
        apply_engine.drafters.lookup,
        apply_engine.drafters.plan,
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


def test_lookup_also_finds_earlier_output() -> None:
    drafter = LookupDrafter([], min_n=2)
    assert drafter.propose([4, 5, 6, 9], 2) == []
    assert drafter.propose([4, 5, 6, 9, 4, 5], 2) == [6, 9]


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


def test_hybrid_falls_through_to_the_next_drafter_and_names_the_source() -> None:
    hybrid = HybridDrafter([PlanDrafter([50, 51, 52]), LookupDrafter([1, 2, 3, 4])])
    assert hybrid.propose([], 8)[:1] == [50]
    assert hybrid.last_source == "plan"
    assert hybrid.propose([7, 1, 2], 8) == [3, 4]
    assert hybrid.last_source == "lookup"
    assert hybrid.propose([7, 8, 9], 8) == []
    assert hybrid.last_source is None


def test_draft_length_grows_with_acceptance_and_shrinks_with_cost() -> None:
    assert choose_k(0.999, 0.05, 256) > choose_k(0.9, 0.05, 256) > choose_k(0.5, 0.05, 256)
    assert choose_k(0.99, 0.002, 256) > choose_k(0.99, 0.05, 256)
