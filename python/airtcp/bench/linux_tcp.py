"""Linux TCP pieces against ns-3 3.44: BBR v1, PRR and Cubic's HyStart.

Three groups of cases, each airtcp against ns-3 3.44 configured alike (bench/README.md, "Linux
TCP pieces against ns-3"):

- `bbr`: TcpBbr (paced) on the wired case of `bench/p2p_bench.yaml` (2 Mbps / 20 ms, 100-packet
  drop-tail queue, PER 0 to 0.05, 200 s) and on the 802.11b chain of `bench/wifi/` (3 and 5 hops,
  100 s); airtcp `cc: bbr`;
- `prr`: NewReno/SACK with ns-3's TcpPrrRecovery on the same cases; airtcp `recovery: prr`;
- `hystart`: TcpCubic with and without HyStart on the wired case at PER 0 and 0.01; airtcp
  `cubic: {hystart: ns3}` (ns-3's own HyStart thresholds) and `{hystart: none}`.

ns-3's side comes from the stored reference `bench/ns3/linux_tcp_reference.json` (5 seeds per
case, made by `--update-reference`), or is run now with `--live`. airtcp runs seeds 1..N (one
short seed with `--quick`, which needs no ns-3 at all). A case whose airtcp setting this airtcp
does not accept yet is skipped with a note. The report is a table (markdown and JSON) of mean
goodputs, their ratio and whether it is within 10 %, and per case a plot of cwnd and RTT over
the first 30 s of seed 1 in both simulators. A missed target is reported, not an error: the exit
code is non-zero only when a run failed (1) or an option was wrong (2).

    python -m airtcp.bench.linux_tcp [--quick] [--live] [--cases bbr,prr,hystart] [--seeds N]
    python -m airtcp.bench.cc --linux [same options]          (make bench-cc BENCH_ARGS=--linux)
    python -m airtcp.bench.linux_tcp --update-reference      (ns-3 only; rewrites the reference)
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from airtcp.bench.harness import NS3_REQUIREMENT, BenchError, NotACheckout, find_bench_dir, log
from airtcp.bench.tables import cell, markdown_table

__all__ = [
    "CASES",
    "Case",
    "compare_row",
    "format_markdown",
    "load_reference",
    "main",
    "sample_and_hold",
    "select_cases",
    "unsupported_reason",
    "validate_reference",
]

REFERENCE_FILE = "linux_tcp_reference.json"  # under bench/ns3/
DEFAULT_OUT = "bench/out/linux_tcp"

PERS = (0.0, 0.005, 0.01, 0.02, 0.05)
HYSTART_PERS = (0.0, 0.01)
CHAIN_HOPS = (3, 5)
P2P_DURATION_S = 200.0
CHAIN_DURATION_S = 100.0
QUICK_DURATION_S = 20.0
SEEDS = 5
TARGET = 0.10

# The traces kept and plotted: seed 1, values every 100 ms over the first 30 s.
TRACE_SEED = 1
TRACE_INTERVAL_S = 0.1
TRACE_UNTIL_S = 30.0
# What airtcp records for them (its cwnd sampler runs every trace_interval; RTT is every sample).
AIRTCP_TRACE_SETS = (
    "metrics.trace_cwnd=true",
    "metrics.trace_rtt=true",
    "metrics.trace_interval=100ms",
)

GROUPS = ("bbr", "prr", "hystart")


@dataclass(frozen=True)
class Case:
    """One comparison: a topology, ns-3's arguments and airtcp's `--set` overrides."""

    name: str
    group: str  # one of GROUPS
    topology: str  # "p2p" (bench/p2p_bench.yaml) or "chain" (bench/wifi/airtcp_chain.yaml)
    what: str
    ns3_recovery: str  # p2p_tcp / wifi_chain --recovery
    ns3_args: tuple[str, ...]
    airtcp_sets: tuple[str, ...]
    per: float = 0.0  # p2p only
    hops: int = 0  # chain only

    @property
    def duration_s(self) -> float:
        """The reference's simulated time for this case."""
        return P2P_DURATION_S if self.topology == "p2p" else CHAIN_DURATION_S


def _cases() -> tuple[Case, ...]:
    # BBR: ns-3's default recovery (TcpPrrRecovery), which TcpSocketBase does not even call with
    # TcpBbr, as it sets cwnd itself (HasCongControl): classic gives the same runs.
    bbr_ns3 = ("--cc=bbr",)
    bbr_sets = ("flows[0].transport.cc=bbr",)
    prr_sets = ("flows[0].transport.recovery=prr",)
    cases: list[Case] = []
    for per in PERS:
        cases.append(
            Case(f"bbr-p2p-per{per:g}", "bbr", "p2p", f"BBR v1, p2p PER {per:g}", "prr",
                 bbr_ns3, bbr_sets, per=per)
        )
    for hops in CHAIN_HOPS:
        cases.append(
            Case(f"bbr-chain-{hops}hops", "bbr", "chain", f"BBR v1, 802.11b chain {hops} hops",
                 "prr", bbr_ns3, bbr_sets, hops=hops)
        )
    for per in PERS:
        cases.append(
            Case(f"prr-p2p-per{per:g}", "prr", "p2p", f"NewReno+SACK with PRR, p2p PER {per:g}",
                 "prr", (), prr_sets, per=per)
        )
    for hops in CHAIN_HOPS:
        cases.append(
            Case(f"prr-chain-{hops}hops", "prr", "chain",
                 f"NewReno+SACK with PRR, 802.11b chain {hops} hops", "prr", (), prr_sets,
                 hops=hops)
        )
    # Cubic against ns-3's classic recovery, as the congestion-control benchmark (cc.py) ran it
    # until it moved to PRR on both sides: the row without HyStart at PER 0.01 is that
    # benchmark's classic Cubic row (ns-3 1684.7 kbit/s).
    for per in HYSTART_PERS:
        for on in (True, False):
            tag = "hystart" if on else "nohystart"
            cases.append(
                Case(f"cubic-{tag}-p2p-per{per:g}", "hystart", "p2p",
                     f"Cubic {'with' if on else 'without'} HyStart, p2p PER {per:g}", "classic",
                     ("--cc=cubic", f"--hystart={int(on)}"),
                     # ns-3's TcpCubic takes ssthresh from cwnd (cwnd x beta), not the pipe.
                     ("flows[0].transport.cc=cubic", "flows[0].transport.ssthresh_basis=cwnd",
                      f"flows[0].transport.cubic.hystart={'ns3' if on else 'none'}"),
                     per=per)
            )
    return tuple(cases)


