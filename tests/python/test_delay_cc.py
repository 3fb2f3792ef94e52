"""Delay-based congestion control from scenario files: Vegas, FAST and QUIC-TCP selected with
their parameter blocks in YAML or through --set; out-of-range or misplaced parameters exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from airtcp.scenario.schema import load_scenario, to_core_dict
from support import P2P_LOSSY, run_cli

# Three flows of different algorithms over one 10 Mbps link with a 200-packet buffer.
THREE_ALGORITHMS = """\
name: delay-based
duration: 10s
nodes: [A, B]
links:
  - {from: A, to: B, rate: 10Mbps, delay: 20ms, queue: {kind: droptail, packets: 200}}
flows:
  - id: vegas
    src: A
    dst: B
    app: {kind: bulk}
    transport: {kind: tcp, cc: vegas, delayed_ack: 1, vegas: {alpha: 2, beta: 4, gamma: 1}}
  - id: fast
    src: A
    dst: B
    app: {kind: bulk}
    transport: {kind: tcp, cc: fast, fast: {alpha: 20, gamma: 0.5}}
  - id: quic
    src: A
    dst: B
    app: {kind: bulk}
    transport: {kind: tcp, cc: quic_tcp, quic_tcp: {kappa: 0.05, rho: 0.5, p_s: 20, update_interval: 20ms}}
