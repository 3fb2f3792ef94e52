"""Sweeps answer every input: crashing workers, a killed or terminated sweep, absurd worker
counts, bad spec values and files, huge seeds and sweeps, damaged experiment folders, runs whose
packets do not add up."""

from __future__ import annotations

import faulthandler
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import airtcp.experiments.sweep
from airtcp.experiments.sweep import _execute as real_execute
from airtcp.experiments.sweep import _pool_size, run_sweep
from airtcp.errors import ScenarioError
from airtcp.experiments.spec import MAX_RUNS, load_sweep_spec
from support import EXAMPLES, run_cli

P2P = str(EXAMPLES / "p2p_lossy.yaml")
GRID = str(EXAMPLES / "grid_aodv.yaml")
U64_MAX = 2**64 - 1


def spec(**changes: Any) -> dict[str, Any]:
    """Four short runs (two losses x two seeds), about a tenth of a second each."""
    base: dict[str, Any] = {"base": P2P, "grid": {"duration": ["20s"], "links[0].loss.per": [0, 0.02]}, "seeds": 2}
    base.update(changes)
    return base


def write_spec(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "sweep.yaml"
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------------
# Stand-ins for the core, run in the worker processes (module level, so workers can import them)


def _seed(core_json: str) -> int:
    return int(json.loads(core_json)["seed"])


def abort_on_seed_2(core_json: str) -> dict[str, Any]:
    """The core aborting (SIGABRT) on one run."""
    if _seed(core_json) == 2:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file
        faulthandler.disable()  # nor a stack dump in the test output
        os.abort()
    return real_execute(core_json)


def exit_on_seed_2(core_json: str) -> dict[str, Any]:
    if _seed(core_json) == 2:
        os._exit(3)
    return real_execute(core_json)


def packets_lost_on_seed_2(core_json: str) -> dict[str, Any]:
    """Results of a run whose packet counts do not add up."""
    result = real_execute(core_json)
    if _seed(core_json) == 2:
        result["raw"]["conservation"] = {"created": 10, "delivered": 6, "dropped": 1, "in_flight": 2, "ok": False}
    return result


def runs_table(out: Path) -> pd.DataFrame:
    return pd.read_parquet(out / "runs.parquet")[["key", "seed", "status", "error"]]


# --------------------------------------------------------------------------------------------
# A run that kills its worker


@pytest.mark.parametrize(
    ("crash", "cause"),
    [(abort_on_seed_2, "worker process died (signal SIGABRT)"), (exit_on_seed_2, "worker process died (exit code 3)")],
    ids=["abort", "exit"],
)
def test_a_run_that_kills_its_worker_fails_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, crash: Any, cause: str
) -> None:
    """The two seed-2 runs kill their workers; the other two finish, with any number of workers,
    and the tables are the same for all of them."""
    monkeypatch.setattr(airtcp.experiments.sweep, "_execute", crash)
    tables = []
    for workers in (1, 2, 3):
        out = tmp_path / f"w{workers}"
        outcome = run_sweep(spec(), out, workers=workers, quiet=True)
        assert (outcome.executed, outcome.failed) == (4, 2), outcome.failures
        assert {error for _, error in outcome.failures} == {cause}
        tables.append(runs_table(out))
        assert list(tables[-1]["status"]) == ["done", "failed", "done", "failed"]
    pd.testing.assert_frame_equal(tables[0], tables[1])
    pd.testing.assert_frame_equal(tables[0], tables[2])

    monkeypatch.setattr(airtcp.experiments.sweep, "_execute", real_execute)
    outcome = run_sweep(spec(), tmp_path / "w2", workers=2, quiet=True)
    assert (outcome.executed, outcome.skipped, outcome.failed) == (2, 2, 0)


def _children(pid: int) -> list[int]:
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        if int(text[text.rindex(")") + 2 :].split()[1]) == pid:
            kids.append(int(stat.parent.name))
    return kids


def _running(pid: int) -> bool:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return text[text.rindex(")") + 2] != "Z"  # a zombie has exited


def _start_sweep(tmp_path: Path, duration: str, seeds: int, workers: int) -> tuple[subprocess.Popen[bytes], Path]:
    """`airtcp sweep` of AODV grids in the background, its stderr going to `tmp_path/stderr`
    (a file: workers that outlive the sweep would hold a pipe open)."""
    path = write_spec(tmp_path, json.dumps({"base": GRID, "grid": {"duration": [duration]}, "seeds": seeds}))
    out = tmp_path / "out"
    with open(tmp_path / "stderr", "wb") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", "airtcp", "sweep", str(path), "--out", str(out), "-j", str(workers), "--quiet"],
            stderr=stderr,
        )
    return proc, out


