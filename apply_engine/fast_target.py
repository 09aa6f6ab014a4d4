"""A lean decoder for the Llama family (model_type llama, mistral, qwen2) over a static KV cache.

Built from a loaded transformers model: its config and its weight tensors, shared, except q/k/v and
gate/up, which are concatenated so that a layer runs four matrix products. The rotary table is
precomputed. Attention reads the whole static cache through an explicit additive mask (slot j is
visible from position p iff j <= p), so shapes never depend on how full the cache is and the KV
heads are never repeated for the query heads.

On CUDA each forward of up to 256 tokens is padded to a bucket (1, 2, 4, ..., 256) and replays one
captured CUDA graph per bucket. Padding tokens land in cache slots after the real ones: the mask
hides them from the real positions and the next forward overwrites them, so cropping the cache is
only moving `length` back. In bf16/fp16 those forwards run the layers as Triton kernels
(apply_engine/triton_layers.py: 1.2-1.6x faster than torch's compiled layers on an H100); otherwise,
optionally, the layer function is compiled once (all layers share it).

On CPU there are no launches to save, so a forward is neither padded nor replayed: attention reads
only the filled slots, and the weight matrices are reordered once into oneDNN's blocked layout.
Where every weight fits a lossless compressed form (apply_engine/compressed.py: a model loaded from
a GGUF file, or from a bf16 checkpoint), a forward of up to MAX_ROWS tokens instead runs each layer
as one call into C (cpu_kernels/layer.c) over the compressed weights: a one-token pass of the
135M stand-in costs ~9 ms there against ~45 ms through torch, a 16-token pass ~29 ms against ~65.
A prefill of hundreds of tokens is bound by arithmetic, and which path does that better depends on
the CPU, so it is timed once per model shape and CPU (`prefills_in_c`): where the C layers win, a prefill
runs through them in slices of NATIVE_ROWS tokens. They win by ~1.7x with AMX tiles
(cpu_kernels/amx.c, where a 16-token pass also falls to ~23 ms), and by up to ~1.7x on a 2-core AMD
EPYC with AVX-512 (their attention skips the slots the causal mask hides, which torch's computes);
there, when the machine is loaded, the two come within ~12% of each other, either way round.
Greedy verification reads only each position's argmax (`greedy`): over a Q8_0 vocabulary on a CPU
with AVX512-VNNI it is found without computing the logits (compressed.Screen), the same choice at
about half the cost of the vocabulary product.

The cache remembers which tokens fill its first slots (`cached`), and a prefill keeps the ones the
new prompt starts with: the system prompt, or the whole file when the same file is edited again.
"""

import ctypes
import hashlib
import os
import time
import weakref
from typing import Literal, NamedTuple

import numpy as np
import torch
import torch.nn.functional as F

from apply_engine import cpu_kernels
from apply_engine.compressed import MAX_ROWS, Compressed, Screen, compress, matrix, max_rows
from apply_engine.compressed import linear as compressed_linear
from apply_engine.drafters.draft_model import common_prefix
from apply_engine.models import cache_root, load_cached, save_cached
from apply_engine.speculative import HFTarget, Target
from apply_engine.verify import argmax_rows

SUPPORTED = ("llama", "mistral", "qwen2")
# Rows per call of the C layers: a prefill longer than this runs as slices of it (each slice's
# buffers stay in cache, and other requests' calls can interleave between slices).
NATIVE_ROWS = 128
BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
ATTENTIONS = ("sdpa", "matmul")
# What a forward returns: its logits, its final hidden states after the last norm, or nothing (a prefill)
Output = Literal["logits", "normed", None]


class Dims(NamedTuple):
    heads: int
    kv_heads: int
    head_dim: int
    eps: float
    attention: str  # "sdpa": one SDPA call with enable_gqa; "matmul": two batched products


