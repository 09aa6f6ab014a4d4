"""The HTTP service, exercised over a real loopback socket with httpx (sync, async, streaming).

Engines here are the real structural Engine, except where a claim needs a merge that is slow, blocks
or fails on demand (timeouts, the model queue, disconnects, crashes): those use small Engine
subclasses defined below, since the model engine cannot be made slow or broken on request.
"""

import asyncio
import contextlib
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import httpx
import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apply_engine.engine import Engine
from apply_engine.fixtures import load_cases
from apply_engine.http_schemas import ApplyResponse, ErrorBody, parse_chat
from apply_engine.schemas import ApplyRequest, ApplyResult
from apply_engine.server import ServerSettings, create_app
from tests.helpers_server import serve_app, serve_cli

ORIGINAL = "def greet(name):\n    return 'hi ' + name\n"
REWRITE = "def greet(name):\n    return f'hello {name}'\n"
MARKER_SNIPPET = "# ... existing code ...\ndef bye():\n    return 'bye'\n"
ONLY_MARKERS = "# ... existing code ...\n"  # nothing to anchor on: ambiguous for any merge
OK_BODY = {"original": ORIGINAL, "snippet": REWRITE}  # a whole-file rewrite: merges to REWRITE


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve_app(create_app()) as base:
        yield base


def sse_events(lines: Iterable[str]) -> list[tuple[str, bytes]]:
    """Parse `event:`/`data:` pairs from an SSE body."""
    events, event = [], "message"
    for line in lines:
        if line.startswith("event: "):
            event = line[len("event: ") :]
        elif line.startswith("data: "):
            events.append((event, line[len("data: ") :].encode()))
            event = "message"
    return events


def error_of(response: httpx.Response) -> ErrorBody:
    assert "Traceback" not in response.text
    return msgspec.json.decode(response.content, type=ErrorBody)


# -- the native route ----------------------------------------------------------------------------


def test_apply_returns_the_merged_file(url: str) -> None:
    body = {"original": ORIGINAL, "snippet": REWRITE, "path": "greet.py"}
    response = httpx.post(f"{url}/v1/apply", json=body)
    assert response.status_code == 200
    result = msgspec.json.decode(response.content, type=ApplyResponse)
    assert (result.merged, result.status, result.engine, result.language) == (
        REWRITE,
        "ok",
        "structural",
        "python",
    )


def test_server_answers_what_the_engine_answers_on_every_fixture(url: str) -> None:
    engine = Engine()
    with httpx.Client(base_url=url) as client:
        for case in load_cases():
            request = ApplyRequest(original=case.original, snippet=case.snippet, path=case.path)
            expected = engine.apply(request)
            response = client.post("/v1/apply", content=msgspec.json.encode(request))
            if expected.status == "ok":
                assert response.status_code == 200, case.name
                assert response.json()["merged"] == expected.merged, case.name
            else:
                assert response.status_code == 422, case.name
                assert error_of(response).error.reasons == expected.reasons, case.name


def test_merges_in_worker_processes_answer_what_the_engine_answers() -> None:
    engine = Engine()
    with (
        serve_app(create_app(settings=ServerSettings(processes=2))) as base,
        httpx.Client(base_url=base) as client,
    ):
        for case in load_cases()[::4]:
            request = ApplyRequest(original=case.original, snippet=case.snippet, path=case.path)
            expected = engine.apply(request)
            response = client.post("/v1/apply", content=msgspec.json.encode(request))
            assert response.status_code == (200 if expected.status == "ok" else 422), case.name
            assert response.json().get("merged") == expected.merged, case.name
        empty = client.post("/v1/apply", json={"original": "a", "snippet": " "})
        unknown = client.post("/v1/apply", json={**OK_BODY, "language": "klingon"})
    assert empty.status_code == unknown.status_code == 400
    assert (error_of(empty).error.param, error_of(unknown).error.param) == ("snippet", "language")


def test_a_marker_snippet_merges_over_http(url: str) -> None:
    body = {"original": ORIGINAL, "snippet": MARKER_SNIPPET, "language": "python"}
    merged = httpx.post(f"{url}/v1/apply", json=body).json()["merged"]
    assert merged.startswith(ORIGINAL) and merged.endswith("def bye():\n    return 'bye'\n")
    assert "existing code" not in merged


