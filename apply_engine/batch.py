"""Batch apply over a repository: many snippets, each file all-old or all-new, reruns idempotent.

Contract:
  - Input is a JSONL file (one `{path, snippet, instruction?, language?}` per line; `-` is stdin) or a
    directory of snippet files mirroring repository paths. A malformed line does not stop the run:
    that patch is reported `failed` with its line number and the decoder's reason.
  - A path must resolve inside the repository: absolute paths, `..`, `.git/` and symlinks leading out
    are `rejected_path`.
  - Patches to one file apply in input order to the in-memory text; the file is written once, only if
    every one of its patches merged (`applied` or `unchanged`), through `atomic_write_bytes`.
  - A patch whose merge equals the current text is `unchanged`: rerunning a finished batch writes nothing.
  - A missing file is created only from a complete snippet (no lazy markers).
  - The BOM and line endings of a file are kept; non-UTF-8 and binary files are `failed`.
Structural merges run in a process pool; model merges run in-process or through `fastapply serve`.
"""

import difflib
import itertools
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import TYPE_CHECKING, Literal, TypeVar

import msgspec

from apply_engine.batch_io import (
    TEMP_SUFFIX,
    DirectoryBusy,
    TextFile,
    atomic_write_bytes,
    decode_text,
    directory_lock,
    encode_text,
    fsync_dir,
    remove_stale_temps,
)
from apply_engine.client import apply_answer, apply_call
from apply_engine.errors import FastApplyError, InputError
from apply_engine.schemas import ApplyRequest, ApplyResult, EngineName, Reason

PatchStatus = Literal["applied", "unchanged", "ambiguous", "failed", "rejected_path"]
DONE_STATUSES = ("applied", "unchanged")
REQUESTS_PER_SERVER = 4  # concurrent HTTP merges per `fastapply serve` URL
SERVER_TIMEOUT_S = 600.0
EXIT_INTERRUPTED = 130  # the shell's code for a command ended by SIGINT
LOCK_WAIT_S = 5.0  # how long a run waits for another run (or a killed run's dying workers) to let go
TASKS_PER_WORKER = 8  # pool chunks per worker: small enough to balance, large enough to amortize IPC
INTERRUPT_POLL_S = 0.05  # how often a wait for results looks for a Ctrl-C it deferred

if TYPE_CHECKING:
    import httpx

Merger = Callable[[ApplyRequest], ApplyResult]
T = TypeVar("T")


class PatchLine(msgspec.Struct, forbid_unknown_fields=True):
    """One JSONL line as written by a user."""

    path: str
    snippet: str
    instruction: str | None = None
    language: str | None = None


class Patch(msgspec.Struct, frozen=True):
    """One edit: `Patch(path="src/app.py", snippet="...")`. apply_patches numbers patches by position."""

    path: str
    snippet: str
    instruction: str | None = None
    language: str | None = None
    index: int = 0  # 0-based position in the input; reports keep this order
    source: str = ""  # where it came from: "patches.jsonl:3", the snippet file, or "patch 3"


class PatchReport(msgspec.Struct):
    index: int
    source: str
    path: str
    status: PatchStatus
    engine: str | None = None
    wall_ms: float = 0.0
    tok_s: float | None = None
    reasons: list[Reason] = msgspec.field(default_factory=list)


class BatchSummary(msgspec.Struct):
    patches: int
    files: int
    applied: int
    unchanged: int
    ambiguous: int
    failed: int
    rejected_path: int
    wall_s: float
    files_per_s: float
    dry_run: bool

    @property
    def ok(self) -> bool:
        return self.applied + self.unchanged == self.patches


class BatchReport(msgspec.Struct):
    summary: BatchSummary
    patches: list[PatchReport]
    diffs: dict[str, str] = msgspec.field(default_factory=dict)  # path -> unified diff, dry runs only


class FileJob(msgspec.Struct, frozen=True):
    """Every patch to one file, in order; `target` is the resolved absolute path."""

    target: str
    patches: list[Patch]
    dry_run: bool


