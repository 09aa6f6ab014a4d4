"""`fastapply bench serve`: N concurrent clients drive a running server's POST /v1/apply for T seconds.

The clients are asyncio tasks sharing one httpx.AsyncClient (a pool of N connections), so the load
generator stays light on a machine it shares with the server. Requests are fixture cases whose
original is 200-450 lines (or, without any, a generated 300-line Python file with a marker snippet).

Every answer is classified:  ok (200, the expected file)  wrong (200, another file)
ambiguous (422)  error (any other status, or a transport failure). Latency is per request, wall
clock, measured by the client; throughput is completed requests / elapsed seconds.
"""

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import msgspec

from apply_engine.bench.report import print_table, write_json
from apply_engine.errors import InputError
from apply_engine.fixtures import load_cases
from apply_engine.http_schemas import ApplyBody, ApplyResponse

MIN_LINES, MAX_LINES = 200, 450
GENERATED_FUNCTIONS = 60  # x 5 lines = a 300-line file
CLIENT_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Work:
    name: str
    body: bytes  # the encoded ApplyBody
    expected: str | None  # the merged file a correct server returns


@dataclass
class Tally:
    latencies_ms: list[float] = field(default_factory=list)
    outcomes: dict[str, int] = field(default_factory=dict)

    def add(self, outcome: str, latency_ms: float) -> None:
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1
        self.latencies_ms.append(latency_ms)


class Summary(msgspec.Struct, kw_only=True):
    url: str
    clients: int
    seconds: float
    workload: list[str]
    requests: int
    throughput_rps: float
    p50_ms: float | None
    p90_ms: float | None
    p99_ms: float | None
    max_ms: float | None
    ok: int
    wrong: int
    ambiguous: int
    errors: int
    outcomes: dict[str, int]


def generated_work() -> Work:
    """A 300-line Python file; the snippet rewrites one function between two markers."""
    functions = [
        f"def step_{i}(x):\n    y = x + {i}\n    if y > {i * 7}:\n        return y\n    return -y\n"
        for i in range(GENERATED_FUNCTIONS)
    ]
    original = "".join(functions)
    changed = "def step_30(x):\n    y = x * 30\n    if y > 210:\n        return y\n    return -y\n"
    snippet = f"# ... existing code ...\n{changed}# ... existing code ...\n"
    expected = original.replace(functions[30], changed)
    body = ApplyBody(original=original, snippet=snippet, path="generated.py")
    return Work("generated-300-lines", msgspec.json.encode(body), expected)


def fixture_work(fixtures: Path) -> list[Work]:
    """Fixture cases with an expected file and an original of MIN_LINES..MAX_LINES lines."""
    if not fixtures.is_dir():
        return []
    work = []
    for case in load_cases(fixtures):
        if case.expected is not None and MIN_LINES <= case.original.count("\n") <= MAX_LINES:
            body = ApplyBody(original=case.original, snippet=case.snippet, path=case.path)
            work.append(Work(case.name, msgspec.json.encode(body), case.expected))
    return work


def workload(fixtures: Path) -> list[Work]:
    return fixture_work(fixtures) or [generated_work()]


def classify(response: httpx.Response, expected: str | None) -> str:
    if response.status_code == 422:
        return "ambiguous"
    if response.status_code != 200:
        return f"error_{response.status_code}"
    merged = msgspec.json.decode(response.content, type=ApplyResponse).merged
    return "ok" if expected is None or merged == expected else "wrong"


async def drive(
    client: httpx.AsyncClient, work: list[Work], first: int, stop_at: float, tally: Tally
) -> None:
    """One client: send the workload round-robin (starting at `first`) until `stop_at`."""
    headers = {"content-type": "application/json"}
    i = first
    while time.perf_counter() < stop_at:
        item = work[i % len(work)]
        i += 1
        start = time.perf_counter()
        try:
            response = await client.post("/v1/apply", content=item.body, headers=headers)
            outcome = classify(response, item.expected)
        except httpx.HTTPError as exc:
            outcome = f"error_{type(exc).__name__}"
        tally.add(outcome, (time.perf_counter() - start) * 1000)


def percentile(sorted_ms: list[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100)."""
    if not sorted_ms:
        return None
    rank = max(int(-(-q * len(sorted_ms) // 100)), 1)  # ceil(q/100 * n), at least 1
    return sorted_ms[rank - 1]


def summarize(url: str, clients: int, elapsed: float, work: list[Work], tally: Tally) -> Summary:
    ordered = sorted(tally.latencies_ms)
    outcomes = dict(sorted(tally.outcomes.items()))
    return Summary(
        url=url,
        clients=clients,
        seconds=elapsed,
        workload=[w.name for w in work],
        requests=len(ordered),
        throughput_rps=len(ordered) / elapsed if elapsed > 0 else 0.0,
        p50_ms=percentile(ordered, 50),
        p90_ms=percentile(ordered, 90),
        p99_ms=percentile(ordered, 99),
        max_ms=ordered[-1] if ordered else None,
        ok=outcomes.get("ok", 0),
        wrong=outcomes.get("wrong", 0),
        ambiguous=outcomes.get("ambiguous", 0),
        errors=sum(n for k, n in outcomes.items() if k.startswith("error_")),
        outcomes=outcomes,
    )


async def check_server(client: httpx.AsyncClient, url: str) -> None:
    try:
        response = await client.get("/health")
    except httpx.HTTPError as exc:
        raise InputError(f"no fastapply server at {url}: {exc}", field="url") from None
    if response.status_code != 200:
        raise InputError(f"{url}/health answered {response.status_code}", field="url")


async def run(url: str, clients: int, seconds: float, work: list[Work]) -> Summary:
    """1. check /health  2. one warm-up pass over the workload  3. N clients for `seconds`."""
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=CLIENT_TIMEOUT_S) as client:
        await check_server(client, url)
        await drive(client, work, 0, time.perf_counter() + 0.5, Tally())
        tally = Tally()
        start = time.perf_counter()
        stop_at = start + seconds
        await asyncio.gather(*(drive(client, work, i, stop_at, tally) for i in range(clients)))
        elapsed = time.perf_counter() - start
    return summarize(url, clients, elapsed, work, tally)


def main(url: str, clients: int, seconds: float, fixtures: Path, json_out: Path | None) -> Summary:
    if clients < 1 or seconds <= 0:
        raise InputError("--clients must be >= 1 and --seconds > 0")
    work = workload(Path(fixtures))
    summary = asyncio.run(run(url.rstrip("/"), clients, seconds, work))
    print_table(
        f"bench serve: {clients} clients, {summary.seconds:.1f} s, {len(work)} request kinds, {url}",
        ["figure", "value"],
        [
            ["requests", summary.requests],
            ["throughput (req/s)", summary.throughput_rps],
            ["p50 latency (ms)", summary.p50_ms],
            ["p90 latency (ms)", summary.p90_ms],
            ["p99 latency (ms)", summary.p99_ms],
            ["max latency (ms)", summary.max_ms],
            ["ok (expected file)", summary.ok],
            ["wrong (another file)", summary.wrong],
            ["ambiguous (422)", summary.ambiguous],
            ["errors", summary.errors],
        ],
    )
    if json_out is not None:
        write_json(json_out, summary)
    return summary
