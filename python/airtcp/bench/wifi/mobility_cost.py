"""What moving nodes cost the event loop: a 1,000-node 802.11b network with 100 TCP flows over
AODV, run standing still and under steady-state random waypoint (1-20 m/s, no pauses), events per
second of each and their ratio.

The nodes are placed uniformly in 3 km x 3 km (about 22 neighbours within the 250 m range), the
flows are `draw_pairs(1000, 100, seed=2)`, flow i starting at 1 s + 10 ms i. The two runs differ
only in `mobility`: the moving run's events are not the same events (routes break, AODV floods
more), so the ratio compares the cost of an event, which is what the neighbour-list upkeep and
the per-frame positions add to. Wall-clock events per second depend on the machine's load; run it
on a quiet machine (`--repeat` takes the best of several).

    python -m airtcp.bench.wifi.mobility_cost [--duration 60] [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

NODES = 1000
SIDE_M = 3000
FLOWS = 100
PAIR_SEED = 2


def scenario(moving: bool, duration_s: float) -> dict[str, Any]:
    """The network standing still or moving, as a scenario mapping."""
    from .grid import draw_pairs

    tcp = {"kind": "tcp", "cc": "newreno", "sack": True, "mss": 1000, "delayed_ack": 2, "initial_cwnd": 10}
    doc: dict[str, Any] = {
        "name": "mobility-cost-" + ("moving" if moving else "still"),
        "duration": f"{duration_s:g}s",
        "seed": 1,
        "radio": {"standard": "802.11b", "data_rate": "2Mbps", "basic_rate": "1Mbps",
                  "propagation": {"kind": "range", "range": "250m"}},
        "topology": {"kind": "random", "n": NODES, "width": f"{SIDE_M}m", "height": f"{SIDE_M}m"},
        "routing": {"kind": "aodv"},
        "flows": [
            {"id": f"f{i}", "src": f"n{s}", "dst": f"n{d}", "start": f"{1000 + 10 * i}ms",
             "app": {"kind": "bulk"}, "transport": tcp}
            for i, (s, d) in enumerate(draw_pairs(NODES, FLOWS, PAIR_SEED))
        ],
    }
    if moving:
        doc["mobility"] = [{
            "kind": "random_waypoint", "min_speed": 1, "max_speed": 20, "steady_state": True,
            "bounds": {"x_min": "0m", "x_max": f"{SIDE_M}m", "y_min": "0m", "y_max": f"{SIDE_M}m"},
        }]
    return doc


def measure(moving: bool, duration_s: float) -> dict[str, float]:
    """One run's events, event-loop seconds and events per second."""
    from airtcp import _core
    from airtcp.scenario.schema import load_scenario, to_core_json

    out = json.loads(_core.simulate_json(to_core_json(load_scenario(scenario(moving, duration_s)))))
    timing = out["timing"]
    return {"events": timing["events"], "wall_s": timing["wall_s"], "events_per_s": timing["events_per_s"]}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m airtcp.bench.wifi.mobility_cost",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=60.0, help="simulated seconds (default 60)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each, the fastest kept (default 1)")
    args = parser.parse_args(argv)
    if args.duration <= 0 or args.repeat < 1:
        parser.error("--duration must be above 0 and --repeat at least 1")
    best: dict[bool, dict[str, float]] = {}
    for _ in range(args.repeat):
        for moving in (False, True):
            run = measure(moving, args.duration)
            if moving not in best or run["events_per_s"] > best[moving]["events_per_s"]:
                best[moving] = run
    print("| network | events | loop s | events/s |")
    print("|---|---:|---:|---:|")
    for moving in (False, True):
        r = best[moving]
        print(f"| {'random waypoint' if moving else 'standing still'} | {r['events']:,} | {r['wall_s']:.1f} | {r['events_per_s']:,.0f} |")
    print(f"moving / still, events per second: {best[True]['events_per_s'] / best[False]['events_per_s']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
