"""`python -m airtcp.bench.ab`: its refusals, which come before any build."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from airtcp.bench import ab
from support import REPO


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--baseline", "HEAD", "--cases", "p2p PER 0,bogus"], "error: --cases: unknown bogus; known: p2p PER 0, "),
        (["--baseline", "HEAD", "--rounds", "0"], "error: --rounds: must be at least 1"),
        (["--baseline", "no-such-revision-anywhere"], "error: --baseline: 'no-such-revision-anywhere' is no git revision of this repository\n"),
    ],
)
def test_bad_options_are_refused_before_building(
    argv: list[str], expected: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.chdir(REPO)
    assert ab.main([*argv, "--out", str(tmp_path / "ab")]) == 2
    assert capsys.readouterr().err.startswith(expected)
    assert not (tmp_path / "ab").exists()


def test_case_names_may_hold_commas() -> None:
    assert ab.case_names("mesh 10,000 nodes") == ["mesh 10,000 nodes"]
    assert ab.case_names("p2p PER 0, mesh 10,000 nodes,chain 3 hops") == ["p2p PER 0", "mesh 10,000 nodes", "chain 3 hops"]
    assert ab.case_names("mesh 10,bogus") == ["mesh 10", "bogus"]


def test_every_case_names_a_scenario_of_the_checkout() -> None:
    for case in ab.CASES:
        assert (REPO / case.scenario).is_file(), case


def test_results_digest_ignores_the_scenario_echo_only(tmp_path: Path) -> None:
    def digest(summary: dict[str, object]) -> str:
        path = tmp_path / "summary.json"
        path.write_text(json.dumps(summary), encoding="utf-8")
        return ab.results_digest(path)

    run = {"flows": [{"id": "f1", "goodput_bps": 1.0}], "scenario": {"flows": [{"cc": "newreno"}]}}
    grown = {**run, "scenario": {"flows": [{"cc": "newreno", "bbr": None}]}}
    moved = {**run, "flows": [{"id": "f1", "goodput_bps": 2.0}]}
    assert digest(run) == digest(grown)
    assert digest(run) != digest(moved)
