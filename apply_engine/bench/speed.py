"""`fastapply bench speed`: plain greedy vs transformers prompt lookup (vs assisted) vs ours.

Ours is the model engine's decoder: it verifies on the engine's target (FastTarget where the model
allows, as `fastapply apply --engine model` does) and drafts from the plan and prompt lookup (and the
draft model when one is given, `self:N` included), sized by that target's verify-cost curve,
measured once before the cases. The baselines run transformers' own forward; the JSON keeps both
forwards' cost curves, so the share of the speed-up that comes from the forward alone is on record.

For each fixture case with an expected merge, in one process: the same prompt and token budget for
every method; tok/s counts emitted tokens over wall time including prefill. `identical` compares each
method's tokens with plain greedy decoding. The oracle run replaces the target by a scripted model
whose argmax is always the expected answer's next token: it costs nothing, so its tau measures the
drafter alone (how much of the right answer the structural plan and lookup predict).
"""

import time
from collections.abc import Callable
from pathlib import Path

import torch

from apply_engine.bench.report import print_table, write_json
from apply_engine.drafters.cost import CostCurve, measure_cost_curve
from apply_engine.drafters.draft_model import DraftModelDrafter
from apply_engine.drafters.hybrid import HybridDrafter
from apply_engine.drafters.lookup import LookupDrafter
from apply_engine.drafters.plan import PlanDrafter
from apply_engine.fast_target import make_target
from apply_engine.fixtures import FixtureCase, load_cases
from apply_engine.model_merge import MAX_K, forward_kind, load_draft, newline_tokens
from apply_engine.models import LoadedModel, load_model
from apply_engine.prompt import FASTAPPLY, build_prompt, predicted_answer
from apply_engine.speculative import Drafter, HFTarget, Step, Target, speculative_decode
from apply_engine.structural import merge


class ScriptedTarget:
    """A fake target whose argmax at every position is the script's next token (then EOS)."""

    def __init__(self, prompt_len: int, script: list[int], eos: int, vocab: int) -> None:
        self.prompt_len, self.script, self.eos, self.vocab = prompt_len, script, eos, vocab
        self.length = 0

    def reset(self) -> None:
        self.length = 0

    def forward(self, tokens: list[int]) -> torch.Tensor:
        logits = torch.zeros(len(tokens), self.vocab)  # [n, vocab]
        for i in range(len(tokens)):
            nxt = self.length + i + 1 - self.prompt_len  # output index of the token predicted here
            logits[i, self.script[nxt] if 0 <= nxt < len(self.script) else self.eos] = 1.0
        self.length += len(tokens)
        return logits

    def crop(self, length: int) -> None:
        self.length = length


class Case:
    """One fixture turned into token ids: prompt, the drafters' sources and the oracle's script."""

    def __init__(self, fixture: FixtureCase, tokenizer: object) -> None:
        def encode(text: str) -> list[int]:
            return tokenizer.encode(text, add_special_tokens=False)

        self.name = fixture.name
        prompt = build_prompt(tokenizer, FASTAPPLY, fixture.original, fixture.snippet, fixture.language)
        self.prompt = encode(prompt)
        prediction = merge(fixture.original, fixture.snippet, fixture.language, fixture.path)
        self.plan = encode(predicted_answer(FASTAPPLY, prediction.merged)) if prediction.merged else None
        self.script = encode(predicted_answer(FASTAPPLY, fixture.expected or ""))

    def drafter(
        self, cost: CostCurve, newlines: frozenset[int], draft: Drafter | None = None
    ) -> HybridDrafter:
        drafters: list[Drafter] = [PlanDrafter(self.plan, newlines)] if self.plan else []
        drafters.append(LookupDrafter(self.prompt))
        return HybridDrafter([*drafters, *([draft] if draft else [])], cost)


def timed(run: Callable[[], list[int]]) -> tuple[list[int], float]:
    start = time.perf_counter()
    tokens = run()
    return tokens, time.perf_counter() - start


def hf_generate(target: LoadedModel, prompt: list[int], budget: int, eos: int, **kwargs) -> list[int]:
    input_ids = torch.tensor([prompt], device=target.device)  # [1, n]
    out = target.model.generate(
        input_ids,
        attention_mask=torch.ones_like(input_ids),
        do_sample=False,
        max_new_tokens=budget,
        eos_token_id=eos,
        pad_token_id=eos,
        **kwargs,
    )
    return out[0, len(prompt) :].tolist()


