"""The `fastapply` command: thin wiring from options to the engine, server, LSP, batch and benches.

Exit codes: 0 merged / done; 2 bad input (one line on stderr); 3 ambiguous merge (reasons on stderr).
Heavy modules (torch, litestar, pygls) are imported inside the commands that need them.
"""

import sys
from pathlib import Path
from typing import Annotated, NoReturn

import msgspec
import typer

from apply_engine import __version__
from apply_engine.errors import FastApplyError

EXIT_BAD_INPUT = 2
EXIT_AMBIGUOUS = 3

app = typer.Typer(
    name="fastapply",
    help="Merge lazy AI edit snippets into files: structurally, or with a merge model and speculative decoding.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
bench_app = typer.Typer(help="Benchmarks: print a table and write JSON.", no_args_is_help=True)
app.add_typer(bench_app, name="bench")

ModelOpt = Annotated[
    str | None, typer.Option("--model", help="smollm2-135m, a HF model directory or a .gguf file.")
]
DraftModelOpt = Annotated[
    str | None,
    typer.Option(
        "--draft-model",
        help="Draft model with the same tokenizer, or 'self' / 'self:N': the target's first N layers.",
    ),
]
DeviceOpt = Annotated[str, typer.Option("--device", help="cpu, cuda or auto.")]
DtypeOpt = Annotated[
    str | None, typer.Option("--dtype", help="float32 (CPU default) or bfloat16 (CUDA default).")
]


def fail(message: str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    typer.echo(f"fastapply: {message}", err=True)
    raise typer.Exit(code)


def read_text(path: str, what: str) -> str:
    """Read a UTF-8 text file ('-' = stdin) exactly: no newline translation, BOM kept."""
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as exc:
        fail(f"cannot read {what} {path}: {exc.strerror or exc}")
    if b"\x00" in data:
        fail(f"{what} {path} looks binary (contains NUL bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        fail(f"{what} {path} is not UTF-8 (byte {exc.start})")


def version_callback(value: bool) -> None:
    if value:
        typer.echo(f"fastapply {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[bool, typer.Option("--version", callback=version_callback, is_eager=True)] = False,
) -> None:
    """fastapply: original file + lazy edit snippet -> full merged file."""


@app.command()
def apply(
    original: Annotated[str, typer.Argument(help="The original file.")],
    snippet: Annotated[str, typer.Argument(help="The edit snippet ('-' for stdin).")],
    language: Annotated[
        str | None, typer.Option(help="Language (default: from extension or content).")
    ] = None,
    engine: Annotated[str, typer.Option(help="structural, model or auto.")] = "auto",
    instruction: Annotated[str | None, typer.Option(help="What the edit does (given to the model).")] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print {merged, status, reasons, ...} as JSON.")
    ] = False,
    out: Annotated[Path | None, typer.Option("-o", "--output", help="Write the merged file here.")] = None,
    in_place: Annotated[bool, typer.Option("--in-place", help="Overwrite ORIGINAL (atomically).")] = False,
    model: ModelOpt = None,
    draft_model: DraftModelOpt = None,
    device: DeviceOpt = "auto",
    dtype: DtypeOpt = None,
    no_speculation: Annotated[bool, typer.Option("--no-speculation", help="Decode plainly.")] = False,
    temperature: Annotated[float, typer.Option(help="0 = greedy.")] = 0.0,
    max_new_tokens: Annotated[int | None, typer.Option(help="Token budget for the model.")] = None,
    prompt_format: Annotated[str, typer.Option(help="auto, tags, fastapply or chat.")] = "auto",
) -> None:
    """Merge SNIPPET into ORIGINAL; the merged file goes to stdout byte-exact."""
    from apply_engine.batch_io import atomic_write
    from apply_engine.config import EngineConfig
    from apply_engine.engine import Engine
    from apply_engine.schemas import ApplyRequest

    if engine not in ("auto", "structural", "model"):
        fail(f"unknown engine {engine!r}: use structural, model or auto")
    if out is not None and in_place:
        fail("give -o/--output or --in-place, not both")
    if original == "-" and snippet == "-":
        fail("only one of ORIGINAL and SNIPPET can be '-'")
    request = ApplyRequest(
        original=read_text(original, "original"),
        snippet=read_text(snippet, "snippet"),
        instruction=instruction,
        language=language,
        path=None if original == "-" else original,
        engine=engine,  # type: ignore[arg-type]
    )
    config = EngineConfig(
        engine=engine,
        model=model,
        draft_model=draft_model,
        device=device,
        dtype=dtype,  # type: ignore[arg-type]
        prompt_format=prompt_format,
        speculation=not no_speculation,  # type: ignore[arg-type]
        temperature=temperature,
        max_new_tokens=max_new_tokens,
    )
    try:
        result = Engine(config).apply(request)
    except FastApplyError as exc:
        fail(str(exc))
    if as_json:
        sys.stdout.buffer.write(msgspec.json.encode(result) + b"\n")
    if result.status != "ok" or result.merged is None:
        for reason in result.reasons:
            where = f" (snippet line {reason.line})" if reason.line else ""
            typer.echo(f"ambiguous: {reason.code}: {reason.message}{where}", err=True)
        raise typer.Exit(EXIT_AMBIGUOUS)
    target = Path(original) if in_place else out
    if target is not None:
        atomic_write(target, result.merged)
    elif not as_json:
        sys.stdout.buffer.write(result.merged.encode("utf-8"))
        sys.stdout.flush()


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Bind address (loopback by default).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
    model: ModelOpt = None,
    draft_model: DraftModelOpt = None,
    device: DeviceOpt = "auto",
    dtype: DtypeOpt = None,
    api_key_env: Annotated[
        str | None, typer.Option(help="Env var holding the bearer token to require.")
    ] = None,
    max_body: Annotated[int, typer.Option(help="Largest request body in bytes.")] = 4 * 1024 * 1024,
    max_concurrency: Annotated[int, typer.Option(help="Model requests decoded at once.")] = 1,
    max_queue: Annotated[int, typer.Option(help="Model requests waiting before 503.")] = 16,
    timeout: Annotated[float, typer.Option(help="Per-request timeout in seconds.")] = 120.0,
    workers: Annotated[int, typer.Option(help="Structural-merge worker threads.")] = 1,
    processes: Annotated[
        int, typer.Option(help="Run structural merges in N worker processes (0: on the threads).")
    ] = 0,
) -> None:
    """Run the HTTP service (litestar on uvicorn)."""
    from apply_engine.server import run_server

    try:
        run_server(
            host=host,
            port=port,
            model=model,
            draft_model=draft_model,
            device=device,
            dtype=dtype,
            api_key_env=api_key_env,
            max_body=max_body,
            max_concurrency=max_concurrency,
            max_queue=max_queue,
            timeout=timeout,
            workers=workers,
            processes=processes,
        )
    except FastApplyError as exc:
        fail(str(exc))


@app.command()
def lsp(
    tcp: Annotated[
        int | None, typer.Option(help="Listen on this TCP port instead of stdio (debugging).")
    ] = None,
) -> None:
    """Run the language server (stdio)."""
    from lsp.server import run_lsp

    run_lsp(tcp_port=tcp)


@app.command()
def batch(
    patches: Annotated[
        str, typer.Argument(help="JSONL file of {path, snippet, ...} ('-' = stdin) or a directory.")
    ],
    repo: Annotated[Path, typer.Option(help="Repository root; every path must resolve inside it.")] = Path(
        "."
    ),
    jobs: Annotated[int | None, typer.Option(help="Worker processes for structural merges.")] = None,
    engine: Annotated[str, typer.Option(help="structural, model or auto.")] = "auto",
    model: ModelOpt = None,
    device: DeviceOpt = "auto",
    server_url: Annotated[
        list[str] | None,
        typer.Option(help="fastapply serve URL(s) to merge through; bearer token from $FASTAPPLY_API_KEY."),
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print diffs; write nothing.")] = False,
    require_clean: Annotated[
        bool, typer.Option("--require-clean", help="Refuse files with git changes.")
    ] = False,
    report: Annotated[Path | None, typer.Option(help="Write the per-patch JSON report here.")] = None,
) -> None:
    """Apply many snippets over a repository, atomically and idempotently.

    Exit 0 when every patch is applied or already applied, 1 when any is not, 2 for bad input, 130 on Ctrl-C.
    """
    from apply_engine.batch import run_batch_cli

    try:
        code = run_batch_cli(
            patches=patches,
            repo=repo,
            jobs=jobs,
            engine=engine,
            model=model,
            device=device,
            server_urls=server_url or [],
            dry_run=dry_run,
            require_clean=require_clean,
            report=report,
        )
    except FastApplyError as exc:
        fail(str(exc))
    raise typer.Exit(code)


@bench_app.command("merge")
def bench_merge(
    fixtures: Annotated[Path, typer.Option(help="Fixture directory.")] = Path("fixtures"),
    json_out: Annotated[Path | None, typer.Option("--json", help="Write results here.")] = None,
) -> None:
    """Structural merge accuracy (exact/ambiguous/wrong) and latency over the fixtures."""
    from apply_engine.bench.merge import main as bench_main

    bench_main(fixtures=fixtures, json_out=json_out)


@bench_app.command("speed")
def bench_speed(
    model: Annotated[str, typer.Option(help="Target model.")] = "smollm2-135m",
    draft_model: Annotated[
        str | None, typer.Option(help="Draft model (or 'self:N') for assisted generation and ours.")
    ] = None,
    cases: Annotated[int, typer.Option(help="Number of fixture cases.")] = 8,
    device: DeviceOpt = "auto",
    dtype: DtypeOpt = None,
    fixtures: Annotated[Path, typer.Option(help="Fixture directory.")] = Path("fixtures"),
    json_out: Annotated[Path | None, typer.Option("--json", help="Write results here.")] = None,
    keep_prefix: Annotated[
        bool,
        typer.Option(help="Ours keeps the prompt prefix shared with the previous case, as a server does."),
    ] = False,
) -> None:
    """Greedy vs prompt lookup vs assisted vs ours (tok/s, tau, identical), plus the oracle tau."""
    from apply_engine.bench.speed import main as bench_main

    try:
        bench_main(
            model=model,
            draft_model=draft_model,
            cases=cases,
            device=device,
            dtype=dtype,
            fixtures=fixtures,
            json_out=json_out,
            keep_prefix=keep_prefix,
        )
    except FastApplyError as exc:
        fail(str(exc))


@bench_app.command("serve")
def bench_serve(
    url: Annotated[str, typer.Option(help="A running fastapply serve.")] = "http://127.0.0.1:8000",
    clients: Annotated[int, typer.Option(help="Concurrent clients.")] = 16,
    seconds: Annotated[float, typer.Option(help="Duration.")] = 60.0,
    fixtures: Annotated[Path, typer.Option(help="Fixture directory.")] = Path("fixtures"),
    json_out: Annotated[Path | None, typer.Option("--json", help="Write results here.")] = None,
) -> None:
    """Drive a running server with N concurrent clients: throughput, p50/p99, errors."""
    from apply_engine.bench.serve import main as bench_main

    try:
        bench_main(url=url, clients=clients, seconds=seconds, fixtures=fixtures, json_out=json_out)
    except FastApplyError as exc:
        fail(str(exc))


@bench_app.command("batch")
def bench_batch(
    patches: Annotated[int, typer.Option(help="Number of structural patches.")] = 1000,
    jobs: Annotated[int | None, typer.Option(help="Worker processes.")] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="Write results here.")] = None,
) -> None:
    """Files/s for structural batch patches over a temporary repository."""
    from apply_engine.bench.batch import main as bench_main

    bench_main(patches=patches, jobs=jobs, json_out=json_out)


