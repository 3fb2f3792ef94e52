"""TCP-RLC's RTT-slotted model (paper 004 §II) from Python: the theorems' regimes measured, not
restated, and bad parameters named."""

from __future__ import annotations

import statistics

import pytest

from airtcp.errors import ScenarioError
from airtcp.models import rlc_slotted as rs


def test_one_flow_sits_near_the_aimd_mean_of_p_min_c() -> None:
    # Theorem 1: E[W] >= 0.75 p_1 C - 1 as C grows; at C = 300 the model sits within a few % of
    # it (spec A14), and the window lies between p_1 C / 2 and p_1 C.
    result = rs.run(rs.config(rs.single(300), low=0.7, low_probability=0.5, redundancy=2, slots=50_000))
    window = result.flows[0]["mean_window"]
    assert 0.95 * (0.75 * 0.7 * 300 - 1) <= window <= 0.7 * 300
    assert result.mean_p == pytest.approx(0.85, abs=0.01)


def test_a_router_that_knows_the_channel_serves_many_flows_near_the_harmonic_mean() -> None:
    # Theorem 3: with the channel known at the router, per-flow throughput is of the order of
    # E[1/P]^-1 C (paper: 70-80 % of it); a blind equal share falls far below.
    harmonic = 150 / (0.25 / 0.5 + 0.75)
    per_flow = {}
    for name, policy in (("blind", rs.blind()), ("quota", rs.quota(2.0))):
        cfg = rs.config(rs.multiflow(30, 150, policy), low=0.5, low_probability=0.25, redundancy=3, slots=10_000)
        per_flow[name] = statistics.mean(flow["throughput"] for flow in rs.run(cfg).flows)
    assert 0.65 <= per_flow["quota"] / harmonic <= 0.9
    assert per_flow["quota"] >= 1.2 * per_flow["blind"]


def test_bad_parameters_name_the_field() -> None:
    with pytest.raises(ScenarioError, match="^channel.low_probability: must be in"):
        rs.run(rs.config(rs.single(10), low=0.5, low_probability=1.5, redundancy=1))
    with pytest.raises(ScenarioError, match="^setting.capacity: "):
        rs.run(rs.config(rs.single(0), low=0.5, low_probability=0.5, redundancy=1))
    with pytest.raises(ScenarioError, match="^<rlc_slotted>: "):
        rs.run({"slots": 1})
