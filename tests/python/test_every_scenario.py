"""Every scenario the project ships (examples, the papers' topologies and reproductions), shortened to 5 s of
simulated time after its last flow starts: it runs, conserves packets, and gives the same results when run
again."""

from __future__ import annotations

from pathlib import Path

import pytest

from airtcp import simulate
from airtcp.scenario.schema import load_scenario
from support import EXAMPLES, REPO

SCENARIOS = (
    sorted(EXAMPLES.glob("*.yaml"))
    + sorted((REPO / "scenarios" / "topologies").glob("*.yaml"))
    + sorted((REPO / "scenarios" / "000_tcp_aware_bp").glob("*.yaml"))
    + sorted((REPO / "scenarios" / "002_quic_tcp").glob("*.yaml"))
)


def test_the_list_is_not_empty() -> None:
    assert {"chain3", "bridge", "cell_downlink", "grid_aodv", "x"} <= {path.stem for path in SCENARIOS}


@pytest.mark.parametrize("path", SCENARIOS, ids=[path.stem for path in SCENARIOS])
def test_runs_conserve_packets_and_repeat_exactly(path: Path) -> None:
    # 5 s after the last flow has started (a staggered schedule starts flows up to 150 s in).
    last_start = max((flow.start for flow in load_scenario(path).flows), default=0)
    scenario = load_scenario(path, overrides=[f"duration={last_start + 5_000_000_000}ns"])
    first, second = simulate(scenario), simulate(scenario)
    conservation = first.summary["conservation"]
    assert conservation["ok"] is True, conservation
    assert conservation["created"] > 0
    assert first.summary == second.summary
