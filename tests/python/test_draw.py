"""`airtcp draw` and `airtcp.experiments.draw`: what the drawing of a scenario shows (read back from the SVG's
text), link usage from a real run, the substitute layout of nodes without positions, and bad input
(exit 2, nothing written)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import airtcp
from airtcp.experiments import draw
from airtcp.scenario.schema import load_scenario
from airtcp.experiments.draw import Edge, draw_scenario, load_layout, read_usage
from support import DUMBBELL, EXAMPLES, P2P_LOSSY, REPO, minimal_scenario, run_cli

CHAIN3 = EXAMPLES / "chain3.yaml"
GRID_AODV = EXAMPLES / "grid_aodv.yaml"
BRIDGE = EXAMPLES / "bridge.yaml"
DIAMOND = REPO / "scenarios" / "topologies" / "diamond.yaml"
SCENARIOS = sorted(EXAMPLES.glob("*.yaml")) + sorted((REPO / "scenarios" / "topologies").glob("*.yaml"))
WIRED_ONLY = {"p2p_lossy", "dumbbell", "cell_downlink"}
SHORT = ["duration=3s"]


def texts(svg: Path) -> list[str]:
    """Every line of text of a figure: matplotlib draws text as paths and keeps each line in a
    comment, where "--" (not allowed in XML comments) is written "- -"."""
    comments = re.findall(r"<!-- (.*?) -->", svg.read_text(encoding="utf-8"), re.DOTALL)
    return [line.replace("- -", "--") for comment in comments for line in comment.splitlines()]


def drawn(scenario_path: Path, out: Path, **kwargs: object) -> list[str]:
    """Draws a scenario file into OUT.png / OUT.svg and returns the SVG's texts."""
    paths = draw_scenario(load_scenario(scenario_path), out, **kwargs)  # type: ignore[arg-type]
    assert paths == [out.with_suffix(".png"), out.with_suffix(".svg")]
    return texts(paths[1])


def written_run(scenario_path: Path, directory: Path, overrides: list[str] = SHORT) -> Path:
    """A real run of the scenario, written as `airtcp run` writes it."""
    return airtcp.run(scenario_path, overrides=overrides).write(directory)


# --- What is drawn ----------------------------------------------------------------------------