CASES = _cases()


def select_cases(spec: str | None) -> list[Case]:
    """The cases of a `--cases` value: comma-separated groups and case names (all if None);
    raises ValueError naming the unknown ones."""
    if not spec:
        return list(CASES)
    wanted = [item.strip() for item in spec.split(",") if item.strip()]
    names = {case.name for case in CASES}
    unknown = [item for item in wanted if item not in GROUPS and item not in names]
    if unknown:
        raise ValueError(f"unknown {', '.join(unknown)} (groups: {', '.join(GROUPS)}, or case names)")
    return [case for case in CASES if case.group in wanted or case.name in wanted]


# --------------------------------------------------------------------------------------------
# Traces


def sample_and_hold(
    times: Sequence[float],
    values: Sequence[float],
    interval_s: float = TRACE_INTERVAL_S,
    until_s: float = TRACE_UNTIL_S,
) -> list[float | None]:
    """The value in force at t = 0, interval, 2 interval, ..., until (inclusive): the last one
    recorded at or before each time (None before the first), as airtcp's cwnd sampler reads it.

    ns-3 reports a traced value when it changes, so the value in force is the last report; the
    same rule on both simulators' RTT samples keeps their plots comparable."""
    pairs = sorted(zip(times, values), key=lambda pair: pair[0])
    points = int(round(until_s / interval_s)) + 1
    out: list[float | None] = []
    index, current = 0, None
    for k in range(points):
        t = k * interval_s + 1e-9  # a sample at exactly the grid time counts
        while index < len(pairs) and pairs[index][0] <= t:
            current = pairs[index][1]
            index += 1
        out.append(current)
    return out


def _rounded(values: Iterable[float | None], digits: int) -> list[float | None]:
    return [None if v is None else round(float(v), digits) for v in values]


def ns3_trace(path: Path, until_s: float = TRACE_UNTIL_S) -> dict[str, list[float | None]]:
    """The downsampled trace of a `--trace` CSV: cwnd (segments), rtt_s and, when present (BBR),
    pacing_bps."""
    series: dict[str, tuple[list[float], list[float]]] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            times, values = series.setdefault(row["kind"], ([], []))
            times.append(float(row["t_s"]))
            values.append(float(row["value"]))
    if "cwnd" not in series or "rtt" not in series:
        raise BenchError(f"{path} has no cwnd or rtt rows")
    trace = {
        "cwnd": _rounded(sample_and_hold(*series["cwnd"], until_s=until_s), 3),
        "rtt_s": _rounded(sample_and_hold(*series["rtt"], until_s=until_s), 6),
    }
    if "pacing_bps" in series:
        trace["pacing_bps"] = _rounded(sample_and_hold(*series["pacing_bps"], until_s=until_s), 0)
    return trace


def _run_record(seed: int, duration_s: float, result: dict[str, Any], recoveries: Any, rtos: Any) -> dict[str, Any]:
    """What the report keeps of one run of either simulator."""
    return {
        "seed": seed,
        "duration_s": duration_s,
        "goodput_kbps": float(result["goodput_bps"]) / 1e3,
        "recoveries": recoveries,
        "rtos": rtos,
        "sim_wall_s": result.get("sim_wall_s"),
        "cmd_wall_s": result.get("cmd_wall_s"),
    }


def airtcp_trace(out_dir: Path, until_s: float = TRACE_UNTIL_S) -> dict[str, list[float | None]]:
    """The same downsampled trace from an airtcp run's cwnd.parquet and rtt.parquet."""
    import pyarrow.parquet as pq

    def columns(name: str, value: str) -> tuple[list[float], list[float]]:
        path = out_dir / f"{name}.parquet"
        if not path.is_file():
            raise BenchError(f"airtcp wrote no {path.name} in {out_dir}")
        table = pq.read_table(path).to_pydict()
        flows = table.get("flow") or []
        first = flows[0] if flows else None
        keep = [i for i, flow in enumerate(flows) if flow == first]
        return [table["t_s"][i] for i in keep], [table[value][i] for i in keep]

    return {
        "cwnd": _rounded(sample_and_hold(*columns("cwnd", "cwnd"), until_s=until_s), 3),
        "rtt_s": _rounded(sample_and_hold(*columns("rtt", "rtt_s"), until_s=until_s), 6),
    }


