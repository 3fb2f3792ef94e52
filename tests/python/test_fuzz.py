"""Every input gets an answer, checked on generated input (the fuzzer is in `fuzzing/`).

By default a short, repeatable run (a few hundred cases, derandomized) that fails on the first
bad answer and shows its smallest example. `AIRTCP_FUZZ_EXAMPLES=N` asks for about N cases in
all, randomly drawn (`--hypothesis-seed=S` repeats a run): every case is counted by outcome class,
the failures are kept with their input, and each test fails at the end if it found any.
`AIRTCP_FUZZ_REPORT=PATH` writes the counts and the failures' inputs there as JSON; a long run
also prints the counts.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from fuzzing.api_check import ApiCase, check_api
from fuzzing.cases import api_cases, scenario_files
from fuzzing.command_line import SweepCase, check_cli, check_sweep
from fuzzing.isolation import IsolatedChecker
from fuzzing.outcomes import Outcome, Tally
from fuzzing.sweep_specs import sweep_cases

EXAMPLES_VARIABLE = "AIRTCP_FUZZ_EXAMPLES"
REPORT_VARIABLE = "AIRTCP_FUZZ_REPORT"

# Cases per entry point in the short run, and each one's share of a long run's N.
SHORT_RUN = {"api": 300, "cli": 24, "sweep": 16}
SHARES = {"api": 0.75, "cli": 0.15, "sweep": 0.10}


def _requested_total() -> int | None:
    text = os.environ.get(EXAMPLES_VARIABLE, "").strip()
    if not text:
        return None
    if not text.isdigit() or int(text) < 1:
        raise pytest.UsageError(f"{EXAMPLES_VARIABLE} must be a whole number of cases, at least 1; got {text!r}")
    return int(text)


LONG_RUN = _requested_total()
# Wall-clock seconds a run may take before it is stopped as slow (or found hung).
BUDGET_S = 10.0 if LONG_RUN else 3.0
TALLY = Tally()


def fuzz_settings(entry: str) -> settings:
    if LONG_RUN is None:
        examples, repeatable = SHORT_RUN[entry], True
    else:
        examples, repeatable = max(1, round(LONG_RUN * SHARES[entry])), False
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=repeatable,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


def answered(entry: str, outcome: Outcome, reproducer: str, started: float) -> None:
    """Counts the outcome; in the short run a bad answer fails the test at once (and is shrunk)."""
    TALLY.record(entry, outcome, reproducer, time.monotonic() - started)
    if LONG_RUN is None:
        assert outcome.acceptable, f"{outcome}\n--- input ---\n{reproducer[:5000]}"


def assert_none_failed(entry: str) -> None:
    summary = "\n".join(f"{f['class']}: {f['detail'][:300]}" for f in TALLY.failures(entry)[:20])
    count = TALLY.failure_count(entry)
    assert not count, f"{count} bad answers (their inputs are in the {REPORT_VARIABLE} report):\n{summary}"


@pytest.fixture(scope="module")
def isolated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IsolatedChecker]:
    checker = IsolatedChecker(tmp_path_factory.mktemp("fuzz-worker"))
    yield checker
    checker.close()


@pytest.fixture(autouse=True)
def report_so_far() -> Iterator[None]:
    """The report file, rewritten after each test: a long run stopped early keeps what it found."""
    yield
    target = os.environ.get(REPORT_VARIABLE)
    if target:
        TALLY.write(Path(target))


@pytest.fixture(scope="module", autouse=True)
def report(request: pytest.FixtureRequest) -> Iterator[None]:
    """After the tests, in a long run: the counts on the terminal."""
    yield
    target = os.environ.get(REPORT_VARIABLE)
    if LONG_RUN is not None:
        capture = request.config.pluginmanager.getplugin("capturemanager")
        with capture.global_and_fixture_disabled():
            print("\n" + "\n".join(TALLY.summary_lines()) + (f"\nreport: {target}" if target else ""))


def test_the_api_answers_every_scenario(isolated: IsolatedChecker) -> None:
    @fuzz_settings("api")
    @given(case=api_cases())
    def api_answers(case: ApiCase) -> None:
        started = time.monotonic()
        # Loading, checking and the watched run; the worker's own limit is far beyond them.
        outcome = isolated.call(check_api, case, BUDGET_S, timeout_s=4 * BUDGET_S + 60)
        answered("api", outcome, case.reproducer(), started)

    api_answers()
    assert_none_failed("api")


def answered_in_a_folder(entry: str, check: Callable[[Any, Path, float], Outcome], case: Any, reproducer: str,
                         folders: pytest.TempPathFactory) -> None:
    """Runs a check of the command line in a fresh folder, removed afterwards (a case may write
    16 MiB)."""
    started = time.monotonic()
    folder = folders.mktemp(entry)
    try:
        outcome = check(case, folder, BUDGET_S)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    answered(entry, outcome, reproducer, started)


def test_validate_and_run_answer_every_file(tmp_path_factory: pytest.TempPathFactory) -> None:
    @fuzz_settings("cli")
    @given(content=scenario_files())
    def command_answers(content: bytes) -> None:
        answered_in_a_folder("cli", check_cli, content, content.decode("utf-8", "replace")[:50_000], tmp_path_factory)

    command_answers()
    assert_none_failed("cli")


def test_sweep_answers_every_spec(tmp_path_factory: pytest.TempPathFactory) -> None:
    @fuzz_settings("sweep")
    @given(case=sweep_cases())
    def sweep_answers(case: SweepCase) -> None:
        answered_in_a_folder("sweep", check_sweep, case, case.reproducer(), tmp_path_factory)

    sweep_answers()
    assert_none_failed("sweep")
