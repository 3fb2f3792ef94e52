"""The routing's delivery threshold (`routing.min_delivery`, docs/routing_paths.md#the-delivery-threshold)
as scenario files see it: the field, its checks, and what `airtcp validate` and a run make of a link
that the receiver locks onto but that delivers nothing at its data rate.

The example: an 802.11a chain n0 - n1 - n2, 10 m apart, 54 Mbps, 16 dBm, exponent 3.5. n0 hears n2
at -76.2 dBm (above the -82 dBm receive threshold), 17.8 dB above the noise, where 54 Mbps needs
22 dB for half of its 1536-byte frames.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

import airtcp
from airtcp.api import check
from airtcp.errors import ScenarioError
from airtcp.scenario.schema import load_scenario, to_core_dict
from support import run_cli

GRAY_ZONE: dict[str, Any] = {
    "name": "gray-zone",
    "duration": "2s",
    "radio": {"standard": "802.11a", "data_rate": "54Mbps", "basic_rate": "6Mbps", "tx_power": "16dBm",
              "propagation": {"kind": "log_distance", "exponent": 3.5}},
    "topology": {"kind": "chain", "hops": 2, "spacing": "10m"},
    "flows": [{"id": "f", "src": "n0", "dst": "n2", "app": {"kind": "bulk"}, "transport": {"kind": "tcp"}}],
}
# n0 and n2 alone, 20 m apart: the only link is the dead one.
LONE = ["topology={kind: explicit, nodes: [{name: n0, x: 0m, y: 0m}, {name: n2, x: 20m, y: 0m}]}"]


def _routing(*overrides: str) -> dict[str, Any]:
    return to_core_dict(load_scenario(GRAY_ZONE, overrides=list(overrides)))["routing"]  # type: ignore[no-any-return]


def test_the_threshold_is_left_out_at_its_default_and_spelled_out_otherwise() -> None:
    assert _routing() == {"kind": "static", "metric": "hops"}
    assert _routing("routing.min_delivery=0.5") == {"kind": "static", "metric": "hops"}
    assert _routing("routing.min_delivery=0") == {"kind": "static", "metric": "hops", "min_delivery": 0.0}
    assert _routing("routing={kind: aodv, min_delivery: 90%}") == {
        "kind": "aodv", "local_repair": True, "hello": True, "hello_interval": 1_000_000_000,
        "allowed_hello_loss": 2, "min_delivery": 0.9}
    assert _routing("routing={kind: horizon, min_delivery: 0.25}")["min_delivery"] == 0.25


@pytest.mark.parametrize(("override", "expected"), [
    ("routing.min_delivery=1.5", "routing.min_delivery: must be between 0 and 1, got 1.5"),
    ("routing.min_delivery=-0.1", "routing.min_delivery: must be between 0 and 1, got -0.1"),
    ("routing.min_delivery=half", "routing.min_delivery: "),
    ("routing={kind: backpressure, min_delivery: 0.5}", "routing.min_delivery: unknown field"),
])
def test_bad_thresholds_name_the_field(override: str, expected: str) -> None:
    with pytest.raises(ScenarioError) as error:
        load_scenario(GRAY_ZONE, overrides=[override])
    assert str(error.value).startswith(expected), str(error.value)


def test_a_flow_whose_only_path_is_dead_is_refused() -> None:
    with pytest.raises(ScenarioError) as error:
        check(load_scenario(GRAY_ZONE, overrides=LONE))
    assert error.value.path == "flows[0]"
    assert error.value.message.startswith(
        "no path of links that deliver at their data rate from 'n0' to 'n2' (routing.min_delivery 0.5 of "
        "1536-byte frames, both ways); the best path, n0 -> n2, is held back by 'n0' -> 'n2', which delivers 0 "
        "of 1536-byte frames at 54 Mbps"
    )
    # Without the threshold it builds (and carries nothing, which is the point of refusing it).
    check(load_scenario(GRAY_ZONE, overrides=[*LONE, "routing.min_delivery=0"]))


def test_validate_reports_the_flow_and_exits_with_2(tmp_path: Path) -> None:
    path = tmp_path / "lone.yaml"
    path.write_text(yaml.safe_dump(GRAY_ZONE), encoding="utf-8")
    result = run_cli("validate", path, "--set", LONE[0])
    assert result.returncode == 2
    assert result.stderr.startswith(
        "error: flows[0]: no path of links that deliver at their data rate from 'n0' to 'n2' ("
    ), result.stderr
    assert run_cli("validate", path).returncode == 0


def test_an_explicit_path_over_the_dead_link_is_refused() -> None:
    with pytest.raises(ScenarioError) as error:
        check(load_scenario(GRAY_ZONE, overrides=["flows[0].paths={kind: explicit, paths: [[n0, n2]]}"]))
    assert error.value.path == "flows[0].paths.paths[0][1]"
    assert error.value.message.startswith("the link from 'n0' to 'n2' delivers 0 of 1536-byte frames at 54 Mbps")
    assert "below routing.min_delivery 0.5" in error.value.message


@pytest.mark.parametrize("routing", ["{kind: static}", "{kind: static, metric: ett}", "{kind: aodv}"])
def test_the_chain_routes_over_the_relay_and_delivers(routing: str) -> None:
    results = airtcp.run(GRAY_ZONE, overrides=[f"routing={routing}"])
    goodput = results.summary["flows"][0]["goodput_bps"]
    assert goodput > 5e6, goodput
    off = airtcp.run(GRAY_ZONE, overrides=[f"routing={routing}", "routing.min_delivery=0"])
    if "ett" in routing:
        # ETT weighs the dead link by ETX, infinite here: it avoided the link already.
        assert off.summary["flows"][0]["goodput_bps"] == goodput
    else:
        # Hop count and RFC 3561's AODV take the direct link and carry nothing.
        assert off.summary["flows"][0]["goodput_bps"] < 0.01 * goodput
