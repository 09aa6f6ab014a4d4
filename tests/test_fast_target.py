"""FastTarget computes transformers' function: same logits, same greedy tokens, on CPU in fp32."""

import pytest
import torch
from helpers_models import round_weights, tiny_model

from apply_engine import cpu_kernels, fast_target
from apply_engine.compressed import MAX_ROWS
from apply_engine.drafters.plan import PlanDrafter
from apply_engine.fast_target import NATIVE_ROWS, FastTarget, make_target, unsupported_reason
from apply_engine.speculative import HFTarget, plain_decode, speculative_decode
from apply_engine.verify import argmax_rows


def reference_logits(model: torch.nn.Module, tokens: list[int]) -> torch.Tensor:
    with torch.inference_mode():
        return model(torch.tensor([tokens])).logits[0]  # [n, vocab], no cache


def generate(model: torch.nn.Module, prompt: list[int], new_tokens: int) -> list[int]:
    """transformers' own greedy decoding: the reference every target must reproduce."""
    with torch.inference_mode():
        out = model.generate(
            torch.tensor([prompt]), do_sample=False, max_new_tokens=new_tokens, eos_token_id=None
        )
    return out[0, len(prompt) :].tolist()


def assert_decodes_like(
    target: FastTarget, prompt: list[int], reference: list[int], wrong_every: int
) -> None:
    """Plain and speculative decoding over `target` both give `reference`; the plan drafted from it has
    every `wrong_every`-th token wrong, and some of it must be accepted."""
    n = len(reference)
    plan = [t if i % wrong_every else t + 1 for i, t in enumerate(reference)]
    steps = list(speculative_decode(target, prompt, PlanDrafter(plan), n, set(), max_k=12))
    assert list(plain_decode(target, prompt, n, set())) == reference
    assert [t for s in steps for t in s.emitted] == reference
    assert any(s.accepted > 1 for s in steps)


@pytest.fixture(scope="module", params=["llama", "qwen2"])
def model(request) -> torch.nn.Module:
    return tiny_model(request.param, init_range=0.1)


@pytest.mark.parametrize("pad", [True, False], ids=["padded-whole-cache", "unpadded-filled-slots"])
@pytest.mark.parametrize("attention", ["sdpa", "matmul"])
def test_logits_equal_transformers_across_prefill_verify_crop_and_continue(model, attention, pad) -> None:
    tokens = torch.randint(3, 49000, (40,), generator=torch.Generator().manual_seed(0)).tolist()
    target = FastTarget(model, max_len=64, attention=attention, buckets=(1, 2, 4, 8), pad=pad)
    prefill = target.forward(tokens[:12])  # longer than the largest bucket: unpadded
    verify = target.forward(tokens[12:17])  # padded to 8 when padding
    target.crop(14)  # keep 2 of the 5 verified tokens
    after_crop = target.forward(tokens[14:20])
    one = target.forward(tokens[20:21])
    got = torch.cat([prefill, verify[:2], after_crop, one])  # the logits of tokens[:21], in order
    torch.testing.assert_close(got, reference_logits(model, tokens[:21]), rtol=1e-4, atol=1e-4)
    assert target.length == 21
    torch.testing.assert_close(verify, reference_logits(model, tokens[:17])[12:], rtol=1e-4, atol=1e-4)


def test_reset_forgets_the_previous_sequence(model) -> None:
    target = FastTarget(model, max_len=32)
    target.forward([5, 6, 7, 8, 9])
    target.reset()
    torch.testing.assert_close(
        target.forward([11, 12]), reference_logits(model, [11, 12]), rtol=1e-4, atol=1e-4
    )


def test_speculative_over_fast_target_equals_plain_decode_and_generate(model) -> None:
    prompt = [(13 * i) % 4000 + 5 for i in range(20)]
    target = FastTarget(model, max_len=128, buckets=(1, 2, 4, 8, 16))
    assert_decodes_like(target, prompt, generate(model, prompt, 30), wrong_every=7)


def test_make_target_falls_back_to_transformers_for_other_architectures() -> None:
    from transformers import GPT2Config, GPT2LMHeadModel

    gpt2 = GPT2LMHeadModel(GPT2Config(n_layer=1, n_embd=32, n_head=2, vocab_size=100)).eval()
    assert "gpt2" in unsupported_reason(gpt2, 64)
    assert isinstance(make_target(gpt2, 64), HFTarget)


def test_on_cpu_in_fp32_it_packs_the_weights_once_and_runs_unpadded(model) -> None:
    assert unsupported_reason(model, 64) is None
    target = make_target(model, 64)
    assert isinstance(target, FastTarget) and not target.pad
    layer = target.layers[0]
    weights = (layer.qkv, layer.o, layer.gate_up, layer.down, target.lm_head)
    assert all(w.dense.is_mkldnn for w in weights)
    assert not model.model.layers[0].mlp.down_proj.weight.is_mkldnn  # the model keeps its own weights
    # random fp32 weights fit no compressed format: torch's layers run
    assert all(w.compressed is None for w in weights) and target.native is None


