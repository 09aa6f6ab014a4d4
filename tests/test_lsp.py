"""The language server end to end: a real LSP client (pytest-lsp) drives `python -m lsp` over stdio."""

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import ClientServerConfig, LanguageClient

from apply_engine.errors import InputError
from apply_engine.fixtures import load_case
from lsp.edits import apply_edits
from lsp.settings import Settings, updated
from tests.helpers_server import serve_cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

ORIGINAL = """def greet(name):
    return "hello " + name


def farewell(name):
    return "bye " + name
"""

# A whole-file snippet: every engine merges it to itself.
REWRITE = """def greet(name):
    return "hello " + name


def farewell(name):
    return "goodbye, " + name + "!"
"""


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "lsp"]))
async def client(lsp_client: LanguageClient) -> Any:
    lsp_client.applied_edits = []  # every workspace/applyEdit the server sent
    lsp_client.accept_edits = True  # what this editor answers to them

    @lsp_client.feature(types.WORKSPACE_APPLY_EDIT)
    def on_apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        lsp_client.applied_edits.append(params.edit)
        return types.ApplyWorkspaceEditResult(applied=lsp_client.accept_edits)

    yield
    await lsp_client.shutdown_session()


async def initialize(
    client: LanguageClient,
    encodings: list[str] | None = None,
    options: dict[str, Any] | None = None,
    document_changes: bool = True,
) -> types.InitializeResult:
    capabilities = types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=encodings),
        window=types.WindowClientCapabilities(work_done_progress=True),
        workspace=types.WorkspaceClientCapabilities(
            configuration=True,
            workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=document_changes),
        ),
    )
    params = types.InitializeParams(capabilities=capabilities, initialization_options=options)
    return await client.initialize_session(params)


def open_document(client: LanguageClient, uri: str, text: str, language_id: str = "python") -> None:
    item = types.TextDocumentItem(uri=uri, language_id=language_id, version=1, text=text)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))


async def run(client: LanguageClient, command: str, *arguments: Any) -> Any:
    params = types.ExecuteCommandParams(command=command, arguments=list(arguments))
    return await client.workspace_execute_command_async(params)


def edits_for(edit: types.WorkspaceEdit, uri: str) -> list[types.TextEdit]:
    if edit.document_changes is not None:
        return [
            e for change in edit.document_changes if change.text_document.uri == uri for e in change.edits
        ]
    return list((edit.changes or {}).get(uri, []))


async def test_apply_sends_minimal_edits_that_yield_the_merge(client: LanguageClient, tmp_path: Path) -> None:
    await initialize(client)
    uri = (tmp_path / "greet.py").as_uri()
    open_document(client, uri, ORIGINAL)

    answer = await run(client, "fastApply.apply", {"uri": uri, "snippet": REWRITE})

    assert answer["applied"] is True
    assert (answer["status"], answer["engine"]) == ("ok", "structural")
    [edit] = client.applied_edits
    text_edits = edits_for(edit, uri)
    # Only the changed tail of line 5 is sent: `bye " + name` -> `goodbye, " + name + "!"`.
    start, end = types.Position(line=5, character=12), types.Position(line=5, character=24)
    assert text_edits == [
        types.TextEdit(range=types.Range(start=start, end=end), new_text='goodbye, " + name + "!"')
    ]
    assert apply_edits(ORIGINAL, text_edits) == REWRITE


@pytest.mark.parametrize(
    "case_name",
    [
        "py-method-body-replaced",
        "py-crlf-original",
        "py-unicode-ellipsis-field-added",
        "ts-interface-field-added",
    ],
)
async def test_lazy_marker_snippet_yields_the_fixture_merge(
    client: LanguageClient, tmp_path: Path, case_name: str
) -> None:
    await initialize(client)
    case = load_case(FIXTURES / case_name)
    uri = (tmp_path / case.path).as_uri()
    open_document(client, uri, case.original, language_id=case.language)

    answer = await run(client, "fastApply.apply", {"uri": uri, "snippet": case.snippet})

    assert (answer["applied"], answer["status"]) == (True, "ok")
    [edit] = client.applied_edits
    assert apply_edits(case.original, edits_for(edit, uri)) == case.expected


async def test_apply_uses_a_versioned_document_edit(client: LanguageClient, tmp_path: Path) -> None:
    await initialize(client)
    uri = (tmp_path / "greet.py").as_uri()
    open_document(client, uri, ORIGINAL)
    await run(client, "fastApply.apply", {"uri": uri, "snippet": REWRITE})
    [change] = client.applied_edits[0].document_changes
    assert (change.text_document.uri, change.text_document.version) == (uri, 1)


