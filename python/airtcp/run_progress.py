"""Simulated-time progress for a single long run.

The core publishes how far a run has got (`_core.Progress`) every few thousand events, without
touching the simulation's state; this module runs the simulation in a thread (the core releases
the GIL) while the calling thread prints `simulated 42.0 / 200 s (21 %), ETA 12 s` on stderr.
Before the first event, a large network's set-up publishes its route searches (one per flow end),
shown as `setting up: routes 1200 / 2000`. Ctrl-C asks the core to stop, in the set-up or the
loop: the run is abandoned and nothing is written.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

from airtcp import _core

__all__ = ["ProgressLine", "simulate_json_watched"]

# A run shorter than this (wall clock) prints nothing: most runs finish well within it.
SHOW_AFTER_S = 1.0
# Without a terminal (a log file, CI) one line every so often rather than a redrawn one.
LOG_EVERY_S = 10.0
POLL_S = 0.1


class ProgressLine:
    """Formats and prints the progress of one run of `duration_s` simulated seconds."""

    def __init__(self, duration_s: float, stream: TextIO | None = None):
        self.duration_s = duration_s
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty()
        self.started = time.monotonic()
        self.last_print = -float("inf")
        self.printed = False
        self.width = 0

    def setup(self, done: int, total: int) -> None:
        """The set-up has done `done` of its `total` route searches."""
        self._show(f"setting up: routes {done} / {total}")

    def text(self, simulated_s: float, elapsed_s: float) -> str:
        fraction = min(simulated_s / self.duration_s, 1.0) if self.duration_s > 0 else 1.0
        eta = f"{elapsed_s * (1 - fraction) / fraction:.0f} s" if fraction > 0 else "?"
        return f"simulated {simulated_s:.1f} / {self.duration_s:g} s ({100 * fraction:.0f} %), ETA {eta}"

    def __call__(self, simulated_s: float) -> None:
        self._show(self.text(simulated_s, time.monotonic() - self.started))

    def _show(self, line: str) -> None:
        now = time.monotonic()
        elapsed = now - self.started
        if elapsed < SHOW_AFTER_S or (not self.tty and now - self.last_print < LOG_EVERY_S):
            return
        self.last_print = now
        # Padded on a terminal: the line redrawn may be shorter than the one before.
        text = line.ljust(self.width) if self.tty else line
        self.width = len(line)
        print(("\r" if self.tty else "") + text, end="" if self.tty else "\n", file=self.stream, flush=True)
        self.printed = True

    def close(self) -> None:
        if self.printed and self.tty:
            print(file=self.stream, flush=True)


def simulate_json_watched(core_json: str, report: Callable[[float], None] | None) -> str:
    """Runs `core_json` in a worker thread, calling `report(simulated_s)` about every 0.1 s
    from this thread (during the set-up's route searches `report.setup(done, total)` instead,
    if `report` has that method). Returns the core's JSON; a `KeyboardInterrupt` stops the core
    and is raised again once it has stopped. Errors of the core are raised as by
    `simulate_json`."""
    progress = _core.Progress()
    outcome: dict[str, object] = {}

    def work() -> None:
        try:
            outcome["json"] = _core.simulate_json_with_progress(core_json, progress)
        except BaseException as error:  # noqa: BLE001 - handed to the calling thread
            outcome["error"] = error

    worker = threading.Thread(target=work, name="airtcp-simulation", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(POLL_S)
            if report is None or not worker.is_alive():
                continue
            done, total = progress.setup_progress()
            simulated = progress.simulated_s()
            setup = getattr(report, "setup", None)
            if simulated == 0 and done < total and setup is not None:
                setup(done, total)
            else:
                report(simulated)
    except KeyboardInterrupt:
        progress.request_stop()
        worker.join()
        raise
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    result = outcome.get("json")
    if result is None:  # stopped, yet nobody here asked: treat like an interrupt
        raise KeyboardInterrupt
    return str(result)
