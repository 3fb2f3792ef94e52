"""Running a sweep into a resumable experiment directory.

Layout of `OUT/`:

- `manifest.json`: the spec, the airtcp version, and one entry per run (parameters, seed,
  the hash of the normalised configuration the core receives);
- `runs/<key>.json`: one record per finished run, written atomically (a temporary file renamed
  into place): status `done` with its results, or `failed` with the error (a run whose packets
  do not add up is `failed` too, its results kept in the record);
- `runs.parquet`, `flows.parquet`, `goodput.parquet`: the tables, rebuilt from the records at the
  end of every invocation (each written atomically); flows and goodput hold the `done` runs.

Running the same sweep into the same folder again skips the runs recorded `done` with the same
configuration hash and retries the failed ones (and any record found damaged). An interrupt
(Ctrl-C, SIGTERM) stops handing out runs and stops the workers; records already written stay,
nothing is left half-written, and the next invocation picks up the rest. Runs execute in a local
process pool (`workers`, default the number of cores) or on a Dask distributed cluster
(`cluster="tcp://host:port"`). A run that kills its worker process fails alone: see
`_local_results`.
"""

from __future__ import annotations

import concurrent.futures.process
import ctypes
import hashlib
import json
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from airtcp import __version__
from airtcp.atomic_dir import atomic_write_bytes
from airtcp.scenario.schema import load_scenario, to_core_json
from airtcp.errors import ScenarioError
from airtcp.results import Column, _row_columns, conservation_problem, flow_row, write_columns
from airtcp.experiments.spec import RunPoint, SweepSpec, base_source, expand, load_sweep_spec

__all__ = ["SweepOutcome", "SweepInterrupted", "run_sweep", "check_sweep_folder", "read_manifest", "write_tables"]

# An explicit --workers beyond this many per core only queues for the CPU and costs memory.
MAX_WORKERS_PER_CORE = 4
# Seeds are u64 in scenarios: int64 columns would overflow from 2^63 on.
_KEY_COLUMNS = {"key": "string", "seed": "uint64"}

Result = dict[str, Any]  # what `_execute` returns: status, error or raw results, wall_s


@dataclass
class SweepOutcome:
    """What one invocation did."""

    out: Path
    total: int = 0
    executed: int = 0
    skipped: int = 0
    failed: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)  # (key, error)

    @property
    def ok(self) -> bool:
        return self.failed == 0


@dataclass(frozen=True)
class _Job:
    """A run to execute: its point, the JSON the core receives, and that JSON's hash."""

    point: RunPoint
    core_json: str
    config_hash: str


def _execute(core_json: str) -> Result:
    """Runs one normalised configuration (in a worker); never raises for a simulation error."""
    from airtcp import _core

    started = time.perf_counter()
    try:
        raw = json.loads(_core.simulate_json(core_json))
    except (KeyboardInterrupt, SystemExit):
        raise  # Ctrl-C reaches the workers too: that is the sweep stopping, not this run failing
    except BaseException as error:  # noqa: BLE001 - a panic in the core is a BaseException
        return {"status": "failed", "error": f"{type(error).__name__}: {error}", "wall_s": time.perf_counter() - started}
    return {"status": "done", "raw": raw, "wall_s": time.perf_counter() - started}


class SweepInterrupted(KeyboardInterrupt):
    """SIGTERM, raised as an interrupt so that it stops the sweep exactly as Ctrl-C does."""


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    def handler(signum: int, frame: Any) -> None:
        raise SweepInterrupted()

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class _Progress:
    """One status line on stderr: done / total, failures, ETA. Redrawn in place on a terminal;
    elsewhere (a log, CI) a line at the start, at most every `LOG_EVERY_S`, and at the end."""

    LOG_EVERY_S = 5.0

    def __init__(self, total: int, quiet: bool):
        self.total, self.quiet = total, quiet
        self.started = time.monotonic()
        self.tty = sys.stderr.isatty()
        self.last_line = -float("inf")

    def update(self, done: int, failed: int, executed: int, pending: int) -> None:
        if self.quiet:
            return
        now = time.monotonic()
        if not self.tty and pending and executed and now - self.last_line < self.LOG_EVERY_S:
            return
        self.last_line = now
        elapsed = now - self.started
        eta = f"{elapsed / executed * pending:.0f}s" if executed else "?"
        line = f"{self.bar(done + failed)} runs {done}/{self.total} done, {failed} failed, ETA {eta}"
        print(("\r" if self.tty else "") + line, end="" if self.tty else "\n", file=sys.stderr, flush=True)

    def bar(self, finished: int, width: int = 24) -> str:
        """`[#########---------------]`: the share of runs finished (done or failed)."""
        filled = width * finished // self.total if self.total else width
        return "[" + "#" * filled + "-" * (width - filled) + "]"

    def close(self) -> None:
        if not self.quiet and self.tty:
            print(file=sys.stderr)


