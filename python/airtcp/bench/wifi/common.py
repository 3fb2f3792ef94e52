"""What the parts of the 802.11 benchmark share: seeds, targets, the loop over seeds, statistics,
tables and the two output files of a run."""

from __future__ import annotations

import json
import math
import os
import subprocess
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from airtcp.bench.tables import markdown_table, text_table
from airtcp.bench.harness import BenchError, log
from airtcp.bench.wired import _mean, _sd

FULL_SEEDS = 3
QUICK_SEEDS = 1
DEFAULT_OUT = "bench/out/wifi"

# The benchmark's targets (bench/wifi/README.md); the scale case has its own (`scale.py`).
GOODPUT_TOLERANCE = 0.20
SPEED_TARGET = 20.0

# Nanoseconds in a second: airtcp's normalised scenarios count time in nanoseconds.
NS_PER_S = 1_000_000_000


def chain_overrides(hops: int) -> list[str]:
    """The `--set` overrides that stretch a template's one-hop chain (flow f0 from n0 to n1 on
    an explicit path) to `hops` hops, the flow along the line to the far end."""
    path = ", ".join(f"n{i}" for i in range(hops + 1))
    return [
        f"topology.hops={hops}",
        f"flows[0].dst=n{hops}",
        f"flows[0].paths={{kind: explicit, paths: [[{path}]]}}",
    ]


def seeds_or_default(seeds: int | None, quick: bool) -> int:
    """The number of seeds to run: `seeds` if given, else one for a quick run, three otherwise."""
    return seeds or (QUICK_SEEDS if quick else FULL_SEEDS)


# --------------------------------------------------------------------------------------------
# Runs


def _attempt(
    errors: list[str], what: str, run: Callable[..., dict[str, Any]], *args: Any
) -> dict[str, Any] | None:
    """`run(*args)`, or None with the failure recorded: one failed run does not end the others."""
    try:
        return run(*args)
    except (BenchError, subprocess.TimeoutExpired) as error:
        errors.append(f"{what}: {error}")
        log(f"failed: {what}: {error}")
        return None


def seed_runs(
    what: str, seeds: int, run: Callable[[int], dict[str, Any]], errors: list[str]
) -> list[dict[str, Any]]:
    """`run(seed)` for seeds 1..seeds, each logged as "WHAT seed S"; the runs that succeeded
    (a failure is recorded in `errors` and the other seeds still run)."""
    runs = []
    for seed in range(1, seeds + 1):
        label = f"{what} seed {seed}"
        log(f"{label} ...")
        result = _attempt(errors, label, run, seed)
        if result is not None:
            runs.append(result)
    return runs


def _load_average() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def write_outputs(
    report: dict[str, Any],
    errors: list[str],
    load_start: float | None,
    out_dir: Path,
    stem: str,
    markdown: Callable[[dict[str, Any]], str],
) -> None:
    """Completes the report (the load at the end, the failed runs) and writes `OUT/STEM.json` and
    `OUT/STEM.md`. Wall times stretch when other work shares the cores; the load tells how much
    to trust them (`cmd_cpu_s` is the steadier figure)."""
    report["environment"]["load_average_1min"] = {"start": load_start, "end": _load_average()}
    report["errors"] = errors
    (out_dir / f"{stem}.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    (out_dir / f"{stem}.md").write_text(markdown(report), encoding="utf-8")


# --------------------------------------------------------------------------------------------
# Statistics


def _kbps(bps: float | None) -> float | None:
    return None if bps is None else bps / 1e3


def _round(value: float | None, digits: int = 1) -> float | None:
    return None if value is None else round(value, digits)


def over_seeds(name: str, values: Sequence[float | None]) -> dict[str, Any]:
    """`name`, `name_sd` and `name_per_seed`: the mean over seeds, its standard deviation and the
    value of each seed, to two decimals."""
    return {
        name: _round(_mean(values), 2),
        f"{name}_sd": _round(_sd(values), 2),
        f"{name}_per_seed": [_round(v, 2) for v in values],
    }


# --------------------------------------------------------------------------------------------
# Tables


def _fmt(value: Any, spec: str = ".1f") -> str:
    if value is None:
        return "n/a"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if isinstance(value, float) and math.isnan(value):
            return "n/a"
        return format(value, spec)
    return str(value)


def _table(headers: Sequence[str], rows: Iterable[Sequence[str]], markdown: bool) -> str:
    body = [list(r) for r in rows]
    if markdown:
        return "\n".join(markdown_table(headers, body))
    return text_table(headers, body)


def failed_runs_markdown(errors: Sequence[str]) -> list[str]:
    """The "Failed runs" section of a Markdown report (nothing when every run succeeded)."""
    if not errors:
        return []
    return ["## Failed runs", ""] + [f"- {e.splitlines()[0]}" for e in errors] + [""]


def print_failed_runs(errors: Sequence[str]) -> None:
    for error in errors:
        print(f"failed: {error.splitlines()[0]}")
