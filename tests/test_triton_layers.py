"""The Triton layers compute the torch layers' function, checked on CPU through Triton's interpreter.

TRITON_INTERPRET must be set before Triton compiles a kernel, so each check runs in a child process.
The interpreter runs fp16 products exactly but not bf16 ones (its bf16 dot is wrong in Triton 3.6
and 3.9), so the model here is fp16; on a GPU the same kernels run in bf16 (docs/BENCHMARKS.md).
"""

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# Triton is imported only in the child processes: imported here, it reports leaks when pytest exits.
pytestmark = pytest.mark.skipif(importlib.util.find_spec("triton") is None, reason="Triton is not installed")
ROOT = Path(__file__).resolve().parents[1]

CHECK = textwrap.dedent(
    """
    import json, sys
    import torch
    from apply_engine.bench.gpu import build
    from apply_engine.fast_target import FastTarget

    max_len, splits = int(sys.argv[1]), [int(n) for n in sys.argv[2].split(",")]
    tokens = [(13 * i) % 4000 + 5 for i in range(sum(splits))]
    model = build("tiny", torch.device("cpu"), torch.float16)
    with torch.inference_mode():
        fp32 = model.float()(torch.tensor([tokens])).logits[0]
    model.half()
    out = {}
    for kernels in ("torch", "triton"):
        target = FastTarget(model, max_len, pad=True, kernels=kernels, buckets=(1, 2, 4, 8, 16, 32))
        start, logits = 0, []
        for n in splits:  # a prefill of more than 32 tokens runs the torch layers in both targets
            logits.append(target.forward(tokens[start : start + n]).float())
            start += n
        target.crop(start - 3)  # the last forward's tail rejected: forwarding it again overwrites its slots
        logits[-1] = torch.cat([logits[-1][:-3], target.forward(tokens[start - 3 : start]).float()])
        got = torch.cat(logits)
        out[kernels] = {
            "used_triton": target.triton is not None,
            "overlap": target.triton is not None and target.triton.overlap,
            "rel_err_vs_fp32": float((got - fp32).norm() / fp32.norm()),
            "argmax_vs_fp32": float((got.argmax(-1) == fp32.argmax(-1)).float().mean()),
        }
    print(json.dumps(out))
    """
)


CANDIDATES = textwrap.dedent(
    """
    import json
    from apply_engine.triton_layers import matmul_candidates

    shapes = [(1, 2048, 1536, False), (64, 8960, 1536, True), (16, 1536, 8960, False), (4, 96, 80, False)]
    print(json.dumps([[m, n, k, swiglu, matmul_candidates(m, n, k, swiglu)] for m, n, k, swiglu in shapes]))
    """
)


def run_python(code: str, *args: object) -> object:
    """What `code`, run under Triton's interpreter in a child process, prints last as JSON."""
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-c", code, *map(str, args)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("max_len", "splits"),
    [
        # 20 tokens (a 32-token bucket): 64 grouped query rows to an attention program
        (64, [9, 1, 4, 16, 5, 20]),  # a cache of one 128-slot chunk: attention writes its output directly
        (600, [270, 5, 1, 16, 20]),  # verify passes past slot 128: chunks merged by the combine kernel
    ],
)
def test_triton_layers_are_as_accurate_as_the_torch_layers(max_len: int, splits: list[int]) -> None:
    result = run_python(CHECK, max_len, ",".join(map(str, splits)))
    torch_layers, triton = result["torch"], result["triton"]
    assert triton["used_triton"] and not torch_layers["used_triton"]
    assert not triton["overlap"]  # programmatic dependent launches need a GPU
    # fp16 rounding sets both errors (~3e-3 here); the Triton layers keep the residual stream in fp32
    assert triton["rel_err_vs_fp32"] < 1.5 * torch_layers["rel_err_vs_fp32"] < 0.015
    assert triton["argmax_vs_fp32"] >= 0.95


NORM = textwrap.dedent(
    """
    import json
    import torch
    from apply_engine.triton_layers import residual_norm_kernel

    m, hidden, splits = 3, 1536, 6  # 1536 wide: 4 partial sums a load, so two loads of them
    torch.manual_seed(0)
    x, parts = torch.randn(m, hidden), torch.randn(splits, m, hidden)
    bias, weight = torch.randn(hidden), torch.randn(hidden).half()
    normed = torch.empty(m, hidden, dtype=torch.float16)
    want = x + parts.sum(0) + bias
    residual_norm_kernel[(m,)](
        x, parts, bias, weight, normed, splits, m, hidden, 1e-6, BLOCK=2048, CHUNK=4, HAS_BIAS=True, OVERLAP=False
    )
    ref = torch.nn.functional.rms_norm(want, (hidden,), eps=1e-6).half().float() * weight.float()
    print(json.dumps({"x_err": float((x - want).abs().max()), "normed_err": float((normed.float() - ref).abs().max())}))
    """
)


def test_residual_norm_sums_every_partial() -> None:
    result = run_python(NORM)
    assert result["x_err"] < 1e-5  # summation order differs from torch's only
    assert result["normed_err"] < 0.02  # one fp16 rounding of values up to ~4


def test_matmul_candidates_divide_the_product() -> None:
    for m, n, k, swiglu, candidates in run_python(CANDIDATES):
        assert candidates, (m, n, k)
        for block_n, block_k, splits, _, _ in candidates:
            assert n % block_n == 0 and k % (splits * block_k) == 0
            assert splits == 1 or not swiglu  # silu(gate) * up needs whole sums