"""


def test_each_algorithm_runs_with_its_parameters_from_yaml(tmp_path: Path) -> None:
    path = tmp_path / "delay.yaml"
    path.write_text(THREE_ALGORITHMS, encoding="utf-8")
    out = tmp_path / "out"
    result = run_cli("run", path, "--out", out)
    assert result.returncode == 0, result.stderr
    for fragment in ("tcp/vegas+sack", "tcp/fast+sack", "tcp/quic_tcp+sack"):
        assert fragment in result.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert [f["cc"] for f in summary["flows"]] == ["vegas", "fast", "quic_tcp"]
    assert all(f["goodput_bps"] > 0 for f in summary["flows"])
    transports = [f["transport"] for f in summary["scenario"]["flows"]]
    assert transports[0]["vegas"] == {"alpha": 2.0, "beta": 4.0, "gamma": 1.0}
    assert transports[1]["fast"] == {"alpha": 20.0, "gamma": 0.5}
    assert transports[2]["quic_tcp"] == {"kappa": 0.05, "rho": 0.5, "p_s": 20.0, "update_interval": 20_000_000}
    assert transports[0]["fast"] is None and transports[0]["quic_tcp"] is None


def test_absent_blocks_mean_defaults() -> None:
    for cc in ("vegas", "fast", "quic_tcp"):
        transport = to_core_dict(load_scenario(P2P_LOSSY, overrides=[f"flows[0].transport.cc={cc}"]))["flows"][0]["transport"]
        assert transport["cc"] == cc and transport[cc] is None


@pytest.mark.parametrize(
    ("overrides", "cc", "block"),
    [
        (["flows[0].transport.cc=vegas", "flows[0].transport.vegas={alpha: 2, beta: 5}"], "vegas",
         {"alpha": 2.0, "beta": 5.0, "gamma": 1.0}),
        (["flows[0].transport.cc=fast", "flows[0].transport.fast={alpha: 15}"], "fast", {"alpha": 15.0, "gamma": 0.5}),
        (["flows[0].transport.cc=quic_tcp", "flows[0].transport.quic_tcp={rho: 0.25, kappa: 0.01, update_interval: 0}"],
         "quic_tcp", {"kappa": 0.01, "rho": 0.25, "p_s": 200.0, "update_interval": 0}),
        (["flows[0].transport.cc=quic_tcp", "flows[0].transport.quic_tcp={kappa: 1.5, cadence: {kind: fast_rounds}}"],
         "quic_tcp", {"kappa": 1.5, "rho": 0.5, "p_s": 200.0, "cadence": {"kind": "fast_rounds", "cap_double": True}}),
    ],
    ids=["vegas", "fast", "quic_tcp", "quic_tcp fast_rounds"],
)
def test_each_algorithm_is_selected_with_set(tmp_path: Path, overrides: list[str], cc: str, block: dict[str, float]) -> None:
    out = tmp_path / "out"
    args = [arg for override in ["duration=5s", *overrides] for arg in ("--set", override)]
    result = run_cli("run", P2P_LOSSY, "--out", out, "--quiet", *args)
    assert result.returncode == 0, result.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["flows"][0]["cc"] == cc and summary["flows"][0]["goodput_bps"] > 0
    assert summary["scenario"]["flows"][0]["transport"][cc] == block


BAD_PARAMETERS: list[tuple[str, list[str], str]] = [
    ("block for another cc", ["flows[0].transport.vegas={alpha: 1}"],
     "flows[0].transport.vegas: only used with cc: vegas (cc is newreno)"),
    ("quic block beside fast", ["flows[0].transport.cc=fast", "flows[0].transport.quic_tcp={kappa: 1}"],
     "flows[0].transport.quic_tcp: only used with cc: quic_tcp (cc is fast)"),
    ("vegas alpha above beta", ["flows[0].transport.cc=vegas", "flows[0].transport.vegas={alpha: 4, beta: 2}"],
     "flows[0].transport.vegas.beta: must not be smaller than alpha (4), got 2"),
    ("vegas negative gamma", ["flows[0].transport.cc=vegas", "flows[0].transport.vegas={gamma: -1}"],
     "flows[0].transport.vegas.gamma: must not be negative"),
    ("fast zero alpha", ["flows[0].transport.cc=fast", "flows[0].transport.fast={alpha: 0}"],
     "flows[0].transport.fast.alpha: must be greater than 0"),
    ("fast zero gamma", ["flows[0].transport.cc=fast", "flows[0].transport.fast={gamma: 0}"],
     "flows[0].transport.fast.gamma: must be greater than 0"),
    ("rho above one", ["flows[0].transport.cc=quic_tcp", "flows[0].transport.quic_tcp={rho: 1.5}"],
     "flows[0].transport.quic_tcp.rho: must be within [0, 1], got 1.5"),
    ("zero kappa", ["flows[0].transport.cc=quic_tcp", "flows[0].transport.quic_tcp={kappa: 0}"],
     "flows[0].transport.quic_tcp.kappa: must be greater than 0"),
    ("negative p_s", ["flows[0].transport.cc=quic_tcp", "flows[0].transport.quic_tcp={p_s: -5}"],
     "flows[0].transport.quic_tcp.p_s: must be greater than 0"),
    ("interval without unit", ["flows[0].transport.cc=quic_tcp", "flows[0].transport.quic_tcp={update_interval: 20}"],
     "flows[0].transport.quic_tcp.update_interval: a duration needs a unit"),
    ("unknown field", ["flows[0].transport.cc=fast", "flows[0].transport.fast={beta: 2}"],
     "flows[0].transport.fast.beta: unknown field"),
    ("cadence and update_interval", ["flows[0].transport.cc=quic_tcp",
                                     "flows[0].transport.quic_tcp={update_interval: 0s, cadence: {kind: per_ack}}"],
     "flows[0].transport.quic_tcp: give either cadence or update_interval (its older spelling), not both"),
    ("unknown cadence", ["flows[0].transport.cc=quic_tcp", "flows[0].transport.quic_tcp={cadence: {kind: sometimes}}"],
     "flows[0].transport.quic_tcp.cadence.kind: unknown kind 'sometimes' (expected one of: 'per_ack', 'interval', "
     "'fast_rounds')"),
    ("zero cadence interval", ["flows[0].transport.cc=quic_tcp",
                               "flows[0].transport.quic_tcp={cadence: {kind: interval, every: 0s}}"],
     "flows[0].transport.quic_tcp.cadence.every: must be greater than 0, got '0s'"),
    ("every with fast_rounds", ["flows[0].transport.cc=quic_tcp",
                                "flows[0].transport.quic_tcp={cadence: {kind: fast_rounds, every: 1s}}"],
     "flows[0].transport.quic_tcp.cadence.every: unknown field"),
]


@pytest.mark.parametrize(("overrides", "expected"), [case[1:] for case in BAD_PARAMETERS],
                         ids=[case[0] for case in BAD_PARAMETERS])
def test_bad_parameters_exit_2(tmp_path: Path, overrides: list[str], expected: str) -> None:
    out = tmp_path / "out"
    args = [arg for override in overrides for arg in ("--set", override)]
    result = run_cli("run", P2P_LOSSY, "--out", out, *args)
    assert result.returncode == 2, result.stderr
    assert f"error: {expected}" in result.stderr, result.stderr
    assert not out.exists()