def run_ours(
    target, drafter: HybridDrafter, case: Case, budget: int, eos: int, max_k: int
) -> tuple[list[int], list[Step]]:
    steps = list(speculative_decode(target, case.prompt, drafter, budget, {eos}, max_k=max_k))
    return [t for s in steps for t in s.emitted], steps


def bench_case(
    target: LoadedModel,
    verifier: Target,
    draft: LoadedModel | None,
    case: Case,
    budget: int,
    eos: int,
    cost: CostCurve,
    newlines: frozenset[int],
    keep_prefix: bool = False,
) -> dict:
    """Every method on one case; tokens compared with plain greedy. Ours prefills the whole prompt
    unless `keep_prefix` (then the prefix shared with the previous case's prompt is kept, as a
    server's pooled target keeps it between requests)."""
    max_k = MAX_K[target.device.type]
    with torch.inference_mode():
        greedy, greedy_s = timed(lambda: hf_generate(target, case.prompt, budget, eos))
        lookup, lookup_s = timed(
            lambda: hf_generate(target, case.prompt, budget, eos, prompt_lookup_num_tokens=10)
        )
        assisted, assisted_s = [], None
        if draft is not None:
            assisted, assisted_s = timed(
                lambda: hf_generate(target, case.prompt, budget, eos, assistant_model=draft.model)
            )
        if not keep_prefix and hasattr(verifier, "forget"):
            verifier.forget()
        start = time.perf_counter()
        draft_drafter = DraftModelDrafter(HFTarget(draft.model), case.prompt) if draft else None
        drafter = case.drafter(cost, newlines, draft_drafter)
        ours, steps = run_ours(verifier, drafter, case, budget, eos, max_k)
        ours_s = time.perf_counter() - start
        oracle_target = ScriptedTarget(len(case.prompt), case.script, eos, len(target.tokenizer))
        oracle_drafter = case.drafter(cost, newlines)
        oracle, oracle_steps = run_ours(oracle_target, oracle_drafter, case, len(case.script) + 1, eos, max_k)
    return {
        "case": case.name,
        "tokens": len(greedy),
        "greedy_s": greedy_s,
        "prompt_lookup_s": lookup_s,
        "assisted_s": assisted_s,
        "ours_s": ours_s,
        "ours_tokens": len(ours),
        "ours_forwards": len(steps),
        "ours_tau": len(ours) / len(steps),
        "draft_s": sum(s.draft_s for s in steps),
        "step_s": sum(s.step_s for s in steps),
        "ours_by_source": by_source(steps),
        "oracle_tokens": len(oracle),
        "oracle_forwards": len(oracle_steps),
        "oracle_tau": len(oracle) / len(oracle_steps),
        "oracle_exact": oracle[: len(case.script)] == case.script,
        "identical": ours == greedy,
        "prompt_lookup_identical": lookup == greedy,
        "assisted_identical": assisted == greedy if draft is not None else None,
    }


def by_source(steps: list[Step]) -> dict[str, dict]:
    """Per drafting source (None: plain one-token steps): steps, drafted, emitted, seconds."""
    table: dict[str, dict] = {}
    for step in steps:
        row = table.setdefault(str(step.source), {"steps": 0, "drafted": 0, "emitted": 0, "seconds": 0.0})
        row["steps"] += 1
        row["drafted"] += step.drafted
        row["emitted"] += len(step.emitted)
        row["seconds"] += step.step_s
    return table


def milliseconds(curve: CostCurve) -> dict[str, float]:
    return {str(n): s * 1000 for n, s in zip(curve.sizes, curve.seconds, strict=True)}