def _record(point: RunPoint, config_hash: str | None, result: Mapping[str, Any]) -> dict[str, Any]:
    record: dict[str, Any] = {
        "key": point.key,
        "params": dict(point.params),
        "seed": point.seed,
        "config_hash": config_hash,
        "status": result["status"],
        "error": result.get("error"),
        "wall_s": result.get("wall_s"),
    }
    raw = result.get("raw")
    if raw is not None:
        record["results"] = {key: value for key, value in raw.items() if key != "timing"}
        conservation = conservation_problem(raw)
        if conservation is not None:  # numbers from a run that lost track of packets are not results
            record.update(status="failed", error=conservation)
    return record


def _prepare(spec: SweepSpec, folder: Path | None) -> list[tuple[RunPoint, str | None, str | None, str | None]]:
    """Each run with its core JSON and config hash, or the scenario error that makes it fail."""
    base = base_source(spec, folder)
    prepared = []
    for point in expand(spec):
        try:
            scenario = load_scenario(base, seed=point.seed, overrides=point.overrides)
        except ScenarioError as error:
            prepared.append((point, None, None, "; ".join(error.lines())))
            continue
        core_json = to_core_json(scenario)
        prepared.append((point, core_json, hashlib.sha256(core_json.encode()).hexdigest(), None))
    return prepared


def read_manifest(out: Path) -> dict[str, Any]:
    """`out/manifest.json`. Raises `ScenarioError` naming the file, with what to do, when it is
    damaged: without it the folder's sweep is unknown, so it is not silently rewritten."""
    path = out / "manifest.json"
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as error:
        problem = error.strerror if isinstance(error, OSError) and error.strerror else "not JSON"
    else:
        if isinstance(manifest, dict) and isinstance(manifest.get("spec"), dict) and isinstance(manifest.get("runs"), list):
            return manifest
        problem = "not a sweep manifest"
    raise ScenarioError(
        str(path),
        f"damaged ({problem}); if this folder holds the same sweep, delete the file and run the sweep again "
        "(finished runs are kept), else use another folder",
    )


def _check_manifest(out: Path, spec: SweepSpec) -> None:
    if not os.path.lexists(out / "manifest.json"):
        return
    if read_manifest(out)["spec"] != spec.model_dump(mode="json"):
        raise ScenarioError("--out", f"{str(out)!r} holds a different sweep; use another folder")


def check_sweep_folder(source: str | Path | Mapping[str, Any], out: str | Path) -> None:
    """Raises `ScenarioError` if `out` cannot take the sweep `source` (a bad spec, a file in the
    way, a folder holding another sweep): what `run_sweep` would refuse, checked without writing,
    so that a driver of several sweeps refuses before running the first."""
    spec, _ = load_sweep_spec(source)
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ScenarioError("--out", f"{str(out)!r} exists and is not a directory")
    _check_manifest(out, spec)


def run_sweep(
    source: str | Path | Mapping[str, Any],
    out: str | Path,
    *,
    workers: int | None = None,
    cluster: str | None = None,
    quiet: bool = False,
    on_record: Callable[[dict[str, Any]], None] | None = None,
) -> SweepOutcome:
    """Runs (or resumes) a sweep into `out`. Raises `ScenarioError` for a bad spec or folder
    (before anything is written); failed runs are recorded, not raised. Raises
    `KeyboardInterrupt` (`SweepInterrupted` for SIGTERM) when stopped."""
    spec, folder = load_sweep_spec(source)
    if workers is not None and workers < 1:
        raise ScenarioError("--workers", f"must be at least 1, got {workers}")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ScenarioError("--out", f"{str(out)!r} exists and is not a directory")
    _check_manifest(out, spec)
    prepared = _prepare(spec, folder)
    # Connected before anything is written: an unreachable cluster leaves no folder behind.
    with _sigterm_interrupts(), _executor(workers, cluster) as run_jobs:
        return _run(spec, out, prepared, run_jobs, quiet, on_record)


