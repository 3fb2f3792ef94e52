"""airtcp against ns-3 3.44 on the same scenario, measured in the same run.

One bulk NewReno/SACK flow over a 2 Mbps / 20 ms point-to-point link with a 100-packet drop-tail
queue and a packet error rate on the data direction (`bench/p2p_bench.yaml` for airtcp,
`bench/ns3/p2p_tcp.cc` for ns-3; `bench/README.md` maps one onto the other), with the same loss
recovery on both sides: Proportional Rate Reduction by default (ns-3's default
`TcpPrrRecovery`, airtcp's `recovery: prr`), or the classic RFC 6675 rule, cwnd = ssthresh at
once (`--recovery classic`). For every packet error rate both simulators run as separate
commands, so that the wall time of the whole command is comparable, and each reports the wall
time of its own simulation loop; `airtcp validate` and `airtcp --help` are timed beside each
airtcp run (`airtcp.bench.startup`). This is a benchmark, not a test: the targets are printed
beside the numbers, and only a run that fails makes the exit code non-zero.

    python -m airtcp.bench.wired [--quick] [--out DIR] [--cases 0,0.01] [--seeds N]
    airtcp bench [same options]

ns-3 comes from PyPI's prebuilt `ns3` wheel: its C++ headers and shared libraries are unpacked
under `bench/ns3/build/` and the scenario program is compiled against them once (`build_ns3`).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from airtcp.bench import startup
from airtcp.bench.harness import (
    NS3_REQUIREMENT,
    NS3_VERSION,
    BenchError,
    NotACheckout,
    build_ns3,
    compile_ns3_program,
    find_bench_dir,
    json_result,
    log,
    tail,
    timed,
)
from airtcp.bench.tables import cell, mark, markdown_table, text_table

__all__ = ["build_ns3", "compile_ns3_program", "main", "run_benchmark"]

FULL_CASES = (0.0, 0.005, 0.01, 0.02, 0.05)
QUICK_CASES = (0.0, 0.01, 0.05)
FULL_DURATION_S = 200.0
QUICK_DURATION_S = 20.0
# Over 200 s one seed's goodput still varies by 2.5-5 % (ns-3, PER 0.005-0.05), up to half the
# goodput tolerance, so the full run compares means over several seeds.
FULL_SEEDS = 5
QUICK_SEEDS = 1

GOODPUT_TOLERANCE = 0.10
SPEED_TARGET = 20.0

# Goodput (kbps) of the shared reference, measured with ns-3 3.44 defaults (PRR recovery), 200 s.
REFERENCE_NS3_KBPS = {0.0: 1896.8, 0.005: 1538.8, 0.01: 1165.4, 0.02: 737.2, 0.05: 349.9}

# The loss recovery set alike in both simulators: ns-3's `--recovery` (TcpPrrRecovery, its
# default, or TcpClassicRecovery) and airtcp's `recovery` (`prr` needs SACK, which the case has).
RECOVERIES = ("prr", "classic")
DEFAULT_RECOVERY = "prr"


def run_ns3(
    binary: Path,
    per: float,
    duration_s: float,
    seed: int,
    recovery: str,
    ssthresh: str = "pipe",
    extra: Sequence[str] = (),
) -> dict[str, Any]:
    """One ns-3 run (`extra`: more command-line arguments); its JSON line plus `cmd_wall_s`,
    the whole command's wall time."""
    cmd = [
        str(binary),
        f"--per={per!r}",
        f"--duration={duration_s!r}",
        f"--seed={seed}",
        f"--recovery={recovery}",
        f"--ssthresh={ssthresh}",
        *extra,
    ]
    proc, cmd_wall, cmd_cpu = timed(cmd)
    if proc.returncode != 0:
        raise BenchError(f"ns-3 exited with {proc.returncode}: {tail(proc.stderr or proc.stdout)}")
    result = json_result(proc.stdout, "ns-3")
    result["cmd_wall_s"] = cmd_wall
    result["cmd_cpu_s"] = cmd_cpu
    return result