def test_an_ambiguous_merge_is_422_with_its_reasons(url: str) -> None:
    body = {"original": ORIGINAL, "snippet": ONLY_MARKERS, "language": "python"}
    response = httpx.post(f"{url}/v1/apply", json=body)
    assert response.status_code == 422
    error = error_of(response).error
    assert error.type == "ambiguous_merge"
    assert error.reasons == Engine().apply(ApplyRequest(**body)).reasons != []


def test_streamed_deltas_add_up_to_the_result(url: str) -> None:
    body = {"original": ORIGINAL, "snippet": REWRITE, "stream": True}
    with httpx.stream("POST", f"{url}/v1/apply", json=body) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        events = sse_events(response.iter_lines())
    deltas = [msgspec.json.decode(data)["text"] for event, data in events if event == "delta"]
    results = [msgspec.json.decode(data, type=ApplyResponse) for event, data in events if event == "result"]
    assert len(results) == 1 and events[-1][0] == "result"
    assert "".join(deltas) == results[0].merged == REWRITE


async def test_concurrent_clients_each_get_their_own_file(url: str) -> None:
    async with httpx.AsyncClient(base_url=url) as client:
        snippets = [f"VALUE = {i}\n" for i in range(24)]
        bodies = [{"original": "VALUE = 0\n", "snippet": s} for s in snippets]
        responses = await asyncio.gather(*(client.post("/v1/apply", json=b) for b in bodies))
    assert [r.json()["merged"] for r in responses] == snippets


# -- bad input: 4xx naming the field, never a 5xx or a traceback ---------------------------------

BAD_BODIES = [
    (b'{"original": "a", "snippet": "\xff\xfe"}', "body", "UTF-8"),
    (b'{"original": "a", "snippet": ', "body", "JSON"),
    (b"", "body", "empty"),
    (b"[1, 2]", "body", "object"),
    (b"[" * 100_000 + b"]" * 100_000, "body", "nested too deeply"),
    (b'{"original": 1, "snippet": "b"}', "original", "str"),
    (b'{"snippet": "b"}', "original", "missing"),
    (b'{"original": "a", "snippet": "  \\n"}', "snippet", "empty"),
    (b'{"original": "a", "snippet": "b", "language": "klingon"}', "language", "klingon"),
    (b'{"original": "a", "snippet": "b", "engine": "model"}', "engine", "model"),
    (b'{"original": "a", "snippet": "b", "engine": "fast"}', "engine", "Invalid enum"),
    (b'{"original": "a\\u0000", "snippet": "b"}', "original", "NUL"),
]