class Packed(NamedTuple):
    """A CPU weight: oneDNN's blocked copy, and a lossless compressed one when the weights allow."""

    dense: torch.Tensor  # [out, in] reordered into oneDNN's layout
    compressed: Compressed | None


class Layer(NamedTuple):
    """One decoder layer's weights; on CPU the matrices are oneDNN-packed (see `linear`)."""

    input_norm: torch.Tensor  # [hidden]
    qkv: torch.Tensor | Packed  # [(heads + 2 kv_heads) * head_dim, hidden], q, k, v rows concatenated
    qkv_bias: torch.Tensor | None
    o: torch.Tensor | Packed  # [hidden, heads * head_dim]
    o_bias: torch.Tensor | None
    post_norm: torch.Tensor  # [hidden]
    gate_up: torch.Tensor | Packed  # [2 * intermediate, hidden], gate rows then up rows
    gate_up_bias: torch.Tensor | None
    down: torch.Tensor | Packed  # [hidden, intermediate]
    down_bias: torch.Tensor | None


def unsupported_reason(model: torch.nn.Module, cache_len: int) -> str | None:
    """Why FastTarget cannot run this model exactly as transformers does; None when it can."""
    config = model.config
    if config.model_type not in SUPPORTED:
        return f"model_type {config.model_type!r} is not one of {SUPPORTED}"
    if getattr(config, "hidden_act", "silu") != "silu" or getattr(config, "pretraining_tp", 1) != 1:
        return "activation other than silu, or pretraining_tp > 1"
    rope_type = getattr(model.model.rotary_emb, "rope_type", "default")
    if rope_type in ("dynamic", "longrope"):
        return f"rope type {rope_type!r} changes with the sequence length"
    window = getattr(config, "sliding_window", None) if getattr(config, "use_sliding_window", True) else None
    if window is not None and window < cache_len:
        return f"sliding window of {window} tokens is shorter than the cache"
    return None


def make_target(model: torch.nn.Module, max_len: int, compile: bool = False) -> Target:
    """FastTarget for a supported model, else transformers' own forward (HFTarget).

    `compile` compiles the layer once per bucket: 16-26 s at start-up on an H100 for about a quarter
    less time per forward, worth it for a server, not for one short merge.
    """
    if unsupported_reason(model, max_len + BUCKETS[-1]) is None:
        return FastTarget(model, max_len, compile=compile)
    return HFTarget(model)


def packable(weight: torch.Tensor) -> bool:
    """Whether `linear` can run over a oneDNN-packed copy of this weight."""
    return (
        weight.device.type == "cpu" and weight.dtype == torch.float32 and torch.backends.mkldnn.is_available()
    )


def pack(weight: torch.Tensor) -> Packed:
    """A [out, in] weight reordered once into oneDNN's blocked layout (a copy: the model keeps its own),
    plus its compressed form (apply_engine/compressed.py) where every weight survives it bit for bit."""
    return Packed(torch.ops.mkldnn._reorder_linear_weight(weight, None), compress(weight))


def linear(x: torch.Tensor, weight: torch.Tensor | Packed, bias: torch.Tensor | None) -> torch.Tensor:
    """x @ weight.T + bias. Over a Packed weight, a few rows read the compressed copy (fewer bytes:
    the product is bound by reading them) and more rows the dense one (bound by arithmetic)."""
    # x: [n, in]; weight: [out, in] -> [n, out]
    if not isinstance(weight, Packed):
        return F.linear(x, weight, bias)
    if weight.compressed is not None and x.shape[0] <= max_rows():
        y = compressed_linear(x, weight.compressed)
        return y if bias is None else y + bias
    return torch.ops.mkldnn._linear_pointwise(x, weight.dense, bias, "none", [], "")