class FileOutcome(msgspec.Struct):
    reports: list[PatchReport]
    diff: str | None = None  # unified diff, only in dry runs
    written_dir: str | None = None  # the file was replaced; this directory still needs an fsync


def failed(patch: Patch, code: str, message: str, status: PatchStatus = "failed") -> PatchReport:
    return PatchReport(patch.index, patch.source, patch.path, status, reasons=[Reason(code, message)])


# -- reading patches ---------------------------------------------------------------------------


def load_patches(source: str | Path) -> list[Patch | PatchReport]:
    """Patches from a JSONL file, stdin ("-") or a directory; unreadable entries come back as reports."""
    if str(source) == "-":
        return parse_jsonl(sys.stdin.buffer.read(), "<stdin>")
    path = Path(source)
    if path.is_dir():
        return list(read_snippet_dir(path))
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read patches {str(source)!r}: {exc.strerror}", field="patches") from None
    return parse_jsonl(data, path.name)


def parse_jsonl(data: bytes, name: str) -> list[Patch | PatchReport]:
    entries: list[Patch | PatchReport] = []
    for number, line in enumerate(data.splitlines(), start=1):
        if line.strip():
            entries.append(parse_line(line, len(entries), f"{name}:{number}"))
    return entries


def parse_line(line: bytes, index: int, source: str) -> Patch | PatchReport:
    try:
        item = msgspec.json.decode(line, type=PatchLine)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        path = guess_path(line)
        return PatchReport(index, source, path, "failed", reasons=[Reason("bad_patch_line", str(exc))])
    return Patch(
        path=item.path,
        snippet=item.snippet,
        instruction=item.instruction,
        language=item.language,
        index=index,
        source=source,
    )


def guess_path(line: bytes) -> str:
    """The `path` of a line that failed validation, when it has a readable one."""
    try:
        value = msgspec.json.decode(line)
    except msgspec.DecodeError:
        return ""
    path = value.get("path") if isinstance(value, dict) else None
    return path if isinstance(path, str) else ""


def read_snippet_dir(root: Path) -> Iterator[Patch | PatchReport]:
    files = sorted(p for p in root.rglob("*") if p.is_file() and ".git" not in p.relative_to(root).parts)
    for index, file in enumerate(files):
        rel = file.relative_to(root).as_posix()
        try:
            snippet = decode_text(file.read_bytes())
        except (OSError, ValueError) as exc:
            yield PatchReport(index, str(file), rel, "failed", reasons=[Reason("bad_snippet_file", str(exc))])
            continue
        text = snippet.text.replace("\n", "\r\n") if snippet.crlf else snippet.text
        yield Patch(path=rel, snippet=text, index=index, source=str(file))


# -- paths -------------------------------------------------------------------------------------


def resolve_inside(root: Path, rel: str) -> Path:
    """The real path of `rel` under `root` (already resolved); ValueError says why it is refused."""
    if not rel:
        raise ValueError("empty path")
    if "\x00" in rel:
        raise ValueError("path contains a NUL byte")
    if PurePosixPath(rel).is_absolute() or PureWindowsPath(rel).is_absolute() or rel.startswith("~"):
        raise ValueError(f"absolute path {rel!r}: paths must be relative to the repository")
    parts = PurePosixPath(rel.replace("\\", "/")).parts
    if ".." in parts:
        raise ValueError(f"path {rel!r} contains '..'")
    if ".git" in parts:
        raise ValueError(f"path {rel!r} is inside .git")
    if rel.endswith(TEMP_SUFFIX):
        raise ValueError(f"path {rel!r} names a fastapply temp file, which the next run deletes")
    target = (root / rel).resolve()
    if not target.is_relative_to(root) or target == root:
        raise ValueError(f"path {rel!r} resolves outside the repository (through a symlink) to {target}")
    return target


