"""Paper 001's random grid (`airtcp.papers.paper001.grid`): the cells' occupancy, the cell rule's
paths, the Poisson arrivals, determinism, and a short run of the scenario."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import yaml
import pytest

from airtcp.papers.paper001.grid import CELL_M, cell_route, grid_scenario
from airtcp.scenario.schema import load_scenario
from support import run_cli


def _positions(scenario: dict[str, Any]) -> dict[str, tuple[float, float]]:
    return {n["name"]: (float(n["x"].removesuffix("m")), float(n["y"].removesuffix("m")))
            for n in scenario["topology"]["nodes"]}


def _cell(point: tuple[float, float]) -> tuple[int, int]:
    return int(point[0] // CELL_M), int(point[1] // CELL_M)


@pytest.mark.parametrize("seed", range(1, 11))
def test_fifteen_nodes_six_cells_of_two_and_every_hop_within_range(seed: int) -> None:
    scenario = grid_scenario(seed)
    where = _positions(scenario)
    occupancy = Counter(_cell(p) for p in where.values())
    assert len(where) == 15 and sorted(occupancy.values()) == [1] * 3 + [2] * 6
    assert all(0 <= c < 3 for cell in occupancy for c in cell)
    for flow in scenario["flows"]:
        (path,) = flow["paths"]["paths"]
        assert path[0] == flow["src"] and path[-1] == flow["dst"] and flow["src"] != flow["dst"]
        cells = [_cell(where[n]) for n in path]
        for a, b in zip(path, path[1:]):
            # Neighbouring cells (8-neighbourhood): at most 2 sqrt(2) x 100 m apart.
            assert math.dist(where[a], where[b]) <= 2 * math.sqrt(2) * CELL_M + 1e-9
        direct = max(abs(cells[0][0] - cells[-1][0]), abs(cells[0][1] - cells[-1][1])) <= 1
        assert len(path) == (2 if direct else 3)


def test_the_relay_cell_is_drawn_among_the_cells_next_to_both_ends() -> None:
    # Nodes 0 and 1 in opposite corners: only the centre cell is next to both.
    cells = [(0, 0), (2, 2), (1, 1), (1, 1), (1, 0), (0, 1)]
    rng = np.random.default_rng(1)
    assert Counter(cell_route(0, 1, cells, rng)[1] for _ in range(200)).keys() == {2, 3}
    # (0, 0) to (2, 0): cells (1, 0) and (1, 1) qualify, each about half the time.
    cells = [(0, 0), (2, 0), (1, 0), (1, 1), (0, 2)]
    relays = Counter(cell_route(0, 1, cells, rng)[1] for _ in range(4000))
    assert set(relays) == {2, 3} and abs(relays[2] / 4000 - 0.5) < 0.04


def test_flows_arrive_as_poisson_at_a_fifth_per_second() -> None:
    counts = [len(grid_scenario(seed)["flows"]) for seed in range(1, 201)]
    # 0.2/s over 60 s: 12 on average; the mean of 200 runs within 4 standard errors.
    assert abs(np.mean(counts) - 12) < 4 * math.sqrt(12 / 200)
    starts = [float(f["start"].removesuffix("s")) for f in grid_scenario(5)["flows"]]
    assert starts == sorted(starts) and all(0 <= s < 60 for s in starts)


def test_a_seed_gives_one_grid_and_the_grid_runs(tmp_path: Path) -> None:
    assert grid_scenario(7) == grid_scenario(7) and grid_scenario(7) != grid_scenario(8)
    scenario = grid_scenario(7, duration_s=5.0, flow_rate=2.0)
    load_scenario(scenario)
    path = tmp_path / "grid.yaml"
    path.write_text(yaml.safe_dump(scenario), encoding="utf-8")
    result = run_cli("run", str(path), "-o", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    assert "conservation" in result.stdout and ": ok" in result.stdout
