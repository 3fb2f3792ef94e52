"""The wireless part of the scenario schema: topologies, radios, link errors and routing.

Only validation and the normalised JSON are tested here; simulating wireless scenarios is the
engine's business.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
import yaml

from airtcp.scenario.schema import Scenario, load_scenario, to_core_dict, to_core_json, to_user_dict
from airtcp.errors import ScenarioError
from support import EXAMPLES, REPO, error_of, minimal_scenario, run_cli

CHAIN3 = EXAMPLES / "chain3.yaml"
GRID_AODV = REPO / "scenarios" / "examples" / "grid_aodv.yaml"

CHAIN3_TEXT = """\
# A 3-hop 802.11b chain with one bulk TCP flow end to end, static routes.
#
name: chain-3
duration: 100s
seed: 1
radio: {standard: 802.11b, data_rate: 2Mbps, basic_rate: 1Mbps, rts_cts: false,
        propagation: {kind: range, range: 250m}}
topology: {kind: chain, hops: 3, spacing: 200m}
routing: {kind: static}
flows:
  - {id: f1, src: n0, dst: n3, start: 1s, app: {kind: bulk},
     transport: {kind: tcp, cc: newreno, sack: true, mss: 1000, delayed_ack: 2, initial_cwnd: 10}}
"""

RADIO: dict[str, Any] = {
    "standard": "802.11b",
    "data_rate": "2Mbps",
    "basic_rate": "1Mbps",
    "propagation": {"kind": "range", "range": "250m"},
}

# The radio defaults are ns-2's, written in dBm / dB.
DEFAULT_RADIO = {
    "rts_cts": False,
    "fading": {"kind": "none"},
    "tx_power": 24.499998,
    "rx_threshold": -64.374692,
    "cs_threshold": -78.071539,
    "capture_threshold": 10.0,
    "reception": "capture",
    "ack_rate": "basic",
    "noise": -93.58,
    "preamble": "long",
    "queue": {"kind": "droptail", "packets": 50},
    "short_retry_limit": 7,
    "long_retry_limit": 4,
    "mac_overhead": 36,
    "channel": 1,
    "node_channels": {},
    "cca_time": 4000,
    "rx_sensitivity": -101.0,
    "mac": "standard",
}


def wireless(topology: dict[str, Any] | None = None, **changes: Any) -> dict[str, Any]:
    """A small valid wireless scenario in the file's form: a 3-hop chain and one TCP flow."""
    scenario: dict[str, Any] = {
        "name": "wireless",
        "duration": "10s",
        "radio": json.loads(json.dumps(RADIO)),
        "topology": topology or {"kind": "chain", "hops": 3, "spacing": "200m"},
        "flows": [{"id": "f1", "src": "n0", "dst": "n3", "app": {"kind": "bulk"}, "transport": {"kind": "tcp"}}],
    }
    scenario.update(changes)
    return scenario



# --- The examples ------------------------------------------------------------------------------


def test_the_chain_example_is_exactly_as_specified() -> None:
    assert CHAIN3.read_text(encoding="utf-8") == CHAIN3_TEXT


def test_the_chain_example_normalises() -> None:
    scenario = load_scenario(CHAIN3)
    assert scenario.node_names() == ["n0", "n1", "n2", "n3"]
    assert scenario.node_count == 4
    config = to_core_dict(scenario)
    assert config["duration"] == 100_000_000_000
    assert config["nodes"] == []
    assert config["topology"] == {"kind": "chain", "hops": 3, "spacing": 200.0}
    assert config["routing"] == {"kind": "static", "metric": "hops"}
    assert config["link_errors"] == []
    assert config["radio"] == {
        "standard": "802.11b",
        "data_rate": 2_000_000,
        "basic_rate": 1_000_000,
        "propagation": {"kind": "range", "range": 250.0},
        **DEFAULT_RADIO,
    }
    assert list(config["radio"])[:5] == ["standard", "data_rate", "basic_rate", "rts_cts", "propagation"]
    flow = config["flows"][0]
    assert (flow["src"], flow["dst"], flow["start"]) == ("n0", "n3", 1_000_000_000)


def test_the_chain_example_validates_on_the_command_line() -> None:
    result = run_cli("validate", CHAIN3)
    assert result.returncode == 0, result.stderr
    assert "'chain-3'" in result.stdout
    as_json = run_cli("validate", CHAIN3, "--json")
    assert json.loads(as_json.stdout) == to_core_dict(load_scenario(CHAIN3))


# ns-3 3.44's AODV defaults, which the schema's are (RFC 3561 §6.9, §10).
AODV_HELLO = {"hello": True, "hello_interval": 1_000_000_000, "allowed_hello_loss": 2}


def test_the_aodv_grid_is_valid() -> None:
    scenario = load_scenario(GRID_AODV)
    assert scenario.duration == 60_000_000_000
    assert scenario.node_count == 100
    assert to_core_dict(scenario)["routing"] == {"kind": "aodv", "local_repair": True, **AODV_HELLO}
    assert [(f.src, f.dst) for f in scenario.flows] == [("n0", "n99"), ("n9", "n90"), ("n45", "n54")]
    assert all(f.transport.kind == "tcp" for f in scenario.flows)
    assert to_core_dict(scenario)["radio"] == to_core_dict(load_scenario(CHAIN3))["radio"]


# --- Node names ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("topology", "names"),
    [
        ({"kind": "chain", "hops": 1, "spacing": "100m"}, ["n0", "n1"]),
        ({"kind": "grid", "rows": 2, "cols": 3, "spacing": "100m"}, [f"n{i}" for i in range(6)]),
        ({"kind": "random", "n": 5, "width": "1km", "height": "1km"}, [f"n{i}" for i in range(5)]),
        ({"kind": "cells", "rows": 2, "cols": 2, "width": "1km", "height": "1km"}, [f"n{i}" for i in range(4)]),
        ({"kind": "cells", "rows": 1, "cols": 3, "width": "1km", "height": "1km", "per_cell": 2,
          "gateway": {"x": "500m", "y": "500m"}}, [f"n{i}" for i in range(7)]),
        ({"kind": "explicit", "nodes": [{"name": "ap", "x": 0, "y": 0}, {"name": "sta", "x": "30m", "y": "-4m"}]},
         ["ap", "sta"]),
        # The papers' named topologies.
        ({"kind": "tree"}, [f"n{i}" for i in range(4)]),
        ({"kind": "diamond", "spacing": "150m"}, [f"n{i}" for i in range(4)]),
        ({"kind": "x"}, [f"n{i}" for i in range(5)]),
        ({"kind": "alice_bob"}, ["n0", "n1", "n2"]),
        ({"kind": "cross"}, [f"n{i}" for i in range(5)]),
        ({"kind": "wheel", "n": 2}, ["n0", "n1", "n2"]),
        ({"kind": "wheel", "n": 8, "spacing": "0.25km"}, [f"n{i}" for i in range(9)]),
        ({"kind": "butterfly"}, [f"n{i}" for i in range(6)]),
        ({"kind": "ring", "n": 3}, ["n0", "n1", "n2"]),
        ({"kind": "ring", "n": 22}, [f"n{i}" for i in range(22)]),
    ],
)
def test_generated_and_explicit_node_names(topology: dict[str, Any], names: list[str]) -> None:
    scenario = load_scenario(wireless(topology, nodes=["server"], flows=[]))
    assert scenario.node_names() == ["server", *names]
    assert scenario.node_count == 1 + len(names)


