"""Wiring: the fastapply language server's lifecycle features and commands.

Settings come from initializationOptions, then from `workspace/configuration` (section
`fastApply`) after `initialized` and on every `workspace/didChangeConfiguration`. Text sync is
incremental; the position encoding is negotiated by pygls (UTF-16 unless the client prefers UTF-8
or UTF-32). The commands themselves are in lsp/apply.py.
"""

import os
import sys
from typing import Any, BinaryIO

from lsprotocol import types

from lsp.apply import APPLY, PREVIEW, apply_command, preview_command
from lsp.settings import SECTION
from lsp.state import FastApplyServer


async def on_initialize(ls: FastApplyServer, params: types.InitializeParams) -> None:
    """initialize: take the settings the client sent as initializationOptions."""
    ls.use_settings(params.initialization_options)


async def on_initialized(ls: FastApplyServer, params: types.InitializedParams) -> None:
    """initialized: pull the `fastApply` section with workspace/configuration."""
    try:
        await pull_configuration(ls)
    finally:
        ls.configured.set()


async def on_did_change_configuration(
    ls: FastApplyServer, params: types.DidChangeConfigurationParams
) -> None:
    """workspace/didChangeConfiguration: re-read the settings (pushed ones first, then pulled)."""
    ls.configured.clear()
    try:
        ls.use_settings(params.settings)
        await pull_configuration(ls)
    finally:
        ls.configured.set()


async def pull_configuration(ls: FastApplyServer) -> None:
    workspace = ls.client_capabilities.workspace
    if workspace is None or not workspace.configuration:
        return
    items = [types.ConfigurationItem(section=SECTION)]
    values: list[Any] = await ls.workspace_configuration_async(types.ConfigurationParams(items=items))
    if values:
        ls.use_settings(values[0])


def create_server() -> FastApplyServer:
    ls = FastApplyServer()
    ls.feature(types.INITIALIZE)(on_initialize)
    ls.feature(types.INITIALIZED)(on_initialized)
    ls.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(on_did_change_configuration)
    ls.command(APPLY)(apply_command)
    ls.command(PREVIEW)(preview_command)
    return ls


def protocol_stdout() -> BinaryIO:
    """A private handle on stdout for JSON-RPC; everything else written to stdout goes to stderr.

    A library that prints (a model loader's progress bar, a stray print) would otherwise corrupt
    the protocol stream, so file descriptor 1 itself is pointed at stderr.
    """
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    return protocol_out


def run_lsp(tcp_port: int | None = None) -> None:
    """Serve over stdio, or on 127.0.0.1:`tcp_port` for debugging."""
    ls = create_server()
    if tcp_port is None:
        ls.start_io(sys.stdin.buffer, protocol_stdout())
    else:
        ls.start_tcp("127.0.0.1", tcp_port)
