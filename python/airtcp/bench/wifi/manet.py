"""MANET: TCP over AODV among 50 802.11b nodes moving under the steady-state random waypoint model
in 1500 m x 300 m, ns-3 3.44 (`bench/wifi/wifi_manet.cc`) against airtcp
(`bench/wifi/airtcp_manet.yaml`), means over seeds with the same parameters. ns-3's side is stored
in `bench/wifi/manet_reference.json`, with the trajectories of its seed-1 runs in ns-2 `setdest`
form under `bench/wifi/manet_traces/` (gzip), so that the comparison runs without ns-3 and airtcp
can also replay exactly ns-3's motion.

    python -m airtcp.bench.wifi.manet --update-reference    # 3 speeds x seeds 1-5 (15 runs), seed 1's motion
    python -m airtcp.bench.wifi.manet --show                # the stored figures
    python -m airtcp.bench.wifi.manet --compare             # airtcp, its own motion, seeds 1-5
    python -m airtcp.bench.wifi.manet --compare --replay    # airtcp on ns-3's seed-1 motion
    python -m airtcp.bench.wifi.manet --cases rwp-v20 --seeds 1 --duration 20 --out DIR   # ns-3 live, not stored

The cases differ only in the maximum speed (2, 10, 20 m/s; minimum 1 m/s, no pauses). Runs go one
at a time (`--jobs`), as every ns-3 run is a full CPU. `reference_for(case)` returns one stored
entry: total and per-flow goodput (mean, standard deviation and per seed, kbit/s), what happened
to each flow (connection opened, given up), AODV's message counts, timings and every run.
airtcp's side (`--compare`) needs a core with `mobility` in its scenario schema; until it has one
`scenario_data` still builds the scenarios (unvalidated), and `mobility_supported()` says so.
bench/wifi/README.md ("MANET") describes the case.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import datetime
import gzip
import hashlib
import json
import math
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PROGRAM = "wifi_manet"
REFERENCE_NAME = "manet_reference.json"
TRACE_DIR = "manet_traces"
AIRTCP_TEMPLATE = "airtcp_manet.yaml"
DEFAULT_OUT = "bench/out/wifi-manet"

NODES = 50
WIDTH_M = 1500.0
HEIGHT_M = 300.0
RANGE_M = 250.0
MIN_SPEED_MPS = 1.0
MAX_SPEEDS_MPS = (2.0, 10.0, 20.0)
MIN_PAUSE_S = 0.0
MAX_PAUSE_S = 0.0
FLOWS = 10
PAIR_SEED = 1
START_S = 1.0
STAGGER_S = 0.1
DURATION_S = 100.0
DEFAULT_SEEDS = 20
# The seeds whose motion is written and stored (ns-2 setdest files).
TRAJECTORY_SEEDS = (1,)
# ns-3's default recovery, as the grid's comparison runs it (and the template's `recovery: prr`).
RECOVERY = "prr"

# Goodput, airtcp / ns-3, mean over seeds: the benchmark's tolerance for the grid
# (airtcp.bench.wifi.common.GOODPUT_TOLERANCE); a MANET's spread over seeds is wider, so a ratio
# is only read together with both standard deviations.
TARGET = 0.20


def manet_pairs() -> list[tuple[int, int]]:
    """The flows' (source, destination) nodes: `draw_pairs(50, 10, seed=1)`, any pair (no
    connectivity requirement: the nodes move)."""
    from .grid import draw_pairs

    return draw_pairs(NODES, FLOWS, PAIR_SEED)


def flow_start_s(flow: int) -> float:
    """When flow i starts: 1 s + i x 0.1 s."""
    return round(START_S + flow * STAGGER_S, 6)


@dataclass(frozen=True)
class ManetCase:
    """One set of motion parameters; the nodes, area, flows and radio are the same in every case."""

    name: str
    max_speed_mps: float
    min_speed_mps: float = MIN_SPEED_MPS
    min_pause_s: float = MIN_PAUSE_S
    max_pause_s: float = MAX_PAUSE_S
    duration_s: float = DURATION_S
    pairs: tuple[tuple[int, int], ...] = field(default_factory=lambda: tuple(manet_pairs()))

    @property
    def what(self) -> str:
        return (
            f"{NODES} nodes, {WIDTH_M:g} m x {HEIGHT_M:g} m, steady-state random waypoint, "
            f"{self.min_speed_mps:g}-{self.max_speed_mps:g} m/s, pause "
            f"{self.min_pause_s:g}-{self.max_pause_s:g} s, AODV, {len(self.pairs)} bulk TCP flows"
        )

    def ns3_args(
        self, seed: int, duration_s: float | None = None, trajectory: str | Path | None = None
    ) -> list[str]:
        """The arguments of `wifi_manet` for this case and seed (`--seed` last, then
        `--trajectory` if the motion is to be written)."""
        args = [
            "--pairs=" + ",".join(f"{s}-{d}" for s, d in self.pairs),
            f"--nodes={NODES}",
            f"--width={WIDTH_M:g}",
            f"--height={HEIGHT_M:g}",
            f"--min-speed={self.min_speed_mps:g}",
            f"--max-speed={self.max_speed_mps:g}",
            f"--min-pause={self.min_pause_s:g}",
            f"--max-pause={self.max_pause_s:g}",
            f"--range={RANGE_M:g}",
            f"--duration={duration_s if duration_s is not None else self.duration_s:g}",
            f"--start={START_S:g}",
            f"--stagger={STAGGER_S:g}",
            f"--recovery={RECOVERY}",
            f"--seed={seed}",
        ]
        if trajectory is not None:
            args.append(f"--trajectory={trajectory}")
        return args

    def trace_name(self, seed: int = 1) -> str:
        """The stored motion of `seed`, under `bench/wifi/manet_traces/` (gzip)."""
        return f"rwp_v{self.max_speed_mps:g}_seed{seed}.ns_movements.gz"


CASES: tuple[ManetCase, ...] = tuple(ManetCase(f"rwp-v{v:g}", v) for v in MAX_SPEEDS_MPS)


def case_by_name(name: str) -> ManetCase:
    for case in CASES:
        if case.name == name:
            return case
    raise KeyError(name)


# --------------------------------------------------------------------------------------------
# The ns-3 program


def build(force: bool = False) -> Path:
    """Compiles `wifi_manet.cc` once (idempotent) into `bench/ns3/build/wifi/`."""
    from .ns3 import build_program

    return build_program(PROGRAM, force=force)


def run_ns3(
    case: ManetCase, seed: int, duration_s: float | None = None, trajectory: Path | None = None
) -> dict[str, Any]:
    """One run of ns-3: its JSON line plus the whole command's wall and CPU time."""
    from .ns3 import run_program

    return run_program(build(), case.ns3_args(seed, duration_s, trajectory))


