"""Batch apply: paths stay inside the repo, bad files are never written, reruns change nothing."""

import os
import pty
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from apply_engine import batch
from apply_engine.batch import BatchReport, Patch, apply_patches, resolve_inside
from apply_engine.batch_io import TEMP_SUFFIX, decode_text, directory_lock, encode_text
from apply_engine.cli import app
from apply_engine.errors import InputError
from apply_engine.fixtures import load_cases
from apply_engine.structural import merge

PY_OLD = "def area(w, h):\n    return w * h\n"
PY_NEW = "def area(w: float, h: float) -> float:\n    return w * h\n"
MARKER_ONLY = "# ... existing code ...\n"


def write_jsonl(path: Path, items: list[dict]) -> Path:
    path.write_bytes(b"".join(msgspec.json.encode(item) + b"\n" for item in items))
    return path


def statuses(report: BatchReport) -> list[str]:
    return [p.status for p in report.patches]


def files_of(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "geometry.py").write_text(PY_OLD)
    (root / "src" / "other.py").write_text("x = 1\n")
    return root


def test_whole_file_patch_is_applied_and_reported(repo: Path, tmp_path: Path) -> None:
    patches = write_jsonl(tmp_path / "p.jsonl", [{"path": "src/geometry.py", "snippet": PY_NEW}])
    report = apply_patches(patches, repo, jobs=1)
    assert statuses(report) == ["applied"]
    assert report.patches[0].engine == "structural"
    assert report.patches[0].source == "p.jsonl:1"
    assert (repo / "src" / "geometry.py").read_text() == PY_NEW
    assert report.summary.ok and report.summary.applied == 1 and report.summary.files == 1


def test_rerun_reports_unchanged_and_rewrites_nothing(repo: Path, tmp_path: Path) -> None:
    patches = write_jsonl(
        tmp_path / "p.jsonl",
        [{"path": "src/geometry.py", "snippet": PY_NEW}, {"path": "new/module.py", "snippet": "y = 2\n"}],
    )
    apply_patches(patches, repo, jobs=1)
    inodes = {p: (repo / p).stat().st_ino for p in ("src/geometry.py", "new/module.py")}
    again = apply_patches(patches, repo, jobs=1)
    assert statuses(again) == ["unchanged", "unchanged"]
    assert again.summary.ok
    assert {p: (repo / p).stat().st_ino for p in inodes} == inodes  # no file was replaced


