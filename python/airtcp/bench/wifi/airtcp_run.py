"""The airtcp side: one `airtcp run` of a template, measured as a whole command (wall and CPU
time, peak RSS) and read back from its results."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from airtcp.bench.ab import results_digest
from airtcp.bench.harness import BenchError, tail, timed

from .common import seed_runs

AIRTCP_TIMEOUT_S = 3600.0


def _run_measured(
    cmd: Sequence[str], timeout: float
) -> tuple[int, str, str, float, float, int | None]:
    """Runs cmd; returns its exit code, stdout, stderr, wall time, CPU time and peak RSS (KiB).

    `os.wait4` gives the usage of this one process (getrusage's RUSAGE_CHILDREN would give the
    largest RSS of every child so far, ns-3's included). Output goes to temporary files, so a
    large output cannot block the child while nothing reads the pipe.
    """
    if not hasattr(os, "wait4"):
        proc, wall, cpu = timed(cmd)
        return proc.returncode, proc.stdout, proc.stderr, wall, cpu, None
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(list(cmd), stdout=out, stderr=err)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        proc.returncode = code  # reaped here; keeps Popen from waiting again
        if wall >= timeout and code < 0:
            raise subprocess.TimeoutExpired(list(cmd), timeout)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    # Linux reports ru_maxrss in KiB, macOS in bytes.
    rss = usage.ru_maxrss // 1024 if sys.platform == "darwin" else usage.ru_maxrss
    return code, stdout, stderr, wall, usage.ru_utime + usage.ru_stime, int(rss)


def run_airtcp(
    command: Sequence[str],
    scenario: Path,
    out_dir: Path,
    *,
    seed: int,
    sets: Sequence[str] = (),
    timeout: float = AIRTCP_TIMEOUT_S,
) -> dict[str, Any]:
    """One `airtcp run`; its goodputs, simulation-loop and command cost, drops and queue peak."""
    cmd = [*command, "run", str(scenario), "--out", str(out_dir), "--force", "--quiet"]
    cmd += ["--seed", str(seed)]
    for setting in sets:
        cmd += ["--set", setting]
    code, stdout, stderr, wall, cpu, rss = _run_measured(cmd, timeout)
    if code != 0:
        raise BenchError(
            f"airtcp run {scenario.name} {' '.join(cmd[len(command) + 2 :])} exited with "
            f"{code}: {tail(stderr or stdout)}"
        )
    try:
        summary = json.loads((out_dir / "summary.json").read_text(encoding="utf-8"))
        timing = json.loads((out_dir / "timing.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise BenchError(f"airtcp wrote no readable summary.json/timing.json in {out_dir}: {error}")
    flows = [
        {
            key: flow.get(key)
            for key in (
                "id",
                "src",
                "dst",
                "start_s",
                "goodput_bps",
                "bytes_delivered",
                "retransmissions",
                "timeouts",
            )
        }
        for flow in summary.get("flows") or []
    ]
    drops: dict[str, int] = {}
    for row in summary.get("drops") or []:
        drops[row["reason"]] = drops.get(row["reason"], 0) + int(row.get("packets", 0))
    queues = summary.get("queues") or []
    return {
        "seed": seed,
        "sets": list(sets),
        # Each flow's goodput is over [its start, the end of the run], as ns-3's is.
        "goodput_bps": sum(float(f["goodput_bps"] or 0.0) for f in flows),
        "flows": flows,
        "sim_wall_s": timing.get("wall_s"),
        # The core's own set-up (building the world) and gathering of results, where it says.
        "core_setup_s": timing.get("setup_s"),
        "core_results_s": timing.get("results_s"),
        "events": timing.get("events"),
        "cmd_wall_s": wall,
        "cmd_cpu_s": cpu,
        "peak_rss_kib": rss,
        "drops": drops,
        "radio_transmitted": sum(int(q.get("transmitted", 0)) for q in queues),
        "queue_peak": max((int(q.get("max_backlog", 0)) for q in queues), default=None),
        "jain": summary.get("jain"),
        "results_digest": results_digest(out_dir / "summary.json"),
    }


def airtcp_seed_runs(
    command: Sequence[str],
    template: Path,
    runs_dir: Path,
    what: str,
    *,
    seeds: int,
    sets: Sequence[str],
    errors: list[str],
) -> list[dict[str, Any]]:
    """`airtcp run TEMPLATE --set SETS` for seeds 1..seeds, into `RUNS_DIR/seed-S`; the runs that
    succeeded."""
    return seed_runs(
        what,
        seeds,
        lambda seed: run_airtcp(
            command, template, runs_dir / f"seed-{seed}", seed=seed, sets=sets
        ),
        errors,
    )