# --------------------------------------------------------------------------------------------
# ns-2 movement files (what --trajectory writes)


@dataclass
class Ns2Motion:
    """An ns-2 `setdest` movement file: each node's position at t = 0 and its legs in time order,
    each `(t_s, node, x, y, speed)`: from t_s the node heads for (x, y) at `speed` m/s."""

    initial: dict[int, tuple[float, float, float]]
    legs: list[tuple[float, int, float, float, float]]

    def node_legs(self, node: int) -> list[tuple[float, float, float, float]]:
        return [(t, x, y, v) for t, n, x, y, v in self.legs if n == node]

    def position_at(self, node: int, t: float) -> tuple[float, float]:
        """Where `node` is at `t` s, replaying the file as ns-2 does: a leg runs straight at its
        speed until it arrives or the node's next leg begins."""
        x, y, _ = self.initial[node]
        for t0, tx, ty, v in self.node_legs(node):
            if t0 > t:
                break
            dist = math.hypot(tx - x, ty - y)
            travelled = min(dist, v * (t - t0))
            if dist > 0:
                x, y = x + (tx - x) * travelled / dist, y + (ty - y) * travelled / dist
        return x, y


def read_ns2_motion(path: Path) -> Ns2Motion:
    """Parses an ns-2 movement file (plain or gzip) as `wifi_manet --trajectory` writes it."""
    opener = gzip.open if path.suffix == ".gz" else open
    initial: dict[int, list[float]] = {}
    legs: list[tuple[float, int, float, float, float]] = []
    with opener(path, "rt", encoding="ascii") as f:
        for number, line in enumerate(f, 1):
            words = line.replace('"', " ").split()
            if not words:
                continue
            try:
                if words[0].startswith("$node_(") and words[1] == "set":
                    node = int(words[0][7:-1])
                    axis = "XYZ".index(words[2][0])
                    initial.setdefault(node, [0.0, 0.0, 0.0])[axis] = float(words[3])
                elif words[0] == "$ns_" and words[1] == "at" and words[4] == "setdest":
                    node = int(words[3][7:-1])
                    legs.append(
                        (float(words[2]), node, float(words[5]), float(words[6]), float(words[7]))
                    )
                else:
                    raise ValueError("neither a `set` nor a `setdest` line")
            except (ValueError, IndexError) as error:
                raise ValueError(f"{path}:{number}: {error}: {line.strip()!r}") from error
    return Ns2Motion({n: (p[0], p[1], p[2]) for n, p in sorted(initial.items())}, legs)


