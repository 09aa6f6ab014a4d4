"""The `fastapply` command as a user runs it: a real subprocess, exit codes, byte-exact output."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

SUBCOMMANDS = ["apply", "serve", "lsp", "batch", "bench"]


def fastapply(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "apply_engine.cli", *args], input=stdin, capture_output=True, timeout=120
    )


def write(path: Path, data: str | bytes) -> str:
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return str(path)


@pytest.fixture
def files(tmp_path):
    original = write(tmp_path / "calc.py", "def add(a, b):\n    return a + b\n")
    rewrite = write(tmp_path / "rewrite.py", "def add(a, b):\n    return b + a")  # no final newline
    return tmp_path, original, rewrite


# The snippet's missing final newline is the assistant's habit, not an edit: the original's is kept.
MERGED = b"def add(a, b):\n    return b + a\n"


def test_version_and_help_for_every_subcommand():
    assert fastapply("--version").stdout.decode().startswith("fastapply ")
    for name in SUBCOMMANDS:
        proc = fastapply(name, "--help")
        assert proc.returncode == 0, proc.stderr
        assert b"Usage" in proc.stdout


def test_merged_file_goes_to_stdout_byte_exact(files):
    _, original, rewrite = files
    proc = fastapply("apply", original, rewrite, "--engine", "structural")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == MERGED


def test_snippet_from_stdin(files):
    _, original, rewrite = files
    proc = fastapply("apply", original, "-", stdin=Path(rewrite).read_bytes())
    assert proc.returncode == 0
    assert proc.stdout == MERGED


def test_output_file_and_in_place(files):
    tmp_path, original, rewrite = files
    out = tmp_path / "out.py"
    assert fastapply("apply", original, rewrite, "-o", str(out)).returncode == 0
    assert out.read_bytes() == MERGED
    assert fastapply("apply", original, rewrite, "--in-place").returncode == 0
    assert Path(original).read_bytes() == MERGED


def test_json_output_carries_status_engine_and_stats(files):
    _, original, rewrite = files
    proc = fastapply("apply", original, rewrite, "--json")
    body = json.loads(proc.stdout)
    assert body["status"] == "ok" and body["engine"] == "structural" and body["language"] == "python"
    assert body["merged"] == MERGED.decode()
    assert "wall_ms" in body["stats"]


@pytest.mark.parametrize(
    ("original", "snippet", "message"),
    [
        ("missing.py", "b\n", "cannot read original"),
        ("x = 1\n", "", "snippet is empty"),
        ("x = 1\n", "   \n", "snippet is empty"),
        (b"\xff\xfe bad", "x = 2\n", "not UTF-8"),
        (b"\x00\x01binary", "x = 2\n", "binary"),
    ],
)
def test_bad_input_exits_2_with_one_clear_line(tmp_path, original, snippet, message):
    original_path = (
        tmp_path / "missing.py" if original == "missing.py" else Path(write(tmp_path / "a.py", original))
    )
    snippet_path = write(tmp_path / "s.py", snippet)
    proc = fastapply("apply", str(original_path), snippet_path)
    stderr = proc.stderr.decode()
    assert proc.returncode == 2
    assert message in stderr and stderr.count("\n") == 1
    assert proc.stdout == b""


def test_unknown_language_and_engine_are_bad_input(files):
    _, original, rewrite = files
    assert fastapply("apply", original, rewrite, "--language", "klingon").returncode == 2
    assert fastapply("apply", original, rewrite, "--engine", "magic").returncode == 2


def test_ambiguous_merge_exits_3_and_writes_nothing(tmp_path):
    # Two identical methods: the snippet's edit could land in either class.
    twin = "    def run(self):\n        return 1\n"
    original = write(tmp_path / "m.py", f"class A:\n{twin}\n\nclass B:\n{twin}")
    snippet = write(
        tmp_path / "s.py",
        "# ... existing code ...\n    def run(self):\n        return 2\n# ... existing code ...\n",
    )
    before = Path(original).read_bytes()
    proc = fastapply("apply", original, snippet, "--in-place")
    assert proc.returncode == 3
    assert b"ambiguous" in proc.stderr
    assert Path(original).read_bytes() == before