# --------------------------------------------------------------------------------------------
# The stored reference


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def validate_reference(reference: Any, cases: Sequence[Case] = CASES) -> list[str]:
    """What is wrong with a reference (empty when nothing): every case of `cases` present, its
    per-seed goodputs numbers whose mean is the stored mean, its seed-1 trace on the stored
    grid."""
    if not isinstance(reference, dict):
        return ["the reference is not a JSON object"]
    problems = [
        f"missing {key!r}"
        for key in ("ns3", "settings", "trace", "cases", "batches")
        if key not in reference
    ]
    if problems:
        return problems
    grid = reference["trace"]
    try:
        points = int(round(float(grid["until_s"]) / float(grid["interval_s"]))) + 1
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return ["trace: needs numeric interval_s and until_s"]
    stored = reference["cases"]
    if not isinstance(stored, dict):
        return ["cases: not an object"]
    for case in cases:
        entry = stored.get(case.name)
        if not isinstance(entry, dict):
            problems.append(f"{case.name}: missing")
            continue
        per_seed = entry.get("goodput_kbps_per_seed")
        seeds = entry.get("seeds")
        if not isinstance(per_seed, list) or not per_seed or not all(map(_is_number, per_seed)):
            problems.append(f"{case.name}: goodput_kbps_per_seed is not a list of numbers")
            continue
        if not isinstance(seeds, list) or len(seeds) != len(per_seed):
            problems.append(f"{case.name}: seeds and goodput_kbps_per_seed differ in length")
        mean = entry.get("goodput_kbps")
        if not _is_number(mean) or abs(mean - statistics.fmean(per_seed)) > 0.05:
            problems.append(f"{case.name}: goodput_kbps is not the mean of its seeds")
        if entry.get("ns3_args") != list(case.ns3_args) or entry.get("ns3_recovery") != case.ns3_recovery:
            problems.append(f"{case.name}: stored with other ns-3 arguments than the case has")
        trace = entry.get("trace_seed1")
        if not isinstance(trace, dict):
            problems.append(f"{case.name}: trace_seed1 missing")
            continue
        for key in ("cwnd", "rtt_s"):
            series = trace.get(key)
            if not isinstance(series, list) or len(series) != points:
                problems.append(f"{case.name}: trace_seed1.{key} does not have {points} points")
            elif not all(v is None or _is_number(v) for v in series):
                problems.append(f"{case.name}: trace_seed1.{key} holds a value that is no number")
    return problems


def reference_path(bench_dir: Path) -> Path:
    return bench_dir / "ns3" / REFERENCE_FILE


def load_reference(path: Path, cases: Sequence[Case] = CASES) -> dict[str, Any]:
    """The stored reference, checked by `validate_reference` for `cases`; BenchError if it
    cannot be read or is not right."""
    try:
        reference = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise BenchError(f"cannot read the ns-3 reference {path}: {error}") from error
    problems = validate_reference(reference, cases)
    if problems:
        raise BenchError(f"{path}: " + "; ".join(problems[:5]))
    return reference


# --------------------------------------------------------------------------------------------
# Running one case


@dataclass
class Runner:
    """What running cases needs: the bench folder, airtcp's command and, once built, ns-3's two
    programs."""

    bench_dir: Path
    airtcp: list[str]
    binaries: dict[str, Path] | None = None

    def ns3_binaries(self) -> dict[str, Path]:
        if self.binaries is None:
            from airtcp.bench.harness import build_ns3
            from airtcp.bench.wifi.ns3 import build_program

            self.binaries = {
                "p2p": build_ns3(self.bench_dir),
                "chain": build_program("wifi_chain", self.bench_dir / "wifi"),
            }
        return self.binaries

    def scenario(self, case: Case) -> Path:
        if case.topology == "p2p":
            return self.bench_dir / "p2p_bench.yaml"
        from airtcp.bench.wifi.chain import CHAIN_TEMPLATE

        return self.bench_dir / "wifi" / CHAIN_TEMPLATE

    def overrides(self, case: Case, duration_s: float, seed: int = 1) -> list[str]:
        """airtcp's `--set` overrides of the case, exactly as its run passes them."""
        if case.topology == "p2p":
            from airtcp.bench.wired import airtcp_scenario_args

            args = airtcp_scenario_args(self.scenario(case), case.per, duration_s, seed,
                                        sets=case.airtcp_sets)
            return [args[i + 1] for i, arg in enumerate(args) if arg == "--set"]
        from airtcp.bench.wifi.chain import airtcp_chain_sets

        return [*airtcp_chain_sets(case.hops, duration_s), *case.airtcp_sets]

    def run_airtcp(
        self, case: Case, out_dir: Path, seed: int, duration_s: float, trace: bool
    ) -> dict[str, Any]:
        """One airtcp run: goodput (kbit/s), cost, and with `trace` the downsampled trace."""
        extra = list(AIRTCP_TRACE_SETS) if trace else []
        if case.topology == "p2p":
            from airtcp.bench import wired

            result = wired.run_airtcp(self.airtcp, self.scenario(case), out_dir, case.per,
                                      duration_s, seed, sets=[*case.airtcp_sets, *extra])
            recoveries, rtos = result.get("recoveries"), result.get("rtos")
        else:
            from airtcp.bench.wifi import airtcp_run

            result = airtcp_run.run_airtcp(self.airtcp, self.scenario(case), out_dir, seed=seed,
                                           sets=[*self.overrides(case, duration_s), *extra])
            recoveries, rtos = None, (result.get("flows") or [{}])[0].get("timeouts")
        record = _run_record(seed, duration_s, result, recoveries, rtos)
        if trace:
            record["trace"] = airtcp_trace(out_dir, min(TRACE_UNTIL_S, duration_s))
        return record

    def run_ns3(
        self, case: Case, seed: int, duration_s: float, trace_path: Path | None
    ) -> dict[str, Any]:
        """One ns-3 run: goodput (kbit/s), cost, and with `trace_path` the downsampled trace."""
        binaries = self.ns3_binaries()
        extra = [*case.ns3_args]
        if trace_path is not None:
            trace_path.parent.mkdir(parents=True, exist_ok=True)
            extra.append(f"--trace={trace_path}")
        if case.topology == "p2p":
            from airtcp.bench import wired

            result = wired.run_ns3(binaries["p2p"], case.per, duration_s, seed, case.ns3_recovery,
                                   extra=extra)
            recoveries, rtos = result.get("recoveries"), result.get("rtos")
        else:
            from airtcp.bench.wifi.chain import ChainVariant, _chain_args
            from airtcp.bench.wifi.ns3 import run_program

            variant = ChainVariant(case.group, False, case.ns3_recovery)
            args = _chain_args(case.hops, duration_s, seed, variant, "11b")
            result = run_program(binaries["chain"], [*args, *extra])
            recoveries, rtos = result.get("tcp_recoveries"), result.get("tcp_rtos")
        record = _run_record(seed, duration_s, result, recoveries, rtos)
        if trace_path is not None:
            record["trace"] = ns3_trace(trace_path, min(TRACE_UNTIL_S, duration_s))
        return record


