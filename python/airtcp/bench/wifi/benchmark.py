"""airtcp against ns-3 in the same run: both simulators on the chain, chain11a and grid cases (ns-3
live, or its stored reference figures), airtcp alone on the scale case, compared row by row
against the targets; written to `OUT/bench_wifi.json` and `OUT/bench_wifi.md`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from airtcp.bench.ab import AbError, build_baseline
from airtcp.bench.harness import NS3_VERSION, BenchError, log
from airtcp.bench.wired import _environment, _mean, _ratio, airtcp_command

from .airtcp_run import airtcp_seed_runs
from .chain import (
    CHAIN11A_HOPS,
    CHAIN11A_RATES,
    CHAIN_DURATION_S,
    CHAIN_HOPS,
    DEFAULT_RECOVERY,
    QUICK_CHAIN_DURATION_S,
    RECOVERIES,
    airtcp_chain_sets,
    chain11a_variants,
    chain_variant,
    ns3_chain_figures,
    rate_variant,
    run_chain,
    variant_recovery,
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
    airtcp_grid_sets,
    grid_flow_rows,
    grid_pairs,
    ns3_grid_figures,
    run_grid,
)
from .ns3 import REFERENCE_FILE, build_programs, find_wifi_dir, load_reference
from .report import format_bench_markdown
from .scale import (
    DEFAULT_SCALE_SIZES,
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


class _Bench:
    """What every case of one benchmark run shares: where it writes, how it runs airtcp, the
    seeds, ns-3's programs or stored reference, and the errors met so far."""

    # A plain class: `dataclasses` imports `inspect`, milliseconds of every command.
    __slots__ = (
        "binaries", "command", "errors", "out_dir", "recovery", "reference", "seeds", "wifi_dir"
    )

    def __init__(
        self,
        wifi_dir: Path,
        out_dir: Path,
        seeds: int,
        reference: dict[str, Any] | None,
        recovery: str = DEFAULT_RECOVERY,
    ):
        self.wifi_dir = wifi_dir
        self.out_dir = out_dir
        self.seeds = seeds
        self.reference = reference
        # TCP loss recovery in both simulators: ns-3's --recovery, airtcp's flows[].transport.
        self.recovery = recovery
        self.binaries: dict[str, Path] = {}
        self.command = airtcp_command()
        self.errors: list[str] = []

    def airtcp_runs(self, case: str, folder: str, label: str, sets: list[str]) -> Any:
        return airtcp_seed_runs(
            self.command,
            self.wifi_dir / BENCH_TEMPLATES[case],
            self.out_dir / "runs" / folder,
            label,
            seeds=self.seeds,
            sets=sets,
            errors=self.errors,
        )


