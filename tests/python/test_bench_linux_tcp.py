"""The Linux TCP comparison's plumbing without ns-3 (running it: `python -m airtcp.bench.linux_tcp`):
its cases, the stored ns-3 reference, trace downsampling, the table and the skip rule."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from airtcp.bench import cc as bench_cc
from airtcp.bench import linux_tcp as lt

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "bench" / "ns3" / lt.REFERENCE_FILE


def _case(name: str) -> lt.Case:
    return next(case for case in lt.CASES if case.name == name)


# --------------------------------------------------------------------------------------------
# Cases


def test_cases_cover_the_three_groups_as_asked() -> None:
    names = [case.name for case in lt.CASES]
    assert len(names) == len(set(names)) == 18
    by_group = {g: [c for c in lt.CASES if c.group == g] for g in lt.GROUPS}
    assert [c.per for c in by_group["bbr"] if c.topology == "p2p"] == list(lt.PERS)
    assert [c.hops for c in by_group["prr"] if c.topology == "chain"] == [3, 5]
    assert {c.per for c in by_group["hystart"]} == {0.0, 0.01}
    for case in lt.CASES:
        assert case.duration_s == (200.0 if case.topology == "p2p" else 100.0)
    bbr = _case("bbr-p2p-per0.02")
    assert bbr.ns3_args == ("--cc=bbr",) and bbr.ns3_recovery == "prr"
    assert bbr.airtcp_sets == ("flows[0].transport.cc=bbr",)
    assert _case("prr-chain-5hops").airtcp_sets == ("flows[0].transport.recovery=prr",)
    assert _case("cubic-hystart-p2p-per0").airtcp_sets[-1] == "flows[0].transport.cubic.hystart=ns3"
    assert _case("cubic-nohystart-p2p-per0.01").ns3_args == ("--cc=cubic", "--hystart=0")


def test_cases_are_chosen_by_group_or_name() -> None:
    assert [c.name for c in lt.select_cases("hystart")] == [
        "cubic-hystart-p2p-per0",
        "cubic-nohystart-p2p-per0",
        "cubic-hystart-p2p-per0.01",
        "cubic-nohystart-p2p-per0.01",
    ]
    chosen = lt.select_cases("prr, bbr-chain-3hops")
    assert {c.group for c in chosen} == {"prr", "bbr"} and len(chosen) == 8
    assert lt.select_cases(None) == list(lt.CASES)
    with pytest.raises(ValueError, match="unknown vegas"):
        lt.select_cases("bbr,vegas")


# --------------------------------------------------------------------------------------------
# Traces


def test_sample_and_hold_takes_the_value_in_force_at_each_time() -> None:
    times = [0.05, 0.1, 0.1, 0.25, 0.31]
    values = [1.0, 2.0, 3.0, 4.0, 5.0]
    # A sample at exactly a grid time counts (the later of two at the same time wins); none
    # before the first sample.
    assert lt.sample_and_hold(times, values, 0.1, 0.4) == [None, 3.0, 3.0, 4.0, 5.0]
    assert lt.sample_and_hold([], [], 0.1, 0.2) == [None, None, None]
    # Samples are taken in time order, whatever the order they come in.
    assert lt.sample_and_hold([0.31, 0.05, 0.25], [5.0, 1.0, 4.0], 0.1, 0.4) == [None, 1.0, 1.0, 4.0, 5.0]


def test_an_ns3_trace_csv_is_downsampled_per_kind(tmp_path: Path) -> None:
    path = tmp_path / "trace.csv"
    path.write_text(
        "t_s,kind,value\n"
        "0.04,cwnd,10\n0.04,rtt,0.04\n0.04,srtt,0.04\n0.04,pacing_bps,5780000\n"
        "0.15,cwnd,12.5\n0.16,rtt,0.0452\n",
        encoding="utf-8",
    )
    trace = lt.ns3_trace(path, until_s=0.3)
    assert trace == {
        "cwnd": [None, 10.0, 12.5, 12.5],
        "rtt_s": [None, 0.04, 0.0452, 0.0452],
        "pacing_bps": [None, 5780000.0, 5780000.0, 5780000.0],
    }
    (tmp_path / "empty.csv").write_text("t_s,kind,value\n", encoding="utf-8")
    with pytest.raises(lt.BenchError):
        lt.ns3_trace(tmp_path / "empty.csv")


# --------------------------------------------------------------------------------------------
# The stored reference


def test_the_stored_reference_is_complete_and_consistent() -> None:
    reference = lt.load_reference(REFERENCE)
    assert reference["ns3"] == "ns3==3.44.post0"
    for case in lt.CASES:
        entry = reference["cases"][case.name]
        assert entry["seeds"] == [1, 2, 3, 4, 5]
        assert entry["duration_s"] == case.duration_s
        assert 0 < entry["goodput_kbps"] < 1897.5  # below the p2p link's goodput ceiling
    attributes = reference["settings"]["ns3_attributes"]
    assert attributes["bbr"]["ns3::TcpSocketState"]["attributes"]["EnablePacing"] == "true"
    assert attributes["bbr"]["TcpBbr::PACING_GAIN_CYCLE"] == [1.25, 0.75, 1, 1, 1, 1, 1, 1]
    assert attributes["hystart"]["ns3::TcpCubic (--hystart=1)"]["attributes"]["HyStart"] == "true"
    assert attributes["hystart"]["ns3::TcpCubic (--hystart=0)"]["attributes"]["HyStart"] == "false"
    assert attributes["prr"]["ns3::TcpL4Protocol"]["attributes"]["RecoveryType"] == "ns3::TcpPrrRecovery"
    assert {b["batch"] for b in reference["batches"]} == {
        "bbr p2p", "bbr chain", "prr p2p", "prr chain", "hystart p2p"
    }


@pytest.fixture(scope="module")
def stored() -> dict[str, Any]:
    return json.loads(REFERENCE.read_text(encoding="utf-8"))


def test_reference_validation_names_what_is_wrong(stored: dict[str, Any]) -> None:
    assert lt.validate_reference(stored) == []
    assert lt.validate_reference([]) == ["the reference is not a JSON object"]

    broken = copy.deepcopy(stored)
    del broken["cases"]["prr-chain-3hops"]
    broken["cases"]["bbr-p2p-per0"]["goodput_kbps"] += 5.0
    broken["cases"]["bbr-p2p-per0.01"]["goodput_kbps_per_seed"][2] = "fast"
    broken["cases"]["prr-p2p-per0"]["trace_seed1"]["cwnd"].pop()
    broken["cases"]["cubic-hystart-p2p-per0"]["ns3_args"] = ["--cc=cubic"]
    problems = lt.validate_reference(broken)
    assert "prr-chain-3hops: missing" in problems
    assert "bbr-p2p-per0: goodput_kbps is not the mean of its seeds" in problems
    assert "bbr-p2p-per0.01: goodput_kbps_per_seed is not a list of numbers" in problems
    assert "prr-p2p-per0: trace_seed1.cwnd does not have 301 points" in problems
    assert "cubic-hystart-p2p-per0: stored with other ns-3 arguments than the case has" in problems
    assert len(problems) == 5
    # Only the cases asked for must be there.
    assert lt.validate_reference(broken, [_case("prr-p2p-per0.01")]) == []


def test_loading_a_bad_reference_is_a_bench_error(tmp_path: Path) -> None:
    with pytest.raises(lt.BenchError, match="cannot read"):
        lt.load_reference(tmp_path / "absent.json")
    (tmp_path / "ref.json").write_text('{"ns3": "x"}', encoding="utf-8")
    with pytest.raises(lt.BenchError, match="missing 'settings'"):
        lt.load_reference(tmp_path / "ref.json")


def test_compact_json_keeps_the_data_and_puts_series_on_one_line() -> None:
    value = {"a": [1, 2.5, None], "b": {"c": "d", "e": [{"f": [1]}]}, "g": []}
    text = lt.compact_json(value)
    assert json.loads(text) == value
    assert '"a": [1, 2.5, null]' in text and '"f": [1]' in text


# --------------------------------------------------------------------------------------------
# Rows and the table


def test_rows_judge_the_ratio_against_ten_percent() -> None:
    case = _case("prr-p2p-per0.01")
    runs = [{"seed": 1, "goodput_kbps": 1000.0}, {"seed": 2, "goodput_kbps": 1200.0}]
    row = lt.compare_row(case, runs, 1000.0, "stored")
    assert row["airtcp_kbps"] == 1100.0 and row["ratio"] == pytest.approx(1.1)
    assert row["within_target"] is True and row["airtcp_seeds"] == [1, 2]
    assert lt.compare_row(case, runs[1:], 1000.0, "stored")["within_target"] is False
    assert lt.compare_row(case, [], 1000.0, "stored")["within_target"] is None
    assert lt.compare_row(case, runs, None, "live")["ratio"] is None


def test_the_markdown_table_marks_misses_skips_and_failures() -> None:
    rows = [
        lt.compare_row(_case("prr-p2p-per0"), [{"seed": 1, "goodput_kbps": 1890.0}], 1896.92, "stored"),
        lt.compare_row(_case("bbr-p2p-per0.05"), [{"seed": 1, "goodput_kbps": 1200.0}], 1736.5, "stored"),
        lt.compare_row(_case("bbr-chain-3hops"), [], 373.5, "stored",
                       skipped="airtcp: flows[0].transport.cc: must be 'reno', 'newreno', 'linux_reno', "
                       "'cubic', 'compound', 'vegas', 'fast' or 'quic_tcp', got 'bbr'"),
        lt.compare_row(_case("prr-chain-5hops"), [], None, "live", errors=["prr-chain-5hops ns-3 seed 1: boom\nmore"]),
    ]
    report = {
        "date": "2026-11-29",
        "config": {"seeds": 1, "p2p_duration_s": 20.0, "chain_duration_s": 20.0, "ns3": "stored"},
        "rows": rows,
        "plots": ["plots/prr-p2p-per0.png"],
    }
    text = lt.format_markdown(report)
    assert "| case | airtcp kbps | ns-3 kbps | ratio | within 10% |" in text
    assert "| prr-p2p-per0 | 1890.0 | 1896.9 | 0.996 | yes |" in text
    assert "| bbr-p2p-per0.05 | 1200.0 | 1736.5 | 0.691 | NO |" in text
    assert "| bbr-chain-3hops | n/a | 373.5 | n/a | skipped (airtcp: flows[0].transport.cc: must be" in text
    assert "...) |" in text
    assert "| prr-chain-5hops | n/a | n/a | n/a | failed |" in text
    assert "- prr-chain-5hops: prr-chain-5hops ns-3 seed 1: boom" in text
    assert "plots/prr-p2p-per0.png" in text


# --------------------------------------------------------------------------------------------
# Skipping what airtcp does not accept


def test_unsupported_settings_are_named_and_supported_ones_pass() -> None:
    scenario = ROOT / "bench" / "p2p_bench.yaml"
    assert lt.unsupported_reason(scenario, ["flows[0].transport.cc=cubic"]) is None
    reason = lt.unsupported_reason(scenario, ["flows[0].transport.cc=no_such_cc"])
    assert reason is not None and reason.startswith("flows[0].transport.cc:")
    reason = lt.unsupported_reason(scenario, ["flows[0].transport.no_such_field=1"])
    assert reason is not None and "unknown field" in reason


class _NoRuns(lt.Runner):
    def run_airtcp(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        raise AssertionError("a skipped case must not run airtcp")

    def run_ns3(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        raise AssertionError("a skipped case must not run ns-3")


def test_a_case_airtcp_refuses_is_skipped_with_the_stored_ns3_figure(
    tmp_path: Path, stored: dict[str, Any]
) -> None:
    case = lt.Case("bbr-p2p-per0.01", "bbr", "p2p", "BBR", "prr", ("--cc=bbr",),
                   ("flows[0].transport.cc=no_such_cc",), per=0.01)
    runner = _NoRuns(ROOT / "bench", ["airtcp"])
    report, ok = lt.compare(runner, [case], tmp_path, seeds=1, p2p_duration_s=20.0,
                            chain_duration_s=20.0, live=True, reference=stored)
    assert ok
    (row,) = report["rows"]
    assert row["skipped"].startswith("airtcp: flows[0].transport.cc:")
    assert row["ns3_kbps"] == stored["cases"]["bbr-p2p-per0.01"]["goodput_kbps"]
    assert row["within_target"] is None and report["plots"] == []
    assert json.loads((tmp_path / "linux_tcp.json").read_text(encoding="utf-8"))["rows"][0]["skipped"]
    assert "skipped (airtcp:" in (tmp_path / "linux_tcp.md").read_text(encoding="utf-8")


def test_the_chain_overrides_are_the_benchmark_s(tmp_path: Path) -> None:
    runner = lt.Runner(ROOT / "bench", ["airtcp"])
    sets = runner.overrides(_case("prr-chain-5hops"), 100.0)
    assert sets == ["topology.hops=5", "flows[0].dst=n5", "duration=100s", "flows[0].transport.recovery=prr"]
    sets = runner.overrides(_case("bbr-p2p-per0.02"), 200.0)
    assert sets == [
        "links[0].loss.per=0.02",
        "duration=200s",
        "flows[0].transport.ssthresh_basis=pipe",
        "flows[0].transport.cc=bbr",
    ]
    assert runner.scenario(_case("prr-chain-5hops")).name == "airtcp_chain.yaml"


# --------------------------------------------------------------------------------------------
# Command line


def test_the_cc_benchmark_hands_linux_to_this_module(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []
    monkeypatch.setattr(lt, "main", lambda argv: seen.append(list(argv)) or 0)
    assert bench_cc.main(["--quick", "--linux", "--cases", "prr"]) == 0
    assert seen == [["--quick", "--cases", "prr"]]


def test_options_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--cases", "bbr,nope"], ["--seeds", "0"], ["--update-reference", "--live"],
                 ["--duration", "-1"]):
        with pytest.raises(SystemExit) as stop:
            lt.main(argv)
        assert stop.value.code == 2
    assert lt.main(["--list", "--cases", "prr-p2p-per0"]) == 0
    assert capsys.readouterr().out.startswith("prr-p2p-per0: NewReno+SACK with PRR, p2p PER 0;")


# --------------------------------------------------------------------------------------------
# The comparison itself, against the stored ns-3 runs (airtcp runs its full form: 5 seeds,
# 200 s on the p2p case, well under a minute on two cores)


def test_airtcp_matches_the_stored_ns3_runs_within_ten_percent(tmp_path: Path) -> None:
    out = tmp_path / "lt"
    cases = "bbr-p2p-per0,bbr-p2p-per0.01,bbr-p2p-per0.05,prr-p2p-per0.005,prr-p2p-per0.02,cubic-hystart-p2p-per0.01"
    assert lt.main(["--cases", cases, "--no-plots", "--out", str(out)]) == 0
    rows = json.loads((out / "linux_tcp.json").read_text(encoding="utf-8"))["rows"]
    assert {row["case"] for row in rows} == set(cases.split(","))
    for row in rows:
        assert row["skipped"] is None, row
        assert abs(row["ratio"] - 1) <= 0.10, (row["case"], row["airtcp_kbps"], row["ns3_kbps"])