def _wait_for_workers(proc: subprocess.Popen[bytes], count: int) -> list[int]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        workers = _children(proc.pid)
        if len(workers) >= count:
            return workers
        time.sleep(0.05)
    raise AssertionError("the sweep started no workers")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
def test_workers_die_with_a_killed_sweep(tmp_path: Path) -> None:
    proc, _ = _start_sweep(tmp_path, "200s", seeds=4, workers=2)
    workers = _wait_for_workers(proc, 2)
    try:
        proc.kill()
        proc.wait(timeout=30)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(map(_running, workers)):
            time.sleep(0.05)
        assert not [pid for pid in workers if _running(pid)]
    finally:
        for pid in workers:
            if _running(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
def test_sigterm_stops_the_sweep_like_ctrl_c(tmp_path: Path) -> None:
    """Exit 130 without a traceback, promptly although a long run is in flight, its worker gone."""
    proc, out = _start_sweep(tmp_path, "2000s", seeds=2, workers=1)
    workers = _wait_for_workers(proc, 1)
    time.sleep(0.5)
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
    stderr = (tmp_path / "stderr").read_text()
    assert proc.returncode == 130, stderr
    assert time.monotonic() - sent < 10
    assert "Traceback" not in stderr
    assert "interrupted: finished runs are kept" in stderr
    assert not [pid for pid in workers if _running(pid)]
    assert (out / "manifest.json").is_file() and len(pd.read_parquet(out / "runs.parquet")) == 0


# --------------------------------------------------------------------------------------------
# Worker counts


def test_the_pool_has_no_more_workers_than_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sizes: list[int] = []

    class RecordingPool(airtcp.experiments.sweep.ProcessPoolExecutor):  # type: ignore[misc]
        def __init__(self, max_workers: int, **kwargs: Any):
            sizes.append(max_workers)
            super().__init__(max_workers=max_workers, **kwargs)

    monkeypatch.setattr(airtcp.experiments.sweep, "ProcessPoolExecutor", RecordingPool)
    outcome = run_sweep(spec(), tmp_path / "out", workers=100_000, quiet=True)
    assert outcome.executed == 4
    assert sizes == [4]


def test_pool_size_caps() -> None:
    cores = len(os.sched_getaffinity(0))
    assert _pool_size(None, 100_000) == cores
    assert _pool_size(None, 1) == 1
    assert _pool_size(3, 2) == 2
    assert _pool_size(100_000, 100_000) == airtcp.experiments.sweep.MAX_WORKERS_PER_CORE * cores


@pytest.mark.parametrize("workers", ["0", "-3"])
def test_fewer_than_one_worker_is_refused(tmp_path: Path, workers: str) -> None:
    out = tmp_path / "out"
    result = run_cli("sweep", write_spec(tmp_path, json.dumps(spec())), "--out", out, "--workers", workers)
    assert result.returncode == 2, result.stderr
    assert "error: --workers: " in result.stderr and f"got {workers}" in result.stderr, result.stderr
    assert not out.exists()


# --------------------------------------------------------------------------------------------
# Specs refused before anything runs

NESTED = "base: " + P2P + "\ngrid: {duration: " + "[" * 500 + "]" * 500 + "}\n"
REFUSED_SPECS = [
    ("grid:\n  links[0].loss.per: [0.01, 0.02, 0.01]", "sweep.grid.links[0].loss.per[2]: duplicate value 0.01 (already at [0])"),
    ("grid:\n  links[0].queue.packets: [20, 20.0]", "sweep.grid.links[0].queue.packets[1]: duplicate value 20.0 (already at [0])"),
    ("zip: {duration: [1s, 2s, 1s], seed: [1, 2, 1]}", "sweep.zip: row 2 repeats row 0"),
    ("grid: {duration: [2024-01-01]}", "sweep.grid.duration[0]: a date or time (2024-01-01) is not a value a field takes"),
    ("grid: {duration: [!!binary aGVsbG8=]}", "sweep.grid.duration[0]: binary data (!!binary) is not a value a field takes"),
    ("grid:\n  links[0].loss.per: [.nan]", "sweep.grid.links[0].loss.per[0]: nan is not a finite number"),
    ("grid:\n  links[0].loss: [{per: 0.1, 3: x}]", "sweep.grid.links[0].loss[0]: field names must be text, got 3"),
    ("grid: !!set {duration}", "sweep.grid: a set is not a value a field takes"),
    ("grid: {duration: {a: 1}}", "sweep.grid.duration: expected a list"),
    ("seeds: 1000000000", f"sweep: expands to 1,000,000,000 runs (grid x zip rows x seeds); a sweep has at most {MAX_RUNS:,}"),
    ("grid: {duration: [1s, 2s]}\nseeds: 600000", "sweep: expands to 1,200,000 runs"),
    (f"seeds: [1, {2**64}]", "sweep.seeds: seeds must be between 0 and 2^64-1"),
    # Beyond a float's range, beyond every field's: the duplicate check turned it into a float.
    (f"zip: {{duration: [{10**400}]}}", "sweep.zip.duration[0]: a whole number of 401 digits or so is beyond the range of every field"),
]


@pytest.mark.parametrize(("text", "expected"), REFUSED_SPECS, ids=[e[:48] for _, e in REFUSED_SPECS])
def test_bad_spec_values_exit_2_and_write_nothing(tmp_path: Path, text: str, expected: str) -> None:
    out = tmp_path / "out"
    result = run_cli("sweep", write_spec(tmp_path, f"base: {P2P}\n{text}\n"), "--out", out, "--quiet")
    assert result.returncode == 2, result.stderr
    assert f"error: {expected}" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"\xff\xfe\x00binary", "is not a text file (expected YAML in UTF-8)"),
        (NESTED.encode(), "nested too deeply"),
        (b"x" * (16 * 2**20 + 1), "larger than 16 MiB"),
        (None, "is a directory, not a sweep file"),
        (f"base: {P2P}\ngrid: {{seed: [1{'0' * 5000}]}}\n".encode(), "a whole number of 5001 digits at line 2, column 15"),
    ],
    ids=["binary", "nested", "huge", "directory", "long integer"],
)
def test_unusable_spec_files_exit_2(tmp_path: Path, content: bytes | None, expected: str) -> None:
    path = tmp_path / "sweep.yaml"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    result = run_cli("sweep", path, "--out", tmp_path / "out", "--quiet")
    assert result.returncode == 2, result.stderr
    assert f"error: {path}: {expected}" in result.stderr, result.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "expected a mapping of scenario fields at the top level, got nothing"),
        (b"- a\n- b\n", "expected a mapping of scenario fields at the top level, got a list"),
        (b"duration: [1s\n", "not valid YAML at line 2, column 1"),
        (b"\xff\xfe\x00binary", "is not a text file (expected YAML)"),
        (NESTED.encode(), "nested too deeply"),
    ],
    ids=["empty", "list", "broken", "binary", "nested"],
)
def test_a_base_file_that_is_no_scenario_is_refused_before_any_run(tmp_path: Path, content: bytes, expected: str) -> None:
    base = tmp_path / "base.yaml"
    base.write_bytes(content)
    out = tmp_path / "out"
    result = run_cli("sweep", write_spec(tmp_path, "base: base.yaml\nseeds: 2\n"), "--out", out, "--quiet")
    assert result.returncode == 2, result.stderr
    assert f"error: {base}: {expected}" in result.stderr, result.stderr
    assert not out.exists()


