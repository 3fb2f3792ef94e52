"""airtcp against ns-3 in the same run: both simulators on the chain, chain11a and grid cases (ns-3
live, or its stored reference figures), airtcp alone on the scale case, compared row by row
against the targets; written to `OUT/bench_wifi.json` and `OUT/bench_wifi.md`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from airtcp.bench.wired import (
    NS3_VERSION,
    BenchError,
    _environment,
    _format_seconds,
    _log,
    _mean,
    _ratio,
    airtcp_command,
)

from .airtcp_run import airtcp_seed_runs
from .chain import (
    CHAIN11A_HOPS,
    CHAIN11A_RATES,
    CHAIN_DURATION_S,
    CHAIN_HOPS,
    CHAIN_VARIANTS,
    QUICK_CHAIN_DURATION_S,
    airtcp_chain_sets,
    chain11a_variants,
    ns3_chain_figures,
    rate_variant,
    run_chain,
)
from .common import (
    DEFAULT_OUT,
    GOODPUT_TOLERANCE,
    SPEED_TARGET,
    _kbps,
    _load_average,
    _round,
    seeds_or_default,
    write_outputs,
)
from .grid import (
    GRID_DURATION_S,
    QUICK_GRID_DURATION_S,
    grid_flow_rows,
    grid_pairs,
    ns3_grid_figures,
    run_grid,
)
from .ns3 import REFERENCE_FILE, build_programs, find_wifi_dir, load_reference
from .report import format_bench_markdown
from .scale import (
    QUICK_SCALE_DURATION_S,
    SCALE_RSS_TARGET_BYTES,
    SCALE_WALL_TARGET_S,
    run_scale,
)
from .templates import BENCH_CASES, BENCH_TEMPLATES, check_templates

QUICK_BENCH_HOPS = (3, 6)
# 802.11a in a quick run: 1 and 3 hops at 54 Mbps.
QUICK_BENCH_HOPS_11A = (1, 3)
QUICK_BENCH_RATES_11A = (54,)


def compare(
    case: str, airtcp_runs: list[dict[str, Any]], ns3: dict[str, Any] | None
) -> dict[str, Any]:
    """One row of the table: goodput of each (mean over seeds), ratio, and the cost of each.

    Wall times are means per run; the speed ratio is ns-3's simulation loop (`Simulator::Run()`)
    over airtcp's (`timing.json` `wall_s`), the command ratio the same for whole commands.
    """
    ns3 = ns3 or {}
    goodputs = [_kbps(r["goodput_bps"]) for r in airtcp_runs]
    a_kbps = _mean(goodputs)
    n_kbps = ns3.get("goodput_kbps")
    a_sim = _mean(r.get("sim_wall_s") for r in airtcp_runs)
    a_cmd = _mean(r.get("cmd_wall_s") for r in airtcp_runs)
    ratio = _ratio(a_kbps, n_kbps)
    speed = _ratio(ns3.get("sim_wall_s"), a_sim)
    return {
        "case": case,
        "goodput_airtcp_kbps": _round(a_kbps, 2),
        "goodput_ns3_kbps": _round(n_kbps, 2),
        "goodput_airtcp_kbps_per_seed": [_round(g, 2) for g in goodputs],
        "goodput_ns3_kbps_per_seed": [_round(g, 2) for g in ns3.get("goodput_kbps_per_seed", [])],
        "goodput_ratio": _round(ratio, 4),
        "sim_wall_airtcp_s": _round(a_sim, 4),
        "sim_wall_ns3_s": _round(ns3.get("sim_wall_s"), 3),
        "speed_ratio": _round(speed, 1),
        "cmd_wall_airtcp_s": _round(a_cmd, 3),
        "cmd_wall_ns3_s": _round(ns3.get("cmd_wall_s"), 3),
        "cmd_ratio": _round(_ratio(ns3.get("cmd_wall_s"), a_cmd), 2),
        "cmd_cpu_airtcp_s": _round(_mean(r.get("cmd_cpu_s") for r in airtcp_runs), 3),
        "cmd_cpu_ns3_s": _round(ns3.get("cmd_cpu_s"), 3),
        "events_airtcp": _round(_mean(r.get("events") for r in airtcp_runs), 0),
        "events_ns3": ns3.get("events"),
        "peak_rss_airtcp_kib": max((r.get("peak_rss_kib") or 0 for r in airtcp_runs), default=None),
        "peak_rss_ns3_kib": ns3.get("peak_rss_kib"),
        "goodput_ok": None if ratio is None else abs(ratio - 1) <= GOODPUT_TOLERANCE,
        "speed_ok": None if speed is None else speed >= SPEED_TARGET,
    }


def run_benchmark(
    *,
    cases: Sequence[str] = BENCH_CASES,
    quick: bool = False,
    out: str | Path = DEFAULT_OUT,
    seeds: int | None = None,
    hops: Sequence[int] | None = None,
    rates: Sequence[float] | None = None,
    ns3_from_reference: bool = False,
) -> tuple[dict[str, Any], bool]:
    """airtcp and ns-3 on the chain, chain11a and grid cases, airtcp alone on the scale case.

    ns-3 runs in the same benchmark run unless `ns3_from_reference`, which takes its figures from
    `bench/wifi/ns3_reference.json` instead (100 s runs, seeds 1-3; airtcp then runs 100 s too).
    `hops` applies to both chains (default 1..8 for 802.11b, 1..4 for 802.11a), `rates` (Mbps)
    to the 802.11a chain (default 54 and 24). Returns the report and whether every run
    succeeded.
    """
    wifi_dir = find_wifi_dir()
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    seeds = seeds_or_default(seeds, quick)
    hops_11a = list(hops or (QUICK_BENCH_HOPS_11A if quick else CHAIN11A_HOPS))
    hops = list(hops or (QUICK_BENCH_HOPS if quick else CHAIN_HOPS))
    rates = list(rates or (QUICK_BENCH_RATES_11A if quick else CHAIN11A_RATES))
    errors: list[str] = []

    problems = check_templates(wifi_dir, cases)
    for problem in problems:
        _log(f"warning: {problem}")

    reference: dict[str, Any] | None = None
    binaries: dict[str, Path] = {}
    if ns3_from_reference:
        reference = load_reference(wifi_dir)
        stored = int(reference.get("seeds") or 0)
        if seeds > stored:
            raise BenchError(
                f"the reference holds seeds 1..{stored}; --seeds {seeds} needs live ns-3"
            )
        chain_duration = float(reference["chain"]["settings"]["duration_s"])
        grid_duration = float(reference["grid"]["settings"]["duration_s"])
        missing = [n for n in hops if ns3_chain_figures(reference["chain"], n, seeds) is None]
        if "chain" in cases and missing:
            raise BenchError(f"the reference has no chain of {missing} hops")
        if "chain11a" in cases:
            if "chain11a" not in reference:
                raise BenchError("the reference has no 802.11a chain (chain11a)")
            if float(reference["chain11a"]["settings"]["duration_s"]) != chain_duration:
                raise BenchError("the reference's 802.11a and 802.11b chains differ in duration")
            missing = [
                f"{n} hops at {r:g} Mbps"
                for r in rates
                for n in hops_11a
                if ns3_chain_figures(reference["chain11a"], n, seeds, rate_variant(r)) is None
            ]
            if missing:
                raise BenchError(f"the reference has no 802.11a chain of {', '.join(missing)}")
        if reference["grid"]["settings"]["pairs"] != [list(p) for p in grid_pairs()]:
            raise BenchError("the reference's grid pairs are not the ones airtcp_grid.yaml uses")
    else:
        chain_duration = QUICK_CHAIN_DURATION_S if quick else CHAIN_DURATION_S
        grid_duration = QUICK_GRID_DURATION_S if quick else GRID_DURATION_S
        if any(case in cases for case in ("chain", "chain11a", "grid")):
            binaries = build_programs(wifi_dir)

    command = airtcp_command()
    load_start = _load_average()
    report: dict[str, Any] = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "quick": quick,
        "seeds": list(range(1, seeds + 1)),
        "ns3": NS3_VERSION,
        "ns3_source": "reference" if reference else "live",
        "environment": _environment(),
        "airtcp_command": command,
        "templates": {case: f"bench/wifi/{BENCH_TEMPLATES[case]}" for case in cases},
        "template_problems": problems,
        "targets": {
            "goodput_tolerance": GOODPUT_TOLERANCE,
            "speed_min": SPEED_TARGET,
            "scale_wall_s": SCALE_WALL_TARGET_S,
            "scale_peak_rss_bytes": SCALE_RSS_TARGET_BYTES,
        },
        "rows": [],
    }
    if reference:
        report["reference"] = {
            "file": f"bench/wifi/{REFERENCE_FILE}",
            "date": reference.get("date"),
            "seeds": reference.get("seeds"),
            "machine": reference.get("machine"),
        }

    if "chain" in cases:
        if reference:
            ns3_chain = reference["chain"]
        else:
            ns3_chain = run_chain(
                binaries["wifi_chain"],
                hops=hops,
                variants=CHAIN_VARIANTS[:1],
                seeds=seeds,
                duration_s=chain_duration,
                errors=errors,
            )
        airtcp_runs = {}
        for n in hops:
            runs = airtcp_seed_runs(
                command,
                wifi_dir / BENCH_TEMPLATES["chain"],
                out_dir / "runs" / f"chain-{n}",
                f"airtcp chain N={n}",
                seeds=seeds,
                sets=airtcp_chain_sets(n, chain_duration),
                errors=errors,
            )
            airtcp_runs[str(n)] = runs
            report["rows"].append(
                compare(f"chain {n}", runs, ns3_chain_figures(ns3_chain, n, seeds))
            )
        report["chain"] = {
            "duration_s": chain_duration,
            "hops": hops,
            "airtcp_runs": airtcp_runs,
            # Live: every ns-3 run; from the reference: its summary rows.
            "ns3": ns3_chain,
        }

    if "chain11a" in cases:
        if reference:
            ns3_chain11a = reference["chain11a"]
        else:
            ns3_chain11a = run_chain(
                binaries["wifi_chain"],
                hops=hops_11a,
                variants=chain11a_variants(rates),
                seeds=seeds,
                duration_s=chain_duration,
                errors=errors,
                standard="11a",
            )
        airtcp_runs = {}
        for rate in rates:
            for n in hops_11a:
                runs = airtcp_seed_runs(
                    command,
                    wifi_dir / BENCH_TEMPLATES["chain11a"],
                    out_dir / "runs" / f"chain11a-{rate:g}M-{n}",
                    f"airtcp chain 802.11a {rate:g} Mbps N={n}",
                    seeds=seeds,
                    sets=airtcp_chain_sets(n, chain_duration, rate_mbps=rate),
                    errors=errors,
                )
                airtcp_runs[f"{rate_variant(rate)} {n}"] = runs
                report["rows"].append(
                    compare(
                        f"11a {rate:g}M chain {n}",
                        runs,
                        ns3_chain_figures(ns3_chain11a, n, seeds, rate_variant(rate)),
                    )
                )
        report["chain11a"] = {
            "duration_s": chain_duration,
            "hops": hops_11a,
            "rates_mbps": rates,
            "airtcp_runs": airtcp_runs,
            "ns3": ns3_chain11a,
        }

    if "grid" in cases:
        if reference:
            ns3_grid = reference["grid"]
        else:
            ns3_grid = run_grid(
                binaries["wifi_grid"], seeds=seeds, duration_s=grid_duration, errors=errors
            )
        runs = airtcp_seed_runs(
            command,
            wifi_dir / BENCH_TEMPLATES["grid"],
            out_dir / "runs" / "grid",
            "airtcp grid",
            seeds=seeds,
            sets=[f"duration={_format_seconds(grid_duration)}"],
            errors=errors,
        )
        figures = ns3_grid_figures(ns3_grid, seeds) if ns3_grid.get("flows") else None
        report["rows"].append(compare("grid total", runs, figures))
        report["grid"] = {
            "duration_s": grid_duration,
            "flows": grid_flow_rows(runs, figures),
            "airtcp_runs": runs,
            "ns3": ns3_grid,
        }

    if "scale" in cases:
        report["scale"] = run_scale(
            command,
            wifi_dir,
            out_dir,
            duration_s=QUICK_SCALE_DURATION_S if quick else None,
            errors=errors,
        )

    write_outputs(report, errors, load_start, out_dir, "bench_wifi", format_bench_markdown)
    return report, not errors