def fuse_layers(model: torch.nn.Module, packed: bool = False) -> list[Layer]:
    """Each decoder layer's weights: norms, o and down shared; q/k/v and gate/up concatenated;
    with `packed`, every matrix copied into oneDNN's layout."""

    def cat(*tensors: torch.Tensor | None) -> torch.Tensor | None:
        return None if tensors[0] is None else torch.cat(tensors)  # type: ignore[arg-type]

    def matrix(*weights: torch.Tensor) -> torch.Tensor | Packed:
        weight = torch.cat(weights) if len(weights) > 1 else weights[0]
        return pack(weight) if packed else weight

    layers = []
    for block in model.model.layers:
        attn, mlp = block.self_attn, block.mlp
        layers.append(
            Layer(
                input_norm=block.input_layernorm.weight,
                qkv=matrix(attn.q_proj.weight, attn.k_proj.weight, attn.v_proj.weight),
                qkv_bias=cat(attn.q_proj.bias, attn.k_proj.bias, attn.v_proj.bias),
                o=matrix(attn.o_proj.weight),
                o_bias=attn.o_proj.bias,
                post_norm=block.post_attention_layernorm.weight,
                gate_up=matrix(mlp.gate_proj.weight, mlp.up_proj.weight),
                gate_up_bias=cat(mlp.gate_proj.bias, mlp.up_proj.bias),
                down=matrix(mlp.down_proj.weight),
                down_bias=mlp.down_proj.bias,
            )
        )
    return layers


# model -> its fused (on CPU also packed) layers and LM head, built once and shared by all its targets:
# a server pools one target per concurrent request and cache size, and the copies are weight-sized.
SHARED_WEIGHTS: "weakref.WeakKeyDictionary[torch.nn.Module, Weights]" = weakref.WeakKeyDictionary()


class Weights(NamedTuple):
    layers: list[Layer]
    lm_head: torch.Tensor | Packed
    screen: Screen | None  # the vocabulary laid out for greedy choices without logits (compressed.Screen)


def shared_weights(model: torch.nn.Module, packed: bool) -> Weights:
    if model not in SHARED_WEIGHTS:
        lm_head = model.get_output_embeddings().weight  # [vocab, hidden]
        head = pack(lm_head) if packed else lm_head
        compressed = head.compressed if isinstance(head, Packed) else None
        screen = (
            Screen(compressed)
            if compressed and compressed.format == "q8_0" and cpu_kernels.screens()
            else None
        )
        SHARED_WEIGHTS[model] = Weights(fuse_layers(model, packed), head, screen)
    return SHARED_WEIGHTS[model]