@pytest.mark.parametrize(
    "path",
    [
        "../escape.py",
        "src/../../escape.py",
        "/tmp/escape.py",
        "~/escape.py",
        ".git/config",
        "",
        "link/escape.py",
        f"src/.geometry.py.x{TEMP_SUFFIX}",
    ],
)
def test_paths_outside_the_repo_or_reserved_are_rejected(repo: Path, tmp_path: Path, path: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (repo / "link").symlink_to(outside)
    before = files_of(tmp_path)
    report = apply_patches([Patch(path, "print('pwned')\n")], repo, jobs=1)
    assert statuses(report) == ["rejected_path"]
    assert report.patches[0].reasons[0].code == "unsafe_path"
    assert files_of(tmp_path) == before


def test_symlinked_file_escaping_the_repo_is_rejected(repo: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.py"
    secret.write_text(PY_OLD)
    (repo / "src" / "alias.py").symlink_to(secret)
    report = apply_patches([Patch("src/alias.py", PY_NEW)], repo, jobs=1)
    assert statuses(report) == ["rejected_path"]
    assert secret.read_text() == PY_OLD


def test_symlink_inside_the_repo_writes_its_target_and_stays_a_link(repo: Path) -> None:
    (repo / "alias.py").symlink_to(repo / "src" / "geometry.py")
    report = apply_patches([Patch("alias.py", PY_NEW)], repo, jobs=1)
    assert statuses(report) == ["applied"]
    assert (repo / "alias.py").is_symlink()
    assert (repo / "src" / "geometry.py").read_text() == PY_NEW


def test_resolve_inside_names_the_problem(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"contains '\.\.'"):
        resolve_inside(tmp_path, "a/../../b")
    with pytest.raises(ValueError, match="absolute"):
        resolve_inside(tmp_path, "C:\\Windows\\x.py")
    assert resolve_inside(tmp_path, "a/./b.py") == tmp_path / "a" / "b.py"


def test_malformed_lines_fail_with_their_line_number_and_the_rest_apply(repo: Path, tmp_path: Path) -> None:
    patches = tmp_path / "p.jsonl"
    patches.write_bytes(
        b'{"path": "src/geometry.py", "snippet": ' + msgspec.json.encode(PY_NEW) + b"}\n"
        b"\n"
        b"{not json\n"
        b'{"path": "src/other.py"}\n'
        b'{"path": "src/other.py", "snippet": "x = 2\\n", "engin": "model"}\n'
        b'{"path": "src/other.py", "snippet": "x = 3\\n"}\n'
    )
    report = apply_patches(patches, repo, jobs=1)
    assert statuses(report) == ["applied", "failed", "failed", "failed", "applied"]
    assert [p.source for p in report.patches] == [f"p.jsonl:{n}" for n in (1, 3, 4, 5, 6)]
    assert "malformed" in report.patches[1].reasons[0].message
    assert "snippet" in report.patches[2].reasons[0].message
    assert "engin" in report.patches[3].reasons[0].message
    assert report.patches[2].path == "src/other.py"
    assert (repo / "src" / "other.py").read_text() == "x = 3\n"
    assert not report.summary.ok


def test_several_patches_to_one_file_apply_in_order(repo: Path) -> None:
    patches = [Patch("src/other.py", f"x = {i}\n") for i in range(2, 6)]
    report = apply_patches(patches, repo, jobs=1)
    assert statuses(report) == ["applied"] * 4
    assert (repo / "src" / "other.py").read_text() == "x = 5\n"


def test_an_ambiguous_patch_keeps_its_whole_file_unwritten(repo: Path) -> None:
    patches = [
        Patch("src/geometry.py", PY_NEW),
        Patch("src/geometry.py", MARKER_ONLY),
        Patch("src/geometry.py", PY_OLD + "\n\ndef later(): ...\n"),
        Patch("src/other.py", "x = 2\n"),
    ]
    report = apply_patches(patches, repo, jobs=1)
    assert statuses(report) == ["failed", "ambiguous", "failed", "applied"]
    assert report.patches[0].reasons[-1].code == "file_not_written"
    assert report.patches[2].reasons[0].code == "skipped"
    assert (repo / "src" / "geometry.py").read_text() == PY_OLD
    assert (repo / "src" / "other.py").read_text() == "x = 2\n"


def test_crlf_and_bom_are_kept(repo: Path) -> None:
    target = repo / "Program.cs"
    target.write_bytes("\ufeffclass A {\r\n    int x = 1;\r\n}\r\n".encode())
    report = apply_patches([Patch("Program.cs", "class A {\n    int x = 2;\n}\n")], repo, jobs=1)
    assert statuses(report) == ["applied"]
    assert target.read_bytes() == "\ufeffclass A {\r\n    int x = 2;\r\n}\r\n".encode()


def test_file_mode_is_kept_and_new_files_get_the_umask_default(repo: Path) -> None:
    script = repo / "run.py"
    script.write_text("x = 1\n")
    script.chmod(0o751)
    report = apply_patches(
        [Patch("run.py", "x = 2\n"), Patch("docs/notes.md", "# Notes\n")],
        repo,
        jobs=1,
    )
    assert statuses(report) == ["applied", "applied"]
    assert script.stat().st_mode & 0o7777 == 0o751
    umask = os.umask(0)
    os.umask(umask)
    assert (repo / "docs" / "notes.md").stat().st_mode & 0o777 == 0o666 & ~umask


@pytest.mark.parametrize(
    ("content", "reason"), [(b"x = '\xff'\n", "not UTF-8"), (b"\x7fELF\x00\x01", "binary")]
)
def test_non_utf8_and_binary_files_fail_untouched(repo: Path, content: bytes, reason: str) -> None:
    (repo / "blob.py").write_bytes(content)
    report = apply_patches([Patch("blob.py", "x = 1\n")], repo, jobs=1)
    assert statuses(report) == ["failed"]
    assert reason in report.patches[0].reasons[0].message
    assert (repo / "blob.py").read_bytes() == content


def test_a_new_file_needs_a_snippet_without_markers(repo: Path) -> None:
    patches = [
        Patch("pkg/new.py", "def f():\n    return 1\n"),
        Patch("pkg/lazy.py", "def g():\n    # ... existing code ...\n    return 2\n"),
        Patch("web/app.js", "function start() { /* ... */ }\n"),
    ]
    report = apply_patches(patches, repo, jobs=1)
    assert statuses(report) == ["applied", "failed", "failed"]
    assert report.patches[1].reasons[0].code == "new_file_needs_complete_snippet"
    assert (repo / "pkg" / "new.py").read_text() == "def f():\n    return 1\n"
    assert not (repo / "pkg" / "lazy.py").exists() and not (repo / "web").exists()


def test_dry_run_writes_nothing_and_returns_diffs(repo: Path) -> None:
    before = files_of(repo)
    patches = [Patch("src/geometry.py", PY_NEW), Patch("new.py", "z = 1\n")]
    report = apply_patches(patches, repo, jobs=1, dry_run=True)
    assert statuses(report) == ["applied", "applied"]
    assert files_of(repo) == before
    assert "-def area(w, h):\n+def area(w: float, h: float) -> float:\n" in report.diffs["src/geometry.py"]
    assert report.diffs["new.py"].startswith("--- /dev/null\n+++ b/new.py\n")


def test_stale_temp_files_of_a_killed_run_are_removed(repo: Path) -> None:
    stale = repo / "src" / f".geometry.py.abc123{TEMP_SUFFIX}"
    stale.write_text(PY_NEW[:10])
    report = apply_patches([Patch("src/geometry.py", PY_NEW)], repo, jobs=1)
    assert statuses(report) == ["applied"]
    assert not stale.exists()
    assert sorted(p.name for p in (repo / "src").iterdir()) == ["geometry.py", "other.py"]


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def test_require_clean_refuses_files_with_uncommitted_changes(repo: Path) -> None:
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    (repo / "src" / "other.py").write_text("x = 'local edit'\n")
    (repo / "untracked.py").write_text("u = 1\n")
    patches = [
        Patch("src/geometry.py", PY_NEW),
        Patch("src/other.py", "x = 2\n"),
        Patch("untracked.py", "u = 2\n"),
    ]
    report = apply_patches(patches, repo, jobs=1, require_clean=True)
    assert statuses(report) == ["applied", "failed", "failed"]
    assert {p.reasons[0].code for p in report.patches[1:]} == {"uncommitted_changes"}
    assert (repo / "src" / "other.py").read_text() == "x = 'local edit'\n"


def test_snippet_directory_mirrors_repo_paths(repo: Path, tmp_path: Path) -> None:
    snippets = tmp_path / "snippets"
    (snippets / "src").mkdir(parents=True)
    (snippets / "src" / "geometry.py").write_text(PY_NEW)
    (snippets / "README.md").write_text("# Repo\n")
    report = apply_patches(snippets, repo, jobs=1)
    assert [(p.path, p.status) for p in report.patches] == [
        ("README.md", "applied"),
        ("src/geometry.py", "applied"),
    ]
    assert (repo / "README.md").read_text() == "# Repo\n"


def test_process_pool_and_in_process_runs_write_the_same_files(tmp_path: Path) -> None:
    roots = [tmp_path / "one", tmp_path / "pool"]
    patches = [Patch(f"m{i}.py", f"def f{i}():\n    return {i + 1}\n") for i in range(24)]
    for root in roots:
        root.mkdir()
        for i in range(24):
            (root / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    one = apply_patches(patches, roots[0], jobs=1)
    pool = apply_patches(patches, roots[1], jobs=2)
    assert statuses(one) == statuses(pool) == ["applied"] * 24
    assert files_of(roots[0]) == files_of(roots[1])


def test_fixture_cases_write_exactly_the_structural_merge_and_rerun_unchanged(tmp_path: Path) -> None:
    """Over a git repo built from fixtures/: batch writes what merge() returns, nothing when ambiguous,
    and a rerun changes nothing."""
    root = tmp_path / "repo"
    patches, merges = [], {}
    for case in (c for c in load_cases() if "\r" not in c.original and "\ufeff" not in c.original):
        path = f"{case.name}/{case.path}"
        (root / case.name).mkdir(parents=True)
        (root / path).write_text(case.original)
        patches.append(Patch(path, case.snippet, language=case.language, source=case.name))
        merges[path] = merge(case.original, case.snippet, language=case.language, path=case.path)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "fixtures")
    report = apply_patches(patches, root, jobs=2, require_clean=True)
    for item in report.patches:
        result = merges[item.path]
        if result.status == "ok":
            assert item.status in ("applied", "unchanged"), item
            assert (root / item.path).read_text() == result.merged, item.path
        else:
            assert item.status == "ambiguous", item
            assert not git_changed(root, item.path), item.path
    rerun = apply_patches(patches, root, jobs=2)
    assert [p.status for p in rerun.patches] == [
        "ambiguous" if p.status == "ambiguous" else "unchanged" for p in report.patches
    ]


def git_changed(root: Path, path: str) -> bool:
    out = subprocess.run(
        ["git", "status", "--porcelain", "--", path], cwd=root, capture_output=True, text=True
    )
    return bool(out.stdout.strip())


def test_batch_through_a_running_server(repo: Path) -> None:
    from apply_engine.server import create_app
    from tests.helpers_server import serve_app

    patches = [
        Patch("src/geometry.py", PY_NEW),
        Patch("src/other.py", MARKER_ONLY),
    ]
    with serve_app(create_app()) as url:
        report = apply_patches(patches, repo, server_urls=[url, url])
    assert statuses(report) == ["applied", "ambiguous"]
    assert report.patches[1].reasons
    assert (repo / "src" / "geometry.py").read_text() == PY_NEW
    assert (repo / "src" / "other.py").read_text() == "x = 1\n"


def test_batch_through_a_token_protected_server_uses_fastapply_api_key(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from apply_engine.server import ServerSettings, create_app
    from tests.helpers_server import serve_app

    with serve_app(create_app(settings=ServerSettings(api_key="s3cret"))) as url:
        monkeypatch.delenv("FASTAPPLY_API_KEY", raising=False)
        refused = apply_patches([Patch("src/geometry.py", PY_NEW)], repo, server_urls=[url])
        monkeypatch.setenv("FASTAPPLY_API_KEY", "s3cret")
        report = apply_patches([Patch("src/geometry.py", PY_NEW)], repo, server_urls=[url])
    assert statuses(refused) == ["failed"]
    assert "401" in refused.patches[0].reasons[0].message
    assert "FASTAPPLY_API_KEY" in refused.patches[0].reasons[0].message
    assert statuses(report) == ["applied"]
    assert (repo / "src" / "geometry.py").read_text() == PY_NEW


def test_an_unreachable_server_fails_each_patch_and_writes_nothing(repo: Path) -> None:
    report = apply_patches([Patch("src/other.py", "x = 2\n")], repo, server_urls=["http://127.0.0.1:9"])
    assert statuses(report) == ["failed"]
    assert "127.0.0.1:9" in report.patches[0].reasons[0].message
    assert (repo / "src" / "other.py").read_text() == "x = 1\n"


def test_cli_exit_codes_report_and_summary(repo: Path, tmp_path: Path) -> None:
    good = write_jsonl(tmp_path / "good.jsonl", [{"path": "src/geometry.py", "snippet": PY_NEW}])
    mixed = write_jsonl(tmp_path / "mixed.jsonl", [{"path": "../x.py", "snippet": "x\n"}])
    runner = CliRunner()
    first = runner.invoke(
        app, ["batch", str(good), "--repo", str(repo), "--report", str(tmp_path / "r.json")]
    )
    assert first.exit_code == 0, first.output
    assert "1 applied, 0 unchanged" in first.output
    saved = msgspec.json.decode((tmp_path / "r.json").read_bytes(), type=BatchReport)
    assert saved.patches[0].status == "applied" and saved.summary.applied == 1
    assert runner.invoke(app, ["batch", str(good), "--repo", str(repo)]).exit_code == 0  # rerun: unchanged
    bad = runner.invoke(app, ["batch", str(mixed), "--repo", str(repo)])
    assert bad.exit_code == 1
    assert "rejected_path" in bad.output and "Traceback" not in bad.output
    missing = runner.invoke(app, ["batch", str(tmp_path / "nope.jsonl"), "--repo", str(repo)])
    assert missing.exit_code == 2 and "cannot read patches" in missing.output


def test_cli_reads_patches_from_stdin_and_dry_run_prints_a_diff(repo: Path) -> None:
    line = msgspec.json.encode({"path": "src/other.py", "snippet": "x = 2\n"}) + b"\n"
    command = [sys.executable, "-m", "apply_engine.cli", "batch", "-", "--repo", str(repo), "--dry-run"]
    done = subprocess.run(command, input=line, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().endswith("-x = 1\n+x = 2\n")
    assert b"1 would apply" in done.stderr
    assert (repo / "src" / "other.py").read_text() == "x = 1\n"


def test_two_spellings_of_one_path_are_one_file_patched_in_order(repo: Path) -> None:
    patches = [Patch("src/other.py", "x = 2\n"), Patch("./src//other.py", "x = 3\n")]
    report = apply_patches(patches, repo, jobs=1)
    assert statuses(report) == ["applied", "applied"]
    assert report.summary.files == 1
    assert (repo / "src" / "other.py").read_text() == "x = 3\n"


def test_an_unknown_language_fails_that_patch_with_the_engines_message(repo: Path) -> None:
    report = apply_patches([Patch("src/other.py", "x = 2\n", language="klingon")], repo, jobs=1)
    assert statuses(report) == ["failed"]
    assert report.patches[0].reasons[0].code == "bad_input"
    assert "klingon" in report.patches[0].reasons[0].message


def test_a_path_through_a_file_fails_to_write_and_leaves_the_file(repo: Path) -> None:
    report = apply_patches([Patch("src/other.py/inner.py", "y = 1\n")], repo, jobs=1)
    assert statuses(report) == ["failed"]
    assert report.patches[0].reasons[0].code == "write_failed"
    assert (repo / "src" / "other.py").read_text() == "x = 1\n"


def test_a_binary_snippet_file_in_a_snippet_directory_fails_alone(repo: Path, tmp_path: Path) -> None:
    snippets = tmp_path / "snippets"
    (snippets / "src").mkdir(parents=True)
    (snippets / "src" / "other.py").write_text("x = 2\n")
    (snippets / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    report = apply_patches(snippets, repo, jobs=1)
    assert [(p.path, p.status) for p in report.patches] == [
        ("logo.png", "failed"),
        ("src/other.py", "applied"),
    ]
    assert report.patches[0].reasons[0].code == "bad_snippet_file"
    assert not (repo / "logo.png").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--require-clean"], "not inside a git work tree"),
        (["--jobs", "0"], "--jobs must be at least 1"),
        (["--engine", "model"], "needs --model or --server-url"),
        (["--engine", "fast"], "unknown engine"),
    ],
)
def test_cli_refuses_a_bad_run_up_front_with_exit_2(
    repo: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    patches = write_jsonl(tmp_path / "p.jsonl", [{"path": "src/other.py", "snippet": "x = 2\n"}])
    result = CliRunner().invoke(app, ["batch", str(patches), "--repo", str(repo), *args])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert (repo / "src" / "other.py").read_text() == "x = 1\n"


def test_crlf_and_bom_fixtures_come_out_byte_identical_to_expected(tmp_path: Path) -> None:
    cases = [
        c for c in load_cases() if c.expected and ("\r" in c.original + c.snippet or "\ufeff" in c.original)
    ]
    assert cases, "fixtures/ has CRLF and BOM cases"
    for case in cases:
        (tmp_path / case.name).mkdir()
        (tmp_path / case.name / case.path).write_bytes(case.original.encode())
    patches = [Patch(f"{c.name}/{c.path}", c.snippet, language=c.language) for c in cases]
    report = apply_patches(patches, tmp_path, jobs=1)
    assert statuses(report) == ["applied"] * len(cases)
    for case in cases:
        assert (tmp_path / case.name / case.path).read_bytes() == case.expected.encode(), case.name


def test_empty_snippets_and_directories_fail_and_create_nothing(repo: Path) -> None:
    patches = [
        Patch("src/other.py", "  \n"),
        Patch("src/empty.py", ""),
        Patch("src", "x = 1\n"),
    ]
    report = apply_patches(patches, repo, jobs=1)
    assert statuses(report) == ["failed", "failed", "failed"]
    assert [p.reasons[0].code for p in report.patches] == ["bad_input", "bad_input", "unreadable_file"]
    assert sorted(files_of(repo)) == ["src/geometry.py", "src/other.py"]


def test_on_a_terminal_progress_is_a_bar_and_off_it_plain_lines(repo: Path, tmp_path: Path) -> None:
    patches = write_jsonl(tmp_path / "p.jsonl", [{"path": "src/other.py", "snippet": "x = 2\n"}])
    command = [
        sys.executable,
        "-m",
        "apply_engine.cli",
        "batch",
        str(patches),
        "--repo",
        str(repo),
        "--dry-run",
    ]
    leader, follower = pty.openpty()
    with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=follower) as process:
        os.close(follower)
        on_terminal = read_all(leader)
        assert process.wait(timeout=60) == 0
    plain = subprocess.run(command, capture_output=True, timeout=60).stderr.decode()
    assert "merging" in on_terminal and "1/1" in on_terminal and "1 would apply" in on_terminal
    assert plain.splitlines()[0].split() == ["applied", "src/other.py"] and "merging" not in plain


def read_all(fd: int) -> str:
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks).decode(errors="replace")


def test_a_second_writing_run_on_the_same_repo_is_refused(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(batch, "LOCK_WAIT_S", 0.2)
    patch = Patch("src/other.py", "x = 2\n")
    with directory_lock(repo.resolve()):
        with pytest.raises(InputError, match="another fastapply batch"):
            apply_patches([patch], repo, jobs=1)
        assert statuses(apply_patches([patch], repo, jobs=1, dry_run=True)) == ["applied"]
    assert statuses(apply_patches([patch], repo, jobs=1)) == ["applied"]


@given(st.lists(st.sampled_from(["a", "é", "\n", "\r\n", "\r", " ", "\ufeff", "…"])), st.booleans())
def test_decode_then_encode_gives_back_the_same_bytes(pieces: list[str], bom: bool) -> None:
    data = (("\ufeff" if bom else "") + "".join(pieces)).encode()
    decoded = decode_text(data)
    assert encode_text(decoded.text, decoded) == data
    assert not decoded.crlf or "\r\n" not in decoded.text
