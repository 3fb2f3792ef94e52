"""802.11n (HT), the ns-3 side: ns-3 3.44's HT MCS 0-7 in a 20 MHz channel at 5 GHz, one spatial
stream, with and without A-MPDU aggregation (`bench/wifi/wifi_ht.cc`): one saturated UDP hop per MCS
and bulk TCP over one hop and along chains of 2-4 hops; bulk TCP under ns-3's Minstrel-HT
(`MinstrelHtWifiManager`, MCS 0-7) over one hop at 30, 33 and 36 m and along a 3-hop chain at
30 m, each link's MPDUs counted per data rate; and the stored figures
(`bench/wifi/ht_reference.json`) that an airtcp comparison reads without running ns-3.

    python -m airtcp.bench.wifi.ht --update-reference     # every case, seeds 1-3
    python -m airtcp.bench.wifi.ht --update-reference --cases sat-mcs7-agg,sat-mcs7-noagg
    python -m airtcp.bench.wifi.ht --show                 # the stored tables
    python -m airtcp.bench.wifi.ht --traces               # rewrite bench/wifi/ht_traces/
    python -m airtcp.bench.wifi.ht --cases tcp-hop1-mcs7-agg --seeds 1 --out DIR   # live, not stored

Runs go one at a time, as every ns-3 run is a full CPU. `reference_for(case)` returns one stored
entry: mean and per-seed throughput (payload Mbit/s), per link the PPDUs and MPDUs sent summed over
the seeds, the distribution of MPDUs per PPDU, the share of MPDU transmissions that were
retransmissions, the control frames by kind, size and rate, and each seed's ns-3 wall time (under
Minstrel-HT also each link's MPDUs per data rate, `mpdus_by_rate_mbps`, first transmissions and
retransmissions, summed over the seeds).
bench/wifi/README.md ("802.11n (ns-3 side)") describes the cases and what ns-3 does.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import json
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROGRAM = "wifi_ht"
REFERENCE_NAME = "ht_reference.json"
TRACE_DIR = "ht_traces"
DEFAULT_OUT = "bench/out/wifi-ht"
DEFAULT_SEEDS = 3

# The differential matrix's channel (bench/wifi/matrix_cases.py), in 802.11n at 5 GHz.
TX_POWER_DBM = 16.0206
LOG_EXPONENT = 3.0
LOG_REFERENCE_LOSS_DB = 46.6777
# Thermal noise in 20 MHz at 290 K (ns-3's Boltzmann constant) plus ns-3's 7 dB RxNoiseFigure.
NOISE_DBM = 10 * math.log10(1.3803e-23 * 290 * 20e6) + 30 + 7.0

UDP_PAYLOAD = 1472
UDP_DISTANCE_M = 10.0
UDP_WARMUP_S = 1.0
UDP_WINDOW_S = 10.0
# Each sender offers twice the PHY data rate: far above what the link carries.
UDP_OFFERED = 2.0
TCP_SPACING_M = 15.0
TCP_DURATION_S = 20.0
TCP_START_S = 1.0
# The TCP of bench/wifi/wifi_common.h's ConfigureTcp (NewReno, SACK, timestamps, delayed ACKs
# every 2 segments, IW 10, 1 MiB buffers, 1000-byte segments) with the benchmark's recovery.
TCP_RECOVERY = "prr"


def rx_dbm(distance_m: float) -> float:
    return TX_POWER_DBM - LOG_REFERENCE_LOSS_DB - 10 * LOG_EXPONENT * math.log10(distance_m)


def snr_db(distance_m: float) -> float:
    return rx_dbm(distance_m) - NOISE_DBM


@dataclass(frozen=True)
class HtCase:
    """One run configuration: traffic, MCS, aggregation, guard interval and the line of nodes.

    `manager` is "constant" (ConstantRateWifiManager at HtMcs`mcs`) or "minstrelht" (ns-3's
    MinstrelHtWifiManager at its defaults over MCS 0-`mcs`, `mcs` being 7)."""

    name: str
    what: str
    traffic: str  # "udp" (one saturated hop) or "tcp" (bulk, node 0 to node `hops`)
    mcs: int
    agg: bool
    sgi: bool = False
    hops: int = 1
    distance_m: float = UDP_DISTANCE_M
    manager: str = "constant"
    # ns-3's BE_MaxAmsduSize (`--amsdu`): 0, its default, builds no A-MSDUs.
    amsdu: int = 0

    def ns3_args(self, seed: int) -> list[str]:
        """The arguments of `wifi_ht` for this case and seed."""
        args = [
            f"--traffic={self.traffic}",
            f"--mcs={self.mcs}",
            f"--agg={int(self.agg)}",
            f"--sgi={int(self.sgi)}",
            f"--hops={self.hops}",
            f"--distance={self.distance_m:g}",
            f"--exponent={LOG_EXPONENT:g}",
            f"--refloss={LOG_REFERENCE_LOSS_DB:g}",
            f"--txpower={TX_POWER_DBM:g}",
        ]
        if self.manager != "constant":
            args.append(f"--manager={self.manager}")
        if self.amsdu:
            args.append(f"--amsdu={self.amsdu}")
        if self.traffic == "udp":
            args += [
                f"--payload={UDP_PAYLOAD}",
                f"--offered={UDP_OFFERED:g}",
                f"--warmup={UDP_WARMUP_S:g}",
                f"--duration={UDP_WINDOW_S:g}",
            ]
        else:
            args += [
                f"--recovery={TCP_RECOVERY}",
                f"--start={TCP_START_S:g}",
                f"--duration={TCP_DURATION_S:g}",
            ]
        return [*args, f"--seed={seed}"]


def _sat(mcs: int, agg: bool, sgi: bool = False) -> HtCase:
    gi = ", short GI" if sgi else ""
    how = "A-MPDU (ns-3's default 65535 bytes)" if agg else "no aggregation"
    return HtCase(
        name=f"sat-mcs{mcs}-{'agg' if agg else 'noagg'}{'-sgi' if sgi else ''}",
        what=f"saturated UDP over one hop, {UDP_DISTANCE_M:g} m, HtMcs{mcs}{gi}, {how}",
        traffic="udp",
        mcs=mcs,
        agg=agg,
        sgi=sgi,
    )


def _tcp(hops: int, agg: bool) -> HtCase:
    what = "one hop" if hops == 1 else f"chain of {hops} hops"
    return HtCase(
        name=f"tcp-{'hop1' if hops == 1 else f'chain{hops}'}-mcs7-{'agg' if agg else 'noagg'}",
        what=f"bulk TCP, {what}, {TCP_SPACING_M:g} m apart, HtMcs7, "
        + ("A-MPDU" if agg else "no aggregation"),
        traffic="tcp",
        mcs=7,
        agg=agg,
        hops=hops,
        distance_m=TCP_SPACING_M,
    )


# The A-MSDU sizes of the A-MSDU cases: the two Maximum A-MSDU Lengths of the HT Capabilities.
AMSDU_SIZES = (3839, 7935)


def _sat_amsdu(mcs: int, amsdu: int) -> HtCase:
    return HtCase(
        name=f"sat-mcs{mcs}-agg-amsdu{amsdu}",
        what=f"saturated UDP over one hop, {UDP_DISTANCE_M:g} m, HtMcs{mcs}, A-MPDU (65535 bytes) "
        f"of A-MSDUs (BE_MaxAmsduSize {amsdu})",
        traffic="udp",
        mcs=mcs,
        agg=True,
        amsdu=amsdu,
    )


def _tcp_amsdu(amsdu: int) -> HtCase:
    return HtCase(
        name=f"tcp-hop1-mcs7-agg-amsdu{amsdu}",
        what=f"bulk TCP, one hop, {TCP_SPACING_M:g} m apart, HtMcs7, A-MPDU of A-MSDUs "
        f"(BE_MaxAmsduSize {amsdu})",
        traffic="tcp",
        mcs=7,
        agg=True,
        distance_m=TCP_SPACING_M,
        amsdu=amsdu,
    )


# Minstrel-HT's distances (SNR 19.0, 17.75 and 16.6 dB): ns-3 sends most MPDUs of the data
# direction at MCS 6 at 30 m and at MCS 5 at 33 and 36 m (bench/wifi/README.md, "Minstrel-HT").
MINSTREL_HT_DISTANCES_M = (30.0, 33.0, 36.0)


def _minstrel_ht(hops: int, distance_m: float) -> HtCase:
    what = "one hop" if hops == 1 else f"chain of {hops} hops"
    return HtCase(
        name=f"tcp-{'hop1' if hops == 1 else f'chain{hops}'}-minstrelht-{distance_m:g}m",
        what=f"bulk TCP, {what}, {distance_m:g} m apart, Minstrel-HT over HtMcs0-7, A-MPDU",
        traffic="tcp",
        mcs=7,
        agg=True,
        hops=hops,
        distance_m=distance_m,
        manager="minstrelht",
    )


CASES: tuple[HtCase, ...] = (
    *(_sat(k, agg) for k in range(8) for agg in (False, True)),
    _sat(7, False, sgi=True),
    _sat(7, True, sgi=True),
    _tcp(1, True),
    _tcp(1, False),
    _tcp(2, True),
    _tcp(3, True),
    _tcp(4, True),
    *(_minstrel_ht(1, d) for d in MINSTREL_HT_DISTANCES_M),
    _minstrel_ht(3, 30.0),
    *(_sat_amsdu(mcs, amsdu) for mcs in (7, 3) for amsdu in AMSDU_SIZES),
    _tcp_amsdu(7935),
)

# The traces of `--traces` (bench/wifi/ht_traces/): one saturated MCS 7 hop at 28 m, where the
# table-based error model loses about 6 % of the MPDUs, from t = 0 (the ADDBA exchange) to 40 ms;
# and the bulk TCP hop at 15 m (seed 1) around a same-slot collision of the two directions'
# A-MPDUs, which both time out and recover with a BlockAckReq.
TRACES: dict[str, tuple[list[str], str]] = {
    "udp-mcs7-28m": (
        [
            "--traffic=udp",
            "--mcs=7",
            "--agg=1",
            "--distance=28",
            "--warmup=0",
            "--duration=0.1",
            "--seed=1",
            "--trace-from=0",
            "--trace-to=0.04",
        ],
        "saturated UDP, HtMcs7, A-MPDU, 28 m (about 6 % of MPDUs lost), t = 0-40 ms, seed 1",
    ),
    "tcp-hop1-mcs7-collision": (
        [
            "--traffic=tcp",
            "--mcs=7",
            "--agg=1",
            "--distance=15",
            "--duration=1.33",
            "--seed=1",
            "--trace-from=1.2680",
            "--trace-to=1.3230",
        ],
        "bulk TCP, one hop, HtMcs7, A-MPDU, 15 m, seed 1, t = 1.268-1.323 s: a same-slot "
        "collision of both directions' A-MPDUs, BlockAckReqs, the retransmission",
    ),
}


def case_by_name(name: str) -> HtCase:
    for case in CASES:
        if case.name == name:
            return case
    raise KeyError(name)


# --------------------------------------------------------------------------------------------
# The ns-3 program


def build(force: bool = False) -> Path:
    """Compiles `wifi_ht.cc` once (idempotent) into `bench/ns3/build/wifi/`."""
    from .ns3 import build_program

    return build_program(PROGRAM, force=force)


def run_ns3(case: HtCase, seed: int) -> dict[str, Any]:
    """One run of ns-3: its JSON line plus the whole command's wall and CPU time."""
    from .ns3 import run_program

    return run_program(build(), case.ns3_args(seed))


