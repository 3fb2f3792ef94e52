"""Selecting Cubic and Compound TCP and their parameter blocks, from files, `--set` and Python."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

import airtcp
from airtcp.scenario.schema import load_scenario, to_core_dict
from airtcp.errors import ScenarioError
from support import P2P_LOSSY, assert_run_refused, minimal_scenario, run_cli

CUBIC_YAML = """\
name: cubic-p2p
duration: 5s
nodes: [A, B]
links:
  - {from: A, to: B, rate: 2Mbps, delay: 20ms, loss: {kind: bernoulli, per: 0.01}}
flows:
  - id: f1
    src: A
    dst: B
    app: {kind: bulk}
    transport:
      kind: tcp
      cc: cubic
      cubic: {c: 0.2, beta: 0.8, fast_convergence: false}
"""


def tcp_of(scenario: Any, *overrides: str) -> dict[str, Any]:
    return to_core_dict(load_scenario(scenario, overrides=overrides))["flows"][0]["transport"]  # type: ignore[no-any-return]


def test_cubic_parameters_from_yaml_fill_in_the_rest() -> None:
    tcp = tcp_of(CUBIC_YAML)
    assert tcp["cc"] == "cubic"
    assert tcp["cubic"] == {"c": 0.2, "beta": 0.8, "fast_convergence": False, "reno_friendly": True}
    assert tcp["compound"] is None


def test_compound_parameters_from_yaml() -> None:
    text = CUBIC_YAML.replace("cc: cubic", "cc: compound").replace(
        "cubic: {c: 0.2, beta: 0.8, fast_convergence: false}", "compound: {gamma: 10, k: '0.8'}"
    )
    assert tcp_of(text)["compound"] == {"alpha": 0.125, "beta": 0.5, "k": 0.8, "gamma": 10.0, "zeta": 1.0}


def test_no_block_means_the_defaults_in_the_core() -> None:
    # The block stays absent (null); the core then uses RFC 9438's / the paper's constants.
    assert tcp_of(P2P_LOSSY, "flows[0].transport.cc=cubic")["cubic"] is None


def test_parameters_by_set_create_the_block() -> None:
    tcp = tcp_of(P2P_LOSSY, "flows[0].transport.cc=compound", "flows[0].transport.compound.gamma=5")
    assert tcp["compound"]["gamma"] == 5.0 and tcp["compound"]["alpha"] == 0.125
    tcp = tcp_of(P2P_LOSSY, "flows[0].transport.cc=cubic", "flows[0].transport.cubic.reno_friendly=false")
    assert tcp["cubic"]["reno_friendly"] is False


def test_both_run_from_python_and_the_parameters_matter() -> None:
    cubic = airtcp.run(CUBIC_YAML)
    assert list(cubic.flows["cc"]) == ["cubic"]
    assert cubic.conservation["ok"]
    default = airtcp.run(CUBIC_YAML, overrides=["flows[0].transport.cubic="])
    assert default.summary["flows"] != cubic.summary["flows"]
    compound = airtcp.run(CUBIC_YAML, overrides=["flows[0].transport.cubic=", "flows[0].transport.cc=compound"])
    assert list(compound.flows["cc"]) == ["compound"]
    assert compound.flows["bytes_delivered"][0] > 0


@pytest.mark.parametrize(
    ("cc", "block", "value"),
    [("cubic", "cubic", "{c: 0.3}"), ("compound", "compound", "{zeta: 2}")],
)
def test_the_command_line_runs_them_with_set(tmp_path: Path, cc: str, block: str, value: str) -> None:
    out = tmp_path / "out"
    result = run_cli(
        "run", P2P_LOSSY, "--out", out, "--set", "duration=5s", "--set", f"flows[0].transport.cc={cc}",
        "--set", f"flows[0].transport.{block}={value}",
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["flows"][0]["cc"] == cc
    assert summary["scenario"]["flows"][0]["transport"][block] == to_core_dict(
        load_scenario(P2P_LOSSY, overrides=[f"flows[0].transport.cc={cc}", f"flows[0].transport.{block}={value}"])
    )["flows"][0]["transport"][block]


BAD_PARAMETERS: list[tuple[str, dict[str, Any], str]] = [
    ("cubic block with newreno", {"cc": "newreno", "cubic": {"c": 0.4}},
     "flows[0].transport.cubic: only used with cc: cubic (cc is newreno)"),
    ("compound block with cubic", {"cc": "cubic", "compound": {}},
     "flows[0].transport.compound: only used with cc: compound (cc is cubic)"),
    ("cubic block with the default cc", {"cubic": {}},
     "flows[0].transport.cubic: only used with cc: cubic (cc is newreno)"),
    ("zero c", {"cc": "cubic", "cubic": {"c": 0}}, "flows[0].transport.cubic.c: must be greater than 0"),
    ("negative c", {"cc": "cubic", "cubic": {"c": -0.4}}, "flows[0].transport.cubic.c: must be greater than 0"),
    ("cubic beta one", {"cc": "cubic", "cubic": {"beta": 1}}, "flows[0].transport.cubic.beta: must be within (0, 1)"),
    ("cubic beta zero", {"cc": "cubic", "cubic": {"beta": 0}}, "flows[0].transport.cubic.beta: must be within (0, 1)"),
    ("fast convergence not a bool", {"cc": "cubic", "cubic": {"fast_convergence": "yes"}},
     "flows[0].transport.cubic.fast_convergence: "),
    ("misspelt cubic field", {"cc": "cubic", "cubic": {"beta_cubic": 0.7}},
     "flows[0].transport.cubic.beta_cubic: unknown field; allowed fields: c, beta, fast_convergence, reno_friendly"),
    ("compound beta", {"cc": "compound", "compound": {"beta": 1.5}},
     "flows[0].transport.compound.beta: must be within (0, 1)"),
    ("compound k", {"cc": "compound", "compound": {"k": 1.2}}, "flows[0].transport.compound.k: must be within (0, 1]"),
    ("compound gamma", {"cc": "compound", "compound": {"gamma": 0}},
     "flows[0].transport.compound.gamma: must be greater than 0"),
    ("compound alpha", {"cc": "compound", "compound": {"alpha": -1}},
     "flows[0].transport.compound.alpha: must be greater than 0"),
    ("compound zeta", {"cc": "compound", "compound": {"zeta": "fast"}},
     "flows[0].transport.compound.zeta: expected a number"),
]


def _flow(transport: dict[str, Any]) -> dict[str, Any]:
    return {"id": "f1", "src": "A", "dst": "B", "app": {"kind": "bulk"}, "transport": {"kind": "tcp", **transport}}


@pytest.mark.parametrize(("transport", "expected"), [case[1:] for case in BAD_PARAMETERS],
                         ids=[case[0] for case in BAD_PARAMETERS])
def test_bad_parameters_name_the_field(transport: dict[str, Any], expected: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        load_scenario(minimal_scenario(flows=[_flow(transport)]))
    assert str(caught.value).startswith(expected), str(caught.value)


@pytest.mark.parametrize(("transport", "expected"), [BAD_PARAMETERS[0][1:], BAD_PARAMETERS[5][1:],
                                                     BAD_PARAMETERS[10][1:]])
def test_bad_parameters_in_a_file_exit_2(tmp_path: Path, transport: dict[str, Any], expected: str) -> None:
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(minimal_scenario(flows=[_flow(transport)]), sort_keys=False), encoding="utf-8")
    out = tmp_path / "out"
    result = run_cli("run", path, "--out", out)
    assert result.returncode == 2, result.stderr
    assert f"error: {expected}" in result.stderr, result.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ("flows[0].transport.cubic.c=0.5", "flows[0].transport.cubic: only used with cc: cubic (cc is newreno)"),
        ("flows[0].transport={kind: tcp, cc: cubic, cubic: {beta: 1.2}}",
         "flows[0].transport.cubic.beta: must be within (0, 1), got 1.2"),
        ("flows[0].transport={kind: tcp, cc: compound, compound: {gamma: -30}}",
         "flows[0].transport.compound.gamma: must be greater than 0"),
    ],
)
def test_bad_parameters_by_set_exit_2(tmp_path: Path, override: str, expected: str) -> None:
    assert_run_refused(P2P_LOSSY, override, expected, tmp_path / "out")
