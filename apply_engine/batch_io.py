"""File I/O that never leaves a partial file: atomic writes, stale temp cleanup, text decoding.

Invariants:
  - `atomic_write` writes a temp file in the target's directory (named `.NAME.*.fastapply-tmp`), fsyncs
    it, gives it the old file's mode (or the umask default for a new file), renames it over the target
    and fsyncs the directory (or leaves that to the caller, who syncs each directory once for many
    files: the rename is atomic without it; the directory fsync makes it survive a power loss).
    A reader, or a crash at any instant, sees the whole old or the whole new file.
  - A temp file left by a killed run is never content: `remove_stale_temps` deletes them. Runs that
    write under one directory hold `directory_lock` on it, so no run deletes another's live temp file.
  - `decode_text` / `encode_text` round-trip a UTF-8 file byte for byte: the BOM and CRLF line endings
    are taken off for merging and put back on writing.
"""

import fcntl
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import msgspec

TEMP_SUFFIX = ".fastapply-tmp"
BOM = "\ufeff"


class TextFile(msgspec.Struct, frozen=True):
    """A decoded file without its BOM. `crlf`: every line ended in CRLF (and no other CR was there);
    `text` then has LF endings. Mixed or CR-only endings are left in `text` as they are."""

    text: str
    bom: bool = False
    crlf: bool = False


def default_mode() -> int:
    """The mode a plain `open(path, "w")` would give a new file under the current umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def fsync_dir(directory: Path) -> None:
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def atomic_write(path: Path, text: str) -> None:
    """Replace `path` with `text` (UTF-8, written byte-exact) so a reader sees all old or all new."""
    atomic_write_bytes(Path(path), text.encode("utf-8"))


def atomic_write_bytes(path: Path, data: bytes, sync_dir: bool = True) -> None:
    """As atomic_write. With `sync_dir=False` the caller fsyncs `path.parent` later (once per directory
    for many files): the rename is atomic either way; the directory fsync only makes it durable."""
    mode = path.stat().st_mode & 0o7777 if path.exists() else default_mode()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fchmod(f.fileno(), mode)
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if sync_dir:
        fsync_dir(path.parent)


class DirectoryBusy(Exception):
    """Another process holds `directory_lock` on the directory."""


@contextmanager
def directory_lock(directory: Path, wait_s: float = 0.0) -> Iterator[None]:
    """Hold an exclusive flock on `directory` itself; DirectoryBusy when another holder keeps it for
    `wait_s`. The kernel drops the lock when its holder dies, so a killed run never leaves it behind."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        take_flock(fd, time.monotonic() + wait_s, directory)
        yield
    finally:
        os.close(fd)


def take_flock(fd: int, deadline: float, directory: Path) -> None:
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise DirectoryBusy(str(directory)) from None
            time.sleep(0.05)


def remove_stale_temps(directory: Path) -> list[Path]:
    """Delete temp files a killed run left in `directory`; returns what was removed."""
    removed = []
    for tmp in directory.glob(f".*{TEMP_SUFFIX}"):
        if tmp.is_file() and not tmp.is_symlink():
            tmp.unlink(missing_ok=True)
            removed.append(tmp)
    return removed


def decode_text(data: bytes) -> TextFile:
    """UTF-8 bytes -> TextFile; ValueError (with the reason) for binary or non-UTF-8 data."""
    if b"\x00" in data:
        raise ValueError("binary file (contains NUL bytes)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text (invalid byte at offset {exc.start})") from None
    bom = text.startswith(BOM)
    if bom:
        text = text[1:]
    crlf = "\r\n" in text and text.count("\r\n") == text.count("\n") == text.count("\r")
    if crlf:
        text = text.replace("\r\n", "\n")
    return TextFile(text=text, bom=bom, crlf=crlf)


def encode_text(text: str, like: TextFile) -> bytes:
    """`text` (LF endings when `like.crlf`) encoded with `like`'s BOM and line endings."""
    if like.crlf:
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    return ((BOM if like.bom else "") + text).encode("utf-8")
