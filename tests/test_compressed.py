"""Weights are stored compressed only when every one decodes to its own bits; products stay fp32."""

import os
import subprocess
import sys

import pytest
import torch
from gguf import GGMLQuantizationType

from apply_engine import compressed, cpu_kernels
from tests.helpers_models import gguf_roundtrip, round_weights, tiny_model

pytestmark = pytest.mark.skipif(
    cpu_kernels.library() is None, reason=f"no C kernels: {cpu_kernels.build_error}"
)


def random_weight(out: int, inp: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(out, inp, generator=torch.Generator().manual_seed(seed)) * 0.05


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda w: gguf_roundtrip(w, GGMLQuantizationType.Q4_1), "q4_1"),
        (lambda w: gguf_roundtrip(w, GGMLQuantizationType.Q8_0), "q8_0"),
        (lambda w: w.bfloat16().float(), "bf16"),
    ],
    ids=["gguf-q4_1", "gguf-q8_0", "bf16"],
)
def test_structured_weights_compress_and_decode_to_the_same_bits(make, expected) -> None:
    weight = make(random_weight(96, 320))
    found = compressed.compress(weight)
    assert found is not None and found.format == expected
    assert torch.equal(compressed.decompress(found).view(torch.int32), weight.view(torch.int32))
    # the kernel decodes exactly so too: x = I gives the weight back, transposed
    assert torch.equal(compressed.linear(torch.eye(320), found).t().contiguous(), weight)


def test_plain_fp32_weights_stay_dense() -> None:
    assert compressed.compress(random_weight(64, 128)) is None


def test_one_changed_bit_keeps_a_matrix_dense() -> None:
    weight = gguf_roundtrip(random_weight(64, 128), GGMLQuantizationType.Q4_1)
    weight.view(torch.int32)[17, 40] ^= 1  # one weight off by one ulp: no block format holds it exactly
    assert compressed.compress(weight) is None


def test_widths_that_are_not_whole_blocks_stay_dense() -> None:
    assert compressed.compress(random_weight(8, 48).bfloat16().float()) is None


@pytest.mark.parametrize("rows", [1, 2, 3, 5, 8, 33])
@pytest.mark.parametrize("kind", [GGMLQuantizationType.Q4_1, GGMLQuantizationType.Q8_0])
def test_compressed_product_equals_dense_product_up_to_fp32_rounding(rows, kind) -> None:
    weight = gguf_roundtrip(random_weight(37, 64, seed=rows), kind)  # 37 outputs: not a whole tile
    x = torch.randn(rows, 64, generator=torch.Generator().manual_seed(1))
    got = compressed.linear(x, compressed.compress(weight))
    torch.testing.assert_close(got, x @ weight.t(), rtol=1e-5, atol=1e-5)


@pytest.mark.skipif(not cpu_kernels.amx(), reason="no AMX tiles on this CPU")
@pytest.mark.parametrize("rows", [4, 16, 17, 40, 130])
@pytest.mark.parametrize("kind", ["q4_1", "q8_0", "bf16"])
def test_amx_products_equal_the_avx512_kernels_up_to_fp32_rounding(rows, kind) -> None:
    weight = random_weight(48, 96, seed=rows)  # 3 tiles of 16 outputs: an odd one out of the pairs
    if kind == "bf16":
        weight = weight.bfloat16().float()
    else:
        weight = gguf_roundtrip(weight, getattr(GGMLQuantizationType, kind.upper()))
    x = torch.randn(rows, 96, generator=torch.Generator().manual_seed(1)) * 3
    x[0, :5] = torch.tensor([1e-30, -2.5e7, 0.0, -0.0, 1.0 + 2**-23])  # tiny, huge, zeros, all 24 bits
    found = compressed.compress(weight)
    assert found is not None and found.format == kind
    lib = cpu_kernels.library()
    try:
        lib.use_amx_from(1 << 40)
        avx512 = compressed.linear(x, found)
        lib.use_amx_from(1)
        amx = compressed.linear(x, found)
    finally:
        lib.use_amx_from(cpu_kernels.AMX_ROWS)
    exact = x.double() @ weight.double().t()
    # An fp32 dot product's rounding is a few units of 2^-24 times sum_k |x_k w_k|. AMX sums each
    # block's scaled and offset terms apart, so its unit is each weight's block's largest weight:
    # the same where weights are alike, larger for one huge activation times a near-zero weight.
    direct = x.abs().double() @ weight.abs().double().t()
    block_max = weight.abs().view(48, 3, 32).amax(-1, keepdim=True).expand(48, 3, 32).reshape(48, 96)
    blockwise = x.abs().double() @ block_max.double().t()
    assert ((avx512.double() - exact).abs() <= 16 * 2**-24 * direct).all()
    assert ((amx.double() - exact).abs() <= 16 * 2**-24 * blockwise).all()


