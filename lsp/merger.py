"""Where the language server sends a merge: the in-process Engine, or a running `fastapply serve`.

The Merger is rebuilt whenever the settings change; its Engine (and any model) loads on the first
merge, not at startup, so an editor opens instantly. Local merges run one at a time in a worker
thread so the event loop keeps answering the editor.
"""

import asyncio
import threading
from collections.abc import Callable

import httpx
import msgspec

from apply_engine.config import EngineConfig
from apply_engine.engine import Engine
from apply_engine.errors import FastApplyError, InputError
from apply_engine.schemas import ApplyRequest, ApplyResult
from lsp.settings import Settings

REMOTE_TIMEOUT_S = 600.0


class Merger:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.engine: Engine | None = None
        self.lock = threading.Lock()

    async def merge(
        self, request: ApplyRequest, on_delta: Callable[[str], None] | None = None
    ) -> ApplyResult:
        """Merge `request`; `on_delta` sees merged-text pieces as a local model decides them."""
        if self.settings.server_url is not None:
            return await post_apply(self.settings.server_url, request)
        loop = asyncio.get_running_loop()

        def forward(delta: str) -> None:
            if on_delta is not None:
                loop.call_soon_threadsafe(on_delta, delta)

        return await asyncio.to_thread(self.merge_locally, request, forward)

    def merge_locally(self, request: ApplyRequest, on_delta: Callable[[str], None]) -> ApplyResult:
        with self.lock:
            engine = self.load_engine()
            for item in engine.stream(request):
                if isinstance(item, ApplyResult):
                    return item
                on_delta(item)
        raise FastApplyError("the engine ended without a result")

    def load_engine(self) -> Engine:
        if self.engine is None:
            config = EngineConfig(
                engine=self.settings.engine, model=self.settings.model, device=self.settings.device
            )
            self.engine = Engine(config)
        return self.engine


async def post_apply(server_url: str, request: ApplyRequest) -> ApplyResult:
    """Call `POST {server_url}/v1/apply`; a 422 carrying a result is an ambiguous merge, not an error."""
    url = server_url.rstrip("/") + "/v1/apply"
    body = msgspec.to_builtins(request)
    try:
        async with httpx.AsyncClient(timeout=REMOTE_TIMEOUT_S) as client:
            response = await client.post(url, json=body)
    except httpx.HTTPError as error:
        raise FastApplyError(f"cannot reach the fastapply server at {url}: {error}") from error
    if response.status_code in (200, 422):
        try:
            return msgspec.json.decode(response.content, type=ApplyResult)
        except msgspec.DecodeError:
            pass
    detail = response.text.strip()[:500] or response.reason_phrase
    if 400 <= response.status_code < 500:
        raise InputError(f"the fastapply server at {url} rejected the request: {detail}")
    raise FastApplyError(f"the fastapply server at {url} answered {response.status_code}: {detail}")
