"""The chain case: N = 1..8 hops on a line, 200 m apart, range 250 m, static routes, one bulk TCP
NewReno flow from the first node to the last (`bench/wifi/wifi_chain.cc` for ns-3,
`bench/wifi/airtcp_chain.yaml` for airtcp)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from airtcp.bench.wired import _format_seconds, _mean

from .common import _kbps, _round, over_seeds
from .ns3 import _common_figures, _ns3_figures, _wifi, program_runs

CHAIN_TEMPLATE = "airtcp_chain.yaml"
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


def _chain_args(hops: int, duration_s: float, seed: int, rtscts: bool, recovery: str) -> list[str]:
    return [
        f"--hops={hops}",
        f"--duration={duration_s!r}",
        f"--start={CHAIN_START_S!r}",
        f"--seed={seed}",
        f"--rtscts={int(rtscts)}",
        f"--recovery={recovery}",
    ]


def run_chain(
    binary: Path,
    *,
    hops: Sequence[int],
    variants: Sequence[tuple[str, bool, str]],
    seeds: int,
    duration_s: float,
    errors: list[str],
) -> dict[str, Any]:
    """ns-3 on every chain length of every variant; per variant, a row per length (goodput over
    seeds, TCP recoveries, MAC and cost figures), and every run."""
    runs: list[dict[str, Any]] = []
    summary: dict[str, list[dict[str, Any]]] = {}
    for name, rtscts, recovery in variants:
        rows = []
        for n in hops:
            group = program_runs(
                binary,
                f"chain {name} N={n}",
                seeds,
                lambda seed, n=n, rtscts=rtscts, recovery=recovery: _chain_args(
                    n, duration_s, seed, rtscts, recovery
                ),
                errors,
            )
            for result in group:
                result["variant"] = name
            runs += group
            rows.append(
                {
                    "hops": n,
                    **over_seeds("goodput_kbps", [_kbps(r["goodput_bps"]) for r in group]),
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


def ns3_chain_figures(chain: dict[str, Any], hops: int, seeds: int) -> dict[str, Any] | None:
    """ns-3's figures for an N-hop chain (basic access, classic recovery) from `run_chain`'s
    result or the reference file's `chain` section; None if that N is not in it."""
    for row in chain["variants"]["basic_classic"]:
        if row["hops"] == hops:
            return _ns3_figures(row, row["goodput_kbps_per_seed"], seeds)
    return None


def airtcp_chain_sets(hops: int, duration_s: float) -> list[str]:
    """The `--set` overrides that make the chain template an N-hop chain, flow n0 -> nN."""
    return [
        f"topology.hops={hops}",
        f"flows[0].dst=n{hops}",
        f"duration={_format_seconds(duration_s)}",
    ]