def airtcp_command() -> list[str]:
    """The `airtcp` command of the running environment."""
    script = Path(sys.executable).with_name("airtcp")
    if script.is_file():
        return [str(script)]
    found = shutil.which("airtcp")
    if found:
        return [found]
    return [sys.executable, "-m", "airtcp"]


def _format_seconds(value: float) -> str:
    return f"{value:g}s"


def _drops(summary: dict[str, Any], reason: str) -> int:
    rows = summary.get("drops") or []
    return sum(int(d.get("packets", 0)) for d in rows if d.get("reason") == reason)


# The same ssthresh rule on both sides: ns-3's `--ssthresh` value -> airtcp's `ssthresh_basis`.
AIRTCP_SSTHRESH_BASIS = {"pipe": "pipe", "flightsize": "flight_size"}


def airtcp_scenario_args(
    scenario: Path,
    per: float,
    duration_s: float,
    seed: int,
    ssthresh: str = "pipe",
    sets: Sequence[str] = (),
    recovery: str | None = None,
) -> list[str]:
    """The scenario with the case's seed and overrides, as `airtcp run` and `validate` take it;
    `recovery` (`prr` or `classic`) sets `flows[0].transport.recovery`, None leaves the
    scenario's."""
    overrides = [
        f"links[0].loss.per={per!r}",
        f"duration={_format_seconds(duration_s)}",
        f"flows[0].transport.ssthresh_basis={AIRTCP_SSTHRESH_BASIS[ssthresh]}",
        *([f"flows[0].transport.recovery={recovery}"] if recovery is not None else []),
        *sets,
    ]
    return [str(scenario), "--seed", str(seed), *(item for o in overrides for item in ("--set", o))]


