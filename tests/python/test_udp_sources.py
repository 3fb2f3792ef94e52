"""Poisson and utility-controlled UDP sources from scenario files: they run from YAML and `--set`,
and bad parameters are refused with the field's path and exit code 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from airtcp import simulate
from airtcp.scenario.schema import load_scenario, to_core_dict
from support import EXAMPLES, assert_run_refused

P2P = EXAMPLES / "p2p_lossy.yaml"
UDP = "flows[0].transport={kind: udp}"


def test_poisson_runs_at_its_mean_rate() -> None:
    scenario = load_scenario(P2P, overrides=[
        "flows[0].app={kind: poisson, rate: 200kbps, packet_size: 500}", UDP, "duration=60s",
        "links[0].loss.per=0"])
    flows = simulate(scenario).flows
    rate = flows["goodput_bps"].iloc[0]
    assert abs(rate / 200e3 - 1) < 0.06, rate


def test_utility_app_defaults_and_units() -> None:
    scenario = load_scenario(P2P, overrides=["flows[0].app={kind: utility, packet_size: 1KB, r_max: 4Mbps, m: 12}", UDP])
    app = to_core_dict(scenario)["flows"][0]["app"]
    assert app == {"kind": "utility", "packet_size": 1000, "r_max": 4_000_000, "m": 12.0,
                   "utility": {"kind": "log"}, "slot": 10_000_000}


def test_the_utility_source_keeps_the_link_busy_without_drops() -> None:
    scenario = load_scenario(P2P, overrides=[
        "flows[0].app={kind: utility, packet_size: 1000, r_max: 20Mbps, m: 30, slot: 5ms}", UDP,
        "links[0].loss.per=0", "duration=30s"])
    results = simulate(scenario)
    assert results.summary["conservation"]["ok"] is True
    assert results.drops.empty or int(results.drops["packets"].sum()) == 0
    assert float(results.flows["goodput_bps"].iloc[0]) > 0.9 * 2e6 * 1000 / 1028


BAD = [
    ("{kind: utility, packet_size: 1000, r_max: 1Mbps, m: 0}", "flows[0].app.m: must be greater than 0"),
    ("{kind: utility, packet_size: 1000, r_max: 1Mbps, m: 1, utility: {kind: alpha_fair, alpha: 0}}",
     "flows[0].app.utility.alpha: must be greater than 0"),
    ("{kind: utility, packet_size: 1000, m: 1}", "flows[0].app.r_max: "),
    ("{kind: poisson, rate: 0bps, packet_size: 10}", "flows[0].app.rate: "),
]


@pytest.mark.parametrize(("app", "expected"), BAD, ids=[case[0] for case in BAD])
def test_bad_sources_exit_2(tmp_path: Path, app: str, expected: str) -> None:
    assert_run_refused(P2P, [f"flows[0].app={app}", UDP], expected, tmp_path / "out")


def test_a_poisson_source_needs_udp(tmp_path: Path) -> None:
    assert_run_refused(P2P, "flows[0].app={kind: poisson, rate: 1Mbps, packet_size: 10}",
                       "flows[0].transport.kind: a poisson application needs a udp transport", tmp_path / "out")
