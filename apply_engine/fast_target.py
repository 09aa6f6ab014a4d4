"""A lean decoder for the Llama family (model_type llama, mistral, qwen2) over a static KV cache.

Built from a loaded transformers model: its config and its weight tensors, shared, except q/k/v and
gate/up, which are concatenated so that a layer runs four weight products. The rotary table is
precomputed. Attention reads the first `extent` cache slots through an explicit additive mask (slot
j is visible from position p iff j <= p), so shapes never depend on exactly how full the cache is,
and the KV heads are never repeated for the query heads.

On CUDA each forward of up to 256 tokens is padded to a bucket (1, 2, 4, ..., 256) and replays one
captured CUDA graph per (bucket, extent). Padding tokens land in cache slots after the real ones:
the mask hides them from the real positions and the next forward overwrites them, so cropping the
cache is only moving `length` back. Optionally the two halves of a layer around attention are
compiled (static shapes, one compile per bucket, shared by all layers and extents).
"""

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import torch
import torch.nn.functional as F

from apply_engine.speculative import HFTarget, Target

SUPPORTED = ("llama", "mistral", "qwen2")
BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
ATTENTIONS = ("sdpa", "matmul")


class Dims(NamedTuple):
    heads: int
    kv_heads: int
    head_dim: int
    eps: float
    attention: str  # "sdpa": one SDPA call with enable_gqa; "matmul": two batched products


class Layer(NamedTuple):
    input_norm: torch.Tensor  # [hidden]
    qkv: torch.Tensor  # [(heads + 2 kv_heads) * head_dim, hidden], q, k, v rows concatenated
    qkv_bias: torch.Tensor | None
    o: torch.Tensor  # [hidden, heads * head_dim]
    o_bias: torch.Tensor | None
    post_norm: torch.Tensor  # [hidden]
    gate_up: torch.Tensor  # [2 * intermediate, hidden], gate rows then up rows
    gate_up_bias: torch.Tensor | None
    down: torch.Tensor  # [hidden, intermediate]
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


def make_target(model: torch.nn.Module, max_len: int, on_cpu: bool = False, compile: bool = False) -> Target:
    """FastTarget for a supported model on CUDA, else transformers' own forward (HFTarget).

    On CPU there are no kernel launches to save and transformers' forward is the reference, so it
    stays; `on_cpu` forces FastTarget there too (tests). `compile` compiles the layer halves once
    per bucket: about 16-19 s at start-up on an H100 for a third less time per forward, worth it
    for a server, not for one short merge.
    """
    device = next(model.parameters()).device
    if (device.type == "cuda" or on_cpu) and unsupported_reason(model, max_len + BUCKETS[-1]) is None:
        return FastTarget(model, max_len, compile=compile)
    return HFTarget(model)


def fuse_layers(model: torch.nn.Module) -> list[Layer]:
    """Each decoder layer's weights: norms, o and down shared; q/k/v and gate/up concatenated."""

    def cat(*tensors: torch.Tensor | None) -> torch.Tensor | None:
        return None if tensors[0] is None else torch.cat(tensors)  # type: ignore[arg-type]

    layers = []
    for block in model.model.layers:
        attn, mlp = block.self_attn, block.mlp
        layers.append(
            Layer(
                input_norm=block.input_layernorm.weight,
                qkv=cat(attn.q_proj.weight, attn.k_proj.weight, attn.v_proj.weight),
                qkv_bias=cat(attn.q_proj.bias, attn.k_proj.bias, attn.v_proj.bias),
                o=attn.o_proj.weight,
                o_bias=attn.o_proj.bias,
                post_norm=block.post_attention_layernorm.weight,
                gate_up=cat(mlp.gate_proj.weight, mlp.up_proj.weight),
                gate_up_bias=cat(mlp.gate_proj.bias, mlp.up_proj.bias),
                down=mlp.down_proj.weight,
                down_bias=mlp.down_proj.bias,
            )
        )
    return layers


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


def project_in(
    x: torch.Tensor,
    layer: Layer,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    positions: torch.Tensor,
    cos: torch.Tensor,
    sin: torch.Tensor,
    dims: Dims,
) -> torch.Tensor:
    """Norm, q/k/v and rotary for n new tokens; writes their keys and values into the slots `positions`.

    Returns the queries laid out for `attend`: sdpa [1, heads, n, head_dim]; matmul
    [kv_heads, group * n, head_dim], the queries of one KV head's group stacked (h = kv * group + g).
    """
    # x: [n, hidden]; k_cache, v_cache: [kv_heads, cache_len, head_dim]; cos, sin: [n, 1, head_dim]
    n, q_heads = x.shape[0], dims.heads + dims.kv_heads
    qkv = F.linear(F.rms_norm(x, x.shape[-1:], layer.input_norm, dims.eps), layer.qkv, layer.qkv_bias)
    qk = rotate(qkv[:, : q_heads * dims.head_dim].view(n, q_heads, dims.head_dim), cos, sin)
    q, k = qk.split([dims.heads, dims.kv_heads], dim=1)  # [n, heads, head_dim], [n, kv_heads, head_dim]
    v = qkv[:, q_heads * dims.head_dim :].view(n, dims.kv_heads, dims.head_dim)
    k_cache[:, positions] = k.transpose(0, 1)
    v_cache[:, positions] = v.transpose(0, 1)
    if dims.attention == "sdpa":
        return q.transpose(0, 1)[None]
    group = dims.heads // dims.kv_heads
    return (
        q.reshape(n, dims.kv_heads, group, dims.head_dim)
        .permute(1, 2, 0, 3)
        .reshape(dims.kv_heads, group * n, -1)
    )