def test_flows_and_links_reach_generated_and_wired_nodes() -> None:
    # The gateway of a cell topology is the last generated node; a wired server hangs off it.
    scenario = load_scenario(
        wireless(
            {"kind": "cells", "rows": 2, "cols": 2, "width": "1km", "height": "1km", "per_cell": 3,
             "gateway": {"x": "500m", "y": "500m"}},
            nodes=["server"],
            links=[{"from": "server", "to": "n12", "rate": "100Mbps", "delay": "5ms"}],
            flows=[{"id": "down", "src": "server", "dst": "n0", "app": {"kind": "bulk"}, "transport": {"kind": "tcp"}}],
        )
    )
    assert scenario.node_names()[-1] == "n12"
    assert to_core_dict(scenario)["topology"]["gateway"] == {"x": 500.0, "y": 500.0}


def test_a_huge_grid_is_checked_without_listing_it() -> None:
    # 4e9 nodes: names are recognised by number, never enumerated.
    scenario = load_scenario(
        wireless({"kind": "grid", "rows": 65535, "cols": 65535, "spacing": "1m"},
                 flows=[{"id": "f", "src": "n0", "dst": "n4294836224", "app": {"kind": "bulk"},
                         "transport": {"kind": "tcp"}}])
    )
    assert scenario.node_count == 65535 * 65535
    error = error_of(wireless({"kind": "grid", "rows": 65535, "cols": 65535, "spacing": "1m"}, flows=[
        {"id": "f", "src": "n0", "dst": "n4294836225", "app": {"kind": "bulk"}, "transport": {"kind": "tcp"}}]))
    assert str(error) == "flows[0].dst: no node named 'n4294836225' (nodes: n0..n4294836224)"


def test_wired_only_scenarios_are_unchanged() -> None:
    config = to_core_dict(load_scenario(minimal_scenario()))
    assert (config["topology"], config["radio"], config["link_errors"]) == (None, None, [])
    assert config["routing"] == {"kind": "static", "metric": "hops"}
    assert list(config) == ["name", "duration", "seed", "nodes", "topology", "radio", "link_errors", "routing",
                            "failures",
                            "links", "downlink", "flows", "metrics", "limits"]
    assert config["downlink"] is None


def test_wired_reachability_is_not_judged_over_radios() -> None:
    # Whether n0 reaches n3 depends on the propagation model: the core decides, not validation.
    far_apart = wireless({"kind": "chain", "hops": 3, "spacing": "10km"})
    assert load_scenario(far_apart).flows[0].dst == "n3"


# --- Defaults and units ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("propagation", "emitted"),
    [
        ({"kind": "range", "range": "0.25km"}, {"kind": "range", "range": 250.0}),
        ({"kind": "free_space"}, {"kind": "free_space", "frequency": 914e6}),
        ({"kind": "free_space", "frequency": "2.4GHz"}, {"kind": "free_space", "frequency": 2.4e9}),
        ({"kind": "two_ray_ground"}, {"kind": "two_ray_ground", "frequency": 914e6, "antenna_height": 1.5}),
        ({"kind": "two_ray_ground", "antenna_height": "2m", "frequency": "2412MHz"},
         {"kind": "two_ray_ground", "frequency": 2.412e9, "antenna_height": 2.0}),
        ({"kind": "log_distance"},
         {"kind": "log_distance", "exponent": 3.0, "reference_distance": 1.0, "reference_loss": 46.6777}),
        ({"kind": "log_distance", "exponent": 2.7, "reference_distance": "10m", "reference_loss": "40dB"},
         {"kind": "log_distance", "exponent": 2.7, "reference_distance": 10.0, "reference_loss": 40.0}),
    ],
)
def test_propagation_defaults_are_emitted(propagation: dict[str, Any], emitted: dict[str, Any]) -> None:
    config = to_core_dict(load_scenario(wireless(radio={**RADIO, "propagation": propagation})))
    assert config["radio"]["propagation"] == emitted


@pytest.mark.parametrize(
    ("fading", "emitted"),
    [
        ({"kind": "none"}, {"kind": "none"}),
        ({"kind": "rayleigh"}, {"kind": "rayleigh"}),
        ({"kind": "block", "coherence": "20ms"}, {"kind": "block", "coherence": 20_000_000, "doppler": None}),
        ({"kind": "block", "doppler": "10Hz"}, {"kind": "block", "coherence": None, "doppler": 10.0}),
    ],
)
def test_fading_variants(fading: dict[str, Any], emitted: dict[str, Any]) -> None:
    config = to_core_dict(load_scenario(wireless(radio={**RADIO, "fading": fading})))
    assert config["radio"]["fading"] == emitted


def test_radio_values_in_other_units() -> None:
    radio = {
        **RADIO,
        "data_rate": "11Mbps",
        "basic_rate": "5.5Mbps",
        "tx_power": "100mW",
        "rx_threshold": "3.652e-10W",
        "cs_threshold": "-80dBm",
        "capture_threshold": "4 dB",
        "noise": "-100dBm",
        "preamble": "short",
        "queue": {"kind": "droptail", "packets": 20},
        "rts_cts": True,
        "short_retry_limit": 0,
        "long_retry_limit": 2,
        "mac_overhead": "40B",
    }
    emitted = to_core_dict(load_scenario(wireless(radio=radio)))["radio"]
    assert (emitted["data_rate"], emitted["basic_rate"]) == (11_000_000, 5_500_000)
    assert emitted["tx_power"] == 20.0
    assert emitted["rx_threshold"] == pytest.approx(10 * math.log10(3.652e-7))
    assert (emitted["cs_threshold"], emitted["capture_threshold"], emitted["noise"]) == (-80.0, 4.0, -100.0)
    assert (emitted["preamble"], emitted["rts_cts"]) == ("short", True)
    assert emitted["queue"] == {"kind": "droptail", "packets": 20}
    assert (emitted["short_retry_limit"], emitted["long_retry_limit"], emitted["mac_overhead"]) == (0, 2, 40)


