"""`fastapply bench gpu`: verify-forward latency vs K against the memory-bandwidth floor.

For each Qwen2-shaped config (random weights, bf16 on CUDA, fp32 on CPU), after a 1024-token context:
- the floor: weight bytes / measured device-to-device copy bandwidth;
- the latency of one FastTarget forward over K new tokens (synchronised, host launch included; on
  CUDA a graph replay per bucket) for each attention variant with eager layers, then compiled layers
  for the faster variant; transformers' StaticCache graphs at K=1 and 64 for comparison;
- end-to-end tok/s of the real speculative loop when each step emits `tau` tokens on average, and
  the host time per step outside the forward (drafting, argmax acceptance, crop, uploads).
Random weights give near-flat distributions, so acceptance is scripted (the argmax is the script's
next token) while every step pays one real forward. Checks: FastTarget's logits against
transformers' (fp32 tiny model, and each variant in bf16 at each size), and the loop over FastTarget
against transformers' greedy generate (fp32). Imports only torch, numpy, transformers and rich.
"""

import copy
import json
import math
import statistics
import time
from pathlib import Path

import torch

from apply_engine.bench.cuda_decode import StaticTarget
from apply_engine.drafters.plan import PlanDrafter
from apply_engine.fast_target import ATTENTIONS, BUCKETS, FastTarget
from apply_engine.speculative import HFTarget, Target, speculative_decode

CONTEXT = 1024
# The drafter's tau on the fixtures when the target writes the expected merge: the oracle tau of
# `fastapply bench speed --cases 8` (2026-11-23, docs/BENCHMARKS.md).
FIXTURE_TAU = 47.9
SHAPES = {  # hidden, intermediate, layers, heads, kv heads, vocab
    "tiny": (64, 128, 2, 4, 2, 4096),
    "0.5b": (896, 4864, 24, 14, 2, 151936),
    "1.5b": (1536, 8960, 28, 12, 2, 151936),
}


