"""A target over a static KV cache whose verify forwards replay captured CUDA graphs.

Each forward of n tokens is padded to the smallest bucket >= n (1, 2, 4, ..., 256) so one graph
per bucket serves every draft length; a small model is then not bound by kernel launches. Padding
tokens land in cache slots after the real ones: the causal mask hides them from the real positions
and the next forward overwrites them, so cropping the cache is only moving `length` back.
"""

import torch

from apply_engine.speculative import cache_keyword

BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256)


class StaticTarget:
    """Target protocol (reset/forward/crop/length) on a transformers StaticCache."""

    def __init__(self, model: torch.nn.Module, max_len: int, graphs: bool = True) -> None:
        from transformers import StaticCache

        self.model = model
        self.cache_keyword = cache_keyword(model)
        self.device = next(model.parameters()).device
        self.max_len = max_len
        self.cache = StaticCache(config=model.config, max_cache_len=max_len + BUCKETS[-1])
        self.length = 0
        self.graphs: dict[int, tuple[torch.cuda.CUDAGraph, torch.Tensor, torch.Tensor, torch.Tensor]] = {}
        self.graph_error: str | None = None  # why graphs are off, when capture failed
        if graphs and self.device.type == "cuda":
            try:
                for bucket in BUCKETS:
                    self.graphs[bucket] = self.capture(bucket)
            except Exception as exc:  # a model whose forward syncs with the host cannot be captured
                self.graphs, self.graph_error = {}, f"{type(exc).__name__}: {exc}"[:300]
            self.crop(0)

    def reset(self) -> None:
        self.crop(0)  # stale slots are overwritten before any position attends to them

    @torch.inference_mode()
    def run(self, input_ids: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        # input_ids: [1, n], positions: [n] -> logits [1, n, vocab]
        out = self.model(
            input_ids=input_ids, cache_position=positions, use_cache=True, **{self.cache_keyword: self.cache}
        )
        return out.logits

    def capture(self, bucket: int) -> tuple[torch.cuda.CUDAGraph, torch.Tensor, torch.Tensor, torch.Tensor]:
        input_ids = torch.zeros(1, bucket, dtype=torch.long, device=self.device)  # [1, b]
        positions = torch.arange(bucket, device=self.device)  # [b]
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(2):  # warm-up: allocate the cache and pick kernels outside the capture
                self.crop(0)
                self.run(input_ids, positions)
            self.crop(0)
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            logits = self.run(input_ids, positions)  # [1, b, vocab]
        return graph, input_ids, positions, logits

    def forward(self, tokens: list[int]) -> torch.Tensor:
        n = len(tokens)
        if self.length + n > self.max_len:
            raise ValueError(f"static cache of {self.max_len} tokens is full")
        bucket = next((b for b in BUCKETS if b >= n), None)
        if bucket is None or bucket not in self.graphs:
            ids = torch.tensor([tokens], device=self.device)  # [1, n]
            logits = self.run(ids, torch.arange(self.length, self.length + n, device=self.device))[0]
        else:
            graph, input_ids, positions, out = self.graphs[bucket]
            input_ids.zero_()
            input_ids[0, :n] = torch.tensor(tokens, device=self.device)
            positions.copy_(torch.arange(self.length, self.length + bucket, device=self.device))
            graph.replay()
            logits = out[0, :n].clone()
        self.crop(self.length + n)  # the padding slots are not part of the cache
        return logits  # [n, vocab]

    @torch.inference_mode()
    def crop(self, length: int) -> None:
        # The static layers write at their own device-side counter; move it in place (graph-safe).
        for layer in self.cache.layers:
            if getattr(layer, "is_initialized", False):
                layer.cumulative_length.fill_(length)
        self.length = length