@pytest.mark.parametrize(("body", "field", "words"), BAD_BODIES)
def test_bad_input_is_a_400_naming_the_field(url: str, body: bytes, field: str, words: str) -> None:
    response = httpx.post(f"{url}/v1/apply", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 400
    error = error_of(response).error
    assert error.param == field
    assert words.lower() in error.message.lower()


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
FIELDS = ("original", "snippet", "language", "engine", "stream", "messages", "initialCode", "edit_snippet")
BODIES = (
    st.binary(max_size=200)
    | JSON_VALUES.map(msgspec.json.encode)
    | st.dictionaries(st.sampled_from(FIELDS), JSON_VALUES, max_size=5).map(msgspec.json.encode)
)


@settings(max_examples=60, deadline=None)
@given(route=st.sampled_from(["/v1/apply", "/v1/chat/completions", "/v1/code/apply"]), body=BODIES)
def test_arbitrary_bodies_never_get_a_server_error(url: str, route: str, body: bytes) -> None:
    response = httpx.post(f"{url}{route}", content=body, headers={"content-type": "application/json"})
    assert response.status_code < 500
    assert "Traceback" not in response.text


def test_a_body_over_the_limit_is_413() -> None:
    with serve_app(create_app(settings=ServerSettings(max_body=1024))) as base:
        small = httpx.post(f"{base}/v1/apply", json=OK_BODY)
        large = httpx.post(f"{base}/v1/apply", json={"original": "x" * 4096, "snippet": "b"})
    assert small.status_code == 200
    assert large.status_code == 413
    assert "1024-byte limit" in error_of(large).error.message


def test_code_apply_takes_either_spelling(url: str) -> None:
    snake = httpx.post(f"{url}/v1/code/apply", json={"initial_code": ORIGINAL, "edit_snippet": REWRITE})
    camel = httpx.post(f"{url}/v1/code/apply", json={"initialCode": ORIGINAL, "editSnippet": REWRITE})
    both = httpx.post(
        f"{url}/v1/code/apply", json={"initialCode": "a", "initial_code": "a", "editSnippet": "b"}
    )
    assert snake.json()["mergedCode"] == camel.json()["mergedCode"] == REWRITE
    assert both.status_code == 400 and error_of(both).error.param == "initial_code"


async def test_code_apply_streams_deltas_then_the_merged_code(url: str) -> None:
    body = {"initialCode": ORIGINAL, "editSnippet": REWRITE, "stream": True}
    async with (
        httpx.AsyncClient(base_url=url) as client,
        client.stream("POST", "/v1/code/apply", json=body) as response,
    ):
        events = sse_events([line async for line in response.aiter_lines()])
    deltas = "".join(msgspec.json.decode(data)["text"] for event, data in events if event == "delta")
    assert events[-1][0] == "result"
    assert deltas == msgspec.json.decode(events[-1][1])["mergedCode"] == REWRITE


def test_chat_prompt_tags_are_read_verbatim() -> None:
    from apply_engine.http_schemas import ChatMessage, ContentPart

    text = "<instruction>Rename</instruction>\n<code>\na </code> b\n</code>\n<update>c\n</update>"
    parts = [ContentPart(type="text", text=text[:20]), ContentPart(type="text", text=text[20:])]
    request = parse_chat([ChatMessage(role="system", content="x"), ChatMessage(role="user", content=parts)])
    assert (request.instruction, request.original, request.snippet) == ("Rename", "a </code> b\n", "c\n")


def test_openapi_schema_lists_every_route(url: str) -> None:
    paths = httpx.get(f"{url}/schema/openapi.json").json()["paths"]
    assert {"/v1/apply", "/v1/chat/completions", "/v1/code/apply", "/v1/models", "/health"} <= set(paths)


def test_metrics_count_requests_by_route_status_and_engine(url: str) -> None:
    httpx.post(f"{url}/v1/apply", json=OK_BODY)
    httpx.post(f"{url}/v1/apply", json={"original": "a", "snippet": " "})
    text = httpx.get(f"{url}/metrics").text
    assert 'fastapply_requests_total{route="/v1/apply",status="200",engine="structural"}' in text
    assert 'fastapply_requests_total{route="/v1/apply",status="400",engine="structural"}' in text
    assert 'fastapply_request_duration_seconds_bucket{route="/v1/apply",le="+Inf"}' in text
    assert "# TYPE fastapply_queue_depth gauge" in text


def test_metrics_histogram_is_cumulative_and_counts_every_request() -> None:
    with serve_app(create_app()) as base:
        for snippet in (REWRITE, " ", REWRITE):
            httpx.post(f"{base}/v1/apply", json={"original": ORIGINAL, "snippet": snippet})
        lines = httpx.get(f"{base}/metrics").text.splitlines()
    prefix = 'fastapply_request_duration_seconds_bucket{route="/v1/apply",'
    buckets = [int(line.rsplit(" ", 1)[1]) for line in lines if line.startswith(prefix)]
    count = next(
        line
        for line in lines
        if line.startswith('fastapply_request_duration_seconds_count{route="/v1/apply"}')
    )
    assert buckets == sorted(buckets) and buckets[-1] == 3
    assert count.endswith(" 3")


# -- auth --------------------------------------------------------------------------------------


def test_bearer_token_guards_every_route_but_health() -> None:
    with serve_app(create_app(settings=ServerSettings(api_key="s3cret"))) as base:
        body = OK_BODY
        missing = httpx.post(f"{base}/v1/apply", json=body)
        wrong = httpx.post(f"{base}/v1/apply", json=body, headers={"Authorization": "Bearer nope"})
        right = httpx.post(f"{base}/v1/apply", json=body, headers={"Authorization": "Bearer s3cret"})
        metrics = httpx.get(f"{base}/metrics")
        health = httpx.get(f"{base}/health")
    assert missing.status_code == wrong.status_code == metrics.status_code == 401
    assert missing.headers["www-authenticate"] == "Bearer"
    assert error_of(wrong).error.type == "authentication_error"
    assert right.status_code == health.status_code == 200


# -- faults: crashes, timeouts, the model queue, disconnects, blocking -------------------------


class ExplodingEngine(Engine):
    """Raises inside the merge when the snippet says so."""

    def stream(self, request: ApplyRequest) -> Iterator[str | ApplyResult]:
        if "explode" in request.snippet:
            raise RuntimeError("secret internal detail")
        yield from super().stream(request)


class SlowModelEngine(Engine):
    """Stands in for a model engine: `steps` deltas, one per `step_s` seconds; records when it stops."""

    def __init__(self, steps: int, step_s: float) -> None:
        super().__init__()
        self.steps, self.step_s = steps, step_s
        self.produced = 0
        self.stopped = threading.Event()

    def pick(self, request: ApplyRequest) -> str:
        return "model"

    def stream(self, request: ApplyRequest) -> Iterator[str | ApplyResult]:
        try:
            for i in range(self.steps):
                time.sleep(self.step_s)
                self.produced += 1
                yield f"line {i}\n"
            merged = "".join(f"line {i}\n" for i in range(self.steps))
            yield ApplyResult(merged=merged, status="ok", engine="model", language="text")
        finally:
            self.stopped.set()


class FailingMidStreamEngine(Engine):
    """Yields one delta, then fails."""

    def stream(self, request: ApplyRequest) -> Iterator[str | ApplyResult]:
        yield "first line\n"
        raise RuntimeError("secret internal detail")


class BlockingEngine(Engine):
    """Blocks inside the merge until released."""

    def __init__(self) -> None:
        super().__init__()
        self.entered, self.release = threading.Event(), threading.Event()

    def stream(self, request: ApplyRequest) -> Iterator[str | ApplyResult]:
        self.entered.set()
        self.release.wait(timeout=30)
        yield from super().stream(request)


def test_an_engine_crash_fails_that_request_alone() -> None:
    with serve_app(create_app(ExplodingEngine())) as base:
        crashed = httpx.post(f"{base}/v1/apply", json={"original": "a", "snippet": "explode"})
        after = httpx.post(f"{base}/v1/apply", json=OK_BODY)
    assert crashed.status_code == 500
    error = error_of(crashed).error
    assert error.type == "server_error" and "secret" not in crashed.text
    assert after.status_code == 200 and after.json()["merged"] == REWRITE


def test_a_failure_after_the_first_delta_ends_the_stream_with_an_error_event() -> None:
    with serve_app(create_app(FailingMidStreamEngine())) as base:
        body = {"original": "a", "snippet": "b", "stream": True}
        with httpx.stream("POST", f"{base}/v1/apply", json=body) as response:
            events = sse_events(response.iter_lines())
        after = httpx.get(f"{base}/health")
    assert [event for event, _ in events] == ["delta", "error"]
    assert msgspec.json.decode(events[1][1], type=ErrorBody).error.type == "server_error"
    assert b"secret" not in events[1][1]
    assert after.status_code == 200


def test_a_slow_merge_times_out_with_504_and_is_cancelled() -> None:
    engine = SlowModelEngine(steps=200, step_s=0.02)
    with serve_app(create_app(engine, ServerSettings(timeout=0.3))) as base:
        response = httpx.post(f"{base}/v1/apply", json={"original": "a", "snippet": "b"})
        assert engine.stopped.wait(timeout=5)
    assert response.status_code == 504
    assert error_of(response).error.type == "timeout"
    assert engine.produced < engine.steps


async def test_a_full_model_queue_answers_503_with_retry_after() -> None:
    engine = SlowModelEngine(steps=20, step_s=0.05)
    settings = ServerSettings(max_concurrency=1, max_queue=1)
    with serve_app(create_app(engine, settings)) as base:
        async with httpx.AsyncClient(base_url=base, timeout=30) as client:
            body = {"original": "a", "snippet": "b"}
            responses = await asyncio.gather(*(client.post("/v1/apply", json=body) for _ in range(3)))
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200, 200, 503]
    rejected = next(r for r in responses if r.status_code == 503)
    assert rejected.headers["retry-after"] == "1"
    assert error_of(rejected).error.type == "overloaded"


