"""The mobility cost benchmark's two networks: valid, alike but for `mobility`, and both run."""

from __future__ import annotations

from airtcp.bench.wifi import mobility_cost
from airtcp.scenario.schema import load_scenario


def test_the_two_networks_differ_only_in_motion() -> None:
    still, moving = mobility_cost.scenario(False, 60), mobility_cost.scenario(True, 60)
    assert {k: v for k, v in moving.items() if k not in ("mobility", "name")} == {
        k: v for k, v in still.items() if k != "name"
    }
    assert len(still["flows"]) == 100
    load_scenario(still), load_scenario(moving)


def test_both_run() -> None:
    for moving in (False, True):
        run = mobility_cost.measure(moving, 2.1)
        assert run["events"] > 0 and run["events_per_s"] > 0