def test_link_errors_and_routing_are_emitted_in_full() -> None:
    scenario = load_scenario(
        wireless(
            link_errors=[
                {"from": "n0", "to": "n1", "error": {"kind": "bernoulli", "per": "1%"}},
                {"from": "n1", "to": "n2", "direction": "both",
                 "error": {"kind": "gilbert_elliott", "p_good_bad": 0.01, "p_bad_good": 0.1, "per_good": 0,
                           "per_bad": 0.5}},
                {"from": "n2", "to": "n3", "direction": "reverse",
                 "error": {"kind": "bimodal", "low": 0.2, "high": 0.95, "hold_min": "500ms", "hold_max": "2s"}},
            ],
            routing={"kind": "static", "metric": "etx"},
        )
    )
    config = to_core_dict(scenario)
    assert config["link_errors"] == [
        {"from": "n0", "to": "n1", "direction": "forward", "error": {"kind": "bernoulli", "per": 0.01}},
        {"from": "n1", "to": "n2", "direction": "both",
         "error": {"kind": "gilbert_elliott", "p_good_bad": 0.01, "p_bad_good": 0.1, "per_good": 0.0, "per_bad": 0.5}},
        {"from": "n2", "to": "n3", "direction": "reverse",
         "error": {"kind": "bimodal", "low": 0.2, "high": 0.95, "hold_min": 500_000_000, "hold_max": 2_000_000_000}},
    ]
    assert config["routing"] == {"kind": "static", "metric": "etx"}
    assert to_core_dict(load_scenario(wireless(routing={"kind": "aodv"})))["routing"] == {
        "kind": "aodv", "local_repair": True, **AODV_HELLO}
    assert to_core_dict(load_scenario(wireless(routing={"kind": "aodv", "local_repair": False})))["routing"] == {
        "kind": "aodv", "local_repair": False, **AODV_HELLO}
    hello = {"kind": "aodv", "hello": False, "hello_interval": "250ms", "allowed_hello_loss": 3}
    assert to_core_dict(load_scenario(wireless(routing=hello)))["routing"] == {
        "kind": "aodv", "local_repair": True, "hello": False, "hello_interval": 250_000_000, "allowed_hello_loss": 3}


def test_explicit_positions_and_cells_defaults() -> None:
    explicit = {"kind": "explicit",
                "nodes": [{"name": "a", "x": 0, "y": "-1.5km"}, {"name": "b", "x": "12.5m", "y": 0}]}
    config = to_core_dict(load_scenario(wireless(explicit, flows=[])))
    assert config["topology"] == {
        "kind": "explicit",
        "nodes": [{"name": "a", "x": 0.0, "y": -1500.0}, {"name": "b", "x": 12.5, "y": 0.0}],
    }
    cells = {"kind": "cells", "rows": 2, "cols": 3, "width": "600m", "height": "400m"}
    assert to_core_dict(load_scenario(wireless(cells, flows=[])))["topology"] == {
        "kind": "cells", "rows": 2, "cols": 3, "width": 600.0, "height": 400.0, "per_cell": 1, "gateway": None,
    }


NAMED_TOPOLOGIES = ["tree", "diamond", "x", "alice_bob", "cross", "wheel", "butterfly", "ring"]


@pytest.mark.parametrize("kind", NAMED_TOPOLOGIES)
def test_named_topologies_default_to_200_m(kind: str) -> None:
    sized = {"n": 4} if kind in ("wheel", "ring") else {}
    config = to_core_dict(load_scenario(wireless({"kind": kind, **sized}, flows=[])))
    assert config["topology"] == {"kind": kind, **sized, "spacing": 200.0}
    scaled = to_core_dict(load_scenario(wireless({"kind": kind, **sized, "spacing": "1.5km"}, flows=[])))
    assert scaled["topology"]["spacing"] == 1500.0


def test_flows_between_the_papers_roles_validate() -> None:
    # The suggested flows of docs/scenario-schema.md: relays first, then sources and receivers.
    cases = {
        "tree": [("n0", "n1"), ("n0", "n3")],
        "diamond": [("n0", "n1"), ("n0", "n3")],
        "x": [("n1", "n3"), ("n2", "n4")],
        "alice_bob": [("n1", "n2"), ("n2", "n1")],
        "cross": [("n1", "n3"), ("n3", "n1"), ("n2", "n4"), ("n4", "n2")],
        "butterfly": [("n2", "n4"), ("n3", "n5")],
    }
    for kind, pairs in cases.items():
        flows = [{**FLOW, "id": f"f{i}", "src": src, "dst": dst} for i, (src, dst) in enumerate(pairs)]
        assert [(f.src, f.dst) for f in load_scenario(wireless({"kind": kind}, flows=flows)).flows] == pairs
    # In a wheel of n, n{k} and n{k + n/2} exchange flows; the relay n0 is one more node.
    flows = [{**FLOW, "id": f"f{k}", "src": f"n{k}", "dst": f"n{(k + 4 - 1) % 8 + 1}"} for k in range(1, 9)]
    assert load_scenario(wireless({"kind": "wheel", "n": 8}, flows=flows)).node_count == 9


def test_the_topology_scenarios_use_their_kinds() -> None:
    """scenarios/topologies holds one scenario per named topology, all on a 2 Mbps 802.11b radio
    reaching 250 m with the default 200 m spacing."""
    files = sorted((REPO / "scenarios" / "topologies").glob("*.yaml"))
    assert sorted(f.stem for f in files) == sorted(NAMED_TOPOLOGIES)
    for path in files:
        config = to_core_dict(load_scenario(path))
        assert config["topology"]["kind"] == path.stem
        assert config["topology"]["spacing"] == 200.0
        assert (config["radio"]["standard"], config["radio"]["data_rate"]) == ("802.11b", 2_000_000)
        assert config["radio"]["propagation"] == {"kind": "range", "range": 250.0}
        assert len(config["flows"]) >= 2, path.name