def test_a_failing_build_reports_why_and_leaves_the_dense_kernels(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(cpu_kernels, "_tried", False)
    monkeypatch.setattr(cpu_kernels, "_library", None)
    monkeypatch.setenv("FASTAPPLY_CACHE", str(tmp_path))
    monkeypatch.setenv("CC", "/bin/false")
    assert cpu_kernels.library() is None
    assert "/bin/false failed" in cpu_kernels.build_error
    assert compressed.compress(torch.ones(4, 32)) is None  # the weight stays dense


def test_without_kernels_the_target_runs_torch_layers_with_the_same_logits(monkeypatch) -> None:
    from apply_engine.fast_target import FastTarget

    model = round_weights(tiny_model("llama", init_range=0.1), "bf16")
    tokens = [(7 * i) % 3000 + 5 for i in range(12)]
    native = FastTarget(model, max_len=32)
    assert native.native is not None
    expected = native.forward(tokens)
    monkeypatch.setattr(cpu_kernels, "library", lambda: None)
    plain = FastTarget(round_weights(tiny_model("llama", init_range=0.1), "bf16"), max_len=32)
    assert plain.native is None and plain.layers[0].qkv.compressed is None
    torch.testing.assert_close(plain.forward(tokens), expected, rtol=1e-4, atol=1e-4)


def test_fastapply_no_amx_keeps_products_off_the_tiles() -> None:
    code = "from apply_engine import cpu_kernels; print(cpu_kernels.library() is not None, cpu_kernels.amx())"
    env = {**os.environ, "FASTAPPLY_NO_AMX": "1"}
    found = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert found.stdout.split() == ["True", "False"]


needs_screen = pytest.mark.skipif(not cpu_kernels.screens(), reason="no AVX512-VNNI screen on this CPU")


def q8_0_matrix(rows: int, inp: int, seed: int) -> compressed.Compressed:
    generator = torch.Generator().manual_seed(seed)
    q = torch.randint(-127, 128, (rows, inp), generator=generator, dtype=torch.int8)
    scale = (torch.rand(rows, inp // 32, generator=generator) * 0.01).half().float()
    return compressed.Compressed("q8_0", rows, inp, q, scale, None)


def one_row_argmax(x: torch.Tensor, c: compressed.Compressed) -> list[int]:
    return [int(compressed.linear(row[None], c)[0].argmax()) for row in x]


@needs_screen
@pytest.mark.parametrize("rows", [1, 3, 4, 7, 65])
@pytest.mark.parametrize("vocab", [37, 1000], ids=["padded-group", "whole-groups"])
def test_the_screen_chooses_the_argmax_of_one_row_products(rows, vocab) -> None:
    c = q8_0_matrix(vocab, 96, seed=rows)
    # ties and near-ties: row 9 repeats row 5 (the lower index wins); row 12 is row 5 with one
    # weight a step higher, so where x is tiny its logit differs from row 5's in the last bits
    c.scale[5] = 2**-6  # above any other row's (an fp16 value): row 5's own direction wins over the rest
    c.q[9], c.q[12], c.scale[9], c.scale[12] = c.q[5], c.q[5], c.scale[5], c.scale[5]
    c.q[5, 40] = c.q[9, 40] = min(int(c.q[5, 40]), 126)
    c.q[12, 40] = c.q[5, 40] + 1
    x = torch.randn(rows, 96, generator=torch.Generator().manual_seed(vocab + rows))
    x[0, 32:64] = 0  # a block of zeros, its integers all 0
    x[0, 64:96] = 1e-39 * torch.randn(32, generator=torch.Generator().manual_seed(rows))  # too small to scale
    if rows > 1:
        x[1] = -x[1].abs() * 50  # every logit far below zero (the padded rows' bounds are 0)
        x[1, 7] = 3e4  # an outlier activation, as language models have
    screen = compressed.Screen(c)
    winners = set()
    aligned = c.q[5].float() * c.scale[5].repeat_interleave(32)  # x lined up with row 5
    ulps = 4 * float(aligned @ aligned) * 2**-23 / float(c.scale[5, 1])  # x[40] moving row 12 by ~4 ulps
    for nudge in (ulps, -ulps, 0.0):  # row 12 wins by a hair, loses by one, or ties row 5 (and 9)
        x[-1] = aligned
        x[-1, 40] = nudge
        expected = one_row_argmax(x, c)
        assert screen.argmax(x).tolist() == expected
        winners.add(expected[-1])
    assert winners == {5, 12}


@needs_screen
def test_the_screen_declines_activations_that_are_not_finite() -> None:
    screen = compressed.Screen(q8_0_matrix(64, 64, seed=0))
    x = torch.randn(2, 64)
    x[1, 3] = float("nan")
    assert screen.argmax(x) is None
    x[1, 3] = float("inf")
    assert screen.argmax(x) is None


def test_fastapply_no_screen_turns_the_screen_off() -> None:
    code = "from apply_engine import cpu_kernels; print(cpu_kernels.screens())"
    env = {**os.environ, "FASTAPPLY_NO_SCREEN": "1"}
    found = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert found.stdout.split() == ["False"]