def dirty_files(root: Path) -> set[Path]:
    """Resolved paths under `root` with uncommitted git changes (modified, staged or untracked)."""
    try:
        top = git(root, "rev-parse", "--show-toplevel").strip()
        status = git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ".")
    except (OSError, subprocess.CalledProcessError):
        raise InputError(f"--require-clean: {root} is not inside a git work tree", field="repo") from None
    dirty = set()
    entries = iter(status.split("\0"))
    for entry in entries:
        if len(entry) > 3:
            dirty.add((Path(top) / entry[3:]).resolve())
            if entry[0] in "RC":
                next(entries, None)  # a rename's second entry is its old path
    return dirty


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


# -- merging one file ---------------------------------------------------------------------------


def read_current(target: Path) -> TextFile | None:
    """The file's decoded text, None when it does not exist; ValueError when it cannot be merged."""
    if not target.exists():
        return None
    if not target.is_file():
        raise ValueError("not a regular file")
    return decode_text(target.read_bytes())


def is_complete(snippet: str, path: str, language: str | None) -> bool:
    """True when no line of the snippet elides code, so it can stand as a whole new file."""
    from apply_engine.languages import detect_language, marker_comments
    from apply_engine.markers import has_inline_marker, is_marker, is_removal

    lang = detect_language(snippet, language=language, path=path)
    comments, blocks = marker_comments(lang)
    return not any(
        is_marker(line, comments, blocks) or is_removal(line, comments, blocks) or has_inline_marker(line)
        for line in snippet.splitlines()
    )


def merge_patch(text: str | None, patch: Patch, merger: Merger) -> tuple[PatchReport, str | None]:
    """Merge one patch into `text` (None: a file to create). Returns the report and the new text."""
    start = time.perf_counter()
    request = ApplyRequest(
        original=text or "",
        snippet=patch.snippet,
        instruction=patch.instruction,
        language=patch.language,
        path=patch.path,
    )
    try:
        if text is None:
            return create_file(patch)
        result = merger(request)
    except FastApplyError as exc:
        return failed(patch, "bad_input", str(exc)), None
    except Exception as exc:  # one broken merge must not sink the other files of the batch
        return failed(patch, "internal_error", f"{type(exc).__name__}: {exc}"), None
    wall_ms = (time.perf_counter() - start) * 1000
    if result.status != "ok" or result.merged is None:
        status: PatchStatus = "ambiguous"
    else:
        status = "unchanged" if result.merged == text else "applied"
    report = PatchReport(
        patch.index,
        patch.source,
        patch.path,
        status,
        result.engine,
        wall_ms,
        result.stats.tok_s,
        list(result.reasons),
    )
    return report, result.merged


def create_file(patch: Patch) -> tuple[PatchReport, str | None]:
    """A missing file is the snippet itself, but only when no part of it is elided."""
    if not patch.snippet.strip():
        return failed(patch, "bad_input", "snippet is empty"), None
    if not is_complete(patch.snippet, patch.path, patch.language):
        message = (
            "the file does not exist and the snippet has lazy markers, so there is nothing to merge them into"
        )
        return failed(patch, "new_file_needs_complete_snippet", message), None
    return PatchReport(patch.index, patch.source, patch.path, "applied"), patch.snippet


def hold_back(reports: list[PatchReport], bad: PatchReport) -> None:
    """The file stays as it was: patches that merged before `bad` were not written after all."""
    for report in reports:
        if report.status == "applied":
            report.status = "failed"
            report.reasons.append(
                Reason("file_not_written", f"{bad.source} to the same file was {bad.status}")
            )


