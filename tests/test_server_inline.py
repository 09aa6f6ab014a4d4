"""Where the server runs a structural merge: on the event loop when it is known to be cheap
(MergeCosts), else on the merge thread. The engines here record the thread each merge ran on."""

import math
import threading
from collections.abc import Iterator

import httpx
import msgspec

from apply_engine import structural
from apply_engine.engine import Engine
from apply_engine.fixtures import load_cases
from apply_engine.http_schemas import ErrorBody
from apply_engine.schemas import ApplyRequest, ApplyResult
from apply_engine.server import RECENT_ORIGINALS, MergeCosts, ServerSettings, create_app
from tests.helpers_server import serve_app

ORIGINAL = "def greet(name):\n    return 'hi ' + name\n"
REWRITE = "def greet(name):\n    return f'hello {name}'\n"
OK_BODY = {"original": ORIGINAL, "snippet": REWRITE}


class RecordingEngine(Engine):
    """The real structural engine; notes where each merge ran, and fails on request once it has begun."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[str] = []

    def stream(self, request: ApplyRequest) -> Iterator[str | ApplyResult]:
        self.threads.append(threading.current_thread().name)
        if "explode" in request.snippet:
            raise RuntimeError("secret internal detail")
        for item in super().stream(request):
            yield item
            if "fail late" in request.snippet:
                raise RuntimeError("secret internal detail")

    def ran_on_merge_thread(self) -> list[bool]:
        return [name.startswith("merge") for name in self.threads]


def tiny_functions(count: int, sign: str = "") -> str:
    return "".join(f"def f{i}():\n    return {sign}{i}\n" for i in range(count))


# A budget no merge here comes near, so every merge after the first into an original runs on the
# loop. Under the default budget one may still go to the thread now and then: a garbage collection
# that lands inside a merge counts in its CPU time.
INLINE_WHEN_WARM = ServerSettings(inline_budget_s=1.0)


def warm_up(base: str) -> None:
    """The first merge into ORIGINAL, which runs on the thread and records its cost."""
    assert httpx.post(f"{base}/v1/apply", json=OK_BODY).json()["merged"] == REWRITE


def test_a_small_merge_runs_on_a_thread_first_then_on_the_loop() -> None:
    engine = RecordingEngine()
    with serve_app(create_app(engine)) as base:
        for _ in range(10):  # the process's first merge loads a grammar, so costs more than the next
            assert httpx.post(f"{base}/v1/apply", json=OK_BODY).json()["merged"] == REWRITE
            if not engine.ran_on_merge_thread()[-1]:
                break
    assert engine.ran_on_merge_thread()[0] and not engine.ran_on_merge_thread()[-1]


def test_a_costly_merge_stays_on_the_thread_however_often_it_repeats() -> None:
    """A whole-file rewrite of 2,000 tiny functions takes tens of milliseconds even when warm."""
    engine = RecordingEngine()
    body = {"original": tiny_functions(2000), "snippet": tiny_functions(2000, "-"), "language": "python"}
    with serve_app(create_app(engine)) as base:
        answers = [httpx.post(f"{base}/v1/apply", json=body, timeout=30) for _ in range(3)]
    assert [a.status_code for a in answers] == [200] * 3
    assert engine.ran_on_merge_thread() == [True, True, True]


def untimed(response: httpx.Response) -> dict:
    """The JSON answer without its timings."""
    return {key: value for key, value in response.json().items() if key != "stats"}


def test_inline_merges_answer_what_threaded_merges_answer_on_every_fixture() -> None:
    inline_engine, threaded_engine = RecordingEngine(), RecordingEngine()
    never_inline = ServerSettings(inline_budget_s=0.0)
    with (
        serve_app(create_app(inline_engine, INLINE_WHEN_WARM)) as inline_base,
        serve_app(create_app(threaded_engine, never_inline)) as threaded_base,
        httpx.Client(base_url=inline_base) as inline,
        httpx.Client(base_url=threaded_base) as threaded,
    ):
        for case in load_cases():
            body = msgspec.json.encode(
                ApplyRequest(original=case.original, snippet=case.snippet, path=case.path)
            )
            inline.post("/v1/apply", content=body)  # the first merge into an original runs on a thread
            expected = threaded.post("/v1/apply", content=body)
            answer = inline.post("/v1/apply", content=body)
            assert (answer.status_code, untimed(answer)) == (expected.status_code, untimed(expected)), (
                case.name
            )
    assert all(threaded_engine.ran_on_merge_thread())
    assert not any(inline_engine.ran_on_merge_thread()[1::2])  # every answer compared ran inline


def test_an_inline_crash_fails_that_request_alone() -> None:
    engine = RecordingEngine()
    with serve_app(create_app(engine, INLINE_WHEN_WARM)) as base:
        warm_up(base)
        crashed = httpx.post(f"{base}/v1/apply", json={"original": ORIGINAL, "snippet": "explode"})
        after = httpx.post(f"{base}/v1/apply", json=OK_BODY)
    assert engine.ran_on_merge_thread()[-2:] == [False, False]
    assert crashed.status_code == 500
    error = msgspec.json.decode(crashed.content, type=ErrorBody).error
    assert error.type == "server_error" and "secret" not in crashed.text
    assert after.status_code == 200 and after.json()["merged"] == REWRITE


def test_an_inline_failure_after_the_first_delta_ends_the_stream_with_an_error_event() -> None:
    engine = RecordingEngine()
    failing = {"original": ORIGINAL, "snippet": REWRITE + "# fail late\n", "stream": True}
    with serve_app(create_app(engine, INLINE_WHEN_WARM)) as base:
        warm_up(base)
        answer = httpx.post(f"{base}/v1/apply", json=failing)
    assert engine.ran_on_merge_thread()[-1] is False
    events = [line.removeprefix("event: ") for line in answer.text.splitlines() if line.startswith("event: ")]
    assert events == ["delta", "error"]
    assert "secret" not in answer.text


def test_bad_input_is_still_a_400_naming_the_field_inline() -> None:
    engine = RecordingEngine()
    with serve_app(create_app(engine, INLINE_WHEN_WARM)) as base:
        warm_up(base)
        answer = httpx.post(f"{base}/v1/apply", json={"original": ORIGINAL, "snippet": "x\x00"})
    assert engine.ran_on_merge_thread()[-1] is False
    assert answer.status_code == 400
    assert msgspec.json.decode(answer.content, type=ErrorBody).error.param == "snippet"


# -- MergeCosts alone ----------------------------------------------------------------------------


def request_for(original: str, snippet: str = "x = 2\n") -> ApplyRequest:
    return ApplyRequest(original=original, snippet=snippet, language="python")


def test_a_longer_snippet_is_predicted_to_cost_proportionally_more() -> None:
    costs = MergeCosts(budget_s=0.002, recent=4)
    costs.record(request_for("a = 1\n", "s" * 100), 0.0015)
    assert costs.cheap(request_for("a = 1\n", "t" * 50))
    assert costs.cheap(request_for("a = 1\n", "t" * 130))
    assert not costs.cheap(request_for("a = 1\n", "t" * 140))


def test_an_original_never_merged_or_merged_by_the_model_is_not_cheap() -> None:
    costs = MergeCosts(budget_s=0.002, recent=4)
    assert not costs.cheap(request_for("a = 1\n"))
    costs.record(request_for("a = 1\n"), math.inf)
    assert not costs.cheap(request_for("a = 1\n"))


def test_costs_forget_the_least_recently_merged_original_first() -> None:
    costs = MergeCosts(budget_s=0.002, recent=2)
    for original in ("a = 1\n", "b = 1\n", "a = 1\n", "c = 1\n"):
        costs.record(request_for(original), 0.0001)
    assert [costs.cheap(request_for(o)) for o in ("a = 1\n", "b = 1\n", "c = 1\n")] == [True, False, True]


def test_a_merge_that_fails_before_the_analysis_records_no_cost() -> None:
    costs = MergeCosts(budget_s=0.002, recent=4)
    items = costs.run(Engine(), request_for("a = 1\n", snippet="   "))
    assert len(items) == 1 and isinstance(items[0], Exception)
    assert not costs.cheap(request_for("a = 1\n"))


def test_the_server_remembers_no_more_originals_than_the_engine_caches_analyses_of() -> None:
    assert structural.analyse.cache_info().maxsize >= RECENT_ORIGINALS