def _run(
    spec: SweepSpec,
    out: Path,
    prepared: list[tuple[RunPoint, str | None, str | None, str | None]],
    run_jobs: Callable[[list[_Job]], Iterator[tuple[_Job, Result]]],
    quiet: bool,
    on_record: Callable[[dict[str, Any]], None] | None,
) -> SweepOutcome:
    runs_dir = out / "runs"
    _make_folder(runs_dir)
    manifest = {
        "spec": spec.model_dump(mode="json"),
        "airtcp_version": __version__,
        "runs": [
            {"key": p.key, "params": dict(p.params), "seed": p.seed, "config_hash": h}
            for p, _, h, _ in prepared
        ],
    }
    atomic_write_bytes(out / "manifest.json", (json.dumps(manifest, indent=1, default=str) + "\n").encode())

    outcome = SweepOutcome(out=out, total=len(prepared))
    todo: list[_Job] = []
    done = 0
    for point, core_json, config_hash, error in prepared:
        if _recorded_done(runs_dir, point, config_hash):
            outcome.skipped += 1
            done += 1
            continue
        if error is not None:
            record = _record(point, None, {"status": "failed", "error": error})
            atomic_write_bytes(runs_dir / f"{point.key}.json", json.dumps(record).encode())
            outcome.failed += 1
            outcome.failures.append((point.key, error))
            continue
        assert core_json is not None and config_hash is not None
        todo.append(_Job(point, core_json, config_hash))

    progress = _Progress(outcome.total, quiet)
    progress.update(done, outcome.failed, 0, len(todo))
    try:
        with closing(run_jobs(todo)) as results:
            for job, result in results:
                record = _record(job.point, job.config_hash, result)
                atomic_write_bytes(runs_dir / f"{job.point.key}.json", json.dumps(record).encode())
                outcome.executed += 1
                if record["status"] == "done":
                    done += 1
                else:
                    outcome.failed += 1
                    outcome.failures.append((job.point.key, record["error"]))
                if on_record is not None:
                    on_record(record)
                progress.update(done, outcome.failed, outcome.executed, len(todo) - outcome.executed)
    finally:
        progress.close()
        write_tables(out, [p for p, *_ in prepared])
    return outcome


def _make_folder(runs_dir: Path) -> None:
    try:
        runs_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ScenarioError("--out", f"cannot create {str(runs_dir)!r}: {error.strerror or error}") from None


def _recorded_done(runs_dir: Path, point: RunPoint, config_hash: str | None) -> bool:
    """Whether the run has a `done` record for this configuration. A damaged record (cut short,
    edited) counts as none: the run is executed again, and the user is told."""
    path = runs_dir / f"{point.key}.json"
    try:
        record = _read_record(path, point.key)
    except _DamagedRecord as damage:
        print(f"warning: {path}: damaged run record ({damage}); running it again", file=sys.stderr)
        return False
    return record is not None and record["status"] == "done" and record["config_hash"] == config_hash


# --------------------------------------------------------------------------------------------
# Executing runs


@contextmanager
def _executor(workers: int | None, cluster: str | None) -> Iterator[Callable[[list[_Job]], Iterator[tuple[_Job, Result]]]]:
    """A function running jobs, yielding each with its result as it finishes: in a local process
    pool or on a Dask cluster, so the sweep loop is the same for both."""
    if cluster is None:
        yield lambda jobs: _local_results(jobs, _pool_size(workers, len(jobs)))
        return
    try:
        from distributed import Client
    except ImportError:
        raise ScenarioError("--cluster", "needs the 'distributed' package (pip install distributed)") from None
    try:
        client = Client(cluster, timeout="10s")
    except OSError as error:
        raise ScenarioError("--cluster", f"cannot reach {cluster}: {error}") from None
    try:
        yield lambda jobs: _dask_results(client, jobs)
    finally:
        client.close()


def _dask_results(client: Any, jobs: list[_Job]) -> Iterator[tuple[_Job, Result]]:
    """Dask retries a task whose worker died on another worker and gives up on it alone
    (`KilledWorker`), so a crashing run fails without taking the others along."""
    from distributed import as_completed

    # pure=False: two runs with equal arguments are still two runs (Dask would merge them).
    futures = {client.submit(_execute, job.core_json, pure=False): job for job in jobs}
    for future in as_completed(futures):
        yield futures[future], _result_of(future)


def _result_of(future: Any) -> Result:
    try:
        return future.result()  # type: ignore[no-any-return]
    except Exception as error:  # noqa: BLE001 - anything but a result is this run's failure
        return {"status": "failed", "error": f"{type(error).__name__}: {error}"}


def _pool_size(requested: int | None, pending: int) -> int:
    """Worker processes for `pending` runs: the cores by default; never more than the runs (an
    idle process costs memory) nor `MAX_WORKERS_PER_CORE` per core."""
    cores = _cores()
    return max(1, min(requested or cores, pending, MAX_WORKERS_PER_CORE * cores))


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))  # the cores this process may use (taskset, cpusets)
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