@pytest.mark.parametrize(
    "changes",
    [
        [],
        ["topology={kind: wheel, n: 6, spacing: 0.18km}"],
        ["radio.propagation={kind: two_ray_ground, frequency: 2.4GHz}", "radio.fading={kind: block, doppler: 5.5Hz}",
         "radio.tx_power=281.83815mW", "radio.capture_threshold=-2.5dB"],
        ["radio.propagation={kind: log_distance, exponent: 3.5, reference_distance: 0.5m}",
         "radio.fading={kind: block, coherence: 15ms}", "routing={kind: aodv}"],
        ["topology={kind: explicit, nodes: [{name: a, x: -1.25km, y: 0.001m}, {name: b, x: 0, y: 0}]}",
         "flows[0].src=a", "flows[0].dst=b",
         "link_errors=[{from: a, to: b, error: {kind: bimodal, low: 0, high: 1, hold_min: 0s, hold_max: 1us}}]"],
        ["topology={kind: cells, rows: 1, cols: 1, width: 1km, height: 2km, per_cell: 4, gateway: {x: 1.5km, y: 0}}"],
    ],
)
def test_user_form_round_trips(changes: list[str]) -> None:
    """A model turned back into the file's form ("250m", "914MHz", "24.4999dBm") reads back the same."""
    scenario = load_scenario(CHAIN3, overrides=changes)
    user = to_user_dict(scenario)
    assert user["radio"]["propagation"]["kind"] == scenario.radio.propagation.kind  # type: ignore[union-attr]
    assert isinstance(user["radio"]["tx_power"], str) and user["radio"]["tx_power"].endswith("dBm")
    assert to_core_json(load_scenario(user)) == to_core_json(scenario)
    assert to_core_json(load_scenario(yaml.safe_load(yaml.safe_dump(user)))) == to_core_json(scenario)


# --- Overrides ------------------------------------------------------------------------------------


def test_overrides_reach_the_new_fields() -> None:
    scenario = load_scenario(
        CHAIN3,
        overrides=["radio.rts_cts=true", "topology.hops=6", "radio.propagation.range=300m", "flows[0].dst=n6",
                   "radio.data_rate=11Mbps", "routing.metric=etx", "radio.fading={kind: rayleigh}"],
    )
    config = to_core_dict(scenario)
    assert config["radio"]["rts_cts"] is True
    assert config["topology"]["hops"] == 6 and scenario.node_count == 7
    assert config["radio"]["propagation"] == {"kind": "range", "range": 300.0}
    assert config["radio"]["data_rate"] == 11_000_000
    assert config["routing"] == {"kind": "static", "metric": "etx"}
    assert config["radio"]["fading"] == {"kind": "rayleigh"}


def test_overrides_of_defaulted_variants_start_from_the_default_kind() -> None:
    # Neither `routing` nor `radio.queue` is in the file; the override still only needs the field.
    raw = wireless()
    assert "routing" not in raw
    scenario = load_scenario(raw, overrides=["routing.metric=etx", "radio.queue.packets=20"])
    config = to_core_dict(scenario)
    assert config["routing"] == {"kind": "static", "metric": "etx"}
    assert config["radio"]["queue"] == {"kind": "droptail", "packets": 20}
    fading = load_scenario(raw, overrides=["radio.fading.kind=block", "radio.fading.coherence=10ms"])
    assert to_core_dict(fading)["radio"]["fading"] == {"kind": "block", "coherence": 10_000_000, "doppler": None}


def test_overrides_apply_to_a_wireless_model() -> None:
    base = load_scenario(CHAIN3)
    changed = load_scenario(base, overrides=["topology.spacing=150m", "radio.tx_power=15dBm"])
    assert changed.topology.spacing == 150.0  # type: ignore[union-attr]
    assert changed.radio.tx_power == 15.0  # type: ignore[union-attr]
    assert base.topology.spacing == 200.0  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ("radio.data_rate=3Mbps", "radio.data_rate: 802.11b has no 3 Mbps rate; use one of 1, 2, 5.5, 11 Mbps"),
        ("topology.spacing=200", "topology.spacing: a distance needs a unit (m or km)"),
        ("radio.propagation.range=-5m", "radio.propagation.range: must be greater than 0"),
        ("radio.rtscts=true", "radio.rtscts: unknown field (did you mean 'rts_cts'?)"),
        ("flows[0].dst=n4", "flows[0].dst: no node named 'n4' (nodes: n0..n3)"),
    ],
)
def test_overridden_wireless_values_are_validated(override: str, expected: str) -> None:
    assert str(error_of(CHAIN3, override)).startswith(expected)


# --- Errors ---------------------------------------------------------------------------------------

FLOW = {"id": "f", "src": "n0", "dst": "n1", "app": {"kind": "bulk"}, "transport": {"kind": "tcp"}}
CHAIN = {"kind": "chain", "hops": 3, "spacing": "200m"}


def radio(**changes: Any) -> dict[str, Any]:
    return {**RADIO, **changes}


def link_error(error: dict[str, Any], **changes: Any) -> list[dict[str, Any]]:
    return [{"from": "n0", "to": "n1", "error": error, **changes}]


