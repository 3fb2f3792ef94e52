"""The 802.11b benchmark's pure parts: templates vs ns-3's settings, the scale mesh, comparisons.

Nothing here runs ns-3 or a simulation.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from airtcp.bench import wifi as bw
from airtcp.scenario.schema import load_scenario, to_core_dict

REPO = Path(__file__).resolve().parents[2]
WIFI = REPO / "bench" / "wifi"


def test_templates_validate_and_match_the_ns3_programs() -> None:
    assert bw.check_templates(WIFI) == []


def test_a_template_change_is_reported() -> None:
    data = to_core_dict(load_scenario(WIFI / "airtcp_chain.yaml"))
    data["radio"]["ack_rate"] = "basic"
    data["flows"][0]["transport"]["header_bytes"] = 40
    problems = bw.template_problems("chain", data)
    assert any(p.startswith("radio.ack_rate is 'basic'") for p in problems), problems
    assert any(p.startswith("flows[0].transport.header_bytes is 40") for p in problems), problems


def test_grid_template_uses_the_reference_pairs_and_starts() -> None:
    reference = json.loads((WIFI / "ns3_reference.json").read_text(encoding="utf-8"))
    settings = reference["grid"]["settings"]
    data = to_core_dict(load_scenario(WIFI / "airtcp_grid.yaml"))
    pairs = [[int(f["src"][1:]), int(f["dst"][1:])] for f in data["flows"]]
    starts = [f["start"] / 1e9 for f in data["flows"]]
    assert pairs == settings["pairs"]
    assert starts == pytest.approx(settings["start_s"])


def test_unit_disk_graph_is_inclusive_and_matches_brute_force() -> None:
    assert bw.unit_disk_neighbours([(0.0, 0.0), (250.0, 0.0), (500.001, 0.0)], 250.0) == [
        [1],
        [0],
        [],
    ]
    rng = random.Random(7)
    points = [(rng.uniform(-300, 900), rng.uniform(0, 700)) for _ in range(200)]
    fast = bw.unit_disk_neighbours(points, 120.0)
    for i, (x, y) in enumerate(points):
        slow = [j for j, (u, v) in enumerate(points) if j != i and math.hypot(u - x, v - y) <= 120]
        assert sorted(fast[i]) == slow


def test_components_and_hop_count() -> None:
    # 0-1-2 in a line, 3-4 apart, 5 alone.
    neighbours = [[1], [0, 2], [1], [4], [3], []]
    label = bw.components(neighbours)
    assert label[0] == label[1] == label[2]
    assert label[3] == label[4] != label[0]
    assert len(set(label)) == 3
    assert bw.hop_count(neighbours, 0, 2) == 2
    assert bw.hop_count(neighbours, 2, 2) == 0
    assert bw.hop_count(neighbours, 0, 3) is None


def test_placed_mesh_is_connected_reproducible_and_inside_the_area() -> None:
    positions, redone = bw.place_connected_mesh(400, 2800.0, 2800.0, 250.0, seed=3)
    again, redone_again = bw.place_connected_mesh(400, 2800.0, 2800.0, 250.0, seed=3)
    assert (positions, redone) == (again, redone_again)
    assert len(positions) == 400
    assert all(0 <= x <= 2800 and 0 <= y <= 2800 for x, y in positions)
    # Millimetre positions, as written into the scenario.
    assert all(round(x, 3) == x and round(y, 3) == y for x, y in positions)
    assert len(set(bw.components(bw.unit_disk_neighbours(positions, 250.0)))) == 1


def test_a_mesh_that_cannot_connect_is_an_error() -> None:
    with pytest.raises(bw.BenchError, match="connected mesh"):
        bw.place_connected_mesh(3, 100_000.0, 100_000.0, 1.0, seed=1, max_rounds=3)


def test_mesh_scenario_replaces_topology_and_flows() -> None:
    template = yaml.safe_load((WIFI / "airtcp_mesh.yaml").read_text(encoding="utf-8"))
    positions = [(0.0, 0.0), (200.0, 0.0), (400.0, 0.0)]
    scenario = bw.mesh_scenario(template, positions, [(0, 2), (2, 1)], duration="5s")
    assert template["topology"]["kind"] == "random"  # the template is left alone
    assert scenario["topology"]["kind"] == "explicit"
    assert scenario["topology"]["nodes"][1] == {"name": "n1", "x": "200.000m", "y": "0.000m"}
    assert [(f["id"], f["src"], f["dst"], f["start"]) for f in scenario["flows"]] == [
        ("f0", "n0", "n2", "1s"),
        ("f1", "n2", "n1", "1010ms"),
    ]
    assert scenario["flows"][1]["transport"] == template["flows"][0]["transport"]
    assert scenario["duration"] == "5s"
    normalised = to_core_dict(load_scenario(scenario))
    assert normalised["topology"]["nodes"][2] == {"name": "n2", "x": 400.0, "y": 0.0}
    # Radio, routing and each flow's transport stay the template's.
    first = {**normalised, "topology": {"kind": "random"}, "flows": normalised["flows"][:1]}
    assert bw.template_problems("scale", first) == []


def _run(goodput_bps: float, wall: float, cmd: float) -> dict[str, Any]:
    return {"goodput_bps": goodput_bps, "sim_wall_s": wall, "cmd_wall_s": cmd, "events": 10}


def test_compare_marks_the_targets() -> None:
    ns3 = {"goodput_kbps": 400.0, "goodput_kbps_per_seed": [390.0, 410.0], "sim_wall_s": 2.0,
           "cmd_wall_s": 2.2}
    row = bw.compare("chain 3", [_run(380e3, 0.02, 1.0), _run(400e3, 0.04, 1.2)], ns3)
    assert row["goodput_airtcp_kbps"] == 390.0
    assert row["goodput_ratio"] == pytest.approx(0.975)
    assert row["speed_ratio"] == pytest.approx(66.7)
    assert row["cmd_ratio"] == pytest.approx(2.0)
    assert row["goodput_ok"] is True and row["speed_ok"] is True

    slow = bw.compare("grid total", [_run(300e3, 0.5, 1.0)], ns3)
    assert slow["goodput_ok"] is False  # 0.75
    assert slow["speed_ok"] is False  # 4x

    missing = bw.compare("grid total", [], None)
    assert missing["goodput_ratio"] is None and missing["goodput_ok"] is None
    assert "n/a" in bw.bench_table([missing])


def test_ns3_figures_from_the_reference_select_seeds() -> None:
    reference = json.loads((WIFI / "ns3_reference.json").read_text(encoding="utf-8"))
    row = next(r for r in reference["chain"]["variants"]["basic_classic"] if r["hops"] == 3)
    one = bw.ns3_chain_figures(reference["chain"], 3, seeds=1)
    assert one is not None
    assert one["goodput_kbps"] == row["goodput_kbps_per_seed"][0]
    assert one["sim_wall_s"] == row["sim_wall_s"]
    assert bw.ns3_chain_figures(reference["chain"], 99, seeds=3) is None
    grid = bw.ns3_grid_figures(reference["grid"], seeds=3)
    assert grid["goodput_kbps"] == pytest.approx(reference["grid"]["total_goodput_kbps"], abs=0.01)
    assert len(grid["flows"]) == 10


def test_option_errors_exit_2_without_running_anything(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert bw.main(["--cases", "saturation", "--out", str(out)]) == 2
    assert bw.main(["--cases", "scale", "--ns3-only", "--out", str(out)]) == 2
    assert bw.main(["--ns3-from-reference", "--update-reference", "--out", str(out)]) == 2
    assert bw.main(["--cases", "nonsense"]) == 2
    assert not out.exists()