def apply_file(job: FileJob, merger: Merger) -> FileOutcome:
    """Merge every patch of `job` in order, then write the file once (never on any failure)."""
    # 1. read the file as it is now
    target = Path(job.target)
    try:
        current = read_current(target)
    except (OSError, ValueError) as exc:
        return FileOutcome([failed(p, "unreadable_file", str(exc)) for p in job.patches])
    like = current or decode_text(job.patches[0].snippet.encode("utf-8"))
    text = current.text if current else None
    # 2. merge the patches one after another on the in-memory text
    reports: list[PatchReport] = []
    for i, patch in enumerate(job.patches):
        snippet = patch.snippet.removeprefix("\ufeff")
        if text is None or "\r\n" not in text:
            snippet = snippet.replace("\r\n", "\n")
        report, text = merge_patch(text, msgspec.structs.replace(patch, snippet=snippet), merger)
        reports.append(report)
        if report.status not in DONE_STATUSES:
            hold_back(reports[:-1], report)
            skipped = [
                failed(p, "skipped", f"{report.source} to the same file was {report.status}")
                for p in job.patches[i + 1 :]
            ]
            return FileOutcome(reports + skipped)
    # 3. write once, only when something changed
    assert text is not None
    old = current.text if current else None
    if text == old:  # the patches together leave the file as it is: nothing was applied by this run
        for report in reports:
            report.status = "unchanged"
        return FileOutcome(reports)
    if job.dry_run:
        return FileOutcome(reports, diff=unified_diff(old, text, job.patches[0].path))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(target, encode_text(text, like), sync_dir=False)
    except OSError as exc:
        return FileOutcome(
            [failed(p, "write_failed", f"{target}: {exc.strerror or exc}") for p in job.patches]
        )
    return FileOutcome(reports, written_dir=str(target.parent))


def unified_diff(old: str | None, new: str, path: str) -> str:
    before = "/dev/null" if old is None else f"a/{path}"
    lines = difflib.unified_diff((old or "").splitlines(True), new.splitlines(True), before, f"b/{path}")
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


# -- running many files -------------------------------------------------------------------------

_structural_engine = None


def structural_merger() -> Merger:
    """The structural engine of this process (each pool worker builds its own once)."""
    global _structural_engine
    if _structural_engine is None:
        from apply_engine.config import EngineConfig
        from apply_engine.engine import Engine

        _structural_engine = Engine(EngineConfig(engine="structural"))
    return _structural_engine.apply


def apply_file_structural(job: FileJob) -> FileOutcome:
    return apply_file(job, structural_merger())


def apply_chunk_structural(jobs: list[FileJob]) -> list[FileOutcome]:
    return [apply_file_structural(job) for job in jobs]