def unsupported_reason(scenario: Path, overrides: Sequence[str]) -> str | None:
    """Why this airtcp refuses the scenario with these overrides (the first line of what
    `airtcp validate` would say), or None when it accepts them: a setting airtcp does not have
    yet (`cc: bbr`, `recovery: prr`, `cubic.hystart`) skips its case instead of failing it."""
    from airtcp.scenario.schema import ScenarioError, load_scenario

    try:
        load_scenario(scenario, overrides=list(overrides))
    except ScenarioError as error:
        return str(error).strip().splitlines()[0] if str(error).strip() else "not accepted"
    return None


# --------------------------------------------------------------------------------------------
# Rows and the report


def _mean(values: Iterable[float | None]) -> float | None:
    xs = [float(v) for v in values if v is not None]
    return statistics.fmean(xs) if xs else None


def compare_row(
    case: Case,
    airtcp_runs: Sequence[dict[str, Any]],
    ns3_kbps: float | None,
    ns3_source: str,
    *,
    skipped: str | None = None,
    errors: Sequence[str] = (),
) -> dict[str, Any]:
    """One row of the table: mean goodputs, ratio airtcp / ns-3 and the verdict (None when
    there is nothing to judge: a skipped or failed case)."""
    airtcp_kbps = _mean(run["goodput_kbps"] for run in airtcp_runs)
    ratio = airtcp_kbps / ns3_kbps if airtcp_kbps is not None and ns3_kbps else None
    return {
        "case": case.name,
        "group": case.group,
        "what": case.what,
        "airtcp_kbps": airtcp_kbps,
        "airtcp_seeds": [run["seed"] for run in airtcp_runs],
        "ns3_kbps": ns3_kbps,
        "ns3_source": ns3_source,
        "ratio": ratio,
        # The bound is inclusive; the epsilon keeps a ratio of exactly 1.1 inside it.
        "within_target": None if ratio is None else abs(ratio - 1.0) <= TARGET + 1e-9,
        "skipped": skipped,
        "errors": list(errors),
    }


HEADERS = ("case", "airtcp kbps", "ns-3 kbps", "ratio", f"within {TARGET:.0%}")


def _verdict(row: dict[str, Any]) -> str:
    if row.get("skipped"):
        # The whole reason is in the JSON report; the table keeps its start.
        reason = row["skipped"]
        return f"skipped ({reason if len(reason) <= 70 else reason[:67] + '...'})"
    if row.get("errors"):
        return "failed"
    if row["within_target"] is None:
        return "n/a"
    return "yes" if row["within_target"] else "NO"


def table_rows(rows: Sequence[dict[str, Any]]) -> list[list[str]]:
    return [
        [row["case"], cell(row["airtcp_kbps"], ".1f"), cell(row["ns3_kbps"], ".1f"),
         cell(row["ratio"], ".3f"), _verdict(row)]
        for row in rows
    ]


def format_markdown(report: dict[str, Any]) -> str:
    """The report as markdown: its settings, the table, skipped and failed cases."""
    cfg = report["config"]
    lines = [
        "# airtcp vs ns-3 3.44: BBR v1, PRR, Cubic's HyStart",
        "",
        f"- date: {report['date']}",
        f"- airtcp: seeds 1..{cfg['seeds']}, {cfg['p2p_duration_s']:g} s (p2p) and "
        f"{cfg['chain_duration_s']:g} s (chain) per run",
        f"- ns-3: {cfg['ns3']}",
        f"- target: goodput ratio airtcp / ns-3 within 1 ± {TARGET:.2f} (reported, not enforced)",
        "",
        *markdown_table(HEADERS, table_rows(report["rows"])),
    ]
    failed = [(row["case"], error) for row in report["rows"] for error in row["errors"]]
    if failed:
        lines += ["", "## Failed runs", ""]
        lines += [f"- {name}: {error.splitlines()[0]}" for name, error in failed]
    if report.get("plots"):
        lines += ["", "Plots (cwnd and RTT, seed 1): " + ", ".join(report["plots"])]
    lines.append("")
    return "\n".join(lines)


# ns-3 sets cwnd to ssthresh when fast recovery ends; before TcpBbr has set one that is the
# initial UINT32_MAX bytes (NS3_BEHAVIOUR), which a plot shows as a gap rather than a spike.
UNBOUNDED_CWND_SEGMENTS = 1e6