def test_large_distinct_values_are_not_duplicates() -> None:
    # As floats, 2^53 and 2^53 + 1 are equal; as seeds they are two runs.
    spec, _ = load_sweep_spec({"base": P2P, "grid": {"seed": [2**53, 2**53 + 1], "links[0].loss.per": [True, 1]}})
    assert spec.grid["seed"] == [2**53, 2**53 + 1]
    with pytest.raises(ScenarioError, match=r"sweep.grid.seed\[1\]: duplicate value 1.0 \(already at \[0\]\)"):
        load_sweep_spec({"base": P2P, "grid": {"seed": [1, 1.0]}})


def test_dev_zero_as_the_spec_is_refused(tmp_path: Path) -> None:
    result = run_cli("sweep", "/dev/zero", "--out", tmp_path / "out", "--quiet")
    assert result.returncode == 2, result.stderr
    assert "error: /dev/zero: is not a regular file (a device, pipe or socket)" in result.stderr


# --------------------------------------------------------------------------------------------
# Seeds up to 2^64-1


def test_the_largest_seeds_reach_the_tables(tmp_path: Path) -> None:
    out = tmp_path / "out"
    seeds = [U64_MAX, 2**63, 0]
    outcome = run_sweep(spec(seeds=seeds, grid={"duration": ["5s"]}), out, workers=1, quiet=True)
    assert (outcome.executed, outcome.failed) == (3, 0), outcome.failures
    runs = pd.read_parquet(out / "runs.parquet")
    assert [int(seed) for seed in runs["seed"]] == seeds
    assert sorted(int(s) for s in pd.read_parquet(out / "flows.parquet")["seed"]) == sorted(seeds)