def test_packed_linear_computes_the_plain_product() -> None:
    x, weight, bias = torch.randn(5, 48), torch.randn(32, 48), torch.randn(32)
    got = fast_target.linear(x, fast_target.pack(weight), bias)  # [5, 32]
    torch.testing.assert_close(got, torch.nn.functional.linear(x, weight, bias), rtol=1e-5, atol=1e-5)


def test_a_failing_compile_falls_back_to_the_eager_layer(model, monkeypatch) -> None:
    def broken_compile(fn, **kwargs):
        def fails(*args, **kw):
            raise RuntimeError("inductor is not available")

        return fails

    monkeypatch.setattr(torch, "compile", broken_compile)
    target = FastTarget(model, max_len=32, compile=True)
    assert target.block is fast_target.block
    assert "inductor is not available" in target.compile_error
    torch.testing.assert_close(
        target.forward([3, 4, 5]), reference_logits(model, [3, 4, 5]), rtol=1e-4, atol=1e-4
    )


def test_prefill_fills_the_cache_as_a_forward_does_without_the_logits(model) -> None:
    tokens = [(11 * i) % 3000 + 7 for i in range(16)]
    target = FastTarget(model, max_len=32)
    target.prefill(tokens[:12])
    assert target.length == 12
    torch.testing.assert_close(
        target.forward(tokens[12:]), reference_logits(model, tokens)[12:], rtol=1e-4, atol=1e-4
    )
    with pytest.raises(ValueError, match="full"):
        target.prefill(tokens * 2)


def test_targets_of_one_model_share_its_fused_weights(model) -> None:
    first, second = FastTarget(model, max_len=32), FastTarget(model, max_len=64)
    assert first.layers is second.layers and first.lm_head is second.lm_head


def test_a_padding_target_prefills_short_and_long_prompts_alike(model) -> None:
    tokens = [(7 * i) % 2000 + 9 for i in range(24)]
    for cut in (6, 20):  # within the largest bucket (8: the padded forward), and past it (unpadded)
        target = FastTarget(model, max_len=64, buckets=(1, 2, 4, 8), pad=True)
        target.prefill(tokens[:cut])
        assert target.length == cut
        got = target.forward(tokens[cut:])
        torch.testing.assert_close(got, reference_logits(model, tokens)[cut:], rtol=1e-4, atol=1e-4)


needs_kernels = pytest.mark.skipif(
    cpu_kernels.library() is None, reason=f"no C kernels: {cpu_kernels.build_error}"
)


@pytest.fixture(scope="module", params=["llama-gguf", "qwen2-bf16"])
def compressible(request) -> torch.nn.Module:
    """Weights as loaded from a .gguf file (Q4_1 layers, Q8_0 embedding) or a bf16 checkpoint;
    qwen2 adds biases to q, k and v."""
    kind, how = request.param.split("-")
    return round_weights(tiny_model(kind, init_range=0.1), how)


@needs_kernels
@pytest.mark.parametrize("prefill_by", ["torch", "c-layers"])
def test_c_layers_compute_transformers_logits_across_prefill_verify_crop_and_continue(
    compressible, prefill_by, monkeypatch
) -> None:
    if prefill_by == "torch":  # as without AMX: products of more than MAX_ROWS rows run dense
        monkeypatch.setattr(fast_target, "max_rows", lambda: MAX_ROWS)
    tokens = torch.randint(3, 49000, (90,), generator=torch.Generator().manual_seed(2)).tolist()
    target = FastTarget(compressible, max_len=128)
    assert target.native is not None  # every matrix compressed: a forward of a few tokens runs in C
    target.c_prefill = prefill_by == "c-layers"  # whichever this CPU timed faster, both paths are tested
    cut = MAX_ROWS + 5
    prefill = target.forward(tokens[:cut])  # the cache filled by one path, then C layers go on
    verify = target.forward(tokens[cut : cut + 7])  # C layers over the cache torch wrote
    target.crop(cut + 3)
    after_crop = target.forward(tokens[cut + 3 : cut + 10])
    one = target.forward(tokens[cut + 10 : cut + 11])
    got = torch.cat([prefill, verify[:3], after_crop, one])  # the logits of tokens[: cut + 11], in order
    torch.testing.assert_close(got, reference_logits(compressible, tokens[: cut + 11]), rtol=1e-4, atol=1e-4)


@needs_kernels
def test_a_prefill_longer_than_a_slice_of_c_layers_runs_in_order(compressible) -> None:
    tokens = torch.randint(
        3, 49000, (2 * NATIVE_ROWS + 20,), generator=torch.Generator().manual_seed(3)
    ).tolist()
    target = FastTarget(compressible, max_len=len(tokens) + 8)
    target.c_prefill = True
    target.prefill(tokens[:-1])  # three slices, each attending to the ones before it
    torch.testing.assert_close(
        target.forward(tokens[-1:]), reference_logits(compressible, tokens)[-1:], rtol=1e-4, atol=1e-4
    )