def trace_path(case: ManetCase, seed: int = 1) -> Path:
    from .ns3 import find_wifi_dir

    return find_wifi_dir() / TRACE_DIR / case.trace_name(seed)


@contextlib.contextmanager
def decompressed_trace(case: ManetCase, seed: int = 1) -> Iterator[Path]:
    """The stored motion of `case` and `seed`, decompressed to a temporary file for the length of
    the `with` block (airtcp's `{kind: ns2, file: ...}` reads a plain file)."""
    source = trace_path(case, seed)
    with tempfile.TemporaryDirectory(prefix="airtcp-manet-") as tmp:
        plain = Path(tmp) / source.name.removesuffix(".gz")
        with gzip.open(source, "rb") as f, plain.open("wb") as out:
            shutil.copyfileobj(f, out)
        yield plain


def store_trace(plain: Path, target: Path) -> dict[str, Any]:
    """gzips `plain` into `target` reproducibly (no name, time 0 in the header); returns what the
    reference records of it."""
    data = plain.read_bytes()
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as f:
        f.write(data)
    motion = read_ns2_motion(plain)
    return {
        "file": f"{TRACE_DIR}/{target.name}",
        "sha256_uncompressed": hashlib.sha256(data).hexdigest(),
        "bytes_uncompressed": len(data),
        "nodes": len(motion.initial),
        "setdest_lines": len(motion.legs),
    }


# --------------------------------------------------------------------------------------------
# Summaries over seeds


def _kbps(bps: float) -> float:
    return bps / 1e3


