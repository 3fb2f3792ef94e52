"""Helpers shared by the tests: paths, running the command line, fake core output."""

from __future__ import annotations

import contextlib
import copy
import html.parser
import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from airtcp import _core
from airtcp.errors import ScenarioError
from airtcp.scenario.schema import load_scenario

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "scenarios" / "examples"
P2P_LOSSY = EXAMPLES / "p2p_lossy.yaml"
DUMBBELL = EXAMPLES / "dumbbell.yaml"




def run_cli(*args: str | os.PathLike[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Runs `python -m airtcp ARGS` in a fresh interpreter, as a user would."""
    return subprocess.run(
        [sys.executable, "-m", "airtcp", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"},
    )


class CliResult(NamedTuple):
    """What `invoke_cli` saw: the exit code, each stream, and both as they were written."""

    exit_code: int
    stdout: str
    stderr: str
    output: str


class _Both(io.StringIO):
    """One of the two streams, copying what it is given to `both` as well."""

    def __init__(self, both: io.StringIO) -> None:
        super().__init__()
        self.both = both

    def write(self, text: str) -> int:
        self.both.write(text)
        return super().write(text)


def invoke_cli(*args: str | os.PathLike[str]) -> CliResult:
    """Runs `airtcp ARGS` in this interpreter (`airtcp.cli.main`), so that the test's
    monkeypatches apply, and catches the exit that ends it."""
    from airtcp.cli import main

    both = io.StringIO()
    stdout, stderr = _Both(both), _Both(both)
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr), pytest.raises(SystemExit) as exited:
        main([str(arg) for arg in args])
    code = exited.value.code
    assert isinstance(code, int), f"exit with {code!r}"
    return CliResult(code, stdout.getvalue(), stderr.getvalue(), both.getvalue())


def assert_run_refused(scenario: Path, overrides: str | list[str], expected: str, out: Path) -> None:
    """`airtcp run SCENARIO --set OVERRIDE ...` exits 2 with `error: EXPECTED` and writes nothing."""
    sets = [item for override in ([overrides] if isinstance(overrides, str) else overrides) for item in ("--set", override)]
    result = run_cli("run", scenario, "--out", out, *sets)
    assert result.returncode == 2, result.stderr
    assert f"error: {expected}" in result.stderr, result.stderr
    assert not out.exists()


def minimal_scenario(**changes: Any) -> dict[str, Any]:
    """A small valid scenario in the file's form (two nodes, one link, one TCP flow)."""
    scenario: dict[str, Any] = {
        "name": "small",
        "duration": "10s",
        "seed": 7,
        "nodes": ["A", "B"],
        "links": [{"from": "A", "to": "B", "rate": "2Mbps", "delay": "20ms"}],
        "flows": [
            {
                "id": "f1",
                "src": "A",
                "dst": "B",
                "app": {"kind": "bulk"},
                "transport": {"kind": "tcp"},
            }
        ],
    }
    scenario.update(changes)
    return copy.deepcopy(scenario)


def fake_core_output(name: str = "small", seed: int = 7) -> dict[str, Any]:
    """Results shaped like the core's `RunResults`, for testing without the engine."""
    return {
        "name": name,
        "seed": seed,
        "duration_s": 10.0,
        "flows": [
            {
                "id": "f1",
                "src": "A",
                "dst": "B",
                "transport": "tcp",
                "cc": "newreno",
                "sack": True,
                "start_s": 0.0,
                "stop_s": 10.0,
                "bytes_delivered": 2_000_000,
                "goodput_bps": 1_600_000.0,
                "completion_s": None,
                "packets_sent": 2100,
                "retransmissions": 12,
                "recoveries": 5,
                "timeouts": 1,
                "mean_rtt_s": 0.061,
            }
        ],
        "jain": 1.0,
        "drops": [{"queue": "A->B", "reason": "corrupted", "packets": 12}],
        "queues": [
            {"queue": "A->B", "enqueued": 2100, "transmitted": 2100, "max_backlog": 37},
            {"queue": "B->A", "enqueued": 1050, "transmitted": 1050, "max_backlog": 1},
        ],
        "conservation": {"created": 3150, "delivered": 3130, "dropped": 12, "in_flight": 8, "ok": True},
        "timeseries": {
            "goodput": {
                "flow": ["f1"] * 3,
                "t_s": [0.0, 1.0, 2.0],
                "goodput_bps": [1_000_000.0, 1_800_000.0, 1_900_000.0],
            },
            "rtt": {"flow": [], "t_s": [], "rtt_s": [], "srtt_s": []},
            "cwnd": {"flow": [], "t_s": [], "cwnd": [], "ssthresh": [], "in_flight": []},
        },
        "timing": {
            "wall_s": 0.012,
            "events": 45_000,
            "events_per_s": 3_750_000.0,
            "setup_s": 0.001,
            "results_s": 0.0005,
        },
    }


def error_of(source: Any, *overrides: str) -> ScenarioError:
    """The `ScenarioError` loading `source` (with `--set`-style `overrides`) raises."""
    with pytest.raises(ScenarioError) as caught:
        load_scenario(source, overrides=overrides)
    return caught.value


def table_cells(page: str) -> list[str]:
    """The text of every `<td>` of an HTML page, tags inside a cell dropped."""

    class Cells(html.parser.HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.cells: list[str] = []
            self.depth = 0

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag == "td":
                self.cells.append("")
                self.depth += 1

        def handle_endtag(self, tag: str) -> None:
            if tag == "td":
                self.depth -= 1

        def handle_data(self, data: str) -> None:
            if self.depth:
                self.cells[-1] += data

    parser = Cells()
    parser.feed(page)
    return parser.cells
