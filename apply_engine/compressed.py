"""Lossless weight compression for the CPU target: fewer bytes to read, the same fp32 weights.

A one-token forward reads every weight once, so on a CPU its time is the weights' bytes over the
memory bandwidth. Many fp32 weights carry less information than 32 bits: a model loaded from a GGUF
file was dequantised from 4- or 8-bit blocks, and one loaded from a bf16 checkpoint has zero low
halves. `compress` finds such structure in a loaded fp32 matrix and keeps it in that form
(apply_engine/cpu_kernels/linear.c decodes it back in registers), but only when every weight decodes
to exactly its own bits; otherwise it returns None and the matrix stays dense. Formats, per block
of 32 weights along the input dimension:

    q4_1  w = d * q + m   q in 0..15        0.75 bytes a weight (GGUF Q4_1)
    q8_0  w = d * q       q in -127..127    1.125 bytes a weight (GGUF Q8_0)
    bf16  w = top 16 bits                    2 bytes a weight

d and m are fp16 values (kept as fp32). d * q is exact in fp32, so decoding rounds once, as the
dequantiser did; the products with activations are fp32, summed in another order than a BLAS sums
them (differences ~1e-7 relative, the same class as between any two fp32 kernels).
"""

import sys
from typing import NamedTuple

import torch
import torch.nn.functional as F

from apply_engine import cpu_kernels

BLOCK = 32
# Rows of x up to which the compressed kernels run (FastTarget's C layers always do) on a CPU without
# AMX tiles: a verify pass of the CPU's longest draft (64) and its pending token. Measured on a 2-core
# Xeon with the stand-in, the C layers beat torch's over oneDNN at every size up to it (65 rows: 131 vs
# 143 ms). A product of hundreds of rows is bound by arithmetic, and there oneDNN's dense one did
# better on that Xeon; FastTarget times its prefill both ways once per model shape and CPU. With AMX
# (cpu_kernels/amx.c) the compressed products win at every size (a 448-token prefill of the
# stand-in: ~280 ms against oneDNN's ~470).
MAX_ROWS = 65


def max_rows() -> int:
    """Rows of x up to which `linear` (and FastTarget's C layers) should run here."""
    return sys.maxsize if cpu_kernels.amx() else MAX_ROWS


class Compressed(NamedTuple):
    format: str  # "q4_1", "q8_0" or "bf16"
    out_features: int
    in_features: int
    q: torch.Tensor  # q4_1: uint8 [out, in / 2]; q8_0: int8 [out, in]; bf16: int16 [out, in]
    scale: torch.Tensor | None  # d: fp32 [out, in / 32]
    offset: torch.Tensor | None  # m (q4_1 only): fp32 [out, in / 32]


