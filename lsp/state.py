"""FastApplyServer: the pygls LanguageServer plus the settings and Merger that every feature shares."""

import asyncio
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from apply_engine.errors import InputError
from lsp.merger import Merger
from lsp.settings import Settings, updated


def package_version() -> str:
    try:
        return version("fastapply")
    except PackageNotFoundError:
        return "0"


class FastApplyServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("fastapply", package_version())
        self.settings = Settings()
        self.merger = Merger(self.settings)
        # Set once the settings pulled after `initialized` have arrived; commands wait for it.
        self.configured = asyncio.Event()

    async def wait_configured(self, timeout_s: float = 5.0) -> None:
        """Wait for the first settings pull; a client that never answers gets the settings known so far."""
        try:
            await asyncio.wait_for(self.configured.wait(), timeout_s)
        except TimeoutError:
            self.configured.set()

    def use_settings(self, values: Any) -> None:
        """Lay `values` over the current settings; a bad value is reported and changes nothing."""
        try:
            settings = updated(self.settings, values)
        except InputError as error:
            self.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Warning, message=str(error))
            )
            return
        if settings != self.settings:
            self.settings = settings
            self.merger = Merger(settings)