@dataclass
class _Crash:
    """A pool broken by a worker that died: the runs that were in flight, and how it died."""

    jobs: list[_Job]
    cause: str


def _local_results(jobs: list[_Job], size: int) -> Iterator[tuple[_Job, Result]]:
    """Runs `jobs` in a pool of `size` worker processes.

    A worker that dies (the core aborting, a segfault, the kernel's out-of-memory killer) breaks
    its whole pool, and which of the runs in flight killed it is unknown. So a new pool takes
    over the runs not yet started, and those that were in flight are run again one at a time,
    each in a pool of its own: a run is recorded failed only when it kills a worker while
    running alone. The outcome is then the same whatever the number of workers.
    """
    waiting: deque[_Job] = deque(jobs)
    alone: deque[_Job] = deque()
    while waiting or alone:
        queue, pool_size = (deque([alone.popleft()]), 1) if alone else (waiting, min(size, len(waiting)))
        crash = yield from _run_in_pool(queue, pool_size)
        if crash is None:
            continue
        if pool_size == 1:
            for job in crash.jobs:
                yield job, {"status": "failed", "error": crash.cause}
        else:
            alone.extend(crash.jobs)


def _run_in_pool(queue: deque[_Job], size: int) -> Generator[tuple[_Job, Result], None, _Crash | None]:
    """Runs jobs taken from `queue`, at most `size` at a time, until the queue is empty or the
    pool breaks; returns None or the crash. Handing out a job only when a worker is free keeps
    the runs in flight known (and a huge sweep's JSON out of the pool's queue)."""
    pool = ProcessPoolExecutor(max_workers=size, initializer=_worker_started, initargs=(os.getpid(),))
    workers: dict[int, BaseProcess] = {}
    in_flight: dict[Future[Result], _Job] = {}
    lost: list[_Job] = []
    broken = finished = False
    try:
        while in_flight or (queue and not broken):
            while queue and not broken and len(in_flight) < size:
                try:
                    future = pool.submit(_execute, queue[0].core_json)
                except BrokenProcessPool:
                    broken = True
                else:
                    in_flight[future] = queue.popleft()
                workers.update(_processes_of(pool))
            for future in wait(in_flight, return_when=FIRST_COMPLETED).done:
                job = in_flight.pop(future)
                if isinstance(future.exception(), BrokenProcessPool):
                    broken = True
                    lost.append(job)
                else:
                    yield job, _result_of(future)
        finished = True
    finally:
        if finished:
            pool.shutdown(wait=True)
        else:  # interrupted: the runs in flight are abandoned, and waiting for them could take long
            # Taken before `shutdown`, which forgets it.
            manager = getattr(pool, "_executor_manager_thread", None)  # not public API
            _kill(workers.values())
            pool.shutdown(wait=False, cancel_futures=True)
            _join_manager(manager)
    return _Crash(lost, _how_one_died(workers.values())) if broken else None


def _join_manager(manager: threading.Thread | None, timeout_s: float = 5.0) -> None:
    """Waits (briefly) for the pool's manager thread, which notices the killed workers and
    closes its wake-up pipe. Python 3.11 wakes that thread once more at exit without the pool's
    lock (`concurrent.futures.process._python_exit`): if the thread is closing the pipe just
    then, the write fails ("Bad file descriptor") and a traceback is printed after the sweep has
    already reported its interruption. The thread is taken out of the exit's wake-ups whether or
    not it finished in time (the interpreter still joins it at exit, and it ends once it has seen
    its workers gone)."""
    if manager is None:
        return
    manager.join(timeout_s)
    wakeups = getattr(concurrent.futures.process, "_threads_wakeups", None)  # not public API
    if wakeups is not None:
        wakeups.pop(manager, None)


def _processes_of(pool: ProcessPoolExecutor) -> dict[int, BaseProcess]:
    # Not public API; without it a crash is reported without the signal that caused it.
    return dict(getattr(pool, "_processes", None) or {})


def _kill(processes: Iterable[BaseProcess]) -> None:
    for process in processes:
        if process.is_alive():
            process.kill()


def _how_one_died(processes: Iterable[BaseProcess]) -> str:
    """`worker process died (signal SIGABRT)`. Once a worker dies the pool terminates the others
    (SIGTERM), so the cause is the first other exit status."""
    codes = []
    for process in processes:
        process.join(timeout=10)
        codes.append(process.exitcode)
    code = next((c for c in codes if c not in (None, 0, -signal.SIGTERM)), None) or next((c for c in codes if c), None)
    if code is None:
        return "worker process died"
    if code > 0:
        return f"worker process died (exit code {code})"
    try:
        return f"worker process died (signal {signal.Signals(-code).name})"
    except ValueError:
        return f"worker process died (signal {-code})"


