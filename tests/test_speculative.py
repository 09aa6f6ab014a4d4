"""The speculative loop emits exactly what plain decoding emits, whatever the drafter proposes."""

import random

import pytest
import torch

from apply_engine.drafters.cost import CostCurve
from apply_engine.drafters.draft_model import DraftModelDrafter
from apply_engine.drafters.hybrid import HybridDrafter
from apply_engine.drafters.lookup import LookupDrafter
from apply_engine.drafters.plan import PlanDrafter
from apply_engine.drafters.self_draft import first_layers
from apply_engine.speculative import HFTarget, plain_decode, speculative_decode
from tests.helpers_models import MarkovTarget, smollm2_tokenizer, tiny_model

NEW_TOKENS = 48


def hf_greedy(model: torch.nn.Module, prompt: list[int], new_tokens: int, eos: int) -> list[int]:
    """transformers' own greedy decoding: the reference."""
    out = model.generate(
        torch.tensor([prompt]),
        attention_mask=torch.ones(1, len(prompt), dtype=torch.long),
        do_sample=False,
        max_new_tokens=new_tokens,
        eos_token_id=eos,
        pad_token_id=eos,
    )
    return out[0, len(prompt) :].tolist()


def perturbed(tokens: list[int], seed: int) -> list[int]:
    """The reference with a few tokens replaced, dropped and inserted: a plausible wrong plan."""
    rng = random.Random(seed)
    out = list(tokens)
    for _ in range(4):
        i = rng.randrange(len(out))
        op = rng.choice(["replace", "drop", "insert"])
        if op == "replace":
            out[i] = rng.randrange(1000, 2000)
        elif op == "drop":
            del out[i]
        else:
            out.insert(i, rng.randrange(1000, 2000))
    return out


def drafters_for(
    kind: str,
    prompt: list[int],
    reference: list[int],
    draft_model: torch.nn.Module,
    target_model: torch.nn.Module,
):
    newlines = frozenset(t for t in reference[::3])  # arbitrary "line ends" exercise the line rejoin
    plan = lambda: PlanDrafter(perturbed(reference, seed=len(prompt)), newlines)  # noqa: E731
    lookup = lambda: LookupDrafter(prompt + reference[::2])  # noqa: E731
    model = lambda: DraftModelDrafter(HFTarget(draft_model), prompt, max_k=6)  # noqa: E731
    own = lambda: DraftModelDrafter(HFTarget(first_layers(target_model, 1)), prompt, max_k=6)  # noqa: E731
    cost = CostCurve.linear(0.05)
    return {
        "plan": lambda: plan(),
        "lookup": lambda: lookup(),
        "model": lambda: model(),
        "self": lambda: own(),
        "hybrid": lambda: HybridDrafter([plan(), lookup(), model()], cost),
        "hybrid-self": lambda: HybridDrafter([plan(), lookup(), own()], cost),
    }[kind]()


@pytest.fixture(scope="module")
def prompts() -> list[list[int]]:
    tokenizer = smollm2_tokenizer()
    texts = [
        "def add(a, b):\n    return a + b\n\n# ... existing code ...\n",
        "<code>int main(void) { return 0; }</code>\n<update>int main(void) { return 1; }</update>",
    ]
    rng = random.Random(7)
    return [tokenizer.encode(t) for t in texts] + [[rng.randrange(49152) for _ in range(30)]]


@pytest.mark.parametrize("arch", ["llama", "qwen2"])
@pytest.mark.parametrize("drafter", ["plan", "lookup", "model", "self", "hybrid", "hybrid-self"])
def test_speculative_output_equals_transformers_greedy(arch: str, drafter: str, prompts) -> None:
    target_model = tiny_model(arch, seed=1, init_range=0.3)
    draft_model = tiny_model(arch, seed=2, init_range=0.3)
    for prompt in prompts:
        reference = hf_greedy(target_model, prompt, NEW_TOKENS, eos=2)
        for max_k in (1, 5, 64):
            steps = speculative_decode(
                HFTarget(target_model),
                prompt,
                drafters_for(drafter, prompt, reference, draft_model, target_model),
                NEW_TOKENS,
                {2},
                max_k=max_k,
            )
            assert [t for step in steps for t in step.emitted] == reference


def test_plain_decode_equals_transformers_greedy(prompts) -> None:
    model = tiny_model("llama", seed=3)
    for prompt in prompts:
        assert list(plain_decode(HFTarget(model), prompt, 24, {2})) == hf_greedy(model, prompt, 24, eos=2)


def test_a_correct_plan_is_accepted_in_long_runs(prompts) -> None:
    model = tiny_model("qwen2", seed=4, init_range=0.3)
    prompt = prompts[0]
    reference = hf_greedy(model, prompt, NEW_TOKENS, eos=2)
    steps = list(
        speculative_decode(HFTarget(model), prompt, PlanDrafter(reference), NEW_TOKENS, {2}, max_k=64)
    )
    assert [t for s in steps for t in s.emitted] == reference
    assert len(steps) == 1  # the whole answer in one verify pass


def test_output_stops_at_the_stop_token_and_the_budget() -> None:
    # A chain that always goes 0 -> 1 -> 2 -> ... : stop token 3 ends the output after 1, 2, 3.
    table = torch.full((8, 8), -10.0)
    for i in range(8):
        table[i, (i + 1) % 8] = 10.0
    steps = speculative_decode(MarkovTarget(table), [0], PlanDrafter([1, 2, 3, 4, 5]), 10, {3})
    assert [t for s in steps for t in s.emitted] == [1, 2, 3]
    steps = speculative_decode(MarkovTarget(table), [0], PlanDrafter([1, 2, 3, 4, 5]), 2, {7})
    assert [t for s in steps for t in s.emitted] == [1, 2]


def test_the_cache_holds_only_accepted_tokens() -> None:
    table = torch.full((8, 8), -10.0)
    for i in range(8):
        table[i, (i + 1) % 8] = 10.0
    target = MarkovTarget(table)
    for _ in speculative_decode(target, [0], PlanDrafter([1, 2, 6, 6, 6]), 5, set()):
        assert target.tokens == [0, *range(1, target.length)]