def run_airtcp(
    command: Sequence[str],
    scenario: Path,
    out_dir: Path,
    per: float,
    duration_s: float,
    seed: int,
    ssthresh: str = "pipe",
    sets: Sequence[str] = (),
    recovery: str | None = None,
) -> dict[str, Any]:
    """One airtcp run through its command line (`sets`: more `--set` overrides; `recovery` as in
    `airtcp_scenario_args`); the figures the comparison needs."""
    args = airtcp_scenario_args(scenario, per, duration_s, seed, ssthresh, sets, recovery)
    proc, cmd_wall, cmd_cpu = timed(
        [*command, "run", *args, "--out", str(out_dir), "--force", "--quiet"]
    )
    if proc.returncode != 0:
        detail = tail(proc.stderr or proc.stdout)
        raise BenchError(f"airtcp exited with {proc.returncode}: {detail}")
    try:
        summary = json.loads((out_dir / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise BenchError(f"airtcp wrote no readable summary.json in {out_dir}: {error}") from error
    timing: dict[str, Any] = {}
    timing_path = out_dir / "timing.json"
    if timing_path.is_file():
        timing = json.loads(timing_path.read_text(encoding="utf-8"))
    elif isinstance(summary.get("timing"), dict):
        timing = summary["timing"]
    flows = summary.get("flows") or []
    if not flows or "goodput_bps" not in flows[0]:
        raise BenchError(f"{out_dir}/summary.json has no flows[0].goodput_bps")
    flow = flows[0]
    queues = summary.get("queues")
    transmitted = None
    if isinstance(queues, list) and queues and all("transmitted" in q for q in queues):
        transmitted = sum(int(q["transmitted"]) for q in queues)
    wall = timing.get("wall_s")
    return {
        "simulator": "airtcp",
        "per": per,
        "duration_s": duration_s,
        "seed": seed,
        "goodput_bps": float(flow["goodput_bps"]),
        "rx_bytes": flow.get("bytes_delivered"),
        "sim_wall_s": float(wall) if wall is not None else None,
        "events": timing.get("events"),
        "packets": transmitted,
        "packets_data": flow.get("packets_sent"),
        "retransmissions": flow.get("retransmissions"),
        "recoveries": flow.get("recoveries"),
        "rtos": flow.get("timeouts"),
        "queue_drops": _drops(summary, "queue_full"),
        "error_drops": _drops(summary, "channel_error"),
        "cmd_wall_s": cmd_wall,
        "cmd_cpu_s": cmd_cpu,
    }


def run_airtcp_short(command: Sequence[str], name: str, args: Sequence[str]) -> dict[str, Any]:
    """One of airtcp's short commands (`startup.SHORT_COMMANDS`): its whole command's times."""
    proc, cmd_wall, cmd_cpu = timed([*command, *args])
    if proc.returncode != 0:
        detail = tail(proc.stderr or proc.stdout)
        raise BenchError(f"airtcp {name} exited with {proc.returncode}: {detail}")
    return {"simulator": f"airtcp {name}", "cmd_wall_s": cmd_wall, "cmd_cpu_s": cmd_cpu}


# --------------------------------------------------------------------------------------------
# Aggregation and reports


def _mean(values: Iterable[float | None]) -> float | None:
    xs = [float(v) for v in values if v is not None]
    return statistics.fmean(xs) if xs else None


def _sd(values: Iterable[float | None]) -> float | None:
    xs = [float(v) for v in values if v is not None]
    return statistics.stdev(xs) if len(xs) > 1 else None


def _sum(values: Iterable[float | None]) -> float | None:
    xs = list(values)
    if not xs or any(v is None for v in xs):
        return None
    return float(sum(xs))  # type: ignore[arg-type]


def _ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return a / b


def summarise_case(
    per: float,
    airtcp_runs: list[dict[str, Any]],
    ns3_runs: list[dict[str, Any]],
    errors: list[str],
    short_runs: Mapping[str, list[dict[str, Any]]] | None = None,
) -> dict[str, Any]:
    """One table row: means over seeds, wall times summed over seeds; `short_runs` are airtcp's
    short commands by name (`startup.SHORT_COMMANDS`), for the start-up figures."""
    a_good = _mean(r["goodput_bps"] for r in airtcp_runs)
    n_good = _mean(r["goodput_bps"] for r in ns3_runs)
    a_sim = _sum(r["sim_wall_s"] for r in airtcp_runs) if airtcp_runs else None
    n_sim = _sum(r["sim_wall_s"] for r in ns3_runs) if ns3_runs else None
    a_cmd = _sum(r["cmd_wall_s"] for r in airtcp_runs) if airtcp_runs else None
    n_cmd = _sum(r["cmd_wall_s"] for r in ns3_runs) if ns3_runs else None
    a_hops = _sum(r["packets"] for r in airtcp_runs) if airtcp_runs else None
    n_hops = _sum(r["packets"] for r in ns3_runs) if ns3_runs else None
    goodput_ratio = _ratio(a_good, n_good)
    speed = _ratio(n_sim, a_sim)
    row = {
        "per": per,
        "seeds": max(len(airtcp_runs), len(ns3_runs)),
        "goodput_airtcp_kbps": a_good / 1e3 if a_good is not None else None,
        "goodput_airtcp_sd_kbps": _div(_sd(r["goodput_bps"] for r in airtcp_runs), 1e3),
        "goodput_ns3_kbps": n_good / 1e3 if n_good is not None else None,
        "goodput_ns3_sd_kbps": _div(_sd(r["goodput_bps"] for r in ns3_runs), 1e3),
        "goodput_reference_kbps": REFERENCE_NS3_KBPS.get(per),
        "goodput_ratio": goodput_ratio,
        "sim_wall_airtcp_s": a_sim,
        "sim_wall_ns3_s": n_sim,
        "speed_ratio": speed,
        "cmd_wall_airtcp_s": a_cmd,
        "cmd_wall_ns3_s": n_cmd,
        "cmd_ratio": _ratio(n_cmd, a_cmd),
        "cmd_cpu_airtcp_s": _sum(r["cmd_cpu_s"] for r in airtcp_runs) if airtcp_runs else None,
        "cmd_cpu_ns3_s": _sum(r["cmd_cpu_s"] for r in ns3_runs) if ns3_runs else None,
        "packets_airtcp": a_hops,
        "packets_ns3": n_hops,
        "ns_per_hop_airtcp": _div(a_sim, a_hops, scale=1e9),
        "ns_per_hop_ns3": _div(n_sim, n_hops, scale=1e9),
        "events_airtcp": _sum(r.get("events") for r in airtcp_runs) if airtcp_runs else None,
        "events_ns3": _sum(r.get("events") for r in ns3_runs) if ns3_runs else None,
        "recoveries_airtcp": _mean(r.get("recoveries") for r in airtcp_runs),
        "recoveries_ns3": _mean(r.get("recoveries") for r in ns3_runs),
        "rtos_airtcp": _mean(r.get("rtos") for r in airtcp_runs),
        "rtos_ns3": _mean(r.get("rtos") for r in ns3_runs),
        "goodput_ok": (
            None if goodput_ratio is None else abs(goodput_ratio - 1) <= GOODPUT_TOLERANCE
        ),
        "speed_ok": None if speed is None else speed >= SPEED_TARGET,
        "errors": errors,
    }
    return {**row, **startup.summarise_startup(a_cmd, n_cmd, short_runs or {})}


def _div(a: float | None, b: float | None, scale: float = 1.0) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return a / b * scale


COLUMNS = (
    ("PER", "per", "g"),
    ("airtcp kbps", "goodput_airtcp_kbps", ".1f"),
    ("ns-3 kbps", "goodput_ns3_kbps", ".1f"),
    ("ratio", "goodput_ratio", ".3f"),
    ("sim airtcp s", "sim_wall_airtcp_s", ".3f"),
    ("sim ns-3 s", "sim_wall_ns3_s", ".3f"),
    ("speed x", "speed_ratio", ".1f"),
    ("cmd airtcp s", "cmd_wall_airtcp_s", ".2f"),
    ("cmd ns-3 s", "cmd_wall_ns3_s", ".2f"),
    ("cmd x", "cmd_ratio", ".2f"),
    ("airtcp ns/hop", "ns_per_hop_airtcp", ".0f"),
    ("ns-3 ns/hop", "ns_per_hop_ns3", ".0f"),
)


def _cells(row: dict[str, Any]) -> list[str]:
    cells = [cell(row[key], spec) for _, key, spec in COLUMNS]
    cells.append(f"goodput {mark(row['goodput_ok'])}, speed {mark(row['speed_ok'])}")
    return cells


def _headers() -> list[str]:
    return [title for title, _, _ in COLUMNS] + ["targets"]


def format_table(rows: list[dict[str, Any]]) -> str:
    """Plain-text table for the terminal."""
    return text_table(_headers(), [_cells(r) for r in rows])


def format_markdown(report: dict[str, Any]) -> str:
    """`bench.md`: the same table as markdown, with the run's settings."""
    cfg = report["config"]
    env = report["environment"]
    lines = [
        "# airtcp vs ns-3 benchmark",
        "",
        f"- date: {report['date']}",
        f"- machine: {env['cpu']}, {env['cores']} cores, {env['platform']}",
        f"- scenario: {cfg['scenario']} / bench/ns3/p2p_tcp.cc (see bench/README.md)",
        f"- simulated time per run: {cfg['duration_s']:g} s; seeds per case: {cfg['seeds']}; "
        f"{cfg['recovery']} recovery in both simulators; ns-3 {NS3_VERSION} ssthresh from "
        f"{cfg['ns3_ssthresh']}",
        f"- targets: goodput ratio within 1 ± {GOODPUT_TOLERANCE:.2f}; "
        f"speed (ns-3 / airtcp simulation-loop wall time) >= {SPEED_TARGET:g}x",
        "",
        "Goodput is the mean over seeds; wall times are summed over seeds. `sim` is the simulation "
        "loop alone, `cmd` the whole command (process start, scenario loading, output). "
        "`ns/hop` is simulation-loop wall time per packet transmission on a link.",
        "",
        *markdown_table(_headers(), [_cells(row) for row in report["cases"]]),
    ]
    if not cfg["ns3_only"]:
        lines += ["", *startup.startup_markdown(report["cases"])]
    errors = [(row["per"], e) for row in report["cases"] for e in row["errors"]]
    if errors:
        lines += ["", "## Failed runs", ""]
        lines += [f"- PER {per:g}: {e.splitlines()[0]}" for per, e in errors]
    lines.append("")
    return "\n".join(lines)


def _environment() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        from importlib.metadata import version

        airtcp_version = version("airtcp")
    except Exception:  # noqa: BLE001 - informational only
        airtcp_version = None
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "airtcp": airtcp_version,
        "ns3": NS3_REQUIREMENT,
    }


def _check_scenario(path: Path) -> list[str]:
    """Differences between the YAML and the settings compiled into the ns-3 program."""
    import yaml

    expected = {
        ("links", 0, "rate"): "2Mbps",
        ("links", 0, "delay"): "20ms",
        ("links", 0, "queue", "kind"): "droptail",
        ("links", 0, "queue", "packets"): 100,
        ("links", 0, "loss", "kind"): "bernoulli",
        ("links", 0, "loss", "direction"): "forward",
        ("flows", 0, "transport", "cc"): "newreno",
        ("flows", 0, "transport", "sack"): True,
        ("flows", 0, "transport", "mss"): 1000,
        ("flows", 0, "transport", "delayed_ack"): 2,
        ("flows", 0, "transport", "initial_cwnd"): 10,
        ("flows", 0, "transport", "header_bytes"): 54,
    }
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    problems = []
    for keys, want in expected.items():
        node: Any = data
        try:
            for key in keys:
                node = node[key]
        except (KeyError, IndexError, TypeError):
            node = None
        if node != want:
            where = ".".join(str(k) if isinstance(k, str) else f"[{k}]" for k in keys)
            problems.append(f"{where} is {node!r}, the ns-3 program uses {want!r}")
    return problems


# --------------------------------------------------------------------------------------------
# Driver


def run_benchmark(
    *,
    quick: bool = False,
    out: str | Path = "bench/out",
    cases: Iterable[float] | None = None,
    seeds: int | None = None,
    duration_s: float | None = None,
    recovery: str = DEFAULT_RECOVERY,
    ns3_only: bool = False,
    repeat: int = 1,
    ns3_ssthresh: str = "pipe",
) -> tuple[dict[str, Any], bool]:
    """Runs every case in both simulators, each with the loss recovery `recovery` (`prr` or
    `classic`); returns the report and whether every run succeeded."""
    if recovery not in RECOVERIES:
        raise BenchError(f"recovery must be one of {', '.join(RECOVERIES)}, not {recovery!r}")
    bench_dir = find_bench_dir()
    scenario = bench_dir / "p2p_bench.yaml"
    out_dir = Path(out)
    if cases is None:
        cases = QUICK_CASES if quick else FULL_CASES
    cases = tuple(float(c) for c in cases)
    seeds = seeds or (QUICK_SEEDS if quick else FULL_SEEDS)
    duration_s = duration_s or (QUICK_DURATION_S if quick else FULL_DURATION_S)
    mismatches = _check_scenario(scenario)
    for problem in mismatches:
        log(f"warning: {scenario.name}: {problem}")

    binary = build_ns3(bench_dir)
    command = airtcp_command()
    out_dir.mkdir(parents=True, exist_ok=True)

    rows = []
    raw: list[dict[str, Any]] = []
    all_ok = True
    for per in cases:
        a_runs: list[dict[str, Any]] = []
        n_runs: list[dict[str, Any]] = []
        short_runs: dict[str, list[dict[str, Any]]] = {name: [] for name in startup.SHORT_COMMANDS}
        errors: list[str] = []
        for seed in range(1, seeds + 1):
            log(f"PER {per:g} seed {seed}: ns-3 ...")
            try:
                n_runs.append(
                    _fastest(
                        repeat, run_ns3, binary, per, duration_s, seed, recovery, ns3_ssthresh
                    )
                )
            except (BenchError, subprocess.TimeoutExpired) as error:
                errors.append(f"ns-3 seed {seed}: {error}")
            if ns3_only:
                continue
            log(f"PER {per:g} seed {seed}: airtcp ...")
            run_dir = out_dir / "runs" / f"per-{per:g}" / f"seed-{seed}"
            run_dir.parent.mkdir(parents=True, exist_ok=True)
            try:
                a_runs.append(
                    _fastest(
                        repeat,
                        run_airtcp,
                        command,
                        scenario,
                        run_dir,
                        per,
                        duration_s,
                        seed,
                        ns3_ssthresh,
                        (),
                        recovery,
                    )
                )
                # Timed right after the run they are compared with, under the same load.
                scenario_args = airtcp_scenario_args(
                    scenario, per, duration_s, seed, ns3_ssthresh, recovery=recovery
                )
                for name, fixed in startup.SHORT_COMMANDS.items():
                    argv = fixed if fixed is not None else [name, *scenario_args]
                    timed = _fastest(repeat, run_airtcp_short, command, name, argv)
                    short_runs[name].append({**timed, "per": per, "seed": seed})
            except (BenchError, subprocess.TimeoutExpired) as error:
                errors.append(f"airtcp seed {seed}: {error}")
        all_ok = all_ok and not errors
        rows.append(summarise_case(per, a_runs, n_runs, errors, short_runs))
        raw += a_runs + n_runs + [run for runs in short_runs.values() for run in runs]

    report = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "config": {
            "scenario": str(scenario.relative_to(bench_dir.parent)),
            "quick": quick,
            "duration_s": duration_s,
            "seeds": seeds,
            "cases": list(cases),
            # Set alike in both simulators (ns-3 --recovery, airtcp flows[0].transport.recovery).
            "recovery": recovery,
            "ns3_ssthresh": ns3_ssthresh,
            "repeat": repeat,
            "ns3_only": ns3_only,
            "ns3_binary": str(binary),
            "airtcp_command": command,
            "scenario_mismatches": mismatches,
        },
        "targets": {
            "goodput_tolerance": GOODPUT_TOLERANCE,
            "speed_min": SPEED_TARGET,
            "cmd_min": startup.CMD_TARGET,
            "short_command_max": startup.SHORT_TARGET,
        },
        "environment": _environment(),
        "cases": rows,
        "runs": raw,
    }
    (out_dir / "bench.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    (out_dir / "bench.md").write_text(format_markdown(report), encoding="utf-8")
    return report, all_ok


def _fastest(repeat: int, run: Any, *args: Any) -> dict[str, Any]:
    """The same deterministic run `repeat` times; keeps the fastest.

    Results are identical between repetitions (same seed), so only the wall times differ, and the
    minimum is the least disturbed by whatever else the machine is doing.
    """
    best: dict[str, Any] | None = None
    for _ in range(max(1, repeat)):
        result = run(*args)
        if best is None:
            best = result
            continue
        for key in ("sim_wall_s", "cmd_wall_s", "cmd_cpu_s"):
            if result.get(key) is not None and (best.get(key) is None or result[key] < best[key]):
                best[key] = result[key]
    assert best is not None
    return best


def _parse_cases(text: str) -> list[float]:
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"--cases: {error}") from error


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="airtcp bench",
        description="Benchmark airtcp against ns-3 3.44 on a lossy point-to-point TCP scenario.",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"{QUICK_DURATION_S:g} s runs, PER "
        f"{', '.join(f'{c:g}' for c in QUICK_CASES)}, one seed",
    )
    parser.add_argument("--out", default="bench/out", help="output folder (default bench/out)")
    parser.add_argument("--cases", type=_parse_cases, help="comma-separated packet error rates")
    parser.add_argument("--seeds", type=int, help="seeds per case (runs seeds 1..N)")
    parser.add_argument("--duration", type=float, help="simulated seconds per run")
    parser.add_argument(
        "--recovery",
        choices=RECOVERIES,
        default=DEFAULT_RECOVERY,
        help="loss recovery, set alike in both simulators: prr (Proportional Rate Reduction: "
        "ns-3's default TcpPrrRecovery, airtcp recovery=prr; the default) or classic (cwnd = "
        "ssthresh at once, RFC 6675: ns-3's TcpClassicRecovery, airtcp recovery=classic)",
    )
    parser.add_argument(
        "--ns3-ssthresh",
        choices=("pipe", "flightsize"),
        default="pipe",
        help="ssthresh rule on loss, set alike in both simulators: pipe/2 (stock ns-3; airtcp "
        "ssthresh_basis=pipe; default) or FlightSize/2 (RFC 5681, airtcp's default; ns-3 via a "
        "one-method NewReno subclass), see bench/README.md",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="run each case N times and keep the fastest wall times (default 1)",
    )
    parser.add_argument(
        "--ns3-only", action="store_true", help="skip airtcp (checks the ns-3 side)"
    )
    parser.add_argument(
        "--build-ns3",
        action="store_true",
        help="only fetch ns-3 and compile its program, then exit",
    )
    return parser


