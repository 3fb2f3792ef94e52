"""The invariant of the Python API, checked in a worker process (see `isolation`).

`airtcp.load_scenario` then `airtcp.api.check` then the run, which goes through the core's
progress API so that a watchdog can tell a slow run (simulated time advancing) from a hung one
and stop it. The answer must be a well-formed `ScenarioError`, or results whose packets add up;
and `check` must refuse exactly what the run refuses before it starts.
"""

from __future__ import annotations

import json
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Any

from airtcp import _core
from airtcp.api import _core_error, check
from airtcp.scenario.schema import Scenario, load_scenario, to_core_dict
from airtcp.errors import ScenarioError, SimulationError
from fuzzing.abuse import materialize, render
from fuzzing.outcomes import Outcome, agreement

POLL_S = 0.05
# After a stop request the core should return within a few thousand events.
STOP_GRACE_S = 5.0


@dataclass
class ApiCase:
    """One call of the API: the scenario as YAML text or as data (handed over as a mapping, with
    the fuzzer's markers built in the worker), and the `seed` and `overrides` arguments."""

    source: Any
    seed: Any = None
    overrides: Any = None

    def reproducer(self) -> str:
        """The case as text for a report: the YAML, or the mapping written as YAML."""
        if isinstance(self.source, str):
            head, body = "# YAML text given to airtcp.run\n", self.source
        else:
            try:
                body = render(self.source)
            except Exception as error:  # noqa: BLE001 - a report must not fail on odd data
                body = f"# cannot be written as YAML: {error!r}\n{self.source!r}\n"
            head = "# a mapping given to airtcp.run, written as YAML\n"
        if self.seed is not None or self.overrides is not None:
            head += f"# seed={self.seed!r} overrides={self.overrides!r}\n"[:5000]
        return head + body


def check_api(case: ApiCase, budget_s: float) -> Outcome:
    """Loads, checks and runs `case`; the outcome by class."""
    source = case.source if isinstance(case.source, str) else materialize(case.source)
    overrides = () if case.overrides is None else case.overrides  # as airtcp.run passes them on
    try:
        scenario = load_scenario(source, seed=case.seed, overrides=overrides)
    except ScenarioError as error:
        return refusal(error)
    except BaseException as error:  # noqa: BLE001 - anything else is the bug looked for
        return unexpected(error, "load_scenario")
    checked = checked_by_core(scenario)
    if not checked.acceptable:
        return checked
    return agreement(checked, watched_run(scenario, budget_s), "check")


def refusal(error: ScenarioError) -> Outcome:
    """A refusal if `error` is well formed: every problem a one-line `path: message`."""
    problems = [(error.path, error.message), *error.errors]
    for path, message in problems:
        if not (isinstance(path, str) and isinstance(message, str)) or not path.strip() or not message.strip():
            return Outcome("error_form", f"empty or non-text path or message: {problems!r}"[:2000])
        if path != path.lstrip() or "\n" in path or "\n" in message or "\r" in path + message:
            return Outcome("error_form", f"not a one-line 'path: message': {path!r}: {message!r}"[:2000])
    if str(error) != f"{error.path}: {error.message}":
        return Outcome("error_form", f"str(error) {str(error)!r} is not 'path: message'"[:2000])
    return Outcome("refused", str(error)[:2000], path=error.path)


def unexpected(error: BaseException, during: str) -> Outcome:
    """A panic or any exception but the refusal."""
    if type(error).__name__ == "PanicException":
        return Outcome("panic", f"{during}: {error}")
    if isinstance(error, SimulationError):
        return Outcome("core_error", f"{during}: {error}")
    text = "".join(traceback.format_exception(error))
    return Outcome("traceback", f"{during}: {text[-3000:]}")


def checked_by_core(scenario: Scenario) -> Outcome:
    """`api.check`: ok, or the refusal."""
    try:
        check(scenario)
    except ScenarioError as error:
        return refusal(error)
    except BaseException as error:  # noqa: BLE001
        return unexpected(error, "check")
    return Outcome("ok")


def watched_run(scenario: Scenario, budget_s: float) -> Outcome:
    """Runs `scenario` in a thread through the core's progress API, stopping it when it takes
    longer than `budget_s` of wall-clock time."""
    config = to_core_dict(scenario)
    try:
        config_json = json.dumps(config)
    except ValueError as error:
        return unexpected(error, "to_core_dict")
    progress = _core.Progress()
    run = _Run(config_json, progress)
    run.thread.start()
    verdict = _watch(run, progress, budget_s)
    if verdict is not None:
        progress.request_stop()
        run.thread.join(STOP_GRACE_S)
        if run.thread.is_alive():
            return Outcome("hang", f"{verdict.detail}; still running {STOP_GRACE_S:g} s after a stop request",
                           process_spoiled=True)
        return verdict
    return _finished(run, config)


class _Run:
    """The simulation thread and what it returned or raised."""

    def __init__(self, config_json: str, progress: Any):
        self.output: str | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._work, args=(config_json, progress), name="fuzz-simulation", daemon=True)

    def _work(self, config_json: str, progress: Any) -> None:
        try:
            self.output = _core.simulate_json_with_progress(config_json, progress)
        except BaseException as error:  # noqa: BLE001 - handed to the watching thread
            self.error = error


def _watch(run: _Run, progress: Any, budget_s: float) -> Outcome | None:
    """None once the run has finished; else `slow` when the budget ran out while simulated
    time was advancing, `hang` when it stood still for the whole budget."""
    started = last_change = time.monotonic()
    last_simulated = progress.simulated_s()
    while run.thread.is_alive():
        run.thread.join(POLL_S)
        now = time.monotonic()
        simulated = progress.simulated_s()
        if simulated != last_simulated:
            last_simulated, last_change = simulated, now
        if now - last_change >= budget_s:
            return Outcome("hang", f"simulated time stood at {simulated} s for {budget_s:g} s of wall-clock time")
        # Past the budget, a run counts as slow if it advanced within the last half budget;
        # otherwise it is watched on until it advances or stands still for the whole budget.
        if now - started >= budget_s and now - last_change < budget_s / 2:
            return Outcome("slow", f"simulated {simulated} s in {now - started:.1f} s of wall-clock time")
    return None


def _finished(run: _Run, config: dict[str, Any]) -> Outcome:
    if run.error is not None:
        if isinstance(run.error, ValueError):
            mapped = _core_error(str(run.error))
            return refusal(mapped) if isinstance(mapped, ScenarioError) else unexpected(mapped, "simulate")
        return unexpected(run.error, "simulate")
    if run.output is None:
        return Outcome("core_error", "the core returned no results although nobody asked it to stop")
    try:
        from airtcp.results import TABLES, Results

        results = Results.from_json(run.output, scenario=config)
        valid, conservation = results.valid, results.conservation
        for name in TABLES:  # building the tables is part of the answer (they are built lazily)
            results.table(name)
    except BaseException as error:  # noqa: BLE001
        return unexpected(error, "Results")
    if not valid or conservation.get("ok") is not True:
        return Outcome("conservation", f"{results.conservation_problem} ({conservation})")
    return Outcome("ok")
