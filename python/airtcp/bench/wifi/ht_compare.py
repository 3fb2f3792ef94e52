"""802.11n, airtcp against ns-3 3.44: every case of `airtcp.bench.wifi.ht` (saturated UDP per HT
MCS with and without A-MPDU aggregation, bulk TCP over one hop and chains of 2-4 hops at MCS 7,
bulk TCP under Minstrel-HT at 30-36 m, A-MPDUs of A-MSDUs) run in airtcp from `bench/wifi/airtcp_ht.yaml`, beside the
stored ns-3 figures (`bench/wifi/ht_reference.json`) and the closed form of a saturated exchange.
Under Minstrel-HT it also compares the first hop's MPDUs over the data rates (first transmissions
and retransmissions): `rate_mix_tvd`, the total variation distance between the two distributions.

    python -m airtcp.bench.wifi.ht_compare                 # every case, seeds 1-3 (~1 min)
    python -m airtcp.bench.wifi.ht_compare --cases sat-mcs7-agg,tcp-hop1-mcs7-agg --seeds 1

The closed form (`closed_form_mbps`): one station alone, no losses; each PPDU waits AIFS and on
average CWmin / 2 slots, lasts its airtime, and is answered after SIFS by an ACK or a Block Ack at
the control rate. The A-MPDU holds as many 1538-byte MPDUs as fit in 65,535 bytes and 5.484 ms;
with A-MSDUs each MPDU first takes as many packets as fit in the A-MSDU size and those limits
(`aggregate`: 14-byte subframe headers, MSDU = packet + 8 bytes of LLC/SNAP, padding to 4 between
subframes; the MPDU adds 30 bytes of QoS header and FCS), as ns-3 builds them.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from collections.abc import Mapping
from typing import Any

from .common import chain_overrides
from .ht import CASES, DEFAULT_SEEDS, UDP_OFFERED, UDP_PAYLOAD, HtCase, case_by_name, load_reference

TEMPLATE = "airtcp_ht.yaml"

# airtcp / ns-3 goodput: the issue's target.
TARGET = 0.10

# The rate control of each ns-3 manager of `HtCase.manager` in airtcp (None: the constant
# `radio.data_rate`).
RATE_CONTROL = {"constant": None, "minstrelht": "minstrel_ht"}

# HT MCS 0-7 at 20 MHz, Mbit/s, as the standard tabulates them (long, short guard interval).
MCS_RATES = {
    False: (6.5, 13.0, 19.5, 26.0, 39.0, 52.0, 58.5, 65.0),
    True: (7.2, 14.4, 21.7, 28.9, 43.3, 57.8, 65.0, 72.2),
}


def airtcp_overrides(case: HtCase) -> list[str]:
    """The `--set` overrides that turn the template (tcp-hop1-mcs7-agg) into `case`. Under a rate
    manager `radio.data_rate` is the top of its ladder (MCS 0 up to `case.mcs`)."""
    rate = MCS_RATES[case.sgi][case.mcs]
    sets = [f"radio.data_rate={rate:g}Mbps", f"topology.spacing={case.distance_m:g}m"]
    kind = RATE_CONTROL[case.manager]
    if kind is not None:
        sets.append(f"radio.rate_control={{kind: {kind}}}")
    if case.sgi:
        sets.append("radio.ht={guard_interval: short}")
    if not case.agg:
        sets.append("radio.aggregation={max_ampdu_bytes: 0}")
    if case.amsdu:
        sets.append(f"radio.aggregation.max_amsdu_bytes={case.amsdu}")
    if case.traffic == "udp":
        offered = UDP_OFFERED * rate
        sets += [
            "duration=11s",
            f"flows[0].app={{kind: cbr, rate: {offered:g}Mbps, packet_size: {UDP_PAYLOAD}}}",
            "flows[0].transport={kind: udp}",
            "flows[0].start=0s",
        ]
    if case.hops != 1:
        sets += chain_overrides(case.hops)
    return sets


def airtcp_case(case: HtCase, seeds: int = DEFAULT_SEEDS) -> dict[str, Any]:
    """airtcp's side of one case, seeds 1..`seeds`: mean throughput (Mbit/s; UDP over its 11 s,
    whose first second fills the queue; TCP over 19 s) and, on the first hop, the mean MPDUs per
    A-MPDU, the share of MPDU transmissions that were retransmissions, the mean packets per A-MSDU
    (MPDUs of one packet left out, as ns-3's `mean_msdus_per_amsdu`) and the MPDUs sent per data
    rate (`link_rates`, Mbit/s keyed as ns-3's `mpdus_by_rate_mbps`, summed over the seeds)."""
    from airtcp.api import run

    from .ns3 import find_wifi_dir

    template = find_wifi_dir() / TEMPLATE
    throughputs, per_ampdu, retried, per_amsdu = [], [], [], []
    by_rate: dict[str, int] = {}
    for seed in range(1, seeds + 1):
        result = run(template, seed=seed, overrides=airtcp_overrides(case))
        throughputs.append(result.raw["flows"][0]["goodput_bps"] / 1e6)
        for row in result.raw.get("links", []):
            if (row["from"], row["to"]) == ("n0", "n1"):
                if row.get("mpdus_per_ampdu") is not None:
                    per_ampdu.append(row["mpdus_per_ampdu"])
                if row.get("mpdu_retry_share") is not None:
                    retried.append(row["mpdu_retry_share"])
                if row.get("msdus_per_amsdu") is not None:
                    per_amsdu.append(row["msdus_per_amsdu"])
        for row in result.raw.get("link_rates", []):
            if (row["from"], row["to"]) == ("n0", "n1"):
                key = f"{row['rate_mbps']:g}"
                by_rate[key] = by_rate.get(key, 0) + row["attempts"]
    mean = lambda xs: sum(xs) / len(xs) if xs else None  # noqa: E731
    return {
        "throughput_mbps": mean(throughputs),
        "mpdus_per_ampdu": mean(per_ampdu),
        "mpdu_retry_share": mean(retried),
        "msdus_per_amsdu": mean(per_amsdu),
        "mpdus_by_rate_mbps": dict(sorted(by_rate.items(), key=lambda kv: float(kv[0]))),
    }


def rate_mix_tvd(a: Mapping[str, int], b: Mapping[str, int]) -> float | None:
    """Total variation distance between two counts over the same keys taken as distributions:
    half the sum of the absolute differences of their shares (0 alike, 1 disjoint); None if
    either is empty."""
    ta, tb = sum(a.values()), sum(b.values())
    if ta == 0 or tb == 0:
        return None
    return 0.5 * sum(abs(a.get(k, 0) / ta - b.get(k, 0) / tb) for k in set(a) | set(b))


def _ofdm_us(bytes_: int, mbps: int) -> int:
    """Airtime of a non-HT OFDM PPDU, us."""
    return 20 + 4 * math.ceil((16 + 8 * bytes_ + 6) / (4 * mbps))


def _ht_us(bytes_: int, mcs: int) -> int:
    """Airtime of an HT-mixed PPDU at 20 MHz with the long guard interval, us."""
    n_dbps = (26, 52, 78, 104, 156, 208, 234, 260)[mcs]
    return 36 + 4 * math.ceil((16 + 8 * bytes_ + 6) / n_dbps)


# A-MPDU limits: ns-3's BE_MaxAmpduSize and aPPDUMaxTime; 64 MPDUs, the Block Ack window.
MAX_AMPDU_BYTES = 65535
MAX_PPDU_US = 5484
MAX_MPDUS = 64
# An MPDU's QoS data header and FCS; an A-MSDU subframe's header (DA, SA, length); LLC/SNAP.
MPDU_OVERHEAD = 26 + 4
AMSDU_SUBFRAME_HEADER = 14
LLC_SNAP = 8


def _pad4(size: int) -> int:
    return (-size) % 4


def amsdu_bytes(k: int, msdu: int) -> int:
    """An A-MSDU of `k` MSDUs of `msdu` bytes: a 14-byte subframe header each, each subframe but
    the last padded to 4 bytes (ns-3's MsduAggregator::GetSizeIfAggregated)."""
    size = 0
    for _ in range(k):
        size += _pad4(size) + AMSDU_SUBFRAME_HEADER + msdu
    return size


def aggregate(mcs: int, agg: bool, amsdu: int = 0, packet: int = UDP_PAYLOAD + 28) -> list[int]:
    """The MPDUs of a saturated exchange of IP packets of `packet` bytes at HT MCS `mcs` (long GI),
    as ns-3 builds them: the packets each MPDU carries. Without aggregation one MPDU of one
    packet. With A-MPDUs, MPDU after MPDU while the A-MPDU (4-byte delimiter each, padding to 4
    between subframes) stays within 65,535 bytes, 5.484 ms and 64 MPDUs; with `amsdu` > 0 each
    new MPDU first takes as many packets as fit in an A-MSDU of at most `amsdu` bytes and in those
    limits (MsduAggregator::GetNextAmsdu), or stays a plain MPDU of one packet."""
    msdu = packet + LLC_SNAP
    if not agg:
        return [1]

    def fits(ampdu: int, mpdu: int) -> bool:
        size = ampdu + _pad4(ampdu) + 4 + mpdu
        return size <= MAX_AMPDU_BYTES and _ht_us(size, mcs) <= MAX_PPDU_US

    mpdus: list[int] = []
    ampdu = 0
    while len(mpdus) < MAX_MPDUS:
        k = 1
        if amsdu:
            while (
                amsdu_bytes(k + 1, msdu) <= amsdu
                and fits(ampdu, MPDU_OVERHEAD + amsdu_bytes(k + 1, msdu))
            ):
                k += 1
        mpdu = MPDU_OVERHEAD + (amsdu_bytes(k, msdu) if k > 1 else msdu)
        if not fits(ampdu, mpdu):
            break
        ampdu += _pad4(ampdu) + 4 + mpdu
        mpdus.append(k)
    return mpdus


def psdu_bytes(mpdus: Sequence[int], packet: int = UDP_PAYLOAD + 28) -> int:
    """The PSDU of `aggregate`'s MPDUs: a lone MPDU as it is, two or more as an A-MPDU."""
    sizes = [
        MPDU_OVERHEAD + (amsdu_bytes(k, packet + LLC_SNAP) if k > 1 else packet + LLC_SNAP)
        for k in mpdus
    ]
    if len(sizes) == 1:
        return sizes[0]
    total = 0
    for size in sizes:
        total += _pad4(total) + 4 + size
    return total


def closed_form_mbps(mcs: int, agg: bool, amsdu: int = 0) -> float:
    """Saturated UDP throughput of one lone station at HT MCS `mcs` (20 MHz, long GI), Mbit/s;
    `amsdu` > 0: its A-MPDUs carry A-MSDUs of at most that many bytes (`aggregate`)."""
    mpdus = aggregate(mcs, agg, amsdu)
    control = 6 if mcs == 0 else 12 if mcs <= 2 else 24
    answer = _ofdm_us(14 if len(mpdus) == 1 else 32, control)
    cycle_us = 43 + 7.5 * 9 + _ht_us(psdu_bytes(mpdus), mcs) + 16 + answer
    return sum(mpdus) * UDP_PAYLOAD * 8 / cycle_us


def compare(cases: Sequence[HtCase], seeds: int) -> list[dict[str, Any]]:
    """airtcp against the stored ns-3 reference (and the closed form for saturated UDP)."""
    ref = load_reference()["cases"]
    rows = []
    for case in cases:
        ours = airtcp_case(case, seeds)
        theirs = ref[case.name]
        ns3 = theirs["throughput_mbps"]
        link = theirs.get("links", {}).get("0->1", {})
        mix = link.get("mpdus_by_rate_mbps")
        closed = (
            closed_form_mbps(case.mcs, case.agg, case.amsdu)
            if case.traffic == "udp" and not case.sgi
            else None
        )
        rows.append({
            "case": case.name,
            "what": case.what,
            "airtcp_mbps": ours["throughput_mbps"],
            "ns3_mbps": ns3,
            "ratio": ours["throughput_mbps"] / ns3 if ns3 > 0 else None,
            "closed_form_mbps": closed,
            "airtcp_mpdus_per_ampdu": ours["mpdus_per_ampdu"],
            "ns3_mpdus_per_ampdu": link.get("mean_mpdus_per_ampdu") if case.agg else None,
            "airtcp_retry_share": ours["mpdu_retry_share"],
            "ns3_retry_share": link.get("retransmitted_fraction") if case.agg else None,
            "airtcp_msdus_per_amsdu": ours["msdus_per_amsdu"] if case.amsdu else None,
            "ns3_msdus_per_amsdu": link.get("mean_msdus_per_amsdu") if case.amsdu else None,
            "airtcp_mpdus_by_rate_mbps": ours["mpdus_by_rate_mbps"] if mix is not None else None,
            "ns3_mpdus_by_rate_mbps": mix,
            "rate_mix_tvd": None if mix is None else rate_mix_tvd(ours["mpdus_by_rate_mbps"], mix),
        })
    return rows


def compare_table(rows: Sequence[dict[str, Any]]) -> str:
    def num(x: float | None, fmt: str) -> str:
        return "-" if x is None else format(x, fmt)

    lines = [
        "| case | airtcp Mbit/s | ns-3 Mbit/s | airtcp / ns-3 | closed form | MPDUs per A-MPDU "
        "(airtcp / ns-3) | packets per A-MSDU (airtcp / ns-3) | MPDU retransmissions "
        "(airtcp / ns-3) | MPDU rate mix TVD |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        ratio = num(r["ratio"], ".3f")
        amsdu = (
            "-"
            if r["ns3_msdus_per_amsdu"] is None
            else f"{num(r['airtcp_msdus_per_amsdu'], '.2f')} / {num(r['ns3_msdus_per_amsdu'], '.2f')}"
        )
        if r["ratio"] is not None and abs(r["ratio"] - 1) > TARGET:
            ratio = f"**{ratio}**"
        lines.append(
            f"| `{r['case']}` | {r['airtcp_mbps']:.2f} | {r['ns3_mbps']:.2f} | {ratio} | "
            f"{num(r['closed_form_mbps'], '.2f')} | {num(r['airtcp_mpdus_per_ampdu'], '.1f')} / "
            f"{num(r['ns3_mpdus_per_ampdu'], '.1f')} | {amsdu} | {num(r['airtcp_retry_share'], '.3f')} / "
            f"{num(r['ns3_retry_share'], '.3f')} | {num(r['rate_mix_tvd'], '.3f')} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m airtcp.bench.wifi.ht_compare", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--cases", help="comma-separated case names (default: all)")
    parser.add_argument("--seeds", type=int, default=DEFAULT_SEEDS, help="seeds 1..N (default 3)")
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error("--seeds: must be at least 1")
    try:
        cases = [case_by_name(n) for n in args.cases.split(",")] if args.cases else list(CASES)
    except KeyError as error:
        parser.error(f"--cases: unknown case {error}")
    rows = compare(cases, args.seeds)
    print(compare_table(rows))
    off = [r["case"] for r in rows if r["ratio"] is not None and abs(r["ratio"] - 1) > TARGET]
    if off:
        print(f"outside {TARGET:.0%}: {', '.join(off)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
