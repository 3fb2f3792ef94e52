"""Multi-radio nodes from scenario files: the bridge example runs with one interface queue per
radio, and bad `radio.node_channels` entries are refused with the field's path and exit code 2."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from airtcp import simulate
from airtcp.scenario.schema import load_scenario, to_core_dict
from airtcp.errors import ScenarioError
from support import EXAMPLES, assert_run_refused, run_cli

BRIDGE = EXAMPLES / "bridge.yaml"


def test_the_bridge_example_runs_with_a_queue_per_radio(tmp_path: Path) -> None:
    out = tmp_path / "bridge"
    result = run_cli("run", BRIDGE, "--out", out, "--set", "duration=10s", "--quiet")
    assert result.returncode == 0, result.stderr
    queues = {row["queue"]: row for row in pq.read_table(out / "queues.parquet").to_pylist()}
    assert {"radio n2 ch1", "radio n2 ch6", "radio n1", "radio n3"} <= set(queues)
    assert "radio n2" not in queues
    assert queues["radio n2 ch1"]["transmitted"] > 0 and queues["radio n2 ch6"]["transmitted"] > 0
    links = {(row["from"], row["to"]) for row in pq.read_table(out / "links.parquet").to_pylist()}
    assert {("n1", "n2 ch1"), ("n2 ch6", "n3")} <= links


def test_two_channels_beat_one() -> None:
    """The bridged chain's halves do not contend: more goodput than the same chain on one
    channel (450 against 265 kbps over 60 s; 10 s here)."""
    goodput = {}
    for label, overrides in (("bridged", []), ("one channel", ["radio.node_channels={}"])):
        scenario = load_scenario(BRIDGE, overrides=[*overrides, "duration=10s"])
        goodput[label] = float(simulate(scenario).flows["goodput_bps"].iloc[0])
    assert goodput["bridged"] > 1.3 * goodput["one channel"], goodput


def test_channels_are_emitted_for_the_core() -> None:
    radio = to_core_dict(load_scenario(BRIDGE))["radio"]
    assert radio["channel"] == 1
    assert radio["node_channels"] == {"n2": [1, 6], "n3": [6], "n4": [6]}


BAD = [
    ("radio.node_channels={b1: [1, 6]}", "radio.node_channels.b1: no node named 'b1'"),
    ("radio.node_channels={n2: []}", "radio.node_channels.n2: needs at least one channel"),
    ("radio.node_channels={n2: [1, 6, 6]}", "radio.node_channels.n2[2]: channel 6 is listed twice (one radio per channel)"),
    ("radio.node_channels={n2: [-1]}", "radio.node_channels.n2[0]: must not be negative"),
    ("radio.channel=1.5", "radio.channel: expected a whole number"),
]


@pytest.mark.parametrize(("override", "expected"), BAD, ids=[case[0] for case in BAD])
def test_bad_channels_exit_2(tmp_path: Path, override: str, expected: str) -> None:
    assert_run_refused(BRIDGE, override, expected, tmp_path / "out")


def test_a_wired_node_cannot_have_radios() -> None:
    scenario = {
        "duration": "1s",
        "nodes": ["W"],
        "radio": {"standard": "802.11b", "data_rate": "2Mbps", "basic_rate": "1Mbps",
                  "propagation": {"kind": "range", "range": "250m"}, "node_channels": {"W": [1]}},
        "topology": {"kind": "chain", "hops": 1, "spacing": "200m"},
    }
    with pytest.raises(ScenarioError, match=r"radio\.node_channels\.W: 'W' is a wired node"):
        load_scenario(scenario)