def test_a_client_that_disconnects_mid_stream_cancels_the_merge() -> None:
    engine = SlowModelEngine(steps=500, step_s=0.01)
    with serve_app(create_app(engine)) as base:
        body = {"original": "a", "snippet": "b", "stream": True}
        with httpx.stream("POST", f"{base}/v1/apply", json=body) as response:
            first = next(response.iter_lines())
        assert engine.stopped.wait(timeout=5)
        health = httpx.get(f"{base}/health")
    assert first.startswith("event: delta")
    assert engine.produced < engine.steps
    assert health.status_code == 200


def test_a_merge_in_progress_does_not_block_other_requests() -> None:
    engine = BlockingEngine()
    with serve_app(create_app(engine)) as base, httpx.Client(base_url=base, timeout=10) as client:
        thread = threading.Thread(
            target=client.post, args=("/v1/apply",), kwargs={"json": {"original": "a", "snippet": "b"}}
        )
        thread.start()
        assert engine.entered.wait(timeout=10)
        health = httpx.get(f"{base}/health", timeout=5)
        engine.release.set()
        thread.join(timeout=10)
    assert health.status_code == 200


# -- the command ---------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("curl") is None, reason="needs curl")
def test_fastapply_serve_prints_a_curl_example_that_works() -> None:
    with serve_cli() as (_, process):
        assert process.stdout is not None
        lines = [process.stdout.readline(), process.stdout.readline()]
        command = lines[1].removeprefix("try: ").strip()
        answer = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=30)
    assert lines[0].startswith("fastapply serving on http://127.0.0.1:")
    assert msgspec.json.decode(answer.stdout)["merged"] == "def f():\n    return 2\n"