@needs_kernels
def test_the_prefill_path_is_timed_once_per_shape_and_kept_in_the_cache(
    compressible, monkeypatch, tmp_path
) -> None:
    monkeypatch.setenv("FASTAPPLY_CACHE", str(tmp_path))
    timed = []
    measure = FastTarget.prefills_faster_in_c
    monkeypatch.setattr(FastTarget, "prefills_faster_in_c", lambda self: timed.append(1) or measure(self))
    first = FastTarget(compressible, max_len=128)
    assert first.length == 0 and first.cached == []  # the timing leaves nothing behind
    second = FastTarget(compressible, max_len=256)  # another process would read the same file
    assert timed == ([] if cpu_kernels.amx() else [1])  # AMX tiles always win; elsewhere timed once
    assert first.c_prefill == second.c_prefill
    assert list((tmp_path / "prefill").glob("*.json")) or cpu_kernels.amx()
    assert not FastTarget(compressible, max_len=MAX_ROWS).c_prefill  # every forward fits the C layers


@needs_kernels
def test_speculative_over_c_layers_equals_generate(compressible) -> None:
    prompt = [(17 * i) % 5000 + 5 for i in range(24)]
    assert_decodes_like(
        FastTarget(compressible, max_len=128), prompt, generate(compressible, prompt, 40), wrong_every=9
    )


@needs_kernels
def test_greedy_choices_are_the_argmax_of_the_logits(compressible) -> None:
    """Over the GGUF model's q8_0 vocabulary a CPU with AVX512-VNNI screens for them (compressed.Screen);
    over the bf16 one they come from the logits."""
    tokens = torch.randint(3, 49000, (60,), generator=torch.Generator().manual_seed(4)).tolist()
    screened, reference = FastTarget(compressible, max_len=128), FastTarget(compressible, max_len=128)
    assert (screened.screen is not None) == (
        cpu_kernels.screens() and compressible.config.model_type == "llama"
    )
    for target in (screened, reference):
        target.prefill(tokens[:30])
    for start, end in ((30, 37), (37, 38), (38, 60)):
        assert screened.greedy(tokens[start:end]) == argmax_rows(reference.forward(tokens[start:end]))
    assert screened.length == reference.length == 60


def test_a_prompt_sharing_the_last_ones_prefix_prefills_only_the_rest(model, monkeypatch) -> None:
    first = [(5 * i) % 3000 + 11 for i in range(30)]
    second = [*first[:18], *[(3 * i) % 2000 + 7 for i in range(10)]]  # the same 18 tokens, then others
    target = FastTarget(model, max_len=64)
    target.prefill(first)
    target.forward([42, 43])  # decoding goes on past the prompt, then a new request starts
    target.reset()
    computed = []
    run = target.run
    monkeypatch.setattr(
        target, "run", lambda ids, *args, **kw: computed.append(len(ids)) or run(ids, *args, **kw)
    )
    target.prefill(second[:-1])
    assert computed == [len(second) - 1 - 18] and target.length == len(second) - 1
    torch.testing.assert_close(
        target.forward(second[-1:]), reference_logits(model, second)[-1:], rtol=1e-4, atol=1e-4
    )


@needs_kernels
@pytest.mark.parametrize(
    ("kind", "hidden", "intermediate", "heads"),
    [("qwen2", 896, 4864, 14), ("llama", 1024, 2816, 8)],
    ids=["qwen2-0.5b-widths-group-7", "head-dim-128-untied-head"],
)
def test_c_layers_at_real_model_widths(kind, hidden, intermediate, heads) -> None:
    from transformers import LlamaConfig, LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM

    config, cls = (Qwen2Config, Qwen2ForCausalLM) if kind == "qwen2" else (LlamaConfig, LlamaForCausalLM)
    torch.manual_seed(0)
    model = cls(
        config(
            vocab_size=3000, hidden_size=hidden, intermediate_size=intermediate, num_hidden_layers=2,
            num_attention_heads=heads, num_key_value_heads=2, tie_word_embeddings=kind == "qwen2",
        )
    ).float().eval()  # fmt: skip
    model = round_weights(model, "bf16")
    tokens = torch.randint(0, 3000, (111,), generator=torch.Generator().manual_seed(1)).tolist()
    target = FastTarget(model, max_len=256)
    assert target.native is not None
    first = target.forward(tokens[:60])  # up to MAX_ROWS new tokens: C layers
    target.crop(50)
    rest = target.forward(tokens[50:110])  # hundreds of queries per KV head, attended 8 at a time
    last = target.forward(tokens[110:])  # one token: its group's queries attended 4 (or 8) at a time
    got = torch.cat([first[:50], rest, last])
    torch.testing.assert_close(got, reference_logits(model, tokens), rtol=1e-4, atol=1e-4)