def same_bits(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a.view(torch.int32) == b.view(torch.int32)


def fp16_candidates(value: torch.Tensor) -> list[torch.Tensor]:
    """`value` rounded to fp16, and its two fp16 neighbours (the quantiser's rounding may differ)."""
    half = value.to(torch.float16)
    bits = half.view(torch.int16)
    return [half.float(), *((bits + step).view(torch.float16).float() for step in (-1, 1))]


def fit_scales(
    blocks: torch.Tensor, estimate: torch.Tensor, offset: torch.Tensor | None, q_range: tuple[int, int]
) -> tuple[torch.Tensor, torch.Tensor] | None:
    """Per block, the first fp16 scale d near `estimate` with blocks == d * q (+ offset) bit for bit,
    computed as the kernel decodes. blocks: [rows, nb, 32]; estimate, offset: [rows, nb, 1].
    Returns (d, q), or None if some block fits none."""
    shift = torch.zeros_like(estimate) if offset is None else offset
    found = torch.zeros(estimate.shape, dtype=torch.bool)
    best_d, best_q = torch.zeros_like(estimate), torch.zeros(blocks.shape, dtype=torch.int32)
    for d in fp16_candidates(estimate):
        safe = torch.where(d == 0, torch.ones_like(d), d)
        q = torch.round((blocks - shift) / safe)
        q = torch.where(d == 0, -torch.signbit(blocks).float(), q).clamp(*q_range)  # 0 * -1 is -0.0
        decoded = d * q if offset is None else d * q + offset
        fits = same_bits(decoded, blocks).all(dim=-1, keepdim=True) & ~found
        best_d, best_q = torch.where(fits, d, best_d), torch.where(fits, q.int(), best_q)
        found |= fits
        if bool(found.all()):
            return best_d, best_q
    return None


def as_q4_1(weight: torch.Tensor) -> Compressed | None:
    out, inp = weight.shape
    blocks = weight.view(out, inp // BLOCK, BLOCK)
    low, high = blocks.amin(-1, keepdim=True), blocks.amax(-1, keepdim=True)
    if not bool(same_bits(low.half().float(), low).all()):
        return None  # m is the block's minimum (q = 0 there) and must be an fp16 value
    fit = fit_scales(blocks, (high - low) / 15, low, (0, 15))
    if fit is None:
        return None
    d, q = fit
    q = q.to(torch.uint8).view(out, inp // BLOCK, 2, BLOCK // 2)
    packed = (q[:, :, 0] | (q[:, :, 1] << 4)).reshape(out, inp // 2)  # first 16 in the low nibbles
    return Compressed(
        "q4_1", out, inp, packed.contiguous(), d.view(out, -1).contiguous(), low.view(out, -1).contiguous()
    )


def as_q8_0(weight: torch.Tensor) -> Compressed | None:
    out, inp = weight.shape
    blocks = weight.view(out, inp // BLOCK, BLOCK)
    amax = blocks.abs().amax(-1, keepdim=True)
    fit = fit_scales(blocks, amax / 127, None, (-127, 127))
    if fit is None:
        return None
    d, q = fit
    return Compressed(
        "q8_0", out, inp, q.to(torch.int8).view(out, inp).contiguous(), d.view(out, -1).contiguous(), None
    )


def as_bf16(weight: torch.Tensor) -> Compressed | None:
    bits = weight.view(torch.int32)
    if bool((bits & 0xFFFF).any()):
        return None
    return Compressed("bf16", *weight.shape, (bits >> 16).to(torch.int16).contiguous(), None, None)


FORMATS = (as_bf16, as_q4_1, as_q8_0)  # cheapest test first; q4_1 before q8_0 (fewer bytes)


def compress(weight: torch.Tensor) -> Compressed | None:
    """The smallest lossless form of an fp32 [out, in] CPU weight, or None (keep it dense).

    A first block row is tried alone, so a matrix that fits no format is rejected without a full pass.
    """
    if weight.dtype != torch.float32 or weight.device.type != "cpu" or weight.dim() != 2:
        return None
    if weight.shape[1] % BLOCK or cpu_kernels.library() is None:
        return None
    weight = weight.detach().contiguous()
    for fmt in FORMATS:
        if fmt(weight[:1]) is not None and (found := fmt(weight)) is not None:
            return found
    return None


def decompress(c: Compressed) -> torch.Tensor:
    """The fp32 weight back, computed as the kernel decodes it (for tests and checks)."""
    if c.format == "bf16":
        return (c.q.int() << 16).view(torch.float32)
    if c.format == "q8_0":
        q = c.q.float().view(c.out_features, -1, BLOCK)
        return (q * c.scale[..., None]).view(c.out_features, c.in_features)
    low, high = c.q & 15, c.q >> 4
    q = torch.stack([low.view(c.out_features, -1, 16), high.view(c.out_features, -1, 16)], dim=2)
    q = q.float().view(c.out_features, -1, BLOCK)
    return (q * c.scale[..., None] + c.offset[..., None]).view(c.out_features, c.in_features)


def matrix(c: Compressed) -> cpu_kernels.Matrix:
    """`c` as the kernels take it (struct matrix; the tensors must outlive it)."""
    scale, offset = (None if t is None else t.data_ptr() for t in (c.scale, c.offset))
    return cpu_kernels.Matrix(
        cpu_kernels.FORMATS[c.format], c.out_features, c.in_features, c.q.data_ptr(), scale, offset
    )


def linear(x: torch.Tensor, c: Compressed) -> torch.Tensor:
    # x: [n, in] fp32 -> [n, out]
    x = x.contiguous()
    y = torch.empty(x.shape[0], c.out_features, dtype=torch.float32)
    with cpu_kernels.ONE_AT_A_TIME:
        cpu_kernels.library().matmul(x.data_ptr(), x.shape[0], matrix(c), None, y.data_ptr())
    return y


GROUP = 16  # weight rows a vector of argmax.c's bounds covers


class Screen:
    """A q8_0 vocabulary matrix laid out for cpu_kernels/argmax.c, which finds the argmax of its
    products with a few rows of x from integer dot products, computing exactly only the rows that
    could win: the greedy choice of a verify pass without its [n, vocab] logits."""

    def __init__(self, c: Compressed) -> None:
        assert c.format == "q8_0"
        groups, blocks = -(-c.out_features // GROUP), c.in_features // BLOCK
        pad = groups * GROUP - c.out_features  # rows of zeros: bounds of 0, never computed exactly
        q = F.pad(c.q, (0, 0, 0, pad)).view(groups, GROUP, blocks, BLOCK // 4, 4)
        scale = F.pad(c.scale, (0, 0, 0, pad))  # [rows, blocks]
        q1 = F.pad(c.q, (0, 0, 0, pad)).view(groups * GROUP, blocks, BLOCK).abs().sum(-1, dtype=torch.int32)
        q1 = (q1 + 15) // 16  # at most 32 * 127 / 16: a byte; the bound loosens by under 16 / sum |q|
        self.weight, self.matrix = c, matrix(c)
        # [groups, blocks, 8, 16 rows, 4 bytes]: one 64-byte vector per 4 inputs of 16 rows
        self.q = (q.permute(0, 2, 3, 1, 4).to(torch.int16) + 128).to(torch.uint8).contiguous()
        self.scale = scale.view(groups, GROUP, blocks).transpose(1, 2).contiguous()
        self.l1 = q1.to(torch.uint8).view(groups, GROUP, blocks).transpose(1, 2).contiguous()
        self.slack = (scale * q1 * 16).sum(-1) * 2**-13
        self.struct = cpu_kernels.Screen(
            c.out_features, c.in_features, *(t.data_ptr() for t in (self.q, self.scale, self.l1, self.slack))
        )
        self.scratch = torch.empty(0)

    def argmax(self, x: torch.Tensor) -> torch.Tensor | None:
        """argmax(x @ W.T, -1) with each row's logits as a one-row product computes them; None where
        the kernel cannot run here (no AVX512-VNNI) or x is not finite."""
        # x: [n, in] fp32 -> [n] int64
        x = x.contiguous()
        stride = self.q.shape[0] * GROUP
        choice = torch.empty(x.shape[0], dtype=torch.int64)
        with cpu_kernels.ONE_AT_A_TIME:  # the targets of one model share this screen and its scratch
            if self.scratch.numel() < x.shape[0] * stride:
                self.scratch = torch.empty(x.shape[0] * stride)  # [rows of x, vocabulary]: upper bounds
            found = cpu_kernels.library().screened_argmax(
                x.data_ptr(), x.shape[0], self.struct, self.matrix, self.scratch.data_ptr(), choice.data_ptr()
            )
        return choice if found else None