def _mean(xs: Sequence[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _sd(xs: Sequence[float]) -> float | None:
    """Sample standard deviation (n - 1), as the other references give it."""
    if len(xs) < 2:
        return None
    m = sum(xs) / len(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def _r(x: float | None, digits: int = 2) -> float | None:
    return None if x is None else round(x, digits)


def over_seeds(name: str, values: Sequence[float]) -> dict[str, Any]:
    return {
        name: _r(_mean(values)),
        f"{name}_sd": _r(_sd(values)),
        f"{name}_per_seed": [_r(v) for v in values],
    }


def jain(xs: Sequence[float]) -> float | None:
    """Jain's fairness index of `xs` (1: all equal; 1/n: one takes everything)."""
    s, q = sum(xs), sum(x * x for x in xs)
    return None if q == 0 else s * s / (len(xs) * q)


def _mean_counts(dicts: Sequence[dict[str, int]]) -> dict[str, float]:
    keys = sorted({k for d in dicts for k in d})
    return {k: _r(sum(d.get(k, 0) for d in dicts) / len(dicts), 1) for k in keys}


# The per-flow fields of a run kept in the reference (the program's own names).
_FLOW_FIELDS = (
    "rx_bytes",
    "goodput_bps",
    "established_s",
    "first_rx_s",
    "last_rx_s",
    "gave_up_s",
    "syn_tx",
    "retransmissions",
    "rto_at_end_s",
    "max_rto_s",
    "sender_state_at_end",
)
# The MAC figures of a run kept in the reference.
_WIFI_FIELDS = ("frames_tx", "mac_data_failed", "mac_drops", "phy_rx_drops", "mac_queue_peak")


def stored_run(run: dict[str, Any]) -> dict[str, Any]:
    """What the reference keeps of one run: the command, per-flow results, routing counters, MAC
    figures, motion check and cost."""
    args = [a if not a.startswith("--trajectory=") else "--trajectory=" + Path(a[13:]).name
            for a in run["args"]]
    return {
        "seed": run["seed"],
        "command": " ".join([f"bench/ns3/build/wifi/{PROGRAM}", *args]),
        "goodput_kbps": _r(_kbps(run["goodput_bps"]), 3),
        "flows": [
            {"src": f["src"], "dst": f["dst"], "start_s": f["start_s"],
             **{k: f[k] for k in _FLOW_FIELDS}}
            for f in run["flows"]
        ],
        "aodv_tx": run["aodv_tx"],
        "ip_drops": run["ip_drops"],
        "mobility": {k: v for k, v in run["mobility"].items() if k != "trajectory"},
        "wifi": {k: run["wifi"][k] for k in _WIFI_FIELDS},
        "events": run["events"],
        "sim_wall_s": _r(run["sim_wall_s"], 3),
        "cmd_wall_s": _r(run["cmd_wall_s"], 3),
        "cmd_cpu_s": _r(run["cmd_cpu_s"], 3),
        "peak_rss_kib": run["peak_rss_kib"],
    }


def summarise(case: ManetCase, runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One case over its seeds: total and per-flow goodput (kbit/s), the spread between flows,
    what became of the connections, AODV's messages, cost, and every run (`stored_run`)."""
    runs = sorted(runs, key=lambda r: r["seed"])
    totals = [_kbps(r["goodput_bps"]) for r in runs]
    flows = []
    for i, (src, dst) in enumerate(case.pairs):
        per_seed = [_kbps(r["flows"][i]["goodput_bps"]) for r in runs]
        flows.append({
            "flow": i,
            "src": src,
            "dst": dst,
            "start_s": flow_start_s(i),
            **over_seeds("goodput_kbps", per_seed),
            "seeds_without_bytes": sum(r["flows"][i]["rx_bytes"] == 0 for r in runs),
            "seeds_never_established": sum(r["flows"][i]["established_s"] is None for r in runs),
            "seeds_given_up": sum(r["flows"][i]["gave_up_s"] is not None for r in runs),
        })
    flow_means = [f["goodput_kbps"] for f in flows]
    per_run_jain = [jain([_kbps(f["goodput_bps"]) for f in r["flows"]]) for r in runs]
    return {
        **over_seeds("total_goodput_kbps", totals),
        "flows": flows,
        "flow_spread": {
            "flow_mean_kbps_min": min(flow_means),
            "flow_mean_kbps_median": _r(statistics.median(flow_means)),
            "flow_mean_kbps_max": max(flow_means),
            # Over all flows and seeds: the standard deviation of one flow's goodput in one run.
            "flow_run_kbps_sd": _r(_sd([_kbps(f["goodput_bps"]) for r in runs for f in r["flows"]])),
            "jain_of_flow_means": _r(jain(flow_means), 3),
            "jain_per_seed": [_r(j, 3) for j in per_run_jain],
            "top_flow_share_per_seed": [
                _r(max(f["goodput_bps"] for f in r["flows"]) / r["goodput_bps"], 3)
                if r["goodput_bps"] else None for r in runs
            ],
        },
        "flows_without_bytes_per_seed": [sum(f["rx_bytes"] == 0 for f in r["flows"]) for r in runs],
        "flows_never_established_per_seed": [
            sum(f["established_s"] is None for f in r["flows"]) for r in runs
        ],
        "flows_given_up_per_seed": [sum(f["gave_up_s"] is not None for f in r["flows"]) for r in runs],
        "aodv_tx_mean": _mean_counts([r["aodv_tx"] for r in runs]),
        "ip_drops_mean": _mean_counts([r["ip_drops"] for r in runs]),
        "legs_mean": _r(_mean([r["mobility"]["legs"] for r in runs]), 1),
        "seeds": [r["seed"] for r in runs],
        "timing": {
            "sim_wall_s_per_seed": [_r(r["sim_wall_s"], 3) for r in runs],
            "cmd_wall_s_per_seed": [_r(r["cmd_wall_s"], 3) for r in runs],
            "cmd_cpu_s_per_seed": [_r(r["cmd_cpu_s"], 3) for r in runs],
            "events_per_seed": [r["events"] for r in runs],
            "peak_rss_kib": max(r["peak_rss_kib"] for r in runs),
        },
        "runs": [stored_run(r) for r in runs],
    }


# --------------------------------------------------------------------------------------------
# The reference file


def reference_path() -> Path:
    """`bench/wifi/manet_reference.json` of the checkout the command runs in."""
    from .ns3 import find_wifi_dir

    return find_wifi_dir() / REFERENCE_NAME


def load_reference(path: Path | None = None) -> dict[str, Any]:
    """The stored figures: `{"settings": {...}, "cases": {case: {...}}}`."""
    return json.loads((path or reference_path()).read_text(encoding="utf-8"))


def reference_for(case: str, reference: dict[str, Any] | None = None) -> dict[str, Any]:
    """The stored ns-3 entry of one case (`summarise`'s fields and the case's parameters);
    KeyError if absent."""
    ref = reference if reference is not None else load_reference()
    return ref["cases"][case]


def settings(params: dict[str, Any] | None) -> dict[str, Any]:
    """What every case shares, as the reference records it."""
    pairs = manet_pairs()
    return {
        "program": f"bench/wifi/{PROGRAM}.cc",
        "nodes": NODES,
        "node_names": "node i is airtcp's n{i}",
        "area": {"min_x_m": 0.0, "max_x_m": WIDTH_M, "min_y_m": 0.0, "max_y_m": HEIGHT_M},
        "mobility": "ns3::SteadyStateRandomWaypointMobilityModel (MinSpeed, MaxSpeed, MinPause, "
        "MaxPause per case; Z 0); every node starts in the model's steady state (mid-trip with no "
        "pauses), its first leg set at t = 0",
        "range_m": RANGE_M,
        "radio": "as the grid: 802.11b, DsssRate2Mbps data, DsssRate1Mbps control (RTS) rate, "
        "RangePropagationLossModel 250 m, AdhocWifiMac, no RTS/CTS",
        "flows": FLOWS,
        "pairs": [list(p) for p in pairs],
        "pair_draw": f"airtcp.bench.wifi.draw_pairs({NODES}, {FLOWS}, seed={PAIR_SEED})",
        "start_s": [flow_start_s(i) for i in range(len(pairs))],
        "duration_s": DURATION_S,
        "goodput": "per flow: bytes the sink application received x 8 / (duration - flow start); "
        "total: sum",
        "routing": "AodvHelper with ns-3's defaults (HELLOs on, no local repair)",
        "arp": "hand-made PERMANENT ArpCache entries for every node (no ARP traffic; AODV's "
        "neighbour table learns MAC addresses, so MAC retry failures break routes)",
        "queue_disc": "none (removed after address assignment)",
        "tcp": "NewReno, SACK, timestamps, delayed ACK 2 (200 ms), IW 10, MSS 1000, 1 MiB buffers",
        "rtscts": False,
        "recovery": RECOVERY,
        "rng": "RngSeedManager::SetSeed(1), SetRun(seed): the seed draws the motion too",
        # Node 0's, read after a 1 s run of the first case (so MaxSpeed is that case's, and
        # Position and Velocity are where node 0 was then).
        "attributes_from": f"{CASES[0].name}, seed 1, 1 s, node 0",
        "aodv_attributes": (params or {}).get("aodv"),
        "mobility_attributes": (params or {}).get("mobility"),
    }


def write_reference(
    results: dict[str, dict[str, Any]],
    traces: dict[str, dict[str, Any]],
    params: dict[str, Any] | None,
    seeds: int,
    wall_s: float,
    load: dict[str, float | None],
    path: Path,
) -> None:
    """Stores `results` ({case: summary}) and `traces` ({case: stored trace}) in `path`; cases
    already there and not run again are kept."""
    from airtcp.bench.harness import NS3_REQUIREMENT
    from airtcp.bench.wired import _environment

    existing: dict[str, Any] = {}
    if path.is_file():
        existing = json.loads(path.read_text(encoding="utf-8"))
    cases = existing.get("cases", {})
    for name, summary in results.items():
        case = case_by_name(name)
        cases[name] = {
            "what": case.what,
            "min_speed_mps": case.min_speed_mps,
            "max_speed_mps": case.max_speed_mps,
            "min_pause_s": case.min_pause_s,
            "max_pause_s": case.max_pause_s,
            "duration_s": case.duration_s,
            # The program's arguments, the seed left out.
            "args": case.ns3_args(0)[:-1],
            "trajectory": traces.get(name, cases.get(name, {}).get("trajectory")),
            **summary,
        }
    env = _environment()
    out = {
        "about": "ns-3 3.44 MANET reference for airtcp (bench/wifi/README.md, 'MANET'); regenerate "
        "with `python -m airtcp.bench.wifi.manet --update-reference`",
        "simulator": f"ns-3.44 ({NS3_REQUIREMENT}), bench/wifi/{PROGRAM}.cc",
        "date": datetime.date.today().isoformat(),
        "machine": {"cpu": env.get("cpu"), "cores": env.get("cores")},
        "load_average_1min": load,
        "seeds": seeds,
        "wall_s_last_update": round(wall_s, 1),
        "settings": settings(params) if params else existing.get("settings", settings(None)),
        "cases": {c.name: cases[c.name] for c in CASES if c.name in cases},
    }
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------------------------
# Tables


def _pm(mean: float | None, sd: float | None, spec: str = ".1f") -> str:
    if mean is None:
        return "n/a"
    return f"{mean:{spec}} ± {sd:{spec}}" if sd is not None else f"{mean:{spec}}"


def ns3_table(reference: dict[str, Any]) -> str:
    """Markdown: per case the total goodput over seeds, the spread between flows, the flows that
    carried nothing, and the cost."""
    lines = [
        "| case | max speed | total kbit/s (mean ± sd) | per seed | flow means min-median-max | "
        "Jain (flow means) | flows with 0 bytes per seed | CPU s per run |",
        "|---|---:|---:|---|---|---:|---|---:|",
    ]
    for name, c in reference["cases"].items():
        s = c["flow_spread"]
        cpu = c["timing"]["cmd_cpu_s_per_seed"]
        lines.append(
            f"| `{name}` | {c['max_speed_mps']:g} m/s | "
            f"{_pm(c['total_goodput_kbps'], c['total_goodput_kbps_sd'])} | "
            f"{', '.join(f'{v:.1f}' for v in c['total_goodput_kbps_per_seed'])} | "
            f"{s['flow_mean_kbps_min']:.1f} - {s['flow_mean_kbps_median']:.1f} - "
            f"{s['flow_mean_kbps_max']:.1f} | {s['jain_of_flow_means']:.2f} | "
            f"{', '.join(str(n) for n in c['flows_without_bytes_per_seed'])} | "
            f"{sum(cpu) / len(cpu):.1f} |"
        )
    return "\n".join(lines) + "\n"


def flow_table(reference: dict[str, Any]) -> str:
    """Markdown: per flow and case, mean ± sd goodput (kbit/s) over seeds."""
    names = list(reference["cases"])
    lines = [
        "| flow | src -> dst | start s | " + " | ".join(f"`{n}`" for n in names) + " |",
        "|---:|---|---:|" + "---:|" * len(names),
    ]
    first = reference["cases"][names[0]]["flows"]
    for i, f in enumerate(first):
        cells = [
            _pm(reference["cases"][n]["flows"][i]["goodput_kbps"],
                reference["cases"][n]["flows"][i]["goodput_kbps_sd"])
            for n in names
        ]
        lines.append(f"| {i} | {f['src']} -> {f['dst']} | {f['start_s']:.1f} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# airtcp's side


def mobility_supported() -> bool:
    """Whether this airtcp's scenario schema has `mobility` (the harness needs it to run)."""
    from airtcp.scenario.schema import Scenario

    return "mobility" in Scenario.model_fields


def airtcp_overrides(
    case: ManetCase, duration_s: float | None = None, replay: Path | None = None
) -> list[str]:
    """The `--set` overrides that turn `bench/wifi/airtcp_manet.yaml` (the 20 m/s case) into
    `case`; with `replay`, the nodes follow that ns-2 movement file instead of drawing their own
    motion."""
    if replay is not None:
        sets = [f"mobility=[{{kind: ns2, file: {json.dumps(str(replay))}}}]"]
    else:
        sets = [
            f"mobility[0].min_speed={case.min_speed_mps:g}",
            f"mobility[0].max_speed={case.max_speed_mps:g}",
            f"mobility[0].min_pause={case.min_pause_s:g}s",
            f"mobility[0].max_pause={case.max_pause_s:g}s",
        ]
    duration = duration_s if duration_s is not None else case.duration_s
    if duration != DURATION_S:
        sets.append(f"duration={duration:g}s")
    return sets


def template_path() -> Path:
    from .ns3 import find_wifi_dir

    return find_wifi_dir() / AIRTCP_TEMPLATE


def scenario_data(
    case: ManetCase,
    seed: int = 1,
    duration_s: float | None = None,
    replay: Path | None = None,
    template: Path | None = None,
) -> dict[str, Any]:
    """The scenario of `case` and `seed` as the file would spell it, overrides applied, not yet
    validated (so that it can be built by a core without `mobility`)."""
    from airtcp.scenario.overrides import apply_overrides, parse_overrides
    from airtcp.scenario.schema import Scenario
    from airtcp.scenario.source import read_source

    raw = read_source(template or template_path())
    apply_overrides(raw, parse_overrides(airtcp_overrides(case, duration_s, replay)), Scenario)
    raw["seed"] = seed
    return raw


def airtcp_runs(
    case: ManetCase, seeds: int, duration_s: float | None = None, replay: Path | None = None
) -> list[dict[str, Any]]:
    """airtcp on `case` for seeds 1..seeds (its own motion, or `replay`'s): per run the total and
    per-flow goodput (kbit/s)."""
    from airtcp.api import run
    from airtcp.bench.harness import BenchError

    if not mobility_supported():
        raise BenchError("this airtcp has no `mobility` in its scenario schema; the MANET "
                         "comparison needs a core with node mobility")
    out = []
    for seed in range(1, seeds + 1):
        t0 = time.monotonic()
        result = run(scenario_data(case, seed, duration_s, replay))
        flows = [_kbps(float(f["goodput_bps"] or 0.0)) for f in result.raw["flows"]]
        out.append({
            "seed": seed,
            "goodput_kbps": sum(flows),
            "flows_kbps": flows,
            "wall_s": time.monotonic() - t0,
        })
    return out


def compare(
    cases: Sequence[ManetCase], seeds: int, replay: bool = False, duration_s: float | None = None
) -> list[dict[str, Any]]:
    """airtcp against the stored ns-3 reference, a row per case: mean ± sd of the total goodput
    on both sides and their ratio. With `replay`, airtcp follows ns-3's stored seed-1 motion and
    is set against ns-3's seed-1 run (one motion: the spread is airtcp's over its own seeds)."""
    ref = load_reference()
    rows = []
    for case in cases:
        entry = reference_for(case.name, ref)
        if replay:
            with decompressed_trace(case) as plain:
                ours = airtcp_runs(case, seeds, duration_s, plain)
            theirs = [entry["total_goodput_kbps_per_seed"][entry["seeds"].index(1)]]
        else:
            ours = airtcp_runs(case, seeds, duration_s)
            theirs = entry["total_goodput_kbps_per_seed"][:seeds]
        a = [r["goodput_kbps"] for r in ours]
        ma, mt = _mean(a), _mean(theirs)
        rows.append({
            "case": case.name,
            "max_speed_mps": case.max_speed_mps,
            "airtcp_kbps": ma,
            "airtcp_kbps_sd": _sd(a),
            "ns3_kbps": mt,
            "ns3_kbps_sd": _sd(theirs),
            "ratio": ma / mt if ma is not None and mt else None,
            "airtcp_flows_kbps": [_mean([r["flows_kbps"][i] for r in ours]) for i in range(len(case.pairs))],
            "ns3_flows_kbps": [f["goodput_kbps"] for f in entry["flows"]],
            "airtcp_wall_s": sum(r["wall_s"] for r in ours),
        })
    return rows


def compare_table(rows: Sequence[dict[str, Any]]) -> str:
    lines = [
        "| case | max speed | ns-3 kbit/s (mean ± sd) | airtcp kbit/s (mean ± sd) | airtcp / ns-3 |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.3f}"
        lines.append(
            f"| {r['case']} | {r['max_speed_mps']:g} m/s | {_pm(r['ns3_kbps'], r['ns3_kbps_sd'])} | "
            f"{_pm(r['airtcp_kbps'], r['airtcp_kbps_sd'])} | {ratio} |"
        )
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# Command line


def _run_all(
    cases: Sequence[ManetCase],
    seeds: int,
    jobs: int,
    duration_s: float | None,
    trace_dir: Path,
) -> tuple[dict[str, list[dict[str, Any]]], list[str]]:
    """Every case and seed; the seeds of `TRAJECTORY_SEEDS` write their motion into `trace_dir`."""
    trace_dir.mkdir(parents=True, exist_ok=True)
    calls = [
        (c, s, trace_dir / c.trace_name(s).removesuffix(".gz") if s in TRAJECTORY_SEEDS else None)
        for c in cases
        for s in range(1, seeds + 1)
    ]
    runs: dict[str, list[dict[str, Any]]] = {}
    errors: list[str] = []

    def record(call: tuple[ManetCase, int, Path | None], result: Any) -> None:
        case, seed, _ = call
        if isinstance(result, Exception):
            errors.append(f"{case.name} seed {seed}: {result}")
            print(f"failed: {errors[-1]}", file=sys.stderr, flush=True)
            return
        runs.setdefault(case.name, []).append(result)
        print(
            f"{case.name:<8} seed {seed}: {result['goodput_bps'] / 1e3:8.1f} kbit/s "
            f"(Run() {result['sim_wall_s']:.1f} s, command {result['cmd_wall_s']:.1f} s wall, "
            f"{result['cmd_cpu_s']:.1f} s CPU)",
            flush=True,
        )

    build()
    if jobs <= 1:
        for case, seed, traj in calls:
            try:
                result: Any = run_ns3(case, seed, duration_s, traj)
            except Exception as error:  # noqa: BLE001 - one failed run does not end the others
                result = error
            record((case, seed, traj), result)
    else:
        with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(run_ns3, c, s, duration_s, t) for c, s, t in calls]
            for call, fut in zip(calls, futures):
                try:
                    result = fut.result()
                except Exception as error:  # noqa: BLE001
                    result = error
                record(call, result)
    return runs, errors


def _params() -> dict[str, Any]:
    """AODV's and the mobility model's attribute values, from a 1 s run of the first case."""
    from .ns3 import run_program

    result = run_program(build(), [*CASES[0].ns3_args(1, 1.0), "--params=1"])
    return result["params"]


def _load() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m airtcp.bench.wifi.manet", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--cases", help="comma-separated case names (default: all)")
    parser.add_argument("--seeds", type=int, default=DEFAULT_SEEDS, help=f"seeds 1..N (default {DEFAULT_SEEDS})")
    parser.add_argument("--jobs", type=int, default=1, help="ns-3 runs at a time (default 1)")
    parser.add_argument("--duration", type=float, help="simulated seconds (default: 100)")
    parser.add_argument("--out", default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    parser.add_argument("--update-reference", action="store_true",
                        help="store the runs and seed 1's motion in the reference")
    parser.add_argument("--show", action="store_true", help="print the stored reference's tables")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    parser.add_argument("--compare", action="store_true",
                        help="run airtcp's side and compare it with the stored reference (no ns-3)")
    parser.add_argument("--replay", action="store_true",
                        help="with --compare: airtcp follows ns-3's stored seed-1 motion")
    args = parser.parse_args(argv)
    if args.list:
        for case in CASES:
            print(f"{case.name:<8} {case.what}")
        return 0
    if args.show:
        ref = load_reference()
        print(ns3_table(ref))
        print(flow_table(ref))
        return 0
    if args.seeds < 1:
        parser.error("--seeds: must be at least 1")
    try:
        cases = [case_by_name(n) for n in args.cases.split(",")] if args.cases else list(CASES)
    except KeyError as error:
        parser.error(f"--cases: unknown case {error}")
    if args.replay and not args.compare:
        parser.error("--replay goes with --compare")
    if args.compare:
        if not mobility_supported():
            print("airtcp's side needs a core with `mobility` in its scenario schema; this one has "
                  "none yet (the ns-3 figures: --show)", file=sys.stderr)
            return 2
        t0 = time.monotonic()
        rows = compare(cases, args.seeds, args.replay, args.duration)
        print(compare_table(rows))
        print(f"airtcp's side: {len(rows) * args.seeds} runs in {time.monotonic() - t0:.1f} s")
        return 0
    if args.update_reference and args.duration is not None:
        parser.error("--update-reference stores the cases' own duration; leave --duration out")

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    load_start = _load()
    t0 = time.monotonic()
    runs, errors = _run_all(cases, args.seeds, args.jobs, args.duration, out / "traces")
    wall = time.monotonic() - t0
    load = {"start": load_start, "end": _load()}
    summaries = {c: summarise(case_by_name(c), r) for c, r in runs.items()}
    (out / "manet.json").write_text(
        json.dumps({"wall_s": wall, "load_average_1min": load, "errors": errors, "runs": runs},
                   indent=1) + "\n",
        encoding="utf-8",
    )
    view = {"cases": {c: {"max_speed_mps": case_by_name(c).max_speed_mps, **s}
                      for c, s in summaries.items()}}
    (out / "manet.md").write_text(ns3_table(view) + "\n" + flow_table(view), encoding="utf-8")
    print(ns3_table(view))
    print(f"{sum(len(r) for r in runs.values())} runs in {wall:.0f} s (load {load})")
    if args.update_reference:
        if errors:
            print("reference not written: some runs failed", file=sys.stderr)
        else:
            from .ns3 import find_wifi_dir

            traces = {}
            for c in runs:
                case = case_by_name(c)
                plain = out / "traces" / case.trace_name(1).removesuffix(".gz")
                traces[c] = {"seed": 1, **store_trace(plain, find_wifi_dir() / TRACE_DIR / case.trace_name(1))}
            write_reference(summaries, traces, _params(), args.seeds, wall, load, reference_path())
            print(f"reference written: {reference_path()}")
    for error in errors:
        print(f"failed: {error}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
