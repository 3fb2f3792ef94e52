"""The 802.11b/802.11a benchmark's pure parts: templates vs ns-3's settings, the scale mesh,
comparisons.

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
    # By default basic access with PRR, what the benchmark compares airtcp's templates with.
    row = next(r for r in reference["chain"]["variants"]["basic_prr"] if r["hops"] == 3)
    one = bw.ns3_chain_figures(reference["chain"], 3, seeds=1)
    assert one is not None
    assert one["goodput_kbps"] == row["goodput_kbps_per_seed"][0]
    assert one["sim_wall_s"] == row["sim_wall_s"]
    classic = next(r for r in reference["chain"]["variants"]["basic_classic"] if r["hops"] == 3)
    three = bw.ns3_chain_figures(reference["chain"], 3, seeds=3, variant="basic_classic")
    assert three is not None and three["goodput_kbps_per_seed"] == classic["goodput_kbps_per_seed"]
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
    assert bw.main(["--recovery", "rfc6937", "--out", str(out)]) == 2
    # The reference runs fix their own recoveries.
    assert bw.main(["--ns3-only", "--recovery", "classic", "--out", str(out)]) == 2
    assert bw.main(["--update-reference", "--recovery", "prr", "--out", str(out)]) == 2
    # Sizes the scale case does not know, and scale options without the scale case.
    assert bw.main(["--cases", "scale", "--scale-sizes", "5000", "--out", str(out)]) == 2
    assert bw.main(["--cases", "chain", "--scale-sizes", "100000", "--out", str(out)]) == 2
    assert bw.main(["--cases", "grid", "--scale-baseline", "HEAD", "--out", str(out)]) == 2
    assert not out.exists()


# --------------------------------------------------------------------------------------------
# TCP loss recovery: PRR (ns-3's default) in both simulators, or classic in both


def test_templates_run_prr_as_ns3_does_by_default() -> None:
    for name in ("airtcp_chain.yaml", "airtcp_chain_11a.yaml", "airtcp_grid.yaml", "airtcp_mesh.yaml"):
        flows = to_core_dict(load_scenario(WIFI / name))["flows"]
        assert {f["transport"]["recovery"] for f in flows} == {"prr"}, name
    data = to_core_dict(load_scenario(WIFI / "airtcp_chain.yaml"))
    del data["flows"][0]["transport"]["recovery"]  # airtcp's default, classic, as normalised
    problems = bw.template_problems("chain", data)
    assert any(p.startswith("flows[0].transport.recovery is None") for p in problems), problems


def test_the_benchmark_sets_the_recovery_on_both_sides() -> None:
    from airtcp.bench.wifi.chain import (
        CHAIN_VARIANTS,
        _chain_args,
        airtcp_chain_sets,
        chain11a_variants,
        chain_variant,
    )
    from airtcp.bench.wifi.grid import airtcp_grid_sets

    assert [v.name for v in CHAIN_VARIANTS] == ["basic_prr", "basic_classic", "rtscts_prr"]
    assert chain_variant().name == "basic_prr"
    classic = chain_variant("classic")
    assert (classic.name, classic.rtscts) == ("basic_classic", False)
    assert "--recovery=classic" in _chain_args(3, 20.0, 1, classic, "11b")
    assert {v.recovery for v in chain11a_variants([54, 24])} == {"prr"}
    assert [v.name for v in chain11a_variants([54], "classic")] == ["54Mbps"]
    assert airtcp_chain_sets(3, 20.0, recovery="classic")[-1] == "flows[0].transport.recovery=classic"
    grid = airtcp_grid_sets(100.0, "classic")
    assert grid[0] == "duration=100s"
    assert grid[1:] == [f"flows[{i}].transport.recovery=classic" for i in range(10)]
    assert airtcp_grid_sets(20.0) == ["duration=20s"]
    # airtcp accepts them: every flow of the grid runs classic recovery.
    normalised = to_core_dict(load_scenario(WIFI / "airtcp_grid.yaml", overrides=grid))
    assert all("recovery" not in f["transport"] for f in normalised["flows"])


def test_stored_figures_are_refused_for_a_recovery_they_were_not_run_with() -> None:
    from airtcp.bench.wifi.benchmark import _check_reference

    reference = json.loads((WIFI / "ns3_reference.json").read_text(encoding="utf-8"))
    assert reference["grid"]["settings"]["recovery"] == "prr"
    _check_reference(reference, ["chain", "chain11a", "grid"], 3, [1, 8], [1, 4], [54, 24], "prr")
    # The 802.11b chain is stored with both recoveries, the grid and 802.11a chains with PRR.
    _check_reference(reference, ["chain"], 3, [1, 8], [1, 4], [54, 24], "classic")
    with pytest.raises(bw.BenchError, match="grid ran with prr recovery"):
        _check_reference(reference, ["grid"], 3, [3], [1], [54], "classic")
    with pytest.raises(bw.BenchError, match="802.11a chains ran with prr recovery"):
        _check_reference(reference, ["chain11a"], 3, [3], [1], [54], "classic")


# --------------------------------------------------------------------------------------------
# 802.11a


def test_11a_template_is_checked_against_the_11a_settings() -> None:
    data = to_core_dict(load_scenario(WIFI / "airtcp_chain_11a.yaml"))
    assert bw.template_problems("chain11a", data) == []
    # The 802.11b expectations do not fit it, and a change is reported.
    as_11b = bw.template_problems("chain", data)
    assert any(p.startswith("radio.standard is '802.11a'") for p in as_11b), as_11b
    data["radio"]["ack_rate"] = "data"
    data["radio"]["data_rate"] = 24_000_000
    problems = bw.template_problems("chain11a", data)
    assert any(p.startswith("radio.ack_rate is 'data'") for p in problems), problems
    assert any(p.startswith("radio.data_rate is 24000000") for p in problems), problems


def test_airtcp_chain_sets_choose_length_and_rate() -> None:
    from airtcp.bench.wifi.chain import airtcp_chain_sets

    assert airtcp_chain_sets(3, 100.0) == ["topology.hops=3", "flows[0].dst=n3", "duration=100s"]
    assert airtcp_chain_sets(2, 20.0, rate_mbps=24)[-1] == "radio.data_rate=24Mbps"


# ns-3's 802.11a durations (us) of a 1064-byte UDP frame and a 14-byte ACK (`durations_ofdm`).
_OFDM_UDP_US = {6: 1444.0, 24: 376.0, 54: 180.0}
_OFDM_ACK_US = {6: 44.0, 24: 28.0}


def _bianchi_11a(n: int, rate: int, **model: Any) -> float:
    ack = _OFDM_ACK_US[6 if rate < 24 else 24]
    return bw.bianchi_throughput(
        n,
        slot_us=9.0,
        difs_us=34.0,
        sifs_us=16.0,
        cw_min=15,
        cw_max=1023,
        data_us=_OFDM_UDP_US[rate],
        ack_us=ack,
        payload_bits=8000.0,
        **model,
    )


def test_bianchi_original_model_gives_the_usual_11a_figures() -> None:
    # No retry limit, EIFS (94 us) after a collision, 1 us propagation delay: the model as usually
    # quoted for 802.11a, 1000-byte payloads (Mbit/s).
    quoted = {
        54: [24.43, 24.16, 22.47, 20.67],
        24: [15.28, 14.23, 13.14, 12.04],
        6: [4.98, 4.35, 4.00, 3.65],
    }
    for rate, figures in quoted.items():
        got = [
            _bianchi_11a(n, rate, retry_limit=0, prop_delay_us=1.0, collision_ifs_us=94.0) / 1e6
            for n in (1, 5, 10, 20)
        ]
        assert got == pytest.approx(figures, abs=0.005), (rate, got)
    # With ns-3's retry limit and DIFS after a collision, one station sees no difference but a
    # crowd does.
    one = 8000 / (180 + 16 + 28 + 34 + 7.5 * 9) * 1e6  # DIFS + mean backoff + data + SIFS + ACK
    assert _bianchi_11a(1, 54, retry_limit=7) == pytest.approx(one)
    assert _bianchi_11a(20, 54, retry_limit=7) > _bianchi_11a(
        20, 54, retry_limit=0, prop_delay_us=1.0, collision_ifs_us=94.0
    )


def test_11b_bianchi_column_of_the_reference_is_unchanged() -> None:
    from airtcp.bench.wifi.saturation import _bianchi_for

    reference = json.loads((WIFI / "ns3_reference.json").read_text(encoding="utf-8"))
    for row in reference["saturation"]["rows"]:
        value = _bianchi_for(
            reference["params"],
            row["data_mode"],
            row["access"] == "rtscts",
            row["stations"],
            row["ack_mode"],
            row["cts_mode"],
        )
        assert round(value / 1e3, 2) == row["bianchi_kbps"], row


def test_option_errors_for_11a_exit_2(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert bw.main(["--cases", "saturation11a", "--out", str(out)]) == 2
    assert bw.main(["--rates", "7", "--ns3-only", "--out", str(out)]) == 2
    assert bw.main(["--update-reference", "--rates", "54", "--out", str(out)]) == 2
    assert not out.exists()


def test_a_reference_run_of_11a_cases_keeps_the_11b_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from airtcp.bench.wifi.reference import update_reference_file

    wifi = tmp_path / "bench" / "wifi"
    wifi.mkdir(parents=True)
    for name in ("wifi_chain", "wifi_grid", "wifi_saturation", "wifi_matrix"):
        (wifi / f"{name}.cc").write_text("", encoding="utf-8")
    previous = {
        "about": "old",
        "ns3": "3.44",
        "ns3_package": "ns3==3.44.post0",
        "date": "2026-11-22",
        "seeds": 3,
        "machine": {"cpu": "old"},
        "params": {"dcf": {"slot_us": 20}},
        "grid": {"settings": {"x": 1}},
        "chain": {"settings": {"x": 2}},
        "saturation": {"settings": {"x": 3}},
    }
    (wifi / "ns3_reference.json").write_text(json.dumps(previous, indent=1) + "\n", "utf-8")
    report = {
        "ns3": "3.44",
        "ns3_package": "ns3==3.44.post0",
        "date": "2026-11-25",
        "seeds": 3,
        "environment": {"cpu": "new", "cores": 2},
        "params": {"dcf": {"slot_us": 20}},
        "params_11a": {"dcf": {"slot_us": 9}},
        "chain11a": {"settings": {"y": 1}, "variants": {}, "runs": [{"big": True}]},
        "saturation11a": {"settings": {"y": 2}, "rows": [], "runs": []},
    }
    monkeypatch.chdir(tmp_path)
    update_reference_file(report, ["chain11a", "saturation11a"])
    written = json.loads((wifi / "ns3_reference.json").read_text(encoding="utf-8"))
    assert list(written) == [*previous, "params_11a", "chain11a", "saturation11a"]
    for key in ("date", "seeds", "machine", "params", "grid", "chain", "saturation"):
        assert written[key] == previous[key], key
    assert written["params_11a"] == {"dcf": {"slot_us": 9}}
    assert written["chain11a"]["date"] == "2026-11-25"
    assert written["chain11a"]["machine"]["cpu"] == "new"
    assert "runs" not in written["chain11a"]


def test_11a_reference_has_the_chains_saturation_and_parameters() -> None:
    reference = json.loads((WIFI / "ns3_reference.json").read_text(encoding="utf-8"))
    dcf = reference["params_11a"]["dcf"]
    assert (dcf["slot_us"], dcf["sifs_us"], dcf["difs_us"], dcf["eifs_us"]) == (9, 16, 34, 94)
    assert (dcf["cw_min"], dcf["cw_max"], dcf["frame_retry_limit"]) == (15, 1023, 7)
    assert dcf["error_rate_model"]["type"] == "ns3::NistErrorRateModel"
    assert dcf["durations_ofdm"]["OfdmRate54Mbps"]["tcp_1000_1088B_us"] == 184
    assert reference["params_11a"]["phy"]["Frequency"] == "5180"

    chain = reference["chain11a"]
    assert list(chain["variants"]) == ["54Mbps", "24Mbps"]
    assert {v["recovery"] for v in chain["settings"]["variants"]} == {"prr"}
    for name, rows in chain["variants"].items():
        assert [r["hops"] for r in rows] == [1, 2, 3, 4]
        # ns-3 answers 54 and 24 Mbps data with 24 Mbps ACKs (highest mandatory rate not above).
        assert {r["ack_mode"] for r in rows} == {"OfdmRate24Mbps"}, name
    three = bw.ns3_chain_figures(chain, 3, seeds=3, variant="24Mbps")
    assert three is not None and three["goodput_kbps"] == pytest.approx(
        chain["variants"]["24Mbps"][2]["goodput_kbps"], abs=0.01
    )
    assert bw.ns3_chain_figures(chain, 3, seeds=3) is None  # no 802.11b variant in it

    rows = reference["saturation11a"]["rows"]
    assert {(r["data_mode"], r["ack_mode"]) for r in rows} == {
        ("OfdmRate6Mbps", "OfdmRate6Mbps"),
        ("OfdmRate24Mbps", "OfdmRate24Mbps"),
        ("OfdmRate54Mbps", "OfdmRate24Mbps"),
    }
    assert sorted({r["stations"] for r in rows}) == [1, 5, 10, 20]
    for row in rows:
        # ns-3 within a few per cent of Bianchi's model with its own parameters.
        assert 0.95 < row["ns3_over_bianchi"] < 1.05, row


def test_scale_sizes_keep_the_templates_density() -> None:
    from airtcp.bench.wifi.scale import SCALE_SIZES, size_area

    template = yaml.safe_load((WIFI / "airtcp_mesh.yaml").read_text(encoding="utf-8"))
    assert size_area(template, 10_000) == (14_000.0, 14_000.0)
    width, height = size_area(template, 100_000)
    assert width == height == pytest.approx(14_000.0 * math.sqrt(10))
    for nodes in SCALE_SIZES:
        width, height = size_area(template, nodes)
        assert nodes / (width * height) == pytest.approx(10_000 / 14_000.0**2)
    assert SCALE_SIZES[100_000] == (1_000, 60.0) and SCALE_SIZES[1_000_000] == (1_000, 10.0)


def test_scale_figures_per_node_and_against_a_baseline() -> None:
    from airtcp.bench.wifi.report import scale_lines
    from airtcp.bench.wifi.scale import run_figures

    run = {"flows": [{"goodput_bps": 1000.0}, {"goodput_bps": 0.0}], "peak_rss_kib": 2_000_000,
           "cmd_wall_s": 100.0, "sim_wall_s": 60.0, "cmd_cpu_s": 99.0, "events": 120_000_000,
           "jain": 0.5}
    figures = run_figures(run, 100_000, 2)
    assert figures["setup_s"] == 40.0
    assert figures["events_per_s"] == 2_000_000
    assert figures["rss_per_node_kib"] == 20.0 and figures["rss_per_flow_kib"] == 1_000_000.0
    assert figures["flows_delivering"] == 1
    report = {"nodes": 100_000, "width_m": 44_272.0, "height_m": 44_272.0, "range_m": 250.0,
              "mean_degree": 9.9, "placements_redone": 3, "flows": 2, "hops_min": 1, "hops_max": 9,
              "hops_mean": 5.0, "duration_s": 60.0, "prepare_s": 1.0, "wall_ok": True,
              "rss_ok": True, "run": run, "targets": {"wall_s": 300.0, "peak_rss_bytes": 4e9},
              **figures,
              "baseline": {"label": "abc", **figures},
              "against_baseline": {"cmd_wall_s": 1.0, "setup_s": 1.0, "sim_wall_s": 1.0,
                                   "events_per_s": 1.0, "peak_rss_kib": 1.0},
              "same_results": True}
    text = "\n".join(scale_lines([report]))
    assert "2,000,000 events/s" in text and "outside it (start-up, set-up, results) 40.0 s" in text
    assert "20.0 KiB per node" in text and "target < 5 min: ok" in text
    assert "this build against abc" in text and "same results: yes" in text