async def test_applied_is_the_editors_answer(client: LanguageClient, tmp_path: Path) -> None:
    await initialize(client)
    client.accept_edits = False
    uri = (tmp_path / "greet.py").as_uri()
    open_document(client, uri, ORIGINAL)
    answer = await run(client, "fastApply.apply", {"uri": uri, "snippet": REWRITE})
    assert (answer["applied"], answer["status"]) == (False, "ok")


async def test_client_without_document_changes_gets_a_changes_map(
    client: LanguageClient, tmp_path: Path
) -> None:
    await initialize(client, document_changes=False)
    uri = (tmp_path / "greet.py").as_uri()
    open_document(client, uri, ORIGINAL)
    await run(client, "fastApply.apply", {"uri": uri, "snippet": REWRITE})
    [edit] = client.applied_edits
    assert edit.document_changes is None
    assert apply_edits(ORIGINAL, edit.changes[uri]) == REWRITE


async def test_apply_merges_into_unsaved_text_not_the_file_on_disk(
    client: LanguageClient, tmp_path: Path
) -> None:
    await initialize(client)
    path = tmp_path / "greet.py"
    path.write_text("print('on disk only')\n")
    uri = path.as_uri()
    open_document(client, uri, ORIGINAL)
    # Incremental sync: rename `name` to `who` on line 0 without saving.
    change = types.TextDocumentContentChangePartial(
        range=types.Range(
            start=types.Position(line=0, character=10), end=types.Position(line=0, character=14)
        ),
        text="who",
    )
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2), content_changes=[change]
        )
    )
    unsaved = ORIGINAL.replace("def greet(name)", "def greet(who)")
    snippet = unsaved.replace('"bye "', '"ciao "')

    answer = await run(client, "fastApply.apply", {"uri": uri, "snippet": snippet})

    assert answer["applied"] is True
    [edit] = client.applied_edits
    assert apply_edits(unsaved, edits_for(edit, uri)) == snippet
    assert edit.document_changes[0].text_document.version == 2
    assert path.read_text() == "print('on disk only')\n"  # the server never writes files


@pytest.mark.parametrize(
    ("encodings", "negotiated", "column"),
    [(None, "utf-16", 17), (["utf-8"], "utf-8", 20), (["utf-32", "utf-16"], "utf-32", 16)],
)
async def test_positions_use_the_negotiated_encoding(
    client: LanguageClient, tmp_path: Path, encodings: list[str] | None, negotiated: str, column: int
) -> None:
    result = await initialize(client, encodings=encodings)
    assert result.capabilities.position_encoding == negotiated
    original = 'label = "café 😀 ok"\nother = 1\n'
    snippet = 'label = "café 😀 OK"\nother = 1\n'
    uri = (tmp_path / "label.py").as_uri()
    open_document(client, uri, original)

    await run(client, "fastApply.apply", {"uri": uri, "snippet": snippet})

    [text_edit] = edits_for(client.applied_edits[0], uri)
    assert text_edit.range.start == types.Position(line=0, character=column)
    assert text_edit.new_text == "OK"
    assert apply_edits(original, [text_edit], negotiated) == snippet


async def test_crlf_document_stays_crlf(client: LanguageClient, tmp_path: Path) -> None:
    await initialize(client)
    uri = (tmp_path / "greet.py").as_uri()
    original = ORIGINAL.replace("\n", "\r\n")
    open_document(client, uri, original)

    await run(client, "fastApply.apply", {"uri": uri, "snippet": REWRITE})  # the snippet has LF endings

    [edit] = client.applied_edits
    assert apply_edits(original, edits_for(edit, uri)) == REWRITE.replace("\n", "\r\n")


async def test_crlf_snippet_into_an_lf_document_stays_lf(client: LanguageClient, tmp_path: Path) -> None:
    await initialize(client)
    uri = (tmp_path / "greet.py").as_uri()
    open_document(client, uri, ORIGINAL)

    await run(client, "fastApply.apply", {"uri": uri, "snippet": REWRITE.replace("\n", "\r\n")})

    [edit] = client.applied_edits
    assert apply_edits(ORIGINAL, edits_for(edit, uri)) == REWRITE


