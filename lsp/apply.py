"""The commands: `fastApply.apply` and `fastApply.preview` (workspace/executeCommand).

Both merge a snippet into the text the editor has synced (unsaved changes included), never the
file on disk. Each takes one argument, {uri, snippet, instruction?}. An ambiguous merge is shown
with window/showMessage and changes nothing; bad arguments are an InvalidParams error. The
document's language is the one the editor gave it (languageId) where fastapply knows that one,
else the path's or the content's.
"""

import difflib
import uuid
from typing import Any

import msgspec
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.workspace import TextDocument

from apply_engine.errors import FastApplyError, InputError
from apply_engine.languages import editor_language
from apply_engine.schemas import ApplyRequest, ApplyResult
from lsp.edits import diff_edits, split_lines
from lsp.state import FastApplyServer

APPLY = "fastApply.apply"
PREVIEW = "fastApply.preview"
PROGRESS_EVERY_CHARS = 400  # report at least this often, or on every 5 percentage points


class ApplyArgs(msgspec.Struct, forbid_unknown_fields=True):
    uri: str
    snippet: str
    instruction: str | None = None


async def apply_command(ls: FastApplyServer, *args: Any) -> dict[str, Any]:
    """workspace/executeCommand `fastApply.apply`: merge, then send the change as minimal TextEdits."""
    params = parse_args(APPLY, args)
    document = synced_document(ls, params.uri)
    version = document.version
    result = await merge_document(ls, document, params)
    if result.status != "ok" or result.merged is None:
        show_ambiguous(ls, result)
        return summary(result, applied=False)
    if document.version != version:
        raise request_failed("the document changed during the merge; run Fast Apply again")
    edits = diff_edits(document.source, result.merged, ls.workspace.position_encoding or "utf-16")
    applied = True
    if edits:
        answer = await ls.workspace_apply_edit_async(edit_params(ls, document, edits))
        applied = answer.applied
    return summary(result, applied=applied, edits=len(edits))


async def preview_command(ls: FastApplyServer, *args: Any) -> dict[str, Any]:
    """workspace/executeCommand `fastApply.preview`: the merged text and a unified diff; applies nothing."""
    params = parse_args(PREVIEW, args)
    document = synced_document(ls, params.uri)
    result = await merge_document(ls, document, params)
    if result.status != "ok" or result.merged is None:
        show_ambiguous(ls, result)
        return {**summary(result, applied=False), "merged": None, "diff": ""}
    diff = unified_diff(document.source, result.merged, document.filename or params.uri)
    return {**summary(result, applied=False), "merged": result.merged, "diff": diff}


def parse_args(command: str, args: tuple[Any, ...]) -> ApplyArgs:
    usage = f"{command} takes one argument: {{uri, snippet, instruction?}}"
    if len(args) != 1:
        raise JsonRpcInvalidParams(f"{usage}; got {len(args)} arguments")
    try:
        return msgspec.convert(args[0], ApplyArgs)
    except msgspec.ValidationError as error:
        raise JsonRpcInvalidParams(f"{usage}; {error}") from error


def synced_document(ls: FastApplyServer, uri: str) -> TextDocument:
    """The editor's copy of `uri`; a document the editor never opened is an error, not a disk read."""
    if uri not in ls.workspace.text_documents:
        raise JsonRpcInvalidParams(f"{uri} is not open in the editor (no textDocument/didOpen for it)")
    return ls.workspace.get_text_document(uri)


async def merge_document(ls: FastApplyServer, document: TextDocument, params: ApplyArgs) -> ApplyResult:
    """Merge `params.snippet` into the document in the document's line endings.

    A CRLF-only or LF-only document keeps its endings whatever the snippet uses (a clipboard may
    bring CRLF); a document that mixes them is passed through as it is.
    """
    await ls.wait_configured()
    crlf = uses_crlf(document.source)
    uniform = crlf or "\r" not in document.source
    request = ApplyRequest(
        original=to_lf(document.source) if crlf else document.source,
        snippet=to_lf(params.snippet) if uniform else params.snippet,
        instruction=params.instruction,
        language=editor_language(document.language_id),
        path=document.path,
    )
    try:
        result = await with_progress(ls, document, request)
    except InputError as error:
        raise JsonRpcInvalidParams(str(error)) from error
    except FastApplyError as error:
        raise request_failed(str(error)) from error
    if crlf and result.merged is not None:
        result.merged = result.merged.replace("\n", "\r\n")
    return result


