"""The grid case: 10 x 10 nodes 200 m apart, AODV, 10 bulk TCP flows between node pairs drawn with
a fixed seed (`bench/wifi/wifi_grid.cc` for ns-3, `bench/wifi/airtcp_grid.yaml` for airtcp)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from airtcp.bench.wired import _format_seconds, _mean, _ratio

from .common import _kbps, _round, over_seeds
from .ns3 import _common_figures, _ns3_figures, program_runs

GRID_TEMPLATE = "airtcp_grid.yaml"
GRID_ROWS = 10
GRID_COLS = 10
GRID_FLOWS = 10
GRID_PAIR_SEED = 1
GRID_START_S = 1.0
GRID_STAGGER_S = 0.1
GRID_DURATION_S = 100.0
QUICK_GRID_DURATION_S = 20.0


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


def grid_pairs() -> list[tuple[int, int]]:
    """The grid's flow pairs (the same in ns-3's runs, airtcp's template and the reference)."""
    return draw_pairs(GRID_ROWS * GRID_COLS, GRID_FLOWS, GRID_PAIR_SEED)


def grid_start_s(flow: int) -> float:
    """When flow i starts: 1 s + i x 0.1 s."""
    return round(GRID_START_S + flow * GRID_STAGGER_S, 6)


def run_grid(
    binary: Path, *, seeds: int, duration_s: float, errors: list[str], recovery: str = "prr"
) -> dict[str, Any]:
    """ns-3 on the grid for seeds 1..seeds with TCP loss recovery `recovery` (`prr`, ns-3's
    default, or `classic`): goodput per flow and in total, MAC and cost figures, and every run."""
    pairs = grid_pairs()
    pair_arg = ",".join(f"{s}-{d}" for s, d in pairs)
    runs = program_runs(
        binary,
        "grid",
        seeds,
        lambda seed: [
            f"--pairs={pair_arg}",
            f"--rows={GRID_ROWS}",
            f"--cols={GRID_COLS}",
            f"--duration={duration_s!r}",
            f"--start={GRID_START_S!r}",
            f"--stagger={GRID_STAGGER_S!r}",
            f"--seed={seed}",
            f"--recovery={recovery}",
            # AODV's attributes ride along with the first run.
            f"--params={int(seed == 1)}",
        ],
        errors,
    )
    flows = [
        {
            "flow": i,
            "src": src,
            "dst": dst,
            "start_s": grid_start_s(i),
            **over_seeds("goodput_kbps", [_kbps(r["flows"][i]["goodput_bps"]) for r in runs]),
        }
        for i, (src, dst) in enumerate(pairs)
    ]
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
            "start_s": [grid_start_s(i) for i in range(len(pairs))],
            "duration_s": duration_s,
            "goodput": "per flow: bytes received x 8 / (duration - flow start); total: sum",
            "routing": "AodvHelper with ns-3's defaults (HELLOs on, no local repair)",
            "arp": "hand-made PERMANENT ArpCache entries for every node (no ARP traffic; AODV's "
            "neighbour table learns MAC addresses, so MAC retry failures break routes)",
            "queue_disc": "none (removed after address assignment)",
            "rtscts": False,
            "recovery": recovery,
            "seeds": list(range(1, seeds + 1)),
            "aodv_attributes": aodv,
        },
        "flows": flows,
        **over_seeds("total_goodput_kbps", [_kbps(r["goodput_bps"]) for r in runs]),
        **_common_figures(runs),
        "runs": runs,
    }


def airtcp_grid_sets(duration_s: float, recovery: str | None = None) -> list[str]:
    """The `--set` overrides of the grid template: its duration and, with `recovery`, every
    flow's loss recovery (the template sets PRR)."""
    sets = [f"duration={_format_seconds(duration_s)}"]
    if recovery is not None:
        sets += [f"flows[{i}].transport.recovery={recovery}" for i in range(GRID_FLOWS)]
    return sets


def ns3_grid_figures(grid: dict[str, Any], seeds: int) -> dict[str, Any]:
    """ns-3's grid figures (total and per flow, seeds 1..seeds) from `run_grid`'s result or the
    reference file's `grid` section."""
    figures = _ns3_figures(grid, grid["total_goodput_kbps_per_seed"], seeds)
    figures["flows"] = [_mean(f["goodput_kbps_per_seed"][:seeds]) for f in grid["flows"]]
    return figures


def grid_flow_rows(
    airtcp_runs: list[dict[str, Any]], ns3: dict[str, Any] | None
) -> list[dict[str, Any]]:
    """Per-flow goodput of the grid in each simulator (means over seeds)."""
    pairs = grid_pairs()
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
                "start_s": grid_start_s(i),
                "goodput_airtcp_kbps": _round(a, 2),
                "goodput_ns3_kbps": _round(ns3_flows[i], 2),
                "goodput_ratio": _round(_ratio(a, ns3_flows[i]), 3),
            }
        )
    return rows