def run_benchmark(
    *,
    cases: Sequence[str] = BENCH_CASES,
    quick: bool = False,
    out: str | Path = DEFAULT_OUT,
    seeds: int | None = None,
    hops: Sequence[int] | None = None,
    rates: Sequence[float] | None = None,
    ns3_from_reference: bool = False,
    recovery: str = DEFAULT_RECOVERY,
    scale_sizes: Sequence[int] | None = None,
    scale_baseline: str | None = None,
) -> tuple[dict[str, Any], bool]:
    """airtcp and ns-3 on the chain, chain11a and grid cases, airtcp alone on the scale case.

    ns-3 runs in the same benchmark run unless `ns3_from_reference`, which takes its figures from
    `bench/wifi/ns3_reference.json` instead (100 s runs, seeds 1-3; airtcp then runs 100 s too).
    `hops` applies to both chains (default 1..8 for 802.11b, 1..4 for 802.11a), `rates` (Mbps)
    to the 802.11a chain (default 54 and 24). `recovery` is TCP's loss recovery in both
    simulators: `prr` (ns-3's default; the templates' `recovery: prr`) or `classic` (ns-3's
    TcpClassicRecovery; airtcp's flows overridden to `recovery: classic`); the scale case runs
    its template as it is, at each of `scale_sizes` (nodes; default 10,000), and with
    `scale_baseline` (a git revision) also with that revision's core. Returns the report and
    whether every run succeeded.
    """
    if recovery not in RECOVERIES:
        raise BenchError(f"recovery must be one of {', '.join(RECOVERIES)}, not {recovery!r}")
    wifi_dir = find_wifi_dir()
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    seeds = seeds_or_default(seeds, quick)
    hops_11a = list(hops or (QUICK_BENCH_HOPS_11A if quick else CHAIN11A_HOPS))
    hops = list(hops or (QUICK_BENCH_HOPS if quick else CHAIN_HOPS))
    rates = list(rates or (QUICK_BENCH_RATES_11A if quick else CHAIN11A_RATES))

    problems = check_templates(wifi_dir, cases)
    for problem in problems:
        log(f"warning: {problem}")

    reference = load_reference(wifi_dir) if ns3_from_reference else None
    if reference is not None:
        _check_reference(reference, cases, seeds, hops, hops_11a, rates, recovery)
        chain_duration = float(reference["chain"]["settings"]["duration_s"])
        grid_duration = float(reference["grid"]["settings"]["duration_s"])
    else:
        chain_duration = QUICK_CHAIN_DURATION_S if quick else CHAIN_DURATION_S
        grid_duration = QUICK_GRID_DURATION_S if quick else GRID_DURATION_S
    bench = _Bench(wifi_dir, out_dir, seeds, reference, recovery)
    if reference is None and any(case in cases for case in ("chain", "chain11a", "grid")):
        bench.binaries = build_programs(wifi_dir)

    load_start = _load_average()
    report = _report_head(bench, cases, quick, problems)
    if "chain" in cases:
        report["chain"] = _chain(bench, report["rows"], hops, chain_duration)
    if "chain11a" in cases:
        report["chain11a"] = _chain11a(bench, report["rows"], hops_11a, rates, chain_duration)
    if "grid" in cases:
        report["grid"] = _grid(bench, report["rows"], grid_duration)
    if "scale" in cases:
        baseline = None
        if scale_baseline is not None:
            try:
                built = build_baseline(wifi_dir.parent.parent, scale_baseline, out_dir / "baseline")
            except AbError as error:
                raise BenchError(f"--scale-baseline: {error}") from None
            baseline = (built.label, built.command())
        report["scale"] = [
            run_scale(
                bench.command,
                wifi_dir,
                out_dir,
                duration_s=QUICK_SCALE_DURATION_S if quick else None,
                errors=bench.errors,
                nodes=nodes,
                baseline=baseline,
            )
            for nodes in (scale_sizes or DEFAULT_SCALE_SIZES)
        ]

    write_outputs(report, bench.errors, load_start, out_dir, "bench_wifi", format_bench_markdown)
    return report, not bench.errors


def _check_reference(
    reference: dict[str, Any], cases: Sequence[str], seeds: int, hops: list[int], hops_11a: list[int],
    rates: list[float], recovery: str = DEFAULT_RECOVERY,
) -> None:
    """The stored ns-3 reference holds every run the benchmark asks of it, with `recovery`."""
    stored = int(reference.get("seeds") or 0)
    if seeds > stored:
        raise BenchError(f"the reference holds seeds 1..{stored}; --seeds {seeds} needs live ns-3")
    chain_duration = float(reference["chain"]["settings"]["duration_s"])
    variant = chain_variant(recovery).name
    missing = [n for n in hops if ns3_chain_figures(reference["chain"], n, seeds, variant) is None]
    if "chain" in cases and missing:
        raise BenchError(f"the reference has no chain of {missing} hops with {recovery} recovery")
    if "chain11a" in cases:
        if "chain11a" not in reference:
            raise BenchError("the reference has no 802.11a chain (chain11a)")
        if float(reference["chain11a"]["settings"]["duration_s"]) != chain_duration:
            raise BenchError("the reference's 802.11a and 802.11b chains differ in duration")
        missing_11a = [
            f"{n} hops at {r:g} Mbps"
            for r in rates
            for n in hops_11a
            if ns3_chain_figures(reference["chain11a"], n, seeds, rate_variant(r)) is None
        ]
        if missing_11a:
            raise BenchError(f"the reference has no 802.11a chain of {', '.join(missing_11a)}")
        stored_11a = {variant_recovery(reference["chain11a"], rate_variant(r)) for r in rates}
        if stored_11a != {recovery}:
            raise BenchError(
                f"the reference's 802.11a chains ran with {', '.join(map(str, stored_11a))} "
                f"recovery; --recovery {recovery} needs live ns-3"
            )
    if "grid" in cases:
        if reference["grid"]["settings"]["pairs"] != [list(p) for p in grid_pairs()]:
            raise BenchError("the reference's grid pairs are not the ones airtcp_grid.yaml uses")
        stored_grid = reference["grid"]["settings"].get("recovery")
        if stored_grid != recovery:
            raise BenchError(
                f"the reference's grid ran with {stored_grid} recovery; --recovery {recovery} "
                "needs live ns-3"
            )