@bench_app.command("gpu")
def bench_gpu(
    sizes: Annotated[str, typer.Option(help="Comma-separated configs: tiny, 0.5b, 1.5b.")] = "0.5b,1.5b",
    max_k: Annotated[int, typer.Option(help="Largest verify width.")] = 256,
    tau: Annotated[
        float | None,
        typer.Option(
            help="Tokens per target forward for the end-to-end run (default: the fixtures' oracle tau, 47.9)."
        ),
    ] = None,
    device: DeviceOpt = "auto",
    json_out: Annotated[Path | None, typer.Option("--json", help="Write results here.")] = None,
    buckets: Annotated[
        str | None, typer.Option(help="Verify widths to capture and time, e.g. 1,32,64.")
    ] = None,
    variants: Annotated[
        str | None, typer.Option(help="FastTarget variants, e.g. matmul+compile,triton (default: all).")
    ] = None,
) -> None:
    """Forward latency vs K against the memory-bandwidth floor; end-to-end tok/s at a given tau."""
    from apply_engine.bench.gpu import main as bench_main

    bench_main(
        sizes=sizes,
        max_k=max_k,
        tau=tau,
        device=device,
        json_out=json_out,
        buckets=buckets,
        variants=variants,
    )


def main() -> None:
    app()


if __name__ == "__main__":
    main()
