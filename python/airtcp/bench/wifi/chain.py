"""The chain case: N = 1..8 hops on a line, 200 m apart, range 250 m, static routes, one bulk TCP
NewReno flow from the first node to the last (`bench/wifi/wifi_chain.cc` for ns-3,
`bench/wifi/airtcp_chain.yaml` for airtcp); and its 802.11a form `chain11a`, N = 1..4 at 54 and
24 Mbps (`wifi_chain.cc --standard=11a --rate=R`, `bench/wifi/airtcp_chain_11a.yaml`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from airtcp.bench.wired import _format_seconds, _mean

from .common import _kbps, _round, over_seeds
from .ns3 import _common_figures, _ns3_figures, _response_mode, _wifi, program_runs


class ChainVariant(NamedTuple):
    """One way of running the chain in ns-3: access mode, TCP recovery and, for 802.11a, the data
    rate (None: the 802.11b program's default, 2 Mbps)."""

    name: str
    rtscts: bool
    recovery: str
    rate_mbps: float | None = None


CHAIN_TEMPLATE = "airtcp_chain.yaml"
CHAIN_HOPS = tuple(range(1, 9))
QUICK_CHAIN_HOPS = (1, 2, 4)
CHAIN_START_S = 1.0
CHAIN_DURATION_S = 100.0
QUICK_CHAIN_DURATION_S = 20.0
# The TCP loss recovery of a comparison, set alike in both simulators: PRR, ns-3's default
# (`--recovery=prr`; airtcp `recovery: prr`, what the templates set), or classic RFC 6675
# (`--recovery=classic`; airtcp `recovery: classic`).
RECOVERIES = ("prr", "classic")
DEFAULT_RECOVERY = "prr"
# (name, RTS/CTS, TCP recovery): the benchmark compares airtcp with basic access and the recovery
# it runs (`basic_<recovery>`); RTS/CTS is reference only. The first variant's MAC and cost
# figures are the ones the reference tables show.
CHAIN_VARIANTS = (
    ChainVariant("basic_prr", False, "prr"),
    ChainVariant("basic_classic", False, "classic"),
    ChainVariant("rtscts_prr", True, "prr"),
)
QUICK_CHAIN_VARIANTS = CHAIN_VARIANTS[:1]

# The figure quoted for one hop (ns-3, range 250 m, 200 m, no RTS/CTS), with its tolerance.
ONE_HOP_QUOTED_KBPS = 1402.0
ONE_HOP_TOLERANCE = 0.10

# 802.11a (`chain11a`): basic access at each data rate (Mbps), PRR unless a benchmark run asks for
# classic recovery; the variant of a rate is named "<rate>Mbps" (its recovery is recorded beside
# it in the settings).
CHAIN11A_TEMPLATE = "airtcp_chain_11a.yaml"
CHAIN11A_HOPS = (1, 2, 3, 4)
CHAIN11A_RATES = (54, 24)
QUICK_CHAIN11A_RATES = (54,)
QUICK_CHAIN11A_HOPS = (1, 2)


def chain_variant(recovery: str = DEFAULT_RECOVERY) -> ChainVariant:
    """The 802.11b chain variant the benchmark compares airtcp with: basic access, `recovery`."""
    return next(v for v in CHAIN_VARIANTS if not v.rtscts and v.recovery == recovery)


def chain11a_variants(
    rates: Sequence[float], recovery: str = DEFAULT_RECOVERY
) -> tuple[ChainVariant, ...]:
    """The 802.11a chain variants: one per data rate, basic access, `recovery`."""
    return tuple(ChainVariant(rate_variant(r), False, recovery, r) for r in rates)


def rate_variant(rate_mbps: float) -> str:
    """The name of the 802.11a chain variant at `rate_mbps`: "54Mbps"."""
    return f"{rate_mbps:g}Mbps"


def _chain_args(
    hops: int, duration_s: float, seed: int, variant: ChainVariant, standard: str
) -> list[str]:
    args = [
        f"--hops={hops}",
        f"--duration={duration_s!r}",
        f"--start={CHAIN_START_S!r}",
        f"--seed={seed}",
        f"--rtscts={int(variant.rtscts)}",
        f"--recovery={variant.recovery}",
    ]
    if standard != "11b":
        args.append(f"--standard={standard}")
    if variant.rate_mbps is not None:
        args.append(f"--rate={variant.rate_mbps:g}")
    return args


def run_chain(
    binary: Path,
    *,
    hops: Sequence[int],
    variants: Sequence[ChainVariant],
    seeds: int,
    duration_s: float,
    errors: list[str],
    standard: str = "11b",
) -> dict[str, Any]:
    """ns-3 on every chain length of every variant; per variant, a row per length (goodput over
    seeds, TCP recoveries, MAC and cost figures), and every run. `standard` "11a" runs
    `wifi_chain --standard=11a` (the variants then carry their data rate)."""
    runs: list[dict[str, Any]] = []
    summary: dict[str, list[dict[str, Any]]] = {}
    label = "chain" if standard == "11b" else f"chain {standard}"
    for variant in variants:
        rows = []
        for n in hops:
            group = program_runs(
                binary,
                f"{label} {variant.name} N={n}",
                seeds,
                lambda seed, n=n, variant=variant: _chain_args(
                    n, duration_s, seed, variant, standard
                ),
                errors,
            )
            for result in group:
                result["variant"] = variant.name
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
            if standard != "11b":
                # The rates ns-3 actually sent data and MAC ACKs at.
                rows[-1]["data_mode"] = group[0].get("data_mode") if group else None
                rows[-1]["ack_mode"] = _response_mode(group, "CTL_ACK")
            if (variant.name == variants[0].name or standard != "11b") and group:
                # Sizes, rates and counts of every frame kind of one run, for checking frame
                # sizes and MAC behaviour without rerunning ns-3.
                rows[-1]["frame_kinds_first_seed"] = _wifi(group[0], "frame_kinds")
        summary[variant.name] = rows
    settings: dict[str, Any] = {"program": "bench/wifi/wifi_chain.cc"}
    if standard == "11a":
        settings.update(
            {
                "standard": "802.11a (WIFI_STANDARD_80211a, ns-3's default 5 GHz channel)",
                "phy": "YansWifiPhy, NistErrorRateModel (set explicitly)",
                "data_modes": [f"OfdmRate{v.rate_mbps:g}Mbps" for v in variants],
                "control_mode": "OfdmRate6Mbps",
            }
        )
    return {
        "settings": {
            **settings,
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
                {"name": v.name, "rtscts": v.rtscts, "recovery": v.recovery}
                | ({} if v.rate_mbps is None else {"rate_mbps": v.rate_mbps})
                for v in variants
            ],
            "seeds": list(range(1, seeds + 1)),
        },
        "variants": summary,
        "runs": runs,
    }