@pytest.mark.parametrize(("language_id", "language"), [("lua", "lua"), ("plaintext", "text")])
async def test_the_editors_language_id_names_the_language_when_it_says_more_than_plain_text(
    client: LanguageClient, language_id: str, language: str
) -> None:
    await initialize(client)
    original = "local M = {}\n\nfunction M.width()\n  return 80\nend\n\nreturn M\n"
    snippet = "-- ... existing code ...\nfunction M.width()\n  return 100\nend\n-- ... existing code ...\n"
    uri = "untitled:Untitled-1"  # no path: without the editor's word, the text alone decides
    open_document(client, uri, original, language_id=language_id)

    answer = await run(client, "fastApply.apply", {"uri": uri, "snippet": snippet})

    assert (answer["applied"], answer["language"]) == (True, language)
    [edit] = client.applied_edits
    assert apply_edits(original, edits_for(edit, uri)) == original.replace("80", "100")


async def test_ambiguous_merge_shows_the_reasons_and_sends_no_edit(
    client: LanguageClient, tmp_path: Path
) -> None:
    await initialize(client)
    case = load_case(FIXTURES / "py-ambiguous-missing-anchor")
    uri = (tmp_path / case.path).as_uri()
    open_document(client, uri, case.original)

    answer = await run(client, "fastApply.apply", {"uri": uri, "snippet": case.snippet})

    assert (answer["applied"], answer["status"]) == (False, "ambiguous")
    assert answer["reasons"], "an ambiguous answer names its reasons"
    assert client.applied_edits == []
    [message] = client.messages
    assert message.type == types.MessageType.Warning
    assert "ambiguous" in message.message
    assert answer["reasons"][0]["message"] in message.message


async def test_preview_returns_merge_and_diff_without_editing(client: LanguageClient, tmp_path: Path) -> None:
    await initialize(client)
    uri = (tmp_path / "greet.py").as_uri()
    open_document(client, uri, ORIGINAL)

    answer = await run(
        client, "fastApply.preview", {"uri": uri, "snippet": REWRITE, "instruction": "say goodbye"}
    )

    assert answer["merged"] == REWRITE
    assert answer["applied"] is False
    assert client.applied_edits == []
    assert answer["diff"].splitlines()[:2] == ["--- a/greet.py", "+++ b/greet.py"]
    assert '-    return "bye " + name' in answer["diff"].splitlines()
    assert '+    return "goodbye, " + name + "!"' in answer["diff"].splitlines()


async def test_unchanged_merge_applies_nothing(client: LanguageClient, tmp_path: Path) -> None:
    await initialize(client)
    uri = (tmp_path / "greet.py").as_uri()
    open_document(client, uri, ORIGINAL)
    answer = await run(client, "fastApply.apply", {"uri": uri, "snippet": ORIGINAL})
    assert (answer["applied"], answer["edits"]) == (True, 0)
    assert client.applied_edits == []


@pytest.mark.parametrize(
    ("arguments", "message_part"),
    [
        ([], "takes one argument"),
        ([{"uri": "file:///x.py"}], "snippet"),
        ([{"uri": "file:///x.py", "snippet": 3}], "snippet"),
        ([{"uri": "file:///x.py", "snippet": "x = 1\n", "colour": "red"}], "colour"),
        (["file:///x.py", "x = 1\n"], "takes one argument"),
        ([{"uri": "file:///never-opened.py", "snippet": "x = 1\n"}], "not open in the editor"),
        ([{"uri": "OPEN", "snippet": "   \n"}], "snippet is empty"),
        ([{"uri": "OPEN", "snippet": "x = 1\x00\n"}], "NUL"),
    ],
)
async def test_bad_arguments_are_invalid_params(
    client: LanguageClient, tmp_path: Path, arguments: list[Any], message_part: str
) -> None:
    await initialize(client)
    uri = (tmp_path / "greet.py").as_uri()
    open_document(client, uri, ORIGINAL)
    arguments = [
        {**a, "uri": uri} if isinstance(a, dict) and a.get("uri") == "OPEN" else a for a in arguments
    ]

    with pytest.raises(JsonRpcInvalidParams, match=message_part):
        await run(client, "fastApply.apply", *arguments)

    assert client.applied_edits == []
    # The server is still alive and serving.
    answer = await run(client, "fastApply.preview", {"uri": uri, "snippet": REWRITE})
    assert answer["status"] == "ok"


