"""The ns-3 reference runs alone (`--ns3-only`, `--update-reference`): chain, grid and saturation
in ns-3, written to `OUT/ns3_wifi.json` and `OUT/ns3_wifi.md`, and the committed reference file
`bench/wifi/ns3_reference.json` airtcp's tests compare against."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from airtcp.bench.wired import NS3_REQUIREMENT, NS3_VERSION, _environment

from .chain import (
    CHAIN_DURATION_S,
    CHAIN_HOPS,
    CHAIN_VARIANTS,
    QUICK_CHAIN_DURATION_S,
    QUICK_CHAIN_HOPS,
    QUICK_CHAIN_VARIANTS,
    run_chain,
)
from .common import DEFAULT_OUT, _load_average, seeds_or_default, write_outputs
from .grid import GRID_DURATION_S, QUICK_GRID_DURATION_S, run_grid
from .ns3 import REFERENCE_FILE, build_programs, collect_params, find_wifi_dir
from .report import format_markdown
from .saturation import (
    QUICK_SAT_MODES,
    QUICK_SAT_STATIONS,
    QUICK_SAT_WINDOW_S,
    SAT_MODES,
    SAT_STATIONS,
    SAT_WINDOW_S,
    run_saturation,
)

CASES = ("chain", "grid", "saturation")


def run_reference(
    *,
    cases: Sequence[str] = CASES,
    quick: bool = False,
    out: str | Path = DEFAULT_OUT,
    seeds: int | None = None,
    hops: Sequence[int] | None = None,
    stations: Sequence[int] | None = None,
) -> tuple[dict[str, Any], bool]:
    """Builds the programs, runs the selected cases; returns the report and whether all ran."""
    wifi_dir = find_wifi_dir()
    binaries = build_programs(wifi_dir)
    seeds = seeds_or_default(seeds, quick)
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []

    load_start = _load_average()
    params = collect_params(binaries["wifi_chain"])
    report: dict[str, Any] = {
        "ns3": NS3_VERSION,
        "ns3_package": NS3_REQUIREMENT,
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "quick": quick,
        "seeds": seeds,
        "environment": _environment(),
        "params": params,
    }
    if "chain" in cases:
        report["chain"] = run_chain(
            binaries["wifi_chain"],
            hops=hops or (QUICK_CHAIN_HOPS if quick else CHAIN_HOPS),
            variants=QUICK_CHAIN_VARIANTS if quick else CHAIN_VARIANTS,
            seeds=seeds,
            duration_s=QUICK_CHAIN_DURATION_S if quick else CHAIN_DURATION_S,
            errors=errors,
        )
    if "grid" in cases:
        report["grid"] = run_grid(
            binaries["wifi_grid"],
            seeds=seeds,
            duration_s=QUICK_GRID_DURATION_S if quick else GRID_DURATION_S,
            errors=errors,
        )
    if "saturation" in cases:
        report["saturation"] = run_saturation(
            binaries["wifi_saturation"],
            stations=stations or (QUICK_SAT_STATIONS if quick else SAT_STATIONS),
            modes=QUICK_SAT_MODES if quick else SAT_MODES,
            seeds=seeds,
            window_s=QUICK_SAT_WINDOW_S if quick else SAT_WINDOW_S,
            params=params,
            errors=errors,
        )
    write_outputs(report, errors, load_start, out_dir, "ns3_wifi", format_markdown)
    return report, not errors


def reference_from(report: dict[str, Any]) -> dict[str, Any]:
    """The committed reference: the report without the per-run records."""

    def strip(section: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in section.items() if k != "runs"}

    ref: dict[str, Any] = {
        "about": "ns-3 reference figures for airtcp's 802.11b model; regenerate with "
        "`python -m airtcp.bench.wifi --update-reference` (bench/wifi/README.md)",
        "ns3": report["ns3"],
        "ns3_package": report["ns3_package"],
        "date": report["date"],
        "seeds": report["seeds"],
        "machine": {
            k: report["environment"].get(k)
            for k in ("cpu", "cores", "platform", "load_average_1min")
        },
        "params": report["params"],
    }
    for case in CASES:
        if case in report:
            ref[case] = strip(report[case])
    return ref


def update_reference_file(report: dict[str, Any], cases: Sequence[str]) -> Path:
    """Rewrites `bench/wifi/ns3_reference.json` from a full reference run; a run of some cases
    only refreshes those and keeps the others. Returns the file's path."""
    target = find_wifi_dir() / REFERENCE_FILE
    reference = reference_from(report)
    if target.is_file() and set(cases) != set(CASES):
        # A partial run refreshes only its own cases and keeps the others.
        previous = json.loads(target.read_text(encoding="utf-8"))
        for case in CASES:
            if case not in reference and case in previous:
                reference[case] = previous[case]
    target.write_text(json.dumps(reference, indent=1) + "\n", encoding="utf-8")
    return target
