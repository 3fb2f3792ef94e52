"""The wired benchmark's start-up figures: each simulator's whole command, as someone who runs it
once sees it, and airtcp's short commands beside its run.

A run of the benchmark's point-to-point case simulates in milliseconds, so airtcp's whole command
is mostly starting up (the interpreter, imports, reading the scenario, writing the results). The
rows compare, per packet error rate and summed over seeds like the other wall times, airtcp's
`run` against ns-3's program, and `airtcp validate` (the same scenario and overrides) and
`airtcp --help` against that `run`. Targets are printed, never enforced.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from airtcp.bench.tables import cell, mark, markdown_table, text_table

__all__ = [
    "CMD_TARGET",
    "SHORT_COMMANDS",
    "SHORT_TARGET",
    "format_startup",
    "startup_markdown",
    "summarise_startup",
    "targets_text",
]

# ns-3's whole command / airtcp's, at least: airtcp's loop is far faster, its command should be too.
CMD_TARGET = 2.0
# A short command's whole command / `airtcp run`'s, at most.
SHORT_TARGET = 0.25
# Name in the report -> arguments after `airtcp` (None: the run's scenario and overrides).
SHORT_COMMANDS: dict[str, list[str] | None] = {"validate": None, "help": ["--help"]}

_COLUMNS = (
    ("PER", "per", "g"),
    ("run s", "cmd_wall_airtcp_s", ".3f"),
    ("validate s", "cmd_wall_validate_s", ".3f"),
    ("help s", "cmd_wall_help_s", ".3f"),
    ("ns-3 s", "cmd_wall_ns3_s", ".3f"),
    ("ns-3/run x", "cmd_ratio", ".2f"),
    ("validate/run", "validate_ratio", ".2f"),
    ("help/run", "help_ratio", ".2f"),
)


def summarise_startup(
    airtcp_cmd_s: float | None,
    ns3_cmd_s: float | None,
    short_runs: Mapping[str, Sequence[Mapping[str, Any]]],
) -> dict[str, Any]:
    """A case's start-up fields, from its summed run times and the short commands' runs."""
    row: dict[str, Any] = {"cmd_ok": _at_least(_ratio(ns3_cmd_s, airtcp_cmd_s), CMD_TARGET)}
    for name in SHORT_COMMANDS:
        runs = short_runs.get(name) or []
        wall = _sum(run["cmd_wall_s"] for run in runs)
        row[f"cmd_wall_{name}_s"] = wall
        row[f"cmd_cpu_{name}_s"] = _sum(run["cmd_cpu_s"] for run in runs)
        row[f"{name}_ratio"] = _ratio(wall, airtcp_cmd_s)
        row[f"{name}_ok"] = _at_most(row[f"{name}_ratio"], SHORT_TARGET)
    return row


def targets_text() -> str:
    return (
        f"whole command ns-3/airtcp run >= {CMD_TARGET:g}x; airtcp validate and airtcp --help "
        f"each <= {SHORT_TARGET:g} of airtcp run"
    )


def format_startup(rows: Iterable[Mapping[str, Any]]) -> str:
    """The start-up table for the terminal, with its targets."""
    table = text_table(_headers(), [_cells(row) for row in rows])
    title = "start-up: whole-command wall time, summed over seeds"
    return f"{title}\n{table}\ntargets: {targets_text()}"


def startup_markdown(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """The start-up section of `bench.md`."""
    return [
        "## Start-up",
        "",
        "Whole-command wall time, summed over seeds: `run` is `airtcp run` (the same runs as the "
        "table above), `validate` is `airtcp validate` of the same scenario and overrides, `help` "
        f"is `airtcp --help`, `ns-3` the ns-3 program. Targets: {targets_text()}.",
        "",
        *markdown_table(_headers(), [_cells(row) for row in rows]),
    ]


def _headers() -> list[str]:
    return [title for title, _, _ in _COLUMNS] + ["targets"]


def _cells(row: Mapping[str, Any]) -> list[str]:
    cells = [cell(row.get(key), spec) for _, key, spec in _COLUMNS]
    marks = {"cmd": row.get("cmd_ok"), **{name: row.get(f"{name}_ok") for name in SHORT_COMMANDS}}
    cells.append(", ".join(f"{name} {mark(ok)}" for name, ok in marks.items()))
    return cells


def _sum(values: Iterable[float]) -> float | None:
    numbers = list(values)
    return float(sum(numbers)) if numbers else None


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or not b else a / b


def _at_least(value: float | None, target: float) -> bool | None:
    return None if value is None else value >= target


def _at_most(value: float | None, target: float) -> bool | None:
    return None if value is None else value <= target