# (id, the scenario in the file's form, the exact first "path: message" line)
BAD_WIRELESS: list[tuple[str, dict[str, Any], str]] = [
    ("data rate not 802.11b", wireless(radio=radio(data_rate="3Mbps")),
     "radio.data_rate: 802.11b has no 3 Mbps rate; use one of 1, 2, 5.5, 11 Mbps"),
    ("basic rate not 802.11b", wireless(radio=radio(basic_rate="64kbps")),
     "radio.basic_rate: 802.11b has no 0.064 Mbps rate; use one of 1, 2, 5.5, 11 Mbps"),
    ("data rate without unit", wireless(radio=radio(data_rate=2)),
     "radio.data_rate: a rate needs a unit (bps, kbps, Mbps or Gbps), e.g. '2Mbps'; got 2 (int)"),
    ("unknown standard", wireless(radio=radio(standard="802.11g")),
     "radio.standard: must be '802.11b', '802.11a' or '802.11n', got '802.11g'"),
    ("data rate not an HT rate", wireless(radio=radio(standard="802.11n", data_rate="54Mbps", basic_rate="6Mbps")),
     "radio.data_rate: 802.11n has no 54 Mbps HT 20 MHz long GI rate; use one of 6.5, 13, 19.5, 26, 39, 52, "
     "58.5, 65 Mbps"),
    ("short GI rate", wireless(radio=radio(standard="802.11n", data_rate="65Mbps", basic_rate="6Mbps",
                                           ht={"guard_interval": "short", "channel_width": "40MHz"})),
     "radio.data_rate: 802.11n has no 65 Mbps HT 40 MHz short GI rate; use one of 15, 30, 45, 60, 90, 120, "
     "135, 150 Mbps"),
    ("HT basic rate 9 Mbps", wireless(radio=radio(standard="802.11n", data_rate="65Mbps", basic_rate="9Mbps")),
     "radio.basic_rate: 802.11n has no 9 Mbps non-HT rate; use one of 6, 12, 18, 24, 36, 48, 54 Mbps"),
    ("HT basic rate equal to MCS 3 at 40 MHz", wireless(radio=radio(
        standard="802.11n", data_rate="135Mbps", basic_rate="54Mbps", ht={"channel_width": "40MHz"})),
     "radio.basic_rate: 802.11n has no 54 Mbps non-HT rate; use one of 6, 12, 18, 24, 36, 48 Mbps"),
    ("ht under 802.11a", wireless(radio=radio(standard="802.11a", data_rate="54Mbps", basic_rate="6Mbps",
                                              ht={"band": "5GHz"})),
     "radio.ht: only an 802.11n radio has an HT PHY; leave ht out under 802.11a"),
    ("aggregation under 802.11b", wireless(radio=radio(aggregation={"max_mpdus": 8})),
     "radio.aggregation: only an 802.11n radio aggregates; leave aggregation out under 802.11b"),
    ("A-MPDU too long", wireless(radio=radio(standard="802.11n", data_rate="65Mbps", basic_rate="6Mbps",
                                             aggregation={"max_ampdu_bytes": "65536B"})),
     "radio.aggregation.max_ampdu_bytes: must be between 0 and 65535, got '65536B'"),
    ("window over 64", wireless(radio=radio(standard="802.11n", data_rate="65Mbps", basic_rate="6Mbps",
                                            aggregation={"max_mpdus": 65})),
     "radio.aggregation.max_mpdus: must be between 1 and 64, got 65"),
    ("A-MSDU too long", wireless(radio=radio(standard="802.11n", data_rate="65Mbps", basic_rate="6Mbps",
                                             aggregation={"max_amsdu_bytes": "7936B"})),
     "radio.aggregation.max_amsdu_bytes: must be between 0 and 7935, got '7936B'"),
    ("A-MSDUs without A-MPDUs", wireless(radio=radio(standard="802.11n", data_rate="65Mbps", basic_rate="6Mbps",
                                                     aggregation={"max_ampdu_bytes": 0, "max_amsdu_bytes": 3839})),
     "radio.aggregation.max_amsdu_bytes: A-MSDUs are sent under the Block Ack agreement, which max_ampdu_bytes 0 "
     "turns off"),
    ("HT ACKs at the data rate", wireless(radio=radio(standard="802.11n", data_rate="65Mbps", basic_rate="6Mbps",
                                                      ack_rate="data")),
     "radio.ack_rate: 802.11n acknowledges HT frames at a non-HT rate; use control or basic"),
    ("unknown band", wireless(radio=radio(standard="802.11n", data_rate="65Mbps", basic_rate="6Mbps",
                                          ht={"band": "6GHz"})),
     "radio.ht.band: must be '5GHz' or '2.4GHz', got '6GHz'"),
    ("data rate not 802.11a", wireless(radio=radio(standard="802.11a", data_rate="11Mbps", basic_rate="6Mbps")),
     "radio.data_rate: 802.11a has no 11 Mbps rate; use one of 6, 9, 12, 18, 24, 36, 48, 54 Mbps"),
    ("802.11a with a DSSS preamble", wireless(radio=radio(standard="802.11a", data_rate="54Mbps",
                                                          basic_rate="6Mbps", preamble="long")),
     "radio.preamble: 802.11a has one OFDM preamble (16 us + 4 us SIGNAL); leave preamble out"),
    ("ack rate keyword", wireless(radio=radio(ack_rate="fast")),
     "radio.ack_rate: must be 'basic', 'data' or 'control', got 'fast'"),
    ("rate control kind", wireless(radio=radio(rate_control={"kind": "onoe"})),
     "radio.rate_control.kind: unknown kind 'onoe' (expected one of: 'constant', 'ideal', 'arf', 'aarf', 'minstrel', 'minstrel_ht', 'snr_threshold')"),
    ("ideal max_per of 1", wireless(radio=radio(rate_control={"kind": "ideal", "max_per": 1})),
     "radio.rate_control.max_per: must be within (0, 1), got 1"),
    ("link rate not of the standard", wireless(radio=radio(link_rates=[{"from": "n0", "to": "n1", "rate": "6Mbps"}])),
     "radio.link_rates[0].rate: 802.11b has no 6 Mbps rate; use one of 1, 2, 5.5, 11 Mbps"),
    ("link rate to an unknown node", wireless(radio=radio(link_rates=[{"from": "n0", "to": "n7", "rate": "1Mbps"}])),
     "radio.link_rates[0].to: no node named 'n7' (nodes: n0..n3)"),
    ("link rate on itself", wireless(radio=radio(link_rates=[{"from": "n1", "to": "n1", "rate": "1Mbps"}])),
     "radio.link_rates[0].to: a link cannot connect node 'n1' to itself"),
    ("standard missing", wireless(radio={k: v for k, v in RADIO.items() if k != "standard"}),
     "radio.standard: required field is missing"),
    ("topology without radio", wireless(radio=None),
     "radio: required with a topology (the radio of the nodes it places), e.g. {standard: 802.11b, "
     "data_rate: 2Mbps, basic_rate: 1Mbps, propagation: {kind: range, range: 250m}}"),
    ("radio without topology", {**minimal_scenario(), "radio": RADIO},
     "topology: required with a radio (where the wireless nodes are), e.g. {kind: chain, hops: 3, spacing: 200m}"),
    ("no nodes at all", {**wireless(flows=[]), "topology": None, "radio": None},
     "nodes: the scenario has no nodes: list wired nodes here or place wireless ones with topology"),
    ("unknown topology kind", wireless({"kind": "torus", "n": 3}),
     "topology.kind: unknown kind 'torus' (expected one of: 'explicit', 'chain', 'grid', 'random', 'cells', "
     "'tree', 'diamond', 'x', 'alice_bob', 'cross', 'wheel', 'butterfly', 'ring')"),
    ("topology kind missing", wireless({"hops": 3, "spacing": "200m"}),
     "topology.kind: required field is missing (one of: 'explicit', 'chain', 'grid', 'random', 'cells', "
     "'tree', 'diamond', 'x', 'alice_bob', 'cross', 'wheel', 'butterfly', 'ring')"),
    ("odd wheel", wireless({"kind": "wheel", "n": 5}),
     "topology.n: must be even, got 5"),
    ("empty wheel", wireless({"kind": "wheel", "n": 0}), "topology.n: must be at least 2, got 0"),
    ("wheel without n", wireless({"kind": "wheel", "spacing": "200m"}), "topology.n: required field is missing"),
    ("two-node ring", wireless({"kind": "ring", "n": 2}), "topology.n: must be at least 3, got 2"),
    ("named topology spacing without unit", wireless({"kind": "diamond", "spacing": 200}),
     "topology.spacing: a distance needs a unit (m or km), e.g. '200m'; got 200 (int)"),
    ("zero named spacing", wireless({"kind": "butterfly", "spacing": "0m"}),
     "topology.spacing: must be greater than 0, got '0m'"),
    ("fixed-size topology takes no n", wireless({"kind": "x", "n": 7}),
     "topology.n: unknown field; allowed fields: kind, spacing"),
    ("flow past a named topology's nodes", wireless({"kind": "alice_bob"}),
     "flows[0].dst: no node named 'n3' (nodes: n0..n2)"),
    ("too big a wheel", wireless({"kind": "wheel", "n": 4294967294}, nodes=["server"], flows=[]),
     "topology: places 4294967295 nodes; a scenario holds at most 4294967295 nodes in all"),
    ("zero hops", wireless({**CHAIN, "hops": 0}), "topology.hops: must be at least 1, got 0"),
    ("zero spacing", wireless({**CHAIN, "spacing": "0m"}), "topology.spacing: must be greater than 0, got '0m'"),
    ("negative spacing", wireless({**CHAIN, "spacing": "-1km"}),
     "topology.spacing: must be greater than 0, got '-1km'"),
    ("bare spacing", wireless({**CHAIN, "spacing": 200}),
     "topology.spacing: a distance needs a unit (m or km), e.g. '200m'; got 200 (int)"),
    ("misspelt distance unit", wireless({**CHAIN, "spacing": "200 meters"}),
     "topology.spacing: unknown distance unit 'meters' in '200 meters'; use one of m, km"),
    ("zero rows", wireless({"kind": "grid", "rows": 0, "cols": 3, "spacing": "100m"}),
     "topology.rows: must be at least 1, got 0"),
    ("zero cols", wireless({"kind": "grid", "rows": 3, "cols": 0, "spacing": "100m"}),
     "topology.cols: must be at least 1, got 0"),
    ("zero random nodes", wireless({"kind": "random", "n": 0, "width": "1km", "height": "1km"}),
     "topology.n: must be at least 1, got 0"),
    ("zero width", wireless({"kind": "random", "n": 4, "width": "0m", "height": "1km"}),
     "topology.width: must be greater than 0, got '0m'"),
    ("zero height", wireless({"kind": "cells", "rows": 1, "cols": 1, "width": "1km", "height": 0}),
     "topology.height: must be greater than 0, got 0"),
    ("empty cells", wireless({"kind": "cells", "rows": 1, "cols": 1, "width": "1km", "height": "1km", "per_cell": 0}),
     "topology.per_cell: must be at least 1, got 0"),
    ("gateway without unit", wireless({"kind": "cells", "rows": 1, "cols": 1, "width": "1km", "height": "1km",
                                       "gateway": {"x": 5, "y": "5m"}}),
     "topology.gateway.x: a distance needs a unit (m or km), e.g. '5m'; got 5 (int)"),
    ("too many nodes", wireless({"kind": "grid", "rows": 100000, "cols": 100000, "spacing": "1m"}),
     "topology: places 10000000000 nodes; a scenario holds at most 4294967295 nodes in all"),
    ("empty explicit topology", wireless({"kind": "explicit", "nodes": []}, flows=[]),
     "topology.nodes: needs at least 1 entry, got none"),
    ("duplicate explicit name", wireless({"kind": "explicit", "nodes": [
        {"name": "a", "x": 0, "y": 0}, {"name": "b", "x": "1m", "y": 0}, {"name": "a", "x": "2m", "y": 0}]}, flows=[]),
     "topology.nodes[2].name: duplicate node name 'a' (also topology.nodes[0])"),
    ("explicit name clashes with a wired node", wireless({"kind": "explicit", "nodes": [
        {"name": "a", "x": 0, "y": 0}, {"name": "b", "x": "1m", "y": 0}, {"name": "n0", "x": "2m", "y": 0}]},
        nodes=["n0"], flows=[]),
     "topology.nodes[2].name: 'n0' is already a node name (nodes[0])"),
    ("wired name clashes with a generated one", wireless(nodes=["server", "n2"]),
     "nodes[1]: 'n2' is already a node name: the chain topology names its nodes n0..n3"),
    ("explicit node without position", wireless({"kind": "explicit", "nodes": [{"name": "a", "x": "1m"}]}, flows=[]),
     "topology.nodes[0].y: required field is missing"),
    ("flow to a node past the chain", wireless(flows=[{**FLOW, "dst": "n4"}]),
     "flows[0].dst: no node named 'n4' (nodes: n0..n3)"),
    ("flow to a padded name", wireless(flows=[{**FLOW, "dst": "n01"}]),
     "flows[0].dst: no node named 'n01' (nodes: n0..n3)"),
    ("link to a missing node", wireless(nodes=["server"], links=[
        {"from": "server", "to": "n9", "rate": "10Mbps", "delay": "1ms"}]),
     "links[0].to: no node named 'n9' (nodes: server, n0..n3)"),
    ("unknown propagation kind", wireless(radio=radio(propagation={"kind": "friis"})),
     "radio.propagation.kind: unknown kind 'friis' (expected one of: 'range', 'free_space', 'two_ray_ground', "
     "'log_distance')"),
    ("range without range", wireless(radio=radio(propagation={"kind": "range"})),
     "radio.propagation.range: required field is missing"),
    ("zero range", wireless(radio=radio(propagation={"kind": "range", "range": "0km"})),
     "radio.propagation.range: must be greater than 0, got '0km'"),
    ("bare frequency", wireless(radio=radio(propagation={"kind": "free_space", "frequency": 914e6})),
     "radio.propagation.frequency: a frequency needs a unit (Hz, kHz, MHz or GHz), e.g. '914000000.0Hz'; "
     "got 914000000.0 (float)"),
    ("misspelt frequency unit", wireless(radio=radio(propagation={"kind": "free_space", "frequency": "2.4ghz"})),
     "radio.propagation.frequency: unknown frequency unit 'ghz' in '2.4ghz' (did you mean 'GHz'? units are "
     "case-sensitive); use one of Hz, kHz, MHz, GHz"),
    ("zero antenna height", wireless(radio=radio(propagation={"kind": "two_ray_ground", "antenna_height": "0m"})),
     "radio.propagation.antenna_height: must be greater than 0, got '0m'"),
    ("zero exponent", wireless(radio=radio(propagation={"kind": "log_distance", "exponent": 0})),
     "radio.propagation.exponent: must be greater than 0, got 0"),
    ("exponent with unit", wireless(radio=radio(propagation={"kind": "log_distance", "exponent": "3dB"})),
     "radio.propagation.exponent: expected a number without unit, got '3dB'"),
    ("zero reference distance", wireless(radio=radio(propagation={"kind": "log_distance", "reference_distance": 0})),
     "radio.propagation.reference_distance: must be greater than 0, got 0"),
    ("reference loss without dB", wireless(radio=radio(propagation={"kind": "log_distance", "reference_loss": 46})),
     "radio.propagation.reference_loss: a ratio needs its unit dB, e.g. '46dB'; got 46 (int)"),
    ("power without unit", wireless(radio=radio(tx_power=15)),
     "radio.tx_power: a power needs a unit (dBm, mW or W), e.g. '15dBm' or '15mW'; got 15 (int)"),
    ("power in dB", wireless(radio=radio(rx_threshold="-64dB")),
     "radio.rx_threshold: unknown power unit 'dB' in '-64dB' (dB is a ratio; a power level is in dBm, mW or W); "
     "use one of dBm, mW, W"),
    ("zero milliwatts", wireless(radio=radio(cs_threshold="0mW")),
     "radio.cs_threshold: a power in mW must be greater than 0, got '0mW'"),
    ("capture threshold in dBm", wireless(radio=radio(capture_threshold="10dBm")),
     "radio.capture_threshold: unknown ratio unit 'dBm' in '10dBm' (dBm is a power level; a ratio is in dB); use dB"),
    ("noise misspelt", wireless(radio=radio(noise="-93dbm")),
     "radio.noise: unknown power unit 'dbm' in '-93dbm' (did you mean 'dBm'? units are case-sensitive); "
     "use one of dBm, mW, W"),
    ("unknown preamble", wireless(radio=radio(preamble="medium")),
     "radio.preamble: must be 'long' or 'short', got 'medium'"),
    ("rts_cts not a bool", wireless(radio=radio(rts_cts="yes")),
     "radio.rts_cts: input should be a valid boolean, got 'yes'"),
    ("negative retry limit", wireless(radio=radio(short_retry_limit=-1)),
     "radio.short_retry_limit: must not be negative, got -1"),
    ("fractional retry limit", wireless(radio=radio(long_retry_limit=1.5)),
     "radio.long_retry_limit: expected a whole number, got 1.5 (float)"),
    ("empty interface queue", wireless(radio=radio(queue={"kind": "droptail", "packets": 0})),
     "radio.queue.packets: must be at least 1, got 0"),
    ("unknown radio field", wireless(radio=radio(txpower="15dBm")),
     "radio.txpower: unknown field (did you mean 'tx_power'?); allowed fields: standard, data_rate, basic_rate, "
     "rts_cts, propagation, fading, tx_power, rx_threshold, cs_threshold, capture_threshold, reception, ack_rate, "
     "noise, preamble, rate_control, ht, aggregation, link_rates, "
     "queue, short_retry_limit, long_retry_limit, mac_overhead, channel, node_channels, frame_error, frame_error_mode, cca_time, rx_sensitivity, msdu_lifetime, mac"),
    ("frame error above 1", wireless(radio=radio(frame_error=1.5)),
     "radio.frame_error: must be between 0 and 1, got 1.5 (float)"),
    ("block fading with neither", wireless(radio=radio(fading={"kind": "block"})),
     "radio.fading: block fading needs exactly one of coherence (a duration) or doppler (a frequency), got neither"),
    ("block fading with both", wireless(radio=radio(fading={"kind": "block", "coherence": "10ms", "doppler": "10Hz"})),
     "radio.fading: block fading needs exactly one of coherence (a duration) or doppler (a frequency), got both"),
    ("zero coherence", wireless(radio=radio(fading={"kind": "block", "coherence": "0s"})),
     "radio.fading.coherence: must be greater than 0, got '0s'"),
    ("zero doppler", wireless(radio=radio(fading={"kind": "block", "doppler": "0Hz"})),
     "radio.fading.doppler: must be greater than 0, got '0Hz'"),
    ("rayleigh with a parameter", wireless(radio=radio(fading={"kind": "rayleigh", "doppler": "10Hz"})),
     "radio.fading.doppler: unknown field; allowed fields: kind"),
    ("unknown fading kind", wireless(radio=radio(fading={"kind": "rician"})),
     "radio.fading.kind: unknown kind 'rician' (expected one of: 'none', 'rayleigh', 'block')"),
    ("link error per above one", wireless(link_errors=link_error({"kind": "bernoulli", "per": 1.5})),
     "link_errors[0].error.per: must be between 0 and 1, got 1.5 (float)"),
    ("gilbert-elliott probability", wireless(link_errors=link_error(
        {"kind": "gilbert_elliott", "p_good_bad": 0.1, "p_bad_good": -0.1, "per_good": 0, "per_bad": 1})),
     "link_errors[0].error.p_bad_good: must be between 0 and 1, got -0.1 (float)"),
    ("gilbert-elliott incomplete", wireless(link_errors=link_error(
        {"kind": "gilbert_elliott", "p_good_bad": 0.1, "p_bad_good": 0.1, "per_good": 0})),
     "link_errors[0].error.per_bad: required field is missing"),
    ("bimodal probability", wireless(link_errors=link_error(
        {"kind": "bimodal", "low": 0.1, "high": "120%", "hold_min": "1s", "hold_max": "2s"})),
     "link_errors[0].error.high: must be between 0 and 1, got '120%'"),
    ("bimodal holds reversed", wireless(link_errors=link_error(
        {"kind": "bimodal", "low": 0.1, "high": 0.9, "hold_min": "2s", "hold_max": "1500ms"})),
     "link_errors[0].error.hold_max: must not be smaller than hold_min (2s)"),
    ("bimodal zero hold", wireless(link_errors=link_error(
        {"kind": "bimodal", "low": 0.1, "high": 0.9, "hold_min": 0, "hold_max": 0})),
     "link_errors[0].error.hold_max: must be greater than 0, got 0"),
    ("unknown error kind", wireless(link_errors=link_error({"kind": "burst"})),
     "link_errors[0].error.kind: unknown kind 'burst' (expected one of: 'bernoulli', 'gilbert_elliott', 'bimodal')"),
    ("link error direction", wireless(link_errors=link_error({"kind": "bernoulli", "per": 0.1}, direction="up")),
     "link_errors[0].direction: must be 'forward', 'reverse' or 'both', got 'up'"),
    ("link error to an unknown node", wireless(link_errors=link_error({"kind": "bernoulli", "per": 0.1}, to="n7")),
     "link_errors[0].to: no node named 'n7' (nodes: n0..n3)"),
    ("link error on itself", wireless(link_errors=link_error({"kind": "bernoulli", "per": 0.1}, to="n0")),
     "link_errors[0].to: a link cannot connect node 'n0' to itself"),
    ("link error on a wired node", wireless(nodes=["server"], link_errors=link_error(
        {"kind": "bernoulli", "per": 0.1}, **{"from": "server"})),
     "link_errors[0].from: 'server' has no radio (it is listed in nodes); link_errors apply to wireless links "
     "between nodes the topology places, wired links have their own loss"),
    ("unknown routing kind", wireless(routing={"kind": "ospf"}),
     "routing.kind: unknown kind 'ospf' (expected one of: 'static', 'aodv', 'backpressure', 'horizon')"),
    ("horizon threshold beyond one-byte PLIDs", wireless(routing={"kind": "horizon", "threshold": 101}),
     "routing.threshold: must be between 1 and 100, got 101"),
    ("horizon gain above 1", wireless(routing={"kind": "horizon", "reorder": {"alpha": 1.5}}),
     "routing.reorder.alpha: must be within (0, 1], got 1.5"),
    ("unknown route metric", wireless(routing={"kind": "static", "metric": "delay"}),
     "routing.metric: must be 'hops', 'etx' or 'ett', got 'delay'"),
    ("aodv takes no metric", wireless(routing={"kind": "aodv", "metric": "hops"}),
     "routing.metric: unknown field; allowed fields: kind, local_repair, hello, hello_interval, allowed_hello_loss, min_delivery"),
    ("aodv hello interval of zero", wireless(routing={"kind": "aodv", "hello_interval": 0}),
     "routing.hello_interval: must be greater than 0, got 0"),
    ("aodv hello loss of zero", wireless(routing={"kind": "aodv", "allowed_hello_loss": 0}),
     "routing.allowed_hello_loss: must be at least 1, got 0"),
]


