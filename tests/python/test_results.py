"""Results: tables, summary, and writing a results directory (without the engine)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import airtcp.results
from airtcp.atomic_dir import OutputDirError
from airtcp.scenario.schema import load_scenario, to_core_dict
from airtcp.report import format_report
from airtcp.results import TABLES, Results, indented_json
from support import fake_core_output, minimal_scenario

# The fake run's tables with rows (no radio, downlink, coding or traces: those get no file).
EXPECTED_FILES = {"summary.json", "timing.json", *(f"{name}.parquet" for name in ("flows", "drops", "queues", "goodput"))}


def make_results(raw: dict[str, Any] | None = None) -> Results:
    return Results(raw or fake_core_output(), scenario=to_core_dict(load_scenario(minimal_scenario())))


def test_summary_excludes_timing_and_timeseries_and_includes_the_scenario() -> None:
    summary = make_results().summary
    assert "timing" not in summary and "timeseries" not in summary
    assert summary["scenario"]["duration"] == 10_000_000_000
    assert summary["flows"][0]["goodput_bps"] == 1_600_000.0
    assert summary["conservation"]["ok"] is True


def test_tables() -> None:
    results = make_results()
    flows = results.flows
    assert list(flows["id"]) == ["f1"]
    assert flows.loc[0, "retransmissions"] == 12
    assert list(results.goodput.columns) == ["flow", "t_s", "goodput_bps"]
    assert len(results.goodput) == 3
    assert list(results.drops["reason"]) == ["corrupted"]
    assert list(results.queues["queue"]) == ["A->B", "B->A"]
    assert results.rtt.empty and list(results.rtt.columns) == ["flow", "t_s", "rtt_s", "srtt_s"]
    assert results.cwnd.empty
    assert results.timing == {
        "wall_s": 0.012,
        "events": 45_000,
        "events_per_s": 3_750_000.0,
        "setup_s": 0.001,
        "results_s": 0.0005,
    }


def test_empty_tables_keep_their_columns_and_extra_columns_pass_through() -> None:
    raw = fake_core_output()
    raw["flows"] = []
    raw["drops"] = []
    raw["queues"][0]["new_counter"] = 5
    results = make_results(raw)
    assert results.flows.empty
    assert "goodput_bps" in results.flows.columns
    assert list(results.queues["new_counter"].fillna(-1)) == [5, -1]


def test_write_produces_a_file_per_table_with_rows(tmp_path: Path) -> None:
    out = make_results().write(tmp_path / "run")
    assert {p.name for p in out.iterdir()} == EXPECTED_FILES
    summary = json.loads((out / "summary.json").read_text())
    assert summary["name"] == "small" and "scenario" in summary
    timing = json.loads((out / "timing.json").read_text())
    assert set(timing) == {"wall_s", "events", "events_per_s", "setup_s", "results_s"}
    flows = pq.read_table(out / "flows.parquet")
    assert flows.column("id").to_pylist() == ["f1"]
    assert flows.schema.field("completion_s").type == "double"  # typed even when all null
    assert pq.read_table(out / "goodput.parquet").num_rows == 3
    assert not (out / "cwnd.parquet").exists() and "cwnd" in TABLES  # empty: no file


def test_summary_json_bytes_are_stable(tmp_path: Path) -> None:
    first = make_results().write(tmp_path / "a")
    shuffled = dict(reversed(list(fake_core_output().items())))  # same content, other key order
    shuffled["timing"] = {"wall_s": 9.9, "events": 45_000, "events_per_s": 4545.4}  # timing differs
    second = make_results(shuffled).write(tmp_path / "b")
    assert (first / "summary.json").read_bytes() == (second / "summary.json").read_bytes()
    assert (first / "timing.json").read_bytes() != (second / "timing.json").read_bytes()
    text = (first / "summary.json").read_text()
    assert text.endswith("}\n") and '\n  "conservation": {' in text  # indent=2, sorted keys


def siblings(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def fail_on_third_table(monkeypatch: pytest.MonkeyPatch) -> None:
    real_write = airtcp.results._core.write_parquet
    calls = []

    def flaky_write(where: Any, columns: Any) -> None:
        calls.append(where)
        if len(calls) == 3:
            raise OSError("disk full")
        real_write(where, columns)

    monkeypatch.setattr(airtcp.results._core, "write_parquet", flaky_write)


def test_a_failed_write_leaves_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fail_on_third_table(monkeypatch)
    with pytest.raises(OSError, match="disk full"):
        make_results().write(tmp_path / "deeper" / "run")
    assert siblings(tmp_path) == []  # neither the directory, its parent nor a temporary one


def test_a_failed_forced_write_keeps_the_old_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / "old.txt").write_text("previous run")
    fail_on_third_table(monkeypatch)
    with pytest.raises(OSError):
        make_results().write(out, force=True)
    assert siblings(tmp_path) == ["run"]
    assert siblings(out) == ["old.txt"]


def test_existing_output_needs_force(tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    make_results().write(out)  # an empty directory is fine
    with pytest.raises(OutputDirError, match="not empty"):
        make_results().write(out)
    (out / "stale.txt").write_text("x")
    make_results().write(out, force=True)
    assert {p.name for p in out.iterdir()} == EXPECTED_FILES
    assert siblings(tmp_path) == ["run"]


def test_output_must_be_a_directory(tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x")
    with pytest.raises(OutputDirError, match="not a directory"):
        make_results().write(target, force=True)


def test_report_lists_flows_and_checks() -> None:
    results = make_results()
    report = format_report(results.summary, results.timing)
    assert "f1" in report and "tcp/newreno+sack" in report
    assert "1600.0" in report  # goodput in kbps
    assert "Jain fairness index: 1.0000" in report
    assert "conservation: created 3150 = delivered 3130 + dropped 12 + in flight 8: ok" in report
    assert "events: 45000" in report and "3.75M events/s" in report


def test_retired_packets_appear_in_the_conservation_lines_only_when_there_are_some() -> None:
    raw = fake_core_output()
    raw["conservation"] = {"created": 3160, "delivered": 3130, "dropped": 12, "retired": 10, "in_flight": 8, "ok": True}
    report = format_report(make_results(raw).summary, {})
    assert "created 3160 = delivered 3130 + dropped 12 + retired 10 + in flight 8: ok" in report
    raw["conservation"]["ok"] = False
    assert make_results(raw).conservation_problem == (
        "packet conservation violated: created 3160 = delivered 3130 + dropped 12 + retired 10 + in flight 8"
    )
    raw["conservation"].pop("retired")
    assert "retired" not in (make_results(raw).conservation_problem or "")


# --- summary.json's encoder --------------------------------------------------------------------

_SCALAR = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(st.sampled_from(['a', '"', "\\", "\n", "{", "}", ",", "é", "\U0001F600", "\x00"]) | st.characters(), max_size=6)
)
_RECORD = st.dictionaries(st.text(max_size=4), _SCALAR, min_size=0, max_size=4)
_SUMMARY_LIKE = st.recursive(
    _SCALAR | _RECORD,
    lambda inner: st.lists(inner, max_size=4) | st.lists(_RECORD, max_size=5) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=40,
)


@settings(max_examples=500, deadline=None)
@given(_SUMMARY_LIKE)
def test_indented_json_is_json_dumps_byte_for_byte(value: Any) -> None:
    assert indented_json(value) == json.dumps(value, sort_keys=True, indent=2)


@pytest.mark.parametrize(
    "value",
    [{"a": (1, 2)}, {1: "int key"}, {"a": {2: 1, 3: 4}}, [{"a": 1}, {}], [{"b": 1}, {"a": [1]}], [{"a": True}, 1]],
)
def test_indented_json_leaves_odd_data_to_the_json_module(value: Any) -> None:
    assert indented_json(value) == json.dumps(value, sort_keys=True, indent=2)