def rope_table(rotary: torch.nn.Module, length: int, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sign-folded sin for positions 0..length-1, computed as transformers does (fp32, cast).

    rotate_half(x) * sin == roll(x, half) * signed_sin, with signed_sin = [-sin_1, sin_2].
    """
    inv_freq = rotary.inv_freq.float()  # [head_dim / 2]
    angles = torch.outer(torch.arange(length, device=inv_freq.device).float(), inv_freq)
    angles = torch.cat([angles, angles], dim=-1)  # [length, head_dim]
    cos, sin = angles.cos() * rotary.attention_scaling, angles.sin() * rotary.attention_scaling
    half = sin.shape[-1] // 2
    return cos.to(dtype), torch.cat([-sin[:, :half], sin[:, half:]], dim=-1).to(dtype)


def rotate(x: torch.Tensor, cos: torch.Tensor, signed_sin: torch.Tensor) -> torch.Tensor:
    # x: [n, heads, head_dim]; cos, signed_sin: [n, 1, head_dim]
    return torch.addcmul(x * cos, x.roll(x.shape[-1] // 2, dims=-1), signed_sin)


def attend(
    q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, mask: torch.Tensor, dims: Dims
) -> torch.Tensor:
    """Attention of n queries over the whole cache; query head h reads KV head h // group.

    "matmul" is the default: on an H100 (torch 2.11) SDPA with a mask and GQA ran cuDNN's flash
    kernel at about 51 us a layer for 32 queries over 2304 slots, the two products far less.
    """
    # q: [n, heads, head_dim]; k_cache, v_cache: [kv_heads, cache_len, head_dim] -> [n, heads * head_dim]
    n, group = q.shape[0], dims.heads // dims.kv_heads
    if dims.attention == "sdpa":  # mask: [n, cache_len]
        out = F.scaled_dot_product_attention(
            q.transpose(0, 1)[None], k_cache[None], v_cache[None], attn_mask=mask, enable_gqa=True
        )  # [1, heads, n, head_dim]
        return out[0].transpose(0, 1).reshape(n, -1)
    # matmul: the group's queries share their KV head's products. mask: [group * n, cache_len]
    q = (
        q.view(n, dims.kv_heads, group, dims.head_dim)
        .permute(1, 2, 0, 3)
        .reshape(dims.kv_heads, group * n, -1)
    )
    scores = torch.baddbmm(mask, q, k_cache.transpose(1, 2), alpha=dims.head_dim**-0.5)  # [kv, group*n, len]
    probs = torch.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)
    out = torch.bmm(probs, v_cache)  # [kv_heads, group * n, head_dim]
    return out.view(dims.kv_heads, group, n, -1).permute(2, 0, 1, 3).reshape(n, -1)


def block(
    x: torch.Tensor,
    layer: Layer,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    positions: torch.Tensor,
    cos: torch.Tensor,
    sin: torch.Tensor,
    mask: torch.Tensor,
    dims: Dims,
) -> torch.Tensor:
    """One decoder layer over n new tokens; writes their keys and values into the cache slots `positions`."""
    # x: [n, hidden]; positions: [n]; cos, sin: [n, 1, head_dim]
    n, q_heads = x.shape[0], dims.heads + dims.kv_heads
    qkv = linear(F.rms_norm(x, x.shape[-1:], layer.input_norm, dims.eps), layer.qkv, layer.qkv_bias)
    qk = rotate(qkv[:, : q_heads * dims.head_dim].view(n, q_heads, dims.head_dim), cos, sin)
    q, k = qk.split([dims.heads, dims.kv_heads], dim=1)  # [n, heads, head_dim], [n, kv_heads, head_dim]
    v = qkv[:, q_heads * dims.head_dim :].view(n, dims.kv_heads, dims.head_dim)
    k_cache[:, positions] = k.transpose(0, 1)
    v_cache[:, positions] = v.transpose(0, 1)
    h = x + linear(attend(q, k_cache, v_cache, mask, dims), layer.o, layer.o_bias)
    gate, up = linear(
        F.rms_norm(h, h.shape[-1:], layer.post_norm, dims.eps), layer.gate_up, layer.gate_up_bias
    ).chunk(2, dim=-1)
    return h + linear(F.silu(gate) * up, layer.down, layer.down_bias)  # [n, hidden]


def triton_layers(target: "FastTarget", overlap: bool | None) -> tuple[object | None, str | None]:
    """The target's layers as Triton kernels, or None and why not (Triton missing, a shape the
    kernels do not take). Their block sizes are timed on a GPU, not under the CPU interpreter."""
    on_cuda = target.device.type == "cuda"
    if not on_cuda and os.environ.get("TRITON_INTERPRET") != "1":
        return None, "Triton kernels run on CUDA (or on CPU under TRITON_INTERPRET=1)"
    try:
        from apply_engine import triton_layers as kernels
    except ImportError as exc:
        return None, f"Triton is not installed ({exc})"
    reason = kernels.unsupported_reason(target)
    if reason is not None:
        return None, reason
    try:
        return kernels.TritonLayers(target, tune=on_cuda, overlap=overlap), None
    except Exception as exc:  # a kernel this GPU or Triton version cannot compile: the torch layers run
        return None, f"{type(exc).__name__}: {exc}"[:300]


def compiled(fn: object) -> object:
    """torch.compile of the layer function: static shapes, one variant per bucket, shared by all layers."""
    config = torch._dynamo.config
    name = "recompile_limit" if hasattr(config, "recompile_limit") else "cache_size_limit"
    setattr(config, name, max(getattr(config, name), 64))  # 9 buckets x model sizes in one process
    return torch.compile(fn, dynamic=False, fullgraph=True)


def native_layers(
    layers: list[Layer], k_cache: list[torch.Tensor], v_cache: list[torch.Tensor], dims: Dims, cache_len: int
) -> tuple[ctypes.Array, cpu_kernels.Dims] | None:
    """The layers as cpu_kernels/layer.c takes them, when it can run them: every matrix compressed
    (so on CPU, fp32), widths that its vectors divide; else None (the torch layers run)."""
    matrices = [w for layer in layers for w in (layer.qkv, layer.o, layer.gate_up, layer.down)]
    if not all(isinstance(w, Packed) and w.compressed is not None for w in matrices):
        return None
    if dims.head_dim % 16:
        return None

    def ptr(tensor: torch.Tensor | None) -> int | None:
        return None if tensor is None else tensor.data_ptr()

    native = (cpu_kernels.Layer * len(layers))()
    for i, (layer, k, v) in enumerate(zip(layers, k_cache, v_cache, strict=True)):
        native[i] = cpu_kernels.Layer(
            ptr(layer.input_norm), ptr(layer.post_norm),
            matrix(layer.qkv.compressed), matrix(layer.o.compressed),
            matrix(layer.gate_up.compressed), matrix(layer.down.compressed),
            ptr(layer.qkv_bias), ptr(layer.o_bias), ptr(layer.gate_up_bias), ptr(layer.down_bias),
            ptr(k), ptr(v),
        )  # fmt: skip
    hidden, intermediate = layers[0].o.compressed.out_features, layers[0].down.compressed.in_features
    return native, cpu_kernels.Dims(
        hidden,
        dims.heads,
        dims.kv_heads,
        dims.head_dim,
        intermediate,
        cache_len,
        dims.eps,
        dims.head_dim**-0.5,
    )


def prefills_in_c(target: "FastTarget") -> bool:
    """Whether `target` prefills faster in its C layers than through torch's over oneDNN: always with
    AMX tiles; elsewhere timed once per layer shape, weight format, kernel build and thread count
    (a slice each way, 0.7-0.9 s for the stand-in here) and kept in the user cache."""
    if cpu_kernels.amx():
        return True
    layer, (_, dims) = target.layers[0], target.native
    shape = [dims.hidden, dims.intermediate, dims.heads, dims.kv_heads, dims.head_dim, len(target.layers)]
    formats = sorted({w.compressed.format for w in (layer.qkv, layer.o, layer.gate_up, layer.down)})
    key = f"v1|{cpu_kernels.build_id()}|{torch.get_num_threads()}|{shape}|{formats}"
    path = cache_root() / "prefill" / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.json"
    faster = load_cached(path)
    if not isinstance(faster, bool):
        faster = target.prefills_faster_in_c()
        save_cached(path, faster)
    return faster


class FastTarget:
    """Target protocol (reset/forward/crop/length) over the lean decoder and its static cache."""

    def __init__(
        self,
        model: torch.nn.Module,
        max_len: int,
        graphs: bool = True,
        compile: bool = False,
        attention: str = "matmul",
        buckets: tuple[int, ...] = BUCKETS,
        pad: bool | None = None,
        kernels: str = "auto",
    ) -> None:
        """`pad`: pad forwards to the buckets and attend over the whole cache (the CUDA default, which
        graphs need); else run each forward at its own size over the filled slots (the CPU default).
        `kernels`: "triton" runs forwards of up to 256 tokens through apply_engine/triton_layers.py
        ("triton-serial": each kernel launched after the one before has ended, for comparison),
        "torch" through `block`; "auto" picks Triton on CUDA in bf16/fp16 where it can run the model
        (in fp32 the torch layers keep GPU outputs equal to transformers')."""
        config = model.config
        embed = model.get_input_embeddings().weight  # [vocab, hidden]
        self.device, self.dtype = embed.device, embed.dtype
        on_cuda = self.device.type == "cuda"
        self.pad = on_cuda if pad is None else pad
        self.max_len, self.buckets, self.length = max_len, buckets, 0
        # The tokens whose keys and values fill the first slots, computed for exactly that prefix:
        # a later prompt that starts with them skips prefilling them (cropping and reset keep them).
        self.cached: list[int] = []
        room = buckets[-1] if self.pad else 0  # for a padded forward at the end
        cache_len = -(-(max_len + room) // 64) * 64
        heads = config.num_attention_heads
        head_dim = getattr(config, "head_dim", None) or config.hidden_size // heads
        self.dims = Dims(heads, config.num_key_value_heads, head_dim, config.rms_norm_eps, attention)
        packed = not on_cuda and packable(embed)
        with torch.inference_mode():
            self.layers, self.lm_head, self.screen = shared_weights(model, packed)
            self.embed, self.norm = embed, model.model.norm.weight
            self.cos, self.sin = rope_table(model.model.rotary_emb, cache_len, self.dtype)
            shape = (self.dims.kv_heads, cache_len, head_dim)
            self.k_cache = [torch.zeros(shape, dtype=self.dtype, device=self.device) for _ in self.layers]
            self.v_cache = [torch.zeros(shape, dtype=self.dtype, device=self.device) for _ in self.layers]
            self.slots = torch.arange(cache_len, device=self.device)  # [cache_len]
        # A forward's ids (row 0) and positions (row 1) go up in one copy from a host staging buffer.
        self.staging = torch.zeros(2, buckets[-1], dtype=torch.long, pin_memory=on_cuda)
        self.inputs = torch.zeros(2, buckets[-1], dtype=torch.long, device=self.device)
        self.uploaded = torch.cuda.Event() if on_cuda else None
        self.block, self.compile_error, self.graph_error = block, None, None
        self.graphs: dict[int, tuple[torch.cuda.CUDAGraph, torch.Tensor]] = {}
        if compile:
            self.block = compiled(block)
        self.triton, self.triton_error = None, None
        if kernels in ("triton", "triton-serial") or (
            kernels == "auto" and on_cuda and self.dtype != torch.float32
        ):
            self.triton, self.triton_error = triton_layers(
                self, False if kernels == "triton-serial" else None
            )
        self.native = native_layers(self.layers, self.k_cache, self.v_cache, self.dims, cache_len)
        # a forward of more than MAX_ROWS tokens (a prefill) runs in the C layers only where that is faster
        self.c_prefill = self.native is not None and max_len > MAX_ROWS and prefills_in_c(self)
        self.prepare(graphs and on_cuda)

    def prepare(self, graphs: bool) -> None:
        """Compile now (not at the first request) and capture; on failure fall back from the Triton
        layers to torch's, from compiled to eager, then to no graphs."""
        try:
            if self.block is not block or self.triton is not None:
                self.run(self.inputs[0, :1], self.inputs[1, :1])
            if graphs:
                self.pool = torch.cuda.graph_pool_handle()
                self.graphs = {b: self.capture(b) for b in sorted(self.buckets, reverse=True)}
        except Exception as exc:  # compile errors, or a kernel that syncs with the host during capture
            reason = f"{type(exc).__name__}: {exc}"[:300]
            if self.triton is not None:  # first the Triton layers give way to torch's
                self.triton, self.triton_error = None, reason
                self.prepare(graphs)
            elif self.block is block:
                self.graphs, self.graph_error = {}, reason
            else:
                self.block, self.compile_error = block, reason
                self.prepare(graphs)
        self.length, self.cached = 0, []

    def prefills_faster_in_c(self) -> bool:
        """Whether a slice of NATIVE_ROWS tokens runs faster through the C layers than through torch's
        layers over oneDNN (the faster of two runs each). Leaves the cache empty."""
        rows = min(NATIVE_ROWS, self.max_len)
        ids, positions = torch.zeros(rows, dtype=torch.long), torch.arange(rows)  # [rows], [rows]

        def seconds(in_c: bool) -> float:
            self.c_prefill, best = in_c, float("inf")
            for _ in range(2):
                start = time.perf_counter()
                self.run(ids, positions, rows, out=None)
                best = min(best, time.perf_counter() - start)
            return best

        faster = seconds(True) < seconds(False)
        self.length, self.cached = 0, []
        return faster

    def reset(self) -> None:
        self.length = 0  # stale slots are overwritten before any position attends to them

    def forget(self) -> None:
        """Reset, and prefill the next prompt whole (no prefix kept from earlier ones)."""
        self.length, self.cached = 0, []

    def crop(self, length: int) -> None:
        self.length = min(length, self.length)

    @torch.inference_mode()
    def forward(self, tokens: list[int]) -> torch.Tensor:
        return self.append(tokens, "logits")  # [n, vocab]

    @torch.inference_mode()
    def greedy(self, tokens: list[int]) -> list[int]:
        """The argmax of forward(tokens)'s logits at each position. With a screen (a q8_0 vocabulary on
        a CPU with AVX512-VNNI) they are found without computing the logits, about twice as fast:
        exactly the argmax of each position's logits, as the product of its hidden state alone
        computes them."""
        if self.screen is None:
            return argmax_rows(self.forward(tokens))
        normed = self.append(tokens, "normed")  # [n, hidden]
        choices = self.screen.argmax(normed)
        return choices.tolist() if choices is not None else argmax_rows(linear(normed, self.lm_head, None))

    def append(self, tokens: list[int], out: Output) -> torch.Tensor | None:
        """Run `tokens` after the cached ones; `out`: what of theirs to return (see `run`)."""
        n, base = len(tokens), self.length
        if base + n > self.max_len:
            raise ValueError(f"static cache of {self.max_len} tokens is full")
        bucket = next((b for b in self.buckets if b >= n), None) if self.pad and out == "logits" else None
        del self.cached[base:]  # overwritten from here on
        if bucket is None:  # unpadded: a long prefill, or any forward when not padding
            result = self.unpadded(tokens, out)
        else:
            result = self.padded(tokens, bucket)
        self.length = base + n
        self.cached += tokens
        return result

    @torch.inference_mode()
    def prefill(self, tokens: list[int]) -> None:
        """Fill the cache with `tokens`, skipping their logits (the vocabulary product is about a
        fifth of a small model's prefill, and the decoding loop reads none of it). Leading tokens the
        cache already holds at these slots (the last prompt's prefix: a shared system prompt, or the
        same file edited again) are kept, not recomputed. A prompt that fits a bucket of a padding
        target replays that bucket's graph instead, logits and all."""
        kept = common_prefix(self.cached[self.length :], tokens)
        self.length, tokens = self.length + kept, tokens[kept:]
        if tokens:
            self.append(tokens, "logits" if self.pad and len(tokens) <= self.buckets[-1] else None)

    def unpadded(self, tokens: list[int], out: Output) -> torch.Tensor | None:
        positions = self.slots[self.length : self.length + len(tokens)]  # [n]
        extent = None if self.pad else self.length + len(tokens)
        return self.run(torch.tensor(tokens, device=self.device), positions, extent, out)

    def padded(self, tokens: list[int], bucket: int) -> torch.Tensor:
        """The forward padded to `bucket` tokens: a graph replay on CUDA, eager elsewhere."""
        if self.uploaded is not None:
            self.uploaded.synchronize()  # the previous upload has left the staging buffer
        staging = self.staging.numpy()
        staging[0, : len(tokens)] = tokens
        staging[0, len(tokens) : bucket] = 0
        staging[1, :bucket] = np.arange(self.length, self.length + bucket)
        self.inputs.copy_(self.staging, non_blocking=True)
        if self.uploaded is not None:
            self.uploaded.record()
        if bucket not in self.graphs:
            return self.run(self.inputs[0, :bucket], self.inputs[1, :bucket])[: len(tokens)]
        graph, logits = self.graphs[bucket]
        graph.replay()
        return logits[: len(tokens)].clone()  # the graph's buffer is overwritten by the next replay

    def capture(self, bucket: int) -> tuple[torch.cuda.CUDAGraph, torch.Tensor]:
        ids, positions = self.inputs[0, :bucket], self.inputs[1, :bucket]  # [b], [b]: static addresses
        positions.copy_(torch.arange(bucket, device=self.device))
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(2):  # warm-up: compile, pick kernels, allocate outside the capture
                self.run(ids, positions)
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, pool=self.pool):
            logits = self.run(ids, positions)  # [b, vocab]
        return graph, logits

    @torch.inference_mode()
    def run(
        self, ids: torch.Tensor, positions: torch.Tensor, extent: int | None = None, out: Output = "logits"
    ) -> torch.Tensor | None:
        """`ids` at `positions` into the cache, and their logits, or their final hidden states after the
        last norm ("normed"), or nothing (None: a prefill, which then skips what only feeds them);
        attention reads the first `extent` slots (None: all)."""
        # ids, positions: [n] -> logits [n, vocab], or normed hidden states [n, hidden]
        if self.triton is not None and ids.shape[0] in self.triton.plans:
            x = self.triton.forward(ids, positions)  # [n, hidden], normed; the buffer of the next forward too
            if out != "logits":
                return None if out is None else x.clone()
            return linear(x, self.lm_head, None)
        x = F.embedding(ids, self.embed)  # [n, hidden]
        if self.native is not None and (ids.shape[0] <= MAX_ROWS or self.c_prefill):
            layers, dims = self.native
            norm = None if out is None else self.norm.data_ptr()  # applied in C, after the last layer
            for start in range(0, ids.shape[0], NATIVE_ROWS):  # a long prefill in slices, in order
                rows = min(NATIVE_ROWS, ids.shape[0] - start)
                with cpu_kernels.ONE_AT_A_TIME:
                    cpu_kernels.library().decode_layers(
                        x[start:].data_ptr(), rows, positions[start:].data_ptr(), layers, len(layers), dims,
                        self.cos.data_ptr(), self.sin.data_ptr(), norm,
                    )  # fmt: skip
        else:
            cos, sin = self.cos[positions, None], self.sin[positions, None]  # [n, 1, head_dim]
            mask = self.mask(positions, extent)
            for layer, k_cache, v_cache in zip(self.layers, self.k_cache, self.v_cache, strict=True):
                k_cache, v_cache = k_cache[:, :extent], v_cache[:, :extent]  # views: writes reach the cache
                x = self.block(x, layer, k_cache, v_cache, positions, cos, sin, mask, self.dims)
            if out is not None:
                x = F.rms_norm(x, x.shape[-1:], self.norm, self.dims.eps)
        if out is None:
            return None
        return linear(x, self.lm_head, None) if out == "logits" else x

    def mask(self, positions: torch.Tensor, extent: int | None) -> torch.Tensor:
        """Additive mask over the first `extent` slots, built once per forward: 0 where slot <= position."""
        visible = self.slots[None, :extent] <= positions[:, None]  # [n, extent]
        mask = torch.zeros(visible.shape, dtype=self.dtype, device=self.device).masked_fill_(
            ~visible, float("-inf")
        )
        if self.dims.attention == "matmul":  # rows in the order of the grouped queries: [group * n, extent]
            return mask.repeat(self.dims.heads // self.dims.kv_heads, 1)
        return mask