def summarise(rows: list[dict]) -> dict:
    """Rates summed over cases (total tokens / total seconds); identical only if every case was."""

    def rate(key: str) -> float | None:
        if any(r[key] is None for r in rows):
            return None
        return sum(r["tokens"] for r in rows) / sum(r[key] for r in rows)

    summary = {
        "cases": len(rows),
        "tokens": sum(r["tokens"] for r in rows),
        "greedy_tok_s": rate("greedy_s"),
        "prompt_lookup_tok_s": rate("prompt_lookup_s"),
        "assisted_tok_s": rate("assisted_s"),
        "ours_tok_s": rate("ours_s"),
        "ours_tau": sum(r["ours_tokens"] for r in rows) / sum(r["ours_forwards"] for r in rows),
        "oracle_tau": sum(r["oracle_tokens"] for r in rows) / sum(r["oracle_forwards"] for r in rows),
        "drafting_share": sum(r["draft_s"] for r in rows) / sum(r["step_s"] for r in rows),
        "identical": all(r["identical"] for r in rows),
        "prompt_lookup_identical": all(r["prompt_lookup_identical"] for r in rows),
    }
    summary["speedup_vs_greedy"] = summary["ours_tok_s"] / summary["greedy_tok_s"]
    summary["speedup_vs_prompt_lookup"] = summary["ours_tok_s"] / summary["prompt_lookup_tok_s"]
    return summary


def main(
    model: str = "smollm2-135m",
    draft_model: str | None = None,
    cases: int = 8,
    device: str = "auto",
    dtype: str | None = None,
    fixtures: Path = Path("fixtures"),
    json_out: Path | None = None,
    max_new_tokens: int | None = None,
    keep_prefix: bool = False,
) -> dict:
    target = load_model(model, device, dtype)
    draft = load_draft(draft_model, target, device, dtype) if draft_model else None
    eos = target.tokenizer.eos_token_id
    chosen = [c for c in load_cases(Path(fixtures)) if c.expected is not None][:cases]
    cases_ = [Case(fixture, target.tokenizer) for fixture in chosen]
    budgets = [max_new_tokens or len(case.script) + 32 for case in cases_]
    # Built and measured once, as the engine does on its first request (its targets are pooled).
    max_k = MAX_K[target.device.type]
    context = cases_[0].prompt[:512] if cases_ else []
    longest = max((len(c.prompt) + b for c, b in zip(cases_, budgets, strict=True)), default=0)
    verifier = make_target(target.model, max(longest, len(context) + max_k))
    cost = measure_cost_curve(verifier, context, max_k)
    hf_cost = measure_cost_curve(HFTarget(target.model), context, max_k)
    if hasattr(verifier, "forget"):
        verifier.forget()  # the measurement's context is the first case's prompt: not a head start
    newlines = newline_tokens(target.tokenizer)
    rows = []
    for case, budget in zip(cases_, budgets, strict=True):
        rows.append(bench_case(target, verifier, draft, case, budget, eos, cost, newlines, keep_prefix))
    summary = summarise(rows)
    summary["verifier"] = forward_kind(verifier)  # e.g. FastTarget+c-layers+amx: which forward verified
    summary["prefill"] = "c-layers" if getattr(verifier, "c_prefill", False) else "torch"  # timed faster here
    summary["keep_prefix"] = keep_prefix
    summary["cost_curve_ms"] = milliseconds(cost)
    summary["hf_cost_curve_ms"] = milliseconds(hf_cost)
    print_table(
        f"bench speed: {model} on {target.device.type} ({target.dtype}), tok/s",
        ["case", "tokens", "greedy", "prompt lookup", "assisted", "ours", "tau", "oracle tau", "identical"],
        [
            [
                r["case"],
                r["tokens"],
                r["tokens"] / r["greedy_s"],
                r["tokens"] / r["prompt_lookup_s"],
                r["tokens"] / r["assisted_s"] if r["assisted_s"] else None,
                r["tokens"] / r["ours_s"],
                r["ours_tau"],
                r["oracle_tau"],
                str(r["identical"]),
            ]
            for r in rows
        ]
        + [
            [
                "all",
                summary["tokens"],
                summary["greedy_tok_s"],
                summary["prompt_lookup_tok_s"],
                summary["assisted_tok_s"],
                summary["ours_tok_s"],
                summary["ours_tau"],
                summary["oracle_tau"],
                str(summary["identical"]),
            ]
        ],
    )
    result = {"model": model, "device": target.device.type, "summary": summary, "cases": rows}
    if json_out is not None:
        write_json(json_out, result)
    return result
