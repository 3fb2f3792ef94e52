"""What aggregation does to the event loop: events per delivered megabyte of bulk TCP over one hop
and a 3-hop chain (15 m apart, the 802.11n comparison's channel), 802.11a at 54 Mbit/s one frame
at a time against 802.11n at the same PHY rate (MCS 3 in a 40 MHz channel, long guard interval,
54 Mbit/s) with A-MPDU aggregation, and without it.

An A-MPDU exchange carries tens of packets for one channel access, one Block Ack and one round of
arrivals at the neighbours, so the events a delivered byte costs should fall by about the A-MPDU
length; the issue asks for at least half. Events are counts, not times: the figures do not
depend on the machine.

    python -m airtcp.bench.wifi.ht_cost [--duration 20]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from .common import chain_overrides
from .ht_compare import TEMPLATE

# (name, `--set` overrides of the 802.11n template, which is one TCP hop at MCS 7 with A-MPDUs).
RADIOS: tuple[tuple[str, list[str]], ...] = (
    ("802.11a 54 Mbit/s", ["radio.standard=802.11a", "radio.data_rate=54Mbps", "radio.ht=null",
                           "radio.aggregation=null"]),
    ("802.11n 54 Mbit/s, no aggregation", ["radio.data_rate=54Mbps", "radio.ht={channel_width: 40MHz}",
                                          "radio.aggregation={max_ampdu_bytes: 0}"]),
    ("802.11n 54 Mbit/s, A-MPDU", ["radio.data_rate=54Mbps", "radio.ht={channel_width: 40MHz}"]),
)


def measure(duration_s: float) -> list[dict[str, Any]]:
    """Per placement and radio: events, delivered megabytes, events per megabyte, goodput."""
    from airtcp.api import run

    from .ns3 import find_wifi_dir

    template = find_wifi_dir() / TEMPLATE
    rows = []
    for hops in (1, 3):
        for name, sets in RADIOS:
            overrides = [*sets, f"duration={duration_s:g}s"]
            if hops > 1:
                overrides += chain_overrides(hops)
            result = run(template, seed=1, overrides=overrides)
            flow = result.raw["flows"][0]
            megabytes = flow["bytes_delivered"] / 1e6
            events = result.timing["events"]
            rows.append({
                "hops": hops,
                "radio": name,
                "events": events,
                "delivered_mb": megabytes,
                "events_per_mb": events / megabytes if megabytes else None,
                "goodput_mbps": flow["goodput_bps"] / 1e6,
            })
    return rows


def table(rows: Sequence[dict[str, Any]]) -> str:
    lines = [
        "| hops | radio | goodput Mbit/s | events | delivered MB | events per MB | vs 802.11a |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    base: dict[int, float] = {}
    for r in rows:
        if r["radio"].startswith("802.11a"):
            base[r["hops"]] = r["events_per_mb"]
        ratio = r["events_per_mb"] / base[r["hops"]]
        lines.append(
            f"| {r['hops']} | {r['radio']} | {r['goodput_mbps']:.2f} | {r['events']} | "
            f"{r['delivered_mb']:.1f} | {r['events_per_mb']:.0f} | {ratio:.3f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m airtcp.bench.wifi.ht_cost", description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=20.0, help="simulated seconds (default 20)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    if args.duration <= 1:
        parser.error("--duration: must be more than 1 s (the flow starts at 1 s)")
    rows = measure(args.duration)
    print(json.dumps(rows, indent=1) if args.json else table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
