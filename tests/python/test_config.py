"""Scenario validation and the normalised JSON handed to the simulator core."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from airtcp import _core
from airtcp.scenario.schema import Scenario, load_scenario, to_core_dict, to_core_json, to_user_dict
from airtcp.errors import ScenarioError
from support import REPO, DUMBBELL, P2P_LOSSY, error_of, minimal_scenario

P2P_LOSSY_TEXT = """\
# One TCP NewReno flow over a 2 Mbps, 20 ms point-to-point link with 1 % packet loss.
#
name: p2p-lossy
duration: 200s
seed: 1
nodes: [A, B]
links:
  - {from: A, to: B, rate: 2Mbps, delay: 20ms, queue: {kind: droptail, packets: 100},
     loss: {kind: bernoulli, per: 0.01, direction: forward}}
flows:
  - id: f1
    src: A
    dst: B
    start: 0s
    app: {kind: bulk}
    transport: {kind: tcp, cc: newreno, sack: true, mss: 1000, delayed_ack: 2, initial_cwnd: 10}
"""



def test_the_lossy_example_is_exactly_as_specified() -> None:
    assert P2P_LOSSY.read_text(encoding="utf-8") == P2P_LOSSY_TEXT


def test_the_lossy_example_normalises_to_integers() -> None:
    config = to_core_dict(load_scenario(P2P_LOSSY))
    assert config["duration"] == 200_000_000_000
    link = config["links"][0]
    assert (link["from"], link["to"], link["rate"], link["delay"]) == ("A", "B", 2_000_000, 20_000_000)
    assert link["queue"] == {"kind": "droptail", "packets": 100}
    assert link["loss"] == {"kind": "bernoulli", "per": 0.01, "direction": "forward"}
    flow = config["flows"][0]
    assert flow["start"] == 0 and flow["stop"] is None
    assert flow["app"] == {"kind": "bulk", "bytes": None}
    assert flow["transport"]["delayed_ack_timeout"] == 200_000_000


def test_the_dumbbell_example_is_valid() -> None:
    scenario = load_scenario(DUMBBELL)
    assert scenario.duration == 60_000_000_000
    kinds = [(f.transport.kind, getattr(f.transport, "cc", None), getattr(f.transport, "sack", None)) for f in scenario.flows]
    assert kinds == [("tcp", "reno", False), ("tcp", "newreno", True), ("udp", None, None)]
    cbr = scenario.flows[2].app
    assert (cbr.kind, cbr.rate, cbr.packet_size) == ("cbr", 100_000, 500)
    bottleneck = scenario.links[2]
    assert (bottleneck.rate, bottleneck.delay, bottleneck.queue.packets) == (1_000_000, 10_000_000, 50)


def test_every_field_is_emitted_with_its_resolved_value() -> None:
    config = to_core_dict(load_scenario(minimal_scenario()))
    assert config["metrics"] == {
        "bin": 1_000_000_000,
        "trace_rtt": False,
        "trace_cwnd": False,
        "trace_queues": False,
        "trace_rates": False,
        "trace_interval": 100_000_000,
    }
    assert config["links"][0]["queue"] == {"kind": "droptail", "packets": 100}
    assert config["links"][0]["loss"] is None
    assert config["flows"][0]["transport"] == {
        "kind": "tcp",
        "cc": "newreno",
        "sack": True,
        "mss": 1000,
        "header_bytes": 40,
        "delayed_ack": 2,
        "delayed_ack_timeout": 200_000_000,
        "initial_cwnd": 10,
        "initial_ssthresh": None,
        "rwnd": 1 << 20,
        "dupthresh": 3,
        "ssthresh_basis": "flight_size",
        "min_rto": 1_000_000_000,
        "max_rto": 60_000_000_000,
        "initial_rto": 1_000_000_000,
        "clock_granularity": 1_000_000,
        "cubic": None,
        "compound": None,
        "vegas": None,
        "fast": None,
        "bbr": None,
        "bbr3": None,
        "quic_tcp": None,
        "nc": None,
    }
    assert "paths" not in config["flows"][0]  # left out when absent (LEFT_OUT_AT_DEFAULT)


def test_sources_yaml_text_dict_and_model_agree() -> None:
    from_file = load_scenario(P2P_LOSSY)
    from_text = load_scenario(P2P_LOSSY_TEXT)
    from_dict = load_scenario(to_user_dict(from_file))
    from_model = load_scenario(from_file)
    assert to_core_json(from_file) == to_core_json(from_text) == to_core_json(from_dict) == to_core_json(from_model)


def test_a_file_without_name_is_named_after_it(tmp_path: Path) -> None:
    path = tmp_path / "my_case.yaml"
    path.write_text("duration: 1s\nnodes: [A]\n", encoding="utf-8")
    assert load_scenario(path).name == "my_case"
    assert load_scenario({"duration": "1s", "nodes": ["A"]}).name == "scenario"


def test_seed_argument_wins_and_default_is_fixed() -> None:
    assert load_scenario(minimal_scenario(seed=7), seed=3).seed == 3
    without_seed = minimal_scenario()
    del without_seed["seed"]
    assert load_scenario(without_seed).seed == 1
    assert load_scenario(load_scenario(P2P_LOSSY), seed=9).seed == 9
    with pytest.raises(ScenarioError, match="^seed: "):
        load_scenario(P2P_LOSSY, seed=-1)


def test_the_input_dict_is_not_modified() -> None:
    raw = minimal_scenario()
    before = json.dumps(raw, sort_keys=True)
    load_scenario(raw, seed=5, overrides=["links[0].rate=1Mbps"])
    assert json.dumps(raw, sort_keys=True) == before


# --- Errors: (change to the minimal scenario, expected "path: message" start) ---------------

BAD_SCENARIOS: list[tuple[str, dict[str, Any], str]] = [
    ("unknown top-level key", {"lossy": 1}, "lossy: unknown field"),
    ("unknown link key", {"links": [{"from": "A", "to": "B", "rate": "1Mbps", "delay": "1ms", "lossy": 1}]},
     "links[0].lossy: unknown field (did you mean 'loss'?)"),
    ("malformed rate", {"links": [{"from": "A", "to": "B", "rate": "2 Mbs", "delay": "1ms"}]},
     "links[0].rate: unknown rate unit 'Mbs'"),
    ("zero rate", {"links": [{"from": "A", "to": "B", "rate": "0Mbps", "delay": "1ms"}]},
     "links[0].rate: must be greater than 0"),
    ("negative delay", {"links": [{"from": "A", "to": "B", "rate": "1Mbps", "delay": "-1ms"}]},
     "links[0].delay: must not be negative"),
    ("zero duration", {"duration": "0s"}, "duration: must be greater than 0"),
    ("bare duration", {"duration": 10}, "duration: a duration needs a unit"),
    ("missing nodes", {"nodes": []}, "nodes: the scenario has no nodes"),
    ("duplicate nodes", {"nodes": ["A", "B", "A"]}, "nodes[2]: duplicate node name 'A'"),
    ("link to unknown node", {"links": [{"from": "A", "to": "C", "rate": "1Mbps", "delay": "1ms"}]},
     "links[0].to: no node named 'C'"),
    ("unknown node beside a name with a line break",
     {"nodes": ["A", "\n"], "links": [{"from": "A", "to": "C", "rate": "1Mbps", "delay": "1ms"}]},
     "links[0].to: no node named 'C' (nodes: A, '\\n')"),
    ("self loop", {"links": [{"from": "A", "to": "A", "rate": "1Mbps", "delay": "1ms"}]},
     "links[0].to: a link cannot connect"),
    ("parallel links", {"links": [{"from": "A", "to": "B", "rate": "1Mbps", "delay": "1ms"},
                                  {"from": "B", "to": "A", "rate": "1Mbps", "delay": "1ms"}]},
     "links[1]: duplicate of links[0]"),
    ("per above one", {"links": [{"from": "A", "to": "B", "rate": "1Mbps", "delay": "1ms",
                                  "loss": {"kind": "bernoulli", "per": 1.5}}]},
     "links[0].loss.per: must be between 0 and 1"),
    ("unknown loss kind", {"links": [{"from": "A", "to": "B", "rate": "1Mbps", "delay": "1ms",
                                      "loss": {"kind": "gilbert"}}]},
     "links[0].loss.kind: unknown kind 'gilbert' (expected one of: 'bernoulli', 'segments')"),
    ("missing loss kind", {"links": [{"from": "A", "to": "B", "rate": "1Mbps", "delay": "1ms",
                                      "loss": {"per": 0.1}}]},
     "links[0].loss.kind: required field is missing"),
    ("empty queue", {"links": [{"from": "A", "to": "B", "rate": "1Mbps", "delay": "1ms",
                                "queue": {"kind": "droptail", "packets": 0}}]},
     "links[0].queue.packets: must be at least 1"),
    ("unknown cc", {"flows": [{"id": "f", "src": "A", "dst": "B", "app": {"kind": "bulk"},
                               "transport": {"kind": "tcp", "cc": "westwood"}}]},
     "flows[0].transport.cc: must be "),
    ("unknown destination", {"flows": [{"id": "f", "src": "A", "dst": "R9", "app": {"kind": "bulk"},
                                        "transport": {"kind": "tcp"}}]},
     "flows[0].dst: no node named 'R9'"),
    ("same src and dst", {"flows": [{"id": "f", "src": "A", "dst": "A", "app": {"kind": "bulk"},
                                     "transport": {"kind": "tcp"}}]},
     "flows[0].dst: source and destination are the same"),
    ("no route", {"nodes": ["A", "B", "C"], "flows": [{"id": "f", "src": "A", "dst": "C",
                                                       "app": {"kind": "bulk"}, "transport": {"kind": "tcp"}}]},
     "flows[0].dst: no route from 'A' to 'C'"),
    ("cbr over tcp", {"flows": [{"id": "f", "src": "A", "dst": "B",
                                 "app": {"kind": "cbr", "rate": "1Mbps", "packet_size": 500},
                                 "transport": {"kind": "tcp"}}]},
     "flows[0].transport.kind: a cbr application needs a udp transport"),
    ("bulk over udp", {"flows": [{"id": "f", "src": "A", "dst": "B", "app": {"kind": "bulk"},
                                  "transport": {"kind": "udp"}}]},
     "flows[0].transport.kind: a bulk application needs a tcp or tcp_rlc transport"),
    ("cbr without rate", {"flows": [{"id": "f", "src": "A", "dst": "B", "app": {"kind": "cbr", "packet_size": 500},
                                     "transport": {"kind": "udp"}}]},
     "flows[0].app.rate: required field is missing"),
    ("zero mss", {"flows": [{"id": "f", "src": "A", "dst": "B", "app": {"kind": "bulk"},
                             "transport": {"kind": "tcp", "mss": 0}}]},
     "flows[0].transport.mss: must be at least 1"),
    ("no delayed ack", {"flows": [{"id": "f", "src": "A", "dst": "B", "app": {"kind": "bulk"},
                                   "transport": {"kind": "tcp", "delayed_ack": 0}}]},
     "flows[0].transport.delayed_ack: must be at least 1"),
    ("zero initial cwnd", {"flows": [{"id": "f", "src": "A", "dst": "B", "app": {"kind": "bulk"},
                                      "transport": {"kind": "tcp", "initial_cwnd": 0}}]},
     "flows[0].transport.initial_cwnd: must be at least 1"),
    ("unknown tcp field", {"flows": [{"id": "f", "src": "A", "dst": "B", "app": {"kind": "bulk"},
                                      "transport": {"kind": "tcp", "sacks": True}}]},
     "flows[0].transport.sacks: unknown field (did you mean 'sack'?)"),
    ("sack not a bool", {"flows": [{"id": "f", "src": "A", "dst": "B", "app": {"kind": "bulk"},
                                    "transport": {"kind": "tcp", "sack": "maybe"}}]},
     "flows[0].transport.sack: "),
    ("duplicate flow ids", {"flows": [{"id": "f", "src": "A", "dst": "B", "app": {"kind": "bulk"},
                                       "transport": {"kind": "tcp"}}] * 2},
     "flows[1].id: duplicate flow id 'f'"),
    ("start after the end", {"flows": [{"id": "f", "src": "A", "dst": "B", "start": "10s",
                                        "app": {"kind": "bulk"}, "transport": {"kind": "tcp"}}]},
     "flows[0].start: must be before the end of the run"),
    ("stop before start", {"flows": [{"id": "f", "src": "A", "dst": "B", "start": "2s", "stop": "1s",
                                      "app": {"kind": "bulk"}, "transport": {"kind": "tcp"}}]},
     "flows[0].stop: must be after start"),
    ("stop within the start jitter", {"flows": [{"id": "f", "src": "A", "dst": "B", "start": "1s", "start_jitter": "2s",
                                                 "stop": "2s", "app": {"kind": "bulk"}, "transport": {"kind": "tcp"}}]},
     "flows[0].stop: must not be before start + start_jitter (3s), the latest the flow may start"),
    ("segment number negative", {"links": [{"from": "A", "to": "B", "rate": "1Mbps", "delay": "1ms",
                                            "loss": {"kind": "segments", "seqs": [3, -1]}}]},
     "links[0].loss.seqs[1]: must not be negative"),
    ("rto bounds", {"flows": [{"id": "f", "src": "A", "dst": "B", "app": {"kind": "bulk"},
                               "transport": {"kind": "tcp", "min_rto": "2s", "max_rto": "1s"}}]},
     "flows[0].transport.max_rto: must not be smaller than min_rto"),
    ("zero bin", {"metrics": {"bin": "0s"}}, "metrics.bin: must be greater than 0"),
    ("bool as count", {"seed": True}, "seed: expected a whole number"),
    ("links not a list", {"links": {"from": "A"}}, "links: expected a list"),
]


@pytest.mark.parametrize(("change", "expected"), [case[1:] for case in BAD_SCENARIOS],
                         ids=[case[0] for case in BAD_SCENARIOS])
def test_bad_scenarios_name_the_field(change: dict[str, Any], expected: str) -> None:
    error = error_of(minimal_scenario(**change))
    assert str(error).startswith(expected), str(error)
    assert str(error) == f"{error.path}: {error.message}"


def test_several_problems_are_all_reported() -> None:
    error = error_of(minimal_scenario(duration="0s", seed=-1))
    assert [path for path, _ in error.errors] == ["duration", "seed"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("nodes: [A\nduration: 1s", "<scenario>: not valid YAML at line"),
        ("- a\n- b\n", "<scenario>: expected a mapping of scenario fields at the top level, got a list"),
        ("", "<scenario>: expected a mapping of scenario fields at the top level, got nothing"),
        ("nodes: [A]\nduration: 1s\nnodes: [B]\n", "<scenario>: not valid YAML at line 3, column 1: duplicate key 'nodes'"),
    ],
)
def test_bad_yaml_text(text: str, expected: str) -> None:
    assert str(error_of(text)).startswith(expected)


def test_bad_files(tmp_path: Path) -> None:
    assert str(error_of(tmp_path / "absent.yaml")) == f"{tmp_path / 'absent.yaml'}: no such file"
    assert "is a directory" in str(error_of(tmp_path))
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\xff\xfe\x00\x01")
    assert str(error_of(binary)).startswith(f"{binary}: ")


def test_a_stop_after_the_end_is_allowed() -> None:
    # The core caps it at the end of the run, so shortening `duration` needs no other edits.
    scenario = load_scenario(P2P_LOSSY, overrides=["flows[0].stop=150s", "duration=100s"])
    assert scenario.flows[0].stop == 150_000_000_000


def test_assignment_is_validated() -> None:
    scenario = load_scenario(P2P_LOSSY, overrides=["flows[0].start=10s"])
    scenario.duration = "50s"  # type: ignore[assignment]
    assert scenario.duration == 50_000_000_000
    with pytest.raises(ScenarioError, match=r"^flows\[0\]\.start: must be before the end of the run"):
        scenario.duration = "5s"  # type: ignore[assignment]


# --- The core reads what the front end writes ---------------------------------------------------
# (The models' fields, tags, defaults, units and ranges are compared with the core's own schema in
# test_scenario_schema.py.)

# The topologies placed by name, each with a file in scenarios/topologies.
NAMED_TOPOLOGIES = {"tree", "diamond", "x", "alice_bob", "cross", "wheel", "butterfly", "ring"}


def test_the_core_accepts_the_normalised_json() -> None:
    """The core parses the JSON with serde (deny_unknown_fields); a parse error reads
    "<scenario>: ..." and must not happen. Until the engine lands the answer is "engine not built
    yet"; afterwards the short runs below simply succeed."""
    for source in (P2P_LOSSY, DUMBBELL):
        scenario = load_scenario(source, overrides=["duration=10ms", "metrics.trace_rtt=true", "metrics.trace_cwnd=true"])
        try:
            json.loads(_core.simulate_json(to_core_json(scenario)))
        except ValueError as error:
            assert "engine not built yet" in str(error), str(error)