def attend(
    q: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, mask: torch.Tensor, dims: Dims
) -> torch.Tensor:
    """The queries over the first `extent` cache slots; query head h reads KV head h // group."""
    # keys, values: [kv_heads, extent, head_dim]; q and the result in project_in's layout
    if dims.attention == "sdpa":  # mask: [n, extent]
        return F.scaled_dot_product_attention(q, keys[None], values[None], attn_mask=mask, enable_gqa=True)
    # mask: [group * n, extent]; scores: [kv_heads, group * n, extent]
    scores = torch.baddbmm(mask, q, keys.transpose(1, 2), alpha=dims.head_dim**-0.5)
    return torch.bmm(torch.softmax(scores, dim=-1), values)  # softmax accumulates in fp32


def project_out(x: torch.Tensor, attended: torch.Tensor, layer: Layer, dims: Dims) -> torch.Tensor:
    """Output projection and residual, then the gated MLP and residual."""
    # x: [n, hidden]; attended in project_in's layout -> [n, hidden]
    n = x.shape[0]
    if dims.attention == "sdpa":
        attended = attended[0].transpose(0, 1)  # [n, heads, head_dim]
    else:
        attended = attended.view(dims.kv_heads, -1, n, dims.head_dim).permute(2, 0, 1, 3)
    h = x + F.linear(attended.reshape(n, -1), layer.o, layer.o_bias)
    normed = F.rms_norm(h, h.shape[-1:], layer.post_norm, dims.eps)
    gate, up = F.linear(normed, layer.gate_up, layer.gate_up_bias).chunk(2, dim=-1)  # [n, intermediate] each
    return h + F.linear(F.silu(gate) * up, layer.down, layer.down_bias)


def compiled(fn: Callable, mode: str | None) -> Callable:
    """torch.compile with static shapes: one variant per bucket, shared by all layers and extents."""
    config = torch._dynamo.config
    name = "recompile_limit" if hasattr(config, "recompile_limit") else "cache_size_limit"
    setattr(config, name, max(getattr(config, name), 64))  # 9 buckets x model sizes in one process
    return torch.compile(fn, dynamic=False, fullgraph=True, mode=mode)


