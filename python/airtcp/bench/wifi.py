"""airtcp against ns-3 3.44 on TCP over multi-hop 802.11b, and ns-3's reference figures.

The benchmark (`python -m airtcp.bench.wifi`, `make bench-wifi`) runs both simulators in the same
run, each as a separate command, on the cases of `bench/wifi/` (C++ programs for ns-3, compiled
against the same prebuilt ns-3 as the wired benchmark `airtcp.bench.wired`; YAML templates for airtcp,
varied with `--set`):

- `chain`: N = 1..8 hops on a line, 200 m apart, range 250 m, static routes, one bulk TCP NewReno
  flow from the first node to the last for 100 s;
- `grid`: 10 x 10 nodes 200 m apart, AODV, 10 bulk TCP flows between node pairs drawn with a
  fixed seed, for 100 s;
- `scale` (airtcp only): a connected 10,000-node random mesh with 100 TCP flows for 60 s.

It prints, per case, the goodput of each (mean over seeds), their ratio, the wall time of each
simulation loop and of each whole command with their ratios, and for the scale case its wall time
and peak memory, each beside its target. `--ns3-from-reference` takes ns-3's figures from
`bench/wifi/ns3_reference.json` instead of running it.

    python -m airtcp.bench.wifi [--cases chain,grid,scale] [--quick] [--out DIR] [--seeds N]
                                [--hops 3,6] [--ns3-from-reference]

Writes `OUT/bench_wifi.json` (every run of both) and `OUT/bench_wifi.md`.

The ns-3 reference runs alone (`--ns3-only`, or `--update-reference` to rewrite
`bench/wifi/ns3_reference.json`, the figures airtcp's tests compare against) cover `chain` (basic
access with classic and with PRR recovery, and RTS/CTS), `grid`, and `saturation` (N = 1, 5, 10,
20 saturated UDP senders around one receiver, 2 and 11 Mbps, basic access and RTS/CTS, beside
Bianchi's model evaluated with the DCF parameters ns-3 reports); they write `OUT/ns3_wifi.json`
and `OUT/ns3_wifi.md`. `bench/wifi/README.md` documents the configuration and the parameters.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import yaml

from airtcp.bench.wired import (
    NS3_REQUIREMENT,
    NS3_VERSION,
    BenchError,
    _environment,
    _log,
    _tail,
    _timed,
    airtcp_command,
    compile_ns3_program,
)

__all__ = [
    "bianchi_throughput",
    "build_programs",
    "draw_pairs",
    "main",
    "place_connected_mesh",
    "run_benchmark",
    "run_reference",
]

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
    """The `bench/wifi/` folder of the airtcp source checkout the command runs in (a developer
    tool, not in the installed package: see `airtcp.bench.wired.find_bench_dir`)."""
    candidate = Path.cwd() / "bench" / "wifi"
    if all((candidate / f"{name}.cc").is_file() for name in PROGRAMS):
        return candidate
    raise BenchError("cannot find bench/wifi/*.cc; the benchmarks run from the root of an airtcp source checkout")


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
            "pair_draw": f"airtcp.bench.wifi.draw_pairs(100, 10, seed={GRID_PAIR_SEED})",
            "start_s": [round(GRID_START_S + i * GRID_STAGGER_S, 6) for i in range(len(pairs))],
            "duration_s": duration_s,
            "goodput": "per flow: bytes received x 8 / (duration - flow start); total: sum",
            "routing": "AodvHelper with ns-3's defaults (HELLOs on, no local repair)",
            "arp": "hand-made PERMANENT ArpCache entries for every node (no ARP traffic; AODV's "
            "neighbour table learns MAC addresses, so MAC retry failures break routes)",
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
            "bianchi": "airtcp.bench.wifi.bianchi_throughput with ns-3's slot, SIFS, DIFS, CW, "
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
# The ns-3 reference runs


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


# --------------------------------------------------------------------------------------------
# The reference runs' tables


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


# --------------------------------------------------------------------------------------------
# airtcp against ns-3: settings, templates and the checks that they match

BENCH_CASES = ("chain", "grid", "scale")
QUICK_BENCH_HOPS = (3, 6)
BENCH_TEMPLATES = {
    "chain": "airtcp_chain.yaml",
    "grid": "airtcp_grid.yaml",
    "scale": "airtcp_mesh.yaml",
}
GOODPUT_TOLERANCE = 0.20
SPEED_TARGET = 20.0

# The scale case: the template's mesh, with flows between pairs drawn from these seeds.
SCALE_FLOWS = 100
SCALE_PLACEMENT_SEED = 1
# Not the placement seed: the pairs would otherwise come from the same stream as the positions.
SCALE_PAIR_SEED = 2
SCALE_RUN_SEED = 1
# Flow i starts 10 ms after flow i - 1, so that 100 handshakes do not leave in the same instant.
SCALE_STAGGER_NS = 10_000_000
QUICK_SCALE_DURATION_S = 10.0
SCALE_WALL_TARGET_S = 600.0
SCALE_RSS_TARGET_BYTES = 4 * 10**9
# Gives up placing the mesh if this many rounds of re-placing stray nodes do not connect it.
SCALE_PLACEMENT_ROUNDS = 1000

AIRTCP_TIMEOUT_S = 3600.0

# What the ns-3 programs compile in (wifi_common.h, bench/wifi/README.md), in the normalised form
# of an airtcp scenario: bits/s, bytes, metres, nanoseconds.
EXPECTED_RADIO: dict[str, Any] = {
    "standard": "802.11b",
    "data_rate": 2_000_000,
    # RTS/CTS and broadcasts go at 1 Mbps in ns-3 (ControlMode, NonUnicastMode).
    "basic_rate": 1_000_000,
    "rts_cts": False,
    "propagation": {"kind": "range", "range": 250.0},
    "fading": {"kind": "none"},
    # No capture model in ns-3: the SINR error model alone decides.
    "reception": "sinr",
    # ns-3's ad-hoc stations acknowledge at the data rate.
    "ack_rate": "data",
    "preamble": "long",
    "queue": {"kind": "droptail", "packets": 500},
    # FrameRetryLimit 7 counts attempts; airtcp's limit counts retransmissions.
    "short_retry_limit": 6,
    "mac_overhead": 36,
}
EXPECTED_TCP: dict[str, Any] = {
    "kind": "tcp",
    "cc": "newreno",
    "sack": True,
    "mss": 1000,
    # 20 IP + 20 TCP + 12 timestamp option.
    "header_bytes": 52,
    "delayed_ack": 2,
    "delayed_ack_timeout": 200_000_000,
    "initial_cwnd": 10,
    "initial_ssthresh": None,
    "rwnd": 1 << 20,
    "dupthresh": 3,
    # ns-3 halves the data in flight (the pipe) on a loss.
    "ssthresh_basis": "pipe",
    "min_rto": 1_000_000_000,
    "max_rto": 60_000_000_000,
    "initial_rto": 1_000_000_000,
    "clock_granularity": 1_000_000,
}
_S = 1_000_000_000


def _differences(where: str, got: Any, want: Any) -> list[str]:
    """Where `got` differs from `want`; only the keys `want` names are compared."""
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return [f"{where} is {got!r}, expected a mapping"]
        problems = []
        for key, value in want.items():
            problems += _differences(f"{where}.{key}", got.get(key), value)
        return problems
    return [] if got == want else [f"{where} is {got!r}, expected {want!r} (as in ns-3)"]


def expected_settings(case: str) -> dict[str, Any]:
    """The normalised scenario fields the template of `case` must have to match ns-3's case."""
    flow = {"app": {"kind": "bulk", "bytes": None}, "transport": EXPECTED_TCP, "stop": None}
    if case == "chain":
        return {
            "duration": int(CHAIN_DURATION_S * _S),
            "radio": EXPECTED_RADIO,
            "topology": {"kind": "chain", "spacing": 200.0},
            "routing": {"kind": "static", "metric": "hops"},
            "flows": [{**flow, "src": "n0", "start": int(CHAIN_START_S * _S)}],
        }
    if case == "grid":
        pairs = draw_pairs(GRID_ROWS * GRID_COLS, GRID_FLOWS, GRID_PAIR_SEED)
        return {
            "duration": int(GRID_DURATION_S * _S),
            "radio": EXPECTED_RADIO,
            "topology": {"kind": "grid", "rows": GRID_ROWS, "cols": GRID_COLS, "spacing": 200.0},
            "routing": {"kind": "aodv", "local_repair": False},
            "flows": [
                {
                    **flow,
                    "src": f"n{src}",
                    "dst": f"n{dst}",
                    "start": round((GRID_START_S + i * GRID_STAGGER_S) * _S),
                }
                for i, (src, dst) in enumerate(pairs)
            ],
        }
    if case == "scale":
        return {
            "radio": EXPECTED_RADIO,
            "topology": {"kind": "random"},
            "routing": {"kind": "static", "metric": "hops"},
            "flows": [flow],
        }
    raise ValueError(f"unknown case {case!r}")