def test_fastapply_serve_refuses_an_unset_api_key_variable() -> None:
    command = ["serve", "--api-key-env", "FASTAPPLY_TEST_UNSET_KEY"]
    done = subprocess.run(
        [sys.executable, "-m", "apply_engine.cli", *command], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "FASTAPPLY_TEST_UNSET_KEY" in done.stderr and "Traceback" not in done.stderr


def children_of(pid: int) -> list[int]:
    """Live child processes, from /proc (Linux)."""
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()  # after "pid (command)": state, ppid, ...
            if int(fields[1]) == pid:
                children.append(int(stat.parent.name))
    return children


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_stopping_the_server_stops_its_worker_processes() -> None:
    with serve_cli("--processes", "2") as (base, process):
        assert httpx.post(f"{base}/v1/apply", json=OK_BODY).json()["merged"] == REWRITE
        workers = children_of(process.pid)
    assert len(workers) >= 2
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() for pid in workers):
        time.sleep(0.1)
    assert not [pid for pid in workers if Path(f"/proc/{pid}").exists()]


# -- the model engine (real smollm2-135m weights, CPU) -------------------------------------------

MODEL_BODY = {
    "original": "def f():\n    return 1\n",
    "snippet": "def f():\n    return 2\n",
    "language": "python",
}


@pytest.fixture(scope="module")
def model_url() -> Iterator[str]:
    pytest.importorskip("apply_engine.model_merge")
    from apply_engine.config import EngineConfig

    engine = Engine(EngineConfig(model="smollm2-135m", device="cpu", dtype="float32"))
    settings = ServerSettings(max_concurrency=1, max_queue=0, model_name="smollm2-135m")
    with serve_app(create_app(engine, settings)) as base:
        yield base


@pytest.mark.slow
def test_model_engine_streams_deltas_that_add_up_to_its_result(model_url: str) -> None:
    with httpx.stream(
        "POST", f"{model_url}/v1/apply", json={**MODEL_BODY, "stream": True}, timeout=300
    ) as response:
        assert response.status_code == 200
        events = sse_events(response.iter_lines())
    deltas = [msgspec.json.decode(data)["text"] for event, data in events if event == "delta"]
    result = msgspec.json.decode(events[-1][1], type=ApplyResponse)
    assert events[-1][0] == "result" and result.engine == "model"
    assert "".join(deltas) == result.merged
    assert result.stats.output_tokens > 0


@pytest.mark.slow
async def test_model_requests_beyond_the_queue_get_503_and_metrics_count_tokens(model_url: str) -> None:
    async with httpx.AsyncClient(base_url=model_url, timeout=300) as client:
        responses = await asyncio.gather(*(client.post("/v1/apply", json=MODEL_BODY) for _ in range(2)))
        metrics = (await client.get("/metrics")).text
    assert sorted(r.status_code for r in responses) == [200, 503]
    assert 'fastapply_requests_total{route="/v1/apply",status="503",engine="model"}' in metrics
    tokens = next(line for line in metrics.splitlines() if line.startswith("fastapply_output_tokens_total{"))
    assert float(tokens.rsplit(" ", 1)[1]) > 0
    assert "fastapply_tau_count" in metrics
