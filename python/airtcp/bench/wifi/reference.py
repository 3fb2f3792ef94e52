"""The ns-3 reference runs alone (`--ns3-only`, `--update-reference`): chain, grid and saturation
in ns-3 (802.11b), chain11a and saturation11a (802.11a), written to `OUT/ns3_wifi.json` and
`OUT/ns3_wifi.md`, and the committed reference file `bench/wifi/ns3_reference.json` airtcp's
tests compare against."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from airtcp.bench.harness import NS3_REQUIREMENT, NS3_VERSION
from airtcp.bench.wired import _environment

from .chain import (
    CHAIN11A_HOPS,
    CHAIN11A_RATES,
    CHAIN_DURATION_S,
    CHAIN_HOPS,
    CHAIN_VARIANTS,
    QUICK_CHAIN11A_HOPS,
    QUICK_CHAIN11A_RATES,
    QUICK_CHAIN_DURATION_S,
    QUICK_CHAIN_HOPS,
    QUICK_CHAIN_VARIANTS,
    chain11a_variants,
    run_chain,
)
from .common import DEFAULT_OUT, _load_average, seeds_or_default, write_outputs
from .grid import GRID_DURATION_S, QUICK_GRID_DURATION_S, run_grid
from .ns3 import REFERENCE_FILE, build_programs, collect_params, find_wifi_dir
from .report import format_markdown
from .saturation import (
    QUICK_SAT11A_RATES,
    QUICK_SAT_MODES,
    QUICK_SAT_STATIONS,
    QUICK_SAT_WINDOW_S,
    SAT11A_ACCESS,
    SAT11A_RATES,
    SAT_MODES,
    SAT_STATIONS,
    SAT_WINDOW_S,
    ofdm_mode,
    run_saturation,
)

CASES_11B = ("chain", "grid", "saturation")
CASES_11A = ("chain11a", "saturation11a")
CASES = CASES_11B + CASES_11A
# The reference file's record of the run as a whole; a run of 802.11a cases alone keeps the one
# of the 802.11b runs.
RUN_RECORD_KEYS = ("date", "seeds", "machine", "params")


def run_reference(
    *,
    cases: Sequence[str] = CASES,
    quick: bool = False,
    out: str | Path = DEFAULT_OUT,
    seeds: int | None = None,
    hops: Sequence[int] | None = None,
    stations: Sequence[int] | None = None,
    rates: Sequence[float] | None = None,
) -> tuple[dict[str, Any], bool]:
    """Builds the programs, runs the selected cases; returns the report and whether all ran.

    `hops` applies to both chains, `stations` to both saturation cases, `rates` (Mbps) to the
    802.11a cases (default: chains at 54 and 24, saturation at 6, 24 and 54)."""
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
    params_11a = None
    if any(case in CASES_11A for case in cases):
        params_11a = collect_params(binaries["wifi_chain"], standard="11a")
        report["params_11a"] = params_11a
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
    if "chain11a" in cases:
        report["chain11a"] = run_chain(
            binaries["wifi_chain"],
            hops=hops or (QUICK_CHAIN11A_HOPS if quick else CHAIN11A_HOPS),
            variants=chain11a_variants(
                rates or (QUICK_CHAIN11A_RATES if quick else CHAIN11A_RATES)
            ),
            seeds=seeds,
            duration_s=QUICK_CHAIN_DURATION_S if quick else CHAIN_DURATION_S,
            errors=errors,
            standard="11a",
        )
    if "saturation11a" in cases:
        report["saturation11a"] = run_saturation(
            binaries["wifi_saturation"],
            stations=stations or (QUICK_SAT_STATIONS if quick else SAT_STATIONS),
            modes=[
                ofdm_mode(r) for r in rates or (QUICK_SAT11A_RATES if quick else SAT11A_RATES)
            ],
            seeds=seeds,
            window_s=QUICK_SAT_WINDOW_S if quick else SAT_WINDOW_S,
            params=params_11a,
            errors=errors,
            standard="11a",
            access_modes=SAT11A_ACCESS,
        )
    write_outputs(report, errors, load_start, out_dir, "ns3_wifi", format_markdown)
    return report, not errors


def reference_from(report: dict[str, Any]) -> dict[str, Any]:
    """The committed reference: the report without the per-run records."""

    def strip(section: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in section.items() if k != "runs"}

    ref: dict[str, Any] = {
        "about": "ns-3 reference figures for airtcp's 802.11b and 802.11a models; regenerate "
        "with `python -m airtcp.bench.wifi --update-reference` (bench/wifi/README.md)",
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
    if "params_11a" in report:
        # 802.11a's parameters (one-hop 54 Mbps chain, node 0's device).
        ref["params_11a"] = report["params_11a"]
    for case in CASES:
        if case in report:
            ref[case] = strip(report[case])
            if case in CASES_11A:
                # 802.11a's sections are refreshed on their own: each records its run.
                ref[case] = {"date": ref["date"], "machine": ref["machine"], **ref[case]}
    return ref


def update_reference_file(report: dict[str, Any], cases: Sequence[str]) -> Path:
    """Rewrites `bench/wifi/ns3_reference.json` from a full reference run; a run of some cases
    only refreshes those and keeps the others, in the file's order. A run of 802.11a cases alone
    also keeps the file's date, machine and 802.11b parameters. Returns the file's path."""
    target = find_wifi_dir() / REFERENCE_FILE
    reference = reference_from(report)
    if target.is_file() and set(cases) != set(CASES):
        # A partial run refreshes only its own cases and keeps the others.
        previous = json.loads(target.read_text(encoding="utf-8"))
        replaced = {"about", "ns3", "ns3_package", *cases}
        if any(case in CASES_11B for case in cases):
            replaced |= set(RUN_RECORD_KEYS)
        if "params_11a" in reference:
            replaced.add("params_11a")
        merged = {
            key: reference[key] if key in replaced else value for key, value in previous.items()
        }
        for key, value in reference.items():
            if key in replaced and key not in merged:
                merged[key] = value
        reference = merged
    target.write_text(json.dumps(reference, indent=1) + "\n", encoding="utf-8")
    return target