def main(
    quick: bool | Sequence[str] = False,
    out: str = "bench/out",
    cases: Iterable[float] | None = None,
    **options: Any,
) -> int:
    """Entry point. Called with options, or with an argument list (`airtcp bench ARGS`)."""
    if isinstance(quick, (list, tuple)):
        try:
            args = _parser().parse_args(list(quick))
        except SystemExit as stop:  # --help, or a usage error already printed
            return stop.code if isinstance(stop.code, int) else 2
        if args.build_ns3:
            try:
                print(build_ns3())
            except BenchError as error:
                log(f"error: {error}")
                return 1
            return 0
        quick, out, cases = args.quick, args.out, args.cases
        options = {
            "seeds": args.seeds,
            "duration_s": args.duration,
            "recovery": args.recovery,
            "ns3_only": args.ns3_only,
            "repeat": args.repeat,
            "ns3_ssthresh": args.ns3_ssthresh,
        }
    try:
        report, all_ok = run_benchmark(quick=bool(quick), out=out, cases=cases, **options)
    except NotACheckout as error:
        log(f"error: {error}")
        return 2
    except (BenchError, subprocess.TimeoutExpired) as error:
        log(f"error: {error}")
        return 1

    cfg = report["config"]
    print(
        f"airtcp vs ns-{NS3_VERSION} ({cfg['recovery']} recovery in both, ssthresh from "
        f"{cfg['ns3_ssthresh']}): {cfg['duration_s']:g} s "
        f"simulated, {cfg['seeds']} seed(s) per case; goodput = mean over seeds, wall = sum"
    )
    print(format_table(report["cases"]))
    print(
        f"targets: goodput ratio within 1 ± {GOODPUT_TOLERANCE:.2f}, "
        f"speed (ns-3/airtcp simulation loop) >= {SPEED_TARGET:g}x"
    )
    if not cfg["ns3_only"]:
        print()
        print(startup.format_startup(report["cases"]))
    for row in report["cases"]:
        for error in row["errors"]:
            print(f"failed: PER {row['per']:g}: {error}")
    print(f"written: {Path(out) / 'bench.json'}, {Path(out) / 'bench.md'}")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
