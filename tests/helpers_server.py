"""Real servers for the HTTP tests: uvicorn on a free loopback port, in a thread or a subprocess.

The port is bound here first and the socket handed to uvicorn, so two tests never race for one port.
Both helpers return only once GET /health answers 200.
"""

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import uvicorn
from litestar import Litestar

REPO_ROOT = Path(__file__).resolve().parents[1]
STARTUP_S = 30.0


def free_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


def free_port() -> int:
    with free_socket() as sock:
        return sock.getsockname()[1]


def wait_for_health(url: str, alive: Callable[[], bool] = lambda: True) -> None:
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline and alive():
        try:
            if httpx.get(f"{url}/health", timeout=1.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"server at {url} did not become healthy")


@contextmanager
def serve_app(app: Litestar) -> Iterator[str]:
    """Run `app` under uvicorn in a background thread; yield its base URL."""
    sock = free_socket()
    config = uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    try:
        wait_for_health(url, thread.is_alive)
        yield url
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@contextmanager
def serve_cli(*args: str, env: dict[str, str] | None = None) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """Run `fastapply serve --port P ARGS` as a subprocess; yield (base URL, process)."""
    port = free_port()
    command = [sys.executable, "-m", "apply_engine.cli", "serve", "--port", str(port), *args]
    process = subprocess.Popen(
        command,
        cwd=REPO_ROOT,
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for_health(url, lambda: process.poll() is None)
        yield url, process
    finally:
        process.terminate()
        process.wait(timeout=10)