def build(size: str, device: torch.device, dtype: torch.dtype) -> torch.nn.Module:
    from transformers import Qwen2Config, Qwen2ForCausalLM

    hidden, inter, layers, heads, kv, vocab = SHAPES[size]
    config = Qwen2Config(
        vocab_size=vocab,
        hidden_size=hidden,
        intermediate_size=inter,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv,
        max_position_embeddings=8192,
        tie_word_embeddings=True,
        initializer_range=0.3 if size == "tiny" else 0.02,
    )
    torch.manual_seed(0)
    with torch.device(device):
        model = Qwen2ForCausalLM(config)
    return model.to(dtype).eval()


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def copy_bandwidth(device: torch.device, nbytes: int = 1 << 30) -> float:
    """Bytes/s of a device-to-device copy (read + write counted)."""
    if device.type == "cpu":
        nbytes = 1 << 26
    src = torch.randint(0, 255, (nbytes,), dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    dst.copy_(src)
    sync(device)
    times = []
    for _ in range(10):
        start = time.perf_counter()
        dst.copy_(src)
        sync(device)
        times.append(time.perf_counter() - start)
    return 2 * nbytes / min(times)


def forward_ms(target: FastTarget | StaticTarget, k: int, reps: int) -> float:
    """Median latency of one forward over k new tokens after the context, host launch included."""
    tokens = [(7 * i) % 100 + 1 for i in range(k)]
    times = []
    for _ in range(reps):
        sync(target.device)
        start = time.perf_counter()
        target.forward(tokens)
        sync(target.device)
        times.append(time.perf_counter() - start)
        target.crop(CONTEXT)
    return statistics.median(times) * 1000


def latency_table(target: FastTarget | StaticTarget, ks: list[int], reps: int) -> dict[int, float]:
    target.reset()
    target.forward(list(range(1, CONTEXT + 1)))
    return {k: forward_ms(target, k, reps) for k in ks}


CHECK_TOKENS = [(37 * i) % 3000 + 11 for i in range(64)]


def reference_logits(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    """transformers' logits of CHECK_TOKENS in the model's dtype and from an fp32 copy of it."""
    ids = torch.tensor([CHECK_TOKENS], device=model.device)
    with torch.inference_mode():
        same = model(ids).logits[0].float()  # [64, vocab]
        fp32 = copy.deepcopy(model).float()
        out = {"same_dtype": same, "fp32": fp32(ids).logits[0].float()}
    del fp32
    return out


def rel_err(got: torch.Tensor, ref: torch.Tensor) -> float:
    return float((got - ref).norm() / ref.norm())


def logits_agreement(target: FastTarget, refs: dict[str, torch.Tensor]) -> dict:
    """A 48-token prefill then a 16-token verify against transformers' logits (same dtype, fp32)."""
    target.reset()
    got = torch.cat([target.forward(CHECK_TOKENS[:48]), target.forward(CHECK_TOKENS[48:])]).float()
    target.reset()
    return {
        "rel_err_vs_transformers": rel_err(got, refs["same_dtype"]),
        "rel_err_vs_fp32": rel_err(got, refs["fp32"]),
        "argmax_agree_vs_fp32": float((got.argmax(-1) == refs["fp32"].argmax(-1)).float().mean()),
    }


class PacedDrafter:
    """Proposes the script ahead of the output, capped so that steps emit `tau` tokens on average."""

    name = "paced"

    def __init__(self, script: list[int], tau: float) -> None:
        self.script, self.tau, self.steps = script, tau, 0

    def propose(self, context: list[int], k: int) -> list[int]:
        step, self.steps = self.steps, self.steps + 1
        emitted = math.floor((step + 1) * self.tau) - math.floor(step * self.tau)  # drafts + bonus
        return self.script[len(context) : len(context) + min(k, emitted - 1)]


class ScriptedCost:
    """The inner target's forward (its cost) with a scripted answer (its acceptance).

    The argmax at each verify position is made the script's next token. Without an inner target
    the logits are a fixed device buffer: the loop then costs only its host work and one sync.
    """

    def __init__(self, inner: Target | None, prompt_len: int, script: list[int], vocab: int, device) -> None:
        self.inner, self.prompt_len, self.length = inner, prompt_len, 0
        padded = script + script[-1:] * BUCKETS[-1]  # answers past the script's end repeat its last token
        self.answers = torch.tensor(padded, device=device)
        self.rows = torch.arange(BUCKETS[-1], device=device)
        self.blank = torch.zeros(BUCKETS[-1], vocab, dtype=torch.bfloat16, device=device)

    def reset(self) -> None:
        self.crop(0)

    @torch.inference_mode()
    def forward(self, tokens: list[int]) -> torch.Tensor:
        n, at = len(tokens), max(self.length + 1 - self.prompt_len, 0)
        logits = self.inner.forward(tokens) if self.inner else self.blank[:n].clone()  # [n, vocab]
        if n <= BUCKETS[-1]:  # a verify pass (the prefill's logits are not read)
            logits[self.rows[:n], self.answers[at : at + n]] = 1e4
        self.length += n
        return logits

    def crop(self, length: int) -> None:
        self.length = min(length, self.length)
        if self.inner:
            self.inner.crop(length)


def run_loop(target: ScriptedCost, prompt: list[int], drafter, new_tokens: int, max_k: int) -> dict:
    sync(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
    start = time.perf_counter()
    steps = list(speculative_decode(target, prompt, drafter, new_tokens, set(), max_k=max_k))
    sync(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
    seconds = time.perf_counter() - start
    return {"steps": steps, "seconds": seconds, "tokens": [t for s in steps for t in s.emitted]}


def end_to_end(target: FastTarget, vocab: int, tau: float, new_tokens: int, forward_ms_at: dict) -> dict:
    """tok/s of one-token decoding and of the loop at `tau`, and the host time per step."""
    prompt = list(range(1, CONTEXT + 1))
    script = [(31 * i) % 1000 + 3 for i in range(new_tokens)]
    scripted = ScriptedCost(target, len(prompt), script, vocab, target.device)
    plain = run_loop(scripted, prompt, PacedDrafter(script, 1.0), new_tokens, 0)
    ours = run_loop(scripted, prompt, PacedDrafter(script, tau), new_tokens, BUCKETS[-1] - 1)
    host_only = ScriptedCost(None, len(prompt), script, vocab, target.device)
    loop = run_loop(host_only, prompt, PacedDrafter(script, tau), new_tokens, BUCKETS[-1] - 1)
    steps = ours["steps"]
    widths = [s.drafted + 1 for s in steps]
    bucket = next(b for b in target.buckets if b >= statistics.median(widths))
    step_ms = statistics.median(s.step_s for s in steps) * 1000
    return {
        "tokens": len(ours["tokens"]),
        "steps": len(steps),
        "tau": len(ours["tokens"]) / len(steps),
        "plain_tok_s": new_tokens / sum(s.step_s for s in plain["steps"]),
        "tok_s": len(ours["tokens"]) / sum(s.step_s for s in steps),  # decoding; the prefill apart
        "tok_s_with_prefill": len(ours["tokens"]) / ours["seconds"],
        "exact_script": ours["tokens"] == script and plain["tokens"] == script,
        "median_step_ms": step_ms,
        "bucket": bucket,
        "forward_ms_at_bucket": forward_ms_at[bucket],
        "step_minus_forward_ms": step_ms - forward_ms_at[bucket],
        "loop_only_ms_per_step": statistics.median(s.step_s for s in loop["steps"]) * 1000,
        "drafting_ms_per_step": statistics.mean(s.draft_s for s in loop["steps"]) * 1000,
    }


def fp32_checks(device: torch.device, graphs: bool, compile: bool) -> dict:
    """Tiny fp32 model: FastTarget's logits match transformers' (prefill, verify, crop, continue),
    and the loop over FastTarget equals transformers' greedy generate, for each variant."""
    model = build("tiny", device, torch.float32)
    tokens = [(13 * i) % 4000 + 5 for i in range(40)]
    with torch.inference_mode():
        ref = model(torch.tensor([tokens], device=device)).logits[0]  # [40, vocab]
        generated = model.generate(torch.tensor([tokens], device=device), do_sample=False, max_new_tokens=64)
    reference = generated[0, len(tokens) :].tolist()
    plan = [t if i % 9 else (t + 1) % 4096 for i, t in enumerate(reference)]
    out: dict = {}
    for name, kwargs in variant_kwargs(compile):
        target = FastTarget(model, 256, graphs=graphs, buckets=(1, 2, 4, 8, 16), **kwargs)
        got = [target.forward(tokens[:20]), target.forward(tokens[20:25])[:3]]
        target.crop(23)
        got += [target.forward(tokens[23:31]), target.forward(tokens[31:32])]
        steps = speculative_decode(target, tokens, PlanDrafter(plan), 64, set(), max_k=15)
        out[name] = {
            "max_abs_err": float((torch.cat(got) - ref[:32]).abs().max()),
            "lossless": [t for s in steps for t in s.emitted] == reference,
            "graphs": bool(target.graphs),
            "compile_error": target.compile_error,
        }
    hf = speculative_decode(HFTarget(model), tokens, PlanDrafter(plan), 64, set(), max_k=15)
    out["hf_lossless"] = [t for s in hf for t in s.emitted] == reference
    return out


def variant_kwargs(compile: bool, triton: bool = False) -> list[tuple[str, dict]]:
    """Each attention with eager torch layers, then (if asked) the default one with the layer
    compiled, then (if asked) the Triton layers (apply_engine/triton_layers.py).

    The compiled variant is matmul whatever the eager ranking: compiling fuses its softmax and
    copies, while SDPA stays one cuDNN kernel (on an H100, 51 us a layer at K=32).
    """
    variants = [(f"{a}", {"attention": a, "kernels": "torch"}) for a in ATTENTIONS]
    if compile:
        variants.append(("matmul+compile", {"attention": "matmul", "compile": True, "kernels": "torch"}))
    if triton:
        variants += [("triton", {"kernels": "triton"}), ("triton-serial", {"kernels": "triton-serial"})]
    return variants


def measure_variant(
    model: torch.nn.Module, kwargs: dict, refs: dict, ks: list[int], reps: int, graphs: bool
) -> tuple[FastTarget, dict]:
    start = time.perf_counter()
    target = FastTarget(model, CONTEXT + 1024, graphs=graphs, buckets=tuple(ks), **kwargs)
    built_s = time.perf_counter() - start
    figures = {
        "build_s": built_s,
        "triton_error": target.triton_error,
        "triton_plans": target.triton and {m: plan for m, plan in target.triton.plans.items() if m in ks},
        "graphs": bool(target.graphs),
        "graph_error": target.graph_error,
        "compile_error": target.compile_error,
        "logits": logits_agreement(target, refs),
        "ms": latency_table(target, ks, reps),
    }
    return target, figures


def kernel_breakdown(target: FastTarget, k: int, top: int = 14) -> dict:
    """Device time per kernel of one forward over k tokens run eagerly (the kernels a graph replays)."""
    from torch.profiler import ProfilerActivity, profile

    on_cuda = target.device.type == "cuda"
    kind = torch.autograd.DeviceType.CUDA if on_cuda else torch.autograd.DeviceType.CPU
    ids = torch.ones(k, dtype=torch.long, device=target.device)
    positions = torch.arange(CONTEXT, CONTEXT + k, device=target.device)
    target.run(ids, positions)
    with profile(activities=[ProfilerActivity.CUDA if on_cuda else ProfilerActivity.CPU]) as prof:
        target.run(ids, positions)
        sync(target.device)
    rows: dict[str, list[float]] = {}
    for event in prof.events():
        if event.device_type == kind:
            rows.setdefault(event.name[:90], []).append(event.time_range.elapsed_us() / 1000)
    ranked = sorted(rows.items(), key=lambda item: -sum(item[1]))
    return {
        "k": k,
        "kernels": sum(len(times) for times in rows.values()),
        "sum_ms": sum(sum(times) for times in rows.values()),
        "top": [{"name": name, "count": len(t), "ms": sum(t)} for name, t in ranked[:top]],
    }


def bench_size(size: str, device: torch.device, dtype: torch.dtype, opts: dict) -> dict:
    """Floor, latency vs K per variant, the transformers comparison and the loop end to end."""
    model = build(size, device, dtype)
    graphs = device.type == "cuda"
    weight_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
    floor_ms = weight_bytes / copy_bandwidth(device) * 1000
    ks = [k for k in opts["buckets"] if k <= opts["max_k"]]
    e2e_bucket = next(b for b in ks if b >= math.ceil(opts["tau"]))
    refs = reference_logits(model)
    targets, variants = {}, {}
    for name, kwargs in variant_kwargs(opts["compile"], opts["triton"]):
        if opts["variants"] and name not in opts["variants"]:
            continue
        targets[name], variants[name] = measure_variant(model, kwargs, refs, ks, opts["reps"], graphs)
    best = min(variants, key=lambda v: variants[v]["ms"][e2e_bucket])
    e2e = end_to_end(targets[best], SHAPES[size][5], opts["tau"], opts["new_tokens"], variants[best]["ms"])
    out = {
        "weight_bytes": weight_bytes,
        "floor_ms": floor_ms,
        "transformers_rel_err_vs_fp32": rel_err(refs["same_dtype"], refs["fp32"]),
        "variants": variants,
        "best": best,
        "best_over_floor": {k: ms / floor_ms for k, ms in variants[best]["ms"].items()},
        "kernel_breakdown": {name: kernel_breakdown(targets[name], e2e_bucket) for name in targets},
        "transformers_static_graph_ms": transformers_ms(
            model, [k for k in (1, 64) if k in ks], opts["reps"], graphs
        ),
        "end_to_end": {"variant": best, **e2e},
    }
    del targets, model, refs
    if device.type == "cuda":
        torch.cuda.empty_cache()
    return out


def transformers_ms(model: torch.nn.Module, ks: list[int], reps: int, graphs: bool) -> dict[int, float]:
    """The previous target (transformers' forward over a StaticCache, CUDA graphs) for comparison."""
    target = StaticTarget(model, CONTEXT + 1024, graphs=graphs)
    table = latency_table(target, ks, reps)
    del target
    return table


def main(
    sizes: str = "0.5b,1.5b",
    max_k: int = 256,
    tau: float | None = None,
    device: str = "auto",
    json_out: Path | None = None,
    reps: int = 20,
    new_tokens: int = 1000,
    compile: bool = True,
    buckets: str | None = None,
    variants: str | None = None,
) -> dict:
    """`buckets` ("1,32") limits the graphs and the K measured; `variants` ("matmul+compile,triton")
    the FastTarget variants measured."""
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    torch_device = torch.device(device)
    on_cuda = torch_device.type == "cuda"
    dtype = torch.bfloat16 if on_cuda else torch.float32
    opts = {
        "max_k": max_k,
        "reps": reps,
        "tau": tau if tau is not None else FIXTURE_TAU,
        "new_tokens": new_tokens,
    }
    opts["compile"] = compile and on_cuda
    opts["triton"] = on_cuda and dtype != torch.float32 and triton_installed()
    opts["variants"] = [v.strip() for v in variants.split(",")] if variants else None
    opts["buckets"] = tuple(int(b) for b in buckets.split(",")) if buckets else BUCKETS
    result: dict = {
        "device": torch.cuda.get_device_name() if on_cuda else "cpu",
        "torch": torch.__version__,
        "dtype": str(dtype),
        "context": CONTEXT,
        "copy_bandwidth_gb_s": copy_bandwidth(torch_device) / 1e9,
        "tau": opts["tau"],
        "tau_source": "given" if tau is not None else f"the fixtures' oracle tau, {FIXTURE_TAU}",
        "fp32_checks": fp32_checks(torch_device, on_cuda, opts["compile"]),
        "sizes": {},
    }
    print(json.dumps(result, indent=1), flush=True)
    for size in [s.strip() for s in sizes.split(",") if s.strip()]:
        result["sizes"][size] = bench_size(size, torch_device, dtype, opts)
        report(size, result["sizes"][size])
        if json_out is not None:  # after each size, so a run cut short keeps what it measured
            Path(json_out).parent.mkdir(parents=True, exist_ok=True)
            Path(json_out).write_text(json.dumps(result, indent=1) + "\n")
    return result


def triton_installed() -> bool:
    try:
        import triton  # noqa: F401
    except ImportError:
        return False
    return True


def report(size: str, figures: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    floor = figures["floor_ms"]
    table = Table(title=f"bench gpu {size}: forward over K new tokens after {CONTEXT} (floor {floor:.3f} ms)")
    names = list(figures["variants"])
    for column in ("K", *[f"{n} ms" for n in names], f"{figures['best']} / floor", "transformers ms"):
        table.add_column(column, justify="right")
    best = figures["variants"][figures["best"]]["ms"]
    for k in best:
        hf = figures["transformers_static_graph_ms"].get(k)
        cells = [f"{figures['variants'][n]['ms'][k]:.3f}" for n in names]
        table.add_row(str(k), *cells, f"{best[k] / floor:.2f}", "" if hf is None else f"{hf:.3f}")
    console = Console(width=160)
    console.print(table)
    e2e = figures["end_to_end"]
    console.print(
        f"end to end ({e2e['variant']}): {e2e['tok_s']:.0f} tok/s at tau {e2e['tau']:.2f}"
        f" (plain {e2e['plain_tok_s']:.0f} tok/s); step {e2e['median_step_ms']:.3f} ms ="
        f" forward {e2e['forward_ms_at_bucket']:.3f} + {e2e['step_minus_forward_ms']:.3f};"
        f" loop alone {e2e['loop_only_ms_per_step']:.3f} ms/step; exact: {e2e['exact_script']}"
    )