async def test_bad_setting_is_reported_and_ignored(client: LanguageClient, tmp_path: Path) -> None:
    await initialize(client, options={"fastApply": {"engine": "telepathy"}})
    uri = (tmp_path / "greet.py").as_uri()
    open_document(client, uri, ORIGINAL)
    answer = await run(client, "fastApply.apply", {"uri": uri, "snippet": REWRITE})
    assert answer["engine"] == "structural"
    assert any("engine" in m.message and m.type == types.MessageType.Warning for m in client.messages)


async def test_workspace_configuration_selects_the_engine(client: LanguageClient, tmp_path: Path) -> None:
    client.set_configuration({"engine": "model"}, section="fastApply")
    await initialize(client)
    uri = (tmp_path / "greet.py").as_uri()
    open_document(client, uri, ORIGINAL)
    # engine=model without a model is an input error the engine names, proving the setting arrived.
    with pytest.raises(JsonRpcInvalidParams, match="no model is configured"):
        await run(client, "fastApply.apply", {"uri": uri, "snippet": REWRITE})


async def test_changed_configuration_applies_to_the_next_command(
    client: LanguageClient, tmp_path: Path
) -> None:
    await initialize(client)
    uri = (tmp_path / "greet.py").as_uri()
    open_document(client, uri, ORIGINAL)
    assert (await run(client, "fastApply.preview", {"uri": uri, "snippet": REWRITE}))["status"] == "ok"

    client.set_configuration({"engine": "model"}, section="fastApply")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))

    with pytest.raises(JsonRpcInvalidParams, match="no model is configured"):
        await run(client, "fastApply.preview", {"uri": uri, "snippet": REWRITE})


async def test_unreachable_server_url_is_a_clear_error(client: LanguageClient, tmp_path: Path) -> None:
    await initialize(client, options={"serverUrl": "http://127.0.0.1:9"})
    uri = (tmp_path / "greet.py").as_uri()
    open_document(client, uri, ORIGINAL)
    with pytest.raises(
        Exception, match=r"cannot reach the fastapply server at http://127\.0\.0\.1:9/v1/apply"
    ):
        await run(client, "fastApply.apply", {"uri": uri, "snippet": REWRITE})
    assert client.applied_edits == []


@pytest.fixture(scope="module")
def http_server() -> Iterator[str]:
    """A real `fastapply serve` (structural engine) on a free loopback port."""
    with serve_cli() as (url, _):
        yield url


@pytest.fixture(scope="module")
def locked_server() -> Iterator[str]:
    """The same, requiring `Authorization: Bearer s3cret`."""
    with serve_cli("--api-key-env", "LSP_TEST_KEY", env={"LSP_TEST_KEY": "s3cret"}) as (url, _):
        yield url


async def test_server_url_sends_the_merge_to_fastapply_serve(
    client: LanguageClient, tmp_path: Path, http_server: str
) -> None:
    await initialize(client, options={"fastApply": {"serverUrl": http_server}})
    uri = (tmp_path / "greet.py").as_uri()
    open_document(client, uri, ORIGINAL)

    answer = await run(client, "fastApply.apply", {"uri": uri, "snippet": REWRITE})

    assert (answer["applied"], answer["status"]) == (True, "ok")
    assert apply_edits(ORIGINAL, edits_for(client.applied_edits[0], uri)) == REWRITE


async def test_api_key_setting_authorizes_the_server_url(
    client: LanguageClient, tmp_path: Path, locked_server: str
) -> None:
    await initialize(client, options={"fastApply": {"serverUrl": locked_server, "apiKey": "wrong"}})
    uri = (tmp_path / "greet.py").as_uri()
    open_document(client, uri, ORIGINAL)
    with pytest.raises(Exception, match="answered 401"):
        await run(client, "fastApply.apply", {"uri": uri, "snippet": REWRITE})
    assert client.applied_edits == []

    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"fastApply": {"apiKey": "s3cret"}})
    )
    answer = await run(client, "fastApply.apply", {"uri": uri, "snippet": REWRITE})
    assert (answer["applied"], answer["status"]) == (True, "ok")


async def test_server_url_ambiguous_answer_shows_reasons(
    client: LanguageClient, tmp_path: Path, http_server: str
) -> None:
    await initialize(client, options={"serverUrl": http_server})
    case = load_case(FIXTURES / "py-ambiguous-missing-anchor")
    uri = (tmp_path / case.path).as_uri()
    open_document(client, uri, case.original)

    answer = await run(client, "fastApply.apply", {"uri": uri, "snippet": case.snippet})

    assert (answer["applied"], answer["status"]) == (False, "ambiguous")
    assert answer["reasons"]
    assert client.applied_edits == []
    assert answer["reasons"][0]["message"] in client.messages[0].message


