"""FastTarget's decoder layers as Triton kernels, for verify forwards of up to MAX_ROWS tokens on CUDA.

A verify forward of a small model reads every weight once and does little arithmetic on them, so
its time is weight bytes over memory bandwidth plus whatever runs beside the weight reads: small
kernels, the gaps between them, and attention over cache slots nobody filled. A layer here is nine
kernels (torch's, compiled, ran ~17):

    residual_norm   x += partial sums of the last product (+ bias); normed = rms_norm(x) * weight
    matmul          q/k/v partial sums                      normed @ qkv.T, split along the inputs
    qkv_rope        sum the partials (+ bias), rotate q and k, write q and the new keys/values to the cache
    attention       each grouped query row over the slots up to its position (flash-style, GQA),
                    128-slot chunks of the cache in parallel; then `combine` merges the chunks
    matmul          o partial sums, then residual_norm with the post-attention norm
    matmul(swiglu)  silu(gate) * up from one pass over gate and up rows
    matmul          down partial sums, summed by the next layer's residual_norm

The products compute out.T = weight @ x.T ("swap AB"): the weight's rows fill the matrix unit's
wide side and the few token rows its narrow side. Products whose outputs are few (q/k/v, o, down)
split their inputs across programs so that enough of them stream the weight at once; the next
kernel sums the partials in a fixed order, so a forward is deterministic. The residual stream stays
in fp32 between layers. Block sizes and splits are timed once per product shape on the GPU (`tune`).

On Hopper and later, forwards of up to OVERLAP_ROWS tokens overlap their kernels: each is launched
as a programmatic dependent of the one before, so it starts while that one drains. A product first
asks for the first columns of its weight slice to be brought into L2 (weights depend on no kernel),
then waits for the kernel before to finish; every other kernel waits first. A small kernel lets the
next one launch once it has waited, a product once it has read its weights. Every kernel waits, so
each still sees all earlier writes, and the output is the same bits as with plain launches.

`TRITON_INTERPRET=1` runs the kernels on the CPU (slowly): the tests check them there against the
torch layers, on a tiny model.
"""

import hashlib
import math
import statistics
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

import torch
import triton
import triton.language as tl

from apply_engine.models import cache_root, load_cached, save_cached

if TYPE_CHECKING:
    from apply_engine.fast_target import FastTarget

MAX_ROWS = 256
KEY_BLOCK = 64  # cache slots per attention step
# Cache slots per attention program: its steps run one after another, so a long cache is split
# into chunks attended in parallel and merged by `combine`. For 1-64 tokens after 1,024 on an H100
# (1.5B model, 64 grouped rows a program), 128 beat 256 and 512 by 4-8% at K=1 and K=16 and tied at
# K=64; 32, 64 or 128 slots a step made no difference beyond the noise.
ATTENTION_CHUNK = 128
SHARED_MEMORY = 200 * 1024  # bytes of pipelined tiles a product may ask for (an H100 SM has 227 KiB)
# Weight bytes a product asks into L2 before the kernel before it ends: about what HBM delivers
# during a short kernel (3 TB/s x 3 us). On an H100 (1.5B model, K=64) 8 and 16 MB came out even,
# and ahead of 0 and 32 MB.
PREFETCH_BYTES = 8 << 20
# Forwards of up to this many tokens overlap their kernels. On H100s (1.5B model), overlapping took
# 1-7% off K=1 and K=64 in most runs (one of four was 1% slower at K=64), and at K=128 and 256 it
# came out even or up to 11% slower.
OVERLAP_ROWS = 64


class Matmul(NamedTuple):
    """How one product runs: output rows per program, input columns per step, splits of the inputs."""

    block_n: int
    block_k: int
    splits: int
    warps: int = 4
    stages: int = 3


@triton.jit
def after_previous():
    """Wait for the kernel before (its writes visible), then let the kernel after launch."""
    tl.extra.cuda.gdc_wait()
    tl.extra.cuda.gdc_launch_dependents()


@triton.jit
def prefetch_l2(ptrs, nbytes):
    """Bring nbytes from each of ptrs into L2: a bulk prefetch, nothing waits for it."""
    sizes = tl.full(ptrs.shape, nbytes, tl.int32)
    tl.inline_asm_elementwise(
        "cp.async.bulk.prefetch.L2.global [$1], $2; mov.u32 $0, 0;",
        "=r,l,r",
        [ptrs, sizes],
        dtype=tl.int32,
        is_pure=False,
        pack=1,
    )