def collect_params() -> dict[str, Any]:
    """The HT figures and DCF/EDCA timing ns-3 runs with (a 0.2 s MCS 7 run with --params=1,
    after its Block Ack agreement is up): `ht` and `dcf` of the program's output."""
    from .ns3 import run_program

    result = run_program(build(), [*_sat(7, True).ns3_args(1)[:-3], "--warmup=0.1",
                                   "--duration=0.1", "--params=1", "--seed=1"])
    return {"ht": result["ht"], "dcf": result["params"]["dcf"]}


# --------------------------------------------------------------------------------------------
# Summaries over seeds


def _add_counts(total: dict[str, Any], part: dict[str, Any]) -> None:
    """Adds `part`'s integer counts into `total`, nested mappings key by key."""
    for key, value in part.items():
        if isinstance(value, dict):
            _add_counts(total.setdefault(key, {}), value)
        elif isinstance(value, int) and not isinstance(value, bool):
            total[key] = total.get(key, 0) + value


def link_figures(link: dict[str, Any]) -> dict[str, Any]:
    """From a link's summed counts: the mean MPDUs per data PPDU and per A-MPDU (PPDUs of two or
    more MPDUs), the share of PPDUs that are A-MPDUs, and the share of MPDU transmissions that
    were retransmissions (Retry bit set); with A-MSDUs (`--amsdu`) also the mean MSDUs per
    A-MSDU and the share of MPDUs that carry one."""
    hist = {int(n): c for n, c in link["mpdus_per_ppdu"].items()}
    ampdu_ppdus = sum(c for n, c in hist.items() if n > 1)
    ampdu_mpdus = sum(n * c for n, c in hist.items() if n > 1)
    amsdu = {}
    if link.get("amsdus"):
        amsdu = {
            "mean_msdus_per_amsdu": round(link["amsdu_msdus"] / link["amsdus"], 3),
            "amsdu_share": round(link["amsdus"] / link["mpdus"], 4),
        }
    return {
        **amsdu,
        "mean_mpdus_per_ppdu": round(link["mpdus"] / link["ppdus"], 3) if link["ppdus"] else None,
        "mean_mpdus_per_ampdu": round(ampdu_mpdus / ampdu_ppdus, 3) if ampdu_ppdus else None,
        "ampdu_share": round(ampdu_ppdus / link["ppdus"], 4) if link["ppdus"] else None,
        "retransmitted_fraction": round(link["mpdus_retry"] / link["mpdus"], 5)
        if link["mpdus"]
        else None,
    }


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One case over its seeds: throughput (mean and per seed, Mbit/s of payload), per link the
    counts summed over seeds with their derived figures, control frames, response timeouts, MAC
    and PHY drops summed, the Block Ack agreements of the first seed, and each seed's cost."""
    runs = sorted(runs, key=lambda r: r["seed"])
    per_seed = [r["throughput_bps"] / 1e6 for r in runs]
    links: dict[str, Any] = {}
    control: dict[str, Any] = {}
    timeouts: dict[str, Any] = {}
    mac_drops: dict[str, Any] = {}
    phy_drops: dict[str, Any] = {}
    for run in runs:
        for key, link in run["links"].items():
            total = links.setdefault(key, {"airtime_s": 0.0})
            _add_counts(total, link)
            total["airtime_s"] += link["airtime_s"]
        _add_counts(control, run["control_frames"])
        _add_counts(timeouts, run["response_timeouts"])
        _add_counts(mac_drops, run["wifi"]["mac_drops"])
        _add_counts(phy_drops, run["wifi"]["phy_rx_drops"])
    for link in links.values():
        link["airtime_s"] = round(link["airtime_s"], 6)
        link["mpdus_per_ppdu"] = dict(
            sorted(link["mpdus_per_ppdu"].items(), key=lambda kv: int(kv[0]))
        )
        if "mpdus_by_rate_mbps" in link:
            link["mpdus_by_rate_mbps"] = dict(
                sorted(link["mpdus_by_rate_mbps"].items(), key=lambda kv: float(kv[0]))
            )
        link.update(link_figures(link))
    return {
        "throughput_mbps": round(sum(per_seed) / len(per_seed), 4),
        "throughput_mbps_per_seed": [round(g, 4) for g in per_seed],
        "seeds": [r["seed"] for r in runs],
        "links": dict(sorted(links.items(), key=lambda kv: tuple(int(x) for x in kv[0].split("->")))),
        "control_frames": dict(sorted(control.items())),
        "response_timeouts": dict(sorted(timeouts.items())),
        "mac_drops": dict(sorted(mac_drops.items())),
        "phy_rx_drops": dict(sorted(phy_drops.items())),
        "ba_agreements_seed1": runs[0]["ba_agreements"],
        "events_per_seed": [r["events"] for r in runs],
        "sim_wall_s_per_seed": [round(r["sim_wall_s"], 3) for r in runs],
        "cmd_wall_s_per_seed": [round(r["cmd_wall_s"], 3) for r in runs],
        "cmd_cpu_s_per_seed": [round(r["cmd_cpu_s"], 3) for r in runs],
    }


