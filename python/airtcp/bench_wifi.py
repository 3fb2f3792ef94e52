"""ns-3 3.44 reference figures for TCP over multi-hop 802.11b, reproducible by one command.

Three cases, each a C++ program in `bench/wifi/` compiled against the same prebuilt ns-3 as the
wired benchmark (`airtcp.bench`):

- `chain`: N = 1..8 hops on a line, 200 m apart, range 250 m, static routes, one bulk TCP NewReno
  flow from the first node to the last; basic access with classic and with PRR recovery, and
  RTS/CTS with classic recovery;
- `grid`: 10 x 10 nodes, AODV, 10 bulk TCP flows between node pairs drawn with a fixed seed;
- `saturation`: N = 1, 5, 10, 20 saturated UDP senders around one receiver, 2 and 11 Mbps, basic
  access and RTS/CTS, beside Bianchi's model evaluated with the DCF parameters ns-3 reports.

    python -m airtcp.bench_wifi [--cases chain,grid,saturation] [--quick] [--out DIR] [--seeds N]

Writes `OUT/ns3_wifi.json` (settings, parameters, summaries and every run) and `OUT/ns3_wifi.md`,
and prints the tables; `--update-reference` also rewrites `bench/wifi/ns3_reference.json`, the
figures airtcp's tests compare against without running ns-3. `bench/wifi/README.md` documents
the configuration and the parameters.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from airtcp.bench import (
    NS3_REQUIREMENT,
    NS3_VERSION,
    BenchError,
    _environment,
    _log,
    _tail,
    _timed,
    compile_ns3_program,
)

__all__ = ["bianchi_throughput", "build_programs", "draw_pairs", "main", "run_reference"]

PROGRAMS = ("wifi_chain", "wifi_grid", "wifi_saturation")
WIFI_LIBS = (
    "aodv",
    "wifi",
    "mobility",
    "propagation",
    "applications",
    "internet",
    "traffic-control",
    "network",
    "core",
)
CASES = ("chain", "grid", "saturation")

# chain
CHAIN_HOPS = tuple(range(1, 9))
QUICK_CHAIN_HOPS = (1, 2, 4)
CHAIN_START_S = 1.0
CHAIN_DURATION_S = 100.0
QUICK_CHAIN_DURATION_S = 20.0
# (name, RTS/CTS, TCP recovery): ns-3's default recovery is PRR; airtcp implements classic
# NewReno/SACK recovery, so classic is the reference and PRR shows how much the choice matters.
CHAIN_VARIANTS = (
    ("basic_classic", False, "classic"),
    ("basic_prr", False, "prr"),
    ("rtscts_classic", True, "classic"),
)
QUICK_CHAIN_VARIANTS = CHAIN_VARIANTS[:1]
# The figure quoted for one hop (ns-3, range 250 m, 200 m, no RTS/CTS), with its tolerance.
ONE_HOP_QUOTED_KBPS = 1402.0
ONE_HOP_TOLERANCE = 0.10

# grid
GRID_ROWS = 10
GRID_COLS = 10
GRID_FLOWS = 10
GRID_PAIR_SEED = 1
GRID_START_S = 1.0
GRID_STAGGER_S = 0.1
GRID_DURATION_S = 100.0
QUICK_GRID_DURATION_S = 20.0

# saturation
SAT_STATIONS = (1, 5, 10, 20)
QUICK_SAT_STATIONS = (1, 5)
SAT_MODES = ("DsssRate2Mbps", "DsssRate11Mbps")
QUICK_SAT_MODES = ("DsssRate2Mbps",)
SAT_WARMUP_S = 1.0
SAT_WINDOW_S = 20.0
QUICK_SAT_WINDOW_S = 5.0
SAT_PAYLOAD_BYTES = 1000

FULL_SEEDS = 3
QUICK_SEEDS = 1

# --------------------------------------------------------------------------------------------
# Files and build


def find_wifi_dir() -> Path:
    """The repository's `bench/wifi/` folder (from the working directory, else this file)."""
    candidates = [
        Path.cwd() / "bench" / "wifi",
        Path(__file__).resolve().parents[2] / "bench" / "wifi",
    ]
    for candidate in candidates:
        if all((candidate / f"{name}.cc").is_file() for name in PROGRAMS):
            return candidate
    raise BenchError("cannot find bench/wifi/*.cc; run from the repository root")