def ignore_interrupts() -> None:
    """Pool workers leave Ctrl-C to the parent, which terminates them (a killed write leaves a temp file)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def deferred_interrupts() -> Iterator[threading.Event]:
    """Ctrl-C sets the event instead of raising KeyboardInterrupt wherever the main thread stands.

    Raised inside `threading.Condition.wait` (a pool's or a future's result), KeyboardInterrupt can
    land between the lock's release and re-acquire and surface as `RuntimeError: release unlocked
    lock`; `interruptible` raises it instead, between waits. Off the main thread, where signals
    cannot be caught, the event is never set.
    """
    interrupted = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield interrupted
        return
    previous = signal.signal(signal.SIGINT, lambda signum, frame: interrupted.set())
    try:
        yield interrupted
    finally:
        signal.signal(signal.SIGINT, previous)


def interruptible(waits: Iterable[Callable[[float], T]], timeout_error: type[Exception]) -> Iterator[T]:
    """What each `wait(timeout)` answers, polled; a Ctrl-C deferred meanwhile is raised between polls."""
    with deferred_interrupts() as interrupted:
        for wait in waits:
            while True:
                if interrupted.is_set():
                    raise KeyboardInterrupt
                try:
                    answer = wait(INTERRUPT_POLL_S)
                    break
                except timeout_error:
                    continue
            yield answer
        if interrupted.is_set():  # pressed while the last answer was being handled
            raise KeyboardInterrupt


def run_structural(jobs: list[FileJob], workers: int) -> Iterator[FileOutcome]:
    """Files through a pool of `workers` processes (in this process when one worker is enough)."""
    if workers <= 1 or len(jobs) < 2 * workers:
        yield from map(apply_file_structural, jobs)
        return
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    chunk = max(1, len(jobs) // (workers * TASKS_PER_WORKER))
    with multiprocessing.get_context(method).Pool(workers, initializer=ignore_interrupts) as pool:
        # chunks as tasks of their own: a pool iterator of single tasks has next(timeout)
        chunks = [jobs[i : i + chunk] for i in range(0, len(jobs), chunk)]
        results = pool.imap_unordered(apply_chunk_structural, chunks)
        for outcomes in interruptible(
            itertools.repeat(results.next, len(chunks)), multiprocessing.TimeoutError
        ):
            yield from outcomes


def run_in_process(jobs: list[FileJob], merger: Merger) -> Iterator[FileOutcome]:
    for job in jobs:
        yield apply_file(job, merger)


class ServerMerger:
    """Merges through a running `fastapply serve` (POST /v1/apply; 422 means ambiguous)."""

    def __init__(self, client: "httpx.Client", url: str, engine: EngineName) -> None:
        self.client, self.url, self.engine = client, url, engine

    def __call__(self, request: ApplyRequest) -> ApplyResult:
        import httpx

        request = msgspec.structs.replace(request, engine=self.engine)
        call = apply_call(self.url, request)
        try:
            response = self.client.post(call.url, content=call.body, headers=call.headers)
        except httpx.HTTPError as exc:
            raise FastApplyError(f"server {call.url}: {type(exc).__name__}: {exc}") from None
        return apply_answer(call, request, response.status_code, response.content)


def run_servers(jobs: list[FileJob], urls: list[str], engine: EngineName) -> Iterator[FileOutcome]:
    """Files through `fastapply serve` URLs, round-robin, REQUESTS_PER_SERVER in flight per URL."""
    import httpx

    pool = ThreadPoolExecutor(max_workers=REQUESTS_PER_SERVER * len(urls))
    with httpx.Client(timeout=SERVER_TIMEOUT_S) as client:
        try:
            mergers = itertools.cycle([ServerMerger(client, url, engine) for url in urls])
            futures = [pool.submit(apply_file, job, next(mergers)) for job in jobs]
            yield from interruptible((future.result for future in futures), TimeoutError)
        finally:  # on Ctrl-C, files not yet started are never started
            pool.shutdown(wait=True, cancel_futures=True)


def model_merger(engine: EngineName, model: str | None, device: str) -> Merger:
    from apply_engine.config import EngineConfig
    from apply_engine.engine import Engine

    return Engine(EngineConfig(engine=engine, model=model, device=device)).apply  # type: ignore[arg-type]


# -- the whole batch ----------------------------------------------------------------------------


def run_files(
    file_jobs: list[FileJob],
    jobs: int | None,
    engine: EngineName,
    model: str | None,
    device: str,
    urls: list[str],
) -> Iterator[FileOutcome]:
    """Where the merges run: `fastapply serve` URLs, a model in this process, or the structural pool."""
    if engine != "structural" and urls:
        return run_servers(file_jobs, urls, engine)
    if engine == "model" or (engine == "auto" and model is not None):
        return run_in_process(file_jobs, model_merger(engine, model, device))
    return run_structural(file_jobs, jobs or os.cpu_count() or 1)


def plan_files(
    entries: list[Patch | PatchReport], root: Path, dry_run: bool, dirty: set[Path] | None
) -> tuple[list[FileJob], list[PatchReport]]:
    """Group the good patches by resolved file (input order kept); report the rest right away."""
    groups: dict[Path, list[Patch]] = {}
    reports = []
    for entry in entries:
        if isinstance(entry, PatchReport):
            reports.append(entry)
            continue
        try:
            target = resolve_inside(root, entry.path)
        except ValueError as exc:
            reports.append(failed(entry, "unsafe_path", str(exc), status="rejected_path"))
            continue
        if dirty is not None and target in dirty:
            reports.append(
                failed(entry, "uncommitted_changes", "the file has uncommitted git changes (--require-clean)")
            )
            continue
        groups.setdefault(target, []).append(entry)
    return [FileJob(str(target), patches, dry_run) for target, patches in groups.items()], reports


def summarize(reports: list[PatchReport], files: int, wall_s: float, dry_run: bool) -> BatchSummary:
    count = {status: 0 for status in ("applied", "unchanged", "ambiguous", "failed", "rejected_path")}
    for report in reports:
        count[report.status] += 1
    return BatchSummary(
        patches=len(reports),
        files=files,
        wall_s=wall_s,
        files_per_s=files / wall_s if wall_s > 0 else 0.0,
        dry_run=dry_run,
        **count,
    )


def apply_patches(
    patches: str | Path | Iterable[Patch | PatchReport],
    repo: str | Path,
    *,
    jobs: int | None = None,
    engine: EngineName = "auto",
    model: str | None = None,
    device: str = "auto",
    server_urls: Iterable[str] = (),
    dry_run: bool = False,
    require_clean: bool = False,
    on_file: Callable[[FileOutcome], None] | None = None,
) -> BatchReport:
    """Apply `patches` (a JSONL path, "-", a snippet directory, or Patch objects) under `repo`.

    Run-level problems (no such repo, unloadable model, --require-clean outside git) raise
    FastApplyError; everything about one patch is in its PatchReport.
    """
    start = time.perf_counter()
    root = Path(repo).resolve()
    if not root.is_dir():
        raise InputError(f"repository {str(repo)!r} is not a directory", field="repo")
    # 1. read the patches; malformed entries are already reports
    entries = load_patches(patches) if isinstance(patches, str | Path) else numbered(patches)
    try:
        # 2. one writing run per repository at a time (a dry run writes nothing and takes no lock)
        with nullcontext() if dry_run else directory_lock(root, LOCK_WAIT_S):
            # 3. resolve paths, refuse dirty files, group by file
            dirty = dirty_files(root) if require_clean else None
            file_jobs, reports = plan_files(entries, root, dry_run, dirty)
            for report in reports:
                notify(on_file, FileOutcome([report]))
            # 4. temp files of a killed run are never content
            if not dry_run:
                remove_temps_beside(file_jobs)
            # 5. merge and write, file by file; fsync the directories
            outcomes = run_files(file_jobs, jobs, engine, model, device, list(server_urls))
            diffs = collect(outcomes, reports, on_file)
    except DirectoryBusy:
        raise InputError(
            f"another fastapply batch is writing under {root}; wait for it", field="repo"
        ) from None
    reports.sort(key=lambda r: r.index)
    summary = summarize(reports, len(file_jobs), time.perf_counter() - start, dry_run)
    return BatchReport(summary, reports, dict(sorted(diffs.items())))


def numbered(entries: Iterable[Patch | PatchReport]) -> list[Patch | PatchReport]:
    """Patch objects from a script, numbered by position and named "patch N" unless they have a source."""
    return [
        msgspec.structs.replace(entry, index=i, source=entry.source or f"patch {i + 1}")
        for i, entry in enumerate(entries)
    ]


def remove_temps_beside(file_jobs: list[FileJob]) -> None:
    for directory in {Path(job.target).parent for job in file_jobs}:
        if directory.is_dir():
            remove_stale_temps(directory)


def notify(on_file: Callable[[FileOutcome], None] | None, outcome: FileOutcome) -> None:
    if on_file is not None:
        on_file(outcome)


def collect(
    outcomes: Iterator[FileOutcome], reports: list[PatchReport], on_file: Callable[[FileOutcome], None] | None
) -> dict[str, str]:
    """Gather the reports (into `reports`) and diffs; then make the renames durable, one fsync per directory."""
    diffs, written = {}, set()
    for outcome in outcomes:
        reports.extend(outcome.reports)
        if outcome.diff:
            diffs[outcome.reports[0].path] = outcome.diff
        if outcome.written_dir:
            written.add(outcome.written_dir)
        notify(on_file, outcome)
    for directory in written:
        fsync_dir(Path(directory))
    return diffs


# -- the `fastapply batch` command --------------------------------------------------------------


class ProgressLines:
    """Progress on stderr: a rich bar on a terminal, else one plain line per file."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.counts = {"done": 0, "failed": 0, "ambiguous": 0}
        self.tokens_per_s: list[float] = []
        self.seen: list[PatchReport] = []
        self.bar = None

    def __enter__(self) -> "ProgressLines":
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self.bar = Progress(
                TextColumn("merging"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[counts]}"),
                console=Console(stderr=True),
            )
            self.bar.__enter__()
            self.task = self.bar.add_task("merge", total=self.total, counts="")
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)

    def __call__(self, outcome: FileOutcome) -> None:
        self.seen.extend(outcome.reports)
        for report in outcome.reports:
            key = "done" if report.status in DONE_STATUSES else report.status
            self.counts["failed" if key == "rejected_path" else key] += 1
            if report.tok_s:
                self.tokens_per_s.append(report.tok_s)
        if outcome.diff:
            sys.stdout.write(outcome.diff)
        if self.bar is not None:
            self.bar.update(self.task, advance=len(outcome.reports), counts=self.describe())
        else:
            for report in outcome.reports:
                print(f"{report.status:<10} {report.path}", file=sys.stderr)

    def describe(self) -> str:
        text = ", ".join(f"{n} {name}" for name, n in self.counts.items())
        if self.tokens_per_s:
            text += f", {sum(self.tokens_per_s) / len(self.tokens_per_s):.0f} tok/s"
        return text


def print_summary(report: BatchReport) -> None:
    for item in report.patches:
        if item.status not in DONE_STATUSES:
            for reason in item.reasons:
                print(
                    f"{item.status}: {item.source} {item.path}: {reason.code}: {reason.message}",
                    file=sys.stderr,
                )
    s = report.summary
    verb = "would apply" if s.dry_run else "applied"
    print(
        f"{s.patches} patches, {s.files} files: {s.applied} {verb}, {s.unchanged} unchanged, "
        f"{s.ambiguous} ambiguous, {s.failed} failed, {s.rejected_path} rejected paths "
        f"in {s.wall_s:.2f}s ({s.files_per_s:.1f} files/s)",
        file=sys.stderr,
    )


def run_batch_cli(
    patches: str,
    repo: Path,
    jobs: int | None,
    engine: str,
    model: str | None,
    device: str,
    server_urls: list[str],
    dry_run: bool,
    require_clean: bool,
    report: Path | None,
) -> int:
    """`fastapply batch`: 0 when every patch is applied or already applied, else 1 (130 on Ctrl-C)."""
    if engine not in ("auto", "structural", "model"):
        raise InputError(f"unknown engine {engine!r}: use structural, model or auto", field="engine")
    if jobs is not None and jobs < 1:
        raise InputError("--jobs must be at least 1", field="jobs")
    if engine == "model" and model is None and not server_urls:
        raise InputError("--engine model needs --model or --server-url", field="engine")
    entries = load_patches(patches)
    start = time.perf_counter()
    progress = ProgressLines(len(entries))
    try:
        with progress:
            result = apply_patches(
                entries,
                repo,
                jobs=jobs,
                engine=engine,  # type: ignore[arg-type]
                model=model,
                device=device,
                server_urls=server_urls,
                dry_run=dry_run,
                require_clean=require_clean,
                on_file=progress,
            )
    except KeyboardInterrupt:
        partial = interrupted_report(entries, progress.seen, time.perf_counter() - start, dry_run)
        write_report(report, partial)
        print("fastapply: interrupted; every file is whole (old or new); rerun to finish", file=sys.stderr)
        return EXIT_INTERRUPTED
    write_report(report, result)
    print_summary(result)
    return 0 if result.summary.ok else 1


def write_report(path: Path | None, result: BatchReport) -> None:
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, msgspec.json.format(msgspec.json.encode(result)) + b"\n")


def interrupted_report(
    entries: list[Patch | PatchReport], seen: list[PatchReport], wall_s: float, dry_run: bool
) -> BatchReport:
    """The reports that came back before Ctrl-C; every other patch is `failed` with reason `interrupted`."""
    done = {report.index for report in seen}
    reason = Reason("interrupted", "the run was interrupted first; the file is old or new, rerun to finish")
    missing = [
        PatchReport(e.index, e.source, e.path, "failed", reasons=[reason])
        for e in entries
        if e.index not in done
    ]
    reports = sorted([*seen, *missing], key=lambda r: r.index)
    return BatchReport(summarize(reports, len({r.path for r in reports}), wall_s, dry_run), reports)
