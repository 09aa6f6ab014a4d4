"""Golden merge cases under fixtures/: one directory per case.

    fixtures/<case>/case.json        {"language": "python", "expect": "ok" | "ambiguous", "note": "..."}
    fixtures/<case>/original.<ext>   the file before the edit
    fixtures/<case>/snippet.<ext>    the lazy edit snippet, as an assistant writes it
    fixtures/<case>/expected.<ext>   the merged file (absent when expect is "ambiguous")

Files are read as bytes and decoded as UTF-8, so CRLF and a BOM reach the engine untouched.
"""

from dataclasses import dataclass
from pathlib import Path

import msgspec

DEFAULT_ROOT = Path(__file__).resolve().parents[1] / "fixtures"


class CaseMeta(msgspec.Struct, forbid_unknown_fields=True):
    language: str
    note: str
    expect: str = "ok"  # "ok" or "ambiguous"
    origin: str | None = None  # where a real-size original was taken from


@dataclass(frozen=True)
class FixtureCase:
    name: str
    language: str
    note: str
    path: str  # the original's file name, e.g. "original.py" (its extension drives detection)
    original: str
    snippet: str
    expected: str | None  # None: the right answer is "ambiguous"


def _only(directory: Path, stem: str) -> Path | None:
    found = sorted(directory.glob(f"{stem}.*"))
    if len(found) > 1:
        raise ValueError(f"{directory}: several {stem}.* files")
    return found[0] if found else None


def load_case(directory: Path) -> FixtureCase:
    meta = msgspec.json.decode((directory / "case.json").read_bytes(), type=CaseMeta)
    original, snippet, expected = (_only(directory, s) for s in ("original", "snippet", "expected"))
    if original is None or snippet is None:
        raise ValueError(f"{directory}: needs original.* and snippet.*")
    if (meta.expect == "ok") != (expected is not None):
        raise ValueError(f"{directory}: expected.* must exist exactly when expect is 'ok'")
    return FixtureCase(
        name=directory.name,
        language=meta.language,
        note=meta.note,
        path=original.name,
        original=original.read_bytes().decode("utf-8"),
        snippet=snippet.read_bytes().decode("utf-8"),
        expected=expected.read_bytes().decode("utf-8") if expected else None,
    )


def load_cases(root: Path = DEFAULT_ROOT) -> list[FixtureCase]:
    return [load_case(d) for d in sorted(root.iterdir()) if (d / "case.json").is_file()]
