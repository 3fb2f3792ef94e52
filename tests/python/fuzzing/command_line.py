"""The invariants of the `airtcp` command: `validate`, `run` and `sweep` on fuzzed files.

Exit 0 with the output written (`summary.json` marked valid, a sweep's manifest and tables), or
exit 2 with every stderr line `error: <path>: <message>` and no output directory; never a
traceback. `validate` and `run` must agree. A run violating packet conservation exits 1 with
`error: packet conservation violated: ...`, which is itself a bug to report.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from fuzzing.outcomes import Outcome, agreement

AIRTCP = str(Path(sys.executable).with_name("airtcp"))
ERROR_LINE = re.compile(r"^error: (\S.*?): (.+)$")
FAILED_RUN_LINE = re.compile(r"^failed: run [0-9a-f]{16}: (.+)$")
# A run refused inside a sweep: the core's refusal as the worker saw it, or the scenario's errors.
REFUSED_RUN = re.compile(r"^(ValueError: )?[A-Za-z_][\w.\[\]]*: .+$")


@dataclass
class Finished:
    """A command's exit code and output; `code` None when it was stopped at its time limit."""

    code: int | None
    stdout: str
    stderr: str


def run_bounded(args: list[str], cwd: Path, timeout_s: float) -> Finished:
    """Runs the command in a session of its own, so that at the time limit it is killed with
    every process it started (a sweep's workers)."""
    process = subprocess.Popen(
        args, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True, env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"},
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout_s)
        code: int | None = process.returncode
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        code = None
    return Finished(code, stdout.decode("utf-8", "replace"), stderr.decode("utf-8", "replace"))


def _common_failure(finished: Finished, what: str) -> Outcome | None:
    """What every command must avoid: a traceback, a panic, dying."""
    if "PanicException" in finished.stderr or "panicked at" in finished.stderr:
        return Outcome("panic", f"{what}: {finished.stderr[-2000:]}")
    if "Traceback (most recent call last)" in finished.stderr:
        return Outcome("traceback", f"{what}: {finished.stderr[-3000:]}")
    if finished.code is not None and finished.code < 0:
        return Outcome("abort", f"{what} died (signal {signal.Signals(-finished.code).name}): {finished.stderr[-2000:]}")
    return None


def _refusal(finished: Finished, what: str, out: Path | None, file: Path) -> Outcome:
    """Exit 2: every stderr line in the error form, nothing written. A refusal naming one of the
    case's files (the scenario, a spec or the base beside it) is counted under `<file>`."""
    lines = finished.stderr.splitlines()
    bad = [line for line in lines if not ERROR_LINE.match(line)]
    if not lines or bad:
        return Outcome("error_form", f"{what} exit 2 with stderr lines not 'error: <path>: <message>': {bad[:3] or lines!r}"[:2000])
    if out is not None and out.exists():
        return Outcome("output_left", f"{what} refused the input but left {out}: {lines[0]}")
    path = ERROR_LINE.match(lines[0])[1]  # type: ignore[index]
    return Outcome("refused", finished.stderr.strip()[:2000], path="<file>" if path.startswith(str(file.parent)) else path)


def _failed(finished: Finished, what: str) -> Outcome:
    """Exit 1 (or another code): a failure of the simulator, which bad input must never cause."""
    if "packet conservation violated" in finished.stderr:
        return Outcome("conservation", f"{what}: {finished.stderr.strip()[-2000:]}")
    return Outcome("core_error", f"{what} exit {finished.code}: {finished.stderr.strip()[-2000:]}")


# --- validate and run ------------------------------------------------------------------------


def check_cli(content: bytes, folder: Path, budget_s: float) -> Outcome:
    """`airtcp validate FILE` and `airtcp run FILE --out DIR -q` on a file holding `content`."""
    file = folder / "scenario.yaml"
    file.write_bytes(content)
    out = folder / "out"
    validated = _validate(file, folder, budget_s)
    ran = _run(file, out, folder, budget_s)
    return validated if not validated.acceptable else agreement(validated, ran, "validate")


