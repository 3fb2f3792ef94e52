"""Whole runs through the simulator core (skipped while the core is a stub)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import airtcp
from airtcp import _core
from airtcp.results import TABLES
from support import DUMBBELL, P2P_LOSSY, minimal_scenario, run_cli



def test_cli_run_writes_everything(tmp_path: Path) -> None:
    out = tmp_path / "p2p"
    result = run_cli("run", P2P_LOSSY, "--out", out)
    assert result.returncode == 0, result.stderr
    # A file per table with rows; the point-to-point run has no radio, downlink, coding or traces.
    written = {p.name for p in out.iterdir()}
    assert written == {"summary.json", "timing.json", *(f"{t}.parquet" for t in ("flows", "drops", "queues", "goodput"))}
    assert set(TABLES) >= {"links", "downlink", "rtt", "cwnd"}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["flows"][0]["goodput_bps"] > 0
    assert summary["conservation"]["ok"] is True
    assert summary["scenario"]["links"][0]["rate"] == 2_000_000
    for fragment in ("f1", "tcp/newreno+sack", "Jain fairness index", "conservation:", "events:", "events/s"):
        assert fragment in result.stdout
    timing = json.loads((out / "timing.json").read_text())
    assert timing["events"] > 0 and timing["wall_s"] >= 0

    plotted = run_cli("plot", out)
    assert plotted.returncode == 0, plotted.stderr
    assert (out / "goodput.png").stat().st_size > 0


def test_quiet_prints_nothing(tmp_path: Path) -> None:
    result = run_cli("run", P2P_LOSSY, "--out", tmp_path / "q", "--quiet", "--set", "duration=20s")
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""


def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path: Path) -> None:
    outputs = {}
    for label, seed in (("a", "3"), ("b", "3"), ("c", "4")):
        result = run_cli("run", P2P_LOSSY, "--out", tmp_path / label, "--seed", seed, "--quiet")
        assert result.returncode == 0, result.stderr
        outputs[label] = (tmp_path / label / "summary.json").read_bytes()
    assert outputs["a"] == outputs["b"]
    assert outputs["a"] != outputs["c"]


def test_force_replaces_previous_results(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert run_cli("run", P2P_LOSSY, "--out", out, "-q", "--set", "duration=5s").returncode == 0
    assert run_cli("run", P2P_LOSSY, "--out", out, "-q", "--set", "duration=6s").returncode == 2
    assert run_cli("run", P2P_LOSSY, "--out", out, "-q", "--set", "duration=6s", "--force").returncode == 0
    assert json.loads((out / "summary.json").read_text())["duration_s"] == 6.0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


def test_run_a_dict() -> None:
    results = airtcp.run(minimal_scenario())
    flows = results.flows
    assert list(flows["id"]) == ["f1"]
    assert flows.loc[0, "goodput_bps"] > 0
    assert results.summary["conservation"]["ok"] is True
    assert not results.goodput.empty


def test_run_with_seed_and_overrides_matches_the_cli_form() -> None:
    results = airtcp.run(P2P_LOSSY, seed=2, overrides=["duration=20s", "metrics.trace_rtt=true", "metrics.trace_cwnd=true"])
    assert results.summary["seed"] == 2
    assert results.summary["duration_s"] == 20.0
    assert not results.rtt.empty and not results.cwnd.empty


def test_dumbbell_shares_the_bottleneck() -> None:
    results = airtcp.run(DUMBBELL)
    flows = results.flows.set_index("id")
    assert list(flows.index) == ["reno", "newreno-sack", "cbr"]
    assert (flows["goodput_bps"] > 0).all()
    assert flows["goodput_bps"].sum() <= 1_000_000  # the bottleneck's line rate
    assert 0 < results.summary["jain"] <= 1
    assert results.summary["conservation"]["ok"] is True


def test_parallel_runs_are_deterministic() -> None:
    # The core releases the GIL; concurrent runs must not influence each other.
    expected = airtcp.run(P2P_LOSSY, overrides=["duration=30s"]).summary_json()
    outputs: list[str] = []

    def worker() -> None:
        outputs.append(airtcp.run(P2P_LOSSY, overrides=["duration=30s"]).summary_json())

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outputs == [expected] * 4



def test_the_gil_is_released_while_simulating() -> None:
    # A 100 Mbps link for 60 s: about a million packet-hops, long enough to observe.
    scenario = minimal_scenario()
    scenario["duration"] = "60s"
    scenario["links"][0]["rate"] = "100Mbps"
    core_json = airtcp.to_core_json(airtcp.load_scenario(scenario))
    window: list[float] = []

    def worker() -> None:
        start = time.perf_counter()
        _core.simulate_json(core_json)
        window.extend([start, time.perf_counter()])

    thread = threading.Thread(target=worker)
    thread.start()
    ticks: list[float] = []
    while thread.is_alive():
        ticks.append(time.perf_counter())
    thread.join()
    start, end = window
    assert end - start > 0.05, "simulation too short to tell"
    # With the GIL held the main thread could not run at all inside the call.
    inside = [t for t in ticks if start + 0.01 < t < end - 0.01]
    assert len(inside) > 100