def plot_case(
    path: Path,
    case: Case,
    airtcp: dict[str, list[float | None]] | None,
    ns3: dict[str, list[float | None]] | None,
    interval_s: float = TRACE_INTERVAL_S,
) -> None:
    """cwnd (segments) and RTT (ms) over time of seed 1 in both simulators, one PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_cwnd, ax_rtt) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for label, trace, style in (("airtcp", airtcp, "-"), ("ns-3 3.44", ns3, "--")):
        if not trace:
            continue
        t = [k * interval_s for k in range(len(trace["cwnd"]))]
        cwnd = [math.nan if v is None or v >= UNBOUNDED_CWND_SEGMENTS else v for v in trace["cwnd"]]
        ax_cwnd.plot(t, cwnd, style, label=label)
        rtt_ms = [math.nan if v is None else v * 1e3 for v in trace["rtt_s"]]
        ax_rtt.plot(t, rtt_ms, style, label=label)
    ax_cwnd.set_ylabel("cwnd (segments)")
    ax_rtt.set_ylabel("RTT (ms)")
    ax_rtt.set_xlabel("time (s)")
    ax_cwnd.set_title(f"{case.what}: seed {TRACE_SEED}")
    for ax in (ax_cwnd, ax_rtt):
        ax.grid(True, alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(loc="upper right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)


# --------------------------------------------------------------------------------------------
# The comparison


def _attempt(errors: list[str], what: str, run: Callable[[], dict[str, Any]]) -> dict[str, Any] | None:
    log(f"{what} ...")
    try:
        return run()
    except (BenchError, subprocess.TimeoutExpired) as error:
        errors.append(f"{what}: {error}")
        log(f"failed: {what}: {error}")
        return None


def compare(
    runner: Runner,
    cases: Sequence[Case],
    out: Path,
    *,
    seeds: int,
    p2p_duration_s: float,
    chain_duration_s: float,
    live: bool,
    reference: dict[str, Any] | None,
    plots: bool = True,
) -> tuple[dict[str, Any], bool]:
    """Runs airtcp (and with `live` ns-3) on every case; the report (also written to OUT as
    linux_tcp.json and linux_tcp.md, with the plots under OUT/plots) and whether every run
    succeeded."""
    rows: list[dict[str, Any]] = []
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {}
    plot_files: list[str] = []
    all_ok = True
    for case in cases:
        duration = p2p_duration_s if case.topology == "p2p" else chain_duration_s
        stored = (reference or {}).get("cases", {}).get(case.name) or {}
        reason = unsupported_reason(runner.scenario(case), runner.overrides(case, duration))
        if reason is not None:
            log(f"{case.name}: skipped (airtcp does not accept its settings yet: {reason})")
            rows.append(compare_row(case, [], stored.get("goodput_kbps"), "stored",
                                    skipped=f"airtcp: {reason}"))
            continue
        errors: list[str] = []
        a_runs: list[dict[str, Any]] = []
        n_runs: list[dict[str, Any]] = []
        for seed in range(1, seeds + 1):
            trace = seed == TRACE_SEED
            run_dir = out / "runs" / case.name / f"seed-{seed}"
            result = _attempt(errors, f"{case.name} airtcp seed {seed}",
                              lambda: runner.run_airtcp(case, run_dir, seed, duration, trace))
            if result is not None:
                a_runs.append(result)
            if live:
                trace_path = out / "ns3_traces" / f"{case.name}.csv" if trace else None
                result = _attempt(errors, f"{case.name} ns-3 seed {seed}",
                                  lambda: runner.run_ns3(case, seed, duration, trace_path))
                if result is not None:
                    n_runs.append(result)
        if live:
            ns3_kbps = _mean(run["goodput_kbps"] for run in n_runs)
            source = f"live, seeds 1..{seeds}, {duration:g} s"
            ns3_trace_seed1 = next((r.get("trace") for r in n_runs if r["seed"] == TRACE_SEED), None)
        else:
            ns3_kbps = stored.get("goodput_kbps")
            source = f"stored, seeds {stored.get('seeds')}, {stored.get('duration_s', 0):g} s"
            ns3_trace_seed1 = stored.get("trace_seed1")
        all_ok = all_ok and not errors
        rows.append(compare_row(case, a_runs, ns3_kbps, source, errors=errors))
        runs[case.name] = {
            "airtcp": [{k: v for k, v in r.items() if k != "trace"} for r in a_runs],
            "ns3": [{k: v for k, v in r.items() if k != "trace"} for r in n_runs],
        }
        airtcp_trace_seed1 = next((r.get("trace") for r in a_runs if r["seed"] == TRACE_SEED), None)
        if plots and (airtcp_trace_seed1 or ns3_trace_seed1):
            path = out / "plots" / f"{case.name}.png"
            plot_case(path, case, airtcp_trace_seed1, ns3_trace_seed1)
            plot_files.append(str(path.relative_to(out)))
    report = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "config": {
            "seeds": seeds,
            "p2p_duration_s": p2p_duration_s,
            "chain_duration_s": chain_duration_s,
            "ns3": ("run now" if live else "stored reference bench/ns3/" + REFERENCE_FILE)
            + f" ({NS3_REQUIREMENT})",
            "cases": [case.name for case in cases],
            "target": TARGET,
        },
        "rows": rows,
        "runs": runs,
        "plots": plot_files,
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "linux_tcp.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    (out / "linux_tcp.md").write_text(format_markdown(report), encoding="utf-8")
    return report, all_ok


# --------------------------------------------------------------------------------------------
# Making the reference (ns-3 only)

# What the reference's settings say about each side; the attribute values themselves are read
# from ns-3 (`--print-attributes`) when the reference is made.
P2P_SETTINGS = {
    "program": "bench/ns3/p2p_tcp.cc",
    "airtcp_scenario": "bench/p2p_bench.yaml (airtcp side also sets ssthresh_basis: pipe)",
    "link": "2 Mbps / 20 ms point-to-point, 100-packet drop-tail device queue each way, no queue disc",
    "errors": "RateErrorModel, per packet, data direction only (ACKs never lost)",
    "tcp": "mss 1000, IW 10, delayed ACK 2 (200 ms), SACK, timestamps, 1 MiB buffers, min RTO 1 s",
    "goodput": "PacketSink bytes x 8 / duration",
}
CHAIN_SETTINGS = {
    "program": "bench/wifi/wifi_chain.cc (defaults: 200 m spacing, 250 m range, no RTS/CTS, "
    "802.11b at 2 Mbps, no queue disc, static routes)",
    "airtcp_scenario": "bench/wifi/airtcp_chain.yaml with topology.hops=N, flows[0].dst=nN",
    "flow": "bulk TCP n0 -> nN from 1 s to the end; same TCP settings as the p2p case",
    "goodput": "PacketSink bytes x 8 / (duration - 1 s)",
}
GROUP_SETTINGS = {
    "bbr": "TcpBbr with TcpSocketState::EnablePacing true (p2p_tcp / wifi_chain --cc=bbr); "
    "recovery left at ns-3's default TcpPrrRecovery. ns-3 3.44's TcpSocketBase does not call "
    "the recovery object's EnterRecovery/DoRecovery for a congestion control that sets cwnd "
    "itself (HasCongControl), so classic recovery gives the identical run.",
    "prr": "TcpNewReno, SACK, TcpL4Protocol::RecoveryType TcpPrrRecovery (--recovery=prr); "
    "ssthresh on loss from the pipe as in the rest of the wired benchmark.",
    "hystart": "TcpCubic with TcpCubic::HyStart true or false (--hystart=1|0), classic recovery "
    "as in the congestion-control benchmark (airtcp.bench.cc) before it moved to PRR.",
}
# Behaviour of ns-3 3.44's implementation that is not an attribute, read in its source
# (src/internet/model/tcp-bbr.cc, tcp-cubic.cc, tcp-prr-recovery.cc, tcp-socket-base.cc at the
# ns-3.44 tag), for whoever matches airtcp against it.
NS3_BEHAVIOUR = {
    "bbr": [
        "startup: pacing and cwnd gain HighGain; pipe full after 3 rounds whose max bandwidth "
        "grew by less than 25 %; drain: pacing gain 1/HighGain, cwnd gain HighGain, until "
        "bytes in flight <= 1 BDP; ssthresh set to 1 BDP + 3 segments when leaving startup",
        "probe_bw: cwnd gain 2; pacing gain cycle TcpBbr::PACING_GAIN_CYCLE, one phase per "
        "min RTT (the 1.25 phase also waits for a loss or inflight >= 1.25 BDP, the 0.75 "
        "phase ends early once inflight <= 1 BDP); first phase drawn uniformly (stream 4)",
        "target cwnd = gain x max bandwidth x min RTT + 3 send quanta (1 segment each), plus 2 "
        "segments in the 1.25 phase, plus the ACK-aggregation allowance (extra acked, gain 1, "
        "window 5 rounds, at most 100 ms of the max bandwidth); cwnd at least 4 segments",
        "pacing rate = gain x max bandwidth x 0.99 (m_pacingMargin 1 %); before the pipe is "
        "full it only rises; initial pacing rate HighGain x IW / the handshake's RTT (at "
        "least 1 ms)",
        "min RTT filter: 10 s (RttWindowLength); probe_rtt: cwnd 4 segments for "
        "ProbeRttDuration and at least one round, then restore the saved cwnd",
        "recovery: on entry cwnd = bytes in flight + max(bytes (S)ACKed by the ACK, 1 segment) "
        "and packet conservation for one round; each ACK in recovery takes the newly lost "
        "bytes off cwnd; on leaving fast recovery TcpBbr restores the cwnd saved on entry "
        "(CA_EVENT_COMPLETE_CWR) but TcpSocketBase then sets cwnd = ssthresh, which TcpBbr "
        "leaves where it set it on leaving startup (1 BDP + 3 segments), from where cwnd "
        "grows by the bytes each ACK delivers up to the target; an RTO saves cwnd",
        "a fast recovery that ends before the pipe is full (ssthresh still the initial "
        "UINT32_MAX) leaves cwnd at UINT32_MAX bytes: in startup TcpBbr only ever raises cwnd, "
        "so it stays there until the pipe is full or the next recovery, and only the pacing "
        "rate (startup: HighGain x the largest bandwidth seen, at least the initial HighGain x "
        "IW / handshake RTT, 5.78 Mbit/s on the p2p case, 28.9 Mbit/s over the 5-hop chain's "
        "8-ms handshake) and the 1 MiB send buffer limit what is sent: on the 5-hop chain seed "
        "1 has cwnd unbounded from 2.48 s and about 1,000 segments in flight by 3 s",
        "bandwidth samples: ns-3's TcpRateLinux delivery-rate estimator, max filter over "
        "BwWindowLength (10) rounds; app-limited samples only when they raise the max",
    ],
    "hystart": [
        "active while HyStart, cwnd <= ssthresh and cwnd >= HyStartLowWindow segments; a round "
        "ends when the cumulative ACK passes the highest sequence sent at its start",
        "ACK train: an ACK within HyStartAckDelta of the train's previous ACK, with the train "
        "longer than the min RTT since the round began, ends slow start",
        "delay: the min of the round's first HyStartMinSamples RTT samples above "
        "delayMin + clamp(delayMin, HyStartDelayMin, HyStartDelayMax) ends slow start; ns-3 "
        "3.44 clamps delayMin itself, not delayMin/8 as Linux does, so at the 40-ms RTT here the "
        "RTT must double",
        "on exit ssthresh = cwnd; detection happens once: only a retransmission timeout "
        "(CA_LOSS) re-arms it; RTT samples within CubicDelta of a new epoch are ignored",
        "slow start grows cwnd by the number of segments each ACK covers (byte counting, "
        "standing in for Linux's quick ACKs), in TcpCubic with or without HyStart",
    ],
    "prr": [
        "RecoverFS = bytes in flight (RFC 6675 pipe) at entry; a duplicate ACK counts one "
        "segment as delivered while prr_delivered < RecoverFS",
        "pipe > ssthresh: sndcnt = ceil(prr_delivered x ssthresh / RecoverFS) - prr_out; else "
        "limit = max(prr_delivered - prr_out, delivered) (+1 segment when the ACK acknowledged "
        "retransmitted data), sndcnt = min(limit, ssthresh - pipe); at least one segment on "
        "entry (the fast retransmit); cwnd = pipe + sndcnt; no attributes",
        "ssthresh at entry: TcpNewReno's max(2 segments, pipe / 2); on leaving fast recovery "
        "TcpSocketBase sets cwnd = ssthresh",
    ],
}


def _attribute_record(binary: Path, args: Sequence[str]) -> dict[str, Any]:
    from airtcp.bench.harness import json_result, tail, timed

    proc, _, _ = timed([str(binary), *args, "--print-attributes"])
    if proc.returncode != 0:
        raise BenchError(f"{binary.name} --print-attributes failed: {tail(proc.stderr or proc.stdout)}")
    return json_result(proc.stdout, binary.name)


def ns3_attributes(binaries: dict[str, Path]) -> dict[str, Any]:
    """The TCP attribute values the reference's runs use, as the programs print them."""
    bbr = _attribute_record(binaries["p2p"], ["--cc=bbr", "--recovery=prr"])
    cubic_on = _attribute_record(binaries["p2p"], ["--cc=cubic", "--hystart=1"])
    cubic_off = _attribute_record(binaries["p2p"], ["--cc=cubic", "--hystart=0"])
    prr = _attribute_record(binaries["p2p"], ["--recovery=prr"])
    chain_bbr = _attribute_record(binaries["chain"], ["--cc=bbr", "--recovery=prr"])
    if chain_bbr != bbr:
        raise BenchError("wifi_chain and p2p_tcp print different TCP attributes for BBR")
    return {
        "common": {k: bbr[k] for k in ("ns3::TcpSocket", "ns3::TcpSocketBase", "ns3::RttMeanDeviation")},
        "bbr": {
            "ns3::TcpL4Protocol": bbr["ns3::TcpL4Protocol"],
            "ns3::TcpSocketState": bbr["ns3::TcpSocketState"],
            "ns3::TcpBbr": bbr["ns3::TcpBbr"],
            "TcpBbr::PACING_GAIN_CYCLE": bbr["TcpBbr::PACING_GAIN_CYCLE"],
        },
        "hystart": {
            "ns3::TcpL4Protocol": cubic_on["ns3::TcpL4Protocol"],
            "ns3::TcpCubic (--hystart=1)": cubic_on["ns3::TcpCubic"],
            "ns3::TcpCubic (--hystart=0)": cubic_off["ns3::TcpCubic"],
        },
        "prr": {
            "ns3::TcpL4Protocol": prr["ns3::TcpL4Protocol"],
            "ns3::TcpPrrRecovery": prr["ns3::TcpPrrRecovery"],
        },
    }