def build_programs(wifi_dir: Path | None = None, *, force: bool = False) -> dict[str, Path]:
    """Compiles the three programs once (idempotent); returns their binaries by name.

    They share the ns-3 unpacked for the wired benchmark under `bench/ns3/build/` and are
    compiled into `bench/ns3/build/wifi/`, so one `rm -rf bench/ns3/build` removes everything.
    """
    wifi_dir = wifi_dir or find_wifi_dir()
    build_dir = wifi_dir.parent / "ns3" / "build"
    header = wifi_dir / "wifi_common.h"
    return {
        name: compile_ns3_program(
            wifi_dir / f"{name}.cc",
            build_dir / "wifi" / name,
            build_dir,
            libs=WIFI_LIBS,
            depends=(header,),
            force=force,
        )
        for name in PROGRAMS
    }


def run_program(binary: Path, args: Sequence[str]) -> dict[str, Any]:
    """One run; its JSON line plus the whole command's wall and CPU time."""
    cmd = [str(binary), *args]
    proc, wall, cpu = _timed(cmd)
    if proc.returncode != 0:
        raise BenchError(
            f"{binary.name} {' '.join(args)} exited with {proc.returncode}: "
            f"{_tail(proc.stderr or proc.stdout)}"
        )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise BenchError(f"{binary.name} printed no result: {_tail(proc.stdout)}")
    result = json.loads(lines[-1])
    result["cmd_wall_s"] = wall
    result["cmd_cpu_s"] = cpu
    result["args"] = list(args)
    return result


# --------------------------------------------------------------------------------------------
# Grid flow pairs and Bianchi's model


def draw_pairs(nodes: int, flows: int, seed: int = GRID_PAIR_SEED) -> list[tuple[int, int]]:
    """`flows` distinct (source, destination) pairs of distinct nodes, reproducibly.

    Python's `random.Random(seed).randrange` (stable across Python 3 versions); a pair equal to
    an earlier one or with source = destination is drawn again. The pairs are also stored in
    the reference file, which is what airtcp uses.
    """
    rng = random.Random(seed)
    pairs: list[tuple[int, int]] = []
    while len(pairs) < flows:
        src, dst = rng.randrange(nodes), rng.randrange(nodes)
        if src != dst and (src, dst) not in pairs:
            pairs.append((src, dst))
    return pairs


def bianchi_throughput(
    n: int,
    *,
    slot_us: float,
    difs_us: float,
    sifs_us: float,
    cw_min: int,
    cw_max: int,
    retry_limit: int,
    data_us: float,
    ack_us: float,
    payload_bits: float,
    rts_us: float | None = None,
    cts_us: float | None = None,
) -> float:
    """Saturation throughput (payload bit/s) of n stations, Bianchi (2000) with a retry limit.

    A station's attempt probability tau follows from the renewal argument behind Bianchi's
    Markov chain: attempts per packet over attempts plus backoff slots, with stage i drawing
    uniformly from [0, CW_i], CW_i = min(2^i (cw_min + 1), cw_max + 1) - 1, and at most
    `retry_limit` attempts (ns-3's FrameRetryLimit counts attempts). A collision costs the
    longest frame involved plus DIFS (basic) or the RTS plus DIFS (RTS/CTS), as in the paper;
    propagation delay is neglected (10 m here).
    """

    def tau_of(p: float) -> float:
        attempts = 0.0
        backoff = 0.0
        for i in range(retry_limit):
            cw = min((cw_min + 1) * 2**i, cw_max + 1) - 1
            attempts += p**i
            backoff += p**i * cw / 2.0
        return attempts / (attempts + backoff)

    if n == 1:
        tau = tau_of(0.0)
    else:
        lo, hi = 0.0, 1.0
        for _ in range(200):
            mid = (lo + hi) / 2
            p = 1.0 - (1.0 - mid) ** (n - 1)
            if mid - tau_of(p) < 0:
                lo = mid
            else:
                hi = mid
        tau = (lo + hi) / 2
    p_tr = 1.0 - (1.0 - tau) ** n
    p_s = n * tau * (1.0 - tau) ** (n - 1) / p_tr
    if rts_us is None or cts_us is None:
        t_s = data_us + sifs_us + ack_us + difs_us
        t_c = data_us + difs_us
    else:
        t_s = rts_us + sifs_us + cts_us + sifs_us + data_us + sifs_us + ack_us + difs_us
        t_c = rts_us + difs_us
    mean_slot_us = (1 - p_tr) * slot_us + p_tr * p_s * t_s + p_tr * (1 - p_s) * t_c
    return p_s * p_tr * payload_bits / (mean_slot_us * 1e-6)


