"""Bench output shared by every `fastapply bench ...`: one rich table on stdout, one JSON file."""

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec
from rich.console import Console
from rich.table import Table

from apply_engine.batch_io import atomic_write

Cell = str | int | float | None


def format_cell(value: Cell) -> str:
    """Floats of 1 or more get two decimals, smaller ones three significant digits; None is a dash."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.2f}" if abs(value) >= 1 or value == 0 else f"{value:.3g}"
    return str(value)


def print_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Cell]]) -> None:
    """Print `rows` under `columns`; the first column is left-aligned, the rest right-aligned."""
    table = Table(title=title)
    for i, column in enumerate(columns):
        table.add_column(column, justify="left" if i == 0 else "right")
    for row in rows:
        table.add_row(*(format_cell(v) for v in row))
    Console().print(table)


def write_json(path: Path, payload: Any) -> None:
    """Write `payload` (plain data or msgspec structs) as indented JSON, creating parent folders."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, msgspec.json.format(msgspec.json.encode(payload)).decode() + "\n")