def _sd(values: Sequence[float]) -> float | None:
    return statistics.stdev(values) if len(values) > 1 else None


def reference_entry(case: Case, runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A case of the reference from its ns-3 runs (seed 1 traced)."""
    per_seed = [round(run["goodput_kbps"], 3) for run in runs]
    sd = _sd(per_seed)
    return {
        "group": case.group,
        "topology": case.topology,
        "what": case.what,
        "per": case.per if case.topology == "p2p" else None,
        "hops": case.hops if case.topology == "chain" else None,
        "duration_s": runs[0]["duration_s"],
        "seeds": [run["seed"] for run in runs],
        "ns3_recovery": case.ns3_recovery,
        "ns3_args": list(case.ns3_args),
        "airtcp_sets": list(case.airtcp_sets),
        "goodput_kbps_per_seed": per_seed,
        "goodput_kbps": round(statistics.fmean(per_seed), 3),
        "goodput_kbps_sd": None if sd is None else round(sd, 3),
        "recoveries_mean": _mean(run.get("recoveries") for run in runs),
        "rtos_mean": _mean(run.get("rtos") for run in runs),
        "sim_wall_s_mean": round(_mean(run.get("sim_wall_s") for run in runs) or 0.0, 4),
        "trace_seed1": next(run["trace"] for run in runs if run["seed"] == TRACE_SEED),
    }


def update_reference(
    runner: Runner, cases: Sequence[Case], path: Path, seeds: int = SEEDS, scratch: Path | None = None
) -> dict[str, Any]:
    """Runs ns-3 on `cases` with the reference's settings (seeds 1..seeds, each case's own
    duration, seed 1 traced) and writes the reference to `path`, keeping the stored cases that
    were not rerun. Each batch (group and topology) is timed."""
    binaries = runner.ns3_binaries()
    scratch = scratch or Path(DEFAULT_OUT) / "reference_traces"
    old: dict[str, Any] = {}
    if path.is_file():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            old = {}
    entries = dict(old.get("cases") or {})
    batches = {b["batch"]: b for b in old.get("batches") or []}
    order: list[str] = []
    by_batch: dict[str, list[Case]] = {}
    for case in cases:
        batch = f"{case.group} {case.topology}"
        if batch not in by_batch:
            order.append(batch)
        by_batch.setdefault(batch, []).append(case)
    for batch in order:
        start = time.perf_counter()
        count = 0
        for case in by_batch[batch]:
            runs = []
            for seed in range(1, seeds + 1):
                log(f"{case.name} ns-3 seed {seed} ...")
                trace = scratch / f"{case.name}.csv" if seed == TRACE_SEED else None
                runs.append(runner.run_ns3(case, seed, case.duration_s, trace))
                count += 1
            entries[case.name] = reference_entry(case, runs)
        batches[batch] = {"batch": batch, "runs": count, "wall_s": round(time.perf_counter() - start, 2)}
    ordered = {case.name: entries[case.name] for case in CASES if case.name in entries}
    reference = {
        "about": "ns-3 3.44 reference of airtcp.bench.linux_tcp (bench/README.md, 'Linux TCP "
        "pieces against ns-3'): BBR v1, PRR and Cubic's HyStart, seeds 1..5 per case",
        "ns3": NS3_REQUIREMENT,
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": "python -m airtcp.bench.linux_tcp --update-reference",
        "settings": {
            "p2p": P2P_SETTINGS,
            "chain": CHAIN_SETTINGS,
            "groups": GROUP_SETTINGS,
            "ns3_attributes": ns3_attributes(binaries),
            "ns3_behaviour": NS3_BEHAVIOUR,
        },
        "trace": {
            "seed": TRACE_SEED,
            "interval_s": TRACE_INTERVAL_S,
            "until_s": TRACE_UNTIL_S,
            "how": "value in force at t = 0, 0.1, ..., 30 s (simulation time): the last report "
            "at or before it, null before the first; cwnd in segments of 1000 bytes, rtt_s the "
            "last RTT sample (ns-3: TcpSocketBase LastRTT, whole milliseconds from the timestamp "
            "option; ns-3 samples only ACKs that acknowledge the oldest outstanding segment, so "
            "a long recovery, frequent on the chain with BBR, has none), pacing_bps TcpBbr's "
            "pacing rate; a cwnd of 4294967.295 segments is ns-3's UINT32_MAX-byte cwnd after a "
            "recovery that ended in BBR's startup (settings.ns3_behaviour.bbr)",
        },
        "batches": [batches[name] for name in sorted(batches)],
        "cases": ordered,
    }
    path.write_text(compact_json(reference) + "\n", encoding="utf-8")
    return reference


def compact_json(value: Any, indent: int = 0) -> str:
    """JSON with one key per line but every list of plain values on one line: the traces stay
    readable (and diffable) as one line per series."""
    pad, inner = " " * indent, " " * (indent + 1)
    if isinstance(value, dict) and value:
        items = [f"{inner}{json.dumps(str(k))}: {compact_json(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        items = [f"{inner}{compact_json(v, indent + 1)}" for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(value)


# --------------------------------------------------------------------------------------------
# Command line


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m airtcp.bench.linux_tcp",
        description="airtcp against ns-3 3.44 on BBR v1, PRR and Cubic's HyStart.",
    )
    parser.add_argument("--quick", action="store_true",
                        help=f"one seed of {QUICK_DURATION_S:g} s per case (ns-3: the stored means)")
    parser.add_argument("--live", action="store_true",
                        help="run ns-3 now with airtcp's seeds and durations instead of reading the reference")
    parser.add_argument("--update-reference", action="store_true",
                        help=f"run ns-3 only (seeds 1..{SEEDS}, 200 s p2p, 100 s chain) and rewrite "
                        f"bench/ns3/{REFERENCE_FILE}")
    parser.add_argument("--cases", help=f"comma-separated groups ({', '.join(GROUPS)}) or case names")
    parser.add_argument("--seeds", type=int, help=f"seeds 1..N (default {SEEDS}; 1 with --quick)")
    parser.add_argument("--duration", type=float, help="simulated seconds of the p2p cases (default 200)")
    parser.add_argument("--chain-duration", type=float, help="simulated seconds of the chain cases (default 100)")
    parser.add_argument("--out", default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    parser.add_argument("--reference", help=f"the stored reference (default bench/ns3/{REFERENCE_FILE})")
    parser.add_argument("--no-plots", action="store_true", help="no PNG plots")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        cases = select_cases(args.cases)
    except ValueError as error:
        parser.error(f"--cases: {error}")
    if args.list:
        for case in cases:
            print(f"{case.name}: {case.what}; ns-3 {' '.join(case.ns3_args) or '(NewReno)'} "
                  f"--recovery={case.ns3_recovery}; airtcp {' '.join(case.airtcp_sets)}")
        return 0
    if args.seeds is not None and args.seeds < 1:
        parser.error("--seeds must be at least 1")
    for name in ("duration", "chain_duration"):
        value = getattr(args, name)
        if value is not None and value <= 0:
            parser.error(f"--{name.replace('_', '-')} must be positive")
    if args.update_reference and (args.live or args.quick):
        parser.error("--update-reference runs ns-3 alone with the reference's settings")
    try:
        from airtcp.bench.wired import airtcp_command

        bench_dir = find_bench_dir()
        runner = Runner(bench_dir, airtcp_command())
        ref_path = Path(args.reference) if args.reference else reference_path(bench_dir)
        if args.update_reference:
            start = time.perf_counter()
            reference = update_reference(runner, cases, ref_path, args.seeds or SEEDS,
                                         scratch=Path(args.out) / "reference_traces")
            for batch in reference["batches"]:
                print(f"{batch['batch']}: {batch['runs']} runs, {batch['wall_s']:.1f} s")
            print(f"written: {ref_path} ({time.perf_counter() - start:.1f} s)")
            return 0
        quick = args.quick
        seeds = args.seeds or (1 if quick else SEEDS)
        p2p_duration = args.duration or (QUICK_DURATION_S if quick else P2P_DURATION_S)
        chain_duration = args.chain_duration or (QUICK_DURATION_S if quick else CHAIN_DURATION_S)
        reference = None if args.live else load_reference(ref_path, cases)
        report, ok = compare(runner, cases, Path(args.out), seeds=seeds, p2p_duration_s=p2p_duration,
                             chain_duration_s=chain_duration, live=args.live, reference=reference,
                             plots=not args.no_plots)
    except NotACheckout as error:
        log(f"error: {error}")
        return 2
    except (BenchError, subprocess.TimeoutExpired) as error:
        log(f"error: {error}")
        return 1
    print(format_markdown(report))
    print(f"written: {Path(args.out) / 'linux_tcp.json'}, {Path(args.out) / 'linux_tcp.md'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
