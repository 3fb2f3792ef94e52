"""TCP-RLC and the wireless router from scenario files: the paper-004 scenario runs, its results
carry the routers' and the priority pairs' tables, the channel is paper 004's (drawn states, not
the alternating link errors), and bad routers and transports are refused with the field's path
and exit code 2."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from airtcp.scenario.schema import load_scenario
from support import REPO, assert_run_refused, run_cli

SINGLE = REPO / "scenarios" / "004_tcp_rlc" / "single.yaml"
PAPER_004 = sorted((REPO / "scenarios" / "004_tcp_rlc").glob("*.yaml"))


def test_the_single_path_scenario_runs_and_writes_router_tables(tmp_path: Path) -> None:
    out = tmp_path / "single"
    result = run_cli("run", SINGLE, "--out", out, "--set", "duration=30s", "--quiet")
    assert result.returncode == 0, result.stderr
    flows = pq.read_table(out / "flows.parquet").to_pylist()
    assert flows[0]["transport"] == "tcp_rlc" and flows[0]["goodput_bps"] > 0
    users = pq.read_table(out / "routers.parquet").to_pylist()
    assert [(row["router"], row["user"]) for row in users] == [("R", "D")]
    row = users[0]
    # One packet may still be on the air when the run ends.
    assert row["sent"] - (row["received"] + row["erased"]) in (0, 1) and row["erased"] > 0
    pairs = pq.read_table(out / "priority_pairs.parquet").to_pylist()
    assert len(pairs) == 1 and pairs[0]["high_sent"] > 0 and pairs[0]["low_sent"] > 0
    # The low queue is a LIFO that pushes out its oldest when full, never refusing.
    assert pairs[0]["low_dropped"] == 0


@pytest.mark.parametrize("path", PAPER_004, ids=[p.stem for p in PAPER_004])
def test_paper_004_scenarios_use_the_drawn_channel_only(path: Path) -> None:
    # The radios' alternating bimodal link errors are not paper 004's channel (its time shares
    # are 50/50 whatever the state probabilities): no paper-004 scenario may use them, and every
    # router channel gives its low state's probability.
    scenario = load_scenario(path)
    assert not scenario.link_errors
    for router in scenario.routers:
        for user in router.users:
            assert user.channel is not None and user.channel.kind == "bimodal"


BAD_ROUTERS = [
    ("routers[0].users[0].node=R", "routers[0].users[0].node: a router cannot be one of its own users"),
    ("routers[0].users[0].node=X", "routers[0].users[0].node: no node named 'X'"),
    ("routers[0].rate=0", "routers[0].rate: "),
    ("routers[0].users[0].channel.low_probability=2", "routers[0].users[0].channel.low_probability: "),
    ("routers[0].users[0].channel.hold_max=10ms", "routers[0].users[0].channel.hold_max: must not be smaller"),
    ("routers[0].priority_pairs.buffers.high=0", "routers[0].priority_pairs.buffers.high: "),
    ("routers[0].priority_pairs.low_order=stack", "routers[0].priority_pairs.low_order: "),
    ("routers[0].priority_pairs.low_policy={kind: channel_aware, kappa: -1}",
     "routers[0].priority_pairs.low_policy.kappa: "),
    ("routing={kind: aodv}", "routing.kind: aodv routes over radios only; this scenario has routers"),
    ("flows[0].transport.redundancy=5000", "flows[0].transport.redundancy: must be between 0 and 1000"),
    ("flows[0].transport.initial_cwnd=0", "flows[0].transport.initial_cwnd: "),
    ("flows[0].transport.source_window=per_packet", "flows[0].transport.source_window: "),
    (["flows[0].transport.decoder=exact", "flows[0].transport.max_cwnd=5000"],
     "flows[0].transport.max_cwnd: the exact decoder keeps B^2 coefficients per block"),
    ("flows[0].app={kind: cbr, rate: 1Mbps, packet_size: 200}",
     "flows[0].transport.kind: a cbr application needs a udp transport"),
]


@pytest.mark.parametrize(("override", "expected"), BAD_ROUTERS, ids=[str(case[0]) for case in BAD_ROUTERS])
def test_bad_routers_and_transports_exit_2(override: str | list[str], expected: str, tmp_path: Path) -> None:
    assert_run_refused(SINGLE, override, expected, tmp_path / "out")