# --------------------------------------------------------------------------------------------
# The reference file


def reference_path() -> Path:
    """`bench/wifi/ht_reference.json` of the checkout the command runs in."""
    from .ns3 import find_wifi_dir

    return find_wifi_dir() / REFERENCE_NAME


def load_reference(path: Path | None = None) -> dict[str, Any]:
    """The stored figures: `{"params": {...}, "cases": {case: {...}}}`."""
    return json.loads((path or reference_path()).read_text(encoding="utf-8"))


def reference_for(case: str, reference: dict[str, Any] | None = None) -> dict[str, Any]:
    """The stored ns-3 entry of one case (`summarise`'s fields and the case's settings); KeyError
    if absent."""
    ref = reference if reference is not None else load_reference()
    return ref["cases"][case]


def write_reference(
    results: dict[str, dict[str, Any]],
    params: dict[str, Any] | None,
    seeds: int,
    wall_s: float,
    path: Path,
) -> None:
    """Stores `results` ({case: summary}) in `path`; cases already there and not run again are
    kept, and so are the stored parameters when `params` is None."""
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
            "traffic": case.traffic,
            "mcs": case.mcs,
            "agg": case.agg,
            "sgi": case.sgi,
            "hops": case.hops,
            "distance_m": case.distance_m,
            # Absent: the constant MCS.
            **({"manager": case.manager} if case.manager != "constant" else {}),
            # Absent: no A-MSDUs (BE_MaxAmsduSize 0).
            **({"amsdu": case.amsdu} if case.amsdu else {}),
            # The program's arguments, the seed left out.
            "args": case.ns3_args(0)[:-1],
            "snr_db_one_hop": round(snr_db(case.distance_m), 2),
            **summary,
        }
    env = _environment()
    out = {
        "about": "ns-3 3.44 802.11n (HT) reference for airtcp (bench/wifi/README.md, '802.11n "
        "(ns-3 side)'); regenerate with `python -m airtcp.bench.wifi.ht --update-reference`",
        "simulator": f"ns-3.44 ({NS3_REQUIREMENT}), bench/wifi/wifi_ht.cc",
        "date": datetime.date.today().isoformat(),
        "machine": {"cpu": env.get("cpu"), "cores": env.get("cores")},
        "seeds": seeds,
        "noise_dbm": round(NOISE_DBM, 2),
        "wall_s_last_update": round(wall_s, 1),
        "params": params if params is not None else existing.get("params"),
        "cases": {c.name: cases[c.name] for c in CASES if c.name in cases},
    }
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------------------------
# Tables


