"""The scenario's `coding:` block (docs/scenario-schema.md#coding): its fields and defaults (COPE's,
`CopeParams::default()` in the core), the normalised form (nothing without a block), and the
checks the schema and the core make alike, through the API and the command line."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from airtcp import _core, api
from airtcp.scenario.schema import load_scenario, to_core_dict, to_core_json, to_user_dict
from support import REPO, error_of, invoke_cli, run_cli

SCHEMA_DOC = REPO / "docs" / "scenario-schema.md"
FIELDS_DOC = REPO / "docs" / "scenario-fields.md"

RADIO = {"standard": "802.11b", "data_rate": "2Mbps", "basic_rate": "1Mbps",
         "propagation": {"kind": "range", "range": "250m"}}

DEFAULTS = {
    "scheme": "cope",
    "queue": "fifo",
    "knowledge": "reports_and_guessing",
    "threshold": 0.8,
    "pool_lifetime": 500_000_000,
    "control": {"kind": "periodic"},
    "ack_timeout": 100_000_000,
    "retry_limit": 3,
    "code_acks": True,
    "max_report": 32,
    "ordering": True,
    "ordering_hold": 200_000_000,
}


def chain(coding: Any = None, **changes: Any) -> dict[str, Any]:
    """Four radios in a chain 200 m apart, a TCP flow end to end; with `coding` unless None."""
    scenario: dict[str, Any] = {
        "name": "coding",
        "duration": "2s",
        "radio": copy.deepcopy(RADIO),
        "topology": {"kind": "chain", "hops": 3, "spacing": "200m"},
        "flows": [{"id": "f", "src": "n0", "dst": "n3", "app": {"kind": "bulk"}, "transport": {"kind": "tcp"}}],
    }
    if coding is not None:
        scenario["coding"] = coding
    scenario.update(changes)
    return scenario



# --- The normalised form -----------------------------------------------------------------------


def test_a_scenario_without_coding_has_no_coding_key() -> None:
    scenario = load_scenario(chain())
    assert scenario.coding is None
    assert "coding" not in to_core_dict(scenario)
    assert "coding" not in to_user_dict(scenario)


def test_an_empty_block_is_cope_with_its_defaults() -> None:
    scenario = load_scenario(chain({}))
    core = to_core_dict(scenario)
    assert core["coding"] == DEFAULTS
    # Placed after `routing`, as the core's ScenarioConfig declares it.
    keys = list(core)
    assert keys.index("coding") == keys.index("routing") + 1


def test_every_field_is_read_and_round_trips() -> None:
    block = {"scheme": "bfly", "recovery": "none", "queue": "fifo", "knowledge": "guessing", "threshold": "0.9",
             "pool_lifetime": "1s", "control": {"kind": "idle_timer", "report_idle": "5ms", "ack_delay": "2500us"},
             "ack_timeout": "50ms",
             "retry_limit": 0, "code_acks": False, "max_report": "8",
             "ordering": False, "ordering_hold": "50ms"}
    scenario = load_scenario(chain(block))
    assert to_core_dict(scenario)["coding"] == {
        "scheme": "bfly", "recovery": "none", "queue": "fifo", "knowledge": "guessing", "threshold": 0.9,
        "pool_lifetime": 1_000_000_000,
        "control": {"kind": "idle_timer", "report_idle": 5_000_000, "ack_delay": 2_500_000},
        "ack_timeout": 50_000_000, "retry_limit": 0, "code_acks": False, "max_report": 8,
        "ordering": False, "ordering_hold": 50_000_000,
    }
    user = to_user_dict(scenario)
    assert user["coding"]["control"]["ack_delay"] == "2500us" and user["coding"]["pool_lifetime"] == "1s"
    again = load_scenario(user)
    assert again == scenario
    assert to_core_json(again) == to_core_json(scenario)
    # And through YAML text, as a file would hold it.
    assert to_core_json(load_scenario(yaml.safe_dump(user, sort_keys=False))) == to_core_json(scenario)


def test_the_core_accepts_the_block() -> None:
    for block in ({}, {"queue": "fifo", "knowledge": "oracle", "threshold": 1, "retry_limit": 0},
                  {"control": {"kind": "periodic", "period": "20ms"}}, {"control": {"kind": "idle_timer"}},
                  {"scheme": "bfly", "queue": "ncaqm", "recovery": "coder_ack"}):
        scenario = load_scenario(chain(block))
        api.check(scenario)
        _core.check_json(to_core_json(scenario))


def test_flow_paths_are_allowed() -> None:
    scenario = chain({}, flows=[{"id": "f", "src": "n0", "dst": "n3", "app": {"kind": "bulk"},
                                 "transport": {"kind": "tcp"}, "paths": {"kind": "disjoint", "k": 1}}])
    api.check(load_scenario(scenario))


def test_overrides_create_and_remove_the_block() -> None:
    made = load_scenario(chain(), overrides=["coding.threshold=0.5", "coding.queue=fifo"])
    assert to_core_dict(made)["coding"] == {**DEFAULTS, "threshold": 0.5, "queue": "fifo"}
    assert load_scenario(chain({}), overrides=["coding="]).coding is None
    assert str(error_of(chain(), "coding.threshold=2")) == (
        "coding.threshold: must be within (0, 1], got 2"
    )


def test_the_documented_examples_load() -> None:
    section = SCHEMA_DOC.read_text(encoding="utf-8").split("## Coding", 1)[1].split("\n## ", 1)[0]
    example = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)[1]  # type: ignore[index]
    blocks = [yaml.safe_load(line.split("#")[0])["coding"] for line in example.splitlines() if line.strip()]
    assert len(blocks) == 3
    for block in blocks:
        api.check(load_scenario(chain(block)))
    # The field reference (made from the core's schema) lists every field with its default as
    # written in a file.
    fields = FIELDS_DOC.read_text(encoding="utf-8").split("\n## CodingConfig\n", 1)[1].split("\n## ", 1)[0]
    scenario = load_scenario(chain({}))
    for field, value in to_user_dict(scenario)["coding"].items():
        if isinstance(value, dict):  # {kind: periodic}, as the page writes a mapping
            text = "{" + ", ".join(f"{key}: {inner}" for key, inner in value.items()) + "}"
        else:
            text = value if isinstance(value, str) else json.dumps(value)  # true, 0.8, 3
        assert re.search(rf"^\| `{field}` \|[^\n]*\| `{re.escape(text)}` \|", fields, re.MULTILINE), field


# --- Checks ------------------------------------------------------------------------------------

WIRED = {"topology": None, "radio": None, "nodes": ["A", "B"],
         "links": [{"from": "A", "to": "B", "rate": "1Mbps", "delay": "1ms"}],
         "flows": [{"id": "f", "src": "A", "dst": "B", "app": {"kind": "bulk"}, "transport": {"kind": "tcp"}}]}
GATEWAY = {"nodes": ["srv"], "links": [{"from": "srv", "to": "n0", "rate": "10Mbps", "delay": "1ms"}]}
DOWNLINK = {"nodes": ["bs", "u"], "downlink": {"base_station": "bs", "users": [{"node": "u", "mean_snr": "10dB"}]}}
ROUTERS = {"nodes": ["r", "u"], "routers": [{"node": "r", "rate": "1Mbps", "users": [{"node": "u"}]}]}
MULTI_RADIO = {"radio": {**RADIO, "node_channels": {"n1": [1, 6]}}}

# (id, the coding block, changes to the chain, the exact "path: message"): the scenarios the core
# refuses alike (`scenario::coding::check`), with the same words.
BAD_CODING: list[tuple[str, Any, dict[str, Any], str]] = [
    ("threshold above one", {"threshold": 1.5}, {},
     "coding.threshold: must be within (0, 1], got 1.5"),
    ("threshold zero", {"threshold": 0}, {}, "coding.threshold: must be within (0, 1], got 0"),
    ("threshold negative", {"threshold": -0.25}, {},
     "coding.threshold: must be within (0, 1], got -0.25"),
    *((f"{field} zero", {field: 0}, {}, f"coding.{field}: must be greater than 0, got 0")
      for field in ("pool_lifetime", "ack_timeout", "ordering_hold")),
    *((f"{field} zero", {"control": {"kind": kind, field: 0}}, {},
       f"coding.control.{field}: must be greater than 0, got 0")
      for kind, field in (("periodic", "period"), ("idle_timer", "report_idle"), ("idle_timer", "ack_delay"))),
    ("max_report zero", {"max_report": 0}, {}, "coding.max_report: must be at least 1, got 0"),
    ("recovery without bfly", {"recovery": "none"}, {}, "coding.recovery: is BFLY's recovery rule; it needs scheme: bfly"),
    ("no radios", {}, WIRED, "coding: coding runs over radios; this scenario has none"),
    ("aodv", {}, {"routing": {"kind": "aodv"}}, "routing.kind: coding forwards over static routes (use static)"),
    ("backpressure", {}, {"routing": {"kind": "backpressure"}},
     "routing.kind: coding forwards over static routes (use static)"),
    ("wired links", {}, GATEWAY,
     "coding: coding runs over radios only; this scenario has wired links, a downlink or routers"),
    ("downlink", {}, DOWNLINK,
     "coding: coding runs over radios only; this scenario has wired links, a downlink or routers"),
    ("routers", {}, ROUTERS,
     "coding: coding runs over radios only; this scenario has wired links, a downlink or routers"),
    ("several radios", {}, MULTI_RADIO, "radio.node_channels: coding runs on one radio per node"),
]
# Values only the schema words (serde refuses them in the core while parsing).
BAD_VALUES: list[tuple[str, Any, str]] = [
    ("unknown scheme", {"scheme": "xor"}, "coding.scheme: must be 'cope' or 'bfly', got 'xor'"),
    ("unknown recovery", {"scheme": "bfly", "recovery": "retry"},
     "coding.recovery: must be 'coder_ack' or 'none', got 'retry'"),
    ("unknown queue", {"queue": "lifo"}, "coding.queue: must be 'fifo' or 'ncaqm', got 'lifo'"),
    ("unknown knowledge", {"knowledge": "all"},
     "coding.knowledge: must be 'reports_and_guessing', 'reports', 'guessing' or 'oracle', got 'all'"),
    ("threshold a percentage", {"threshold": "80%"}, "coding.threshold: expected a number without unit, got '80%'"),
    ("threshold not finite", {"threshold": float("nan")}, "coding.threshold: nan (float) is not a finite number"),
    ("bare duration", {"ack_timeout": 100}, "coding.ack_timeout: a duration needs a unit"),
    ("zero duration with a unit", {"pool_lifetime": "0s"}, "coding.pool_lifetime: must be greater than 0, got '0s'"),
    ("negative retry limit", {"retry_limit": -1}, "coding.retry_limit: must not be negative, got -1"),
    ("retry limit too large", {"retry_limit": 2**32}, "coding.retry_limit: is too large (at most 4294967295)"),
    ("code_acks not a boolean", {"code_acks": "yes"}, "coding.code_acks: "),
    ("ordering not a boolean", {"ordering": "agent"}, "coding.ordering: "),
    ("unknown field", {"thresold": 0.5}, "coding.thresold: unknown field (did you mean 'threshold'?)"),
    ("a timer of the other kind", {"control": {"kind": "periodic", "report_idle": "10ms"}},
     "coding.control.report_idle: unknown field"),
    ("the old place of the timers", {"report_idle": "10ms"}, "coding.report_idle: unknown field"),
    ("not a mapping", [], "coding: "),
]
ALL_BAD = [*BAD_CODING, *((name, block, {}, expected) for name, block, expected in BAD_VALUES)]


@pytest.mark.parametrize(("block", "changes", "expected"), [c[1:] for c in BAD_CODING], ids=[c[0] for c in BAD_CODING])
def test_bad_scenarios_name_the_field(block: Any, changes: dict[str, Any], expected: str) -> None:
    error = error_of(chain(block, **changes))
    assert str(error).splitlines()[0] == expected
    assert (error.path, error.message) == tuple(expected.split(": ", 1))


@pytest.mark.parametrize(("block", "expected"), [c[1:] for c in BAD_VALUES], ids=[c[0] for c in BAD_VALUES])
def test_bad_values_name_the_field(block: Any, expected: str) -> None:
    assert str(error_of(chain(block))).splitlines()[0].startswith(expected)


@pytest.mark.parametrize(("block", "changes", "expected"), [c[1:] for c in BAD_CODING], ids=[c[0] for c in BAD_CODING])
def test_the_core_refuses_them_alike(block: Any, changes: dict[str, Any], expected: str) -> None:
    """The core's own checks (for users of the library) give the same path and message: the
    scenario without the block is valid; its normalised form is given the block as it is."""
    core = to_core_dict(load_scenario(chain(None, **changes)))
    core["coding"] = {**DEFAULTS, **block}
    with pytest.raises(ValueError) as caught:
        _core.check_json(json.dumps(core))
    assert str(caught.value) == expected


@pytest.mark.parametrize(("block", "changes", "expected"), [c[1:] for c in ALL_BAD], ids=[c[0] for c in ALL_BAD])
def test_validate_exits_2_naming_the_field(tmp_path: Path, block: Any, changes: dict[str, Any], expected: str) -> None:
    path = tmp_path / "coding.yaml"
    path.write_text(yaml.safe_dump(chain(block, **changes), sort_keys=False), encoding="utf-8")
    result = invoke_cli("validate", path)
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines()[0].startswith(f"error: {expected}"), result.stderr
    assert result.stdout == ""


def test_run_refuses_a_bad_block_through_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "coding.yaml"
    path.write_text(yaml.safe_dump(chain({}), sort_keys=False), encoding="utf-8")
    out = tmp_path / "out"
    result = run_cli("run", path, "--out", out, "--set", "routing={kind: aodv}")
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines()[0] == "error: routing.kind: coding forwards over static routes (use static)"
    assert not out.exists()


def test_every_problem_is_reported() -> None:
    error = error_of(chain({}, routing={"kind": "aodv"}, **GATEWAY, radio={**RADIO, "node_channels": {"n1": [1, 6]}}))
    paths = [path for path, _ in error.errors]
    assert paths[-3:] == ["routing.kind", "coding", "radio.node_channels"]