@pytest.mark.parametrize(("scenario", "expected"), [case[1:] for case in BAD_WIRELESS],
                         ids=[case[0] for case in BAD_WIRELESS])
def test_bad_wireless_scenarios_name_the_field(scenario: dict[str, Any], expected: str) -> None:
    error = error_of(scenario)
    assert str(error) == expected


@pytest.mark.parametrize(("scenario", "expected"), [case[1:] for case in BAD_WIRELESS],
                         ids=[case[0] for case in BAD_WIRELESS])
def test_bad_wireless_scenarios_exit_2(tmp_path: Path, scenario: dict[str, Any], expected: str) -> None:
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(scenario, sort_keys=False), encoding="utf-8")
    result = run_cli("validate", path)
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines()[0] == f"error: {expected}"
    assert result.stdout == ""


def test_several_wireless_problems_are_all_reported() -> None:
    error = error_of(wireless(nodes=["n1"], radio=radio(data_rate="3Mbps", basic_rate="4Mbps"),
                              flows=[{**FLOW, "dst": "n9"}]))
    assert [path for path, _ in error.errors] == [
        "nodes[0]", "radio.data_rate", "radio.basic_rate", "flows[0].dst",
    ]


def test_the_error_list_is_abbreviated_for_many_explicit_nodes() -> None:
    nodes = [{"name": f"s{i}", "x": f"{i}m", "y": 0} for i in range(30)]
    error = error_of(wireless({"kind": "explicit", "nodes": nodes}, flows=[{**FLOW, "src": "s0", "dst": "x"}]))
    assert error.message == "no node named 'x' (nodes: s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, ... (30 in all))"