@triton.jit
def matmul_kernel(
    x_ptr,  # [m, k] activations
    w_ptr,  # [n, k] weight; with SWIGLU [2n, k], the gate rows then the up rows
    out_ptr,  # [splits, m, n] fp32 partial sums; with SWIGLU [m, n] in the activations' dtype
    m,
    n,
    k,
    k_split,  # inputs per split
    prefetch,  # bytes of each weight row's slice to ask into L2 first (with OVERLAP; 16-byte multiple)
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    SWIGLU: tl.constexpr,
    OVERLAP: tl.constexpr,
):
    pid_m, pid_n, split = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)  # weight rows = output columns
    if OVERLAP:  # the weight depends on no kernel: ask for its first columns before waiting
        if prefetch > 0:
            prefetch_l2(w_ptr + cols * k + split * k_split, prefetch)
            if SWIGLU:
                prefetch_l2(w_ptr + (n + cols) * k + split * k_split, prefetch)
        tl.extra.cuda.gdc_wait()
    inner = split * k_split + tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + rows[:, None] * k + inner[None, :]  # [BLOCK_M, BLOCK_K]
    w_ptrs = w_ptr + cols[:, None] * k + inner[None, :]  # [BLOCK_N, BLOCK_K]
    in_rows = rows[:, None] < m
    acc = tl.zeros((BLOCK_N, BLOCK_M), dtype=tl.float32)
    up = tl.zeros((BLOCK_N, BLOCK_M), dtype=tl.float32)
    for _ in range(0, k_split, BLOCK_K):
        x = tl.trans(tl.load(x_ptrs, mask=in_rows, other=0.0))  # [BLOCK_K, BLOCK_M]
        acc = tl.dot(tl.load(w_ptrs), x, acc)
        if SWIGLU:
            up = tl.dot(tl.load(w_ptrs + n * k), x, up)
        x_ptrs += BLOCK_K
        w_ptrs += BLOCK_K
    if OVERLAP:  # launched earlier, the next kernel's prefetch would contend with this one's reads
        tl.extra.cuda.gdc_launch_dependents()
    out_mask = rows[None, :] < m
    if SWIGLU:
        act = acc / (1.0 + tl.exp(-acc)) * up  # silu(gate) * up
        tl.store(out_ptr + rows[None, :] * n + cols[:, None], act.to(out_ptr.dtype.element_ty), mask=out_mask)
    else:
        tl.store(out_ptr + (split * m + rows[None, :]) * n + cols[:, None], acc, mask=out_mask)


@triton.jit
def residual_norm_kernel(
    x_ptr,  # [m, hidden] fp32 residual stream, updated in place
    parts_ptr,  # [splits, m, hidden] fp32 partial sums to add (splits may be 0)
    bias_ptr,  # [hidden] or unused
    weight_ptr,  # [hidden] norm weight
    normed_ptr,  # [m, hidden] out, in the model's dtype
    splits,
    m,
    hidden,
    eps,
    BLOCK: tl.constexpr,
    CHUNK: tl.constexpr,  # partial sums loaded at once
    HAS_BIAS: tl.constexpr,
    OVERLAP: tl.constexpr,
):
    if OVERLAP:
        after_previous()
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < hidden
    x = tl.load(x_ptr + row * hidden + cols, mask=inside, other=0.0)
    for first in range(0, splits, CHUNK):  # [CHUNK, BLOCK] loads: a load per split waits out each one
        split = first + tl.arange(0, CHUNK)
        parts = parts_ptr + (split[:, None] * m + row) * hidden + cols[None, :]
        x += tl.sum(tl.load(parts, mask=(split[:, None] < splits) & inside[None, :], other=0.0), axis=0)
    if HAS_BIAS:
        x += tl.load(bias_ptr + cols, mask=inside, other=0.0).to(tl.float32)
    tl.store(x_ptr + row * hidden + cols, x, mask=inside)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / hidden + eps)
    dtype = normed_ptr.dtype.element_ty
    # as transformers: normalise in fp32, round to the model's dtype, then scale by the weight
    normed = (x * rstd).to(dtype).to(tl.float32) * tl.load(weight_ptr + cols, mask=inside).to(tl.float32)
    tl.store(normed_ptr + row * hidden + cols, normed.to(dtype), mask=inside)