# --------------------------------------------------------------------------------------------
# In a worker process

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def _worker_started(sweep_pid: int) -> None:
    """Runs first in every local worker process."""
    # The sweep process handles Ctrl-C and SIGTERM and stops its workers itself: a worker reacting
    # on its own (Ctrl-C reaches the whole process group) would report its run failed, and one
    # inheriting the sweep's SIGTERM handler would not stop when told to.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent(sweep_pid)


def _die_with_parent(sweep_pid: int) -> None:
    """A worker outliving a sweep killed with SIGKILL would wait for work forever (its siblings
    hold the work queue open). On Linux the kernel kills it when its parent dies; elsewhere a
    thread polls for the parent's death."""
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):
            pass
    if not _alive(sweep_pid):  # it died before the request above took effect
        os._exit(1)
    threading.Thread(target=_exit_when_orphaned, args=(parent,), name="airtcp-parent-watch", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _exit_when_orphaned(parent: int, poll_s: float = 1.0) -> None:
    while os.getppid() == parent:
        time.sleep(poll_s)
    os._exit(1)


# --------------------------------------------------------------------------------------------
# Records and tables


class _DamagedRecord(Exception):
    """A run record that is not whole: cut short, not JSON, or not shaped like a record."""


_RECORD_FIELDS: dict[str, tuple[type, ...]] = {
    "key": (str,),
    "params": (dict,),
    "seed": (int,),
    "config_hash": (str, type(None)),
    "status": (str,),
    "error": (str, type(None)),
    "wall_s": (int, float, type(None)),
}


def _read_record(path: Path, key: str) -> dict[str, Any] | None:
    """The run's record, None if it has none; raises `_DamagedRecord`."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise _DamagedRecord(f"unreadable: {error}") from None
    try:
        record = json.loads(text)
    except (ValueError, RecursionError):
        raise _DamagedRecord("not JSON, perhaps cut short") from None
    problem = _record_problem(record, key)
    if problem is not None:
        raise _DamagedRecord(problem)
    return record  # type: ignore[no-any-return]


def _record_problem(record: Any, key: str) -> str | None:
    if not isinstance(record, dict):
        return f"a {type(record).__name__}, not a record"
    for name, types in _RECORD_FIELDS.items():
        if name not in record or not isinstance(record[name], types):
            return f"{name} missing or of the wrong type"
    if record["key"] != key:
        return "another run's record"
    if record["status"] not in ("done", "failed"):
        return f"unknown status {record['status']!r}"
    try:
        _table_rows(record)
    except (AttributeError, KeyError, TypeError, ValueError):
        return "results in an unexpected form"
    return None


def _table_rows(record: Mapping[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """The record's row of the runs table and its rows of the flows and goodput tables (only a
    `done` run's measurements go into those)."""
    results = (record.get("results") or {}) if record["status"] == "done" else {}
    run = {"key": record["key"], "seed": record["seed"], "status": record["status"], "error": record["error"],
           "config_hash": record["config_hash"], "wall_s": record["wall_s"], "jain": results.get("jain")}
    run.update({f"param:{k}": json.dumps(v) for k, v in record["params"].items()})
    at = {"key": record["key"], "seed": record["seed"]}
    flows = [{**at, **flow_row(flow)} for flow in results.get("flows", [])]
    series = (results.get("timeseries") or {}).get("goodput") or {}
    goodput = [{**at, "flow": flow, "t_s": t, "goodput_bps": g}
               for flow, t, g in zip(series.get("flow", []), series.get("t_s", []), series.get("goodput_bps", []))]
    return run, flows, goodput


def write_tables(out: Path, points: list[RunPoint]) -> None:
    """Rebuilds runs / flows / goodput Parquet tables from the run records, in spec order. A
    damaged record is left out, as its run is not done."""
    runs, flows, goodput = [], [], []
    for point in points:
        try:
            record = _read_record(out / "runs" / f"{point.key}.json", point.key)
        except _DamagedRecord:
            continue
        if record is None:
            continue
        run, its_flows, its_goodput = _table_rows(record)
        runs.append(run)
        flows += its_flows
        goodput += its_goodput
    for name, rows in (("runs", runs), ("flows", flows), ("goodput", goodput)):
        _write_parquet(_row_columns(rows, _KEY_COLUMNS), out / f"{name}.parquet")


def _write_parquet(columns: list[Column], path: Path) -> None:
    """Whole or absent, like `atomic_write_bytes`."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        write_columns(columns, tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
