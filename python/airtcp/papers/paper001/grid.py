"""Paper 001's random grid (§VI-A; spec 001 §3), one scenario per seed.

The paper: a 300 m x 300 m area cut into 3 x 3 cells of 100 m; 15 nodes in sets of 1 or 2 per
cell, each uniform in its cell; a flow whose ends are in the same or neighbouring cells goes
directly, otherwise "a node in a neighboring cell acts as a relay"; flows arrive as a Poisson
process, 6 per 30 s on average.

INFERRED (docs/ncaqm.md):
- 15 nodes in 9 cells with 1 or 2 each: 6 cells with two and 3 with one, the three drawn per seed.
- Neighbouring cells: the 8-neighbourhood (with 4-neighbours alone, opposite corners of a 3 x 3
  grid would have no single relay cell). A relay cell neighbours both ends' cells; the cell is
  drawn uniformly among those, the node uniformly in it. TCP's ACKs take the same path back.
- Flows: arrivals at rate 0.2/s over the run, source and destination uniform and distinct, bulk
  until the end of the run.
- The radio decodes to 300 m (two-ray ground, receive threshold -67.54 dBm: a hop between
  diagonal neighbouring cells is at most 283 m) and senses to 550 m (the whole grid, 424 m
  across, is one collision domain); the other settings are §VI-A's
  (`scenarios/001_ncaqm/*_nonc.yaml`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["CELL_M", "RX_THRESHOLD_DBM", "cell_route", "grid_scenario"]

CELL_M = 100.0
GRID = 3
NODES = 15
# Two-ray ground with ns-2's transmitter: 3.652e-10 W at 250 m, so (250/300)^4 of it at 300 m.
RX_THRESHOLD_DBM = 10 * math.log10(3.652e-10 * (250 / 300) ** 4 * 1e3)
TCP = {"kind": "tcp", "cc": "newreno", "sack": True, "mss": 460, "initial_cwnd": 2}


def _neighbours(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Same cell or one of the 8 around it."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])) <= 1


def cell_route(src: int, dst: int, cells: list[tuple[int, int]], rng: np.random.Generator) -> list[int]:
    """The cell rule's path from node `src` to node `dst` (indices into `cells`, each node's
    cell): direct between the same or neighbouring cells, else through a node of a cell that
    neighbours both, the cell uniform among those, the node uniform in it."""
    if _neighbours(cells[src], cells[dst]):
        return [src, dst]
    candidates = sorted({c for c in cells if _neighbours(c, cells[src]) and _neighbours(c, cells[dst])})
    cell = candidates[int(rng.integers(len(candidates)))]
    nodes = [n for n, c in enumerate(cells) if c == cell]
    return [src, nodes[int(rng.integers(len(nodes)))], dst]


def grid_scenario(seed: int, *, duration_s: float = 60.0, flow_rate: float = 0.2, buffer: int = 10) -> dict[str, Any]:
    """The grid for `seed`: nodes n0..n14 placed, flows arriving, each on its cell-rule path."""
    rng = np.random.default_rng(seed)
    all_cells = [(x, y) for y in range(GRID) for x in range(GRID)]
    single = set(int(i) for i in rng.choice(len(all_cells), size=2 * len(all_cells) - NODES, replace=False))
    cells = [cell for i, cell in enumerate(all_cells) for _ in range(1 if i in single else 2)]
    nodes = [{"name": f"n{n}", "x": f"{(cx + rng.random()) * CELL_M:.3f}m", "y": f"{(cy + rng.random()) * CELL_M:.3f}m"}
             for n, (cx, cy) in enumerate(cells)]
    flows = []
    t = float(rng.exponential(1 / flow_rate))
    while t < duration_s:
        src, dst = (int(v) for v in rng.choice(NODES, size=2, replace=False))
        path = cell_route(src, dst, cells, rng)
        flows.append({
            "id": f"f{len(flows)}", "src": f"n{src}", "dst": f"n{dst}", "start": f"{t:.6f}s",
            "app": {"kind": "bulk"}, "transport": dict(TCP),
            "paths": {"kind": "explicit", "paths": [[f"n{n}" for n in path]]},
        })
        t += float(rng.exponential(1 / flow_rate))
    return {
        "name": f"paper001-grid-{seed}",
        "duration": f"{duration_s:g}s",
        "seed": seed,
        "radio": {"mac": "glomosim", "cca_time": "0us", "standard": "802.11b", "data_rate": "1Mbps", "basic_rate": "1Mbps", "rts_cts": True,
                  "frame_error": 0.15, "propagation": {"kind": "two_ray_ground"},
                  "rx_threshold": f"{RX_THRESHOLD_DBM:.4f}dBm", "queue": {"kind": "droptail", "packets": buffer}},
        "topology": {"kind": "explicit", "nodes": nodes},
        "routing": {"kind": "static"},
        "flows": flows,
    }