def _validate(file: Path, folder: Path, budget_s: float) -> Outcome:
    finished = run_bounded([AIRTCP, "validate", str(file)], folder, timeout_s=6 * budget_s)
    if failure := _common_failure(finished, "validate"):
        return failure
    if finished.code is None:
        return Outcome("hang", f"validate did not finish within {6 * budget_s:g} s")
    if finished.code == 0:
        return Outcome("ok") if finished.stdout.startswith("ok: ") else Outcome("error_form", f"validate printed {finished.stdout[:500]!r}")
    if finished.code == 2:
        return _refusal(finished, "validate", None, file)
    return _failed(finished, "validate")


def _run(file: Path, out: Path, folder: Path, budget_s: float) -> Outcome:
    finished = run_bounded([AIRTCP, "run", str(file), "--out", str(out), "-q"], folder, timeout_s=3 * budget_s)
    if failure := _common_failure(finished, "run"):
        return failure
    if finished.code is None:
        return Outcome("slow", f"run did not finish within {3 * budget_s:g} s")
    if finished.code == 0:
        return _written(out)
    if finished.code == 2:
        return _refusal(finished, "run", out, file)
    return _failed(finished, "run")


def _written(out: Path) -> Outcome:
    try:
        summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        return Outcome("output_left", f"run exit 0 without a readable summary.json: {error}")
    if summary.get("valid") is not True:
        return Outcome("conservation", f"run exit 0 with summary.json valid {summary.get('valid')!r}")
    return Outcome("ok")


# --- sweep -----------------------------------------------------------------------------------


@dataclass
class SweepCase:
    """A spec file and the files beside it (a base scenario)."""

    spec: bytes
    beside: dict[str, bytes] = field(default_factory=dict)

    def reproducer(self) -> str:
        text = "# spec.yaml\n" + self.spec.decode("utf-8", "replace")
        for name, content in self.beside.items():
            text += f"\n# {name}, beside it\n" + content.decode("utf-8", "replace")
        return text


def check_sweep(case: SweepCase, folder: Path, budget_s: float) -> Outcome:
    """`airtcp sweep spec.yaml --out DIR --workers 1 -q`."""
    spec = folder / "spec.yaml"
    spec.write_bytes(case.spec)
    for name, content in case.beside.items():
        (folder / name).write_bytes(content)
    out = folder / "out"
    limit = 12 * budget_s
    finished = run_bounded([AIRTCP, "sweep", str(spec), "--out", str(out), "--workers", "1", "-q"], folder, timeout_s=limit)
    if failure := _common_failure(finished, "sweep"):
        return failure
    if finished.code is None:
        return Outcome("slow", f"sweep did not finish within {limit:g} s")
    if finished.code == 2:
        return _refusal(finished, "sweep", out, spec)
    if finished.code not in (0, 1):
        return _failed(finished, "sweep")
    if not (out / "manifest.json").is_file() or not (out / "runs.parquet").is_file():
        return Outcome("output_left", f"sweep exit {finished.code} without manifest.json and runs.parquet")
    if finished.code == 1:
        return _failed_runs(finished)
    return Outcome("ok")


def _failed_runs(finished: Finished) -> Outcome:
    """Exit 1: acceptable only when every failed run was refused as bad input."""
    lines = finished.stderr.splitlines()
    errors = [m[1] for line in lines if (m := FAILED_RUN_LINE.match(line))]
    if len(errors) != len(lines):
        return Outcome("error_form", f"sweep exit 1 with lines that are not 'failed: run <key>: <error>': {lines[:3]!r}")
    for error in errors:
        if "worker process died" in error:
            return Outcome("abort", f"sweep run: {error}")
        if "packet conservation violated" in error:
            return Outcome("conservation", f"sweep run: {error}")
        if not REFUSED_RUN.match(error):
            return Outcome("core_error", f"sweep run failed, not as bad input: {error}"[:2000])
    return Outcome("ok", f"finished; {len(errors)} runs refused as bad input")
