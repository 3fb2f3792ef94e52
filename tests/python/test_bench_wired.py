"""`airtcp bench` (airtcp.bench.wired): its options and the arguments each simulator gets, without
running either (running it needs ns-3: `make bench`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from airtcp.bench import wired


def _sets(args: list[str]) -> list[str]:
    return [args[i + 1] for i, arg in enumerate(args) if arg == "--set"]


def test_prr_is_the_default_recovery_of_both_simulators() -> None:
    args = wired._parser().parse_args([])
    assert args.recovery == wired.DEFAULT_RECOVERY == "prr"
    assert wired.RECOVERIES == ("prr", "classic")
    assert wired._parser().parse_args(["--recovery", "classic"]).recovery == "classic"


@pytest.mark.parametrize("option", ["--prr", "--no-prr", "--recovery=rfc6937"])
def test_the_old_reference_column_options_are_gone(
    option: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert wired.main([option, "--out", str(tmp_path / "out")]) == 2
    assert "error:" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_airtcp_gets_the_recovery_ns3_runs() -> None:
    scenario = Path("bench/p2p_bench.yaml")
    args = wired.airtcp_scenario_args(scenario, 0.01, 200.0, 3, "pipe", recovery="prr")
    assert args[:3] == ["bench/p2p_bench.yaml", "--seed", "3"]
    assert _sets(args) == [
        "links[0].loss.per=0.01",
        "duration=200s",
        "flows[0].transport.ssthresh_basis=pipe",
        "flows[0].transport.recovery=prr",
    ]
    classic = wired.airtcp_scenario_args(scenario, 0.0, 20.0, 1, "flightsize", recovery="classic")
    assert "flows[0].transport.recovery=classic" in _sets(classic)
    assert "flows[0].transport.ssthresh_basis=flight_size" in _sets(classic)
    # Without a recovery the scenario's own is kept (the congestion-control and Linux-TCP
    # comparisons pass theirs, or none, themselves); further overrides come last.
    plain = wired.airtcp_scenario_args(scenario, 0.0, 20.0, 1, sets=["flows[0].transport.cc=cubic"])
    assert not any("recovery" in s for s in _sets(plain))
    assert _sets(plain)[-1] == "flows[0].transport.cc=cubic"


def test_an_unknown_recovery_is_refused_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(wired.BenchError, match="recovery must be one of prr, classic"):
        wired.run_benchmark(out=tmp_path / "out", recovery="rfc6937")
    assert not (tmp_path / "out").exists()


def _run(simulator: str, goodput_bps: float, wall: float) -> dict[str, object]:
    return {
        "simulator": simulator,
        "goodput_bps": goodput_bps,
        "sim_wall_s": wall,
        "cmd_wall_s": wall + 0.1,
        "cmd_cpu_s": wall + 0.05,
        "packets": 1000,
        "events": 5000,
        "recoveries": 10,
        "rtos": 1,
    }


def test_a_row_compares_the_two_simulators_and_has_no_extra_ns3_column() -> None:
    row = wired.summarise_case(
        0.01,
        [_run("airtcp", 1_130_000.0, 0.005), _run("airtcp", 1_150_000.0, 0.005)],
        [_run("ns-3", 1_150_000.0, 0.3), _run("ns-3", 1_170_000.0, 0.3)],
        [],
    )
    assert row["goodput_ratio"] == pytest.approx(1140.0 / 1160.0)
    assert row["goodput_ok"] is True and row["speed_ok"] is True
    assert not any("prr" in key for key in row)
    headers = wired._headers()
    assert "ns-3 PRR kbps" not in headers and headers[-1] == "targets"
    assert "| 0.01 | 1140.0 | 1160.0 | 0.983 |" in "\n".join(wired.markdown_table(headers, [wired._cells(row)]))