def test_a_chain_is_drawn_with_names_metres_and_ranges(tmp_path: Path) -> None:
    out = tmp_path / "chain3"
    labels = drawn(CHAIN3, out)
    png = out.with_suffix(".png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 5000
    assert {"n0", "n1", "n2", "n3", "x (m)", "y (m)", "chain-3"} <= set(labels), labels
    assert any("receive range 250 m" in label for label in labels), labels
    assert "f1: n0 \u2192 n3, 3 hops" in labels
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary files


def test_a_static_route_is_in_the_legend(tmp_path: Path) -> None:
    labels = drawn(DIAMOND, tmp_path / "diamond")
    # Static hop-count routing takes A-B-D (n0, n1, n3): B is numbered first.
    assert "A-B: n0 \u2192 n1, 1 hop" in labels
    assert "A-D: n0 \u2192 n3, 2 hops" in labels
    assert load_layout(load_scenario(DIAMOND)).flows[1]["route"] == ["n0", "n1", "n3"]


def test_moving_nodes_are_drawn_with_their_paths(tmp_path: Path) -> None:
    manet = EXAMPLES / "manet_rwp.yaml"
    scenario = load_scenario(manet, overrides=["duration=20s"])
    layout = load_layout(scenario)
    # Every node moves (steady state, no pauses): 50 paths, each from where the node is at 0.
    assert len(layout.trajectories) == 50
    for name, (t_s, xs, ys) in layout.trajectories.items():
        assert t_s[0] == 0 and t_s[-1] == pytest.approx(20)
        assert (xs[0], ys[0]) == layout.xy[name]
        assert all(0 <= x <= 1500 and 0 <= y <= 300 for x, y in zip(xs, ys))
        # Never faster than 20 m/s between corners.
        for k in range(1, len(t_s)):
            step = ((xs[k] - xs[k - 1]) ** 2 + (ys[k] - ys[k - 1]) ** 2) ** 0.5
            assert step <= 20 * (t_s[k] - t_s[k - 1]) + 1e-6
    assert "path over the run" in drawn(manet, tmp_path / "manet")
    # A still network has none.
    assert load_layout(load_scenario(CHAIN3)).trajectories == {}


@pytest.mark.parametrize("path", SCENARIOS, ids=[path.stem for path in SCENARIOS])
def test_every_shipped_scenario_draws(tmp_path: Path, path: Path) -> None:
    labels = drawn(path, tmp_path / path.stem)
    assert all(p.stat().st_size > 1000 for p in tmp_path.iterdir())
    if path.stem in WIRED_ONLY:
        # No positions: the axes must not claim metres.
        assert "schematic layout (no positions)" in labels and "x (m)" not in labels
    else:
        assert "x (m)" in labels and any(label.startswith("receive range") for label in labels)


def test_every_shipped_scenario_is_in_the_list() -> None:
    assert {"chain3", "bridge", "dumbbell", "grid_aodv", "diamond", "wheel"} <= {path.stem for path in SCENARIOS}


def test_several_channels_are_told_apart(tmp_path: Path) -> None:
    labels = drawn(BRIDGE, tmp_path / "bridge")
    assert {"radio link, channel 1", "radio link, channel 6"} <= set(labels)


def test_a_large_network_names_only_the_ends_of_flows(tmp_path: Path) -> None:
    labels = drawn(GRID_AODV, tmp_path / "grid")
    assert {"n0", "n99", "n9", "n90", "n45", "n54"} <= set(labels)
    assert "n55" not in labels and "n1" not in labels
    assert any(label.endswith("(around flow sources)") for label in labels)


def test_aodv_without_a_run_says_where_routes_come_from(tmp_path: Path) -> None:
    labels = drawn(GRID_AODV, tmp_path / "grid")
    assert "routes found at run time: pass --run DIR for link usage" in labels
    assert "diagonal: n0 \u2192 n99 (route found at run time)" in labels


def test_aodv_with_a_run_shows_link_usage(tmp_path: Path) -> None:
    scenario = load_scenario(GRID_AODV, overrides=["duration=5s"])
    run_dir = written_run(GRID_AODV, tmp_path / "run", ["duration=5s"])
    paths = draw_scenario(scenario, tmp_path / "grid", run_dir=run_dir)
    labels = texts(paths[1])
    usage = [label for label in labels if label.startswith("link usage: width \u221d MAC attempts")]
    assert len(usage) == 1, labels
    assert "routes found at run time: pass --run DIR for link usage" not in labels
    # The short flow n45 -> n54 (two hops) must have used some link out of n45.
    amounts = read_usage(run_dir, load_layout(scenario)).amounts
    assert any(amount > 0 and "n45" in (edge.a, edge.b) for edge, amount in amounts.items())


# --- Link usage -------------------------------------------------------------------------------


def test_usage_of_multi_radio_links_is_per_channel(tmp_path: Path) -> None:
    results = airtcp.run(BRIDGE, overrides=SHORT)
    run_dir = results.write(tmp_path / "run")
    links = results.links
    assert links["from"].str.endswith(" ch6").any()  # the suffix that has to be stripped
    amounts = read_usage(run_dir, load_layout(load_scenario(BRIDGE, overrides=SHORT))).amounts
    pair = links[links["from"].isin(["n2 ch6", "n3"]) & links["to"].isin(["n2 ch6", "n3"])]
    assert amounts[Edge("n2", "n3", "radio", 6)] == pair["attempts"].sum() > 0
    assert amounts[Edge("n1", "n2", "radio", 1)] > 0
    assert {edge.channel for edge in amounts} == {1, 6}


def test_usage_of_a_pair_on_two_channels_stays_per_channel(tmp_path: Path) -> None:
    # n2 and n3 both have radios on channels 1 and 6: two links between one pair of nodes. Each
    # sends on its first radio that reaches the next hop, so data crosses on 1 and ACKs on 6.
    overrides = [*SHORT, "radio.node_channels={n2: [1, 6], n3: [6, 1], n4: [6]}"]
    results = airtcp.run(BRIDGE, overrides=overrides)
    scenario = load_scenario(BRIDGE, overrides=overrides)
    layout = load_layout(scenario)
    assert {Edge("n2", "n3", "radio", 1), Edge("n2", "n3", "radio", 6)} <= set(layout.edges)
    expected: dict[int, int] = {}
    for end_from, end_to, attempts in results.links[["from", "to", "attempts"]].itertuples(index=False):
        if {end_from.split()[0], end_to.split()[0]} == {"n2", "n3"} and attempts:
            channel = int(end_from.split(" ch")[1])
            expected[channel] = expected.get(channel, 0) + attempts
    assert set(expected) == {1, 6}, results.links
    amounts = read_usage(results.write(tmp_path / "run"), layout).amounts
    assert {e.channel: a for e, a in amounts.items() if (e.a, e.b) == ("n2", "n3")} == expected
    draw_scenario(scenario, tmp_path / "bridge", run_dir=tmp_path / "run")


def test_usage_of_wired_links_counts_both_directions(tmp_path: Path) -> None:
    results = airtcp.run(DUMBBELL, overrides=SHORT)
    run_dir = results.write(tmp_path / "run")
    amounts = read_usage(run_dir, load_layout(load_scenario(DUMBBELL, overrides=SHORT))).amounts
    queues = results.queues.set_index("queue")["transmitted"]
    assert amounts[Edge("R1", "R2", "wired", None)] == queues["R1->R2"] + queues["R2->R1"] > 0
    labels = drawn(DUMBBELL, tmp_path / "dumbbell", run_dir=run_dir)
    assert any(label.startswith("link usage: width \u221d packets sent") for label in labels)


def test_a_run_of_another_scenario_is_refused(tmp_path: Path) -> None:
    run_dir = written_run(P2P_LOSSY, tmp_path / "run")
    with pytest.raises(airtcp.ScenarioError) as caught:
        draw_scenario(load_scenario(CHAIN3), tmp_path / "chain3", run_dir=run_dir)
    assert caught.value.path == "--run" and "another scenario" in caught.value.message
    assert [p.name for p in tmp_path.iterdir()] == ["run"]


@pytest.mark.parametrize("missing", ["links", "queues"])
def test_a_run_directory_needs_its_tables(tmp_path: Path, missing: str) -> None:
    run_dir = written_run(CHAIN3, tmp_path / "run")
    # A run writes no file for an empty table: without it, the table counts as empty.
    (run_dir / f"{missing}.parquet").unlink()
    draw_scenario(load_scenario(CHAIN3), tmp_path / "drawn", run_dir=run_dir)
    assert (tmp_path / "drawn.png").is_file()
    # Without summary.json either, the folder is no run.
    (run_dir / "summary.json").unlink()
    with pytest.raises(airtcp.ScenarioError, match=rf"^--run: .* has no {missing}\.parquet nor summary\.json"):
        draw_scenario(load_scenario(CHAIN3), tmp_path / "chain3", run_dir=run_dir)
    with pytest.raises(airtcp.ScenarioError, match=r"^--run: .*: no such directory"):
        draw_scenario(load_scenario(CHAIN3), tmp_path / "chain3", run_dir=tmp_path / "absent")
    assert not (tmp_path / "chain3.png").exists()


# --- Layouts of nodes without positions ---------------------------------------------------------


def test_wired_nodes_are_laid_out_in_columns_by_hops_from_the_sources() -> None:
    xy = load_layout(load_scenario(DUMBBELL)).xy
    columns = {name: x for name, (x, _) in xy.items()}
    assert columns["S1"] == columns["S2"] < columns["R1"] < columns["R2"] < columns["D1"] == columns["D2"]
    assert xy["S1"][1] > xy["S2"][1] and xy["D1"][1] > xy["D2"][1]  # node order, top to bottom
    assert len(set(xy.values())) == len(xy)


def test_a_column_follows_the_order_of_its_neighbours_to_avoid_crossings() -> None:
    links = [{"from": "A", "to": "Y", "rate": "1Mbps", "delay": "1ms"},
             {"from": "B", "to": "X", "rate": "1Mbps", "delay": "1ms"}]
    flows = [{"id": f"{s}{d}", "src": s, "dst": d, "app": {"kind": "bulk"}, "transport": {"kind": "tcp"}}
             for s, d in (("A", "Y"), ("B", "X"))]
    xy = load_layout(load_scenario(minimal_scenario(nodes=["A", "B", "X", "Y"], links=links, flows=flows))).xy
    assert xy["A"][1] > xy["B"][1]
    assert xy["Y"][1] > xy["X"][1]  # beside A, though X comes first in node order


def test_wired_nodes_beside_placed_ones_go_in_a_row_below(tmp_path: Path) -> None:
    scenario = load_scenario(
        minimal_scenario(
            radio={"standard": "802.11b", "data_rate": "2Mbps", "basic_rate": "1Mbps",
                   "propagation": {"kind": "range", "range": "250m"}},
            topology={"kind": "chain", "hops": 2, "spacing": "200m"},
        )
    )
    layout = load_layout(scenario)
    assert layout.placed == {"n0", "n1", "n2"}
    assert layout.xy["n2"] == (400.0, 0.0)
    assert layout.xy["A"][1] == layout.xy["B"][1] < -250  # below the placed nodes and their ranges
    labels = texts(draw_scenario(scenario, tmp_path / "mixed")[1])
    assert "x (m)" in labels
    assert any("drawn in a row below (not to scale)" in label for label in labels)


# --- Errors and file names --------------------------------------------------------------------


def test_core_errors_are_classified(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def fail(message: str):  # type: ignore[no-untyped-def]
        def layout_json(_: str) -> str:
            raise ValueError(message)

        return layout_json

    scenario = load_scenario(CHAIN3)
    monkeypatch.setattr(draw._core, "layout_json", fail("flows[0].dst: unreachable"))
    with pytest.raises(airtcp.ScenarioError) as caught:
        draw_scenario(scenario, tmp_path / "chain3")
    assert (caught.value.path, caught.value.message) == ("flows[0].dst", "unreachable")
    monkeypatch.setattr(draw._core, "layout_json", fail("<scenario>: unknown field `x`"))
    with pytest.raises(airtcp.SimulationError, match="unknown field"):
        draw_scenario(scenario, tmp_path / "chain3")
    assert list(tmp_path.iterdir()) == []


def test_dollar_signs_in_names_are_drawn_literally(tmp_path: Path) -> None:
    # Matplotlib would typeset "$...$" as mathematics (and fail on "$\\frac{$").
    links = [{"from": "$A$", "to": "B", "rate": "1Mbps", "delay": "1ms"}]
    flows = [{"id": "$\\frac{$", "src": "$A$", "dst": "B", "app": {"kind": "bulk"}, "transport": {"kind": "tcp"}}]
    scenario = load_scenario(minimal_scenario(name="$x$", nodes=["$A$", "B"], links=links, flows=flows))
    labels = texts(draw_scenario(scenario, tmp_path / "dollars")[1])
    assert {"$x$", "$A$", "$\\frac{$: $A$ \u2192 B, 1 hop"} <= set(labels), labels


def test_a_stem_with_a_dot_keeps_it(tmp_path: Path) -> None:
    paths = draw_scenario(load_scenario(CHAIN3), tmp_path / "chain.v2")
    assert [p.name for p in paths] == ["chain.v2.png", "chain.v2.svg"]
    paths = draw_scenario(load_scenario(CHAIN3), tmp_path / "figure.svg")
    assert [p.name for p in paths] == ["figure.png", "figure.svg"]


# --- The command line -------------------------------------------------------------------------


def test_cli_draw_prints_what_it_wrote(tmp_path: Path) -> None:
    out = tmp_path / "figs" / "chain"
    result = run_cli("draw", CHAIN3, "--out", out)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"wrote {out}.png", f"wrote {out}.svg"]
    assert out.with_suffix(".png").read_bytes().startswith(b"\x89PNG")


def test_cli_draw_defaults_next_to_the_scenario(tmp_path: Path) -> None:
    scenario = Path(shutil.copy(CHAIN3, tmp_path / "chain3.yaml"))
    result = run_cli("draw", scenario, "--seed", "4", "--set", "topology.spacing=120m")
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chain3-topology.png", "chain3-topology.svg", "chain3.yaml"]
    labels = texts(tmp_path / "chain3-topology.svg")
    assert "f1: n0 \u2192 n3, 2 hops" in labels  # 120 m apart, a 250 m radio reaches two nodes on


def test_cli_draw_with_a_run(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    result = run_cli("run", GRID_AODV, "--set", "duration=5s", "--out", run_dir, "--quiet")
    assert result.returncode == 0, result.stderr
    out = tmp_path / "grid"
    result = run_cli("draw", GRID_AODV, "--set", "duration=5s", "--run", run_dir, "--out", out)
    assert result.returncode == 0, result.stderr
    assert any(label.startswith("link usage: width") for label in texts(out.with_suffix(".svg")))


def test_cli_draw_shows_a_flow_a_run_refuses_and_why(tmp_path: Path) -> None:
    # 300 m apart, a 250 m radio hears no other node: a run stops at the flow, a drawing shows it.
    spread = ("--set", "topology.spacing=300m")
    refused = run_cli("run", CHAIN3, *spread, "--out", tmp_path / "run")
    assert refused.returncode == 2 and not (tmp_path / "run").exists()
    reason = refused.stderr.strip().removeprefix("error: ")
    assert reason.startswith("flows[0].src: 'n0' is out of radio range"), reason
    out = tmp_path / "chain"
    result = run_cli("draw", CHAIN3, *spread, "--out", out)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"wrote {out}.png", f"wrote {out}.svg"]
    assert result.stderr.splitlines() == [f"warning: a run refuses flow f1 ({reason})"]
    labels = texts(out.with_suffix(".svg"))
    assert "f1: n0 \u2192 n3 (no route: a run refuses it, see below)" in labels, labels
    assert f"a run refuses flow f1 ({reason})" in labels, labels


def test_cli_draw_bad_override_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "chain"
    result = run_cli("draw", CHAIN3, "--out", out, "--set", "radio.data_rate=3Mbps")
    assert result.returncode == 2
    assert "error: radio.data_rate" in result.stderr, result.stderr
    assert list(tmp_path.iterdir()) == []


def test_cli_draw_run_without_results_exits_2(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    out = tmp_path / "chain"
    result = run_cli("draw", CHAIN3, "--out", out, "--run", empty)
    assert result.returncode == 2
    assert "error: --run: " in result.stderr and "links.parquet" in result.stderr, result.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["empty"]


def test_wired_links_carry_their_rate_and_delay(tmp_path: Path) -> None:
    from airtcp.experiments.draw import wired_labels

    scenario = load_scenario(DUMBBELL)
    labels = wired_labels(scenario)
    assert labels[("R1", "R2")] == labels[("R2", "R1")] == "1Mbps, 10ms"
    svg = draw_scenario(scenario, tmp_path / "dumbbell")[1].read_text(encoding="utf-8")
    assert svg.count("1Mbps, 10ms") == 1 and svg.count("100Mbps, 1ms") == 4