def extents_for(cache_len: int) -> tuple[int, ...]:
    """Attention extents: at most about 9 steps of at least 256 slots, the last the whole cache.

    >>> extents_for(2304)
    (256, 512, 768, 1024, 1280, 1536, 1792, 2048, 2304)
    """
    step = -(-max(256, cache_len // 9) // 64) * 64
    return (*range(step, cache_len, step), cache_len)


class FastTarget:
    """Target protocol (reset/forward/crop/length) over the lean decoder and its static cache.

    A forward of n tokens at position `length` attends over the smallest extent >= length + bucket,
    so its attention cost follows the filled part of the cache; one graph per (bucket, extent).
    """

    def __init__(
        self,
        model: torch.nn.Module,
        max_len: int,
        graphs: bool = True,
        compile: bool | str = False,
        attention: str = "matmul",
        buckets: tuple[int, ...] = BUCKETS,
    ) -> None:
        config = model.config
        embed = model.get_input_embeddings().weight  # [vocab, hidden]
        self.device, self.dtype = embed.device, embed.dtype
        self.max_len, self.buckets, self.length = max_len, buckets, 0
        cache_len = -(-(max_len + buckets[-1]) // 64) * 64  # room for a padded forward at the end
        self.extents = extents_for(cache_len)
        heads = config.num_attention_heads
        head_dim = getattr(config, "head_dim", None) or config.hidden_size // heads
        self.dims = Dims(heads, config.num_key_value_heads, head_dim, config.rms_norm_eps, attention)
        with torch.inference_mode():
            self.embed, self.lm_head = embed, model.get_output_embeddings().weight  # shared
            self.norm, self.layers = model.model.norm.weight, fuse_layers(model)
            self.cos, self.sin = rope_table(model.model.rotary_emb, cache_len, self.dtype)
            shape = (self.dims.kv_heads, cache_len, head_dim)
            self.k_cache = [torch.zeros(shape, dtype=self.dtype, device=self.device) for _ in self.layers]
            self.v_cache = [torch.zeros(shape, dtype=self.dtype, device=self.device) for _ in self.layers]
            self.slots = torch.arange(cache_len, device=self.device)  # [cache_len]
            self.logits = torch.empty(buckets[-1], embed.shape[0], dtype=self.dtype, device=self.device)
        # A forward's ids (row 0) and positions (row 1) go up in one copy from a host staging buffer.
        on_cuda = self.device.type == "cuda"
        self.staging = torch.zeros(2, buckets[-1], dtype=torch.long, pin_memory=on_cuda)
        self.inputs = torch.zeros(2, buckets[-1], dtype=torch.long, device=self.device)
        self.uploaded = torch.cuda.Event() if on_cuda else None
        self.project_in, self.project_out = project_in, project_out
        self.compile_error: str | None = None
        self.graph_error: str | None = None
        self.graphs: dict[tuple[int, int], torch.cuda.CUDAGraph] = {}
        if compile:
            mode = compile if isinstance(compile, str) else None
            self.project_in, self.project_out = compiled(project_in, mode), compiled(project_out, mode)
        self.prepare(graphs and on_cuda)

    def prepare(self, graphs: bool) -> None:
        """Compile now (not at the first request) and capture; on failure fall back to eager, then to no graphs."""
        try:
            if self.project_in is not project_in:
                self.run(self.inputs[0, :1], self.inputs[1, :1], self.extents[0])
            if graphs:
                self.pool = torch.cuda.graph_pool_handle()
                for bucket in sorted(self.buckets, reverse=True):
                    for extent in [e for e in self.extents if e >= bucket]:
                        self.graphs[bucket, extent] = self.capture(bucket, extent)
        except Exception as exc:  # compile errors, or a kernel that syncs with the host during capture
            reason = f"{type(exc).__name__}: {exc}"[:300]
            self.graphs = {}
            if self.project_in is project_in:
                self.graph_error = reason
            else:
                self.project_in, self.project_out, self.compile_error = project_in, project_out, reason
                self.prepare(graphs)
        self.length = 0

    def reset(self) -> None:
        self.length = 0  # stale slots are overwritten before any position attends to them

    def crop(self, length: int) -> None:
        self.length = min(length, self.length)

    @torch.inference_mode()
    def forward(self, tokens: list[int]) -> torch.Tensor:
        n, base = len(tokens), self.length
        if base + n > self.max_len:
            raise ValueError(f"static cache of {self.max_len} tokens is full")
        bucket = next((b for b in self.buckets if b >= n), None)
        if bucket is None:  # a long prefill: eager, unpadded
            positions = torch.arange(base, base + n, device=self.device)
            extent = next(e for e in self.extents if e >= base + n)
            logits = self.run(torch.tensor(tokens, device=self.device), positions, extent)
        else:
            logits = self.padded(tokens, bucket)
        self.length = base + n
        return logits  # [n, vocab]

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
        extent = next(e for e in self.extents if e >= self.length + bucket)
        if (bucket, extent) not in self.graphs:
            return self.run(self.inputs[0, :bucket], self.inputs[1, :bucket], extent)[: len(tokens)]
        self.graphs[bucket, extent].replay()
        return self.logits[: len(tokens)].clone()  # the graphs' buffer is overwritten by the next replay

    def capture(self, bucket: int, extent: int) -> torch.cuda.CUDAGraph:
        ids, positions = self.inputs[0, :bucket], self.inputs[1, :bucket]  # [b], [b]: static addresses
        positions.copy_(torch.arange(bucket, device=self.device))
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(2):  # warm-up: compile, pick kernels, allocate outside the capture
                self.run(ids, positions, extent, self.logits[:bucket])
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, pool=self.pool):
            self.run(ids, positions, extent, self.logits[:bucket])
        return graph

    @torch.inference_mode()
    def run(
        self, ids: torch.Tensor, positions: torch.Tensor, extent: int, out: torch.Tensor | None = None
    ) -> torch.Tensor:
        # ids, positions: [n] -> logits [n, vocab] (into `out` when given)
        x = F.embedding(ids, self.embed)  # [n, hidden]
        cos, sin = self.cos[positions, None], self.sin[positions, None]  # [n, 1, head_dim]
        mask = self.mask(positions, extent)
        for layer, k_cache, v_cache in zip(self.layers, self.k_cache, self.v_cache, strict=True):
            q = self.project_in(x, layer, k_cache, v_cache, positions, cos, sin, self.dims)
            attended = attend(q, k_cache[:, :extent], v_cache[:, :extent], mask, self.dims)
            x = self.project_out(x, attended, layer, self.dims)
        x = F.rms_norm(x, x.shape[-1:], self.norm, self.dims.eps)
        return torch.matmul(x, self.lm_head.t(), out=out)

    def mask(self, positions: torch.Tensor, extent: int) -> torch.Tensor:
        """Additive mask over the first `extent` slots, once per forward: 0 where slot <= position, else -inf."""
        visible = self.slots[None, :extent] <= positions[:, None]  # [n, extent]
        mask = torch.zeros(visible.shape, dtype=self.dtype, device=self.device).masked_fill_(
            ~visible, float("-inf")
        )
        if self.dims.attention == "matmul":  # rows in the order of the grouped queries: [group * n, extent]
            return mask.repeat(self.dims.heads // self.dims.kv_heads, 1)
        return mask