def template_problems(case: str, normalised: dict[str, Any]) -> list[str]:
    """Differences between a template (airtcp's normalised form) and ns-3's settings."""
    want = expected_settings(case)
    problems = []
    for key, value in want.items():
        if key == "flows":
            flows = normalised.get("flows") or []
            if len(flows) != len(value):
                problems.append(f"flows: {len(flows)} flows, expected {len(value)}")
            for i, (got, expected) in enumerate(zip(flows, value)):
                problems += _differences(f"flows[{i}]", got, expected)
        else:
            problems += _differences(key, normalised.get(key), value)
    return problems


def check_templates(wifi_dir: Path, cases: Iterable[str] = BENCH_CASES) -> list[str]:
    """Validates the templates of `cases` as airtcp does and compares them with ns-3's settings."""
    from airtcp.scenario.schema import load_scenario, to_core_dict
    from airtcp.errors import ScenarioError

    problems = []
    for case in cases:
        path = wifi_dir / BENCH_TEMPLATES[case]
        try:
            normalised = to_core_dict(load_scenario(path))
        except ScenarioError as error:
            problems.append(f"{path.name}: {error}")
            continue
        problems += [f"{path.name}: {p}" for p in template_problems(case, normalised)]
    return problems


# --------------------------------------------------------------------------------------------
# The scale case's mesh: placement, connectivity, scenario


Position = tuple[float, float]


def unit_disk_neighbours(positions: Sequence[Position], range_m: float) -> list[list[int]]:
    """For every node, the nodes within `range_m` of it (the unit-disk graph of the positions).

    Nodes are bucketed into range-sized cells, so only the 3 x 3 cells around a node are searched.
    The range is inclusive, as airtcp's range propagation is.
    """
    cells: dict[tuple[int, int], list[int]] = {}
    for i, (x, y) in enumerate(positions):
        cells.setdefault((math.floor(x / range_m), math.floor(y / range_m)), []).append(i)
    limit = range_m * range_m
    neighbours: list[list[int]] = [[] for _ in positions]
    for (cx, cy), members in cells.items():
        nearby = [
            j for dx in (-1, 0, 1) for dy in (-1, 0, 1) for j in cells.get((cx + dx, cy + dy), ())
        ]
        for i in members:
            xi, yi = positions[i]
            neighbours[i] = [
                j
                for j in nearby
                if j != i and (positions[j][0] - xi) ** 2 + (positions[j][1] - yi) ** 2 <= limit
            ]
    return neighbours