def _response_mode(runs: Iterable[dict[str, Any]], frame: str) -> str | None:
    """The rate ns-3 actually used for a control frame (`CTL_ACK`, `CTL_CTS`) in these runs."""
    for run in runs:
        for key in (run.get("wifi") or {}).get("frame_kinds", {}):
            parts = key.split()
            if parts and parts[0] == frame:
                return parts[2]
    return None


def _bianchi_for(
    params: dict[str, Any], mode: str, rtscts: bool, n: int, ack_mode: str, cts_mode: str | None
) -> float:
    dcf = params["dcf"]
    durations = dcf["durations_long_preamble"]
    rts = durations["DsssRate1Mbps"]["rts_20B_us"] if rtscts else None
    cts = durations[cts_mode or "DsssRate1Mbps"]["cts_14B_us"] if rtscts else None
    return bianchi_throughput(
        n,
        slot_us=dcf["slot_us"],
        difs_us=dcf["difs_us"],
        sifs_us=dcf["sifs_us"],
        cw_min=dcf["cw_min"],
        cw_max=dcf["cw_max"],
        retry_limit=dcf["frame_retry_limit"],
        data_us=durations[mode]["udp_1000_1064B_us"],
        ack_us=durations[ack_mode]["ack_14B_us"],
        payload_bits=8.0 * SAT_PAYLOAD_BYTES,
        rts_us=rts,
        cts_us=cts,
    )


# --------------------------------------------------------------------------------------------
# Statistics


def _mean(values: Iterable[float | None]) -> float | None:
    xs = [float(v) for v in values if v is not None]
    return statistics.fmean(xs) if xs else None


def _sd(values: Iterable[float | None]) -> float | None:
    xs = [float(v) for v in values if v is not None]
    return statistics.stdev(xs) if len(xs) > 1 else None


def _kbps(bps: float | None) -> float | None:
    return None if bps is None else bps / 1e3


def _round(value: float | None, digits: int = 1) -> float | None:
    return None if value is None else round(value, digits)


def _wifi(run: dict[str, Any], key: str) -> Any:
    return (run.get("wifi") or {}).get(key)


def _mac_drops(run: dict[str, Any], reason: str) -> int:
    return int(((run.get("wifi") or {}).get("mac_drops") or {}).get(reason, 0))


