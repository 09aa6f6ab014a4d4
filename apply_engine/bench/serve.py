"""`fastapply bench serve`: N concurrent clients drive a running server's POST /v1/apply for T seconds.

The clients are asyncio tasks, each with one keep-alive HTTP/1.1 connection spoken directly over
asyncio streams: the load generator shares the machine with the server, and a full HTTP client
library costs several times the server's own CPU per request. Requests are fixture cases whose
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


class Answer(msgspec.Struct):
    status: int
    body: bytes


class Connection:
    """One keep-alive HTTP/1.1 connection that POSTs JSON and reads Content-Length answers."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, body: bytes) -> Answer:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        self.writer.write(head.encode() + body)
        assert self.reader is not None
        status_line, _, headers = (await self.reader.readuntil(b"\r\n\r\n")).partition(b"\r\n")
        length = content_length(headers)
        return Answer(int(status_line.split()[1]), await self.reader.readexactly(length))

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


def content_length(headers: bytes) -> int:
    for line in headers.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    raise ValueError("answer without Content-Length")


def classify(answer: Answer, expected: str | None) -> str:
    if answer.status == 422:
        return "ambiguous"
    if answer.status != 200:
        return f"error_{answer.status}"
    merged = msgspec.json.decode(answer.body, type=ApplyResponse).merged
    return "ok" if expected is None or merged == expected else "wrong"


async def drive(url: httpx.URL, work: list[Work], first: int, stop_at: float, tally: Tally) -> None:
    """One client: send the workload round-robin (starting at `first`) until `stop_at`."""
    connection = Connection(url.host, url.port or 80)
    i = first
    try:
        while time.perf_counter() < stop_at:
            item = work[i % len(work)]
            i += 1
            start = time.perf_counter()
            try:
                outcome = classify(await connection.post("/v1/apply", item.body), item.expected)
            except (OSError, ValueError, asyncio.IncompleteReadError) as exc:
                connection.close()
                outcome = f"error_{type(exc).__name__}"
            tally.add(outcome, (time.perf_counter() - start) * 1000)
    finally:
        connection.close()


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


def check_server(url: str) -> httpx.URL:
    try:
        response = httpx.get(f"{url}/health", timeout=CLIENT_TIMEOUT_S)
    except httpx.HTTPError as exc:
        raise InputError(f"no fastapply server at {url}: {exc}", field="url") from None
    if response.status_code != 200:
        raise InputError(f"{url}/health answered {response.status_code}", field="url")
    return response.url


async def run(url: httpx.URL, clients: int, seconds: float, work: list[Work]) -> tuple[float, Tally]:
    """1. one warm-up pass over the workload  2. N clients for `seconds`."""
    await drive(url, work, 0, time.perf_counter() + 0.5, Tally())
    tally = Tally()
    start = time.perf_counter()
    stop_at = start + seconds
    await asyncio.gather(*(drive(url, work, i, stop_at, tally) for i in range(clients)))
    return time.perf_counter() - start, tally


def main(url: str, clients: int, seconds: float, fixtures: Path, json_out: Path | None) -> Summary:
    if clients < 1 or seconds <= 0:
        raise InputError("--clients must be >= 1 and --seconds > 0")
    url = url.rstrip("/")
    if not url.startswith("http://"):
        raise InputError(f"--url {url}: bench serve speaks plain http:// only", field="url")
    health_url = check_server(url)
    work = workload(Path(fixtures))
    elapsed, tally = asyncio.run(run(health_url, clients, seconds, work))
    summary = summarize(url, clients, elapsed, work, tally)
    print_table(
        "bench serve",
        ["figure", "value"],
        [
            ["server", url],
            ["clients", clients],
            ["seconds", summary.seconds],
            ["request kinds", len(work)],
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