def ns3_chain_figures(
    chain: dict[str, Any], hops: int, seeds: int, variant: str = "basic_prr"
) -> dict[str, Any] | None:
    """ns-3's figures for an N-hop chain (by default basic access, PRR; for 802.11a the variant
    of a rate, "54Mbps") from `run_chain`'s result or the reference file's `chain` or `chain11a`
    section; None if that N or variant is not in it."""
    for row in chain["variants"].get(variant, []):
        if row["hops"] == hops:
            return _ns3_figures(row, row["goodput_kbps_per_seed"], seeds)
    return None


def variant_recovery(chain: dict[str, Any], variant: str) -> str | None:
    """The TCP recovery ns-3 ran `variant` of a chain section with (None if not recorded)."""
    for entry in chain.get("settings", {}).get("variants", []):
        if entry.get("name") == variant:
            return entry.get("recovery")
    return None


def airtcp_chain_sets(
    hops: int, duration_s: float, rate_mbps: float | None = None, recovery: str | None = None
) -> list[str]:
    """The `--set` overrides that make the chain template an N-hop chain, flow n0 -> nN (and,
    for the 802.11a template, set its data rate; with `recovery`, the flow's loss recovery,
    which the templates otherwise set to PRR)."""
    sets = [
        f"topology.hops={hops}",
        f"flows[0].dst=n{hops}",
        f"duration={_format_seconds(duration_s)}",
    ]
    if rate_mbps is not None:
        sets.append(f"radio.data_rate={rate_mbps:g}Mbps")
    if recovery is not None:
        sets.append(f"flows[0].transport.recovery={recovery}")
    return sets