def _range(values: Sequence[float]) -> str:
    return f"{min(values):.2f}-{max(values):.2f}"


def throughput_table(reference: dict[str, Any]) -> str:
    """Markdown: the saturated cases, per MCS without and with aggregation."""
    lines = [
        "| MCS | GI | rate Mbit/s | no aggregation Mbit/s | A-MPDU Mbit/s | gain | MPDUs per A-MPDU "
        "| retransmitted | wall s per run (noagg / agg) |",
        "|---|---|---:|---:|---:|---:|---|---:|---:|",
    ]
    params = reference.get("params") or {}
    per_mcs = (params.get("ht") or {}).get("per_mcs", {})
    for mcs in range(8):
        for sgi in (False, True):
            suffix = "-sgi" if sgi else ""
            no = reference["cases"].get(f"sat-mcs{mcs}-noagg{suffix}")
            ag = reference["cases"].get(f"sat-mcs{mcs}-agg{suffix}")
            if no is None or ag is None:
                continue
            link = ag["links"].get("0->1", {})
            hist = {int(n): c for n, c in link.get("mpdus_per_ppdu", {}).items()}
            total = sum(hist.values()) or 1
            modes = ", ".join(f"{n}: {100 * c / total:.0f} %" for n, c in sorted(hist.items())
                              if c / total >= 0.01)
            rate = per_mcs.get(f"HtMcs{mcs}{'_sgi' if sgi else ''}", {}).get("data_rate_mbps")
            lines.append(
                f"| {mcs} | {'short' if sgi else 'long'} | {rate if rate is None else f'{rate:.1f}'} "
                f"| {no['throughput_mbps']:.2f} ({_range(no['throughput_mbps_per_seed'])}) "
                f"| {ag['throughput_mbps']:.2f} ({_range(ag['throughput_mbps_per_seed'])}) "
                f"| {ag['throughput_mbps'] / no['throughput_mbps']:.2f} "
                f"| {link.get('mean_mpdus_per_ampdu')} ({modes}) "
                f"| {100 * (link.get('retransmitted_fraction') or 0):.2f} % "
                f"| {_mean(no['cmd_wall_s_per_seed']):.1f} / {_mean(ag['cmd_wall_s_per_seed']):.1f} |"
            )
    return "\n".join(lines) + "\n"