async def with_progress(ls: FastApplyServer, document: TextDocument, request: ApplyRequest) -> ApplyResult:
    """Run the merge, wrapped in $/progress (work-done progress) when it may run a model."""
    window = ls.client_capabilities.window
    if not ls.settings.uses_model or window is None or not window.work_done_progress:
        return await ls.merger.merge(request)
    progress = MergeProgress(ls, expected_chars=len(request.original))
    await progress.begin(document.filename or document.uri)
    try:
        return await ls.merger.merge(request, progress.on_delta)
    finally:
        progress.end()


class MergeProgress:
    """One merge's work-done progress; the percentage assumes the merged file is about the original's size."""

    def __init__(self, ls: FastApplyServer, expected_chars: int) -> None:
        self.ls = ls
        self.token = str(uuid.uuid4())
        self.expected_chars = max(expected_chars, 1)
        self.merged_chars = 0
        self.reported_chars = 0

    async def begin(self, name: str) -> None:
        await self.ls.work_done_progress.create_async(self.token)
        begin = types.WorkDoneProgressBegin(title="Fast Apply", message=f"merging {name}", percentage=0)
        self.ls.work_done_progress.begin(self.token, begin)

    def on_delta(self, delta: str) -> None:
        self.merged_chars += len(delta)
        percentage = min(99, self.merged_chars * 100 // self.expected_chars)
        reported = min(99, self.reported_chars * 100 // self.expected_chars)
        if self.merged_chars - self.reported_chars < PROGRESS_EVERY_CHARS and percentage < reported + 5:
            return
        self.reported_chars = self.merged_chars
        report = types.WorkDoneProgressReport(
            message=f"{self.merged_chars} characters", percentage=percentage
        )
        self.ls.work_done_progress.report(self.token, report)

    def end(self) -> None:
        self.ls.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message="done"))


def edit_params(
    ls: FastApplyServer, document: TextDocument, edits: list[types.TextEdit]
) -> types.ApplyWorkspaceEditParams:
    """A versioned TextDocumentEdit when the client takes documentChanges, else a plain `changes` map."""
    workspace = ls.client_capabilities.workspace
    edit_caps = workspace.workspace_edit if workspace is not None else None
    if edit_caps is not None and edit_caps.document_changes:
        identifier = types.OptionalVersionedTextDocumentIdentifier(uri=document.uri, version=document.version)
        change = types.TextDocumentEdit(text_document=identifier, edits=list(edits))
        return types.ApplyWorkspaceEditParams(
            label="Fast Apply", edit=types.WorkspaceEdit(document_changes=[change])
        )
    return types.ApplyWorkspaceEditParams(
        label="Fast Apply", edit=types.WorkspaceEdit(changes={document.uri: list(edits)})
    )


def show_ambiguous(ls: FastApplyServer, result: ApplyResult) -> None:
    lines = [
        f"- {reason.message}" + (f" (snippet line {reason.line})" if reason.line else "")
        for reason in result.reasons
    ]
    message = "\n".join(["Fast Apply: the merge is ambiguous; the document is unchanged.", *lines])
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))


def summary(result: ApplyResult, *, applied: bool, edits: int = 0) -> dict[str, Any]:
    return {
        "applied": applied,
        "engine": result.engine,
        "status": result.status,
        "language": result.language,
        "edits": edits,
        "reasons": msgspec.to_builtins(result.reasons),
        "stats": msgspec.to_builtins(result.stats),
    }


def unified_diff(old: str, new: str, name: str) -> str:
    lines = difflib.unified_diff(split_lines(old), split_lines(new), f"a/{name}", f"b/{name}")
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


def uses_crlf(text: str) -> bool:
    """True when every line break in `text` is CRLF (and there is at least one)."""
    return "\r\n" in text and text.count("\r\n") == text.count("\n") == text.count("\r")


def to_lf(text: str) -> str:
    return text.replace("\r\n", "\n")


def request_failed(message: str) -> JsonRpcException:
    return JsonRpcException(message, code=types.LSPErrorCodes.RequestFailed)
