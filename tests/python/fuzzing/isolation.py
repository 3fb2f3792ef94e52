"""A worker process for the API checks, so that an abort, a segfault or a run that cannot be
stopped costs one worker, is reported with its cause, and the fuzzing goes on.

The worker limits its address space (`ADDRESS_SPACE`): the core's own memory budget should
refuse a scenario long before it, and if it does not, the worker dies with an allocation
failure instead of the machine running out of memory.
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import signal
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from fuzzing.outcomes import Outcome

# The core's default budget is 4 GiB; Python, Arrow and the results add about 1.5 GiB.
ADDRESS_SPACE = 10 * 2**30
# What a worker printed on stderr before it died, kept for the report.
LAST_WORDS = 3000


class IsolatedChecker:
    """Calls check functions in a worker process, started again whenever one dies."""

    def __init__(self, log_dir: Path):
        self.log = log_dir / "worker-stderr.log"
        self.context = multiprocessing.get_context("spawn")
        self.process: Any = None
        self.connection: Connection | None = None

    def call(self, check: Callable[..., Outcome], *args: Any, timeout_s: float) -> Outcome:
        """`check(*args)` in the worker; `hang` if it does not answer within `timeout_s`,
        `abort` if the worker dies."""
        connection = self._connection()
        log_start = self.log.stat().st_size if self.log.exists() else 0
        connection.send((check, args))
        try:
            answered = connection.poll(timeout_s)
            outcome = connection.recv() if answered else None
        except (EOFError, OSError):
            return self._died(log_start)
        if outcome is None:
            self.close()
            return Outcome("hang", f"no answer from the worker within {timeout_s:g} s (the Python side, or a stop ignored)")
        if outcome.process_spoiled:
            self.close()
        return outcome  # type: ignore[no-any-return]

    def _connection(self) -> Connection:
        if self.process is None or not self.process.is_alive():
            self.close()
            parent, child = self.context.Pipe()
            self.process = self.context.Process(target=_serve, args=(child, str(self.log)), name="fuzz-worker", daemon=True)
            self.process.start()
            child.close()
            self.connection = parent
        assert self.connection is not None
        return self.connection

    def _died(self, log_start: int) -> Outcome:
        self.process.join(10)
        code = self.process.exitcode
        self.close()
        how = f"signal {signal.Signals(-code).name}" if code is not None and code < 0 else f"exit code {code}"
        with open(self.log, "rb") as log:
            log.seek(log_start)
            words = log.read()[-LAST_WORDS:].decode("utf-8", "replace").strip()
        return Outcome("abort", f"the worker died ({how}): {words}")

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None
        if self.process is not None:
            if self.process.is_alive():
                self.process.kill()
            self.process.join()
            self.process.close()
            self.process = None


def _serve(connection: Connection, log: str) -> None:
    """The worker: answers `(check, args)` requests until the connection closes."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    soft = ADDRESS_SPACE if hard == resource.RLIM_INFINITY else min(ADDRESS_SPACE, hard)
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    # A core abort prints its reason on stderr: keep it for the report.
    descriptor = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(descriptor, 2)
    # Single-line YAML text that names an existing file is read as that file: let it be only
    # the log, not a file of the repository.
    os.chdir(os.path.dirname(log))
    while True:
        try:
            check, args = connection.recv()
        except (EOFError, OSError):
            return
        try:
            outcome = check(*args)
        except BaseException:  # noqa: BLE001 - a bug of the fuzzer itself: say so, and go on
            outcome = Outcome("traceback", f"in the fuzzer's own check: {traceback.format_exc()[-3000:]}")
        connection.send(outcome)
        if outcome.process_spoiled:
            os._exit(3)  # a simulation thread that would not stop keeps a core busy: go