async def test_server_url_gets_the_engine_setting_and_its_400_is_invalid_params(
    client: LanguageClient, tmp_path: Path, http_server: str
) -> None:
    # The server runs without a model, so an explicit engine=model is bad input there.
    await initialize(client, options={"serverUrl": http_server, "engine": "model"})
    uri = (tmp_path / "greet.py").as_uri()
    open_document(client, uri, ORIGINAL)
    with pytest.raises(JsonRpcInvalidParams, match="model"):
        await run(client, "fastApply.apply", {"uri": uri, "snippet": REWRITE})
    assert client.applied_edits == []


async def test_merges_that_may_use_a_model_report_work_done_progress(
    client: LanguageClient, tmp_path: Path, http_server: str
) -> None:
    await initialize(client, options={"fastApply": {"serverUrl": http_server, "engine": "auto"}})
    uri = (tmp_path / "greet.py").as_uri()
    open_document(client, uri, ORIGINAL)

    await run(client, "fastApply.apply", {"uri": uri, "snippet": REWRITE})

    [reports] = client.progress_reports.values()
    assert isinstance(reports[0], types.WorkDoneProgressBegin)
    assert reports[0].title == "Fast Apply"
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)


@pytest.mark.slow
async def test_local_model_merge_reports_progress_as_it_decodes(
    client: LanguageClient, tmp_path: Path
) -> None:
    settings = {"engine": "model", "model": "smollm2-135m", "device": "cpu"}
    await initialize(client, options={"fastApply": settings})
    uri = (tmp_path / "greet.py").as_uri()
    open_document(client, uri, ORIGINAL)

    answer = await run(client, "fastApply.apply", {"uri": uri, "snippet": REWRITE})

    assert answer["engine"] == "model"
    [reports] = client.progress_reports.values()
    assert isinstance(reports[0], types.WorkDoneProgressBegin)
    middle = reports[1:-1]
    assert middle and all(isinstance(r, types.WorkDoneProgressReport) for r in middle)
    percentages = [r.percentage for r in middle]
    assert percentages == sorted(percentages) and all(0 < p <= 99 for p in percentages)
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)


async def test_structural_merges_report_no_progress(client: LanguageClient, tmp_path: Path) -> None:
    await initialize(client)
    uri = (tmp_path / "greet.py").as_uri()
    open_document(client, uri, ORIGINAL)
    await run(client, "fastApply.apply", {"uri": uri, "snippet": REWRITE})
    assert client.progress_reports == {}


def lsp_frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return f"Content-Length: {len(body)}\r\n\r\n".encode() + body


def read_frame(stream: socket.socket) -> dict[str, Any]:
    data = b""
    while b"\r\n\r\n" not in data:
        data += stream.recv(1)
    header, _ = data.split(b"\r\n\r\n")
    length = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
    body = b""
    while len(body) < length:
        body += stream.recv(length - len(body))
    return json.loads(body)


def test_tcp_mode_serves_the_same_protocol() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [str(Path(sys.executable).parent / "fastapply"), "lsp", "--tcp", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                connection = socket.create_connection(("127.0.0.1", port), timeout=10)
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("fastapply lsp --tcp never listened")
        with connection:
            initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
            connection.sendall(lsp_frame(initialize))
            answer = read_frame(connection)
        assert answer["id"] == 1
        commands = answer["result"]["capabilities"]["executeCommandProvider"]["commands"]
        assert sorted(commands) == ["fastApply.apply", "fastApply.preview"]
        assert answer["result"]["capabilities"]["textDocumentSync"]["change"] == 2  # incremental
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_settings_layer_nested_or_flat_and_null_keeps_the_value_below() -> None:
    base = updated(Settings(), {"fastApply": {"engine": "structural", "serverUrl": "http://127.0.0.1:8000"}})
    assert (base.engine, base.server_url) == ("structural", "http://127.0.0.1:8000")
    layered = updated(base, {"engine": "model", "model": "smollm2-135m", "serverUrl": None, "colour": "red"})
    assert (layered.engine, layered.model, layered.server_url) == (
        "model",
        "smollm2-135m",
        "http://127.0.0.1:8000",
    )


def test_settings_reject_a_bad_value_naming_it() -> None:
    with pytest.raises(InputError, match=r"device"):
        updated(Settings(), {"device": "tpu"})