def components(neighbours: Sequence[Sequence[int]]) -> list[int]:
    """Connected-component label of every node, labels numbered from 0 in order of discovery."""
    label = [-1] * len(neighbours)
    count = 0
    for start in range(len(neighbours)):
        if label[start] >= 0:
            continue
        label[start] = count
        stack = [start]
        while stack:
            i = stack.pop()
            for j in neighbours[i]:
                if label[j] < 0:
                    label[j] = count
                    stack.append(j)
        count += 1
    return label


def hop_count(neighbours: Sequence[Sequence[int]], src: int, dst: int) -> int | None:
    """Fewest hops from src to dst in the graph (breadth-first search), None if unreachable."""
    if src == dst:
        return 0
    depth = {src: 0}
    frontier = [src]
    while frontier:
        following = []
        for i in frontier:
            for j in neighbours[i]:
                if j not in depth:
                    if j == dst:
                        return depth[i] + 1
                    depth[j] = depth[i] + 1
                    following.append(j)
        frontier = following
    return None


def _place(rng: random.Random, width: float, height: float) -> Position:
    # Millimetres: the scenario file holds exactly these values, so the connectivity checked here
    # is the one airtcp sees.
    return (round(rng.uniform(0.0, width), 3), round(rng.uniform(0.0, height), 3))


def place_connected_mesh(
    n: int,
    width: float,
    height: float,
    range_m: float,
    seed: int = SCALE_PLACEMENT_SEED,
    *,
    max_rounds: int = SCALE_PLACEMENT_ROUNDS,
) -> tuple[list[Position], int]:
    """n positions uniform in width x height whose unit-disk graph is connected.

    Placed uniformly with `random.Random(seed)`; the nodes outside the largest connected component
    are then placed again (uniformly, same stream) until every node is in one component, so the
    mesh keeps its n nodes and flows between any two of them have a route. Returns the positions
    and how many placements were redone (a handful at ten neighbours per node).
    """
    rng = random.Random(seed)
    positions = [_place(rng, width, height) for _ in range(n)]
    redone = 0
    for _ in range(max_rounds):
        label = components(unit_disk_neighbours(positions, range_m))
        sizes: dict[int, int] = {}
        for c in label:
            sizes[c] = sizes.get(c, 0) + 1
        largest = max(sizes, key=lambda c: (sizes[c], -c))
        strays = [i for i, c in enumerate(label) if c != largest]
        if not strays:
            return positions, redone
        for i in strays:
            positions[i] = _place(rng, width, height)
        redone += len(strays)
    raise BenchError(
        f"{n} nodes in {width:g} m x {height:g} m with a {range_m:g} m range did not form a "
        f"connected mesh after {max_rounds} rounds of placing stray nodes again"
    )


def mesh_scenario(
    template: dict[str, Any],
    positions: Sequence[Position],
    pairs: Sequence[tuple[int, int]],
    *,
    stagger_ns: int = SCALE_STAGGER_NS,
    duration: str | None = None,
) -> dict[str, Any]:
    """The scale template with the given node positions and flows between the given pairs.

    The topology becomes `explicit` with nodes named n0..n{N-1} (the names the template's `random`
    topology would give them), and the flows are copies of the template's flows[0] with flow i
    from pairs[i] starting at flows[0].start + i x stagger.
    """
    from airtcp.scenario.units import format_duration, parse_duration

    scenario = copy.deepcopy(template)
    scenario["topology"] = {
        "kind": "explicit",
        "nodes": [
            {"name": f"n{i}", "x": f"{x:.3f}m", "y": f"{y:.3f}m"}
            for i, (x, y) in enumerate(positions)
        ],
    }
    model = template["flows"][0]
    start_ns = parse_duration(model.get("start", "0s"))
    flows = []
    for i, (src, dst) in enumerate(pairs):
        flow = copy.deepcopy(model)
        flow.update(
            id=f"f{i}",
            src=f"n{src}",
            dst=f"n{dst}",
            start=format_duration(start_ns + i * stagger_ns),
        )
        flows.append(flow)
    scenario["flows"] = flows
    if duration is not None:
        scenario["duration"] = duration
    return scenario


# --------------------------------------------------------------------------------------------
# Running airtcp


def _run_measured(
    cmd: Sequence[str], timeout: float
) -> tuple[int, str, str, float, float, int | None]:
    """Runs cmd; returns its exit code, stdout, stderr, wall time, CPU time and peak RSS (KiB).

    `os.wait4` gives the usage of this one process (getrusage's RUSAGE_CHILDREN would give the
    largest RSS of every child so far, ns-3's included). Output goes to temporary files, so a
    large output cannot block the child while nothing reads the pipe.
    """
    if not hasattr(os, "wait4"):
        proc, wall, cpu = _timed(cmd)
        return proc.returncode, proc.stdout, proc.stderr, wall, cpu, None
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(list(cmd), stdout=out, stderr=err)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        proc.returncode = code  # reaped here; keeps Popen from waiting again
        if wall >= timeout and code < 0:
            raise subprocess.TimeoutExpired(list(cmd), timeout)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    # Linux reports ru_maxrss in KiB, macOS in bytes.
    rss = usage.ru_maxrss // 1024 if sys.platform == "darwin" else usage.ru_maxrss
    return code, stdout, stderr, wall, usage.ru_utime + usage.ru_stime, int(rss)


