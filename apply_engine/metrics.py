"""Counters, gauges and histograms rendered in the Prometheus text exposition format (version 0.0.4).

Only what the HTTP service needs: labelled series, cumulative histogram buckets, one lock. A series
appears in the output once it has been touched; histograms always emit +Inf, _sum and _count.
"""

import math
import threading
from bisect import bisect_left
from collections.abc import Sequence
from typing import TypeVar

LabelValues = tuple[str, ...]
M = TypeVar("M", bound="Metric")

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
TAU_BUCKETS = (1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 32.0, 64.0)


def escape_label(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def format_value(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(float(value)) if not float(value).is_integer() else str(int(value))


def series(name: str, labels: Sequence[str], values: Sequence[str], extra: str = "") -> str:
    """`name{a="x",b="y"}` (extra is a pre-rendered label such as le="0.5")."""
    pairs = [f'{k}="{escape_label(v)}"' for k, v in zip(labels, values, strict=True)]
    if extra:
        pairs.append(extra)
    return f"{name}{{{','.join(pairs)}}}" if pairs else name


class Metric:
    kind = "untyped"

    def __init__(self, name: str, help_text: str, labels: Sequence[str] = ()) -> None:
        self.name = name
        self.help_text = help_text
        self.labels = tuple(labels)
        self.lock = threading.Lock()

    def header(self) -> list[str]:
        return [f"# HELP {self.name} {self.help_text}", f"# TYPE {self.name} {self.kind}"]

    def render(self) -> list[str]:
        raise NotImplementedError


class Counter(Metric):
    kind = "counter"

    def __init__(self, name: str, help_text: str, labels: Sequence[str] = ()) -> None:
        super().__init__(name, help_text, labels)
        self.values: dict[LabelValues, float] = {}

    def inc(self, *label_values: str, amount: float = 1.0) -> None:
        with self.lock:
            self.values[label_values] = self.values.get(label_values, 0.0) + amount

    def render(self) -> list[str]:
        with self.lock:
            items = sorted(self.values.items())
        return [f"{series(self.name, self.labels, k)} {format_value(v)}" for k, v in items]


class Gauge(Counter):
    kind = "gauge"

    def set(self, *label_values: str, value: float) -> None:
        with self.lock:
            self.values[label_values] = value


class Histogram(Metric):
    kind = "histogram"

    def __init__(
        self, name: str, help_text: str, buckets: Sequence[float], labels: Sequence[str] = ()
    ) -> None:
        super().__init__(name, help_text, labels)
        self.bounds = tuple(sorted(buckets))
        # per label values: [count in each finite bucket..., count above the last], sum
        self.counts: dict[LabelValues, list[int]] = {}
        self.sums: dict[LabelValues, float] = {}

    def observe(self, value: float, *label_values: str) -> None:
        slot = bisect_left(self.bounds, value)  # first bound >= value (le is inclusive)
        with self.lock:
            counts = self.counts.setdefault(label_values, [0] * (len(self.bounds) + 1))
            counts[slot] += 1
            self.sums[label_values] = self.sums.get(label_values, 0.0) + value

    def render(self) -> list[str]:
        with self.lock:
            items = sorted((k, list(v), self.sums[k]) for k, v in self.counts.items())
        lines = []
        for values, counts, total in items:
            cumulative = 0
            for bound, count in zip((*self.bounds, math.inf), counts, strict=True):
                cumulative += count
                le = f'le="{format_value(bound)}"'
                lines.append(f"{series(self.name + '_bucket', self.labels, values, le)} {cumulative}")
            lines.append(f"{series(self.name + '_sum', self.labels, values)} {format_value(total)}")
            lines.append(f"{series(self.name + '_count', self.labels, values)} {cumulative}")
        return lines


class Registry:
    def __init__(self) -> None:
        self.metrics: list[Metric] = []

    def add(self, metric: M) -> M:
        self.metrics.append(metric)
        return metric

    def render(self) -> str:
        lines: list[str] = []
        for metric in self.metrics:
            lines += metric.header() + metric.render()
        return "\n".join(lines) + "\n"


class ServiceMetrics:
    """The series the HTTP service exposes on /metrics."""

    def __init__(self) -> None:
        self.registry = Registry()
        self.requests = self.registry.add(
            Counter("fastapply_requests_total", "HTTP requests answered.", ("route", "status", "engine"))
        )
        self.latency = self.registry.add(
            Histogram(
                "fastapply_request_duration_seconds",
                "Time from request to the last byte of the response.",
                LATENCY_BUCKETS,
                ("route",),
            )
        )
        self.output_tokens = self.registry.add(
            Counter("fastapply_output_tokens_total", "Tokens emitted by the model engine.", ("engine",))
        )
        self.tau = self.registry.add(
            Histogram("fastapply_tau", "Tokens emitted per target forward, per model request.", TAU_BUCKETS)
        )
        self.queue_depth = self.registry.add(
            Gauge("fastapply_queue_depth", "Model requests waiting for a decoding slot.")
        )
        self.in_flight = self.registry.add(
            Gauge("fastapply_model_requests_running", "Model requests being decoded.")
        )

    def render(self) -> str:
        return self.registry.render()