def test_models_build_directly() -> None:
    scenario = Scenario.model_validate(wireless())
    assert scenario.radio is not None and scenario.radio.propagation.kind == "range"
    with pytest.raises(ScenarioError, match=r"^radio\.data_rate: 802\.11b has no 54 Mbps rate"):
        Scenario.model_validate(wireless(radio=radio(data_rate="54Mbps")))


def test_failures_name_wireless_nodes(tmp_path: Path) -> None:
    text = CHAIN3.read_text(encoding="utf-8") + "failures: [{node: n9, at: 5s}]\n"
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    result = run_cli("validate", path)
    assert result.returncode == 2
    assert "failures[0].node: no node named 'n9'" in result.stderr


def test_frame_error_reaches_the_core_and_is_left_out_at_zero() -> None:
    lossy = to_core_dict(load_scenario(wireless(radio=radio(frame_error="15%"))))
    assert lossy["radio"]["frame_error"] == pytest.approx(0.15)
    assert "frame_error" not in to_core_dict(load_scenario(wireless()))["radio"]
    assert "frame_error" not in to_user_dict(load_scenario(wireless(radio=radio(frame_error=0))))["radio"]


def test_dot11a_defaults_follow_the_standard() -> None:
    """802.11a's thresholds, noise and ACK rule fill the normalised form; the model and the user
    form keep them absent, so changing the standard brings the other standard's values."""
    scenario = load_scenario(CHAIN3, overrides=["radio.standard=802.11a", "radio.data_rate=54Mbps",
                                                "radio.basic_rate=6Mbps"])
    core = to_core_dict(scenario)["radio"]
    assert (core["rx_threshold"], core["cs_threshold"], core["noise"], core["ack_rate"]) == (-82.0, -62.0, -93.97, "control")
    assert "preamble" not in core and "rate_control" not in core and "link_rates" not in core
    assert scenario.radio is not None and scenario.radio.rx_threshold is None
    assert scenario.radio.resolved("rx_threshold") == -82.0
    user = to_user_dict(scenario)["radio"]
    assert "rx_threshold" not in user and "ack_rate" not in user
    # Back to 802.11b: its own defaults again.
    scenario.radio.standard = "802.11b"
    scenario.radio.data_rate, scenario.radio.basic_rate = "2Mbps", "1Mbps"
    back = to_core_dict(scenario)["radio"]
    assert (back["rx_threshold"], back["noise"], back["ack_rate"], back["preamble"]) == (-64.374692, -93.58, "basic", "long")
    # A value given in the file is kept whatever the standard.
    given = load_scenario(CHAIN3, overrides=["radio.standard=802.11a", "radio.data_rate=54Mbps",
                                             "radio.basic_rate=6Mbps", "radio.rx_threshold=-90dBm"])
    assert to_core_dict(given)["radio"]["rx_threshold"] == -90.0


def test_rate_control_and_link_rates_reach_the_core() -> None:
    scenario = load_scenario(CHAIN3, overrides=[
        "radio.rate_control={kind: ideal}",
        "radio.link_rates=[{from: n0, to: n1, rate: 1Mbps}]",
    ])
    radio = to_core_dict(scenario)["radio"]
    assert radio["rate_control"] == {"kind": "ideal", "max_per": 0.1, "frame_bytes": 1555}
    assert radio["link_rates"] == [{"from": "n0", "to": "n1", "direction": "both", "rate": 1_000_000}]
    assert to_user_dict(scenario)["radio"]["link_rates"][0]["rate"] == "1Mbps"