def amsdu_table(reference: dict[str, Any]) -> str:
    """Markdown: the saturated A-MSDU cases beside the same MCS's A-MPDU of single packets."""
    lines = [
        "| case | Mbit/s | A-MPDU alone Mbit/s | gain | MPDUs per A-MPDU | packets per A-MSDU "
        "| packets per PPDU | MPDU bytes per PPDU | PPDU us | wall s per run |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, case in reference["cases"].items():
        if not case.get("amsdu") or case["traffic"] != "udp":
            continue
        plain = reference["cases"].get(f"sat-mcs{case['mcs']}-agg")
        link = case["links"]["0->1"]
        packets = (link["amsdu_msdus"] + link["mpdus"] - link["amsdus"]) / link["ppdus"]
        lines.append(
            f"| `{name}` | {case['throughput_mbps']:.2f} ({_range(case['throughput_mbps_per_seed'])}) "
            f"| {plain['throughput_mbps']:.2f} | {case['throughput_mbps'] / plain['throughput_mbps']:.4f} "
            f"| {link['mean_mpdus_per_ampdu']} | {link['mean_msdus_per_amsdu']} "
            f"| {packets:g} | {link['mpdu_bytes'] / link['ppdus']:.0f} "
            f"| {1e6 * link['airtime_s'] / link['ppdus']:.0f} "
            f"| {_mean(case['cmd_wall_s_per_seed']):.1f} |"
            if plain
            else f"| `{name}` | {case['throughput_mbps']:.2f} | - | - | - | - | - | - | - | - |"
        )
    return "\n".join(lines) + "\n"


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def tcp_table(reference: dict[str, Any]) -> str:
    """Markdown: the TCP cases, goodput and per hop the data direction's aggregates."""
    lines = [
        "| case | goodput Mbit/s | per hop: MPDUs per A-MPDU, data / TCP ACKs; retransmitted "
        "| BAR sent | wall s per run |",
        "|---|---:|---|---:|---:|",
    ]
    for name, case in reference["cases"].items():
        if case["traffic"] != "tcp":
            continue
        hops = []
        for i in range(case["hops"]):
            fwd = case["links"].get(f"{i}->{i + 1}", {})
            back = case["links"].get(f"{i + 1}->{i}", {})
            hops.append(
                f"{i}->{i + 1}: {fwd.get('mean_mpdus_per_ampdu')} / {back.get('mean_mpdus_per_ampdu')}; "
                f"{100 * (fwd.get('retransmitted_fraction') or 0):.1f} %"
            )
        bars = sum(v for k, v in case["control_frames"].items() if k.startswith("BAR "))
        lines.append(
            f"| `{name}` | {case['throughput_mbps']:.2f} ({_range(case['throughput_mbps_per_seed'])}) "
            f"| {'<br>'.join(hops)} | {bars} | {_mean(case['cmd_wall_s_per_seed']):.1f} |"
        )
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# Traces


def write_traces(out_dir: Path | None = None) -> dict[str, Path]:
    """Runs the `TRACES` and stores each as `NAME.txt.gz` under `bench/wifi/ht_traces/` (or
    `out_dir`), a header line first; returns the files."""
    from .ns3 import find_wifi_dir, run_program

    out_dir = out_dir or find_wifi_dir() / TRACE_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    binary = build()
    written = {}
    for name, (args, what) in TRACES.items():
        tmp = out_dir / f".{name}.txt"
        run_program(binary, [*args, f"--trace={tmp}"])
        body = tmp.read_text(encoding="utf-8")
        tmp.unlink()
        header = f"# ns-3.44 wifi_ht {' '.join(args)}: {what}\n"
        path = out_dir / f"{name}.txt.gz"
        # mtime 0: the same trace gives the same bytes.
        with gzip.GzipFile(path, "wb", mtime=0) as f:
            f.write((header + body).encode("utf-8"))
        written[name] = path
    return written


# --------------------------------------------------------------------------------------------
# Command line


def _run_all(
    cases: Sequence[HtCase], seeds: int
) -> tuple[dict[str, list[dict[str, Any]]], list[str]]:
    runs: dict[str, list[dict[str, Any]]] = {}
    errors: list[str] = []
    build()
    for case in cases:
        for seed in range(1, seeds + 1):
            try:
                result = run_ns3(case, seed)
            except Exception as error:  # noqa: BLE001 - one failed run does not end the others
                errors.append(f"{case.name} seed {seed}: {error}")
                print(f"failed: {errors[-1]}", file=sys.stderr, flush=True)
                continue
            runs.setdefault(case.name, []).append(result)
            print(
                f"{case.name:<22} seed {seed}: {result['throughput_bps'] / 1e6:7.3f} Mbit/s "
                f"(ns-3 {result['sim_wall_s']:.1f} s, command {result['cmd_wall_s']:.1f} s)",
                flush=True,
            )
    return runs, errors


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m airtcp.bench.wifi.ht", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--cases", help="comma-separated case names (default: all)")
    parser.add_argument("--seeds", type=int, default=DEFAULT_SEEDS, help="seeds 1..N (default 3)")
    parser.add_argument("--out", default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    parser.add_argument("--update-reference", action="store_true", help="store the runs in the reference")
    parser.add_argument("--show", action="store_true", help="print the stored reference's tables")
    parser.add_argument("--traces", action="store_true", help="rewrite bench/wifi/ht_traces/")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    args = parser.parse_args(argv)
    if args.list:
        for case in CASES:
            print(f"{case.name:<22} {case.what}")
        return 0
    if args.show:
        ref = load_reference()
        print(throughput_table(ref))
        print(amsdu_table(ref))
        print(tcp_table(ref))
        return 0
    if args.traces:
        for name, path in write_traces().items():
            print(f"{name}: {path} ({path.stat().st_size} bytes)")
        return 0
    if args.seeds < 1:
        parser.error("--seeds: must be at least 1")
    try:
        cases = [case_by_name(n) for n in args.cases.split(",")] if args.cases else list(CASES)
    except KeyError as error:
        parser.error(f"--cases: unknown case {error}")
    if args.update_reference and args.seeds != DEFAULT_SEEDS:
        parser.error(f"--update-reference stores seeds 1-{DEFAULT_SEEDS}; leave --seeds out")

    t0 = time.monotonic()
    runs, errors = _run_all(cases, args.seeds)
    params = collect_params() if args.update_reference and not args.cases else None
    wall = time.monotonic() - t0
    summaries = {name: summarise(r) for name, r in runs.items()}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "ht.json").write_text(
        json.dumps({"wall_s": wall, "errors": errors, "runs": runs}, indent=1) + "\n",
        encoding="utf-8",
    )
    view = {
        "params": params,
        "cases": {
            name: {"traffic": case_by_name(name).traffic, "hops": case_by_name(name).hops, **s}
            for name, s in summaries.items()
        },
    }
    tables = throughput_table(view) + "\n" + tcp_table(view)
    if any(case_by_name(name).amsdu for name in summaries):
        tables += "\n" + amsdu_table(view)
    (out / "ht.md").write_text(tables, encoding="utf-8")
    print(tables)
    print(f"{sum(len(r) for r in runs.values())} runs in {wall:.0f} s")
    if args.update_reference:
        if errors:
            print("reference not written: some runs failed", file=sys.stderr)
        else:
            write_reference(summaries, params, args.seeds, wall, reference_path())
            print(f"reference written: {reference_path()}")
    for error in errors:
        print(f"failed: {error}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
