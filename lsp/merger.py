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

from apply_engine.client import apply_answer, apply_call
from apply_engine.config import EngineConfig
from apply_engine.engine import Engine
from apply_engine.errors import FastApplyError
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
            remote = msgspec.structs.replace(request, engine=self.settings.engine)
            return await post_apply(self.settings.server_url, remote, self.settings.api_key)
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


async def post_apply(server_url: str, request: ApplyRequest, api_key: str | None = None) -> ApplyResult:
    """Call `POST {server_url}/v1/apply`; its 422 "ambiguous_merge" is an ambiguous result, not an error."""
    call = apply_call(server_url, request, api_key)
    try:
        async with httpx.AsyncClient(timeout=REMOTE_TIMEOUT_S) as client:
            response = await client.post(call.url, content=call.body, headers=call.headers)
    except httpx.HTTPError as error:
        raise FastApplyError(
            f"cannot reach the fastapply server at {call.url}: {type(error).__name__}: {error}"
        ) from error
    return apply_answer(call, request, response.status_code, response.content)