def run_airtcp(
    command: Sequence[str],
    scenario: Path,
    out_dir: Path,
    *,
    seed: int,
    sets: Sequence[str] = (),
    timeout: float = AIRTCP_TIMEOUT_S,
) -> dict[str, Any]:
    """One `airtcp run`; its goodputs, simulation-loop and command cost, drops and queue peak."""
    cmd = [*command, "run", str(scenario), "--out", str(out_dir), "--force", "--quiet"]
    cmd += ["--seed", str(seed)]
    for setting in sets:
        cmd += ["--set", setting]
    code, stdout, stderr, wall, cpu, rss = _run_measured(cmd, timeout)
    if code != 0:
        raise BenchError(
            f"airtcp run {scenario.name} {' '.join(cmd[len(command) + 2 :])} exited with "
            f"{code}: {_tail(stderr or stdout)}"
        )
    try:
        summary = json.loads((out_dir / "summary.json").read_text(encoding="utf-8"))
        timing = json.loads((out_dir / "timing.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise BenchError(f"airtcp wrote no readable summary.json/timing.json in {out_dir}: {error}")
    flows = [
        {
            key: flow.get(key)
            for key in (
                "id",
                "src",
                "dst",
                "start_s",
                "goodput_bps",
                "bytes_delivered",
                "retransmissions",
                "timeouts",
            )
        }
        for flow in summary.get("flows") or []
    ]
    drops: dict[str, int] = {}
    for row in summary.get("drops") or []:
        drops[row["reason"]] = drops.get(row["reason"], 0) + int(row.get("packets", 0))
    queues = summary.get("queues") or []
    return {
        "seed": seed,
        "sets": list(sets),
        # Each flow's goodput is over [its start, the end of the run], as ns-3's is.
        "goodput_bps": sum(float(f["goodput_bps"] or 0.0) for f in flows),
        "flows": flows,
        "sim_wall_s": timing.get("wall_s"),
        "events": timing.get("events"),
        "cmd_wall_s": wall,
        "cmd_cpu_s": cpu,
        "peak_rss_kib": rss,
        "drops": drops,
        "radio_transmitted": sum(int(q.get("transmitted", 0)) for q in queues),
        "queue_peak": max((int(q.get("max_backlog", 0)) for q in queues), default=None),
        "jain": summary.get("jain"),
    }


def _seconds(value: float) -> str:
    return f"{value:g}s"


def airtcp_chain_runs(
    command: Sequence[str],
    template: Path,
    out_dir: Path,
    *,
    hops: int,
    seeds: int,
    duration_s: float,
    errors: list[str],
) -> list[dict[str, Any]]:
    runs = []
    for seed in range(1, seeds + 1):
        sets = [
            f"topology.hops={hops}",
            f"flows[0].dst=n{hops}",
            f"duration={_seconds(duration_s)}",
        ]
        what = f"airtcp chain N={hops} seed {seed}"
        _log(f"{what} ...")
        run_dir = out_dir / "runs" / f"chain-{hops}" / f"seed-{seed}"
        result = _attempt(
            errors, what, lambda: run_airtcp(command, template, run_dir, seed=seed, sets=sets)
        )
        if result is not None:
            runs.append(result)
    return runs


def airtcp_grid_runs(
    command: Sequence[str],
    template: Path,
    out_dir: Path,
    *,
    seeds: int,
    duration_s: float,
    errors: list[str],
) -> list[dict[str, Any]]:
    runs = []
    for seed in range(1, seeds + 1):
        sets = [f"duration={_seconds(duration_s)}"]
        what = f"airtcp grid seed {seed}"
        _log(f"{what} ...")
        run_dir = out_dir / "runs" / "grid" / f"seed-{seed}"
        result = _attempt(
            errors, what, lambda: run_airtcp(command, template, run_dir, seed=seed, sets=sets)
        )
        if result is not None:
            runs.append(result)
    return runs


# --------------------------------------------------------------------------------------------
# ns-3's side: live runs or the stored reference, in one shape


def load_reference(wifi_dir: Path) -> dict[str, Any]:
    path = wifi_dir / "ns3_reference.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise BenchError(f"cannot read {path}: {error}") from error


def _ns3_figures(
    summary: dict[str, Any], per_seed: list[float | None], seeds: int
) -> dict[str, Any]:
    """ns-3's goodput over seeds 1..seeds and its cost (means over the seeds it was run with)."""
    chosen = per_seed[:seeds]
    return {
        "goodput_kbps": _mean(chosen),
        "goodput_kbps_per_seed": chosen,
        "sim_wall_s": summary.get("sim_wall_s"),
        "cmd_wall_s": summary.get("cmd_wall_s"),
        "cmd_cpu_s": summary.get("cmd_cpu_s"),
        "events": summary.get("events"),
        "peak_rss_kib": summary.get("peak_rss_kib"),
    }


def ns3_chain_figures(chain: dict[str, Any], hops: int, seeds: int) -> dict[str, Any] | None:
    """ns-3's figures for an N-hop chain (basic access, classic recovery) from `run_chain`'s
    result or the reference file's `chain` section; None if that N is not in it."""
    for row in chain["variants"]["basic_classic"]:
        if row["hops"] == hops:
            return _ns3_figures(row, row["goodput_kbps_per_seed"], seeds)
    return None


def ns3_grid_figures(grid: dict[str, Any], seeds: int) -> dict[str, Any]:
    figures = _ns3_figures(grid, grid["total_goodput_kbps_per_seed"], seeds)
    figures["flows"] = [_mean(f["goodput_kbps_per_seed"][:seeds]) for f in grid["flows"]]
    return figures


# --------------------------------------------------------------------------------------------
# Comparison


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b == 0 else a / b


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


def grid_flow_rows(
    airtcp_runs: list[dict[str, Any]], ns3: dict[str, Any] | None
) -> list[dict[str, Any]]:
    """Per-flow goodput of the grid in each simulator (means over seeds)."""
    pairs = draw_pairs(GRID_ROWS * GRID_COLS, GRID_FLOWS, GRID_PAIR_SEED)
    ns3_flows = (ns3 or {}).get("flows") or [None] * len(pairs)
    rows = []
    for i, (src, dst) in enumerate(pairs):
        a = _mean(
            _kbps(r["flows"][i]["goodput_bps"]) for r in airtcp_runs if len(r["flows"]) > i
        )
        rows.append(
            {
                "flow": i,
                "src": src,
                "dst": dst,
                "start_s": round(GRID_START_S + i * GRID_STAGGER_S, 6),
                "goodput_airtcp_kbps": _round(a, 2),
                "goodput_ns3_kbps": _round(ns3_flows[i], 2),
                "goodput_ratio": _round(_ratio(a, ns3_flows[i]), 3),
            }
        )
    return rows


# --------------------------------------------------------------------------------------------
# The scale case


def run_scale(
    command: Sequence[str],
    wifi_dir: Path,
    out_dir: Path,
    *,
    duration_s: float | None,
    errors: list[str],
) -> dict[str, Any]:
    """Places the mesh, writes its scenario, runs airtcp once; the cost against the targets."""
    from airtcp.scenario.units import parse_distance, parse_duration

    template_path = wifi_dir / BENCH_TEMPLATES["scale"]
    template = yaml.safe_load(template_path.read_text(encoding="utf-8"))
    topology = template["topology"]
    n = int(topology["n"])
    width = parse_distance(topology["width"])
    height = parse_distance(topology["height"])
    range_m = parse_distance(template["radio"]["propagation"]["range"])

    _log(f"scale: placing {n} nodes ...")
    started = time.perf_counter()
    positions, redone = place_connected_mesh(n, width, height, range_m, SCALE_PLACEMENT_SEED)
    neighbours = unit_disk_neighbours(positions, range_m)
    pairs = draw_pairs(n, SCALE_FLOWS, SCALE_PAIR_SEED)
    hops = [hop_count(neighbours, s, d) for s, d in pairs]
    duration = None if duration_s is None else _seconds(duration_s)
    scenario = mesh_scenario(template, positions, pairs, duration=duration)
    scenario_path = out_dir / "scale" / "mesh.json"
    scenario_path.parent.mkdir(parents=True, exist_ok=True)
    # JSON is YAML, and writes and reads 10,000 nodes faster.
    scenario_path.write_text(json.dumps(scenario) + "\n", encoding="utf-8")
    prepare_s = time.perf_counter() - started

    sim_duration_s = parse_duration(scenario["duration"]) / _S
    found = [h for h in hops if h is not None]
    report: dict[str, Any] = {
        "template": f"bench/wifi/{template_path.name}",
        "scenario": str(scenario_path),
        "nodes": n,
        "width_m": width,
        "height_m": height,
        "range_m": range_m,
        "placement": f"uniform, random.Random({SCALE_PLACEMENT_SEED}); nodes outside the largest "
        "connected component placed again until connected",
        "placements_redone": redone,
        "mean_degree": round(sum(len(nb) for nb in neighbours) / n, 2),
        "flows": len(pairs),
        "pairs": [list(p) for p in pairs],
        "pair_draw": f"airtcp.bench.wifi.draw_pairs({n}, {SCALE_FLOWS}, seed={SCALE_PAIR_SEED})",
        "hops_mean": _round(_mean(found), 1),
        "hops_min": min(found, default=None),
        "hops_max": max(found, default=None),
        "duration_s": sim_duration_s,
        "seed": SCALE_RUN_SEED,
        "prepare_s": round(prepare_s, 2),
        "targets": {"wall_s": SCALE_WALL_TARGET_S, "peak_rss_bytes": SCALE_RSS_TARGET_BYTES},
    }
    _log(f"airtcp scale: {n} nodes, {len(pairs)} flows, {sim_duration_s:g} s ...")
    run = _attempt(
        errors,
        "airtcp scale",
        lambda: run_airtcp(
            command, scenario_path, out_dir / "runs" / "scale", seed=SCALE_RUN_SEED
        ),
    )
    if run is None:
        report["run"] = None
        report["wall_ok"] = report["rss_ok"] = None
        return report
    rss_bytes = None if run["peak_rss_kib"] is None else run["peak_rss_kib"] * 1024
    goodputs = [f["goodput_bps"] or 0.0 for f in run["flows"]]
    report.update(
        {
            "sim_wall_s": _round(run["sim_wall_s"], 3),
            "cmd_wall_s": _round(run["cmd_wall_s"], 3),
            "cmd_cpu_s": _round(run["cmd_cpu_s"], 3),
            "events": run["events"],
            "peak_rss_kib": run["peak_rss_kib"],
            "total_goodput_kbps": _round(sum(goodputs) / 1e3, 1),
            "flows_delivering": sum(1 for g in goodputs if g > 0),
            "jain": run["jain"],
            # The whole command is what a user waits for, so that is what the target is held to.
            "wall_ok": run["cmd_wall_s"] < SCALE_WALL_TARGET_S,
            "rss_ok": None if rss_bytes is None else rss_bytes < SCALE_RSS_TARGET_BYTES,
            "run": run,
        }
    )
    return report


# --------------------------------------------------------------------------------------------
# The benchmark driver


def run_benchmark(
    *,
    cases: Sequence[str] = BENCH_CASES,
    quick: bool = False,
    out: str | Path = "bench/out/wifi",
    seeds: int | None = None,
    hops: Sequence[int] | None = None,
    ns3_from_reference: bool = False,
) -> tuple[dict[str, Any], bool]:
    """airtcp and ns-3 on the chain and grid cases, airtcp alone on the scale case.

    ns-3 runs in the same benchmark run unless `ns3_from_reference`, which takes its figures from
    `bench/wifi/ns3_reference.json` instead (100 s runs, seeds 1-3; airtcp then runs 100 s too).
    Returns the report and whether every run succeeded.
    """
    wifi_dir = find_wifi_dir()
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    seeds = seeds or (QUICK_SEEDS if quick else FULL_SEEDS)
    hops = list(hops or (QUICK_BENCH_HOPS if quick else CHAIN_HOPS))
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
        if reference["grid"]["settings"]["pairs"] != [
            list(p) for p in draw_pairs(GRID_ROWS * GRID_COLS, GRID_FLOWS, GRID_PAIR_SEED)
        ]:
            raise BenchError("the reference's grid pairs are not the ones airtcp_grid.yaml uses")
    else:
        chain_duration = QUICK_CHAIN_DURATION_S if quick else CHAIN_DURATION_S
        grid_duration = QUICK_GRID_DURATION_S if quick else GRID_DURATION_S
        if "chain" in cases or "grid" in cases:
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
            "file": "bench/wifi/ns3_reference.json",
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
            runs = airtcp_chain_runs(
                command,
                wifi_dir / BENCH_TEMPLATES["chain"],
                out_dir,
                hops=n,
                seeds=seeds,
                duration_s=chain_duration,
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

    if "grid" in cases:
        if reference:
            ns3_grid = reference["grid"]
        else:
            ns3_grid = run_grid(
                binaries["wifi_grid"], seeds=seeds, duration_s=grid_duration, errors=errors
            )
        runs = airtcp_grid_runs(
            command,
            wifi_dir / BENCH_TEMPLATES["grid"],
            out_dir,
            seeds=seeds,
            duration_s=grid_duration,
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

    report["environment"]["load_average_1min"] = {"start": load_start, "end": _load_average()}
    report["errors"] = errors
    (out_dir / "bench_wifi.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    (out_dir / "bench_wifi.md").write_text(format_bench_markdown(report), encoding="utf-8")
    return report, not errors


# --------------------------------------------------------------------------------------------
# The benchmark's tables


def _mark(ok: bool | None) -> str:
    return "n/a" if ok is None else ("ok" if ok else "MISS")


BENCH_COLUMNS = (
    ("case", "case", None),
    ("airtcp kbps", "goodput_airtcp_kbps", ".1f"),
    ("ns-3 kbps", "goodput_ns3_kbps", ".1f"),
    ("ratio", "goodput_ratio", ".3f"),
    ("sim airtcp s", "sim_wall_airtcp_s", ".3f"),
    ("sim ns-3 s", "sim_wall_ns3_s", ".2f"),
    ("speed x", "speed_ratio", ".0f"),
    ("cmd airtcp s", "cmd_wall_airtcp_s", ".2f"),
    ("cmd ns-3 s", "cmd_wall_ns3_s", ".2f"),
    ("cmd x", "cmd_ratio", ".1f"),
)


def bench_table(rows: list[dict[str, Any]], markdown: bool = False) -> str:
    headers = [title for title, _, _ in BENCH_COLUMNS] + ["targets"]
    body = []
    for row in rows:
        cells = [
            row[key] if spec is None else _fmt(row[key], spec) for _, key, spec in BENCH_COLUMNS
        ]
        cells.append(f"goodput {_mark(row['goodput_ok'])}, speed {_mark(row['speed_ok'])}")
        body.append(cells)
    return _table(headers, body, markdown)


def bench_grid_flow_table(flows: list[dict[str, Any]], markdown: bool = False) -> str:
    headers = ["flow", "src", "dst", "start s", "airtcp kbps", "ns-3 kbps", "ratio"]
    rows = [
        [
            str(f["flow"]),
            str(f["src"]),
            str(f["dst"]),
            _fmt(f["start_s"], ".1f"),
            _fmt(f["goodput_airtcp_kbps"]),
            _fmt(f["goodput_ns3_kbps"]),
            _fmt(f["goodput_ratio"], ".2f"),
        ]
        for f in flows
    ]
    return _table(headers, rows, markdown)


def scale_lines(scale: dict[str, Any]) -> list[str]:
    lines = [
        f"{scale['nodes']} nodes in {scale['width_m'] / 1e3:g} km x {scale['height_m'] / 1e3:g} km "
        f"(range {scale['range_m']:g} m, mean degree {scale['mean_degree']:g}, "
        f"{scale['placements_redone']} placements redone to connect it), static routes, "
        f"{scale['flows']} TCP flows ({scale['hops_min']}-{scale['hops_max']} hops, mean "
        f"{_fmt(scale['hops_mean'])}), {scale['duration_s']:g} s simulated",
    ]
    if scale.get("run") is None:
        lines.append("the run failed (see below)")
        return lines
    rss = scale["peak_rss_kib"]
    rss_text = "n/a" if rss is None else f"{rss / 1024:.0f} MiB"
    lines += [
        f"wall time: simulation loop {_fmt(scale['sim_wall_s'], '.1f')} s, whole command "
        f"{_fmt(scale['cmd_wall_s'], '.1f')} s (target < {SCALE_WALL_TARGET_S / 60:g} min: "
        f"{_mark(scale['wall_ok'])})",
        f"peak RSS of the airtcp process: {rss_text} (target < {SCALE_RSS_TARGET_BYTES / 1e9:g} "
        f"GB: {_mark(scale['rss_ok'])})",
        f"{_fmt(scale['events'], ',')} events; total goodput {_fmt(scale['total_goodput_kbps'])} "
        f"kbps, {scale['flows_delivering']} of {scale['flows']} flows delivered data; "
        f"placing the mesh took {scale['prepare_s']:g} s (not in the times above)",
    ]
    return lines


def ns3_source_line(report: dict[str, Any]) -> str:
    if report["ns3_source"] == "live":
        return (
            f"ns-3 {report['ns3']}: run live in this benchmark run (bench/wifi/*.cc; basic access, "
            "classic recovery)"
        )
    ref = report["reference"]
    machine = ref.get("machine") or {}
    load = (machine.get("load_average_1min") or {}).get("start")
    return (
        f"ns-3 {report['ns3']}: NOT run now; stored figures from {ref['file']} ({ref['date']}, "
        f"{machine.get('cpu')}, load {load}); its wall times are means over its seeds "
        f"{', '.join(str(s) for s in range(1, (ref.get('seeds') or 0) + 1))}"
    )


def _headline(report: dict[str, Any]) -> list[str]:
    seeds = report["seeds"]
    durations = []
    if "chain" in report:
        durations.append(f"chain {report['chain']['duration_s']:g} s")
    if "grid" in report:
        durations.append(f"grid {report['grid']['duration_s']:g} s")
    simulated = ", ".join(durations) or "no ns-3 case"
    return [
        f"airtcp vs ns-3 {report['ns3']}, 802.11b multi-hop: {simulated} simulated; seeds "
        f"{seeds[0]}..{seeds[-1]}; goodput = mean over seeds (grid: sum of its 10 flows), wall "
        "times = mean per run",
        ns3_source_line(report),
    ]


def _targets_line() -> str:
    return (
        f"targets: goodput ratio within 1 ± {GOODPUT_TOLERANCE:.2f}; speed (ns-3 Simulator::Run() "
        f"/ airtcp simulation loop) >= {SPEED_TARGET:g}x; scale: whole command < "
        f"{SCALE_WALL_TARGET_S / 60:g} min, peak RSS < {SCALE_RSS_TARGET_BYTES / 1e9:g} GB"
    )


def format_bench_markdown(report: dict[str, Any]) -> str:
    env = report["environment"]
    load = env.get("load_average_1min") or {}
    lines = ["# airtcp vs ns-3, 802.11b multi-hop", ""]
    lines += [f"- {line}" for line in _headline(report)]
    lines += [
        f"- date: {report['date']}; machine: {env['cpu']}, {env['cores']} cores; 1-minute load "
        f"{load.get('start')} at the start, {load.get('end')} at the end",
        f"- {_targets_line()}",
        "",
        "`sim` is the simulation loop alone (airtcp: `timing.json` `wall_s`; ns-3: "
        "`Simulator::Run()`), `cmd` the whole command (process start, scenario, output).",
        "",
    ]
    if report["rows"]:
        lines += [bench_table(report["rows"], markdown=True), ""]
    if "grid" in report:
        lines += ["## grid, per flow (mean over seeds)", ""]
        lines += [bench_grid_flow_table(report["grid"]["flows"], markdown=True), ""]
    if "scale" in report:
        lines += ["## scale (airtcp only)", ""]
        lines += [f"- {line}" for line in scale_lines(report["scale"])]
        lines.append("")
    if report["template_problems"]:
        lines += ["## Templates that differ from the ns-3 programs", ""]
        lines += [f"- {p}" for p in report["template_problems"]] + [""]
    if report["errors"]:
        lines += ["## Failed runs", ""] + [f"- {e.splitlines()[0]}" for e in report["errors"]]
        lines.append("")
    return "\n".join(lines)


def print_bench(report: dict[str, Any]) -> None:
    for line in _headline(report):
        print(line)
    if report["rows"]:
        print()
        print(bench_table(report["rows"]))
    print(_targets_line())
    if "grid" in report:
        print("\ngrid, per flow (mean over seeds):")
        print(bench_grid_flow_table(report["grid"]["flows"]))
    if "scale" in report:
        print("\nscale (airtcp only):")
        for line in scale_lines(report["scale"]):
            print(f"  {line}")
    for problem in report["template_problems"]:
        print(f"warning: {problem}")
    for error in report["errors"]:
        print(f"failed: {error.splitlines()[0]}")


# --------------------------------------------------------------------------------------------
# Command line


def _int_list(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def _name_list(text: str) -> list[str]:
    names = [c.strip() for c in text.split(",") if c.strip()]
    known = set(BENCH_CASES) | set(CASES)
    unknown = [c for c in names if c not in known]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown case(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
        )
    return names


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m airtcp.bench.wifi",
        description="airtcp against ns-3 3.44 on TCP over multi-hop 802.11b (chains, a 10x10 "
        "AODV grid) and airtcp alone on a 10,000-node mesh; with --ns3-only, the ns-3 reference "
        "runs alone (chain, grid, saturation). See bench/wifi/README.md.",
    )
    parser.add_argument(
        "--cases",
        type=_name_list,
        help="comma-separated; benchmark: chain,grid,scale (default all); with --ns3-only: "
        "chain,grid,saturation (default all)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"smoke run, one seed: benchmark chains N={','.join(map(str, QUICK_BENCH_HOPS))} "
        f"and the grid for {QUICK_CHAIN_DURATION_S:g} s (100 s with --ns3-from-reference), the "
        f"mesh for {QUICK_SCALE_DURATION_S:g} s; --ns3-only: chain N=1,2,4 for 20 s, grid 20 s, "
        "saturation N=1,5 at 2 Mbps for 5 s",
    )
    parser.add_argument(
        "--out", default="bench/out/wifi", help="output folder (default bench/out/wifi)"
    )
    parser.add_argument(
        "--seeds", type=int, help=f"seeds 1..N (default {FULL_SEEDS}, quick {QUICK_SEEDS})"
    )
    parser.add_argument("--hops", type=_int_list, help="chain hop counts, e.g. 3,6")
    parser.add_argument(
        "--ns3-from-reference",
        action="store_true",
        help="do not run ns-3: compare with the figures stored in bench/wifi/ns3_reference.json",
    )
    parser.add_argument(
        "--ns3-only",
        action="store_true",
        help="run only ns-3's reference cases and write ns3_wifi.json/md (no airtcp)",
    )
    parser.add_argument(
        "--stations", type=_int_list, help="saturation station counts (--ns3-only), e.g. 1,5"
    )
    parser.add_argument(
        "--update-reference",
        action="store_true",
        help="run ns-3's reference cases (implies --ns3-only) and rewrite "
        "bench/wifi/ns3_reference.json (full runs only)",
    )
    parser.add_argument("--build", action="store_true", help="only compile the programs, then exit")
    return parser


def _main_reference(args: argparse.Namespace) -> int:
    """--ns3-only / --update-reference: the ns-3 reference runs alone."""
    cases = args.cases or list(CASES)
    wrong = [c for c in cases if c not in CASES]
    if wrong:
        _log(f"error: --ns3-only runs {', '.join(CASES)}; not {', '.join(wrong)}")
        return 2
    reduced = args.quick or args.hops or args.stations or args.seeds not in (None, FULL_SEEDS)
    if args.update_reference and reduced:
        # The committed reference is always the full set, so tests can rely on its shape.
        _log("error: --update-reference needs a full run (no --quick/--hops/--stations/--seeds)")
        return 2
    report, all_ok = run_reference(
        cases=cases,
        quick=args.quick,
        out=args.out,
        seeds=args.seeds,
        hops=args.hops,
        stations=args.stations,
    )
    print_report(report)
    out = Path(args.out)
    written = [out / "ns3_wifi.json", out / "ns3_wifi.md"]
    if args.update_reference:
        if not all_ok:
            _log("error: some runs failed; the reference file was left unchanged")
            return 1
        target = find_wifi_dir() / "ns3_reference.json"
        reference = reference_from(report)
        if target.is_file() and set(cases) != set(CASES):
            # A partial run refreshes only its own cases and keeps the others.
            previous = json.loads(target.read_text(encoding="utf-8"))
            for case in CASES:
                if case not in reference and case in previous:
                    reference[case] = previous[case]
        target.write_text(json.dumps(reference, indent=1) + "\n", encoding="utf-8")
        written.append(target)
    print("written: " + ", ".join(str(p) for p in written))
    return 0 if all_ok else 1


def _main_bench(args: argparse.Namespace) -> int:
    cases = args.cases or list(BENCH_CASES)
    wrong = [c for c in cases if c not in BENCH_CASES]
    if wrong:
        _log(
            f"error: the benchmark runs {', '.join(BENCH_CASES)}; {', '.join(wrong)} only with "
            "--ns3-only"
        )
        return 2
    if args.stations:
        _log("error: --stations is for the saturation case, which only --ns3-only runs")
        return 2
    report, all_ok = run_benchmark(
        cases=cases,
        quick=args.quick,
        out=args.out,
        seeds=args.seeds,
        hops=args.hops,
        ns3_from_reference=args.ns3_from_reference,
    )
    print_bench(report)
    out = Path(args.out)
    print(f"written: {out / 'bench_wifi.json'}, {out / 'bench_wifi.md'}")
    return 0 if all_ok else 1


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: `python -m airtcp.bench.wifi ARGS`, or `main([...])` from Python.

    The exit code is non-zero only if a run failed or the options were wrong; missed targets are
    reported, not failures.
    """
    try:
        args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as stop:  # --help, or a usage error already printed
        return stop.code if isinstance(stop.code, int) else 2
    if args.ns3_from_reference and (args.ns3_only or args.update_reference):
        _log("error: --ns3-from-reference compares airtcp with stored figures; it runs no ns-3")
        return 2
    try:
        if args.build:
            for path in build_programs().values():
                print(path)
            return 0
        if args.ns3_only or args.update_reference:
            return _main_reference(args)
        return _main_bench(args)
    except (BenchError, subprocess.TimeoutExpired) as error:
        _log(f"error: {error}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