def _common_figures(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """MAC and cost figures, means over seeds."""
    return {
        "frames_tx": _round(_mean(_wifi(r, "frames_tx") for r in runs)),
        # Every unacknowledged data frame; those not followed by a drop were retransmitted.
        "mac_data_failed": _round(_mean(_wifi(r, "mac_data_failed") for r in runs)),
        "mac_rts_failed": _round(_mean(_wifi(r, "mac_rts_failed") for r in runs)),
        "mac_retry_drops": _round(_mean(_mac_drops(r, "reached_retry_limit") for r in runs)),
        "mac_expired_drops": _round(_mean(_mac_drops(r, "expired_lifetime") for r in runs)),
        "mac_enqueue_drops": _round(
            _mean(_mac_drops(r, "failed_enqueue") + int(_wifi(r, "tc_drops") or 0) for r in runs)
        ),
        "mac_queue_peak": max((int(_wifi(r, "mac_queue_peak") or 0) for r in runs), default=None),
        "events": _round(_mean(r.get("events") for r in runs), 0),
        "sim_wall_s": _round(_mean(r.get("sim_wall_s") for r in runs), 3),
        "cmd_wall_s": _round(_mean(r.get("cmd_wall_s") for r in runs), 3),
        # Far less disturbed than wall time when other work shares the machine.
        "cmd_cpu_s": _round(_mean(r.get("cmd_cpu_s") for r in runs), 3),
        "peak_rss_kib": max((int(r.get("peak_rss_kib") or 0) for r in runs), default=None),
    }


# --------------------------------------------------------------------------------------------
# The cases


def _attempt(
    errors: list[str], what: str, run: Callable[..., dict[str, Any]], *args: Any
) -> dict[str, Any] | None:
    """`run(*args)`, or None with the failure recorded: one failed run does not end the others."""
    try:
        return run(*args)
    except (BenchError, subprocess.TimeoutExpired) as error:
        errors.append(f"{what}: {error}")
        _log(f"failed: {what}: {error}")
        return None


def run_chain(
    binary: Path,
    *,
    hops: Sequence[int],
    variants: Sequence[tuple[str, bool, str]],
    seeds: int,
    duration_s: float,
    errors: list[str],
) -> dict[str, Any]:
    runs: list[dict[str, Any]] = []
    summary: dict[str, list[dict[str, Any]]] = {}
    for name, rtscts, recovery in variants:
        rows = []
        for n in hops:
            group = []
            for seed in range(1, seeds + 1):
                args = [
                    f"--hops={n}",
                    f"--duration={duration_s!r}",
                    f"--start={CHAIN_START_S!r}",
                    f"--seed={seed}",
                    f"--rtscts={int(rtscts)}",
                    f"--recovery={recovery}",
                ]
                what = f"chain {name} N={n} seed {seed}"
                _log(f"{what} ...")
                result = _attempt(errors, what, run_program, binary, args)
                if result is not None:
                    result["variant"] = name
                    group.append(result)
            runs += group
            goodputs = [_kbps(r["goodput_bps"]) for r in group]
            rows.append(
                {
                    "hops": n,
                    "goodput_kbps": _round(_mean(goodputs), 2),
                    "goodput_kbps_sd": _round(_sd(goodputs), 2),
                    "goodput_kbps_per_seed": [_round(g, 2) for g in goodputs],
                    "tcp_recoveries": _round(_mean(r.get("tcp_recoveries") for r in group)),
                    "tcp_rtos": _round(_mean(r.get("tcp_rtos") for r in group)),
                    **_common_figures(group),
                }
            )
            if name == variants[0][0] and group:
                # Sizes, rates and counts of every frame kind of one run, for checking frame
                # sizes and MAC behaviour without rerunning ns-3.
                rows[-1]["frame_kinds_first_seed"] = _wifi(group[0], "frame_kinds")
        summary[name] = rows
    return {
        "settings": {
            "program": "bench/wifi/wifi_chain.cc",
            "hops": list(hops),
            "spacing_m": 200.0,
            "range_m": 250.0,
            "start_s": CHAIN_START_S,
            "duration_s": duration_s,
            "goodput": "bytes received by the PacketSink x 8 / (duration - start)",
            "routing": "Ipv4StaticRoutingHelper, /32 host routes along the line",
            "arp": "NeighborCacheHelper::PopulateNeighborCache (permanent entries, no ARP traffic)",
            "queue_disc": "none (removed after address assignment)",
            "variants": [
                {"name": name, "rtscts": rtscts, "recovery": recovery}
                for name, rtscts, recovery in variants
            ],
            "seeds": list(range(1, seeds + 1)),
        },
        "variants": summary,
        "runs": runs,
    }


def run_grid(binary: Path, *, seeds: int, duration_s: float, errors: list[str]) -> dict[str, Any]:
    pairs = draw_pairs(GRID_ROWS * GRID_COLS, GRID_FLOWS, GRID_PAIR_SEED)
    pair_arg = ",".join(f"{s}-{d}" for s, d in pairs)
    runs = []
    for seed in range(1, seeds + 1):
        args = [
            f"--pairs={pair_arg}",
            f"--rows={GRID_ROWS}",
            f"--cols={GRID_COLS}",
            f"--duration={duration_s!r}",
            f"--start={GRID_START_S!r}",
            f"--stagger={GRID_STAGGER_S!r}",
            f"--seed={seed}",
            # AODV's attributes ride along with the first run.
            f"--params={int(seed == 1)}",
        ]
        _log(f"grid seed {seed} ...")
        result = _attempt(errors, f"grid seed {seed}", run_program, binary, args)
        if result is not None:
            runs.append(result)
    flows = []
    for i, (src, dst) in enumerate(pairs):
        goodputs = [_kbps(r["flows"][i]["goodput_bps"]) for r in runs]
        flows.append(
            {
                "flow": i,
                "src": src,
                "dst": dst,
                "start_s": round(GRID_START_S + i * GRID_STAGGER_S, 6),
                "goodput_kbps": _round(_mean(goodputs), 2),
                "goodput_kbps_sd": _round(_sd(goodputs), 2),
                "goodput_kbps_per_seed": [_round(g, 2) for g in goodputs],
            }
        )
    totals = [_kbps(r["goodput_bps"]) for r in runs]
    aodv = next((r["params"]["aodv"] for r in runs if "params" in r), None)
    return {
        "settings": {
            "program": "bench/wifi/wifi_grid.cc",
            "rows": GRID_ROWS,
            "cols": GRID_COLS,
            "node_position": "node k at (200 * (k % cols), 200 * (k // cols)) m",
            "spacing_m": 200.0,
            "range_m": 250.0,
            "flows": GRID_FLOWS,
            "pairs": [list(p) for p in pairs],
            "pair_draw": f"airtcp.bench_wifi.draw_pairs(100, 10, seed={GRID_PAIR_SEED})",
            "start_s": [round(GRID_START_S + i * GRID_STAGGER_S, 6) for i in range(len(pairs))],
            "duration_s": duration_s,
            "goodput": "per flow: bytes received x 8 / (duration - flow start); total: sum",
            "routing": "AodvHelper with ns-3's defaults",
            "arp": "NeighborCacheHelper::PopulateNeighborCache (permanent entries, no ARP traffic)",
            "queue_disc": "none (removed after address assignment)",
            "rtscts": False,
            "recovery": "classic",
            "seeds": list(range(1, seeds + 1)),
            "aodv_attributes": aodv,
        },
        "flows": flows,
        "total_goodput_kbps": _round(_mean(totals), 2),
        "total_goodput_kbps_sd": _round(_sd(totals), 2),
        "total_goodput_kbps_per_seed": [_round(t, 2) for t in totals],
        **_common_figures(runs),
        "runs": runs,
    }


def run_saturation(
    binary: Path,
    *,
    stations: Sequence[int],
    modes: Sequence[str],
    seeds: int,
    window_s: float,
    params: dict[str, Any] | None,
    errors: list[str],
) -> dict[str, Any]:
    runs: list[dict[str, Any]] = []
    rows = []
    for mode in modes:
        for rtscts in (False, True):
            for n in stations:
                group = []
                for seed in range(1, seeds + 1):
                    args = [
                        f"--stations={n}",
                        f"--data-mode={mode}",
                        f"--rtscts={int(rtscts)}",
                        f"--warmup={SAT_WARMUP_S!r}",
                        f"--duration={window_s!r}",
                        f"--payload={SAT_PAYLOAD_BYTES}",
                        f"--seed={seed}",
                    ]
                    access = "rtscts" if rtscts else "basic"
                    what = f"saturation {mode} {access} N={n} seed {seed}"
                    _log(f"{what} ...")
                    result = _attempt(errors, what, run_program, binary, args)
                    if result is not None:
                        group.append(result)
                runs += group
                throughputs = [_kbps(r["throughput_bps"]) for r in group]
                ack_mode = _response_mode(group, "CTL_ACK") or mode
                cts_mode = _response_mode(group, "CTL_CTS")
                bianchi = (
                    _bianchi_for(params, mode, rtscts, n, ack_mode, cts_mode) / 1e3
                    if params
                    else None
                )
                mean = _mean(throughputs)
                rows.append(
                    {
                        "data_mode": mode,
                        "access": "rtscts" if rtscts else "basic",
                        "stations": n,
                        "throughput_kbps": _round(mean, 2),
                        "throughput_kbps_sd": _round(_sd(throughputs), 2),
                        "throughput_kbps_per_seed": [_round(t, 2) for t in throughputs],
                        "bianchi_kbps": _round(bianchi, 2),
                        "ns3_over_bianchi": (
                            None if mean is None or not bianchi else round(mean / bianchi, 4)
                        ),
                        "ack_mode": ack_mode,
                        "cts_mode": cts_mode,
                        **_common_figures(group),
                    }
                )
    return {
        "settings": {
            "program": "bench/wifi/wifi_saturation.cc",
            "stations": list(stations),
            "data_modes": list(modes),
            "control_mode": "DsssRate1Mbps",
            "placement": "receiver at the origin, senders evenly on a circle of radius 10 m",
            "range_m": 250.0,
            "traffic": "OnOffApplication, always on, UDP, 1000-byte payload, 2 x the PHY data "
            "rate per sender",
            "warmup_s": SAT_WARMUP_S,
            "window_s": window_s,
            "throughput": "UDP payload bytes received in [warmup, warmup + window) x 8 / window",
            "queue_disc": "none (removed after address assignment)",
            "bianchi": "airtcp.bench_wifi.bianchi_throughput with ns-3's slot, SIFS, DIFS, CW, "
            "retry limit and frame durations (long preamble; ACK/CTS at the rates ns-3 used)",
            "seeds": list(range(1, seeds + 1)),
        },
        "rows": rows,
        "runs": runs,
    }


def _load_average() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def collect_params(binary: Path) -> dict[str, Any]:
    """The attribute values ns-3 runs with, from a short one-hop chain run (node 0's device)."""
    result = run_program(binary, ["--hops=1", "--duration=2", "--params=1"])
    return result["params"]


# --------------------------------------------------------------------------------------------
# Driver


def run_reference(
    *,
    cases: Sequence[str] = CASES,
    quick: bool = False,
    out: str | Path = "bench/out/wifi",
    seeds: int | None = None,
    hops: Sequence[int] | None = None,
    stations: Sequence[int] | None = None,
) -> tuple[dict[str, Any], bool]:
    """Builds the programs, runs the selected cases; returns the report and whether all ran."""
    wifi_dir = find_wifi_dir()
    binaries = build_programs(wifi_dir)
    seeds = seeds or (QUICK_SEEDS if quick else FULL_SEEDS)
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
    # Wall times stretch when other work shares the cores; the load tells how much to trust them
    # (cmd_cpu_s is the steadier figure).
    report["environment"]["load_average_1min"] = {"start": load_start, "end": _load_average()}
    report["errors"] = errors
    (out_dir / "ns3_wifi.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    (out_dir / "ns3_wifi.md").write_text(format_markdown(report), encoding="utf-8")
    return report, not errors


def reference_from(report: dict[str, Any]) -> dict[str, Any]:
    """The committed reference: the report without the per-run records."""

    def strip(section: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in section.items() if k != "runs"}

    ref: dict[str, Any] = {
        "about": "ns-3 reference figures for airtcp's 802.11b model; regenerate with "
        "`python -m airtcp.bench_wifi --update-reference` (bench/wifi/README.md)",
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
        lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---:" for _ in headers) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in body]
        return "\n".join(lines)
    table = [list(headers)] + body
    widths = [max(len(line[i]) for line in table) for i in range(len(headers))]
    out = []
    for n, line in enumerate(table):
        out.append("  ".join(cell.rjust(w) for cell, w in zip(line, widths)))
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def chain_tables(chain: dict[str, Any], markdown: bool = False) -> str:
    variants = chain["variants"]
    names = list(variants)
    base = variants[names[0]]
    headers = (
        ["N"]
        + [f"{n} kbps" for n in names]
        + [
            "sd",
            "MAC fails",
            "retry drops",
            "expired",
            "frames",
            "events",
            "Run() s",
        ]
    )
    rows = []
    for i, row in enumerate(base):
        cells = [str(row["hops"])]
        cells += [_fmt(variants[n][i]["goodput_kbps"]) for n in names]
        cells += [
            _fmt(row["goodput_kbps_sd"]),
            _fmt(row["mac_data_failed"], ".0f"),
            _fmt(row["mac_retry_drops"], ".0f"),
            _fmt(row["mac_expired_drops"], ".0f"),
            _fmt(row["frames_tx"], ".0f"),
            _fmt(row["events"], ".0f"),
            _fmt(row["sim_wall_s"], ".2f"),
        ]
        rows.append(cells)
    return _table(headers, rows, markdown)


def grid_tables(grid: dict[str, Any], markdown: bool = False) -> str:
    headers = ["flow", "src", "dst", "start s", "kbps", "sd", "per seed"]
    rows = [
        [
            str(f["flow"]),
            str(f["src"]),
            str(f["dst"]),
            _fmt(f["start_s"], ".1f"),
            _fmt(f["goodput_kbps"]),
            _fmt(f["goodput_kbps_sd"]),
            " ".join(_fmt(g) for g in f["goodput_kbps_per_seed"]),
        ]
        for f in grid["flows"]
    ]
    rows.append(
        [
            "total",
            "",
            "",
            "",
            _fmt(grid["total_goodput_kbps"]),
            _fmt(grid["total_goodput_kbps_sd"]),
            " ".join(_fmt(g) for g in grid["total_goodput_kbps_per_seed"]),
        ]
    )
    cost = (
        f"Run() {_fmt(grid['sim_wall_s'], '.1f')} s, "
        f"command {_fmt(grid['cmd_wall_s'], '.1f')} s, "
        f"{_fmt(grid['events'], '.0f')} events, {_fmt(grid['frames_tx'], '.0f')} frames, "
        f"peak RSS {_fmt(grid['peak_rss_kib'], 'd')} KiB (means over seeds; RSS the largest)"
    )
    return _table(headers, rows, markdown) + "\n\n" + cost


def saturation_tables(sat: dict[str, Any], markdown: bool = False) -> str:
    headers = [
        "data rate",
        "access",
        "N",
        "ns-3 kbps",
        "sd",
        "Bianchi kbps",
        "ns-3/Bianchi",
        "ACK rate",
        "MAC fails",
        "Run() s",
    ]
    rows = [
        [
            r["data_mode"],
            r["access"],
            str(r["stations"]),
            _fmt(r["throughput_kbps"]),
            _fmt(r["throughput_kbps_sd"]),
            _fmt(r["bianchi_kbps"]),
            _fmt(r["ns3_over_bianchi"], ".3f"),
            r["ack_mode"] or "n/a",
            _fmt((r["mac_data_failed"] or 0) + (r["mac_rts_failed"] or 0), ".0f"),
            _fmt(r["sim_wall_s"], ".2f"),
        ]
        for r in sat["rows"]
    ]
    return _table(headers, rows, markdown)


def dcf_line(params: dict[str, Any]) -> str:
    d = params["dcf"]
    return (
        f"DCF as ns-3 runs it: slot {d['slot_us']:g} us, SIFS {d['sifs_us']:g} us, AIFSN "
        f"{d['aifsn']} (DIFS {d['difs_us']:g} us), CW {d['cw_min']}..{d['cw_max']}, "
        f"{d['frame_retry_limit']} attempts per frame, MAC queue {d['mac_queue_max_packets']} "
        f"packets / {d['mac_queue_max_delay_ms']:g} ms"
    )


def one_hop_line(chain: dict[str, Any]) -> str | None:
    variants = chain["variants"]
    basic = {v["name"] for v in chain["settings"]["variants"] if not v["rtscts"]}
    parts = []
    for name, rows in variants.items():
        if name not in basic:  # the quoted figure is for basic access
            continue
        for row in rows:
            if row["hops"] == 1 and row["goodput_kbps"] is not None:
                ratio = row["goodput_kbps"] / ONE_HOP_QUOTED_KBPS
                ok = abs(ratio - 1) <= ONE_HOP_TOLERANCE
                mark = "" if ok else ", outside"
                parts.append(f"{name} {row['goodput_kbps']:.1f} kbps ({ratio:.3f}{mark})")
    if not parts:
        return None
    return f"one hop vs the quoted {ONE_HOP_QUOTED_KBPS:g} kbps: " + "; ".join(parts)


def format_markdown(report: dict[str, Any]) -> str:
    env = report["environment"]
    lines = [
        f"# ns-{report['ns3']} 802.11b reference figures",
        "",
        f"- date: {report['date']}; seeds 1..{report['seeds']}; quick: {report['quick']}",
        f"- machine: {env['cpu']}, {env['cores']} cores",
        f"- {dcf_line(report['params'])}",
        "",
    ]
    if "chain" in report:
        chain = report["chain"]
        lines += [
            f"## chain ({chain['settings']['duration_s']:g} s, goodput mean over seeds; other "
            "columns: the first variant, means over seeds)",
            "",
            chain_tables(chain, markdown=True),
            "",
        ]
        hop = one_hop_line(chain)
        if hop:
            lines += [hop, ""]
    if "grid" in report:
        lines += [
            f"## grid ({report['grid']['settings']['duration_s']:g} s)",
            "",
            grid_tables(report["grid"], markdown=True),
            "",
        ]
    if "saturation" in report:
        lines += [
            f"## saturation ({report['saturation']['settings']['window_s']:g} s window)",
            "",
            saturation_tables(report["saturation"], markdown=True),
            "",
        ]
    if report.get("errors"):
        lines += ["## Failed runs", ""] + [f"- {e.splitlines()[0]}" for e in report["errors"]]
        lines.append("")
    return "\n".join(lines)


def print_report(report: dict[str, Any]) -> None:
    print(f"ns-{report['ns3']} 802.11b reference, seeds 1..{report['seeds']}")
    print(dcf_line(report["params"]))
    if "chain" in report:
        chain = report["chain"]
        print(
            f"\nchain: {chain['settings']['duration_s']:g} s, goodput = mean over seeds; "
            "MAC/cost columns for the first variant"
        )
        print(chain_tables(chain))
        hop = one_hop_line(chain)
        if hop:
            print(hop)
    if "grid" in report:
        print(f"\ngrid: {report['grid']['settings']['duration_s']:g} s, AODV, 10 TCP flows")
        print(grid_tables(report["grid"]))
    if "saturation" in report:
        print(f"\nsaturation: {report['saturation']['settings']['window_s']:g} s window, UDP")
        print(saturation_tables(report["saturation"]))
    for error in report.get("errors", []):
        print(f"failed: {error.splitlines()[0]}")


def _int_list(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def _case_list(text: str) -> list[str]:
    cases = [c.strip() for c in text.split(",") if c.strip()]
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown case(s) {', '.join(unknown)}; known: {', '.join(CASES)}"
        )
    return cases


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m airtcp.bench_wifi",
        description="ns-3 3.44 reference figures for TCP over multi-hop 802.11b "
        "(chain, grid, saturation); see bench/wifi/README.md.",
    )
    parser.add_argument(
        "--cases",
        type=_case_list,
        default=list(CASES),
        help="comma-separated: chain,grid,saturation (default all)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: chain N=1,2,4 for 20 s (basic access, classic), grid 20 s, saturation "
        "N=1,5 at 2 Mbps for 5 s; one seed",
    )
    parser.add_argument(
        "--out", default="bench/out/wifi", help="output folder (default bench/out/wifi)"
    )
    parser.add_argument(
        "--seeds", type=int, help=f"seeds 1..N (default {FULL_SEEDS}, quick {QUICK_SEEDS})"
    )
    parser.add_argument("--hops", type=_int_list, help="chain hop counts, e.g. 1,2,3")
    parser.add_argument("--stations", type=_int_list, help="saturation station counts, e.g. 1,5")
    parser.add_argument(
        "--update-reference",
        action="store_true",
        help="also write bench/wifi/ns3_reference.json from this run (full runs only)",
    )
    parser.add_argument("--build", action="store_true", help="only compile the programs, then exit")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: `python -m airtcp.bench_wifi ARGS`, or `main([...])` from Python."""
    try:
        args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as stop:  # --help, or a usage error already printed
        return stop.code if isinstance(stop.code, int) else 2
    try:
        if args.build:
            for path in build_programs().values():
                print(path)
            return 0
        reduced = args.quick or args.hops or args.stations or args.seeds not in (None, FULL_SEEDS)
        if args.update_reference and reduced:
            # The committed reference is always the full set, so tests can rely on its shape.
            _log(
                "error: --update-reference needs a full run (no --quick/--hops/--stations/--seeds)"
            )
            return 2
        report, all_ok = run_reference(
            cases=args.cases,
            quick=args.quick,
            out=args.out,
            seeds=args.seeds,
            hops=args.hops,
            stations=args.stations,
        )
    except (BenchError, subprocess.TimeoutExpired) as error:
        _log(f"error: {error}")
        return 1
    print_report(report)
    out = Path(args.out)
    written = [out / "ns3_wifi.json", out / "ns3_wifi.md"]
    if args.update_reference:
        if not all_ok:
            _log("error: some runs failed; the reference file was left unchanged")
            return 1
        target = find_wifi_dir() / "ns3_reference.json"
        reference = reference_from(report)
        if target.is_file() and set(args.cases) != set(CASES):
            # A partial run refreshes only its own cases and keeps the others.
            previous = json.loads(target.read_text(encoding="utf-8"))
            for case in CASES:
                if case not in reference and case in previous:
                    reference[case] = previous[case]
        target.write_text(json.dumps(reference, indent=1) + "\n", encoding="utf-8")
        written.append(target)
    print("written: " + ", ".join(str(p) for p in written))
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
