"""Tables of the benchmarks' reports: right-aligned plain text for the terminal, markdown for
the `.md` report."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["cell", "mark", "markdown_table", "text_table"]


def cell(value: Any, spec: str) -> str:
    """A number formatted by `spec`; "n/a" for a figure that could not be measured."""
    return "n/a" if value is None else format(value, spec)


def mark(ok: bool | None) -> str:
    """A target's verdict: "ok", "MISS", or "n/a" when there was nothing to judge."""
    return "n/a" if ok is None else ("ok" if ok else "MISS")


def text_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns as wide as their widest cell, a rule under the headers."""
    table = [list(headers), *(list(row) for row in rows)]
    widths = [max(len(line[i]) for line in table) for i in range(len(headers))]
    lines = ["  ".join(cell.rjust(width) for cell, width in zip(line, widths)) for line in table]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """The table's lines, every column right-aligned."""
    return [
        "| " + " | ".join(headers) + " |",
        "|" + "|".join("---:" for _ in headers) + "|",
        *("| " + " | ".join(row) + " |" for row in rows),
    ]