def test_the_core_runs_the_nc_layer() -> None:
    """`transport.nc` reaches the core as the NC layer's configuration and the flow runs over it."""
    for block in ("{}", "{block: 8, max_block: 16, repair_interval: 50ms}"):
        scenario = load_scenario(P2P_LOSSY, overrides=["duration=5s", f"flows[0].transport.nc={block}"])
        result = json.loads(_core.simulate_json(to_core_json(scenario)))
        assert result["flows"][0]["bytes_delivered"] > 100_000, block
        assert result["conservation"]["ok"], block


def test_the_core_places_the_named_topologies() -> None:
    """Each scenarios/topologies file parses in the core, and its suggested flows find routes over
    the links the layout gives a 250 m radio: a few seconds deliver data on every flow."""
    files = sorted((REPO / "scenarios" / "topologies").glob("*.yaml"))
    assert {path.stem for path in files} == set(NAMED_TOPOLOGIES)
    for path in files:
        scenario = load_scenario(path, overrides=["duration=6s"])
        result = json.loads(_core.simulate_json(to_core_json(scenario)))
        assert all(flow["bytes_delivered"] > 0 for flow in result["flows"]), path.name


def test_models_build_directly() -> None:
    scenario = Scenario.model_validate(minimal_scenario())
    assert scenario.links[0].from_ == "A"
    with pytest.raises(ScenarioError, match=r"flows\[0\]\.dst: no node named 'Z'"):
        Scenario.model_validate(minimal_scenario(flows=[{"id": "f", "src": "A", "dst": "Z",
                                                         "app": {"kind": "bulk"}, "transport": {"kind": "tcp"}}]))