@triton.jit
def qkv_rope_kernel(
    parts_ptr,  # [splits, m, (heads + 2 kv_heads) * head_dim] fp32 partial sums
    bias_ptr,  # [(heads + 2 kv_heads) * head_dim] or unused
    cos_ptr,  # [cache_len, head_dim]
    sin_ptr,  # [cache_len, head_dim], sign-folded (see fast_target.rope_table)
    positions_ptr,  # [m]
    q_ptr,  # [m, heads, head_dim] out
    k_cache_ptr,  # [kv_heads, cache_len, head_dim]
    v_cache_ptr,  # [kv_heads, cache_len, head_dim]
    m,
    cache_len,
    SPLITS: tl.constexpr,  # unrolled: every partial's load in flight at once
    HEADS: tl.constexpr,
    KV_HEADS: tl.constexpr,
    HEAD_DIM: tl.constexpr,
    HAS_BIAS: tl.constexpr,
    OVERLAP: tl.constexpr,
):
    if OVERLAP:
        after_previous()
    row, head = tl.program_id(0), tl.program_id(1)  # head: q heads, then k heads, then v heads
    width = (HEADS + 2 * KV_HEADS) * HEAD_DIM
    half = tl.arange(0, HEAD_DIM // 2)
    lo_cols, hi_cols = head * HEAD_DIM + half, head * HEAD_DIM + HEAD_DIM // 2 + half
    lo = tl.zeros((HEAD_DIM // 2,), dtype=tl.float32)
    hi = tl.zeros((HEAD_DIM // 2,), dtype=tl.float32)
    for split in tl.static_range(SPLITS):
        lo += tl.load(parts_ptr + (split * m + row) * width + lo_cols)
        hi += tl.load(parts_ptr + (split * m + row) * width + hi_cols)
    if HAS_BIAS:
        lo += tl.load(bias_ptr + lo_cols).to(tl.float32)
        hi += tl.load(bias_ptr + hi_cols).to(tl.float32)
    position = tl.load(positions_ptr + row)
    if head < HEADS + KV_HEADS:  # rotate: x * cos + roll(x, half) * signed_sin
        table = position * HEAD_DIM
        cos_lo, cos_hi = tl.load(cos_ptr + table + half), tl.load(cos_ptr + table + HEAD_DIM // 2 + half)
        sin_lo, sin_hi = tl.load(sin_ptr + table + half), tl.load(sin_ptr + table + HEAD_DIM // 2 + half)
        lo, hi = lo * cos_lo + hi * sin_lo, hi * cos_hi + lo * sin_hi
    dtype = q_ptr.dtype.element_ty
    if head < HEADS:
        out = q_ptr + (row * HEADS + head) * HEAD_DIM
    elif head < HEADS + KV_HEADS:
        out = k_cache_ptr + ((head - HEADS) * cache_len + position) * HEAD_DIM
    else:
        out = v_cache_ptr + ((head - HEADS - KV_HEADS) * cache_len + position) * HEAD_DIM
    tl.store(out + half, lo.to(dtype))
    tl.store(out + HEAD_DIM // 2 + half, hi.to(dtype))


@triton.jit
def attention_kernel(
    q_ptr,  # [m, heads, head_dim]
    k_cache_ptr,  # [kv_heads, cache_len, head_dim]
    v_cache_ptr,  # [kv_heads, cache_len, head_dim]
    positions_ptr,  # [m]
    out_ptr,  # DIRECT: [m, heads, head_dim] in q's dtype; else [chunks, m * heads, head_dim] fp32
    max_ptr,  # [chunks, m * heads] fp32 running max (unless DIRECT)
    sum_ptr,  # [chunks, m * heads] fp32 softmax denominator (unless DIRECT)
    m,
    cache_len,
    chunk,  # cache slots per program along the third grid axis
    scale,
    HEADS: tl.constexpr,
    GROUP: tl.constexpr,  # query heads per kv head
    HEAD_DIM: tl.constexpr,
    ROWS: tl.constexpr,
    KEYS: tl.constexpr,
    DIRECT: tl.constexpr,  # one chunk: write the normalised output
    OVERLAP: tl.constexpr,
):
    if OVERLAP:
        after_previous()
    kv_head, block, part = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    grouped = block * ROWS + tl.arange(0, ROWS)  # row = token * GROUP + query head within the group
    valid = grouped < m * GROUP
    token, head = grouped // GROUP, kv_head * GROUP + grouped % GROUP
    dims = tl.arange(0, HEAD_DIM)
    q_rows = token * HEADS + head  # index into [m * heads]
    q = tl.load(q_ptr + q_rows[:, None] * HEAD_DIM + dims[None, :], mask=valid[:, None], other=0.0)
    position = tl.load(positions_ptr + token, mask=valid, other=-1)
    start = part * chunk
    stop = tl.minimum(start + chunk, tl.max(position, axis=0) + 1)  # no slot past the last query
    cache = kv_head * cache_len * HEAD_DIM
    running_max = tl.full((ROWS,), float("-inf"), dtype=tl.float32)
    total = tl.zeros((ROWS,), dtype=tl.float32)
    acc = tl.zeros((ROWS, HEAD_DIM), dtype=tl.float32)
    for first in range(start, stop, KEYS):
        slots = first + tl.arange(0, KEYS)
        kv_offsets = cache + slots[:, None] * HEAD_DIM + dims[None, :]
        keys = tl.load(k_cache_ptr + kv_offsets, mask=slots[:, None] < cache_len, other=0.0)
        scores = tl.dot(q, tl.trans(keys)) * scale  # [ROWS, KEYS]
        scores = tl.where(slots[None, :] <= position[:, None], scores, float("-inf"))
        new_max = tl.maximum(running_max, tl.max(scores, axis=1))
        shift = tl.where(new_max == float("-inf"), 0.0, new_max)  # rows that see no slot yet
        probs = tl.exp(scores - shift[:, None])
        rescale = tl.exp(running_max - shift)
        total = total * rescale + tl.sum(probs, axis=1)
        values = tl.load(v_cache_ptr + kv_offsets, mask=slots[:, None] < cache_len, other=0.0)
        acc = acc * rescale[:, None] + tl.dot(probs.to(values.dtype), values)
        running_max = new_max
    if DIRECT:
        out = acc / tl.where(total == 0.0, 1.0, total)[:, None]
        out_ptrs = out_ptr + q_rows[:, None] * HEAD_DIM + dims[None, :]
        tl.store(out_ptrs, out.to(out_ptr.dtype.element_ty), mask=valid[:, None])
    else:
        at = part * m * HEADS + q_rows
        tl.store(out_ptr + at[:, None] * HEAD_DIM + dims[None, :], acc, mask=valid[:, None])
        tl.store(max_ptr + at, running_max, mask=valid)
        tl.store(sum_ptr + at, total, mask=valid)


@triton.jit
def combine_kernel(
    parts_ptr,  # [chunks, rows, head_dim] fp32 unnormalised outputs
    max_ptr,  # [chunks, rows]
    sum_ptr,  # [chunks, rows]
    positions_ptr,  # [m]
    out_ptr,  # [rows, head_dim], rows = m * heads
    rows,
    chunk,
    HEADS: tl.constexpr,
    HEAD_DIM: tl.constexpr,
    OVERLAP: tl.constexpr,
):
    if OVERLAP:
        after_previous()
    row = tl.program_id(0)
    dims = tl.arange(0, HEAD_DIM)
    seen = tl.load(positions_ptr + row // HEADS) // chunk + 1  # the chunks up to this row's position
    best = tl.load(max_ptr + row)
    for part in range(1, seen):
        best = tl.maximum(best, tl.load(max_ptr + part * rows + row))
    total = 0.0
    acc = tl.zeros((HEAD_DIM,), dtype=tl.float32)
    for part in range(seen):
        weight = tl.exp(tl.load(max_ptr + part * rows + row) - best)
        total += weight * tl.load(sum_ptr + part * rows + row)
        acc += weight * tl.load(parts_ptr + (part * rows + row) * HEAD_DIM + dims)
    tl.store(out_ptr + row * HEAD_DIM + dims, (acc / total).to(out_ptr.dtype.element_ty))


def attention_rows(m: int, group: int) -> int:
    """Grouped query rows per attention program: a kv head's rows, up to 64, so that fewer programs
    read the same keys and values (with 16, each chunk was read 24 times at m = 64 on a 1.5B model);
    at least a matrix-unit tile of 16."""
    return min(64, max(16, triton.next_power_of_2(m * group)))


def block_rows(m: int) -> int:
    """Token rows per product program: the matrix unit's narrow side is at least 16."""
    return min(64, max(16, triton.next_power_of_2(m)))


def matmul_candidates(m: int, n: int, k: int, swiglu: bool) -> list[Matmul]:
    """Configurations worth timing for an [m, k] x [n, k].T product: enough programs to keep the
    GPU's loads in flight (64-1024), splits only where the outputs are few (not with swiglu)."""
    found = []
    rows = -(-m // block_rows(m))
    for block_n in (64, 128):
        for block_k in (64, 128, 256):
            for splits in (1,) if swiglu else (1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16):
                if n % block_n or k % (splits * block_k):
                    continue
                if 64 <= (n // block_n) * splits * rows <= 1024:
                    found += [Matmul(block_n, block_k, splits, 4, stages) for stages in (3, 4, 5)]
    return found or [default_matmul(n, k, swiglu)]


def default_matmul(n: int, k: int, swiglu: bool) -> Matmul:
    """An untimed configuration (the interpreter's): the largest split up to 8 that divides k."""
    block_n = 64 if n % 64 == 0 else 16
    splits = 1 if swiglu else next((s for s in (8, 4, 2) if k % (s * 64) == 0), 1)
    return Matmul(block_n, 64 if k % 64 == 0 else 16, splits)


def unsupported_reason(target: "FastTarget") -> str | None:
    """Why these layers cannot run this target's model; None when they can."""
    layer, head_dim = target.layers[0], target.dims.head_dim
    if head_dim & (head_dim - 1) or head_dim < 16:
        return f"head_dim {head_dim} is not a power of two >= 16"
    if any(size % 16 for size in layer.gate_up.shape):
        return "hidden or intermediate size not a multiple of 16"
    if layer.gate_up_bias is not None:
        return "biased gate/up projections"
    return None


class TritonLayers:
    """The decoder layers of a FastTarget as Triton kernels, over its weights and KV cache."""

    def __init__(self, target: "FastTarget", tune: bool = True, overlap: bool | None = None) -> None:
        """`overlap`: launch each kernel as a programmatic dependent of the one before (default: where
        the GPU can)."""
        layer = target.layers[0]
        self.target, self.layers, self.dims = target, target.layers, target.dims
        self.overlap = overlap_supported(target.device) if overlap is None else overlap
        self.hidden = layer.o.shape[0]
        self.inter = layer.down.shape[1]
        self.qkv_width = layer.qkv.shape[0]
        self.cache_len = target.k_cache[0].shape[1]
        device, dtype = target.device, target.dtype
        attn_width = self.dims.heads * self.dims.head_dim
        self.shapes = {  # product -> (outputs, inputs)
            "qkv": (self.qkv_width, self.hidden),
            "o": (self.hidden, attn_width),
            "gate_up": (self.inter, self.hidden),
            "down": (self.hidden, self.inter),
        }
        self.plans = {m: self.plan(m, tune) for m in target.buckets if m <= MAX_ROWS}
        rows = max(self.plans, default=1)
        most_splits = max(c.splits for plan in self.plans.values() for c in plan.values())
        widest = max(self.qkv_width, self.hidden)
        self.x = torch.zeros(rows, self.hidden, dtype=torch.float32, device=device)  # residual stream
        self.normed = torch.zeros(rows, self.hidden, dtype=dtype, device=device)
        self.parts = torch.zeros(most_splits * rows * widest, dtype=torch.float32, device=device)
        self.q = torch.zeros(rows, attn_width, dtype=dtype, device=device)
        self.attended = torch.zeros(rows, attn_width, dtype=dtype, device=device)
        self.act = torch.zeros(rows, self.inter, dtype=dtype, device=device)
        chunks = -(-self.cache_len // ATTENTION_CHUNK)
        self.chunk_out = torch.zeros(chunks * rows * self.dims.heads * self.dims.head_dim, device=device)
        self.chunk_max = torch.zeros(chunks * rows * self.dims.heads, device=device)
        self.chunk_sum = torch.zeros(chunks * rows * self.dims.heads, device=device)

    def plan(self, m: int, tune: bool) -> dict[str, Matmul]:
        """Each product's configuration for m rows: timed on the GPU (kept in the user cache per
        device, shapes and Triton version), else the default."""
        if not tune:
            return {name: default_matmul(n, k, name == "gate_up") for name, (n, k) in self.shapes.items()}
        key = f"v2|{torch.cuda.get_device_name()}|{triton.__version__}|{m}|{sorted(self.shapes.items())}"
        path = cache_root() / "triton" / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.json"
        cached = load_cached(path)
        if isinstance(cached, dict) and set(cached) == set(self.shapes):
            return {name: Matmul(*config) for name, config in cached.items()}
        plan = {name: self.fastest(m, n, k, name) for name, (n, k) in self.shapes.items()}
        save_cached(path, {name: list(config) for name, config in plan.items()})
        return plan

    def fastest(self, m: int, n: int, k: int, name: str) -> Matmul:
        """The candidate whose launches over every layer's weight, back to back in a CUDA graph as in
        a forward, take least time: no weight is in L2 when read, and launch gaps and each kernel's
        start and tail count as they do in a forward (timing one launch at a time, they dominated)."""
        swiglu = name == "gate_up"
        weights = [getattr(layer, name) for layer in self.layers]
        x = torch.randn(m, k, dtype=self.target.dtype, device=self.target.device)
        candidates = matmul_candidates(m, n, k, swiglu)
        out = torch.empty(max(c.splits for c in candidates) * m * n, device=x.device, dtype=torch.float32)
        if swiglu:
            out = torch.empty(m, n, dtype=x.dtype, device=x.device)

        def timed(config: Matmul) -> float:
            shared = (
                config.stages * (config.block_n * (2 if swiglu else 1) + block_rows(m)) * config.block_k * 2
            )
            if shared > SHARED_MEMORY:
                return float("inf")
            return graph_ms(lambda: [matmul(x, weight, out, n, config, swiglu) for weight in weights])

        return min(candidates, key=timed)

    def forward(self, ids: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        """The layers over m tokens at `positions`, their keys and values written into the cache;
        returns their final hidden states after the last norm. No host sync: CUDA graphs capture it."""
        # ids, positions: [m] -> [m, hidden]
        m, target = ids.shape[0], self.target
        overlap = self.overlap and m <= OVERLAP_ROWS
        plan, x, normed = self.plans[m], self.x[:m], self.normed[:m]
        x.copy_(torch.nn.functional.embedding(ids, target.embed))
        parts, splits, bias = self.parts, 0, None
        for layer, k_cache, v_cache in zip(self.layers, target.k_cache, target.v_cache, strict=True):
            self.residual_norm(m, splits, bias, layer.input_norm, overlap)
            matmul(normed, layer.qkv, parts, self.qkv_width, plan["qkv"], overlap=overlap)
            self.qkv_rope(m, plan["qkv"].splits, layer.qkv_bias, positions, k_cache, v_cache, overlap)
            self.attention(m, positions, k_cache, v_cache, overlap)
            matmul(self.attended[:m], layer.o, parts, self.hidden, plan["o"], overlap=overlap)
            self.residual_norm(m, plan["o"].splits, layer.o_bias, layer.post_norm, overlap)
            matmul(normed, layer.gate_up, self.act[:m], self.inter, plan["gate_up"], True, overlap)
            matmul(self.act[:m], layer.down, parts, self.hidden, plan["down"], overlap=overlap)
            splits, bias = plan["down"].splits, layer.down_bias
        self.residual_norm(m, splits, bias, target.norm, overlap)
        return normed

    def residual_norm(
        self, m: int, splits: int, bias: torch.Tensor | None, weight: torch.Tensor, overlap: bool
    ) -> None:
        """x += the partial sums (+ bias); normed = rms_norm(x). One program a row, of 16 warps: with
        4, a 1.5B layer's norm over 5 partials took 3.4 us on an H100, with 16 2.4 (graph-timed)."""
        block = triton.next_power_of_2(self.hidden)
        residual_norm_kernel[(m,)](
            self.x, self.parts, self.x if bias is None else bias, weight, self.normed,
            splits, m, self.hidden, self.dims.eps,
            BLOCK=block, CHUNK=max(1, min(16, 8192 // block)), HAS_BIAS=bias is not None,
            OVERLAP=overlap, num_warps=16, **pdl(overlap),
        )  # fmt: skip

    def qkv_rope(
        self,
        m: int,
        splits: int,
        bias: torch.Tensor | None,
        positions: torch.Tensor,
        k_cache: torch.Tensor,
        v_cache: torch.Tensor,
        overlap: bool,
    ) -> None:
        dims, target = self.dims, self.target
        qkv_rope_kernel[(m, dims.heads + 2 * dims.kv_heads)](
            self.parts, self.parts if bias is None else bias, target.cos, target.sin, positions,
            self.q, k_cache, v_cache, m, self.cache_len,
            SPLITS=splits, HEADS=dims.heads, KV_HEADS=dims.kv_heads, HEAD_DIM=dims.head_dim, HAS_BIAS=bias is not None,
            OVERLAP=overlap, **pdl(overlap),
        )  # fmt: skip

    def attention(
        self, m: int, positions: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, overlap: bool
    ) -> None:
        dims, chunk = self.dims, ATTENTION_CHUNK
        group = dims.heads // dims.kv_heads
        chunks = -(-self.cache_len // chunk)
        rows = attention_rows(m, group)
        grid = (dims.kv_heads, -(-m * group // rows), chunks)
        out = self.attended if chunks == 1 else self.chunk_out
        attention_kernel[grid](
            self.q, k_cache, v_cache, positions, out, self.chunk_max, self.chunk_sum,
            m, self.cache_len, chunk, dims.head_dim**-0.5,
            HEADS=dims.heads, GROUP=group, HEAD_DIM=dims.head_dim, ROWS=rows, KEYS=KEY_BLOCK,
            DIRECT=chunks == 1, OVERLAP=overlap, **pdl(overlap),
        )  # fmt: skip
        if chunks > 1:
            combine_kernel[(m * dims.heads,)](
                self.chunk_out, self.chunk_max, self.chunk_sum, positions, self.attended,
                m * dims.heads, chunk, HEADS=dims.heads, HEAD_DIM=dims.head_dim,
                OVERLAP=overlap, **pdl(overlap),
            )  # fmt: skip


def matmul(
    x: torch.Tensor,
    weight: torch.Tensor,
    out: torch.Tensor,
    n: int,
    config: Matmul,
    swiglu: bool = False,
    overlap: bool = False,
) -> None:
    """out = partial sums of x @ weight.T over config.splits slices of the inputs ([splits, m, n]
    fp32); with swiglu, out = silu(x @ gate.T) * (x @ up.T) ([m, n]), weight = gate rows then up rows."""
    # x: [m, k]; weight: [n, k] or [2n, k]
    m, k = x.shape
    grid = (-(-m // block_rows(m)), n // config.block_n, config.splits)
    k_split = k // config.splits
    weight_rows = math.prod(grid) * config.block_n * (2 if swiglu else 1)
    prefetch = min(k_split * weight.element_size(), PREFETCH_BYTES // weight_rows) // 16 * 16
    matmul_kernel[grid](
        x, weight, out, m, n, k, k_split, prefetch,
        BLOCK_M=block_rows(m), BLOCK_N=config.block_n, BLOCK_K=config.block_k, SWIGLU=swiglu, OVERLAP=overlap,
        num_warps=config.warps, num_stages=config.stages, **pdl(overlap),
    )  # fmt: skip


def graph_ms(launch: Callable[[], object], replays: int = 10) -> float:
    """Median milliseconds of one replay of a CUDA graph of what `launch` launches."""
    launch()  # compiles
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        launch()
    graph.replay()
    times = []
    for _ in range(replays):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def pdl(overlap: bool) -> dict:
    """The launch option of a programmatic dependent launch, only when asked (the interpreter takes none)."""
    return {"launch_pdl": True} if overlap else {}


def overlap_supported(device: torch.device) -> bool:
    """Programmatic dependent launch and the bulk L2 prefetch need a Hopper or later GPU."""
    return device.type == "cuda" and torch.cuda.get_device_capability(device)[0] >= 9
