"""`fastapply bench batch`: files/s of structural batch patches over a temporary repository.

The repository holds `patches` generated Python modules of LINES_PER_FILE lines; each patch is a lazy
snippet (markers around one rewritten function), so every file needs a real structural merge. Runs:

    cold    one worker, then `jobs` workers, each on a fresh copy of the repository (pool start-up and
            the atomic writes included in the wall time)
    rerun   `jobs` workers over the already-patched copy: every patch should come back unchanged

After each run every file is compared with the version built by construction: `exact` counts files
that are byte-identical to it, so a fast but wrong run cannot look good. `same` is the unchanged count;
`cpu ms` is user+sys CPU per file of this process and its pool workers: on a machine shared with other
work it shows what the files/s would be on idle cores (about workers * 1000 / cpu ms at best).
"""

import os
import resource
import shutil
import tempfile
import time
from pathlib import Path

import msgspec

from apply_engine.batch import apply_patches
from apply_engine.bench.report import print_table, write_json

LINES_PER_FILE = 300
FUNCTION_LINES = 10  # def + 7 body lines + 2 blank lines
EDITED = 3  # which function of a module the snippet rewrites (by its number modulo the count)


class BatchRun(msgspec.Struct):
    run: str
    jobs: int
    files: int
    applied: int
    unchanged: int
    ambiguous: int
    failed: int
    exact: int  # files byte-identical to the expected version after the run
    wall_s: float
    files_per_s: float
    cpu_ms_per_file: float  # user+sys CPU of this process and its pool workers, per file


class BatchBench(msgspec.Struct):
    patches: int
    lines_per_file: int
    cpu_count: int
    runs: list[BatchRun]


def function(module: int, index: int, edited: bool) -> str:
    """One 8-line function; the edited version differs in its body."""
    scale = 1000 if edited else 1
    body = "".join(f"    total += values[{j}] * {index + j} * {scale}\n" for j in range(5))
    return (
        f"def step_{module}_{index:02d}(values: list[int]) -> int:\n    total = 0\n{body}    return total\n"
    )


def module(number: int, edited: bool) -> str:
    count = LINES_PER_FILE // FUNCTION_LINES
    target = number % count
    return "\n\n".join(function(number, i, edited and i == target) for i in range(count))


def snippet(number: int) -> str:
    target = number % (LINES_PER_FILE // FUNCTION_LINES)
    return f"# ... existing code ...\n\n\n{function(number, target, True)}\n\n# ... existing code ...\n"


def build(root: Path, patches: int) -> tuple[Path, Path]:
    """(pristine repository, JSONL patch file) under `root`."""
    repo = root / "pristine"
    lines = []
    for number in range(patches):
        path = f"pkg{number // 100:02d}/mod_{number:04d}.py"
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(module(number, edited=False))
        lines.append(msgspec.json.encode({"path": path, "snippet": snippet(number)}))
    jsonl = root / "patches.jsonl"
    jsonl.write_bytes(b"\n".join(lines) + b"\n")
    return repo, jsonl


def count_exact(repo: Path, patches: int) -> int:
    return sum(
        (repo / f"pkg{n // 100:02d}/mod_{n:04d}.py").read_text() == module(n, edited=True)
        for n in range(patches)
    )


def cpu_seconds() -> float:
    """CPU time of this process plus its reaped children (pool workers count once the pool closes)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed_run(name: str, jsonl: Path, repo: Path, jobs: int, patches: int) -> BatchRun:
    cpu_start, start = cpu_seconds(), time.perf_counter()
    report = apply_patches(jsonl, repo, jobs=jobs, engine="structural")
    wall_s, cpu_s = time.perf_counter() - start, cpu_seconds() - cpu_start
    s = report.summary
    return BatchRun(
        name,
        jobs,
        s.files,
        s.applied,
        s.unchanged,
        s.ambiguous,
        s.failed + s.rejected_path,
        count_exact(repo, patches),
        wall_s,
        s.files / wall_s,
        cpu_s * 1000 / max(s.files, 1),
    )


def main(patches: int = 1000, jobs: int | None = None, json_out: Path | None = None) -> BatchBench:
    workers = jobs or os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="fastapply-bench-batch-") as tmp:
        pristine, jsonl = build(Path(tmp), patches)
        runs = []
        for name, n in (("cold", 1), ("cold", workers)):
            repo = Path(tmp) / f"run-{len(runs)}"
            shutil.copytree(pristine, repo)
            runs.append(timed_run(name, jsonl, repo, n, patches))
        runs.append(timed_run("rerun", jsonl, repo, workers, patches))
    result = BatchBench(patches, LINES_PER_FILE, os.cpu_count() or 1, runs)
    columns = ["run", "jobs", "applied", "same", "not ok", "exact", "wall s", "files/s", "cpu ms"]
    rows = [[r.run, r.jobs, r.applied, r.unchanged, r.ambiguous + r.failed, r.exact, r.wall_s, r.files_per_s,
             r.cpu_ms_per_file] for r in runs]  # fmt: skip
    print_table(f"batch: {patches} structural patches of {LINES_PER_FILE}-line files", columns, rows)
    if json_out is not None:
        write_json(json_out, result)
    return result