# --------------------------------------------------------------------------------------------
# Damaged experiment folders


def test_damaged_run_records_are_run_again(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    run_sweep(spec(), out, workers=1, quiet=True)
    records = sorted((out / "runs").glob("*.json"))
    text = records[0].read_text()
    records[0].write_text(text[: len(text) // 2])  # cut short
    records[1].write_text("[]")
    other = json.loads(records[2].read_text())
    other["results"] = {"flows": "not a list"}
    records[2].write_text(json.dumps(other))
    capsys.readouterr()

    outcome = run_sweep(spec(), out, workers=1, quiet=True)
    assert (outcome.executed, outcome.skipped, outcome.failed) == (3, 1, 0)
    warnings = capsys.readouterr().err.splitlines()
    assert warnings == [
        f"warning: {records[0]}: damaged run record (not JSON, perhaps cut short); running it again",
        f"warning: {records[1]}: damaged run record (a list, not a record); running it again",
        f"warning: {records[2]}: damaged run record (results in an unexpected form); running it again",
    ]
    assert set(pd.read_parquet(out / "runs.parquet")["status"]) == {"done"}
    assert len(pd.read_parquet(out / "flows.parquet")) == 4


@pytest.mark.parametrize(("content", "problem"), [('{"spec": ', "not JSON"), ("[]", "not a sweep manifest")])
def test_a_damaged_manifest_is_refused_by_sweep_and_report(tmp_path: Path, content: str, problem: str) -> None:
    out = tmp_path / "out"
    path = write_spec(tmp_path, json.dumps(spec(seeds=1, grid={"duration": ["5s"]})))
    assert run_cli("sweep", path, "--out", out, "--quiet").returncode == 0
    (out / "manifest.json").write_text(content)
    before = {p.name: p.read_bytes() for p in (out / "runs").iterdir()}

    for result in (run_cli("sweep", path, "--out", out, "--quiet"), run_cli("report", out)):
        assert result.returncode == 2, result.stderr
        assert f"error: {out / 'manifest.json'}: damaged ({problem}); if this folder holds the same sweep, delete" \
            in result.stderr, result.stderr
        assert "Traceback" not in result.stderr
    assert {p.name: p.read_bytes() for p in (out / "runs").iterdir()} == before

    (out / "manifest.json").unlink()  # what the message advises
    result = run_cli("sweep", path, "--out", out)
    assert result.returncode == 0, result.stderr
    assert "0 executed, 1 already done" in result.stdout


def test_report_on_damaged_tables_is_bad_input(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_sweep(spec(seeds=1, grid={"duration": ["5s"]}), out, workers=1, quiet=True)
    (out / "runs.parquet").write_bytes(b"not parquet")
    result = run_cli("report", out)
    assert result.returncode == 2, result.stderr
    assert "run the sweep again to rebuild them" in result.stderr and "Traceback" not in result.stderr


# --------------------------------------------------------------------------------------------
# Packet conservation


def test_a_run_breaking_packet_conservation_fails_with_its_results_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(airtcp.experiments.sweep, "_execute", packets_lost_on_seed_2)
    out = tmp_path / "out"
    outcome = run_sweep(spec(grid={"duration": ["5s"]}), out, workers=2, quiet=True)
    message = "packet conservation violated: created 10 = delivered 6 + dropped 1 + in flight 2"
    assert not outcome.ok
    assert [error for _, error in outcome.failures] == [message]
    key = outcome.failures[0][0]
    record = json.loads((out / "runs" / f"{key}.json").read_text())
    assert (record["status"], record["error"]) == ("failed", message)
    assert record["results"]["flows"] and record["results"]["conservation"]["ok"] is False
    assert list(pd.read_parquet(out / "runs.parquet")["status"]) == ["done", "failed"]
    assert list(pd.read_parquet(out / "flows.parquet")["key"]) != [key]  # only the done run's flows
    assert key not in set(pd.read_parquet(out / "flows.parquet")["key"])
