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
