"""Flow paths (`flows[].paths`, docs/scenario-schema.md#flow-paths): the schema's checks, the
normalised form (nothing for a flow without paths), the core's checks that need the network, and
the chosen paths in the results."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import yaml

import airtcp
from airtcp import api
from airtcp.errors import ScenarioError
from airtcp.scenario.schema import load_scenario, to_core_dict, to_user_dict
from support import REPO, run_cli

SCHEMA_DOC = REPO / "docs" / "scenario-schema.md"


def link(a: str, b: str) -> dict[str, Any]:
    return {"from": a, "to": b, "rate": "10Mbps", "delay": "5ms"}


def wired(paths: Any = None, **changes: Any) -> dict[str, Any]:
    """Wired A-B-E (the route from A to E) and A-C-D-E, one bulk TCP flow A -> E with `paths`."""
    flow: dict[str, Any] = {"id": "f", "src": "A", "dst": "E", "app": {"kind": "bulk"}, "transport": {"kind": "tcp"}}
    if paths is not None:
        flow["paths"] = paths
    scenario = {
        "name": "paths",
        "duration": "2s",
        "nodes": ["A", "B", "C", "D", "E"],
        "links": [link("A", "B"), link("B", "E"), link("A", "C"), link("C", "D"), link("D", "E")],
        "flows": [flow],
    }
    scenario.update(changes)
    return scenario


def ring(paths: Any, dst: str = "n3") -> dict[str, Any]:
    """Six radios on a ring, each hearing its two neighbours; a flow n0 -> `dst` (with `paths`
    unless None)."""
    scenario = {
        "name": "ring",
        "duration": "2s",
        "radio": {"standard": "802.11b", "data_rate": "2Mbps", "basic_rate": "1Mbps",
                  "propagation": {"kind": "range", "range": "250m"}},
        "topology": {"kind": "ring", "n": 6, "spacing": "200m"},
        "flows": [{"id": "f", "src": "n0", "dst": dst, "app": {"kind": "bulk"}, "transport": {"kind": "tcp"}}],
    }
    if paths is not None:
        scenario["flows"][0]["paths"] = paths
    return scenario


def explicit(*paths: list[str], **more: Any) -> dict[str, Any]:
    return {"kind": "explicit", "paths": list(paths), **more}


def error_of(source: Any) -> ScenarioError:
    with pytest.raises(ScenarioError) as caught:
        load_scenario(source)
    return caught.value


# --- The normalised form ------------------------------------------------------------------------


def test_a_flow_without_paths_has_no_paths_key() -> None:
    flow = to_core_dict(load_scenario(wired()))["flows"][0]
    assert "paths" not in flow
    assert "paths" not in to_user_dict(load_scenario(wired()))["flows"][0]


def test_paths_are_emitted_with_their_defaults_and_read_back() -> None:
    scenario = load_scenario(wired(explicit(["A", "C", "D", "E"])))
    assert to_core_dict(scenario)["flows"][0]["paths"] == {
        "kind": "explicit", "paths": [["A", "C", "D", "E"]], "reverse": "paths",
    }
    assert load_scenario(to_user_dict(scenario)) == scenario
    disjoint = load_scenario(wired({"kind": "disjoint", "k": "2"}))
    assert to_core_dict(disjoint)["flows"][0]["paths"] == {
        "kind": "disjoint", "k": 2, "metric": "hops", "reverse": "paths",
    }
    overridden = load_scenario(wired(), overrides=["flows[0].paths={kind: disjoint, k: 2, reverse: routes}"])
    assert overridden.flows[0].paths == disjoint.flows[0].paths.model_copy(update={"reverse": "routes"})


# --- Checks --------------------------------------------------------------------------------------

NO_LINK = "(consecutive nodes must be neighbours: a wired link, the downlink, or radios in range)"

# (id, the flow's paths block, the routing block (None: static), the exact first "path: message"
# line). Over the wired scenario, or the ring with a routing block.
BAD_PATHS: list[tuple[str, Any, Any, str]] = [
    ("no paths", explicit(), None, "flows[0].paths.paths: needs at least 1 entry, got none"),
    ("too many paths", explicit(*[["A", "B", "E"]] * 256), None,
     "flows[0].paths.paths: at most 255 entries, got 256"),
    ("one node", explicit(["A"]), None,
     "flows[0].paths.paths[0]: a path runs from the flow's source 'A' to its destination 'E': two nodes at least, got 1"),
    ("unknown node", explicit(["A", "X", "E"]), None,
     "flows[0].paths.paths[0][1]: no node named 'X' (nodes: A, B, C, D, E)"),
    ("not from the source", explicit(["B", "E"]), None,
     "flows[0].paths.paths[0][0]: must be the flow's source 'A', got 'B'"),
    ("not to the destination", explicit(["A", "B"]), None,
     "flows[0].paths.paths[0][1]: must be the flow's destination 'E', got 'B'"),
    ("a node twice", explicit(["A", "C", "A", "B", "E"]), None,
     "flows[0].paths.paths[0][2]: 'A' is on the path already (at [0]); a path visits each node once"),
    ("no link", explicit(["A", "B", "E"], ["A", "C", "E"]), None,
     f"flows[0].paths.paths[1][2]: no link from 'C' to 'E' {NO_LINK}"),
    ("k zero", {"kind": "disjoint", "k": 0}, None, "flows[0].paths.k: must be between 1 and 255, got 0"),
    ("k too large", {"kind": "disjoint", "k": 256}, None, "flows[0].paths.k: must be between 1 and 255, got 256"),
    ("aodv", explicit(["n0", "n1", "n2", "n3"]), {"kind": "aodv"},
     "flows[0].paths: aodv finds its routes itself; flow paths are followed under static routing"),
    ("backpressure", explicit(["n0", "n1", "n2", "n3"]), {"kind": "backpressure"},
     "flows[0].paths: backpressure chooses next hops itself; flow paths are followed under static routing"),
]
# Values the schema refuses field by field (serde refuses them in the core while parsing).
BAD_VALUES: list[tuple[str, Any, str]] = [
    ("unknown metric", {"kind": "disjoint", "k": 2, "metric": "delay"},
     "flows[0].paths.metric: must be 'hops', 'etx' or 'ett', got 'delay'"),
    ("unknown reverse", explicit(["A", "B", "E"], reverse="acks"),
     "flows[0].paths.reverse: must be 'paths' or 'routes', got 'acks'"),
    ("unknown kind", {"kind": "shortest"},
     "flows[0].paths.kind: unknown kind 'shortest' (expected one of: 'explicit', 'disjoint')"),
]


def _scenario(block: Any, routing: Any) -> dict[str, Any]:
    if routing is None:
        return wired(block)
    return {**ring(block), "routing": routing}


@pytest.mark.parametrize(("block", "routing", "expected"), [c[1:] for c in BAD_PATHS], ids=[c[0] for c in BAD_PATHS])
def test_bad_paths_name_the_field(block: Any, routing: Any, expected: str) -> None:
    assert str(error_of(_scenario(block, routing))).splitlines()[0] == expected


@pytest.mark.parametrize(("block", "expected"), [c[1:] for c in BAD_VALUES], ids=[c[0] for c in BAD_VALUES])
def test_bad_values_name_the_field(block: Any, expected: str) -> None:
    assert str(error_of(wired(block))).splitlines()[0] == expected


@pytest.mark.parametrize(("block", "routing", "expected"), [c[1:] for c in BAD_PATHS], ids=[c[0] for c in BAD_PATHS])
def test_the_core_refuses_them_alike(block: Any, routing: Any, expected: str) -> None:
    """The core's own checks (for users of the library) give the same path and, but for the list
    of nodes Python adds to an unknown name, the same message."""
    valid = explicit(["A", "B", "E"]) if routing is None else explicit(["n0", "n1", "n2", "n3"])
    scenario = to_core_dict(load_scenario(_scenario(valid, None if routing is None else {"kind": "static"})))
    if routing is not None:
        scenario["routing"] = to_core_dict(load_scenario({**ring(None), "routing": routing}))["routing"]
    defaults = {"reverse": "paths", **({"metric": "hops"} if block["kind"] == "disjoint" else {})}
    scenario["flows"][0]["paths"] = {**defaults, **block}
    with pytest.raises(ValueError) as caught:
        airtcp._core.check_json(json.dumps(scenario))
    assert str(caught.value) == re.sub(r" \(nodes: [^)]*\)$", "", expected)


def test_every_problem_with_a_path_is_reported() -> None:
    error = error_of(wired(explicit(["B", "X", "B"])))
    assert [path for path, _ in error.errors] == [
        "flows[0].paths.paths[0][1]", "flows[0].paths.paths[0][2]", "flows[0].paths.paths[0][0]",
        "flows[0].paths.paths[0][2]",
    ]


def test_radio_hops_are_judged_by_the_core() -> None:
    # n0 and n2 are 346 m apart, out of range: only the core knows.
    scenario = load_scenario(ring(explicit(["n0", "n2", "n3"])))
    with pytest.raises(ScenarioError) as caught:
        api.check(scenario)
    assert str(caught.value) == f"flows[0].paths.paths[0][1]: no link from 'n0' to 'n2' {NO_LINK}"
    with pytest.raises(ScenarioError) as caught:
        api.check(load_scenario(ring({"kind": "disjoint", "k": 3})))
    assert str(caught.value) == "flows[0].paths.k: asks for 3 node-disjoint paths; there are only 2 from 'n0' to 'n3'"


def test_validate_exits_2_naming_the_path(tmp_path: Path) -> None:
    path = tmp_path / "ring.yaml"
    path.write_text(yaml.safe_dump(ring({"kind": "disjoint", "k": 3}), sort_keys=False), encoding="utf-8")
    result = run_cli("validate", path)
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines()[0] == (
        "error: flows[0].paths.k: asks for 3 node-disjoint paths; there are only 2 from 'n0' to 'n3'"
    )


# --- Runs and results ------------------------------------------------------------------------------


def test_the_results_show_the_paths(tmp_path: Path) -> None:
    results = airtcp.run(wired(explicit(["A", "C", "D", "E"])))
    assert results.valid
    assert results.raw["flows"][0]["paths"] == [["A", "C", "D", "E"]]
    queues = {row["queue"]: row["transmitted"] for row in results.raw["queues"]}
    assert queues["A->B"] == queues["B->E"] == 0 and queues["C->D"] > 100
    out = results.write(tmp_path / "run")
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["flows"][0]["paths"] == [["A", "C", "D", "E"]]
    assert summary["scenario"]["flows"][0]["paths"]["kind"] == "explicit"
    column = pq.read_table(out / "flows.parquet").column("paths").to_pylist()
    assert column == [[["A", "C", "D", "E"]]]
    assert results.flows.loc[0, "paths"].tolist()[0].tolist() == ["A", "C", "D", "E"]


def test_results_without_paths_have_none() -> None:
    results = airtcp.run(wired())
    assert "paths" not in results.raw["flows"][0]
    assert "paths" not in results.summary["scenario"]["flows"][0]
    assert "paths" not in results.flows.columns


def _documented_example() -> str:
    """The example of docs/scenario-schema.md's "Flow paths" section."""
    text = SCHEMA_DOC.read_text(encoding="utf-8")
    section = text.split("## Flow paths", 1)[1]
    return re.search(r"```yaml\n(.*?)```", section, re.DOTALL)[1]  # type: ignore[index]


def test_the_documented_example_runs() -> None:
    results = airtcp.run(_documented_example(), overrides=["duration=3s"])
    assert results.valid
    flows = {flow["id"]: flow for flow in results.raw["flows"]}
    assert flows["long_way"]["paths"] == [["n0", "n5", "n4", "n3", "n2"]]
    assert flows["both_ways"]["paths"] == [["n0", "n1", "n2", "n3"], ["n0", "n5", "n4", "n3"]]
    assert all(flow["bytes_delivered"] > 0 for flow in flows.values())
