"""`airtcp compare`: what a network offers and what schemes need, how schemes rewrite a scenario,
the optimum beside the measurements (against hand values and an independent solver), the table
and its sentences, the command end to end (resuming, bad input, the report in Chromium)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import airtcp
from airtcp.comparison import DEFAULT_SCENARIOS, comparison
from airtcp.comparison.needs import Need, disjoint_paths, facts_of, layout_of
from airtcp.comparison.optimum import airtime_us, exchange_us, optimum_of
from airtcp.comparison.plan import plan_scenario
from airtcp.comparison.schemes import SCHEMES, schemes_named
from airtcp.comparison.table import _run_metrics, _sentence
from airtcp.errors import ScenarioError
from airtcp.papers import registry
from airtcp.scenario import bundled
from airtcp.scenario.schema import load_scenario, to_user_dict
from browser_check import check_page, chromium  # noqa: F401 - chromium is a fixture
from support import EXAMPLES, run_cli, table_cells

BY_KEY = {scheme.key: scheme for scheme in SCHEMES}


def _scenario(name: str):  # type: ignore[no-untyped-def]
    return load_scenario(bundled.read_data(name))


# --- Needs ----------------------------------------------------------------------------------------


def test_disjoint_paths_count_node_disjoint_routes() -> None:
    ring = [(a, b) for a, b in [("a", "b"), ("b", "c"), ("c", "d"), ("d", "a")]]
    ring += [(b, a) for a, b in ring]
    assert disjoint_paths(ring, "a", "c", at_most=3) == 2  # by b and by d
    chain = [("a", "b"), ("b", "c"), ("b", "a"), ("c", "b")]
    assert disjoint_paths(chain, "a", "c", at_most=3) == 1
    # Two routes through one cut node are one node-disjoint path.
    bowtie = [("s", "x"), ("s", "y"), ("x", "m"), ("y", "m"), ("m", "t")]
    assert disjoint_paths(bowtie, "s", "t", at_most=3) == 1
    assert disjoint_paths([("s", "t")], "s", "t", at_most=2) == 1


def test_facts_say_what_each_network_is() -> None:
    diamond = facts_of(_scenario("compare/diamond_lossy"))
    assert (diamond.kind, diamond.radios_per_node, diamond.longest_route_hops) == ("mesh", 1, 2)
    assert diamond.multipath_flows == 2  # A-B directly or round by C and D; A-D by B or by C
    x = facts_of(_scenario("compare/x"))
    assert x.multipath_flows == 0  # the X's flows have one relay and nothing else
    testbed = facts_of(_scenario("compare/testbed22"))
    assert testbed.radios_per_node >= 2
    assert facts_of(_scenario("compare/cell4")).kind == "cell"
    assert facts_of(_scenario("compare/router_bimodal")).kind == "router"
    wired = facts_of(load_scenario(EXAMPLES / "p2p_lossy.yaml"))
    assert wired.kind == "wired"
    assert Need.MESH.unmet(wired) is not None and Need.DOWNLINK.unmet(wired) is not None


def test_needs_give_reasons() -> None:
    testbed = facts_of(_scenario("compare/testbed22"))
    assert "one radio per node" in (Need.OVERHEARING.unmet(testbed) or "")
    assert Need.MULTIPATH.unmet(facts_of(_scenario("compare/x"))) == "needs a flow with two node-disjoint paths; no flow here has two"
    assert Need.MESH.unmet(testbed) is None


# --- Schemes --------------------------------------------------------------------------------------


def test_a_mesh_scheme_rewrites_routing_coding_and_transport_only() -> None:
    doc = to_user_dict(_scenario("compare/x"))
    doc["coding"] = {"scheme": "cope"}
    doc["flows"][0]["transport"]["nc"] = {"block": "cwnd"}
    doc["flows"].append({"id": "bg", "src": "n1", "dst": "n3", "app": {"kind": "cbr", "rate": "10kbps", "size": 200},
                         "transport": {"kind": "udp"}})
    out = BY_KEY["tcp_aodv"].apply(doc)
    assert out["routing"] == {"kind": "aodv"} and "coding" not in out
    assert "nc" not in out["flows"][0]["transport"]
    assert out["flows"][0]["transport"]["mss"] == doc["flows"][0]["transport"]["mss"]
    assert out["flows"][-1] == doc["flows"][-1]  # background UDP stays
    assert out["radio"] == doc["radio"] and out["topology"] == doc["topology"]
    nc = BY_KEY["bp_tcp_aware_nc"].apply(doc)
    assert nc["routing"]["differential"] == "tcp_aware"
    assert all(f["transport"].get("nc") == {"block": "cwnd"} for f in nc["flows"] if f["transport"]["kind"] == "tcp")
    assert BY_KEY["ncaqm"].apply(doc)["coding"] == {"scheme": "cope", "queue": "ncaqm"}
    assert doc["coding"] == {"scheme": "cope"}  # the input is not changed


def test_cell_and_router_schemes() -> None:
    cell = to_user_dict(_scenario("compare/cell4"))
    quic = BY_KEY["cell_dmw_quic"].apply(cell)
    assert quic["downlink"]["scheduler"] == {"kind": "delay_max_weight"}
    assert {f["transport"]["cc"] for f in quic["flows"]} == {"quic_tcp"}
    load_scenario(quic)
    router = to_user_dict(_scenario("compare/router_bimodal"))
    rlc = BY_KEY["router_rlc"].apply(router)
    assert {f["transport"]["kind"] for f in rlc["flows"]} == {"tcp_rlc"}
    pairs = rlc["routers"][0]["priority_pairs"]
    assert pairs["low_order"] == "lifo" and pairs["low_policy"]["kind"] == "channel_aware"
    back = BY_KEY["router_newreno"].apply(rlc)
    assert "priority_pairs" not in back["routers"][0] and {f["transport"]["kind"] for f in back["flows"]} == {"tcp"}
    load_scenario(back)


def test_the_linux_scheme_names_the_profile_and_keeps_the_segment_size() -> None:
    mesh = to_user_dict(_scenario("compare/testbed22"))
    for flow in mesh["flows"]:
        flow["transport"] = {"kind": "tcp", "cc": "vegas", "vegas": {"alpha": 1}, "sack": False, "mss": 1200}
    linux = BY_KEY["tcp_linux"].apply(mesh)
    for flow in linux["flows"]:
        assert flow["transport"] == {"kind": "tcp", "mss": 1200, "profile": "linux"}
    loaded = load_scenario(linux)
    transport = loaded.flows[0].transport
    assert (transport.cc, transport.recovery, transport.sack, transport.mss) == ("cubic", "prr", True, 1200)
    bbr = BY_KEY["tcp_bbr"].apply(mesh)
    assert {f["transport"]["cc"] for f in bbr["flows"]} == {"bbr"}
    load_scenario(bbr)


def test_scheme_names_are_checked() -> None:
    assert [s.key for s in schemes_named(["horizon", "cope"])] == ["cope", "horizon"]
    with pytest.raises(ScenarioError) as caught:
        schemes_named(["cope", "nope", "cope"])
    lines = caught.value.lines()
    assert any(line.startswith("--schemes[1]: unknown scheme 'nope'") for line in lines)
    assert "--schemes[2]: 'cope' is named twice" in lines


# --- Plans ----------------------------------------------------------------------------------------


def test_a_plan_runs_the_schemes_that_apply_with_paired_seeds() -> None:
    plan = plan_scenario("compare/testbed22", SCHEMES, "SCENARIO[0]", set())
    keys = [s.key for s in plan.schemes]
    assert keys == ["tcp_aodv", "tcp_static", "tcp_vegas", "tcp_bbr", "tcp_linux", "bp_classical", "bp_tcp_aware",
                    "bp_tcp_aware_nc", "horizon"]
    reasons = dict(plan.not_applicable)
    assert "one radio per node" in reasons["cope"] and "base-station downlink" in reasons["cell_rr_newreno"]
    spec = plan.spec(3, quick=True)
    assert spec["zip"]["name"] == keys and spec["seeds"] == 3
    assert set(spec["zip"]) == {"name", "routing", "flows", "duration"}  # coding: no scheme here sets it
    assert all(len(values) == len(keys) for values in spec["zip"].values())
    assert spec["zip"]["duration"][0] == "20s"  # a third of 40 s is below the 20 s floor
    assert "duration" not in plan.spec(3, quick=False)["zip"]


def test_a_scheme_the_simulator_refuses_is_not_applicable_with_its_message() -> None:
    import dataclasses

    # COPE declared as needing only a mesh: the multi-radio testbed passes the needs, and the
    # core's own refusal becomes the reason.
    careless = dataclasses.replace(BY_KEY["cope"], key="careless_cope", needs=(Need.MESH,))
    plan = plan_scenario("compare/testbed22", [BY_KEY["tcp_static"], careless], "SCENARIO[0]", set())
    assert [s.key for s in plan.schemes] == ["tcp_static"]
    assert dict(plan.not_applicable)["careless_cope"] == (
        "the simulator refuses it: radio.node_channels: coding runs on one radio per node")


# --- The optimum ----------------------------------------------------------------------------------

_DOT11B = {"slot_us": 20.0, "sifs_us": 10.0, "difs_us": 50.0, "cw_min": 31, "plcp_us": 192.0, "ofdm": False,
           "mac_overhead_bytes": 36, "rts_cts": False, "rts_us": 352.0, "cts_us": 304.0}


def test_air_times_match_the_standard_by_hand() -> None:
    # 802.11b: 192 us of preamble, 1076 bytes at 2 Mbps = 4304 us.
    assert airtime_us(_DOT11B, 1076, 2_000_000) == 4496.0
    # 802.11a: 20 us, then ceil((16 + 8 x 1536 + 6) / 216) = 57 symbols of 4 us at 54 Mbps.
    ofdm = {**_DOT11B, "ofdm": True, "plcp_us": 20.0}
    assert airtime_us(ofdm, 1536, 54_000_000) == 20.0 + 57 * 4
    # DIFS + 15.5 slots + data + SIFS + ACK (304 us at 1 Mbps).
    assert exchange_us(_DOT11B, 1040, 2_000_000, 304.0) == 50 + 310 + 4496 + 10 + 304
    rts = {**_DOT11B, "rts_cts": True}
    assert exchange_us(rts, 1040, 2_000_000, 304.0) == 50 + 310 + 352 + 304 + 20 + 4496 + 10 + 304


def test_the_mesh_optimum_of_a_two_hop_chain_is_its_hand_value() -> None:
    scenario = load_scenario(EXAMPLES / "chain3.yaml", overrides=["topology.hops=2", "flows[0].dst=\"n2\""])
    layout = layout_of(scenario)
    opt = optimum_of(scenario, layout, "mesh")
    transport = scenario.flows[0].transport
    timing = layout["timing"]
    rate = layout["links"][0]["rate_bps"]
    ack = layout["links"][0]["ack_us"]
    # One collision domain: each segment crosses two hops, each costing its exchange plus the
    # TCP ACK's share on the way back.
    per_hop = exchange_us(timing, transport.mss + transport.header_bytes, rate, ack) \
        + exchange_us(timing, 40, rate, ack) / transport.delayed_ack
    assert all(link["delivery"] == pytest.approx(1.0) for link in layout["links"])
    expected = 1e6 / (2 * per_hop) * 8 * transport.mss
    assert opt.total_bps == pytest.approx(expected, rel=1e-6)
    assert opt.rates_bps[0] == pytest.approx(expected, rel=1e-5)  # one flow: its fair rate is the most it gets


def test_the_cell_optimum_agrees_with_the_region_s_own_proportional_fair_point() -> None:
    from airtcp.models.downlink_region import proportional_fair_rates

    scenario = _scenario("compare/cell4")
    layout = layout_of(scenario)
    opt = optimum_of(scenario, layout, "cell")
    assert opt.unavailable is None and len(opt.rates_bps) == 4
    # An independent solver: the fluid fixed point of eq. (10) on the region alone (the wired
    # links, 100 Mbit/s each, do not bind).
    from airtcp.comparison import optimum as module

    payload, header, _ = module._segments(scenario)
    assert sum(opt.rates_bps) <= opt.total_bps * (1 + 1e-9)
    rates = _cell_region_pf(scenario, payload + header, proportional_fair_rates)
    assert np.allclose(np.array(opt.rates_bps) / (8 * payload), rates, rtol=2e-3)


def _cell_region_pf(scenario, packet_bytes, solver):  # type: ignore[no-untyped-def]
    from airtcp.models import downlink as dl
    from airtcp.models.downlink_region import AmcTable, Downlink

    # The same region built the Downlink way (its own bits per slot, with the frame and residual
    # of the core folded into rate_scale), so only the thresholds are shared with the code tested.
    rates = dl.rates(scenario.downlink)
    table = AmcTable(tuple(m.min_snr_db for m in rates.modes), tuple(m.efficiency for m in rates.modes))
    region = Downlink(rates.mean_snr_db, table, bandwidth_hz=rates.bandwidth_hz, slot_s=rates.slot_s,
                      rate_scale=rates.frame_efficiency * rates.rate_scale,
                      packet_bytes=packet_bytes + rates.mac_overhead_bytes).region()
    return solver(region)


def test_the_router_optimum_bounds_the_packets_the_router_can_deliver() -> None:
    scenario = _scenario("compare/router_bimodal")
    opt = optimum_of(scenario, layout_of(scenario), "router")
    router = scenario.routers[0]
    mss = scenario.flows[0].transport.mss
    line_rate = float(router.rate) / (8 * (mss + 40)) * 8 * mss
    # Never more than the line rate; with 8 users one is nearly always in its good state.
    assert 0.95 * line_rate < opt.total_bps <= line_rate
    assert sum(opt.rates_bps) <= opt.total_bps * (1 + 1e-9)


def test_a_multi_channel_mesh_schedules_each_channel_on_its_own() -> None:
    from airtcp.models.capacity_region import num_optimum

    # Two links on two channels through one node: with groups both carry 1 at once; as one
    # group (a shared schedule) they split it.
    config = {
        "num_nodes": 3,
        "links": [{"from": 0, "to": 1, "capacity": 1.0, "p_on": 1.0}, {"from": 1, "to": 2, "capacity": 1.0, "p_on": 1.0}],
        "conflicts": {"kind": "explicit", "pairs": []},
        "flows": [{"src": 0, "dst": 2}],
        "link_groups": [36, 44],
    }
    linear = [{"kind": "alpha_fair", "alpha": 0.0}]
    assert num_optimum(config, linear).rates[0] == pytest.approx(1.0)
    shared = {**config, "link_groups": [1, 1], "conflicts": {"kind": "explicit", "pairs": [[0, 1]]}}
    assert num_optimum(shared, linear).rates[0] == pytest.approx(0.5)
    with pytest.raises(ScenarioError, match="a conflict joins links of two groups"):
        num_optimum({**config, "conflicts": {"kind": "explicit", "pairs": [[0, 1]]}}, linear)


# --- The table ------------------------------------------------------------------------------------


def test_run_metrics_and_the_sentence() -> None:
    from airtcp.comparison.optimum import Optimum

    opt = Optimum("m", total_bps=4e6, utility=2 * math.log(2e6), rates_bps=(2e6, 2e6))
    metrics = _run_metrics({"a": 1e6, "b": 1e6}, opt)
    assert metrics["total_mbps"] == 2.0 and metrics["jain"] == 1.0
    assert metrics["total_fraction"] == 0.5 and metrics["utility_fraction"] == pytest.approx(0.5)
    starved = _run_metrics({"a": 2e6, "b": 0.0}, opt)
    assert starved["utility"] == -math.inf and starved["utility_fraction"] == 0.0 and starved["jain"] == 0.5
    row = {"total_mbps": {"mean": 2.0}, "jain": {"mean": 0.97}, "vs_baseline": {"mean": 1.4, "ci95": 0.1},
           "baseline": "tcp_aodv", "total_fraction": {"mean": 0.62}}
    assert _sentence("diamond_lossy", BY_KEY["bp_tcp_aware_nc"], row) == (
        "On diamond_lossy, TCP-aware backpressure + NC carries 1.40x ± 0.10 TCP over AODV's total at Jain 0.97 "
        "(62 % of the optimum total).")


# --- End to end -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_comparison(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("compare") / "cmp"
    result = run_cli("compare", "compare/diamond_lossy", "compare/cell4", "--schemes",
                     "tcp_aodv,bp_tcp_aware,horizon,cell_rr_newreno,cell_dmw_quic", "--seeds", "2", "--quick",
                     "--out", out, "--workers", "2")
    assert result.returncode == 0, result.stderr
    assert "diamond_lossy (mesh):" in result.stdout and "report:" in result.stdout
    return out


def test_every_cell_is_filled_or_not_applicable_with_a_reason(small_comparison: Path) -> None:
    record = json.loads((small_comparison / "compare.json").read_text(encoding="utf-8"))
    assert [t["slug"] for t in record["scenarios"]] == ["diamond_lossy", "cell4"]
    for table in record["scenarios"]:
        assert table["seeds"] == [1, 2]
        assert len(table["rows"]) == 5
        for row in table["rows"]:
            if row["status"] == "not applicable":
                assert row["reason"]
            else:
                assert row["status"] == "ok", row
                assert row["total_mbps"]["n"] == 2 and 0 < row["jain"]["mean"] <= 1
                assert 0 < row["total_fraction"]["mean"] <= 1.1
                assert row["sentence"].startswith(f"On {table['slug']}, ")
    cell = {row["scheme"]: row for row in record["scenarios"][1]["rows"]}
    assert cell["tcp_aodv"]["reason"] == "needs a multi-hop wireless mesh; this is a base-station cell"
    assert "vs_baseline" not in cell["cell_rr_newreno"] and cell["cell_dmw_quic"]["baseline"] == "cell_rr_newreno"


def test_running_again_resumes_without_running_anything(small_comparison: Path) -> None:
    outcome = airtcp.compare(["compare/diamond_lossy", "compare/cell4"],
                             schemes=["tcp_aodv", "bp_tcp_aware", "horizon", "cell_rr_newreno", "cell_dmw_quic"],
                             seeds=2, quick=True, out=small_comparison, quiet=True)
    assert outcome.ok and outcome.executed_runs == 0 and outcome.skipped_runs == 10


def test_no_cell_of_the_comparison_report_is_empty_without_a_reason(small_comparison: Path) -> None:
    cells = table_cells((small_comparison / "report.html").read_text(encoding="utf-8"))
    assert len(cells) > 50
    assert [cell for cell in cells if cell.strip() in ("", "-", "\u2013", "\u2014", "n/a")] == []
    # The baseline's own ratio and the reason a scheme was not run are said in words.
    assert "the baseline" in cells and any(cell.startswith("not applicable: ") for cell in cells)


def test_the_comparison_report_renders_in_chromium(small_comparison: Path, chromium: str) -> None:
    page = (small_comparison / "report.html").read_text(encoding="utf-8")
    assert "<h2>Scheme x scenario</h2>" in page and "<h2>Settings of every scheme</h2>" in page
    assert "not applicable: needs a base-station downlink; this is a wireless mesh" in page
    assert "On diamond_lossy, TCP-aware backpressure carries" in page
    check = check_page(small_comparison / "report.html", screenshot=small_comparison / "report.png")
    assert check.console_errors == [] and check.broken_images == []
    assert len(check.images) == 2  # one figure per scenario


@pytest.mark.parametrize(
    "args, expected",
    [
        (["compare/x", "--seeds", "0"], "error: --seeds: must be between 1 and 10000, got 0"),
        (["compare/x", "--schemes", "cope,nope"], "error: --schemes[1]: unknown scheme 'nope'"),
        (["compare/x", "missing.yaml"], "error: SCENARIO[1]: missing.yaml: no such file"),
    ],
)
def test_bad_input_exits_2_and_writes_nothing(tmp_path: Path, args: list[str], expected: str) -> None:
    out = tmp_path / "out"
    result = run_cli("compare", *args, "--out", out)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith(expected), result.stderr
    assert not out.exists()


def test_an_out_that_is_a_file_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "file"
    out.write_text("x")
    result = run_cli("compare", "compare/x", "--out", out)
    assert result.returncode == 2 and "error: --out: " in result.stderr
    assert out.read_text() == "x"


def test_the_api_refuses_what_the_command_line_refuses() -> None:
    with pytest.raises(ScenarioError, match="give at least one scenario"):
        comparison([])
    with pytest.raises(ScenarioError, match="give at least one scenario"):
        comparison("compare/x")  # type: ignore[arg-type]
    with pytest.raises(ScenarioError, match="--seeds: must be a whole number of at least 1"):
        comparison(["compare/x"], seeds=0)


def test_the_default_comparison_is_registered_for_reproduce() -> None:
    reproduction = registry()["compare"]
    assert [plan.name for plan in reproduction.sweeps] == [name.split("/")[1] for name in DEFAULT_SCENARIOS]
    assert all(bundled.is_bundled(name) for name in DEFAULT_SCENARIOS)
    quick = reproduction.sweeps[0].spec(True)
    assert quick["seeds"] == 2 and reproduction.sweeps[0].spec(False)["seeds"] == 5


def test_a_network_no_scheme_applies_to_is_refused_with_the_reasons(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = run_cli("compare", EXAMPLES / "p2p_lossy.yaml", "--schemes", "cope,cell_rr_newreno", "--out", out)
    assert result.returncode == 2
    assert result.stderr.startswith(
        "error: SCENARIO[0]: no selected scheme applies to it (cope: needs a multi-hop wireless mesh; this is "
        "not a wireless mesh (a flow ends off the radios); cell_rr_newreno: needs a base-station downlink;")
    assert not out.exists()


def test_a_scenario_without_flows_is_refused() -> None:
    doc = to_user_dict(_scenario("compare/x"))
    doc["flows"] = []
    with pytest.raises(ScenarioError) as caught:
        comparison([doc])
    assert caught.value.lines() == ["SCENARIO[0]: flows: a comparison needs at least one flow"]


def test_a_folder_holding_another_comparison_is_refused_before_anything_runs(small_comparison: Path) -> None:
    before = {path: path.stat().st_mtime_ns for path in small_comparison.rglob("*") if path.is_file()}
    result = run_cli("compare", "compare/diamond_lossy", "compare/cell4", "--schemes",
                     "tcp_aodv,bp_tcp_aware,horizon,cell_rr_newreno,cell_dmw_quic", "--seeds", "3", "--quick",
                     "--out", small_comparison)
    assert result.returncode == 2
    assert "holds a different sweep; use another folder" in result.stderr
    after = {path: path.stat().st_mtime_ns for path in small_comparison.rglob("*") if path.is_file()}
    assert after == before


def test_a_dask_cluster_gives_the_local_pool_s_table(tmp_path: Path, small_comparison: Path) -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        outcome = airtcp.compare(["compare/diamond_lossy", "compare/cell4"],
                                 schemes=["tcp_aodv", "bp_tcp_aware", "horizon", "cell_rr_newreno", "cell_dmw_quic"],
                                 seeds=2, quick=True, out=tmp_path / "dask", cluster=cluster.scheduler_address, quiet=True)
    assert outcome.ok and outcome.executed_runs == 10
    on_dask = json.loads((tmp_path / "dask" / "compare.json").read_text(encoding="utf-8"))
    local = json.loads((small_comparison / "compare.json").read_text(encoding="utf-8"))
    assert on_dask["scenarios"] == local["scenarios"]


def test_a_conflict_graph_with_too_many_schedules_is_refused_not_enumerated() -> None:
    from airtcp.models.capacity_region import maximal_independent_sets

    # 20 conflicting pairs and nothing else: 2^20 schedules.
    pairs = [(2 * i, 2 * i + 1) for i in range(20)]
    assert len(maximal_independent_sets(8, pairs[:4])) == 16
    with pytest.raises(ScenarioError, match="more than 1,000 maximal independent sets"):
        maximal_independent_sets(40, pairs, limit=1000)


def test_an_optimum_that_cannot_be_solved_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    from airtcp.models import capacity_region

    monkeypatch.setattr(capacity_region, "MAX_SCHEDULES", 3)
    monkeypatch.setattr(capacity_region.maximal_independent_sets, "__kwdefaults__", {"limit": 3})
    scenario = _scenario("compare/grid4x4")
    opt = optimum_of(scenario, layout_of(scenario), "mesh")
    assert opt.total_bps is None
    assert opt.unavailable == ("the model could not be solved: conflicts: more than 3 maximal independent sets "
                               "(schedules): too large a network for the region's LP")