def _report_head(bench: _Bench, cases: Sequence[str], quick: bool, problems: list[str]) -> dict[str, Any]:
    """The report's settings, before any case has run."""
    reference = bench.reference
    report: dict[str, Any] = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "quick": quick,
        "seeds": list(range(1, bench.seeds + 1)),
        "ns3": NS3_VERSION,
        "ns3_source": "reference" if reference else "live",
        # TCP's loss recovery in both simulators (the scale case runs its template's).
        "recovery": bench.recovery,
        "environment": _environment(),
        "airtcp_command": bench.command,
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
    return report


def _ns3_chain(bench: _Bench, key: str, hops: list[int], variants: Any, duration: float, **options: Any) -> Any:
    """ns-3's chain runs: from the stored reference, or run now."""
    if bench.reference:
        return bench.reference[key]
    return run_chain(
        bench.binaries["wifi_chain"],
        hops=hops,
        variants=variants,
        seeds=bench.seeds,
        duration_s=duration,
        errors=bench.errors,
        **options,
    )


def _chain(bench: _Bench, rows: list[Any], hops: list[int], duration: float) -> dict[str, Any]:
    """The 802.11b chain of each length, airtcp beside ns-3; its rows join `rows`."""
    variant = chain_variant(bench.recovery)
    ns3_chain = _ns3_chain(bench, "chain", hops, (variant,), duration)
    airtcp_runs = {}
    for n in hops:
        sets = airtcp_chain_sets(n, duration, recovery=bench.recovery)
        runs = bench.airtcp_runs("chain", f"chain-{n}", f"airtcp chain N={n}", sets)
        airtcp_runs[str(n)] = runs
        figures = ns3_chain_figures(ns3_chain, n, bench.seeds, variant.name)
        rows.append(compare(f"chain {n}", runs, figures))
    return {
        "duration_s": duration,
        "hops": hops,
        "ns3_variant": variant.name,
        "airtcp_runs": airtcp_runs,
        # Live: every ns-3 run; from the reference: its summary rows.
        "ns3": ns3_chain,
    }


def _chain11a(
    bench: _Bench, rows: list[Any], hops: list[int], rates: list[float], duration: float
) -> dict[str, Any]:
    """The 802.11a chain of each length at each rate, airtcp beside ns-3."""
    variants = chain11a_variants(rates, bench.recovery)
    ns3_chain11a = _ns3_chain(bench, "chain11a", hops, variants, duration, standard="11a")
    airtcp_runs = {}
    for rate in rates:
        for n in hops:
            runs = bench.airtcp_runs(
                "chain11a",
                f"chain11a-{rate:g}M-{n}",
                f"airtcp chain 802.11a {rate:g} Mbps N={n}",
                airtcp_chain_sets(n, duration, rate_mbps=rate, recovery=bench.recovery),
            )
            airtcp_runs[f"{rate_variant(rate)} {n}"] = runs
            figures = ns3_chain_figures(ns3_chain11a, n, bench.seeds, rate_variant(rate))
            rows.append(compare(f"11a {rate:g}M chain {n}", runs, figures))
    return {
        "duration_s": duration,
        "hops": hops,
        "rates_mbps": rates,
        "airtcp_runs": airtcp_runs,
        "ns3": ns3_chain11a,
    }


def _grid(bench: _Bench, rows: list[Any], duration: float) -> dict[str, Any]:
    """The 802.11b grid with its flows, airtcp beside ns-3."""
    if bench.reference:
        ns3_grid = bench.reference["grid"]
    else:
        ns3_grid = run_grid(
            bench.binaries["wifi_grid"],
            seeds=bench.seeds,
            duration_s=duration,
            errors=bench.errors,
            recovery=bench.recovery,
        )
    runs = bench.airtcp_runs("grid", "grid", "airtcp grid", airtcp_grid_sets(duration, bench.recovery))
    figures = ns3_grid_figures(ns3_grid, bench.seeds) if ns3_grid.get("flows") else None
    rows.append(compare("grid total", runs, figures))
    return {
        "duration_s": duration,
        "flows": grid_flow_rows(runs, figures),
        "airtcp_runs": runs,
        "ns3": ns3_grid,
    }
