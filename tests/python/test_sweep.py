"""Sweeps: spec checking, expansion, the local pool, resuming after an interrupt, failed runs."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from airtcp.errors import ScenarioError
from airtcp.experiments.sweep import run_sweep
from airtcp.experiments.spec import expand, load_sweep_spec
from support import EXAMPLES, run_cli

P2P = str(EXAMPLES / "p2p_lossy.yaml")
GRID = str(EXAMPLES / "grid_aodv.yaml")


def spec(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": "small",
        "base": P2P,
        "grid": {"links[0].loss.per": [0, 0.02], "flows[0].transport.cc": ["reno", "cubic"]},
        "seeds": 3,
    }
    base.update(changes)
    return base


def write_spec(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "sweep.yaml"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_expansion_is_grid_then_zip_then_seeds() -> None:
    s, _ = load_sweep_spec(spec(grid={"a": [1, 2]}, zip={"b": [3, 4], "c": [5, 6]}, seeds=[7, 8]))
    points = [(dict(p.params), p.seed) for p in expand(s)]
    assert points[:3] == [({"a": 1, "b": 3, "c": 5}, 7), ({"a": 1, "b": 3, "c": 5}, 8), ({"a": 1, "b": 4, "c": 6}, 7)]
    assert len(points) == 2 * 2 * 2
    assert len({p.key for p in expand(s)}) == 8


BAD_SPECS = [
    ({"grid": {"links[0].loss.per": []}}, "sweep.grid: links[0].loss.per: needs at least one value"),
    ({"seeds": 0}, "sweep.seeds: a count must be at least 1, got 0"),
    ({"seeds": [1, 1]}, "sweep.seeds: seeds must be distinct"),
    ({"zip": {"a": [1], "b": [1, 2]}}, "sweep.zip: every list needs the same length (a: 1, b: 2)"),
    ({"base": "missing.yaml"}, "sweep.base: no such scenario file 'missing.yaml'"),
    ({"grids": {}}, "sweep.grids: unknown field"),
]


@pytest.mark.parametrize(("change", "expected"), BAD_SPECS, ids=[e for _, e in BAD_SPECS])
def test_malformed_specs_exit_2_and_write_nothing(tmp_path: Path, change: dict[str, Any], expected: str) -> None:
    out = tmp_path / "out"
    result = run_cli("sweep", write_spec(tmp_path, spec(**change)), "--out", out, "--quiet")
    assert result.returncode == 2, result.stderr
    assert f"error: {expected}" in result.stderr, result.stderr
    assert not out.exists()


def test_pool_size_does_not_change_results(tmp_path: Path) -> None:
    """2 parameters x 2 values x 3 seeds: the same tables with one worker and with two."""
    tables = []
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        outcome = run_sweep(spec(), out, workers=workers, quiet=True)
        assert (outcome.total, outcome.executed, outcome.failed) == (12, 12, 0)
        tables.append(pd.read_parquet(out / "flows.parquet").drop(columns=[]))
    pd.testing.assert_frame_equal(tables[0], tables[1])
    runs = pd.read_parquet(tmp_path / "w1" / "runs.parquet")
    assert list(runs["seed"]) == [1, 2, 3] * 4
    assert set(runs["status"]) == {"done"}
    # Other seeds, other losses: the runs differ.
    assert tables[0]["goodput_bps"].nunique() > 6


def test_an_interrupted_sweep_resumes_without_recomputing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    finished: list[str] = []

    def stop_after_five(record: dict[str, Any]) -> None:
        finished.append(record["key"])
        if len(finished) == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_sweep(spec(), out, workers=1, quiet=True, on_record=stop_after_five)
    assert len(list((out / "runs").glob("*.json"))) == 5
    assert not list(out.glob(".*.tmp")) and not list((out / "runs").glob(".*.tmp"))
    assert len(pd.read_parquet(out / "runs.parquet")) == 5  # the tables hold what finished

    executed: list[str] = []
    outcome = run_sweep(spec(), out, workers=1, quiet=True, on_record=lambda r: executed.append(r["key"]))
    assert (outcome.executed, outcome.skipped, outcome.failed) == (7, 5, 0)
    assert not set(executed) & set(finished)
    runs = pd.read_parquet(out / "runs.parquet")
    assert len(runs) == 12 and runs["key"].is_unique
    assert len(pd.read_parquet(out / "flows.parquet")) == 12


def test_sigterm_mid_sweep_leaves_a_resumable_folder(tmp_path: Path) -> None:
    """A real process stopped by SIGTERM while its runs are under way (each a 10 x 10 AODV
    grid, about half a second)."""
    out = tmp_path / "out"
    path = write_spec(tmp_path, {"base": GRID, "grid": {"duration": ["20s"]}, "seeds": 8})
    proc = subprocess.Popen(
        [sys.executable, "-m", "airtcp", "sweep", str(path), "--out", str(out), "-j", "1", "--quiet"],
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list((out / "runs").glob("*.json"))) < 2:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
    assert proc.returncode != 0
    before = {p.name for p in (out / "runs").glob("*.json")}
    assert 2 <= len(before) < 8
    for record in (out / "runs").glob("*.json"):
        assert json.loads(record.read_text())["status"] == "done"  # every record is whole
    result = run_cli("sweep", path, "--out", out, "--quiet")
    assert result.returncode == 0, result.stderr
    runs = pd.read_parquet(out / "runs.parquet")
    assert len(runs) == 8 and runs["key"].is_unique


def test_a_failing_point_is_recorded_and_the_rest_finish(tmp_path: Path) -> None:
    out = tmp_path / "out"
    path = write_spec(tmp_path, spec(grid={"links[0].loss.per": [0.01, 1.5]}, seeds=2))
    result = run_cli("sweep", path, "--out", out, "--quiet")
    assert result.returncode == 1, result.stderr
    assert "failed: run" in result.stderr and "links[0].loss.per" in result.stderr
    runs = pd.read_parquet(out / "runs.parquet")
    assert list(runs["status"]) == ["done", "done", "failed", "failed"]
    assert runs["error"].iloc[2].startswith("links[0].loss.per: ")
    # Fixing nothing and running again retries only the failed ones.
    outcome = run_sweep(path, out, workers=1, quiet=True)
    assert (outcome.executed, outcome.skipped, outcome.failed) == (0, 2, 2)


def test_a_folder_holding_another_sweep_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_sweep(spec(seeds=1, grid={"links[0].loss.per": [0]}), out, quiet=True)
    with pytest.raises(ScenarioError, match="holds a different sweep"):
        run_sweep(spec(seeds=2, grid={"links[0].loss.per": [0]}), out, quiet=True)


def test_a_dask_cluster_gives_the_local_pool_results(tmp_path: Path) -> None:
    """The same 2 x 2 x 3 sweep on a `distributed.LocalCluster` (two worker processes)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        outcome = run_sweep(spec(), tmp_path / "dask", cluster=cluster.scheduler_address, quiet=True)
    assert (outcome.total, outcome.executed, outcome.failed) == (12, 12, 0)
    run_sweep(spec(), tmp_path / "pool", workers=2, quiet=True)
    pd.testing.assert_frame_equal(
        pd.read_parquet(tmp_path / "dask" / "flows.parquet"), pd.read_parquet(tmp_path / "pool" / "flows.parquet")
    )


def test_an_unreachable_cluster_is_bad_input(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    result = run_cli("sweep", write_spec(tmp_path, spec(seeds=1)), "--out", tmp_path / "out",
                     "--cluster", "tcp://127.0.0.1:9", "--quiet")
    assert result.returncode == 2, result.stderr
    assert "error: --cluster: cannot reach tcp://127.0.0.1:9" in result.stderr
    assert not (tmp_path / "out").exists()


def test_the_progress_bar_shows_the_share_of_finished_runs() -> None:
    from airtcp.experiments.sweep import _Progress

    progress = _Progress(total=12, quiet=True)
    assert progress.bar(0, width=12) == "[------------]"
    assert progress.bar(5, width=12) == "[#####-------]"
    assert progress.bar(12, width=12) == "[############]"
    assert _Progress(total=0, quiet=True).bar(0, width=4) == "[####]"
